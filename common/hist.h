/*
 * hist.h - a fixed histogram of durations: the node's edge lateness and
 * gang-operation times, as counted by dts, sent in METRICS and written by
 * the console in Prometheus's format.  The bounds are the one table both
 * ends use; a duration d falls into the first bucket with d <= bound, the
 * last bucket (no bound, Prometheus's +Inf) takes the rest.
 */
#ifndef DTS_HIST_H
#define DTS_HIST_H

#include <stdint.h>

#define HIST_BUCKETS 12         /* HIST_BUCKETS - 1 bounds, then +Inf */

extern const uint32_t hist_le_ns[HIST_BUCKETS - 1];

struct hist {
	uint32_t n[HIST_BUCKETS];  /* per bucket, not cumulative; wrap */
	uint64_t sum_ns;           /* of every duration added */
};

/* Count one duration (ns; a negative one counts as 0). */
void hist_add(struct hist *h, int64_t d);

/* How many durations were added (the buckets' sum). */
uint64_t hist_count(const struct hist *h);

#endif /* DTS_HIST_H */
