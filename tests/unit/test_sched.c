/*
 * test_sched.c - the DTS Scheduler (dts/scheduler.c) on injected clocks and a
 * fake gang (fake_gang.h): which PS and LS a SCHEDULE yields in each
 * mode and sync method, refused schedules that change nothing, Table 2.1
 * from the Load agent's reports, HPDT and OFF, the fail-safe's regain,
 * suspend and resume, overruns, the STATUS fields, and the edge thread
 * on the real clock.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "proto.h"
#include "sched_fixture.h"
#include "scheduler.h"
#include "timeutil.h"
#include "trace.h"

#define MS(x)	((int64_t)(x) * NS_PER_MS)
#define US(x)	((int64_t)(x) * NS_PER_US)

/* real_now - mono_now: what a SYNC_CLOCK origin is translated with */
#define REAL_OFF	(real_now - mono_now)

struct fixture {
	struct sched		 s;
	struct gang		 g;
	struct agent_shared	 shm;
};

static int
setup(void **state)
{
	struct fixture	*f = calloc(1, sizeof(*f));

	if (f == NULL)
		return -1;
	advance(100 * NS_PER_SEC);
	fake_gang.members = 3;
	fake_gang.on_recheck = NULL;
	sched_fixture_init(&f->s, &f->shm);
	if (sched_fixture_job(&f->s, &f->g) == -1)
		return -1;
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture	*f = *state;

	sched_fixture_fini(&f->s);
	free(f);
	return 0;
}

static struct proto_schedule
sched_msg(int mode, int sync, int flags, uint32_t ps_us, uint32_t ip_us,
    uint32_t si_us, int64_t origin)
{
	struct proto_schedule	 p = { .mode = (uint8_t)mode,
	    .sync = (uint8_t)sync, .flags = (uint8_t)flags, .ps_us = ps_us,
	    .ip_us = ip_us, .si_us = si_us, .origin_ns = (uint64_t)origin };

	return p;
}

/* A schedule that arrived now. */
static int
apply(struct fixture *f, struct proto_schedule p)
{
	const char	*err = NULL;
	int		 rc;

	rc = sched_apply(&f->s, &p, mono_now, real_now, &err);
	if (rc == 0)
		assert_null(err);
	return rc;
}

/* STATIC by the clock, PS 80 ms of IP 100 ms, a PS begun ago ns ago. */
static struct proto_schedule
static80(int64_t ago)
{
	return sched_msg(MODE_STATIC, SYNC_CLOCK, SCHED_F_ACTIVE, 80000,
	    100000, 1000000, real_now - ago);
}

/* The edge recorded last (at most 10 ms ago), from the trace ring. */
static struct trace_edge
last_edge(void)
{
	struct trace_edge	 e[PROTO_TRACE_MAX];
	int			 more, n;

	n = trace_since(real_now - MS(10), e, PROTO_TRACE_MAX, &more);
	assert_true(n >= 1);
	return e[n - 1];
}

static struct proto_status
status(struct fixture *f)
{
	struct proto_status	 st;

	memset(&st, 0, sizeof(st));
	sched_status(&f->s, &st, mono_now);
	return st;
}

static void
test_static_clock(void **state)
{
	struct fixture		*f = *state;
	int64_t			 t0 = mono_now - MS(30);

	assert_int_equal(apply(f, static80(MS(30))), 0);
	/* a PS from the origin on: the gang at RT, running */
	assert_string_equal(fake_gang_ops(), "rt1 idle0");
	assert_int_equal(f->s.slicing, 1);
	assert_int_equal(f->s.phase, PHASE_PS);
	assert_int_equal(f->s.sl.t0, t0);
	assert_int_equal(f->s.sl.deadline, t0 + MS(80));
	assert_int_equal(f->s.wake_at, t0 + MS(80));
	assert_int_equal(f->s.kick, 1);
	assert_int_equal(f->s.slices, 1);
	assert_int_equal(f->s.last_ps_real, real_now);
	assert_int_equal(f->shm.active, 1);
	assert_int_equal(f->shm.mode, MODE_STATIC);
	assert_int_equal(f->shm.phase, PHASE_PS);
	assert_int_equal(f->shm.beat_ns, mono_now);

	/* a spurious early wake-up does nothing */
	advance(MS(10));
	sched_timer(&f->s, mono_now);
	assert_string_equal(fake_gang_ops(), "");
	assert_int_equal(f->s.phase, PHASE_PS);

	/* the LS edge, 7 us late: stopped; the next deadline stays absolute */
	mono_now = t0 + MS(80) + US(7);
	real_now = mono_now + REAL_OFF;
	sched_timer(&f->s, mono_now);
	assert_string_equal(fake_gang_ops(), "stop");
	assert_int_equal(f->s.phase, PHASE_LS);
	assert_int_equal(f->shm.phase, PHASE_LS);
	assert_int_equal(f->shm.beat_ns, mono_now);
	assert_int_equal(f->s.wake_at, t0 + MS(100));
	assert_int_equal(last_edge().late, US(7));
	assert_int_equal(last_edge().phase, PHASE_LS);

	/* the next PS: continued */
	advance(t0 + MS(100) - mono_now);
	sched_timer(&f->s, mono_now);
	assert_string_equal(fake_gang_ops(), "cont idle0");
	assert_int_equal(f->s.phase, PHASE_PS);
	assert_int_equal(f->s.slices, 2);
	assert_int_equal(f->s.wake_at, t0 + MS(180));
	assert_int_equal(f->s.sl.overruns, 0);
}

/*
 * The tasks' turns (gang_rotate): after a PS start's continue, never at
 * an LS edge, only where more than one task waits, and at most every
 * GANG_ROT_NS (IP 2 ms: about every 3rd PS).
 */
static void
test_turns(void **state)
{
	struct fixture		*f = *state;
	int64_t			 t0 = mono_now - MS(30);
	int			 turns = 0;

	assert_int_equal(apply(f, static80(MS(30))), 0);
	fake_gang_clear();
	/* one waiting task: no turn */
	f->g.rr.n = 1;
	advance(t0 + MS(80) - mono_now);
	sched_timer(&f->s, mono_now);
	advance(t0 + MS(100) - mono_now);
	sched_timer(&f->s, mono_now);
	assert_string_equal(fake_gang_ops(), "stop cont idle0");
	/* two: a turn right after the continue, none at the LS edge */
	f->g.rr.n = 2;
	advance(MS(80));
	sched_timer(&f->s, mono_now);
	assert_string_equal(fake_gang_ops(), "stop");
	advance(MS(20));
	sched_timer(&f->s, mono_now);
	assert_string_equal(fake_gang_ops(), "cont idle0 turn");
	/* IP 2 ms: a turn every GANG_ROT_NS (5 ms), so not at each PS */
	assert_int_equal(apply(f, sched_msg(MODE_STATIC, SYNC_CLOCK,
	    SCHED_F_ACTIVE, 1000, 2000, 1000000, real_now)), 0);
	for (int i = 0; i < 30; i++) {
		advance(MS(1));
		sched_timer(&f->s, mono_now);
		turns += strstr(fake_gang_ops(), "turn") != NULL;
	}
	assert_true(turns >= 4 && turns <= 7);	/* 30 ms / 5 ms */
}

static void
test_static_origin(void **state)
{
	struct fixture	*f = *state;
	int64_t		 now = mono_now;

	/* 90 ms into the iteration: LS, until the next PS in 10 ms */
	assert_int_equal(apply(f, static80(MS(90))), 0);
	assert_string_equal(fake_gang_ops(), "rt1 stop");
	assert_int_equal(f->s.phase, PHASE_LS);
	assert_int_equal(f->s.slices, 0);
	assert_int_equal(f->s.wake_at, now + MS(10));

	/* an origin 30 ms ahead: now is 70 ms into the iteration before */
	assert_int_equal(apply(f, sched_msg(MODE_STATIC, SYNC_CLOCK,
	    SCHED_F_ACTIVE | SCHED_F_SYNC, 80000, 100000, 1000000,
	    real_now + MS(30))), 0);
	assert_int_equal(f->s.sl.t0, now + MS(30));
	assert_int_equal(f->s.phase, PHASE_PS);
	assert_int_equal(f->s.wake_at, now + MS(10));
	assert_string_equal(fake_gang_ops(), "rt1 cont idle0");

	/* more than an IP ahead (a wrong clock): from now */
	assert_int_equal(apply(f, sched_msg(MODE_STATIC, SYNC_CLOCK,
	    SCHED_F_ACTIVE | SCHED_F_SYNC, 80000, 100000, 1000000,
	    real_now + 5 * NS_PER_SEC)), 0);
	assert_int_equal(f->s.sl.t0, now);
	assert_int_equal(f->s.wake_at, now + MS(80));
	assert_int_equal(apply(f, sched_msg(MODE_STATIC, SYNC_CLOCK,
	    SCHED_F_ACTIVE | SCHED_F_SYNC, 80000, 100000, 1000000,
	    real_now + MS(150))), 0);
	assert_int_equal(f->s.sl.t0, now);
	/* exactly one IP ahead is still an origin */
	assert_int_equal(apply(f, sched_msg(MODE_STATIC, SYNC_CLOCK,
	    SCHED_F_ACTIVE | SCHED_F_SYNC, 80000, 100000, 1000000,
	    real_now + MS(100))), 0);
	assert_int_equal(f->s.sl.t0, now + MS(100));
}

static void
test_resync(void **state)
{
	struct fixture	*f = *state;
	int64_t		 t0 = mono_now - MS(20);

	assert_int_equal(apply(f, static80(MS(20))), 0);
	(void)fake_gang_ops();
	advance(MS(5));

	/* the same schedule, no SYNC (the console's repeat): kept as is */
	assert_int_equal(apply(f, static80(MS(5))), 0);
	assert_string_equal(fake_gang_ops(), "");
	assert_int_equal(f->s.sl.t0, t0);
	assert_int_equal(f->s.slices, 1);

	/* with SYNC: a new sync point; still a PS, so no phase change, but
	 * its PS start (5 ms ago, not 25) is recorded at once */
	assert_int_equal(apply(f, sched_msg(MODE_STATIC, SYNC_CLOCK,
	    SCHED_F_ACTIVE | SCHED_F_SYNC, 80000, 100000, 1000000,
	    real_now - MS(5))), 0);
	assert_int_equal(f->s.sl.t0, mono_now - MS(5));
	assert_string_equal(fake_gang_ops(), "rt1");
	assert_int_equal(f->s.slices, 2);
	assert_int_equal(f->s.last_ps_real, real_now - MS(5));
	assert_int_equal(last_edge().real, real_now - MS(5));
	assert_int_equal(last_edge().late, 0);

	/* the same PS start by another origin (one IP earlier): not again */
	assert_int_equal(apply(f, sched_msg(MODE_STATIC, SYNC_CLOCK,
	    SCHED_F_ACTIVE | SCHED_F_SYNC, 80000, 100000, 1000000,
	    real_now - MS(105))), 0);
	assert_int_equal(f->s.slices, 2);
	assert_string_equal(fake_gang_ops(), "rt1");
	/* SYNC is an event, not a state */
	assert_int_equal(f->s.want.flags & SCHED_F_SYNC, 0);

	/* a new PS is a change: a new origin without SYNC */
	assert_int_equal(apply(f, sched_msg(MODE_STATIC, SYNC_CLOCK,
	    SCHED_F_ACTIVE, 50000, 100000, 1000000, real_now - MS(60))), 0);
	assert_int_equal(f->s.sl.t0, mono_now - MS(60));
	assert_int_equal(f->s.sl.ps, MS(50));
	assert_int_equal(f->s.phase, PHASE_LS);
	assert_string_equal(fake_gang_ops(), "rt1 stop");
}

static void
test_arrival(void **state)
{
	struct fixture		*f = *state;
	struct proto_schedule	 p = sched_msg(MODE_STATIC, SYNC_ARRIVAL,
	    SCHED_F_ACTIVE | SCHED_F_SYNC, 80000, 100000, 1000000, 0);
	const char		*err;
	int64_t			 t0;

	/* received 0.5 ms ago: its PS starts ARRIVAL_DELAY after that */
	t0 = mono_now - US(500) + ARRIVAL_DELAY;
	assert_int_equal(sched_apply(&f->s, &p, mono_now - US(500),
	    real_now - US(500), &err), 0);
	assert_string_equal(fake_gang_ops(), "");
	assert_int_equal(f->s.slicing, 0);
	assert_int_equal(f->s.jump_at, t0);
	assert_int_equal(f->s.wake_at, t0);

	/* the edge thread wakes 40 us after it: a PS from t0, 40 us late */
	advance(t0 + US(40) - mono_now);
	sched_timer(&f->s, mono_now);
	assert_string_equal(fake_gang_ops(), "rt1 idle0");
	assert_int_equal(f->s.slicing, 1);
	assert_int_equal(f->s.jump_at, 0);
	assert_int_equal(f->s.sl.t0, t0);
	assert_int_equal(f->s.wake_at, t0 + MS(80));
	assert_int_equal(last_edge().phase, PHASE_PS);
	assert_int_equal(last_edge().late, US(40));

	/* a sync while slicing: the slices go on until the jump */
	advance(MS(85));		/* in LS */
	sched_timer(&f->s, mono_now);
	assert_string_equal(fake_gang_ops(), "stop");
	assert_int_equal(sched_apply(&f->s, &p, mono_now, real_now, &err), 0);
	assert_int_equal(f->s.jump_at, mono_now + ARRIVAL_DELAY);
	assert_int_equal(f->s.wake_at, mono_now + ARRIVAL_DELAY);
	assert_int_equal(f->s.phase, PHASE_LS);
	assert_string_equal(fake_gang_ops(), "");

	/* handled 5 ms after it arrived: the PS began 3 ms ago */
	assert_int_equal(sched_apply(&f->s, &p, mono_now - MS(5),
	    real_now - MS(5), &err), 0);
	assert_string_equal(fake_gang_ops(), "rt1 cont idle0");
	assert_int_equal(f->s.jump_at, 0);
	assert_int_equal(f->s.sl.t0, mono_now - MS(3));
	assert_int_equal(last_edge().late, MS(3));

	/* a receive stamp from the future: no later than ARRIVAL_DELAY */
	assert_int_equal(sched_apply(&f->s, &p, mono_now + 10 * NS_PER_SEC,
	    real_now + 10 * NS_PER_SEC, &err), 0);
	assert_int_equal(f->s.jump_at, mono_now + ARRIVAL_DELAY);
}

static void
test_balanced(void **state)
{
	struct fixture	*f = *state;

	/* BALANCED slices with the PS the console chose */
	assert_int_equal(apply(f, sched_msg(MODE_BALANCED, SYNC_CLOCK,
	    SCHED_F_ACTIVE, 30000, 100000, 1000000, real_now)), 0);
	assert_string_equal(fake_gang_ops(), "rt1 idle0");
	assert_int_equal(f->s.sl.ps, MS(30));
	assert_int_equal(f->s.wake_at, mono_now + MS(30));
	assert_int_equal(status(f).ps_us, 30000);
	assert_int_equal(status(f).mode, MODE_BALANCED);

	/* the Load agent's LS share is DISTRIBUTED's, not BALANCED's */
	sched_load(&f->s, 2000, 50);
	assert_string_equal(fake_gang_ops(), "");
	assert_int_equal(f->s.sl.ps, MS(30));
	assert_int_equal(status(f).ps_us, 30000);
	assert_int_equal(status(f).load_milli, 2000);
}

static void
test_distributed(void **state)
{
	struct fixture	*f = *state;
	int64_t		 t0 = mono_now;

	/* PS from Table 2.1 for the local load (LS 10% until a report),
	 * whatever PS and origin the console sent */
	assert_int_equal(apply(f, sched_msg(MODE_DISTRIBUTED, SYNC_CLOCK,
	    SCHED_F_ACTIVE, 10000, 100000, 1000000, real_now - MS(50))), 0);
	assert_string_equal(fake_gang_ops(), "rt1 idle0");
	assert_int_equal(f->s.sl.t0, t0);
	assert_int_equal(f->s.sl.ps, MS(90));
	assert_int_equal(status(f).ps_us, 90000);

	/* a report: LS 40%, PS 60 ms, on the same local origin */
	advance(MS(70));
	sched_load(&f->s, 2500, 40);
	assert_int_equal(f->s.sl.ps, MS(60));
	assert_int_equal(f->s.sl.t0, t0);
	assert_int_equal(f->s.phase, PHASE_LS);
	assert_string_equal(fake_gang_ops(), "rt1 stop");
	assert_int_equal(status(f).ps_us, 60000);
	assert_int_equal(status(f).load_milli, 2500);

	/* the same share again, or none that Table 2.1 can have: nothing */
	sched_load(&f->s, 2600, 40);
	sched_load(&f->s, 2700, 0);
	sched_load(&f->s, 2800, 100);
	assert_string_equal(fake_gang_ops(), "");
	assert_int_equal(f->s.dist_ls_pct, 40);
	assert_int_equal(status(f).load_milli, 2800);

	/* LS 3%: PS 97% of IP is over the kernel's 95%: not applied */
	sched_load(&f->s, 100, 3);
	assert_string_equal(fake_gang_ops(), "");
	assert_int_equal(f->s.dist_ls_pct, 40);
	assert_int_equal(f->s.sl.ps, MS(60));

	/* the console's SYNC does not move a local origin */
	assert_int_equal(apply(f, sched_msg(MODE_DISTRIBUTED, SYNC_CLOCK,
	    SCHED_F_ACTIVE | SCHED_F_SYNC, 10000, 100000, 1000000,
	    real_now - MS(5))), 0);
	assert_string_equal(fake_gang_ops(), "");
	assert_int_equal(f->s.sl.t0, t0);

	/* a new IP does: the same origin, Table 2.1 of the new IP */
	assert_int_equal(apply(f, sched_msg(MODE_DISTRIBUTED, SYNC_CLOCK,
	    SCHED_F_ACTIVE, 10000, 50000, 1000000, real_now)), 0);
	assert_int_equal(f->s.sl.t0, t0);
	assert_int_equal(f->s.sl.ps, MS(30));
	assert_int_equal(f->s.sl.ip, MS(50));
}

/* Table 2.1: PS = IP * (100 - LS%) / 100, in whole microseconds. */
static void
test_table(void **state)
{
	struct fixture	*f = *state;
	static const struct {
		uint32_t	 ip_us;
		uint32_t	 ls_pct;
		int64_t		 ps;
	} t[] = {
		{ 7000, 10, US(6300) },
		{ 7000, 33, US(4690) },
		{ 7000, 50, US(3500) },
		{ 7000, 90, US(700) },
		{ 7000, 99, US(70) },
		{ 10001, 33, US(6700) },	/* 6700.67 us: floored */
		{ 10001, 20, US(8000) },	/* 8000.8 us */
		{ 3, 50, US(1) },		/* not a valid IP: refused */
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int	 rc;

		rc = apply(f, sched_msg(MODE_DISTRIBUTED, SYNC_CLOCK,
		    SCHED_F_ACTIVE, 1, t[i].ip_us, 20000, 0));
		if (t[i].ip_us < 1000) {
			assert_int_equal(rc, -1);
			continue;
		}
		assert_int_equal(rc, 0);
		sched_load(&f->s, 1000, t[i].ls_pct);
		assert_int_equal(f->s.dist_ls_pct, (int)t[i].ls_pct);
		assert_int_equal(f->s.sl.ps, t[i].ps);
		assert_int_equal(status(f).ps_us, t[i].ps / NS_PER_US);
	}
}

static void
test_hpdt_off(void **state)
{
	struct fixture		*f = *state;
	struct proto_status	 st;

	assert_int_equal(apply(f, static80(MS(90))), 0);	/* in LS */
	assert_string_equal(fake_gang_ops(), "rt1 stop");

	/* HPDT: continued, at RT, never stopped */
	assert_int_equal(apply(f, sched_msg(MODE_HPDT, SYNC_CLOCK,
	    SCHED_F_ACTIVE, 80000, 100000, 1000000, real_now)), 0);
	assert_string_equal(fake_gang_ops(), "cont rt1 idle0");
	assert_int_equal(f->s.slicing, 0);
	assert_int_equal(f->s.phase, PHASE_NONE);
	assert_int_equal(f->s.wake_at, 0);
	assert_int_equal(f->shm.active, 0);
	assert_int_equal(f->shm.mode, MODE_HPDT);
	st = status(f);
	assert_int_equal(st.mode, MODE_HPDT);
	assert_int_equal(st.flags & SCHED_F_ACTIVE, 0);
	assert_int_equal(st.phase, PHASE_NONE);
	advance(MS(500));
	sched_timer(&f->s, mono_now);
	assert_string_equal(fake_gang_ops(), "");

	/* OFF: normal priority */
	assert_int_equal(apply(f, sched_msg(MODE_OFF, SYNC_CLOCK,
	    SCHED_F_ACTIVE, 80000, 100000, 1000000, real_now)), 0);
	assert_string_equal(fake_gang_ops(), "rt0 idle0");
	assert_int_equal(status(f).mode, MODE_OFF);

	/* STATIC without ACTIVE (`stop`) is released like OFF */
	assert_int_equal(apply(f, static80(MS(90))), 0);
	(void)fake_gang_ops();
	assert_int_equal(apply(f, sched_msg(MODE_STATIC, SYNC_CLOCK, 0,
	    80000, 100000, 1000000, real_now)), 0);
	assert_string_equal(fake_gang_ops(), "cont rt0 idle0");
	assert_int_equal(f->s.slicing, 0);
	assert_int_equal(f->g.stopped, 0);
}

/* p is refused with a reason containing why, and nothing changes. */
static void
refused(struct fixture *f, struct proto_schedule p, const char *why)
{
	struct sched		*before = malloc(sizeof(*before));
	struct agent_shared	 shm = f->shm;
	struct gang		 g = f->g;
	const char		*err = NULL;

	assert_non_null(before);
	memcpy(before, &f->s, sizeof(*before));
	advance(MS(1));
	assert_int_equal(sched_apply(&f->s, &p, mono_now, real_now, &err), -1);
	assert_non_null(err);
	if (strstr(err, why) == NULL)
		fail_msg("refused with \"%s\", expected \"%s\"", err, why);
	assert_memory_equal(before, &f->s, sizeof(*before));
	assert_memory_equal(&shm, &f->shm, sizeof(shm));
	assert_memory_equal(&g, &f->g, sizeof(g));
	assert_string_equal(fake_gang_ops(), "");
	free(before);
}

static void
test_refused(void **state)
{
	struct fixture		*f = *state;
	struct proto_schedule	 p;

	assert_int_equal(apply(f, static80(MS(90))), 0);
	(void)fake_gang_ops();

	p = static80(0);
	p.mode = MODE_HPDT + 1;	/* the last mode + 1 */
	refused(f, p, "mode");
	p = static80(0);
	p.sync = SYNC_CLOCK + 1;
	refused(f, p, "sync");
	p = static80(0);
	p.flags |= 0x80;
	refused(f, p, "flags");
	p = static80(0);
	p.ps_us = p.ip_us;
	refused(f, p, "not shorter than ip");
	p = static80(0);
	p.ps_us = 0;
	refused(f, p, "too short");
	p = static80(0);
	p.ip_us = 500;
	p.ps_us = 100;
	refused(f, p, "ip");
	p = static80(0);
	p.ip_us = 61000000;
	p.si_us = 100000000;
	refused(f, p, "ip");
	p = static80(0);
	p.si_us = 50000;
	refused(f, p, "shorter than ip");
	p = static80(0);
	p.origin_ns = (uint64_t)INT64_MAX + 1;
	refused(f, p, "origin");
	/* over the kernel's real-time budget (95%) */
	p = static80(0);
	p.ps_us = 97000;
	refused(f, p, "real-time");
	p.mode = MODE_BALANCED;
	refused(f, p, "real-time");
	/* DISTRIBUTED checks Table 2.1's PS for the local load, not p's */
	sched_load(&f->s, 100, 3);
	p = sched_msg(MODE_DISTRIBUTED, SYNC_CLOCK, SCHED_F_ACTIVE, 10000,
	    100000, 1000000, 0);
	refused(f, p, "real-time");
	/* HPDT needs the kernel's throttling */
	f->s.rt.runtime_us = -1;
	p.mode = MODE_HPDT;
	refused(f, p, "throttle");
	/* ... which is all STATIC's check needs then */
	p = static80(0);
	p.ps_us = 99000;
	assert_int_equal(apply(f, p), 0);
	assert_int_equal(f->s.sl.ps, MS(99));
}

static void
test_ls_idle(void **state)
{
	struct fixture		*f = *state;
	struct proto_schedule	 p = static80(MS(70));

	p.flags |= SCHED_F_LS_IDLE;
	assert_int_equal(apply(f, p), 0);
	assert_string_equal(fake_gang_ops(), "rt1 idle0");
	assert_int_equal(f->s.ls_idle, 1);
	assert_int_equal(f->shm.ls_idle, 1);
	assert_true(status(f).flags & STATUS_F_LS_IDLE);

	/* LS: at SCHED_IDLE, not stopped; PS: back */
	advance(MS(10));
	sched_timer(&f->s, mono_now);
	assert_string_equal(fake_gang_ops(), "idle1");
	assert_int_equal(f->g.stopped, 0);
	advance(MS(20));
	sched_timer(&f->s, mono_now);
	assert_string_equal(fake_gang_ops(), "idle0");

	/* where SCHED_IDLE cannot yield, LS stops the gang */
	fake_gang.can_idle = 0;
	assert_int_equal(apply(f, p), 0);	/* a change: restarts */
	assert_int_equal(f->s.ls_idle, 0);
	assert_int_equal(f->s.idle_refused, 1);
	assert_int_equal(f->shm.ls_idle, 0);
	assert_false(status(f).flags & STATUS_F_LS_IDLE);
	(void)fake_gang_ops();
	advance(MS(80));
	sched_timer(&f->s, mono_now);
	assert_string_equal(fake_gang_ops(), "stop");
}

/* The Load agent's fail-safe released the gang: the phase applies again. */
static void
test_regain(void **state)
{
	struct fixture		*f = *state;
	struct proto_schedule	 p;

	assert_int_equal(apply(f, static80(MS(90))), 0);	/* LS */
	assert_int_equal(f->shm.limit_ns, MS(200));
	(void)fake_gang_ops();
	advance(MS(5));
	f->shm.beat_ns = 0;
	sched_regain(&f->s);
	assert_string_equal(fake_gang_ops(), "forget rt1 stop");
	assert_int_equal(f->g.stopped, 1);
	assert_int_equal(f->shm.beat_ns, mono_now);
	assert_int_equal(f->shm.active, 1);

	/* in a PS: RT only */
	advance(MS(10));
	sched_timer(&f->s, mono_now);
	(void)fake_gang_ops();
	sched_regain(&f->s);
	assert_string_equal(fake_gang_ops(), "forget rt1");

	/* an idle LS: SCHED_IDLE again */
	p = static80(MS(90));
	p.flags |= SCHED_F_LS_IDLE;
	assert_int_equal(apply(f, p), 0);
	(void)fake_gang_ops();
	sched_regain(&f->s);
	assert_string_equal(fake_gang_ops(), "forget rt1 idle1");

	/* HPDT: RT; OFF: normal */
	p.mode = MODE_HPDT;
	assert_int_equal(apply(f, p), 0);
	(void)fake_gang_ops();
	sched_regain(&f->s);
	assert_string_equal(fake_gang_ops(), "forget rt1");
	p.mode = MODE_OFF;
	assert_int_equal(apply(f, p), 0);
	(void)fake_gang_ops();
	sched_regain(&f->s);
	assert_string_equal(fake_gang_ops(), "forget rt0");

	/* the fail-safe's limit: two IPs, at least 200 ms */
	assert_int_equal(apply(f, sched_msg(MODE_STATIC, SYNC_CLOCK,
	    SCHED_F_ACTIVE, 200000, 400000, 1000000, real_now)), 0);
	assert_int_equal(f->shm.limit_ns, MS(800));
	assert_int_equal(apply(f, sched_msg(MODE_STATIC, SYNC_CLOCK,
	    SCHED_F_ACTIVE, 5000, 10000, 1000000, real_now)), 0);
	assert_int_equal(f->shm.limit_ns, MS(200));
}

/* No fail-safe (dts-load down): released, the schedule kept for later. */
static void
test_suspend(void **state)
{
	struct fixture		*f = *state;
	struct proto_schedule	 p;

	assert_int_equal(apply(f, static80(MS(90))), 0);
	(void)fake_gang_ops();
	sched_suspend(&f->s);
	assert_string_equal(fake_gang_ops(), "release");
	assert_int_equal(f->s.slicing, 0);
	assert_int_equal(f->s.phase, PHASE_NONE);
	assert_int_equal(f->s.wake_at, 0);
	assert_int_equal(f->shm.active, 0);

	/* a schedule meanwhile is kept, not run; a bad one is refused */
	p = sched_msg(MODE_STATIC, SYNC_CLOCK, SCHED_F_ACTIVE | SCHED_F_SYNC,
	    40000, 100000, 1000000, real_now);
	assert_int_equal(apply(f, p), 0);
	assert_string_equal(fake_gang_ops(), "");
	assert_int_equal(f->s.slicing, 0);
	assert_int_equal(f->s.want.ps_us, 40000);
	p.ps_us = 100000;
	assert_int_equal(apply(f, p), -1);
	assert_int_equal(f->s.want.ps_us, 40000);

	/* back: the kept schedule, from now (its origin has passed) */
	advance(MS(20));
	sched_resume(&f->s);
	assert_int_equal(f->s.suspended, 0);
	assert_int_equal(f->s.slicing, 1);
	assert_int_equal(f->s.sl.ps, MS(40));
	assert_int_equal(f->s.phase, PHASE_PS);
	assert_string_equal(fake_gang_ops(), "rt1 idle0");
	sched_resume(&f->s);		/* not suspended: nothing */
	assert_string_equal(fake_gang_ops(), "");

	sched_release(&f->s);
	assert_string_equal(fake_gang_ops(), "release");
	assert_int_equal(f->s.slicing, 0);
}

static void
test_overruns(void **state)
{
	struct fixture	*f = *state;
	int64_t		 t0 = mono_now;
	uint64_t	 slices;

	assert_int_equal(apply(f, static80(0)), 0);
	(void)fake_gang_ops();
	slices = f->s.slices;

	/* woken in the next PS: the LS edge was missed, the PS is redone */
	mono_now = t0 + MS(110);
	real_now = mono_now + REAL_OFF;
	sched_timer(&f->s, mono_now);
	assert_string_equal(fake_gang_ops(), "idle0");
	assert_int_equal(f->s.slices, slices + 1);
	assert_int_equal(f->s.sl.overruns, 1);
	assert_int_equal(last_edge().late, MS(30));	/* after the LS edge */

	/* in the LS of the fifth iteration: six more edges skipped */
	mono_now = t0 + MS(485);
	real_now = mono_now + REAL_OFF;
	sched_timer(&f->s, mono_now);
	assert_string_equal(fake_gang_ops(), "stop");
	assert_int_equal(f->s.sl.overruns, 7);
	assert_int_equal(status(f).overruns, 7);

	/* a new sync point keeps the count */
	assert_int_equal(apply(f, sched_msg(MODE_STATIC, SYNC_CLOCK,
	    SCHED_F_ACTIVE | SCHED_F_SYNC, 80000, 100000, 1000000,
	    real_now)), 0);
	assert_int_equal(f->s.sl.overruns, 0);
	assert_int_equal(status(f).overruns, 7);
}

/*
 * What the gang got: time in PS and LS and stopped, counted up to each
 * change and brought up to now by sched_stats; the edges' histograms;
 * the fail-safe's releases; on_phase called before a PS lets the gang
 * run.
 */
static int	 phase_calls, stopped_at_call;

static void
on_phase(void *arg, const struct sched *s)
{
	(void)arg;
	phase_calls++;
	stopped_at_call = s->job[0].gang->stopped;
}

static void
test_stats(void **state)
{
	struct fixture		*f = *state;
	struct sched_stats	 st;
	int64_t			 t0 = mono_now;

	f->s.on_phase = on_phase;
	assert_int_equal(apply(f, static80(0)), 0);	/* PS from now */
	assert_true(phase_calls > 0);
	advance(MS(80) + US(30));			/* the LS edge, late */
	sched_timer(&f->s, mono_now);
	assert_int_equal(f->g.stopped, 1);
	advance(MS(20) - US(30));			/* the PS edge, on time */
	phase_calls = 0;
	sched_timer(&f->s, mono_now);
	assert_int_equal(f->g.stopped, 0);
	assert_int_equal(phase_calls, 1);
	assert_int_equal(stopped_at_call, 1);	/* told before it ran */
	advance(MS(10));

	sched_stats(&f->s, mono_now, &st);
	assert_int_equal(st.ps_ns, MS(80) + US(30) + MS(10));
	assert_int_equal(st.ls_ns, MS(20) - US(30));
	assert_int_equal(st.stopped_ns, MS(20) - US(30));
	assert_int_equal(st.acct_at, mono_now);
	/* sched_stats brings a copy up to now, not the node's own */
	assert_int_equal(f->s.st.acct_at, t0 + MS(100));
	/* lateness: 0 at the start, 30 us, 0 */
	assert_int_equal(hist_count(&st.late), 3);
	assert_int_equal(st.late.sum_ns, US(30));
	assert_int_equal(st.late.n[0], 2);		/* <= 5 us */
	assert_int_equal(st.late.n[3], 1);		/* <= 50 us */
	assert_int_equal(hist_count(&st.op), 3);

	/* OFF: neither phase nor stopped time grows */
	assert_int_equal(apply(f, sched_msg(MODE_OFF, SYNC_CLOCK,
	    SCHED_F_ACTIVE, 80000, 100000, 1000000, 0)), 0);
	advance(MS(500));
	sched_stats(&f->s, mono_now, &st);
	assert_int_equal(st.ps_ns + st.ls_ns, MS(100) + MS(10));
	assert_int_equal(st.stopped_ns, MS(20) - US(30));

	/* a release by the fail-safe counts */
	sched_regain(&f->s);
	assert_int_equal(f->s.st.failsafe, 1);
	f->s.on_phase = NULL;
}

static void
test_status(void **state)
{
	struct fixture		*f = *state;
	struct proto_status	 st = status(f);

	/* nothing applied yet */
	assert_int_equal(st.mode, MODE_OFF);
	assert_int_equal(st.flags, 0);
	assert_int_equal(st.phase, PHASE_NONE);
	assert_int_equal(st.members, 3);

	assert_int_equal(apply(f, sched_msg(MODE_STATIC, SYNC_ARRIVAL,
	    SCHED_F_ACTIVE, 80000, 100000, 2000000, 0)), 0);
	advance(ARRIVAL_DELAY);
	sched_timer(&f->s, mono_now);
	st = status(f);
	assert_int_equal(st.mode, MODE_STATIC);
	assert_int_equal(st.sync, SYNC_ARRIVAL);
	assert_int_equal(st.flags, SCHED_F_ACTIVE);
	assert_int_equal(st.phase, PHASE_PS);
	assert_int_equal(st.ps_us, 80000);
	assert_int_equal(st.ip_us, 100000);
	assert_int_equal(st.si_us, 2000000);
	assert_int_equal(st.slices, 1);
	assert_int_equal(st.last_ps_ns, real_now);

	/* SYNC: a console was heard within `silence` */
	f->s.last_console = mono_now;
	assert_int_equal(status(f).flags, SCHED_F_ACTIVE | STATUS_F_HEARD);
	advance(3 * NS_PER_SEC);
	sched_timer(&f->s, mono_now);
	assert_true(status(f).flags & STATUS_F_HEARD);
	advance(1);
	assert_false(status(f).flags & STATUS_F_HEARD);

	f->s.own = 1;
	assert_int_equal(status(f).flags, SCHED_F_ACTIVE | STATUS_F_OWN);
	fake_gang.members = 7;
	assert_int_equal(status(f).members, 7);
}

/* Every change of the plan wakes the edge thread; others do not. */
static void
test_kick(void **state)
{
	struct fixture	*f = *state;
	uint32_t	 plan = f->s.plan;

	sched_lock(&f->s);
	assert_int_equal(apply(f, static80(0)), 0);
	sched_unlock(&f->s);
	assert_int_equal(f->s.plan, plan + 1);
	assert_int_equal(f->s.kick, 0);

	sched_lock(&f->s);
	assert_int_equal(apply(f, static80(0)), 0);	/* no change */
	sched_unlock(&f->s);
	assert_int_equal(f->s.plan, plan + 1);
}

static uint64_t
slices_now(struct sched *s)
{
	uint64_t	 n;

	sched_lock(s);
	n = s->slices;
	sched_unlock(s);
	return n;
}

static void
sleep_ms(int ms)
{
	struct timespec	 ts = { 0, ms * NS_PER_MS };

	nanosleep(&ts, NULL);
}

/* The edge thread (and its guard) started on the real clock, p applied. */
static void
start_real(struct sched *s, const struct proto_schedule *p)
{
	const char	*err;

	s->mono = now_mono_ns;
	s->real = now_real_ns;
	assert_int_equal(sched_start(s, 1), 0);
	sched_lock(s);
	assert_int_equal(sched_apply(s, p, now_mono_ns(), now_real_ns(), &err),
	    0);
	sched_unlock(s);
}

/* The edge thread on the real clock: edges come, and stop with OFF. */
static void
test_edge_thread(void **state)
{
	struct fixture		*f = *state;
	struct proto_schedule	 p = sched_msg(MODE_STATIC, SYNC_ARRIVAL,
	    SCHED_F_ACTIVE, 2000, 4000, 10000, 0);
	const char		*err;
	int64_t			 until;
	uint64_t		 n;

	start_real(&f->s, &p);

	until = now_mono_ns() + 10 * NS_PER_SEC;
	while ((n = slices_now(&f->s)) < 5 && now_mono_ns() < until)
		sleep_ms(1);
	assert_true(n >= 5);

	p.mode = MODE_OFF;
	sched_lock(&f->s);
	assert_int_equal(sched_apply(&f->s, &p, now_mono_ns(), now_real_ns(),
	    &err), 0);
	n = f->s.slices;
	sched_unlock(&f->s);
	sleep_ms(20);
	assert_int_equal(slices_now(&f->s), n);
	assert_int_equal(f->g.stopped, 0);
	sched_stop(&f->s);
	assert_int_equal(f->s.running, 0);
	/* the thread did stop and continue the gang */
	assert_non_null(strstr(fake_gang.ops, "stop"));
	assert_non_null(strstr(fake_gang.ops, "cont"));
}


/*
 * Several jobs.  A fixture without the single gang: jobs[k] is named
 * "user:K" (K = A, B, ...), and its fake gang logs as "K:op".
 */
#define NJOBS	9

struct jfixture {
	struct sched		 s;
	struct gang		 g[NJOBS];
	struct agent_shared	 shm;
};

static int
setup_jobs(void **state)
{
	struct jfixture	*f = calloc(1, sizeof(*f));

	if (f == NULL)
		return -1;
	advance(100 * NS_PER_SEC);
	fake_gang.members = 3;
	fake_gang.on_recheck = NULL;
	sched_fixture_init(&f->s, &f->shm);
	for (int k = 0; k < NJOBS; k++) {
		char	 tag[2] = { (char)('A' + k), '\0' };

		fake_gang_init(&f->g[k]);
		fake_gang_name(&f->g[k], tag);
	}
	*state = f;
	return 0;
}

static int
teardown_jobs(void **state)
{
	struct jfixture	*f = *state;

	sched_fixture_fini(&f->s);
	free(f);
	return 0;
}

static const char *
job_name(int k)
{
	static char	 name[NJOBS][8];

	snprintf(name[k], sizeof(name[k]), "user:%c", 'A' + k);
	return name[k];
}

/* Add jobs 0 .. n-1 (places 0 .. n-1), the log emptied. */
static void
add_jobs(struct jfixture *f, int n)
{
	for (int k = 0; k < n; k++)
		assert_int_equal(sched_job_add(&f->s, &f->g[k], job_name(k)),
		    k);
	(void)fake_gang_ops();
}

/* The jobs whose gangs are not stopped nor idle, as their tags ("A",
 * "BC"): those at their own levels (fill 0) or filling another's slot. */
static const char *
tags(struct jfixture *f, int fill)
{
	static char	 out[NJOBS + 1];
	int		 n = 0;

	for (int k = 0; k < PROTO_JOBS_MAX; k++) {
		struct sched_job	*j = &f->s.job[k];

		if (j->gang != NULL && !j->gang->stopped && !f->s.held &&
		    !j->gang->idle && j->gang->fill == fill)
			out[n++] = j->gang->base[0];
	}
	out[n] = '\0';
	return out;
}

static const char *
running(struct jfixture *f)
{
	return tags(f, 0);
}

/* The jobs that fill another's slot: running, one level below it. */
static const char *
filling(struct jfixture *f)
{
	return tags(f, 1);
}

/* The jobs that run at RT in their slot (sched_job.run). */
static const char *
in_slot(struct jfixture *f)
{
	static char	 out[NJOBS + 1];
	int		 n = 0;

	for (int k = 0; k < PROTO_JOBS_MAX; k++)
		if (f->s.job[k].gang != NULL && f->s.job[k].run)
			out[n++] = f->s.job[k].gang->base[0];
	out[n] = '\0';
	return out;
}

static int
japply(struct jfixture *f, struct proto_schedule p)
{
	const char	*err = NULL;
	int		 rc = sched_apply(&f->s, &p, mono_now, real_now, &err);

	if (rc == 0)
		assert_null(err);
	return rc;
}

/* The edge thread at its next wake-up, on time. */
static void
next_edge(struct jfixture *f)
{
	assert_true(f->s.wake_at > mono_now);
	advance(f->s.wake_at - mono_now);
	sched_timer(&f->s, mono_now);
}

static void
set_slot(struct proto_schedule *p, int k, const char *job, uint32_t start_us,
    uint32_t len_us)
{
	snprintf(p->slot[k].job, sizeof(p->slot[k].job), "%s", job);
	p->slot[k].start_us = start_us;
	p->slot[k].len_us = len_us;
	if (p->nslots < k + 1)
		p->nslots = (uint8_t)(k + 1);
}

static struct proto_status
status_of_jobs(struct jfixture *f)
{
	struct proto_status	 st;

	memset(&st, 0, sizeof(st));
	sched_status(&f->s, &st, mono_now);
	return st;
}

/* One job is today's gang: no slot edge, the same operations. */
static void
test_jobs_one(void **state)
{
	struct jfixture	*f = *state;
	int64_t		 t0 = mono_now;

	add_jobs(f, 1);
	assert_int_equal(japply(f, static80(0)), 0);
	assert_string_equal(fake_gang_ops(), "A:rt1 A:idle0");
	assert_int_equal(f->s.lay.n, 1);
	assert_int_equal(f->s.wake_at, t0 + MS(80));
	next_edge(f);
	assert_string_equal(fake_gang_ops(), "A:stop");
	next_edge(f);
	assert_string_equal(fake_gang_ops(), "A:cont A:idle0");
	assert_int_equal(f->s.wake_at, t0 + MS(180));
}

/*
 * Quantum zero (dts(8), MEMORY): with mem_hold the job waits from the
 * next edge, in the PS as in the LS; cleared, it runs at the next PS.
 */
static void
test_jobs_mem_hold(void **state)
{
	struct jfixture	*f = *state;

	add_jobs(f, 1);
	assert_int_equal(japply(f, static80(0)), 0);
	(void)fake_gang_ops();
	f->s.mem_hold = 1;
	next_edge(f);			/* LS */
	assert_string_equal(fake_gang_ops(), "A:stop");
	for (int k = 0; k < 2; k++) {
		next_edge(f);		/* a PS: it stays stopped */
		assert_int_equal(f->s.phase, PHASE_PS);
		assert_string_equal(fake_gang_ops(), "");
		assert_string_equal(running(f), "");
		next_edge(f);		/* LS */
		assert_string_equal(fake_gang_ops(), "");
	}
	f->s.mem_hold = 0;
	next_edge(f);			/* PS: it runs again */
	assert_int_equal(f->s.phase, PHASE_PS);
	assert_string_equal(fake_gang_ops(), "A:cont A:idle0");
	assert_string_equal(running(f), "A");
}

/* Two jobs, no slot table: PS 80 ms in two slots of 40 ms. */
static void
test_jobs_equal2(void **state)
{
	struct jfixture		*f = *state;
	int64_t			 t0 = mono_now;
	uint64_t		 slices, slot, stopped;
	static struct trace_edge e[TRACE_LEN];
	int64_t			 before;
	int			 more, n;

	add_jobs(f, 2);
	assert_int_equal(japply(f, static80(0)), 0);
	assert_string_equal(fake_gang_ops(),
	    "A:rt1 B:rt1 B:fill1 A:idle0");
	assert_string_equal(running(f), "A");
	assert_string_equal(filling(f), "B");
	assert_string_equal(in_slot(f), "A");
	assert_int_equal(f->s.wake_at, t0 + MS(40));	/* the slot edge */
	slices = f->s.slices;

	/* the slot edge: A down below B, B up; no stop; not a PS start */
	before = real_now;
	advance(MS(40) + US(3));
	sched_timer(&f->s, mono_now);
	/* in the trace (the ring is the whole program's: its newest edge)
	 * as a slot edge, 3 us late, at the realtime clock */
	n = trace_since(before, e, TRACE_LEN, &more);
	assert_true(n >= 1);
	assert_int_equal(e[n - 1].phase, TRACE_SLOT);
	assert_int_equal(e[n - 1].late, US(3));
	assert_int_equal(e[n - 1].real, real_now);
	assert_string_equal(fake_gang_ops(),
	    "A:fill1 B:fill0 B:idle0");
	assert_string_equal(running(f), "B");
	assert_string_equal(filling(f), "A");
	assert_string_equal(in_slot(f), "B");
	assert_int_equal(f->s.slices, slices);
	assert_int_equal(f->s.phase, PHASE_PS);
	assert_int_equal(f->s.wake_at, t0 + MS(80));	/* absolute */
	assert_int_equal(f->shm.beat_ns, mono_now);

	next_edge(f);					/* LS */
	assert_string_equal(fake_gang_ops(), "A:stop B:stop");
	assert_string_equal(running(f), "");
	assert_string_equal(filling(f), "");
	assert_string_equal(in_slot(f), "");
	assert_int_equal(f->s.wake_at, t0 + MS(100));
	next_edge(f);					/* PS: A first */
	assert_string_equal(fake_gang_ops(),
	    "B:fill1 B:cont A:fill0 A:cont A:idle0");
	assert_string_equal(running(f), "A");
	assert_string_equal(filling(f), "B");
	assert_int_equal(f->s.wake_at, t0 + MS(140));
	assert_int_equal(f->s.slices, slices + 1);
	assert_int_equal(f->s.sl.overruns, 0);

	/* each had 40 ms of the first PS as its slot, filled the other's,
	 * and was stopped only in the LS */
	advance(MS(10));
	sched_job_stats(&f->s, 0, mono_now, &slot, &stopped);
	assert_int_equal(slot, MS(40) + US(3) + MS(10));
	assert_int_equal(stopped, MS(20));
	sched_job_stats(&f->s, 1, mono_now, &slot, &stopped);
	assert_int_equal(slot, MS(40) - US(3));
	assert_int_equal(stopped, MS(20));
}

/*
 * Four jobs at IP 100 ms, PS 80 ms: 20 ms slots in place order, exactly
 * one job running in each, and the counters add up: the slots' sum is
 * the PS time.
 */
static void
test_jobs_equal4(void **state)
{
	struct jfixture		*f = *state;
	struct sched_stats	 st;
	int64_t			 t0 = mono_now;
	uint64_t		 slot, stopped, sum = 0;
	static const char	*order[] = { "A", "B", "C", "D" };

	add_jobs(f, 4);
	assert_int_equal(japply(f, static80(0)), 0);
	(void)fake_gang_ops();
	for (int it = 0; it < 3; it++) {
		for (int k = 0; k < 4; k++) {
			assert_int_equal(f->s.phase, PHASE_PS);
			assert_string_equal(running(f), order[k]);
			assert_string_equal(in_slot(f), order[k]);
			assert_int_equal(f->s.wake_at,
			    t0 + it * MS(100) + (k + 1) * MS(20));
			next_edge(f);
			if (k < 3) {
				char	 want[64];

				snprintf(want, sizeof(want), "%c:fill1 "
				    "%c:fill0 %c:idle0", 'A' + k,
				    'A' + k + 1, 'A' + k + 1);
				assert_string_equal(fake_gang_ops(), want);
			}
		}
		assert_int_equal(f->s.phase, PHASE_LS);
		assert_string_equal(fake_gang_ops(),
		    "A:stop B:stop C:stop D:stop");
		assert_string_equal(running(f), "");
		next_edge(f);
		assert_string_equal(fake_gang_ops(), "B:cont C:cont D:fill1 "
		    "D:cont A:fill0 A:cont A:idle0");
		assert_string_equal(filling(f), "BCD");
	}
	sched_stats(&f->s, mono_now, &st);
	assert_int_equal(st.ps_ns, 3 * MS(80));
	for (int k = 0; k < 4; k++) {
		sched_job_stats(&f->s, k, mono_now, &slot, &stopped);
		assert_int_equal(slot, 3 * MS(20));
		assert_int_equal(stopped, 3 * MS(20));	/* the LSs */
		sum += slot;
	}
	assert_int_equal(sum, st.ps_ns);
	assert_int_equal(f->s.sl.overruns, 0);
}

/*
 * The same four jobs with base/jobs to hold them (the freezer backend):
 * an LS is one write for all, then each job is set, frozen, to its level
 * of the next PS's first slot (A up, D down), so that the PS start is one
 * write too.  No job's own stop or continue; the counters as before.  An
 * idle LS goes back to one gang at a time; so does OFF's release.
 */
static void
test_jobs_hold(void **state)
{
	struct jfixture		*f = *state;
	struct gang		 t;
	uint64_t		 slot, stopped;

	fake_gang_init(&t);
	fake_gang_name(&t, "T");
	t.hold_fd = 0;		/* as if base/jobs's cgroup.freeze were open */
	sched_set_hold(&f->s, &t);
	add_jobs(f, 4);
	assert_int_equal(japply(f, static80(0)), 0);
	(void)fake_gang_ops();
	for (int it = 0; it < 3; it++) {
		for (int k = 0; k < 4; k++)
			next_edge(f);
		assert_int_equal(f->s.phase, PHASE_LS);
		assert_string_equal(fake_gang_ops(),
		    "A:fill1 B:fill0 B:idle0 B:fill1 C:fill0 C:idle0 "
		    "C:fill1 D:fill0 D:idle0 T:hold A:fill0 D:fill1");
		assert_true(f->s.held);
		assert_string_equal(running(f), "");
		assert_string_equal(in_slot(f), "");
		next_edge(f);
		assert_string_equal(fake_gang_ops(), "A:idle0 T:unhold");
		assert_false(f->s.held);
		assert_string_equal(running(f), "A");
		assert_string_equal(filling(f), "BCD");
		assert_string_equal(in_slot(f), "A");
	}
	for (int k = 0; k < 4; k++) {
		sched_job_stats(&f->s, k, mono_now, &slot, &stopped);
		assert_int_equal(slot, 3 * MS(20));
		assert_int_equal(stopped, 3 * MS(20));	/* the LSs */
	}

	/* the LS held, then OFF: thawed, every job continued */
	for (int k = 0; k < 4; k++)
		next_edge(f);
	assert_true(f->s.held);
	(void)fake_gang_ops();
	{
		struct proto_schedule	 off = static80(0);

		off.mode = MODE_OFF;
		assert_int_equal(japply(f, off), 0);
	}
	assert_false(f->s.held);
	assert_true(strncmp(fake_gang_ops(), "T:unhold ", 9) == 0);
	assert_string_equal(running(f), "ABCD");
}

/*
 * The freeze lead (slice_lead): under hold each LS edge comes that much
 * early, the PS starts stay on the grid, and a slot edge that the early
 * LS edge passes is no overrun.  Without hold (each gang stops by
 * itself: the edge thread cannot watch one freeze) no lead.
 */
static void
test_jobs_lead(void **state)
{
	struct jfixture		*f = *state;
	struct gang		 t;
	int64_t			 ps_at;

	fake_gang_init(&t);
	fake_gang_name(&t, "T");
	t.hold_fd = 0;
	sched_set_hold(&f->s, &t);
	add_jobs(f, 4);
	assert_int_equal(japply(f, static80(0)), 0);
	while (f->s.phase != PHASE_LS)
		next_edge(f);
	f->s.lead = MS(25);	/* D's slot edge (60 ms) comes after 55 ms */
	for (int it = 0; it < 2; it++) {
		next_edge(f);		/* a PS start, on the grid */
		assert_int_equal(f->s.phase, PHASE_PS);
		ps_at = mono_now;
		assert_int_equal((ps_at - f->s.sl.t0) % MS(100), 0);
		next_edge(f);		/* B's slot */
		next_edge(f);		/* C's */
		assert_int_equal(mono_now - ps_at, MS(40));
		assert_string_equal(in_slot(f), "C");
		next_edge(f);		/* the LS, 25 ms early: D's slot skipped */
		assert_int_equal(f->s.phase, PHASE_LS);
		assert_int_equal(mono_now - ps_at, MS(55));
		assert_true(f->s.held);
		assert_int_equal(f->s.sl.overruns, 0);
		assert_int_equal(f->s.wake_at, ps_at + MS(100));
	}
	/* no hold (set in a PS, as a gang's own stop would be): on time */
	next_edge(f);
	ps_at = mono_now;
	t.hold_fd = -1;
	for (int k = 0; k < 4; k++)
		next_edge(f);
	assert_int_equal(f->s.phase, PHASE_LS);
	assert_int_equal(mono_now - ps_at, MS(80));
	assert_int_equal(f->s.sl.overruns, 0);
}

/*
 * The freeze lead's bound from the gangs' tasks (sched_set_tasks): freeze
 * times of 30 ms (tasks that wait behind another RT program to freeze,
 * which a lead makes longer still) give a lead of 37.5 ms with no count
 * known, 40 ms for 4,000 tasks would allow it, and 10 tasks bound it to
 * the lead's floor (half a point of the IP).
 */
static void
lead_with_tasks(struct jfixture *f, long tasks, int64_t want)
{
	for (int k = 0; k < FREEZE_SAMPLES; k++)
		f->s.frz[k] = MS(30);
	f->s.nfrz = FREEZE_SAMPLES;
	sched_set_tasks(&f->s, tasks);
	assert_int_equal(japply(f, static80(0)), 0);
	assert_int_equal(f->s.lead, want);
}

static void
test_jobs_lead_cap_none(void **state)
{
	add_jobs(*state, 2);
	lead_with_tasks(*state, -1, MS(30) + MS(30) / 4);
}

static void
test_jobs_lead_cap_big(void **state)
{
	add_jobs(*state, 2);
	lead_with_tasks(*state, 4000, MS(30) + MS(30) / 4);
}

static void
test_jobs_lead_cap_small(void **state)
{
	add_jobs(*state, 2);
	lead_with_tasks(*state, 10, MS(100) / SLICE_LEAD_FLOOR);
}

/* A late wake-up skips slot edges, as it skips PS and LS edges. */
static void
test_jobs_late(void **state)
{
	struct jfixture	*f = *state;
	int64_t		 t0 = mono_now;

	add_jobs(f, 4);
	assert_int_equal(japply(f, static80(0)), 0);
	(void)fake_gang_ops();

	/* due at 20 ms, woken at 45: C's slot; B's edge skipped */
	mono_now = t0 + MS(45);
	real_now = mono_now + REAL_OFF;
	sched_timer(&f->s, mono_now);
	assert_string_equal(fake_gang_ops(),
	    "A:fill1 C:fill0 C:idle0");
	assert_string_equal(running(f), "C");
	assert_string_equal(filling(f), "ABD");
	assert_int_equal(f->s.sl.overruns, 1);
	assert_int_equal(f->s.wake_at, t0 + MS(60));	/* still absolute */

	/* due at 60, woken in the next PS at 125 (B's slot): D's edge, the
	 * LS edge, the PS edge and A's slot passed */
	mono_now = t0 + MS(125);
	real_now = mono_now + REAL_OFF;
	sched_timer(&f->s, mono_now);
	assert_string_equal(running(f), "B");
	assert_string_equal(fake_gang_ops(), "C:fill1 B:fill0 B:idle0");
	assert_int_equal(f->s.wake_at, t0 + MS(140));
	assert_int_equal(f->s.phase, PHASE_PS);
	assert_int_equal(f->s.sl.overruns, 1 + 1 + 1 + 1);
}

/*
 * The SCHEDULE's slot table, work-conserving: a slot of a job this node
 * does not have, of a job without members, and a gap run every job.
 */
static void
test_jobs_table(void **state)
{
	struct jfixture		*f = *state;
	struct proto_schedule	 p = static80(0);
	int64_t			 t0 = mono_now;

	add_jobs(f, 3);
	fake_gang_set_members(&f->g[2], 0);		/* C: empty */
	set_slot(&p, 0, job_name(1), 0, 30000);		/* B */
	set_slot(&p, 1, job_name(0), 30000, 20000);	/* A */
	set_slot(&p, 2, job_name(2), 50000, 10000);	/* C: empty */
	set_slot(&p, 3, "other:x", 60000, 10000);	/* not here */
	/* 70-80 ms: a gap */
	assert_int_equal(japply(f, p), 0);
	assert_int_equal(f->s.lay.n, 3);		/* B, A, everyone */
	assert_int_equal(f->s.lay.seg[2].off, MS(50));
	assert_int_equal(f->s.lay.seg[2].who, SEG_ALL);
	assert_string_equal(running(f), "B");
	assert_int_equal(f->s.wake_at, t0 + MS(30));
	next_edge(f);
	assert_string_equal(running(f), "A");
	assert_int_equal(f->s.wake_at, t0 + MS(50));
	next_edge(f);
	assert_string_equal(running(f), "ABC");
	assert_string_equal(in_slot(f), "ABC");
	assert_int_equal(f->s.wake_at, t0 + MS(80));
	(void)fake_gang_ops();
	next_edge(f);				/* LS: all three stop */
	assert_string_equal(fake_gang_ops(), "A:stop B:stop C:stop");
	assert_string_equal(running(f), "");
	next_edge(f);
	assert_string_equal(running(f), "B");

	/* slots out of order are taken by their start */
	memset(p.slot, 0, sizeof(p.slot));
	p.nslots = 0;
	set_slot(&p, 0, job_name(0), 40000, 40000);
	set_slot(&p, 1, job_name(1), 0, 40000);
	assert_int_equal(japply(f, p), 0);
	assert_int_equal(f->s.lay_dirty, 1);	/* from the next PS */
	assert_int_equal(f->s.next.n, 2);
	assert_int_equal(f->s.next.seg[0].who, 1);
	assert_int_equal(f->s.next.seg[1].who, 0);
	assert_int_equal(f->s.next.seg[1].off, MS(40));

	/* no slot table again: equal split */
	p.nslots = 0;
	memset(p.slot, 0, sizeof(p.slot));
	assert_int_equal(japply(f, p), 0);
	assert_int_equal(f->s.next.n, 3);
}

/*
 * Held jobs (dts(8), MEMORY): A held with B's slot [0, 40 ms), then
 * without a slot table: A stays stopped in every PS, in the gap after
 * B's slot too (it fills nothing); a SCHEDULE without it releases it
 * at the next PS.
 */
static void
test_jobs_held(void **state)
{
	struct jfixture		*f = *state;
	struct proto_schedule	 p = static80(0), q;

	add_jobs(f, 2);
	set_slot(&p, 0, job_name(1), 0, 40000);		/* B */
	snprintf(p.slot[1].job, sizeof(p.slot[1].job), "%s", job_name(0));
	p.nheld = 1;					/* A held */
	q = p;
	assert_int_equal(japply(f, p), 0);
	assert_int_equal(f->s.lay.held, 1u);
	assert_string_equal(running(f), "B");
	next_edge(f);			/* 40 ms: the gap, B alone */
	assert_string_equal(running(f), "B");
	next_edge(f);			/* LS */
	assert_string_equal(running(f), "");
	next_edge(f);			/* PS */
	assert_string_equal(running(f), "B");
	assert_true(f->g[0].stopped);
	/* no slot table, A still held: B has the whole PS */
	memset(p.slot, 0, sizeof(p.slot));
	p.nslots = 0;
	snprintf(p.slot[0].job, sizeof(p.slot[0].job), "%s", job_name(0));
	assert_int_equal(japply(f, p), 0);
	assert_int_equal(f->s.next.n, 1);
	assert_int_equal(f->s.next.seg[0].who, 1);
	while (f->s.phase != PHASE_PS || f->s.lay_dirty)
		next_edge(f);
	assert_string_equal(running(f), "B");
	assert_true(f->g[0].stopped);
	/* a job it does not have is no error */
	q.nheld = 2;
	snprintf(q.slot[2].job, sizeof(q.slot[2].job), "other:x");
	assert_int_equal(japply(f, q), 0);
	/* released: both again from the next PS */
	p = static80(0);
	assert_int_equal(japply(f, p), 0);
	assert_int_equal(f->s.next.held, 0u);
	next_edge(f);
	while (f->s.phase != PHASE_PS)
		next_edge(f);
	assert_string_equal(running(f), "A");
	assert_false(f->g[0].stopped);
}

/* DISTRIBUTED slices on its own: its PS split equally, a table or not. */
static void
test_jobs_distributed(void **state)
{
	struct jfixture		*f = *state;
	struct proto_schedule	 p = sched_msg(MODE_DISTRIBUTED, SYNC_CLOCK,
	    SCHED_F_ACTIVE, 80000, 100000, 1000000, 0);
	int64_t			 t0 = mono_now;

	add_jobs(f, 2);
	set_slot(&p, 0, job_name(1), 0, 80000);
	assert_int_equal(japply(f, p), 0);
	assert_int_equal(f->s.sl.ps, MS(90));		/* Table 2.1, LS 10% */
	assert_int_equal(f->s.lay.n, 2);
	assert_int_equal(f->s.lay.seg[1].off, MS(45));
	assert_string_equal(running(f), "A");
	assert_int_equal(f->s.wake_at, t0 + MS(45));

	/* a report: LS 40%, PS 60 ms, two slots of 30 at once */
	advance(MS(10));
	sched_load(&f->s, 2500, 40);
	assert_int_equal(f->s.sl.ps, MS(60));
	assert_int_equal(f->s.lay.seg[1].off, MS(30));
	assert_int_equal(f->s.wake_at, t0 + MS(30));
	next_edge(f);
	assert_string_equal(running(f), "B");
	next_edge(f);
	assert_int_equal(f->s.phase, PHASE_LS);
	assert_string_equal(running(f), "");
}

/* A bad slot table is refused with its reason, and nothing changes. */
static void
test_jobs_table_refused(void **state)
{
	struct jfixture		*f = *state;
	struct proto_schedule	 p = static80(0), q;
	struct sched		*before = malloc(sizeof(*before));
	static const struct {
		int		 k;
		const char	*job;
		uint32_t	 start, len;
		const char	*why;
	} bad[] = {
		{ 1, "user:B", 30000, 20000, "overlaps slot 0" },
		{ 1, "user:B", 50000, 40000, "ends at 90000 us" },
		{ 1, "user:B", 50000, 0, "length of 0" },
		{ 1, "", 50000, 10000, "slot 1" },
	};
	const char		*err;

	assert_non_null(before);
	add_jobs(f, 2);
	set_slot(&p, 0, job_name(0), 0, 40000);
	assert_int_equal(japply(f, p), 0);
	(void)fake_gang_ops();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		q = p;
		set_slot(&q, bad[i].k, bad[i].job, bad[i].start, bad[i].len);
		memcpy(before, &f->s, sizeof(*before));
		err = NULL;
		assert_int_equal(sched_apply(&f->s, &q, mono_now, real_now,
		    &err), -1);
		assert_non_null(err);
		if (strstr(err, bad[i].why) == NULL)
			fail_msg("refused with \"%s\", expected \"%s\"", err,
			    bad[i].why);
		assert_memory_equal(before, &f->s, sizeof(*before));
		assert_string_equal(fake_gang_ops(), "");
	}
	q = p;
	memset(q.slot[0].job, 'x', PROTO_JOB_LEN);	/* not terminated */
	assert_int_equal(sched_apply(&f->s, &q, mono_now, real_now, &err), -1);
	q = p;
	q.nslots = PROTO_JOBS_MAX + 1;
	assert_int_equal(sched_apply(&f->s, &q, mono_now, real_now, &err), -1);
	free(before);
}

/* Jobs come and go in the middle of a PS. */
static void
test_jobs_add_remove(void **state)
{
	struct jfixture		*f = *state;
	int64_t			 t0 = mono_now;

	add_jobs(f, 2);
	assert_int_equal(japply(f, static80(0)), 0);
	(void)fake_gang_ops();
	advance(MS(10));

	/* C arrives in A's slot: it fills until a slot of its own */
	assert_int_equal(sched_job_add(&f->s, &f->g[2], job_name(2)), 2);
	assert_string_equal(fake_gang_ops(), "C:rt1 C:fill1");
	assert_string_equal(running(f), "A");
	assert_string_equal(filling(f), "BC");
	assert_int_equal(f->s.wake_at, t0 + MS(40));	/* this PS as it was */
	next_edge(f);
	assert_string_equal(running(f), "B");
	next_edge(f);					/* LS */
	next_edge(f);					/* PS: three slots */
	assert_int_equal(f->s.lay.n, 3);
	assert_string_equal(running(f), "A");
	assert_int_equal(f->s.wake_at, t0 + MS(100) + MS(80) / 3);
	(void)fake_gang_ops();

	/* A leaves in its slot: released, the others run at once */
	advance(MS(5));
	sched_job_remove(&f->s, 0);
	assert_string_equal(fake_gang_ops(),
	    "B:fill0 B:idle0 C:fill0 C:idle0 A:release");
	assert_string_equal(running(f), "BC");
	assert_string_equal(filling(f), "");
	assert_int_equal(f->s.job[0].gang, NULL);
	assert_int_equal(sched_jobs(&f->s), 2);
	assert_int_equal(sched_job_find(&f->s, job_name(0)), -1);
	next_edge(f);				/* B's slot of this PS */
	assert_string_equal(running(f), "B");
	next_edge(f);
	assert_string_equal(running(f), "C");
	next_edge(f);				/* LS */
	next_edge(f);				/* PS: B and C, 40 ms each */
	assert_int_equal(f->s.lay.n, 2);
	assert_string_equal(running(f), "B");
	assert_int_equal(f->s.wake_at, t0 + MS(240));

	/* a job that arrives in a PS where every job runs joins them: the
	 * first job of an empty node */
	sched_job_remove(&f->s, 1);
	sched_job_remove(&f->s, 2);
	assert_int_equal(sched_jobs(&f->s), 0);
	(void)fake_gang_ops();
	next_edge(f);			/* C's slot of this PS: nobody's */
	assert_string_equal(fake_gang_ops(), "");
	next_edge(f);				/* LS */
	next_edge(f);				/* PS: nobody */
	assert_int_equal(f->s.lay.n, 1);
	assert_int_equal(f->s.lay.seg[0].who, SEG_ALL);
	assert_int_equal(sched_job_add(&f->s, &f->g[3], job_name(3)), 0);
	assert_string_equal(fake_gang_ops(), "D:rt1 D:idle0");
	assert_string_equal(running(f), "D");
	next_edge(f);				/* LS */
	assert_string_equal(running(f), "");
}

/*
 * Fair share per user (dts.conf share = "user", the default): alice's 3
 * jobs and bob's 1 at PS 80 ms get 40 ms each, alice's 13.3 ms a job, and
 * after a PS their slot time adds up to that; user_weights move a user's
 * part; share = "job" is the equal split by job (20 ms each).
 */
static void
test_jobs_user_share(void **state)
{
	static const char	*names[] = { "alice:a", "alice:b", "bob:x",
				    "alice:c" };
	struct jfixture		*f = *state;
	struct conf_strlist	 w = { 0 };
	uint64_t		 slot, stopped, alice = 0;
	int64_t			 t0 = mono_now;

	for (int k = 0; k < 4; k++)
		assert_int_equal(sched_job_add(&f->s, &f->g[k], names[k]), k);
	assert_int_equal(japply(f, static80(0)), 0);
	/* in place order: alice:a, alice:b, bob:x, alice:c */
	assert_int_equal(f->s.lay.n, 4);
	assert_int_equal(f->s.lay.seg[1].off, 13333333);	/* 80/6 */
	assert_int_equal(f->s.lay.seg[2].off, 26666666);
	assert_int_equal(f->s.lay.seg[2].who, 2);		/* bob */
	assert_int_equal(f->s.lay.seg[3].off, 66666666);	/* + 40 */
	for (int k = 0; k < 4; k++)
		next_edge(f);
	assert_int_equal(f->s.phase, PHASE_LS);
	assert_int_equal(mono_now, t0 + MS(80));
	for (int k = 0; k < 4; k++) {
		sched_job_stats(&f->s, k, mono_now, &slot, &stopped);
		if (k == 2)
			assert_int_equal(slot, MS(40));
		else
			alice += slot;
	}
	assert_int_equal(alice, MS(40));

	/* bob weighs 3: 60 ms his, 20 ms alice's; from the next PS */
	snprintf(w.s[0], sizeof(w.s[0]), "bob:3");
	snprintf(w.s[1], sizeof(w.s[1]), "not an entry");	/* left out */
	w.n = 2;
	sched_set_share(&f->s, 0, &w);
	assert_int_equal(f->s.nuw, 1);
	assert_int_equal(f->s.lay_dirty, 1);
	assert_int_equal(f->s.next.seg[2].off, 13333333);	/* 20 * 2/3 */
	assert_int_equal(f->s.next.seg[3].off, 73333333);	/* + 60 */
	next_edge(f);					/* PS */
	assert_int_equal(f->s.lay.seg[3].off, 73333333);

	/* share = "job": 20 ms each, as before; weights do not count */
	sched_set_share(&f->s, 1, &w);
	for (int k = 0; k < 4; k++)
		assert_int_equal(f->s.next.seg[k].off, k * MS(20));

	/* one user alone, or each user one job: equal, whatever the weight */
	sched_set_share(&f->s, 0, &w);
	sched_job_remove(&f->s, 3);
	sched_job_remove(&f->s, 1);
	assert_int_equal(f->s.next.n, 2);		/* alice:a, bob:x */
	assert_int_equal(f->s.next.seg[1].off, MS(20));	/* bob 3 of 4 */
	snprintf(w.s[0], sizeof(w.s[0]), "carol:7");
	sched_set_share(&f->s, 0, &w);
	assert_int_equal(f->s.next.seg[1].off, MS(40));
}

/* max_jobs places, then -1; a freed place is taken again. */
static void
test_jobs_full(void **state)
{
	struct jfixture	*f = *state;

	assert_int_equal(f->s.max_jobs, PROTO_JOBS_MAX);
	for (int k = 0; k < PROTO_JOBS_MAX; k++)
		assert_int_equal(sched_job_add(&f->s, &f->g[k], job_name(k)),
		    k);
	assert_int_equal(sched_job_add(&f->s, &f->g[8], job_name(8)), -1);
	assert_int_equal(sched_jobs(&f->s), PROTO_JOBS_MAX);
	assert_int_equal(sched_job_find(&f->s, "user:E"), 4);
	sched_job_remove(&f->s, 4);
	assert_int_equal(sched_job_find(&f->s, "user:E"), -1);
	assert_int_equal(sched_job_add(&f->s, &f->g[8], job_name(8)), 4);
	assert_string_equal(f->s.job[4].name, "user:I");

	f->s.max_jobs = 2;			/* dts.conf max_jobs */
	for (int k = 0; k < PROTO_JOBS_MAX; k++)
		sched_job_remove(&f->s, k);
	assert_int_equal(sched_jobs(&f->s), 0);
	assert_int_equal(sched_job_add(&f->s, &f->g[0], job_name(0)), 0);
	assert_int_equal(sched_job_add(&f->s, &f->g[1], job_name(1)), 1);
	assert_int_equal(sched_job_add(&f->s, &f->g[2], job_name(2)), -1);
	assert_int_equal(sched_jobs(&f->s), 2);
}

/* HPDT: every job at RT, never stopped; OFF: every job normal. */
static void
test_jobs_hpdt_off(void **state)
{
	struct jfixture	*f = *state;

	add_jobs(f, 3);
	assert_int_equal(japply(f, static80(MS(30))), 0);	/* B's slot */
	assert_string_equal(running(f), "B");
	(void)fake_gang_ops();
	assert_int_equal(japply(f, sched_msg(MODE_HPDT, SYNC_CLOCK,
	    SCHED_F_ACTIVE, 80000, 100000, 1000000, real_now)), 0);
	assert_string_equal(fake_gang_ops(), "A:rt1 A:fill0 A:idle0 B:rt1 "
	    "B:idle0 C:rt1 C:fill0 C:idle0");
	assert_string_equal(running(f), "ABC");
	assert_string_equal(in_slot(f), "ABC");
	assert_int_equal(f->s.wake_at, 0);
	assert_int_equal(japply(f, sched_msg(MODE_OFF, SYNC_CLOCK,
	    SCHED_F_ACTIVE, 80000, 100000, 1000000, real_now)), 0);
	assert_string_equal(fake_gang_ops(), "A:rt0 A:idle0 B:rt0 B:idle0 "
	    "C:rt0 C:idle0");
	assert_string_equal(in_slot(f), "");
	/* a job added under OFF stays normal; back to slicing: one slot */
	assert_int_equal(sched_job_add(&f->s, &f->g[3], job_name(3)), 3);
	assert_string_equal(fake_gang_ops(), "");
	assert_int_equal(japply(f, static80(0)), 0);
	assert_string_equal(running(f), "A");
	assert_int_equal(f->s.lay.n, 4);
}

/*
 * An idle LS: the jobs out of their slot at SCHED_IDLE; one that cannot
 * idle is stopped instead, the others idle, and their threads looked at
 * again through the LS.
 */
static void
test_jobs_idle(void **state)
{
	struct jfixture		*f = *state;
	struct proto_schedule	 p = static80(0);
	int64_t			 at;
	int			 i;

	add_jobs(f, 2);
	fake_gang_set_can_idle(&f->g[1], 0);
	p.flags |= SCHED_F_LS_IDLE;
	assert_int_equal(japply(f, p), 0);
	assert_int_equal(f->s.ls_idle, 1);
	assert_int_equal(f->s.idle_refused, 1);
	assert_int_equal(f->s.job[1].no_idle, 1);
	/* in a PS the other job fills, idle or not in the LS */
	assert_string_equal(fake_gang_ops(), "A:rt1 B:rt1 B:fill1 A:idle0");
	next_edge(f);				/* B's slot */
	assert_string_equal(fake_gang_ops(), "A:fill1 B:fill0 B:idle0");
	assert_int_equal(f->g[0].stopped, 0);
	assert_int_equal(f->g[0].idle, 0);
	assert_string_equal(filling(f), "A");
	next_edge(f);				/* LS */
	assert_string_equal(fake_gang_ops(), "A:idle1 B:stop");
	assert_int_equal(f->g[0].idle, 1);
	/* the idle gang's threads born at SCHED_RR looked for every 2 ms
	 * of the 20 ms LS (a look that takes no time), the stopped one's
	 * not: 9 looks, then the PS */
	for (i = 0; i < 9; i++) {
		at = mono_now;
		next_edge(f);
		assert_int_equal(mono_now - at, MS(2));
		assert_int_equal(f->s.phase, PHASE_LS);
		assert_string_equal(fake_gang_ops(), "A:recheck");
	}
	next_edge(f);				/* PS */
	assert_int_equal(f->s.phase, PHASE_PS);
	assert_int_equal(f->s.recheck_at, 0);
	assert_string_equal(fake_gang_ops(),
	    "B:fill1 B:cont A:fill0 A:idle0");

	/* a third job in A's slot fills; none can idle: stopped, not idle */
	assert_int_equal(sched_job_add(&f->s, &f->g[2], job_name(2)), 2);
	assert_string_equal(fake_gang_ops(), "C:rt1 C:fill1");
	fake_gang.can_idle = 0;
	fake_gang_set_can_idle(&f->g[0], 0);
	assert_int_equal(japply(f, p), 0);
	assert_int_equal(f->s.ls_idle, 0);
	assert_int_equal(status_of_jobs(f).flags & STATUS_F_LS_IDLE, 0);
}

static void
look_takes_300us(void)
{
	advance(300 * NS_PER_US);
}

/* The mono times of the looks of the next LS, from its start, in ms:
 * "2 8 14" (the edge thread on time, the LS to its end). */
static const char *
looks_of_ls(struct jfixture *f)
{
	static char	 out[128];
	size_t		 n = 0;
	int64_t		 ls_at;

	while (f->s.phase != PHASE_LS)
		next_edge(f);
	ls_at = mono_now;
	out[0] = '\0';
	(void)fake_gang_ops();
	for (next_edge(f); f->s.phase == PHASE_LS; next_edge(f)) {
		assert_string_equal(fake_gang_ops(), "A:recheck");
		n += (size_t)snprintf(out + n, sizeof(out) - n, "%s%lld",
		    n > 0 ? " " : "", (long long)((mono_now - ls_at) / MS(1)));
	}
	return out;
}

/*
 * An idle LS's looks that take 300 us each: 20 times that apart (6 ms),
 * the step kept for the next LS, none within half a step of the PS
 * edge (a look that starts there could make it late).
 */
static void
test_jobs_idle_looks(void **state)
{
	struct jfixture		*f = *state;
	struct proto_schedule	 p = static80(0);

	add_jobs(f, 1);
	p.flags |= SCHED_F_LS_IDLE;
	assert_int_equal(japply(f, p), 0);
	assert_int_equal(f->s.ls_idle, 1);
	fake_gang.on_recheck = look_takes_300us;
	/* the first at 2 ms (no cost known), then 6 ms apart; not at 20 */
	assert_string_equal(looks_of_ls(f), "2 8 14");
	assert_int_equal(f->s.recheck_step, MS(6));
	/* the next LS: 6 ms from its start; 18 + 3 is past its end */
	assert_string_equal(looks_of_ls(f), "6 12");
	fake_gang.on_recheck = NULL;
}

/* The fail-safe released every gang: each gets its slot's state again. */
static void
test_jobs_regain(void **state)
{
	struct jfixture	*f = *state;

	add_jobs(f, 2);
	assert_int_equal(japply(f, static80(MS(50))), 0);	/* B's slot */
	(void)fake_gang_ops();
	sched_regain(&f->s);
	assert_string_equal(fake_gang_ops(),
	    "A:forget A:rt1 A:fill1 B:forget B:rt1");
	assert_string_equal(running(f), "B");
	assert_string_equal(filling(f), "A");
	assert_int_equal(f->s.nstopped, 0);
	next_edge(f);					/* LS */
	sched_regain(&f->s);
	assert_string_equal(fake_gang_ops(), "A:stop B:stop A:forget A:rt1 "
	    "A:stop B:forget B:rt1 B:stop");
	assert_int_equal(f->s.nstopped, 2);

	/* suspended: every gang released; back: the slots again */
	sched_suspend(&f->s);
	assert_string_equal(fake_gang_ops(), "A:release B:release");
	assert_string_equal(running(f), "AB");
	assert_int_equal(f->s.nstopped, 0);
	sched_resume(&f->s);			/* still in the LS */
	assert_int_equal(f->s.phase, PHASE_LS);
	assert_string_equal(running(f), "");
	sched_release(&f->s);
	assert_string_equal(running(f), "AB");
	assert_string_equal(in_slot(f), "");
}

/* STATUS lists the jobs, members each and together. */
static void
test_jobs_status(void **state)
{
	struct jfixture		*f = *state;
	struct proto_status	 st;

	st = status_of_jobs(f);
	assert_int_equal(st.njobs, 0);
	assert_int_equal(st.members, 0);
	add_jobs(f, 3);
	fake_gang_set_members(&f->g[1], 5);
	sched_job_remove(&f->s, 0);
	st = status_of_jobs(f);
	assert_int_equal(st.njobs, 2);
	assert_string_equal(st.job[0].job, "user:B");
	assert_int_equal(st.job[0].members, 5);
	assert_string_equal(st.job[1].job, "user:C");
	assert_int_equal(st.job[1].members, 3);
	assert_int_equal(st.job[2].job[0], '\0');
	assert_int_equal(st.members, 8);
}

/* The edge thread on the real clock does the slot edges too. */
static void
test_jobs_edge_thread(void **state)
{
	struct jfixture		*f = *state;
	struct proto_schedule	 p = sched_msg(MODE_STATIC, SYNC_ARRIVAL,
	    SCHED_F_ACTIVE, 2000, 4000, 10000, 0);
	const char		*err;
	int64_t			 until;
	uint64_t		 n, edges;

	add_jobs(f, 2);
	start_real(&f->s, &p);
	until = now_mono_ns() + 10 * NS_PER_SEC;
	while ((n = slices_now(&f->s)) < 6 && now_mono_ns() < until)
		sleep_ms(1);
	assert_true(n >= 6);
	p.mode = MODE_OFF;
	sched_lock(&f->s);
	assert_int_equal(sched_apply(&f->s, &p, now_mono_ns(), now_real_ns(),
	    &err), 0);
	n = f->s.slices;
	edges = hist_count(&f->s.st.op);
	sched_unlock(&f->s);
	sched_stop(&f->s);
	/* a PS start, a slot edge and an LS edge an IP (a late wake-up on
	 * this busy machine may skip one now and then) */
	assert_true(edges + f->s.overruns + f->s.sl.overruns >= 3 * (n - 1));
	assert_non_null(strstr(fake_gang.ops, "A:fill1 B:fill0"));
	assert_int_equal(f->g[0].stopped, 0);
	assert_int_equal(f->g[1].stopped, 0);
}

/*
 * The edge guard: the edge thread kept from an edge of a PS (here by the
 * scheduler's lock, held by this test as a stuck move would hold it) for
 * SCHED_GUARD_STUCK: the guard demotes every gang (gang_demote_all),
 * without the lock, once; when the edge is made, every gang is put back
 * at its levels (gang_reapply).  (Not that it stays quiet while edges
 * come on time: here the edge thread is a plain thread, which a loaded
 * machine may well keep waiting for 20 ms.)
 */
static void
test_jobs_guard(void **state)
{
	struct jfixture		*f = *state;
	struct proto_schedule	 p = sched_msg(MODE_STATIC, SYNC_ARRIVAL,
	    SCHED_F_ACTIVE, 80000, 100000, 1000000, 0);
	struct gang		 t;
	const char		*err;
	int64_t			 until;
	int			 phase = -1;

	fake_gang_init(&t);
	fake_gang_name(&t, "T");
	t.hold_fd = 0;
	sched_set_hold(&f->s, &t);
	add_jobs(f, 2);
	start_real(&f->s, &p);
	sleep_ms(SCHED_GUARD_IDLE / NS_PER_MS + 20);	/* it saw the slicing */

	/* the lock taken in a PS, held for an IP: an edge waits for it */
	until = now_mono_ns() + 10 * NS_PER_SEC;
	for (;;) {
		sched_lock(&f->s);
		if ((phase = f->s.phase) == PHASE_PS || now_mono_ns() > until)
			break;
		sched_unlock(&f->s);
		sleep_ms(2);
	}
	assert_int_equal(phase, PHASE_PS);
	fake_gang_clear();
	sleep_ms(100);
	assert_int_equal(__atomic_load_n(&f->s.rescued, __ATOMIC_ACQUIRE), 1);
	assert_string_equal(fake_gang.ops, "T:demote");	/* once */
	sched_unlock(&f->s);
	until = now_mono_ns() + 10 * NS_PER_SEC;
	while (__atomic_load_n(&f->s.rescued, __ATOMIC_ACQUIRE) &&
	    now_mono_ns() < until)
		sleep_ms(1);
	sched_lock(&f->s);
	assert_int_equal(f->s.rescued, 0);
	assert_non_null(strstr(fake_gang.ops, "A:reapply B:reapply"));

	p.mode = MODE_OFF;
	assert_int_equal(sched_apply(&f->s, &p, now_mono_ns(), now_real_ns(),
	    &err), 0);
	sched_unlock(&f->s);
	sched_stop(&f->s);
}

/* on_phase hears of every slot edge, before the slot's job runs. */
static int	 slot_calls;
static char	 slot_seen[64];

static void
on_slot(void *arg, const struct sched *s)
{
	struct jfixture	*f = arg;
	size_t		 n = strlen(slot_seen);

	(void)s;
	slot_calls++;
	snprintf(slot_seen + n, sizeof(slot_seen) - n, "%s/", running(f));
}

static void
test_jobs_on_phase(void **state)
{
	struct jfixture	*f = *state;

	add_jobs(f, 2);
	assert_int_equal(japply(f, static80(0)), 0);
	f->s.on_phase = on_slot;
	f->s.on_phase_arg = f;
	slot_calls = 0;
	slot_seen[0] = '\0';
	next_edge(f);		/* slot edge: told with A stopped, B not yet */
	assert_string_equal(running(f), "B");
	next_edge(f);		/* LS: told after */
	next_edge(f);		/* PS: told before A runs */
	assert_string_equal(running(f), "A");
	assert_int_equal(slot_calls, 3);
	assert_string_equal(slot_seen, "///");	/* nobody runs when told */
	f->s.on_phase = NULL;
}

#define T(fn)	cmocka_unit_test_setup_teardown(fn, setup, teardown)
#define J(fn)	cmocka_unit_test_setup_teardown(fn, setup_jobs, teardown_jobs)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_static_clock),
		T(test_turns),
		T(test_static_origin),
		T(test_resync),
		T(test_arrival),
		T(test_balanced),
		T(test_distributed),
		T(test_table),
		T(test_hpdt_off),
		T(test_refused),
		T(test_ls_idle),
		T(test_regain),
		T(test_suspend),
		T(test_overruns),
		T(test_stats),
		T(test_status),
		T(test_kick),
		T(test_edge_thread),
		J(test_jobs_one),
		J(test_jobs_mem_hold),
		J(test_jobs_equal2),
		J(test_jobs_equal4),
		J(test_jobs_hold),
		J(test_jobs_lead),
		J(test_jobs_lead_cap_none),
		J(test_jobs_lead_cap_big),
		J(test_jobs_lead_cap_small),
		J(test_jobs_late),
		J(test_jobs_table),
		J(test_jobs_held),
		J(test_jobs_table_refused),
		J(test_jobs_distributed),
		J(test_jobs_add_remove),
		J(test_jobs_user_share),
		J(test_jobs_full),
		J(test_jobs_hpdt_off),
		J(test_jobs_idle),
		J(test_jobs_idle_looks),
		J(test_jobs_regain),
		J(test_jobs_guard),
		J(test_jobs_status),
		J(test_jobs_on_phase),
		J(test_jobs_edge_thread),
	};

	log_init("test_sched", LOG_TO_STDERR, NULL, LOG_LVL_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
