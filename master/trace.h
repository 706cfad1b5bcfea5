/*
 * trace.h - the console's `trace FILE [DUR]`: record every node's slice
 * edges for DUR and write them to FILE as CSV, for Gantt charts of the
 * cluster (tests/bench/svg.py gantt draws one).
 *
 * The nodes record their edges themselves (a ring in dts); the console
 * only asks for them afterwards with TRACE_REQ, node by node, following
 * each node's cursor until it has everything up to the end of the window.
 * Asynchronous like status: the loop goes on meanwhile.  The master owns
 * the run and calls these; they tell it when the run ends (a return of 1,
 * the result in t->rc) and change nothing of the master's.
 */
#ifndef DTS_MASTER_TRACE_H
#define DTS_MASTER_TRACE_H

#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>

#include "net.h"
#include "nodes.h"
#include "out.h"
#include "proto.h"

#define TRACE_DUR_DEFAULT (5 * 1000000000LL)
#define TRACE_DUR_MAX     (60 * 1000000000LL)
#define TRACE_FETCH_WAIT  (2 * 1000000000LL)
#define TRACE_ASK_AGAIN   (100 * 1000000LL)   /* no answer: ask again */

enum trace_state { TRACE_IDLE = 0, TRACE_RECORDING, TRACE_FETCHING };

struct trace_run {
	enum trace_state state;
	FILE		*f;
	char		 path[256];	/* of f, for messages */
	int		 rc;		/* of the run that ended: 0 or -1 */
	struct net	*net;		/* where the asks go */
	const struct nodes *nodes;	/* who is asked */
	struct out	*out;		/* messages and errors */
	int64_t		 until;		/* mono: recording ends */
	int64_t		 deadline;	/* mono: fetching gives up */
	int64_t		 reask;		/* mono: unanswered asks are repeated */
	int64_t		 since_real, end_real;
	uint64_t	 edges;
	int		 n, left;
	struct {
		struct in_addr	 addr;
		char		 name[PROTO_NAME_LEN];
		uint64_t	 cursor;
		int		 done;
	} node[NODES_MAX];
};

/* A run that asks through net the nodes of nodes, and speaks to out. */
void trace_init(struct trace_run *t, struct net *net,
    const struct nodes *nodes, struct out *out);

/*
 * Record every node's edges for dur from now into path.  0, or -1 with
 * out->err (bad file, no destination).
 */
int trace_begin(struct trace_run *t, const char *path, int64_t dur,
    int64_t now);

/* A TRACE datagram arrived: 1 if it ended the run (result in t->rc). */
int trace_datagram(struct trace_run *t, const struct proto_trace *pt,
    struct in_addr from, int64_t now);

/* Timers (recording over, asks lost, fetching timed out): 1 if the run
 * ended (result in t->rc). */
int trace_timer(struct trace_run *t, int64_t now);

/* When trace_timer has something to do, 0 if never. */
int64_t trace_deadline(const struct trace_run *t);

/*
 * Ctrl-C: end a run now, saying so on out; the file keeps the edges
 * written.  1 if a run was going on, else 0.
 */
int trace_cancel(struct trace_run *t);

#endif /* DTS_MASTER_TRACE_H */
