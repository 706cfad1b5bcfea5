/*
 * console.h - the state of dts-console, shared by its modules: the
 * configuration and tunables, the desired schedule, the nodes heard, the
 * cached PVM host table, the host file read last (`hosts`), the socket
 * and the master loop's timers.
 *
 * The engine's part (master/master.h: struct engine) is the union's e,
 * which the engine's functions take (master_send(&c->e, ...)); the
 * console reaches its members by name (c->sch).  Only the layers above
 * the others see inside this structure: cmds.c (the commands); and
 * main.c, which owns it, with console.c, which sets it up.  The modules
 * below (report, trace, setkeys, pvm, pvmcmd, net, nodes, ...) get the
 * parts they work on; the shell and scripts go through cmds.h.  Output,
 * errors and notices go through c->out (out.h).
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
#include "report.h"
#include "schedule.h"
#include "standby.h"

struct console {
	union {
		struct engine	 e;	/* what the engine's functions take */
		struct { ENGINE_MEMBERS };	/* the same, by name */
	};
	const char	*conf_path;
	int		 explicit_conf;	/* -f given */
	int		 interactive;
	int		 quit;		/* quit requested */
	struct hostfile	 hostfile;	/* `hosts FILE`: an MPI job's nodes */
	struct cpvm	 pvm;
};

/*
 * Defaults from conf; no socket, no PVM, no master state: the caller
 * opens those and calls master_init() after this.
 */
void con_init(struct console *c, const struct dts_conf *conf, FILE *out);

/* master_node_timeout() of the console's engine. */
int64_t con_node_timeout(const struct console *c);

/* What the report tables read, from the engine. */
void master_report_src(const struct console *c, struct report_src *s);
void con_report_src(const struct engine *e, struct report_src *s);

/*
 * The engine's report hook (con_init sets it): a round is over; the
 * status, load or jobs table, or the metrics, on the output (the
 * metrics to their file).  0, or -1 with out.err.
 */
int con_report(struct engine *e, int64_t now);

#endif /* DTS_CONSOLE_CONSOLE_H */
