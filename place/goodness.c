/*
 * goodness.c - a host's goodness and the plan of a spawn.  See
 * goodness.h.
 */
#include <math.h>
#include <stddef.h>

#include "goodness.h"

const char *const place_class_names[] = {
	[PC_CAND] = "candidate", [PC_UNKNOWN] = "no-load",
	[PC_OWNER] = "owner-active", [PC_OVER] = "over-threshold",
	[PC_RAM] = "low-ram", NULL
};

double
place_runnable(const struct place_host *h, const struct place_conf *c)
{
	return c->load_weight * h->q * h->ncpu + c->rt_weight * h->rt +
	    h->own + h->placed;
}

double
place_mean(const struct place_host *h, int n, int skip,
    const struct place_conf *c)
{
	double	 sum = 0;
	int	 i, k = 0;

	for (i = 0; i < n; i++)
		if (h[i].known && i != skip && !(h[i].mem_mib != 0 &&
		    h[i].mem_mib < c->mem_min_mib)) {
			sum += place_runnable(&h[i], c);
			k++;
		}
	return k > 0 ? sum / k : NAN;
}

void
place_take(struct place_host *h, const struct place_conf *c,
    const struct place_report *r, int64_t now)
{
	h->q = h->known ? c->history * h->q + (1 - c->history) * r->q : r->q;
	h->ncpu = r->ncpu > 0 ? r->ncpu : 1;
	h->mem_mib = r->mem_mib;
	h->users = r->users;
	h->rt = r->rt;
	h->own = r->own;
	h->known = 1;
	h->report_ns = now;
	/* a report soon after a spawn may not show its tasks yet */
	if (h->spawn_ns == 0 || now - h->spawn_ns >= c->stale_ns)
		h->placed = 0;
}

void
place_check(struct place_host *h, const struct place_conf *c, double mean)
{
	if (!isnan(mean))
		h->over_n = place_runnable(h, c) > mean + c->threshold ?
		    h->over_n + 1 : 0;
	h->owner_n = h->users > 0 && h->q * h->ncpu > c->reserve ?
	    h->owner_n + 1 : 0;
}

static void
eval_one(struct place_host *h, const struct place_conf *c)
{
	h->runnable = place_runnable(h, c);
	h->good = h->w * (h->ncpu > 0 ? h->ncpu : 1) / (1 + h->runnable);
	if (!h->known)
		h->cls = PC_UNKNOWN;
	else if (h->mem_mib != 0 && h->mem_mib < c->mem_min_mib)
		h->cls = PC_RAM;
	else if (h->over_n >= c->checks)
		h->cls = PC_OVER;
	else if (h->owner_n >= c->checks)
		h->cls = PC_OWNER;
	else
		h->cls = PC_CAND;
}

void
place_eval(struct place_host *h, int n, const struct place_conf *c)
{
	int	 i;

	for (i = 0; i < n; i++)
		eval_one(&h[i], c);
}

/* 0 candidates with room, 1 no load known, 2 candidates without room,
 * 3 owner active; -1 takes no task. */
static int
tier(const struct place_host *h)
{
	switch (h->cls) {
	case PC_CAND:
		return h->runnable + 1 <= h->ncpu + 1e-9 ? 0 : 2;
	case PC_UNKNOWN:
		return 1;
	case PC_OWNER:
		return 3;
	default:
		return -1;
	}
}

static int
best_host(const struct place_host *h, int n, int start)
{
	int	 i, j, t, best = -1, best_t = 0;

	for (i = 0; i < n; i++) {
		j = (start + i) % n;
		if ((t = tier(&h[j])) < 0)
			continue;
		if (best == -1 || t < best_t ||
		    (t == best_t && h[j].good > h[best].good + 1e-12)) {
			best = j;
			best_t = t;
		}
	}
	return best;
}

int
place_plan(struct place_host *h, int n, const struct place_conf *c,
    int ntask, int start, int64_t now, int *out, const char **why)
{
	int	 i, k, known = 0;

	place_eval(h, n, c);
	for (i = 0; i < n; i++)
		known += h[i].known;
	if (n <= 0 || known == 0) {
		*why = "no load known";
		return -1;
	}
	if (start < 0)
		start = 0;
	if (best_host(h, n, start % n) == -1) {
		*why = "no host may take a task";
		return -1;
	}
	for (k = 0; k < ntask; k++) {
		i = best_host(h, n, start % n);
		out[k] = i;
		h[i].placed++;
		h[i].total++;
		h[i].spawn_ns = now;
		eval_one(&h[i], c);
	}
	*why = "";
	return ntask;
}

int
place_same_as_circle(const struct place_host *before, int n, const int *cnt,
    int u, int ntask)
{
	int	 i, lo = n > 0 ? ntask / n : 0;

	if (u != n || lo < 1)
		return 0;
	for (i = 0; i < u; i++)
		if (cnt[i] != lo && cnt[i] != lo + 1)
			return 0;
	if (ntask % n == 0)
		return 1;
	for (i = 1; i < n; i++)
		if (before[i].cls != before[0].cls ||
		    fabs(before[i].good - before[0].good) > 1e-9)
			return 0;
	return 1;
}
