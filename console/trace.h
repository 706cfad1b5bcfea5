/*
 * trace.h - the console's `trace FILE [DUR]`: record every node's slice
 * edges for DUR and write them to FILE as CSV, for Gantt charts of the
 * cluster (tests/bench/svg.py gantt draws one).
 *
 * The nodes record their edges themselves (a ring in dts); the console
 * only asks for them afterwards with TRACE_REQ, node by node, following
 * each node's cursor until it has everything up to the end of the window.
 * Asynchronous like status: the loop goes on meanwhile.
 */
#ifndef DTS_CONSOLE_TRACE_H
#define DTS_CONSOLE_TRACE_H

#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>

#include "nodes.h"
#include "proto.h"

#define TRACE_DUR_DEFAULT (5 * 1000000000LL)
#define TRACE_DUR_MAX     (60 * 1000000000LL)
#define TRACE_FETCH_WAIT  (2 * 1000000000LL)
#define TRACE_ASK_AGAIN   (100 * 1000000LL)   /* no answer: ask again */

enum trace_state { TRACE_IDLE = 0, TRACE_RECORDING, TRACE_FETCHING };

struct trace_run {
	enum trace_state state;
	FILE		*f;
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

struct console;

/* `trace FILE [DUR]` */
int  trace_cmd(struct console *c, int argc, char **argv);
/* A TRACE datagram arrived from addr. */
void trace_datagram(struct console *c, const struct proto_trace *t,
    struct in_addr from, int64_t now);
/* Timers: recording over, fetching timed out. */
void trace_timer(struct console *c, int64_t now);
int64_t trace_deadline(const struct console *c);

#endif /* DTS_CONSOLE_TRACE_H */
