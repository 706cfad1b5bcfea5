/*
 * console.h - the state of dts-console, shared by its modules: the
 * configuration and tunables, the desired schedule, the nodes heard, the
 * cached PVM host table, the host file read last (`hosts`), the socket
 * and the master loop's timers.
 *
 * Commands report failure by returning con_err(c, ...), which keeps a
 * one-line message in c->err; their output goes to c->out.  Messages that
 * arrive on their own (balanced mode changed PS, the VM was halted) go
 * through con_notice(), which the shell prints without breaking the
 * prompt.
 */
#ifndef DTS_CONSOLE_CONSOLE_H
#define DTS_CONSOLE_CONSOLE_H

#include <stdio.h>

#include "balance.h"
#include "cmd.h"
#include "conf.h"
#include "hostfile.h"
#include "master.h"
#include "net.h"
#include "nodes.h"
#include "pvm.h"
#include "schedule.h"

struct console {
	struct dts_conf	 conf;		/* console.* keys are the tunables */
	const char	*conf_path;
	int		 explicit_conf;	/* -f given */
	FILE		*out;		/* command output */
	char		 err[CMD_ERR_MAX];	/* why the last command failed */
	int		 interactive;
	int		 no_pvm;	/* -n: never touch PVM */
	int		 quit;		/* quit requested */
	void		(*notice)(struct console *, const char *);

	struct sch	 sch;
	struct bal	 bal;
	struct weights	 weights;
	struct nodes	 nodes;
	struct vm_hosts	 hosts;		/* cached pvm_config */
	struct hostfile	 hostfile;	/* `hosts FILE`: an MPI job's nodes */
	struct net	 net;
	struct cpvm	 pvm;
	struct master	 m;
};

/* Defaults from conf; no socket, no PVM (main opens those). */
void con_init(struct console *c, const struct dts_conf *conf, FILE *out);

/*
 * How long a node may be silent before it leaves the RLA: console.timeout,
 * but never less than two SIs (plus status_wait), since a node whose load
 * does not move is heard only in its replies to the SI broadcasts.
 */
int64_t con_node_timeout(const struct console *c);

/* Keep a one-line error in c->err; returns -1. */
int con_err(struct console *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Put "prefix: " before the message in c->err; returns -1. */
int con_prefix(struct console *c, const char *prefix);

/* A message nobody asked for, e.g. a balanced PS change. */
void con_notice(struct console *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* DTS_CONSOLE_CONSOLE_H */
