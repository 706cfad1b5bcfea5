/*
 * rules.c - the rules every schedule obeys.  See rules.h.
 */
#include <stdio.h>

#include "proto.h"
#include "rules.h"

/* "key V is out of range [LO, HI]", the bounds printed from the numbers. */
static int
range(const char *key, int64_t v, int64_t lo, int64_t hi, char *err,
    size_t len)
{
	char	 b[32], l[32], h[32];

	if (v >= lo && v <= hi)
		return 0;
	snprintf(err, len, "%s %s is out of range [%s, %s]", key,
	    duration_format(v, b, sizeof(b)), duration_format(lo, l,
	    sizeof(l)), duration_format(hi, h, sizeof(h)));
	return -1;
}

static int
shape(const struct rules_sched *s, char *err, size_t len)
{
	char	 a[32], b[32];

	if (range("ip", s->ip, RULE_IP_MIN, RULE_IP_MAX, err, len) == -1 ||
	    range("si", s->si, RULE_SI_MIN, RULE_SI_MAX, err, len) == -1)
		return -1;
	if (s->si < s->ip) {
		snprintf(err, len, "si %s is shorter than ip %s (SI must be at "
		    "least IP)", duration_format(s->si, a, sizeof(a)),
		    duration_format(s->ip, b, sizeof(b)));
		return -1;
	}
	if (s->ps < RULE_PS_MIN) {
		snprintf(err, len, "ps %s is too short (PS must be at least "
		    "1us)", duration_format(s->ps, a, sizeof(a)));
		return -1;
	}
	if (s->ps >= s->ip) {
		snprintf(err, len, "ps %s is not shorter than ip %s (IP = PS + "
		    "LS, and LS cannot be empty)",
		    duration_format(s->ps, a, sizeof(a)),
		    duration_format(s->ip, b, sizeof(b)));
		return -1;
	}
	return 0;
}

static int
table_fits(const struct rules_sched *s, const struct rt_budget *rt,
    char *err, size_t len)
{
	char	 why[400], b[32];
	int	 i;

	if (s->table == NULL)
		return 0;
	for (i = 0; i < s->table->n; i++)
		if (rt_budget_check(loadtab_ps(s->ip,
		    s->table->ls_pct[i]), s->ip, rt->runtime_us,
		    rt->period_us, why, sizeof(why)) == -1) {
			snprintf(err, len, "with ip %s, load.table entry %d "
			    "(LS %d%%) fails: %s", duration_format(s->ip, b,
			    sizeof(b)), i + 1, s->table->ls_pct[i], why);
			return -1;
		}
	return 0;
}

static int
ps_fits(const struct rules_sched *s, const struct rt_budget *rt,
    char *err, size_t len)
{
	return rt_budget_check(s->ps, s->ip, rt->runtime_us, rt->period_us,
	    err, len);
}

static int
hpdt_fits(const struct rt_budget *rt, char *err, size_t len)
{
	if (rt->runtime_us >= 0 && rt->runtime_us < rt->period_us)
		return 0;
	snprintf(err, len, "hpdt keeps the gang at real-time priority all "
	    "the time, but the kernel does not throttle real-time tasks "
	    "(sched_rt_runtime_us=%ld of sched_rt_period_us=%ld): local "
	    "users would get nothing", rt->runtime_us, rt->period_us);
	return -1;
}

int
rules_check(const struct rules_sched *s, const struct rt_budget *rt,
    char *err, size_t len)
{
	if (shape(s, err, len) == -1)
		return -1;
	if (rt == NULL)
		return 0;
	if (s->any_mode)
		return ps_fits(s, rt, err, len) == -1 ||
		    table_fits(s, rt, err, len) == -1 ||
		    (s->mode == MODE_HPDT && hpdt_fits(rt, err, len) == -1) ?
		    -1 : 0;
	switch (s->mode) {
	case MODE_STATIC:
		return ps_fits(s, rt, err, len);
	case MODE_BALANCED:
		if (ps_fits(s, rt, err, len) == -1)
			return -1;
		return table_fits(s, rt, err, len);
	case MODE_DISTRIBUTED:
		return table_fits(s, rt, err, len);
	case MODE_HPDT:
		return hpdt_fits(rt, err, len);
	default:
		return 0;
	}
}

int
rules_check_origin(uint64_t origin_ns, char *err, size_t len)
{
	if (origin_ns <= (uint64_t)RULE_ORIGIN_MAX)
		return 0;
	snprintf(err, len, "origin %llu ns is out of range (at most %lld)",
	    (unsigned long long)origin_ns, (long long)RULE_ORIGIN_MAX);
	return -1;
}

void
rules_rt_budget(struct rt_budget *rt)
{
	rt_budget_read(&rt->runtime_us, &rt->period_us);
}
