/*
 * schedule.h - the schedule the console wants every node to run: mode,
 * IP, PS (a duration or a share of IP), SI, sync method, and whether it
 * has been started.
 *
 * Every setter parses its argument, checks the whole resulting schedule
 * and changes nothing unless it is valid; errors are one line naming the
 * command and what was wrong ("ip: 90s is out of range [1ms, 60s]").
 * Checks: IP in [1ms, 60s]; SI in [10ms, 3600s] and SI >= IP; 0 < PS < IP;
 * PS/IP and PS inside the kernel's real-time budget, for every entry of
 * Table 2.1 too in balanced and distributed mode.  Times are whole
 * microseconds, the resolution of the wire.
 */
#ifndef DTS_MASTER_SCHEDULE_H
#define DTS_MASTER_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

#include "conf.h"
#include "rules.h"
#include "proto.h"

struct sch {
	int      mode;            /* enum proto_mode */
	int      sync;            /* enum proto_sync */
	int      ls_idle;         /* ls_policy idle */
	int64_t  ip, si;          /* ns */
	int64_t  ps;              /* ns, when ps_pct < 0 */
	int32_t  ps_pct;          /* PS as percent * 1000 of IP, or -1 */
	int      bal_ls_pct;      /* balanced: LS % from the RLA, -1 = none */
	struct load_table table;  /* Table 2.1 */
	struct rt_budget rt;      /* kernel RT budget (injectable) */
	int      spoken;          /* start or stop was sent: SI broadcasts */
	int      started;         /* nodes are told to slice */
	int64_t  origin_ns;       /* CLOCK_REALTIME of a PS start (clock sync) */
};

/* From the configuration (mode, ip, ps, si, sync, load.table). */
void sch_init(struct sch *s, const struct dts_conf *c);

/* PS in force, whole microseconds: balanced choice, share or duration. */
int64_t sch_ps(const struct sch *s);

/* PS as set with ps/ls (ignoring the balanced choice). */
int64_t sch_user_ps(const struct sch *s);

/* Check the whole schedule; what names the command in the message. */
int sch_check(const struct sch *s, const char *what, char *err, size_t len);

/* Setters: 0, or -1 with err and s unchanged. */
int sch_set_mode(struct sch *s, const char *arg, char *err, size_t len);
int sch_set_ip(struct sch *s, const char *arg, char *err, size_t len);
int sch_set_ps(struct sch *s, const char *arg, char *err, size_t len);
int sch_set_ls(struct sch *s, const char *arg, char *err, size_t len);
int sch_set_si(struct sch *s, const char *arg, char *err, size_t len);

/* Balanced: LS percentage chosen from the RLA (-1: back to ps). */
int sch_set_balanced_ls(struct sch *s, int ls_pct, char *err, size_t len);

/* Start (choosing a new PS origin at now_real) and stop. */
void sch_start(struct sch *s, int64_t now_real);
void sch_stop(struct sch *s);

/* `set sync` or `set ls_policy` changed c: the sync method and the LS
 * policy the schedule sends from now on. */
void sch_set_policy(struct sch *s, const struct dts_conf *c);

/* IP or PS changed: a started schedule gets a new origin. */
void sch_rebase(struct sch *s, int64_t now_real);

/* The SCHEDULE payload; flags adds SCHED_F_SYNC, ACTIVE comes from s. */
void sch_message(const struct sch *s, int flags, struct proto_schedule *p);

/* "80ms (80% of ip)" or "80ms" */
const char *sch_ps_text(const struct sch *s, char *buf, size_t len);

#endif /* DTS_MASTER_SCHEDULE_H */
