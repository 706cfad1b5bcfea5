/*
 * master.h - the master engine's loop (thesis Algorithm 2, Console), as
 * dts-master and dts-console run it.
 *
 * Once started (or stopped), the schedule goes to the nodes every SI as a
 * SCHEDULE with SCHED_F_SYNC, and at once whenever it changes; with
 * several jobs on a node, each node gets its own SCHEDULE, with the slot
 * table of its jobs from the gang matrix (matrix.h).  In
 * BALANCED mode every STATUS or LOAD updates the node's Q; the RLA is
 * recomputed and, past the hysteresis, Table 2.1 gives a new PS that is
 * sent at once.  Right after the mode becomes balanced and after start,
 * the decision waits for the round of replies to that schedule: until
 * console.status_wait is over, or every node known when it went out has
 * answered.  A node silent for console.timeout leaves the RLA.
 * `status` is asynchronous: the request goes out, replies are collected
 * for console.status_wait, then the client's report hook prints the
 * table (struct engine); meanwhile the loop goes on.  Nothing here
 * blocks; all times are CLOCK_MONOTONIC ns.
 */
#ifndef DTS_MASTER_MASTER_H
#define DTS_MASTER_MASTER_H

#include <stdint.h>

#include "balance.h"
#include "conf.h"
#include "matrix.h"
#include "metrics.h"
#include "net.h"
#include "nodes.h"
#include "out.h"
#include "schedule.h"
#include "standby.h"
#include "trace.h"

#define MASTER_HELD_MAX		256	/* held jobs logged each way */
#define MASTER_MEM_GAP_NS	(1000 * 1000 * 1000) /* JOB_MEM_REQs */

struct master {
	int64_t		 next_si;	/* next SI broadcast, 0 = none */
	int64_t		 status_until;	/* status window closes, 0 = none */
	int64_t		 status_since;	/* status request sent */
	int		 status_how;	/* MASTER_VERBOSE, MASTER_JSON */
	int		 status_what;	/* MASTER_STATUS, _LOAD, _METRICS */
	struct metrics_file metrics;	/* `metrics FILE`'s file */
	int		 async_done;	/* an asynchronous command finished */
	int		 async_rc;	/* ... with this result */
	int64_t		 expiry;	/* next node timeout to look at */
	int64_t		 bal_until;	/* balanced waits until, 0 = not */
	int64_t		 bal_since;	/* ... for replies since */
	int		 bal_known;	/* ... from the nodes known then */
	struct rla	 rla;		/* last computed */
	struct trace_run trace;		/* the `trace` command */
	struct matrix	 mx;		/* last computed (master_matrix) */
	int		 mx_tables;	/* SCHEDULEs carry slot tables */
	int		 mx_pending;	/* a node's table changed: send */
	int64_t		 last_send;	/* the last SCHEDULE went out */
	/* the jobs held for room (dts(8), MEMORY) at the last matrix, for
	 * the log's once each way */
	int		 nheld;
	char		 held[MASTER_HELD_MAX][PROTO_JOB_LEN];
};

/*
 * The engine: the configuration, the schedule, the nodes, the socket,
 * the loop and the standby pair.  It prints nothing: errors go to
 * out.err, notices to out.notice, a command's lines to out.say, and the
 * table that ends a round to report (the client's printers).  A client
 * that keeps state of its own embeds ENGINE_MEMBERS in a union with a
 * struct engine (console.h), so that it reaches the members by name and
 * hands &c->e to the functions below.
 */
struct engine;
#define ENGINE_MEMBERS \
	struct dts_conf	 conf;		/* console.* keys are the tunables */ \
	struct out	 out;		/* errors, notices, lines */ \
	struct sch	 sch; \
	struct bal	 bal; \
	struct weights	 weights;	/* hosts' power weights (RLA) */ \
	struct jobw	 jobw;		/* jobs' weights (the matrix) */ \
	struct nodes	 nodes; \
	struct vm_hosts	 hosts;		/* the PVM host table, if any */ \
	struct net	 net; \
	struct master	 m; \
	struct standby	 sb;		/* console.peer: master or standby */ \
	/* dts-master's socket (console.master_socket, mctl.h): remote, \
	 * the master answered, and the schedule's commands go to it; \
	 * own, no master does, and the reports label these values */ \
	int		 remote; \
	int		 own; \
	/* a round (master_status) is over: print its table; 0, or -1 \
	 * with out.err.  NULL: the round ends with 0 */ \
	int		(*report)(struct engine *, int64_t now);
struct engine {
	ENGINE_MEMBERS
};

/*
 * How long a node may be silent before it leaves the RLA: console.timeout,
 * but never less than two SIs (plus status_wait), since a node whose load
 * does not move is heard only in its replies to the SI broadcasts.
 */
int64_t master_node_timeout(const struct engine *c);

/* After con_init(): no timer, no status round, no trace. */
void master_init(struct engine *c);

/*
 * Send the schedule now (SCHED_F_SYNC), with SCHED_F_ACTIVE if started.
 * Returns the destinations reached, or -1 with c->err.
 */
int master_send(struct engine *c, int64_t now);
/*
 * The same with extra SCHEDULE flags (SCHED_F_TAKEOVER), or
 * MASTER_TABLES: a slot table changed, nothing else; the SCHEDULE has no
 * SCHED_F_SYNC and the SI's grid stays, so the nodes take the new tables
 * at their next PS and no LS is cut (with arrival sync each SYNC starts
 * a PS: at the rate of a job's churn it cut every node's LS).
 */
int master_send_flags(struct engine *c, int flags, int64_t now);
#define MASTER_TABLES	0x100
/* At most one MASTER_TABLES send in this (after any SCHEDULE). */
#define MASTER_TABLES_GAP_NS	(250 * 1000 * 1000)

/*
 * The schedule changed (rebase: IP or PS did, so a started schedule gets
 * a new clock origin); if the nodes have been spoken to, send it now.
 */
void master_changed(struct engine *c, int rebase, int64_t now);

/*
 * Begin a status round (STATUS_REQ to every destination), to end with
 * what: MASTER_STATUS, the status table; MASTER_LOAD, the load table;
 * MASTER_METRICS (METRICS_REQ instead), the metrics (master_metrics);
 * MASTER_JOBS, the matrix (`jobs`).
 * 0, or -1 with c->err.  how: MASTER_VERBOSE (status -v), MASTER_JSON
 * (one JSON document).
 */
#define MASTER_STATUS	0
#define MASTER_LOAD	1
#define MASTER_METRICS	2
#define MASTER_JOBS	3
#define MASTER_VERBOSE	1
#define MASTER_JSON	2
int master_status(struct engine *c, int what, int how, int64_t now);

/*
 * Begin a metrics round: the nodes' METRICS in Prometheus's format, to
 * path (replaced atomically; metrics.h), or to the output if path is
 * NULL.  0, or -1 with c->err.
 */
int master_metrics(struct engine *c, const char *path, int64_t now);

/*
 * Begin `trace`: record the nodes' edges for dur into path, then fetch
 * them; 0, or -1 with c->out.err.
 */
int master_trace(struct engine *c, const char *path, int64_t dur,
    int64_t now);

/* An asynchronous command is waiting for replies. */
int master_busy(const struct engine *c);

/*
 * An asynchronous command ended since the last call: 1 with its result
 * (0, or -1 with c->out.err) in rc; else 0.
 */
int master_done(struct engine *c, int *rc);

/*
 * Ctrl-C: give up the status round and the trace going on, and say
 * which through out_say().  Returns how many were cancelled (0: nothing was).
 */
int master_cancel(struct engine *c);

/*
 * Datagrams are waiting on the socket: handle them, 256 at most (and what
 * net has read already).  Returns how many were read.  When a round's
 * replies flow in (MASTER_FLOW or more at one wake-up), the loop waits
 * MASTER_FLOW_WAIT_NS before it polls again, so that it wakes once for
 * dozens of replies, not once for every one or two (bench-scale).
 */
#define MASTER_FLOW		8
#define MASTER_FLOW_WAIT_NS	500000
int master_input(struct engine *c, int64_t now);

/* Handle one datagram (also for tests). */
void master_datagram(struct engine *c, const struct proto_msg *m,
    struct in_addr from, int64_t now);

/* Timers that are due at now. */
void master_timer(struct engine *c, int64_t now);

/* The next moment master_timer has something to do, 0 if never. */
int64_t master_deadline(const struct engine *c);

/*
 * The gang matrix of the live nodes' jobs (their last STATUS, jobs with
 * members), with the jobs' weights, on PS in force, into c->m.mx (node
 * i of the matrix is c->nodes.v[i]); mx_tables: in STATIC and BALANCED,
 * started, when some node runs two jobs or more, the SCHEDULEs carry
 * each node's own slot table (else none: each node's one job has the
 * whole PS anyway).  Every SCHEDULE sent recomputes it; so does every
 * STATUS while started, and a node's table that changed goes out to
 * every node once the round of replies is in (every live node answered
 * the last SCHEDULE), or console.status_wait after it: a job that
 * starts or ends is in every table within one SI.
 */
void master_matrix(struct engine *c, int64_t now);

/*
 * Node i's slot table as the next SCHEDULE carries it (after
 * master_matrix): how many slots, slot[] zero beyond.
 */
int master_table(const struct engine *c, int i,
    struct proto_slot slot[PROTO_JOBS_MAX]);

/* BALANCED: recompute the RLA and act on it. */
void master_balance(struct engine *c, int64_t now);

/*
 * The mode changed: balanced starts from a fresh RLA, and decides once
 * the replies to the schedule that says so are in.
 */
void master_mode_changed(struct engine *c, int64_t now);

/* start (or takeover) sent the schedule: balanced waits for the replies. */
void master_started(struct engine *c, int64_t now);

#endif /* DTS_MASTER_MASTER_H */
