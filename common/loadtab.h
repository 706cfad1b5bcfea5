/*
 * loadtab.h - Table 2.1, and the kernel's real-time budget its PSs must
 * fit: one module for the fact "how much of IP a load leaves the gang".
 *
 * The table maps a load index (the node's Q, or the console's RLA) to
 * the share of IP that LS gets; PS is the rest.  dts.conf's [load] table
 * fills it (conf.c), dts-load and the console read it, and rules.c checks
 * that the PS of every entry stays inside the kernel's RT budget.
 */
#ifndef DTS_LOADTAB_H
#define DTS_LOADTAB_H

#include <stddef.h>
#include <stdint.h>

#define LOADTAB_MAX    32

/* Table 2.1: ls_pct[i] applies to load <= (i+1)*step; the last one above. */
struct load_table {
	double step;
	int    n;
	int    ls_pct[LOADTAB_MAX];
};

/* LS percentage of IP for a load index (RLA or Q), by the table. */
int loadtab_ls_pct(const struct load_table *t, double load);

/* The PS of an LS share, IP * (100 - ls_pct) / 100, in whole µs. */
int64_t loadtab_ps(int64_t ip, int ls_pct);

/* The kernel's real-time budget (/proc/sys/kernel/sched_rt_*_us). */
struct rt_budget {
	long runtime_us;                     /* < 0: RT is never throttled */
	long period_us;
};

/*
 * Real-time budget: the kernel throttles RT tasks to runtime/period
 * (/proc/sys/kernel/sched_rt_{runtime,period}_us).  Returns 0 if a gang at
 * RT priority for PS out of every IP stays inside it, or -1 with a reason.
 * runtime_us < 0 means unlimited.
 */
int rt_budget_check(int64_t ps_ns, int64_t ip_ns, long runtime_us,
    long period_us, char *err, size_t errlen);
/* Reads the two /proc files; on error assumes 950000/1000000. */
void rt_budget_read(long *runtime_us, long *period_us);

#endif /* DTS_LOADTAB_H */
