/*
 * schedule.c - the console's desired schedule and its checks.  See
 * schedule.h.
 */
#include <stdio.h>
#include <string.h>

#include "rules.h"
#include "schedule.h"
#include "timeutil.h"

void
sch_init(struct sch *s, const struct dts_conf *c)
{
	memset(s, 0, sizeof(*s));
	s->mode = c->mode;
	s->sync = c->sync;
	s->ls_idle = c->ls_policy == LS_IDLE;
	s->ip = c->ip_ns;
	s->ps = c->ps_ns;
	s->ps_pct = c->ps_pct_milli;
	s->si = c->si_ns;
	s->bal_ls_pct = -1;
	s->table = c->load.table;
	rules_rt_budget(&s->rt);
}

static int64_t
whole_us(int64_t ns)
{
	return ns / NS_PER_US * NS_PER_US;
}

int64_t
sch_user_ps(const struct sch *s)
{
	if (s->ps_pct >= 0)
		return whole_us(s->ip * s->ps_pct / 100000);
	return whole_us(s->ps);
}


int64_t
sch_ps(const struct sch *s)
{
	if (s->mode == MODE_BALANCED && s->bal_ls_pct >= 0)
		return loadtab_ps(s->ip, s->bal_ls_pct);
	return sch_user_ps(s);
}

int
sch_check(const struct sch *s, const char *what, char *err, size_t len)
{
	struct rules_sched r = { .mode = s->mode, .ps = sch_user_ps(s),
	    .ip = s->ip, .si = s->si, .table = &s->table };
	char	 why[512];
	size_t	 n = strlen(what);

	if (rules_check(&r, &s->rt, why, sizeof(why)) == 0)
		return 0;
	/* "ip: 500us is ..." for the ip command, "start: ip 500us is ..." */
	if (strncmp(why, what, n) == 0 && why[n] == ' ')
		snprintf(err, len, "%s: %s", what, why + n + 1);
	else
		snprintf(err, len, "%s: %s", what, why);
	return -1;
}

/* Commit t into s if it checks out. */
static int
commit(struct sch *s, const struct sch *t, const char *what, char *err,
    size_t len)
{
	if (sch_check(t, what, err, len) == -1)
		return -1;
	*s = *t;
	return 0;
}

static int
duration_arg(const char *what, const char *arg, int64_t *ns, char *err,
    size_t len)
{
	char	 why[256];

	if (duration_parse(arg, ns, why, sizeof(why)) == -1) {
		snprintf(err, len, "%s: %s", what, why);
		return -1;
	}
	if (*ns % NS_PER_US != 0) {
		snprintf(err, len, "%s: \"%s\" is not a whole number of "
		    "microseconds", what, arg);
		return -1;
	}
	return 0;
}

static int
slice_arg(const char *what, const char *arg, int64_t *ns, int32_t *pct,
    char *err, size_t len)
{
	char	 why[256];

	if (slice_parse(arg, ns, pct, why, sizeof(why)) == -1) {
		snprintf(err, len, "%s: %s", what, why);
		return -1;
	}
	if (*pct < 0 && *ns % NS_PER_US != 0) {
		snprintf(err, len, "%s: \"%s\" is not a whole number of "
		    "microseconds", what, arg);
		return -1;
	}
	return 0;
}

int
sch_set_mode(struct sch *s, const char *arg, char *err, size_t len)
{
	struct sch	 t = *s;
	int		 m = proto_mode_parse(arg);

	if (m < 0) {
		snprintf(err, len, "mode: \"%s\" is not one of static, "
		    "balanced, distributed, hpdt or off", arg);
		return -1;
	}
	t.mode = m;
	if (m != s->mode)
		t.bal_ls_pct = -1;	/* balanced starts from a fresh RLA */
	return commit(s, &t, "mode", err, len);
}

int
sch_set_ip(struct sch *s, const char *arg, char *err, size_t len)
{
	struct sch	 t = *s;

	if (duration_arg("ip", arg, &t.ip, err, len) == -1)
		return -1;
	return commit(s, &t, "ip", err, len);
}

int
sch_set_ps(struct sch *s, const char *arg, char *err, size_t len)
{
	struct sch	 t = *s;

	if (slice_arg("ps", arg, &t.ps, &t.ps_pct, err, len) == -1)
		return -1;
	if (t.ps_pct >= 0)
		t.ps = -1;
	return commit(s, &t, "ps", err, len);
}

int
sch_set_ls(struct sch *s, const char *arg, char *err, size_t len)
{
	struct sch	 t = *s;
	int64_t		 ls;
	int32_t		 pct;
	char		 a[32], b[32];

	if (slice_arg("ls", arg, &ls, &pct, err, len) == -1)
		return -1;
	if (pct >= 0) {
		t.ps_pct = 100000 - pct;
		t.ps = -1;
	} else {
		if (ls >= t.ip) {
			snprintf(err, len, "ls: %s is not shorter than ip "
			    "%s (IP = PS + LS, and PS cannot be empty)",
			    duration_format(ls, a, sizeof(a)),
			    duration_format(t.ip, b, sizeof(b)));
			return -1;
		}
		t.ps = t.ip - ls;
		t.ps_pct = -1;
	}
	return commit(s, &t, "ls", err, len);
}

int
sch_set_si(struct sch *s, const char *arg, char *err, size_t len)
{
	struct sch	 t = *s;

	if (duration_arg("si", arg, &t.si, err, len) == -1)
		return -1;
	return commit(s, &t, "si", err, len);
}

int
sch_set_balanced_ls(struct sch *s, int ls_pct, char *err, size_t len)
{
	struct sch	 t = *s;

	t.bal_ls_pct = ls_pct;
	return commit(s, &t, "balanced", err, len);
}

void
sch_start(struct sch *s, int64_t now_real)
{
	s->started = 1;
	s->spoken = 1;
	s->origin_ns = now_real;
}

void
sch_stop(struct sch *s)
{
	s->started = 0;
	s->spoken = 1;
}

void
sch_set_policy(struct sch *s, const struct dts_conf *c)
{
	s->sync = c->sync;
	s->ls_idle = c->ls_policy == LS_IDLE;
}

void
sch_rebase(struct sch *s, int64_t now_real)
{
	if (s->started)
		s->origin_ns = now_real;
}

void
sch_message(const struct sch *s, int flags, struct proto_schedule *p)
{
	memset(p, 0, sizeof(*p));
	p->mode = (uint8_t)s->mode;
	p->sync = (uint8_t)s->sync;
	p->flags = (uint8_t)((flags & SCHED_F_SYNC) |
	    (s->started ? SCHED_F_ACTIVE : 0) |
	    (s->ls_idle ? SCHED_F_LS_IDLE : 0));
	p->ps_us = (uint32_t)(sch_ps(s) / NS_PER_US);
	p->ip_us = (uint32_t)(s->ip / NS_PER_US);
	p->si_us = (uint32_t)(s->si / NS_PER_US);
	p->origin_ns = (uint64_t)s->origin_ns;
}

const char *
sch_ps_text(const struct sch *s, char *buf, size_t len)
{
	char	 d[32];
	int32_t	 p = s->ps_pct;

	duration_format(sch_user_ps(s), d, sizeof(d));
	if (p < 0)
		snprintf(buf, len, "%s", d);
	else if (p % 1000 == 0)
		snprintf(buf, len, "%s (%d%% of ip)", d, (int)(p / 1000));
	else
		snprintf(buf, len, "%s (%d.%03d%% of ip)", d, (int)(p / 1000),
		    (int)(p % 1000));
	return buf;
}
