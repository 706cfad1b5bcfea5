/*
 * rules.h - the rules every schedule obeys, written once.
 *
 * The limits of IP, SI, PS and the clock origin, SI >= IP, and that the
 * PS a mode needs (Table 2.1's for an LS share, loadtab.h) fits the
 * kernel's real-time budget.  dts.conf's check
 * (conf.c), the node's decoder (wire.c) and scheduler (dts/scheduler.c) and
 * the master (master/schedule.c) all call rules_check(); none of them
 * has a limit of its own.
 */
#ifndef DTS_RULES_H
#define DTS_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "loadtab.h"
#include "timeutil.h"

#define RULE_IP_MIN  NS_PER_MS               /* 1 ms */
#define RULE_IP_MAX  (60 * NS_PER_SEC)       /* 60 s */
#define RULE_SI_MIN  (10 * NS_PER_MS)        /* 10 ms */
#define RULE_SI_MAX  (3600 * NS_PER_SEC)     /* 1 h */
/*
 * The two ranges as text, for help that is a constant string (the
 * console's); rules_check() prints them from the numbers, and
 * test_loadtab checks that these say the same.
 */
#define RULE_IP_RANGE "[1ms, 60s]"
#define RULE_SI_RANGE "[10ms, 3600s]"
#define RULE_PS_MIN  NS_PER_US               /* 1 µs */
#define RULE_ORIGIN_MAX INT64_MAX            /* a CLOCK_REALTIME ns as int64 */

/* A schedule to check; durations in ns. */
struct rules_sched {
	int      mode;      /* enum proto_mode */
	int      any_mode;  /* 1: the mode may change later (a config): check
			       PS and Table 2.1 whatever mode says */
	int64_t  ps, ip, si;
	const struct load_table *table;  /* Table 2.1, or NULL */
};

/*
 * 0, or -1 with a one-line reason naming the key ("si 5ms is out of
 * range [10ms, 3600s]").  In order: IP and SI ranges, SI >= IP, PS >= 1 µs,
 * PS < IP; then, if rt is not NULL, the real-time budget the mode needs:
 *   OFF          none (the gang is never at RT);
 *   STATIC       PS of every IP;
 *   BALANCED     PS, and the PS of every entry of Table 2.1;
 *   DISTRIBUTED  the PS of every entry of Table 2.1;
 *   HPDT         the gang is at RT all the time: only the kernel's RT
 *                throttling leaves the local user anything, so it must
 *                be on (sched_rt_runtime_us < sched_rt_period_us).
 */
int rules_check(const struct rules_sched *s, const struct rt_budget *rt,
    char *err, size_t len);

/* The clock origin of a SCHEDULE (CLOCK_REALTIME ns): 0 or -1 with err. */
int rules_check_origin(uint64_t origin_ns, char *err, size_t len);

/* Read the kernel's budget; 950000/1000000 if it cannot be read. */
void rules_rt_budget(struct rt_budget *rt);

#endif /* DTS_RULES_H */
