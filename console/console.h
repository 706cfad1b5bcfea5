/*
 * console.h - the state of dts-console, shared by its modules: the
 * configuration and tunables, the desired schedule, the nodes heard, the
 * cached PVM host table, the host file read last (`hosts`), the socket
 * and the master loop's timers.
 *
 * Only the layers above the others see inside this structure: master.c
 * (the loop) and cmds.c (the commands); and main.c, which owns it, with
 * console.c, which sets it up.  The modules below (report, trace,
 * setkeys, pvm, pvmcmd, net, nodes, ...) get the parts they work on; the
 * shell and scripts go through cmds.h.  Output, errors and notices go
 * through c->out (out.h).
 */
#ifndef DTS_CONSOLE_CONSOLE_H
#define DTS_CONSOLE_CONSOLE_H

#include <stdio.h>

#include "balance.h"
#include "cmd.h"
#include "conf.h"
#include "hostfile.h"
#include "master.h"
#include "matrix.h"
#include "net.h"
#include "nodes.h"
#include "out.h"
#include "pvm.h"
#include "schedule.h"
#include "standby.h"

struct console {
	struct dts_conf	 conf;		/* console.* keys are the tunables */
	const char	*conf_path;
	int		 explicit_conf;	/* -f given */
	struct out	 out;		/* output, error, notices */
	int		 interactive;
	int		 quit;		/* quit requested */

	struct sch	 sch;
	struct bal	 bal;
	struct weights	 weights;	/* hosts' power weights (RLA) */
	struct jobw	 jobw;		/* jobs' weights (the matrix) */
	struct nodes	 nodes;
	struct vm_hosts	 hosts;		/* cached pvm_config */
	struct hostfile	 hostfile;	/* `hosts FILE`: an MPI job's nodes */
	struct net	 net;
	struct cpvm	 pvm;
	struct master	 m;
	struct standby	 sb;		/* console.peer: master or standby */
	/* dts-master's socket (console.master_socket, mctl.h): remote, the
	 * master answered, and the schedule's commands go to it; own, no
	 * master does, and the reports label this console's own values */
	int		 remote;
	int		 own;
};

/*
 * Defaults from conf; no socket, no PVM, no master state: the caller
 * opens those and calls master_init() after this.
 */
void con_init(struct console *c, const struct dts_conf *conf, FILE *out);

/*
 * How long a node may be silent before it leaves the RLA: console.timeout,
 * but never less than two SIs (plus status_wait), since a node whose load
 * does not move is heard only in its replies to the SI broadcasts.
 */
int64_t con_node_timeout(const struct console *c);

#endif /* DTS_CONSOLE_CONSOLE_H */
