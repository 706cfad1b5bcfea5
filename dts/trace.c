/*
 * trace.c - ring of slice edges.  See trace.h.
 */
#include "trace.h"

static struct trace_edge ring[TRACE_LEN];
static uint64_t written;        /* edges ever recorded */

void
trace_record(int phase, int64_t deadline, int64_t wake, int64_t done,
    int64_t real)
{
	struct trace_edge	*e = &ring[written & (TRACE_LEN - 1)];

	e->real = real;
	e->late = wake - deadline;
	e->op = done - wake;
	e->phase = (uint8_t)phase;
	written++;
}

int
trace_since(int64_t since_real, struct trace_edge *out, int max, int *more)
{
	uint64_t	 i;
	int		 n = 0;

	*more = 0;
	/* edges are recorded in time order: skip the ones already seen */
	i = written > TRACE_LEN ? written - TRACE_LEN : 0;
	while (i < written && ring[i & (TRACE_LEN - 1)].real <= since_real)
		i++;
	for (; i < written; i++) {
		if (n == max) {
			*more = 1;
			break;
		}
		out[n++] = ring[i & (TRACE_LEN - 1)];
	}
	return n;
}
