/*
 * test_console_sched.c - the schedule commands: durations and percentages
 * through mode/ip/ps/ls/si, every rejection (with its message, and with
 * nothing changed), shares that follow IP, the kernel RT budget, start and
 * stop, and what goes on the wire.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "cmds.h"
#include "console_fixture.h"
#include "timeutil.h"
#include "wire.h"

#define MS(x) ((int64_t)(x) * NS_PER_MS)

static void
test_defaults(void **state)
{
	struct fixture	*f = *state;

	assert_int_equal(f->c.sch.mode, MODE_STATIC);
	assert_int_equal(f->c.sch.ip, MS(100));
	assert_int_equal(sch_ps(&f->c.sch), MS(80));
	assert_int_equal(f->c.sch.si, 10000 * MS(1));
	assert_int_equal(cmds_exec(&f->c, "ip"), 0);
	assert_int_equal(cmds_exec(&f->c, "ps"), 0);
	assert_int_equal(cmds_exec(&f->c, "ls"), 0);
	assert_int_equal(cmds_exec(&f->c, "si"), 0);
	assert_int_equal(cmds_exec(&f->c, "mode"), 0);
	assert_string_equal(fixture_output(f), "ip 100ms\n"
	    "ps 80ms (80% of ip)\nls 20ms\nsi 10s\nmode static\n");
}

static void
test_good_values(void **state)
{
	struct fixture	*f = *state;

	assert_int_equal(cmds_exec(&f->c, "ip 200ms"), 0);
	assert_string_equal(fixture_output(f),
	    "ip 200ms, ps 160ms (80% of ip), ls 40ms, si 10s\n");
	assert_int_equal(cmds_exec(&f->c, "ps 150ms"), 0);
	assert_int_equal(sch_ps(&f->c.sch), MS(150));
	assert_int_equal(cmds_exec(&f->c, "ip 1s"), 0);	/* PS stays */
	assert_int_equal(sch_ps(&f->c.sch), MS(150));
	assert_int_equal(cmds_exec(&f->c, "ls 250ms"), 0);	/* PS = IP - LS */
	assert_int_equal(sch_ps(&f->c.sch), MS(750));
	assert_int_equal(cmds_exec(&f->c, "ls 10%"), 0);
	assert_int_equal(sch_ps(&f->c.sch), MS(900));
	assert_int_equal(cmds_exec(&f->c, "ip 0.5"), 0);	/* seconds */
	assert_int_equal(sch_ps(&f->c.sch), MS(450));		/* 90% */
	assert_int_equal(cmds_exec(&f->c, "ps 62.5%"), 0);
	assert_int_equal(sch_ps(&f->c.sch), 312500 * NS_PER_US);
	assert_int_equal(cmds_exec(&f->c, "si 1m"), 0);
	assert_int_equal(f->c.sch.si, 60000 * MS(1));
	assert_int_equal(cmds_exec(&f->c, "ps"), 0);
	assert_int_equal(cmds_exec(&f->c, "mode hpdt"), 0);
	assert_int_equal(cmds_exec(&f->c, "mode OFF"), 0);
	assert_int_equal(f->c.sch.mode, MODE_OFF);
	(void)fixture_output(f);
	assert_int_equal(cmds_exec(&f->c, "ps"), 0);
	assert_string_equal(fixture_output(f),
	    "ps 312.5ms (62.500% of ip)\n");
}

/* Every bad value: the message, and nothing changed. */
static void
test_bad_values(void **state)
{
	struct fixture	*f = *state;
	static const struct { const char *cmd, *err; } bad[] = {
		{ "ip 0", "ip: 0s is out of range [1ms, 60s]" },
		{ "ip 500us", "ip: 500us is out of range [1ms, 60s]" },
		{ "ip 61s", "ip: 61s is out of range [1ms, 60s]" },
		{ "ip -1s", "ip: \"-1s\": a duration cannot be negative" },
		{ "ip fast", "ip: \"fast\": not a duration (e.g. 800ms, 1s, "
		  "2.5s; a plain number is seconds)" },
		{ "ip 10parsecs", "ip: \"10parsecs\": unknown unit \"parsecs\" "
		  "(use ns, us, ms, s or m)" },
		{ "ip 1500ns",
		  "ip: \"1500ns\" is not a whole number of microseconds" },
		{ "ip 50%", "ip: \"50%\": unknown unit \"%\" (use ns, us, ms, "
		  "s or m)" },
		{ "ip 50ms", "ip: ps 80ms is not shorter than ip 50ms (IP = "
		  "PS + LS, and LS cannot be empty)" },
		{ "ip 20s", "ip: si 10s is shorter than ip 20s (SI must be at "
		  "least IP)" },
		{ "ps 0", "ps: 0s is too short (PS must be at least 1us)" },
		{ "ps 100ms", "ps: 100ms is not shorter than ip 100ms (IP = PS "
		  "+ LS, and LS cannot be empty)" },
		{ "ps 0%", "ps: \"0%\": a share of IP must be more than 0% and "
		  "less than 100%" },
		{ "ps 100%", "ps: \"100%\": a share of IP must be more than 0% "
		  "and less than 100%" },
		{ "ps x%", "ps: \"x%\": not a percentage (e.g. 80% or 62.5%)" },
		{ "ps 99ms", "ps: PS 99ms of IP 100ms is 99% but the kernel "
		  "allows real-time tasks only 95% (sched_rt_runtime_us=950000 "
		  "of sched_rt_period_us=1000000)" },
		{ "ps 96%", "ps: PS 96ms of IP 100ms is 96% but the kernel "
		  "allows real-time tasks only 95% (sched_rt_runtime_us=950000 "
		  "of sched_rt_period_us=1000000)" },
		{ "ls 100ms", "ls: 100ms is not shorter than ip 100ms (IP = PS "
		  "+ LS, and PS cannot be empty)" },
		{ "ls 1ms", "ls: PS 99ms of IP 100ms is 99% but the kernel "
		  "allows real-time tasks only 95% (sched_rt_runtime_us=950000 "
		  "of sched_rt_period_us=1000000)" },
		{ "ls 0.5%", "ls: PS 99.5ms of IP 100ms is 99.5% but the kernel "
		  "allows real-time tasks only 95% (sched_rt_runtime_us=950000 "
		  "of sched_rt_period_us=1000000)" },
		{ "si 5ms", "si: 5ms is out of range [10ms, 3600s]" },
		{ "si 61m", "si: 3660s is out of range [10ms, 3600s]" },
		{ "si 50ms", "si: 50ms is shorter than ip 100ms (SI must be at "
		  "least IP)" },
		{ "mode fast", "mode: \"fast\" is not one of static, balanced, "
		  "distributed, hpdt or off" },
	};
	size_t	 i;

	assert_int_equal(cmds_exec(&f->c, "ps 80ms"), 0);
	(void)fixture_output(f);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (cmds_exec(&f->c, bad[i].cmd) != -1)
			fail_msg("\"%s\" was accepted", bad[i].cmd);
		assert_string_equal(f->c.out.err, bad[i].err);
		assert_int_equal(f->c.sch.ip, MS(100));
		assert_int_equal(sch_ps(&f->c.sch), MS(80));
		assert_int_equal(f->c.sch.si, 10000 * MS(1));
		assert_int_equal(f->c.sch.mode, MODE_STATIC);
	}
	assert_string_equal(fixture_output(f), "");
}

/* PS longer than the RT runtime: IP 2s with 80% needs 1.6s. */
static void
test_rt_runtime(void **state)
{
	struct fixture	*f = *state;

	assert_int_equal(cmds_exec(&f->c, "si 1m"), 0);
	assert_int_equal(cmds_exec(&f->c, "ip 2s"), -1);
	assert_string_equal(f->c.out.err, "ip: PS 1.6s is longer than the "
	    "kernel's real-time runtime 950ms per 1s (sched_rt_runtime_us="
	    "950000, sched_rt_period_us=1000000): the gang would be throttled "
	    "in the middle of every PS; shorten IP");
	assert_int_equal(cmds_exec(&f->c, "ip 1s"), 0);
	assert_int_equal(cmds_exec(&f->c, "ps 900ms"), 0);
	assert_int_equal(cmds_exec(&f->c, "ip 2s"), 0);
	/* no limit: anything below IP goes */
	f->c.sch.rt.runtime_us = -1;
	assert_int_equal(cmds_exec(&f->c, "ps 1999ms"), 0);
	/* but HPDT only leaves the local user what RT throttling does */
	assert_int_equal(cmds_exec(&f->c, "mode hpdt"), -1);
	assert_string_equal(f->c.out.err, "mode: hpdt keeps the gang at "
	    "real-time priority all the time, but the kernel does not throttle "
	    "real-time tasks (sched_rt_runtime_us=-1 of sched_rt_period_us="
	    "1000000): local users would get nothing");
	assert_int_equal(f->c.sch.mode, MODE_STATIC);
}

/* Balanced and distributed take PS from Table 2.1: every entry counts. */
static void
test_balanced_table_budget(void **state)
{
	struct fixture	*f = *state;

	assert_int_equal(cmds_exec(&f->c, "si 1m"), 0);
	assert_int_equal(cmds_exec(&f->c, "ip 1s"), 0);
	assert_int_equal(cmds_exec(&f->c, "ps 500ms"), 0);
	assert_int_equal(cmds_exec(&f->c, "mode balanced"), 0);
	assert_int_equal(cmds_exec(&f->c, "ip 2s"), -1);
	assert_string_equal(f->c.out.err, "ip: with ip 2s, load.table entry 1 "
	    "(LS 10%) fails: PS 1.8s is longer than the kernel's real-time "
	    "runtime 950ms per 1s (sched_rt_runtime_us=950000, "
	    "sched_rt_period_us=1000000): the gang would be throttled in the "
	    "middle of every PS; shorten IP");
	assert_int_equal(cmds_exec(&f->c, "mode static"), 0);
	assert_int_equal(cmds_exec(&f->c, "ip 1.5s"), 0);
	assert_int_equal(cmds_exec(&f->c, "mode distributed"), -1);
	assert_string_equal(f->c.out.err, "mode: with ip 1.5s, load.table "
	    "entry 1 (LS 10%) fails: PS 1.35s is longer than the kernel's "
	    "real-time runtime 950ms per 1s (sched_rt_runtime_us=950000, "
	    "sched_rt_period_us=1000000): the gang would be throttled in the "
	    "middle of every PS; shorten IP");
	assert_int_equal(f->c.sch.mode, MODE_STATIC);
}

static void
test_share_follows_ip(void **state)
{
	struct fixture	*f = *state;

	assert_int_equal(cmds_exec(&f->c, "ps 80%"), 0);
	assert_int_equal(cmds_exec(&f->c, "ip 10ms"), 0);
	assert_int_equal(sch_ps(&f->c.sch), MS(8));
	assert_int_equal(cmds_exec(&f->c, "ip 1.25s"), -1);	/* si 10s ok */
	assert_int_equal(cmds_exec(&f->c, "ip 1s"), 0);
	assert_int_equal(sch_ps(&f->c.sch), MS(800));
	/* a duration is kept as such */
	assert_int_equal(cmds_exec(&f->c, "ps 300ms"), 0);
	assert_int_equal(cmds_exec(&f->c, "ip 500ms"), 0);
	assert_int_equal(sch_ps(&f->c.sch), MS(300));
}

static void
test_wire(void **state)
{
	struct fixture		*f = *state;
	struct proto_schedule	 p;
	const char		*err;
	uint64_t		 n;

	assert_int_equal(cmds_exec(&f->c, "ps 75%"), 0);
	assert_int_equal(cmds_exec(&f->c, "set sync clock"), 0);
	assert_int_equal(f->c.net.sent, 0);		/* not started: silent */
	assert_int_equal(cmds_exec(&f->c, "sync"), -1);
	assert_string_equal(f->c.out.err, "sync: not started (start first)");
	assert_int_equal(cmds_exec(&f->c, "start"), 0);
	assert_int_equal(f->c.net.sent, 1);
	assert_contains(fixture_output(f), "started: mode static, PS 75ms of "
	    "IP 100ms, SI 10s, sync clock; sent to 1 destination\n");
	sch_message(&f->c.sch, SCHED_F_SYNC, &p);
	assert_int_equal(proto_check_schedule(&p, &err), 0);
	assert_int_equal(p.flags, SCHED_F_ACTIVE | SCHED_F_SYNC);
	assert_int_equal(p.ps_us, 75000);
	assert_int_equal(p.ip_us, 100000);
	assert_int_equal(p.si_us, 10000000);
	assert_int_equal(p.mode, MODE_STATIC);
	assert_int_equal(p.sync, SYNC_CLOCK);
	assert_true(p.origin_ns != 0);
	/* every change goes out at once */
	assert_int_equal(cmds_exec(&f->c, "ps 70%"), 0);
	assert_int_equal(f->c.net.sent, 2);
	assert_int_equal(cmds_exec(&f->c, "mode balanced"), 0);
	assert_int_equal(f->c.net.sent, 3);
	assert_int_equal(cmds_exec(&f->c, "sync"), 0);
	assert_int_equal(f->c.net.sent, 4);
	assert_int_equal(cmds_exec(&f->c, "ps 1s"), -1);	/* not sent */
	assert_int_equal(f->c.net.sent, 4);
	assert_int_equal(cmds_exec(&f->c, "stop"), 0);
	assert_int_equal(f->c.net.sent, 5);
	sch_message(&f->c.sch, 0, &p);
	assert_int_equal(p.flags, 0);
	assert_false(f->c.sch.started);
	assert_true(f->c.sch.spoken);
	/* ls_policy idle rides on the flags, and goes out at once */
	assert_int_equal(cmds_exec(&f->c, "start"), 0);
	n = f->c.net.sent;
	assert_int_equal(cmds_exec(&f->c, "set ls_policy idle"), 0);
	assert_int_equal(f->c.net.sent, n + 1);
	sch_message(&f->c.sch, 0, &p);
	assert_int_equal(p.flags & (SCHED_F_ACTIVE | SCHED_F_LS_IDLE),
	    SCHED_F_ACTIVE | SCHED_F_LS_IDLE);
	assert_int_equal(proto_check_schedule(&p, &err), 0);
	assert_int_equal(cmds_exec(&f->c, "set ls_policy stop"), 0);
	sch_message(&f->c.sch, 0, &p);
	assert_int_equal(p.flags & SCHED_F_LS_IDLE, 0);
}

/* Clock sync: the origin stays for SIs, moves when IP or PS changes. */
static void
test_origin(void **state)
{
	struct fixture	*f = *state;
	int64_t		 o;

	assert_int_equal(cmds_exec(&f->c, "start"), 0);
	o = f->c.sch.origin_ns;
	master_timer(&f->c.e, f->c.m.next_si);	/* an SI broadcast */
	assert_int_equal(f->c.net.sent, 2);
	assert_int_equal(f->c.sch.origin_ns, o);
	assert_int_equal(cmds_exec(&f->c, "si 20s"), 0);
	assert_int_equal(f->c.sch.origin_ns, o);
	assert_int_equal(cmds_exec(&f->c, "ip 200ms"), 0);
	assert_true(f->c.sch.origin_ns > o);
}

int
main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, fixture_setup, \
    fixture_teardown)
	const struct CMUnitTest tests[] = {
		T(test_defaults),
		T(test_good_values),
		T(test_bad_values),
		T(test_rt_runtime),
		T(test_balanced_table_budget),
		T(test_share_follows_ip),
		T(test_wire),
		T(test_origin),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
