/*
 * hist.c - fixed duration histograms.  See hist.h.
 */
#include "hist.h"

/* 5 us to 10 ms: an edge is late by tens of microseconds on a quiet
 * machine and by milliseconds on a loaded one; a gang operation takes
 * microseconds (a freezer write) to milliseconds (signals to many). */
const uint32_t hist_le_ns[HIST_BUCKETS - 1] = {
	5000, 10000, 20000, 50000, 100000, 200000, 500000,
	1000000, 2000000, 5000000, 10000000
};

void
hist_add(struct hist *h, int64_t d)
{
	int	 i;

	if (d < 0)
		d = 0;
	for (i = 0; i < HIST_BUCKETS - 1; i++)
		if (d <= (int64_t)hist_le_ns[i])
			break;
	h->n[i]++;
	h->sum_ns += (uint64_t)d;
}

uint64_t
hist_count(const struct hist *h)
{
	uint64_t	 c = 0;
	int		 i;

	for (i = 0; i < HIST_BUCKETS; i++)
		c += h->n[i];
	return c;
}
