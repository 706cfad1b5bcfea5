/*
 * loadtab.c - Table 2.1 and the real-time budget its PSs must fit.  See
 * loadtab.h.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "loadtab.h"
#include "timeutil.h"

/* ---- Table 2.1 ----------------------------------------------------------- */

int
loadtab_ls_pct(const struct load_table *t, double load)
{
	int	 i;

	if (t->n < 1)
		return 0;
	if (isnan(load))
		return t->ls_pct[t->n - 1];	/* most care for local users */
	for (i = 0; i < t->n - 1; i++)
		if (load <= (i + 1) * t->step)
			return t->ls_pct[i];
	return t->ls_pct[t->n - 1];
}

int64_t
loadtab_ps(int64_t ip, int ls_pct)
{
	return ip * (100 - ls_pct) / 100 / NS_PER_US * NS_PER_US;
}

/* ---- the kernel's real-time budget --------------------------------------- */

/* "98", "97.5", "95.04": a percentage with at most two decimals. */
static const char *
pct_format(double p, char *buf, size_t len)
{
	size_t	 n;

	snprintf(buf, len, "%.2f", p);
	n = strlen(buf);
	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && buf[n - 1] == '.')
		buf[n - 1] = '\0';
	return buf;
}

int
rt_budget_check(int64_t ps_ns, int64_t ip_ns, long runtime_us,
    long period_us, char *err, size_t errlen)
{
	char	 ps[32], ip[32], rt[32], per[32], p1[16], p2[16];

	if (runtime_us < 0 || period_us <= 0 || ip_ns <= 0)
		return 0;
	duration_format(ps_ns, ps, sizeof(ps));
	duration_format(ip_ns, ip, sizeof(ip));
	if ((double)ps_ns * (double)period_us >
	    (double)runtime_us * (double)ip_ns) {
		snprintf(err, errlen, "PS %s of IP %s is %s%% but the kernel "
		    "allows real-time tasks only %s%% (sched_rt_runtime_us=%ld "
		    "of sched_rt_period_us=%ld)", ps, ip,
		    pct_format(100.0 * (double)ps_ns / (double)ip_ns, p1,
		    sizeof(p1)),
		    pct_format(100.0 * (double)runtime_us / (double)period_us,
		    p2, sizeof(p2)), runtime_us, period_us);
		return -1;
	}
	if (ps_ns > (int64_t)runtime_us * NS_PER_US) {
		snprintf(err, errlen, "PS %s is longer than the kernel's "
		    "real-time runtime %s per %s (sched_rt_runtime_us=%ld, "
		    "sched_rt_period_us=%ld): the gang would be throttled in "
		    "the middle of every PS; shorten IP", ps,
		    duration_format((int64_t)runtime_us * NS_PER_US, rt,
		    sizeof(rt)),
		    duration_format((int64_t)period_us * NS_PER_US, per,
		    sizeof(per)), runtime_us, period_us);
		return -1;
	}
	return 0;
}

static int
read_long(const char *path, long *v)
{
	FILE	*fp;
	int	 ok;

	if ((fp = fopen(path, "re")) == NULL)
		return -1;
	ok = fscanf(fp, "%ld", v) == 1;
	fclose(fp);
	return ok ? 0 : -1;
}

void
rt_budget_read(long *runtime_us, long *period_us)
{
	if (read_long("/proc/sys/kernel/sched_rt_runtime_us", runtime_us) == -1 ||
	    read_long("/proc/sys/kernel/sched_rt_period_us", period_us) == -1) {
		*runtime_us = 950000;
		*period_us = 1000000;
	}
}
