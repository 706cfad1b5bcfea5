/*
 * bucket.c - token buckets per source.  See bucket.h.
 */
#include <string.h>

#include "bucket.h"

#define MILLI 1000

void
buckets_init(struct buckets *t, int64_t rate, int64_t burst, int64_t rate_all,
	     int64_t burst_all, int64_t now_ns)
{
	memset(t, 0, sizeof(*t));
	t->rate = rate;
	t->burst = burst;
	t->rate_all = rate_all;
	t->burst_all = burst_all;
	t->all.milli = burst_all * MILLI;
	t->all.last_ns = now_ns;
}

/* Refill b at rate per second, up to burst, for the time since its last. */
static void
refill(struct bucket *b, int64_t rate, int64_t burst, int64_t now_ns)
{
	int64_t dt = now_ns - b->last_ns;

	if (dt <= 0)
		return;
	/* more than enough to fill any bucket: no overflow below */
	if (dt > 1000000000LL * (burst + 1))
		b->milli = burst * MILLI;
	else
		b->milli += dt * rate / 1000000;	/* ns * 1/s -> milli */
	if (b->milli > burst * MILLI)
		b->milli = burst * MILLI;
	b->last_ns = now_ns;
}

static struct bucket *
lookup(struct buckets *t, uint32_t addr, int64_t now_ns)
{
	unsigned i, oldest = 0;

	for (i = 0; i < t->n; i++) {
		if (t->src[i].addr == addr)
			return &t->src[i].b;
		if (t->src[i].b.last_ns < t->src[oldest].b.last_ns)
			oldest = i;
	}
	i = t->n < BUCKET_SOURCES ? t->n++ : oldest;
	t->src[i].addr = addr;
	t->src[i].b.milli = t->burst * MILLI;
	t->src[i].b.last_ns = now_ns;
	return &t->src[i].b;
}

int
buckets_take(struct buckets *t, uint32_t addr, int exempt, int64_t now_ns)
{
	struct bucket *b = lookup(t, addr, now_ns);

	refill(b, t->rate, t->burst, now_ns);
	refill(&t->all, t->rate_all, t->burst_all, now_ns);
	if (b->milli < MILLI || (!exempt && t->all.milli < MILLI))
		return -1;
	b->milli -= MILLI;
	if (t->all.milli >= MILLI)
		t->all.milli -= MILLI;
	return 0;
}
