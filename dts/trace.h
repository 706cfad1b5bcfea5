/*
 * trace.h - the last slice edges of this node, for the console's `trace`
 * (Gantt charts) and for the edge-cost benchmark.  A fixed ring in locked
 * memory; recording an edge is a few stores.
 */
#ifndef DTS_TRACE_H
#define DTS_TRACE_H

#include <stdint.h>

#define TRACE_LEN 4096          /* edges kept; a power of two */

struct trace_edge {
	int64_t  real;          /* CLOCK_REALTIME ns: the gang op was done */
	int64_t  late;          /* wake-up - deadline, ns (0 for a sync) */
	int64_t  op;            /* the gang operation itself, ns */
	uint8_t  phase;         /* PHASE_PS, PHASE_LS or TRACE_SLOT */
};

/* Record an edge (monotonic deadline, wake and done; realtime done). */
void trace_record(int phase, int64_t deadline, int64_t wake, int64_t done,
		  int64_t real);

/*
 * Copy up to max edges recorded after since_real (realtime ns), oldest
 * first.  Returns how many; *more is set if others remain.
 */
int  trace_since(int64_t since_real, struct trace_edge *out, int max, int *more);

#endif /* DTS_TRACE_H */
