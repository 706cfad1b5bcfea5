/*
 * slice.c - deadline arithmetic of the PS/LS loop.  See slice.h.
 */
#include <stdlib.h>

#include "proto.h"
#include "slice.h"

_Static_assert(PHASE_PS == 1 && PHASE_LS == 2, "slice_edge_phase");

/* floor(a / b) for b > 0, also for negative a */
static int64_t
floordiv(int64_t a, int64_t b)
{
	int64_t	 q = a / b;

	if ((a % b) != 0 && a < 0)
		q--;
	return q;
}

int64_t
slice_edge_index(int64_t t0, int64_t ps, int64_t ip, int64_t t)
{
	int64_t	 k = floordiv(t - t0, ip);
	int64_t	 off = (t - t0) - k * ip;

	return 2 * k + (off >= ps ? 1 : 0);
}

int64_t
slice_edge_time(int64_t t0, int64_t ps, int64_t ip, int64_t e)
{
	int64_t	 k = floordiv(e, 2);

	return t0 + k * ip + ((e - 2 * k) ? ps : 0);
}

int
slice_sync(struct slice *s, int64_t t0, int64_t ps, int64_t ip, int64_t now)
{
	int64_t	 e = slice_edge_index(t0, ps, ip, now);

	s->t0 = t0;
	s->ps = ps;
	s->ip = ip;
	s->phase = slice_edge_phase(e);
	s->edge = e + 1;
	s->deadline = slice_edge_time(t0, ps, ip, s->edge);
	return s->phase;
}

int
slice_advance(struct slice *s, int64_t now, int *edges_crossed)
{
	int64_t	 e;

	if (now < s->deadline) {
		*edges_crossed = 0;
		return s->phase;
	}
	e = slice_edge_index(s->t0, s->ps, s->ip, now);
	/* e >= s->edge here; every edge after the expected one was missed */
	*edges_crossed = (int)(e - s->edge + 1);
	s->overruns += (uint64_t)(e - s->edge);
	s->phase = slice_edge_phase(e);
	s->edge = e + 1;
	s->deadline = slice_edge_time(s->t0, s->ps, s->ip, s->edge);
	return s->phase;
}

static int
cmp64(const void *a, const void *b)
{
	int64_t	 x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int64_t
slice_lead(const int64_t *f, int n, int64_t ps, int64_t ip)
{
	int64_t	 v[64], q;

	if (n < SLICE_LEAD_MIN || ps <= 0 || ip <= ps)
		return 0;
	if (n > 64)
		n = 64;
	for (int i = 0; i < n; i++)
		v[i] = f[i];
	qsort(v, (size_t)n, sizeof(v[0]), cmp64);
	q = v[n - 1];		/* the owner first: the longest */
	if (q <= ip / SLICE_LEAD_FLOOR)
		return 0;
	q += q / 4;
	return q < ps / 2 ? q : ps / 2;
}
