/*
 * test_console_master.c - the master loop on injected time: SI
 * broadcasts, BALANCED reacting to STATUS/LOAD with hysteresis once
 * the first round of replies is in, nodes timing out of the RLA, status
 * rounds and their table (skew), Ctrl-C (master_cancel) and a trace's
 * end, and the checks on incoming datagrams (bad MAC, replay, own, wrong
 * type, junk).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <sodium.h>

#include <arpa/inet.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "auth.h"
#include "cmds.h"
#include "console_fixture.h"
#include "report.h"
#include "timeutil.h"
#include "unit_util.h"
#include "wire.h"

static void
status_from(struct fixture *f, const char *addr, const char *name, double q,
    uint64_t last_ps, int64_t now)
{
	struct proto_msg	 m;

	memset(&m, 0, sizeof(m));
	m.hdr.type = PROTO_STATUS;
	m.u.status.mode = MODE_STATIC;
	m.u.status.flags = SCHED_F_ACTIVE | STATUS_F_HEARD;
	m.u.status.phase = PHASE_PS;
	m.u.status.ps_us = 80000;
	m.u.status.ip_us = 100000;
	m.u.status.si_us = 10000000;
	m.u.status.load_milli = (uint32_t)(q * 1000 + 0.5);
	m.u.status.last_ps_ns = last_ps;
	m.u.status.slices = 42;
	m.u.status.rejected[REJ_MAC] = 2;
	snprintf(m.u.status.name, sizeof(m.u.status.name), "%s", name);
	master_datagram(&f->c.e, &m, ip4(addr), now);
}

static void
test_si_broadcasts(void **state)
{
	struct fixture	*f = *state;
	int64_t		 t;

	assert_int_equal(master_deadline(&f->c.e), 0);	/* silent */
	assert_int_equal(cmds_exec(&f->c, "si 1s"), 0);
	assert_int_equal(f->c.net.sent, 0);
	assert_int_equal(cmds_exec(&f->c, "start"), 0);
	assert_int_equal(f->c.net.sent, 1);
	t = master_deadline(&f->c.e);
	assert_int_equal(t, f->c.m.next_si);
	master_timer(&f->c.e, t - 1);
	assert_int_equal(f->c.net.sent, 1);
	master_timer(&f->c.e, t);
	assert_int_equal(f->c.net.sent, 2);
	assert_int_equal(master_deadline(&f->c.e), t + SEC);
	master_timer(&f->c.e, t + 3 * SEC);	/* late: one send, not three */
	assert_int_equal(f->c.net.sent, 3);
	assert_int_equal(master_deadline(&f->c.e), t + 4 * SEC);
	/* a change goes out at once and the SI counts from there */
	assert_int_equal(cmds_exec(&f->c, "stop"), 0);
	assert_int_equal(f->c.net.sent, 4);
	assert_false(f->c.sch.started);
	/* still every SI */
	master_timer(&f->c.e, master_deadline(&f->c.e));
	assert_int_equal(f->c.net.sent, 5);
}

/* Every destination a message went to, in order. */
static struct in_addr	 tapped[64];
static int		 ntapped;

static void
tap(void *arg, struct in_addr dst, const struct proto_msg *m)
{
	(void)arg;
	if (m->hdr.type == PROTO_SCHEDULE && ntapped < 64)
		tapped[ntapped++] = dst;
}

/*
 * console.group: the SCHEDULE goes once, to the group, however many
 * nodes (with slot tables, the gang matrix, send_tables is unchanged).
 */
static void
test_group(void **state)
{
	struct fixture	*f = *state;
	struct in_addr	 list[3] = { ip4("10.0.0.1"), ip4("10.0.0.2"),
	    ip4("10.0.0.3") };

	net_set_list(&f->c.net, list, 3, "test");
	f->c.net.tap = tap;
	ntapped = 0;
	assert_int_equal(cmds_exec(&f->c, "start"), 0);
	assert_int_equal(ntapped, 3);		/* no group: each node */
	f->c.net.group = ip4("239.255.77.46");
	f->c.net.have_group = 1;
	ntapped = 0;
	assert_int_equal(cmds_exec(&f->c, "ps 60%"), 0);
	assert_int_equal(ntapped, 1);
	assert_int_equal(tapped[0].s_addr, ip4("239.255.77.46").s_addr);
	(void)fixture_output(f);
	assert_int_equal(cmds_exec(&f->c, "sync"), 0);
	assert_contains(fixture_output(f), "sync sent to 1 destination");
	/* every SI too */
	master_timer(&f->c.e, master_deadline(&f->c.e));
	assert_int_equal(ntapped, 3);
	assert_int_equal(tapped[2].s_addr, ip4("239.255.77.46").s_addr);
	/* hosts FILE: its hosts replace every destination, the group too */
	net_set_list(&f->c.net, list, 3, "test");
	ntapped = 0;
	assert_int_equal(cmds_exec(&f->c, "ps 50%"), 0);
	assert_int_equal(ntapped, 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(tapped[i].s_addr, list[i].s_addr);
}

static void
test_balanced(void **state)
{
	struct fixture	*f = *state;
	int64_t		 t = now_mono_ns();	/* commands read the clock */
	int		 sent;

	assert_int_equal(cmds_exec(&f->c, "mode balanced"), 0);
	assert_int_equal(cmds_exec(&f->c, "start"), 0);
	assert_int_equal(sch_ps(&f->c.sch), MS(80));	/* no RLA yet */
	sent = (int)f->c.net.sent;
	status_from(f, "10.0.0.1", "a", 0.3, 0, t);
	assert_int_equal(f->c.sch.bal_ls_pct, -1);	/* the round is on */
	t = master_deadline(&f->c.e);
	assert_int_equal(t, f->c.m.bal_until);
	master_timer(&f->c.e, t);				/* over */
	assert_int_equal(f->c.sch.bal_ls_pct, 10);
	assert_int_equal(sch_ps(&f->c.sch), MS(90));
	assert_int_equal((int)f->c.net.sent, sent + 1);	/* at once */
	status_from(f, "10.0.0.1", "a", 0.8, 0, t);	/* +0.5: no */
	assert_int_equal(f->c.sch.bal_ls_pct, 10);
	assert_int_equal((int)f->c.net.sent, sent + 1);
	status_from(f, "10.0.0.1", "a", 1.2, 0, t);	/* +0.9 */
	assert_int_equal(f->c.sch.bal_ls_pct, 30);
	assert_int_equal(sch_ps(&f->c.sch), MS(70));
	assert_int_equal((int)f->c.net.sent, sent + 2);
	/* a second node: mean (1.2 + 3.2) / 2 = 2.2 */
	status_from(f, "10.0.0.2", "b", 3.2, 0, t);
	assert_int_equal(f->c.sch.bal_ls_pct, 50);
	assert_true(fabs(f->c.m.rla.mean - 2.2) < 1e-9);
	/* max: 3.2 */
	assert_int_equal(cmds_exec(&f->c, "set rla max"), 0);
	assert_int_equal(f->c.sch.bal_ls_pct, 70);
	/* weights: b counts half as much load per unit of Q */
	assert_int_equal(cmds_exec(&f->c, "set weight b 2"), 0);
	assert_true(fabs(f->c.m.rla.max - 1.6) < 1e-9);
	assert_int_equal(f->c.sch.bal_ls_pct, 40);
	/* a LOAD datagram counts like a STATUS */
	struct proto_msg m = { .hdr.type = PROTO_LOAD };
	m.u.load.load_milli = 5000;
	master_datagram(&f->c.e, &m, ip4("10.0.0.1"), t);
	assert_int_equal(f->c.sch.bal_ls_pct, 90);
	assert_int_equal(sch_ps(&f->c.sch), MS(10));
	/* leaving balanced mode: PS is the user's again */
	assert_int_equal(cmds_exec(&f->c, "mode static"), 0);
	assert_int_equal(f->c.sch.bal_ls_pct, -1);
	assert_int_equal(sch_ps(&f->c.sch), MS(80));
}

static char notice_buf[512];

static void
notice_keep(const char *msg)
{
	snprintf(notice_buf, sizeof(notice_buf), "%s", msg);
}

/*
 * After start and after `mode balanced`, the first decision waits for the
 * round of replies (console.status_wait, or every node known has
 * answered) and takes every reply: Q 0.4 alone is LS 10%, Q 4.0 alone
 * LS 80%, their mean 2.2 LS 50%.
 */
static void
test_balanced_round(void **state)
{
	struct fixture	*f = *state;
	int64_t		 t0 = now_mono_ns(), t, end;
	int		 sent;

	f->c.out.notice = notice_keep;
	notice_buf[0] = '\0';
	assert_int_equal(cmds_exec(&f->c, "mode balanced"), 0);
	assert_int_equal(cmds_exec(&f->c, "start"), 0);
	t = now_mono_ns();
	sent = (int)f->c.net.sent;
	/* no node known yet: the round lasts its whole status_wait */
	end = master_deadline(&f->c.e);
	assert_true(end >= t0 + MS(300) && end <= t + MS(300));
	status_from(f, "10.0.0.1", "a", 0.4, 0, t + MS(1));
	assert_int_equal(f->c.sch.bal_ls_pct, -1);
	status_from(f, "10.0.0.2", "b", 4.0, 0, t + MS(11));
	assert_int_equal(f->c.sch.bal_ls_pct, -1);
	master_timer(&f->c.e, end - 1);
	assert_int_equal(f->c.sch.bal_ls_pct, -1);
	assert_int_equal((int)f->c.net.sent, sent);
	assert_string_equal(notice_buf, "");
	master_timer(&f->c.e, end);
	assert_int_equal(f->c.m.rla.nlive, 2);
	assert_true(fabs(f->c.m.rla.mean - 2.2) < 1e-9);
	assert_int_equal(f->c.sch.bal_ls_pct, 50);
	assert_int_equal((int)f->c.net.sent, sent + 1);	/* sent at once */
	assert_string_equal(notice_buf, "balanced: RLA 2.20 over 2 nodes: "
	    "LS 50%, PS 50ms");
	assert_true(master_deadline(&f->c.e) > end);
	/* later replies decide as they come */
	status_from(f, "10.0.0.2", "b", 6.4, 0, end + MS(1));	/* 3.4 */
	assert_int_equal(f->c.sch.bal_ls_pct, 70);
}

/* With the nodes known, the round ends when all of them have answered. */
static void
test_balanced_round_known(void **state)
{
	struct fixture	*f = *state;
	int64_t		 t = now_mono_ns(), end;

	/* heard a second ago, in static mode: no decision */
	status_from(f, "10.0.0.1", "a", 0.4, 0, t - SEC);
	status_from(f, "10.0.0.2", "b", 0.4, 0, t - SEC);
	assert_int_equal(cmds_exec(&f->c, "start"), 0);
	/* balanced and back: static ends the wait */
	assert_int_equal(cmds_exec(&f->c, "mode balanced"), 0);
	assert_true(master_deadline(&f->c.e) <= now_mono_ns() + MS(300));
	assert_int_equal(cmds_exec(&f->c, "mode static"), 0);
	assert_true(master_deadline(&f->c.e) > now_mono_ns() + SEC);
	assert_int_equal(cmds_exec(&f->c, "mode balanced"), 0);
	end = master_deadline(&f->c.e);
	t = now_mono_ns();
	assert_true(end <= t + MS(300));
	status_from(f, "10.0.0.1", "a", 4.0, 0, t + MS(1));
	assert_int_equal(f->c.sch.bal_ls_pct, -1);
	assert_int_equal(master_deadline(&f->c.e), end);
	status_from(f, "10.0.0.2", "b", 4.2, 0, t + MS(11));
	assert_true(fabs(f->c.m.rla.mean - 4.1) < 1e-9);
	assert_int_equal(f->c.sch.bal_ls_pct, 90);	/* a alone: 80 */
	assert_true(master_deadline(&f->c.e) > end);
}

static void
test_node_timeout(void **state)
{
	struct fixture	*f = *state;
	int64_t		 t = now_mono_ns();
	int		 sent;

	assert_int_equal(cmds_exec(&f->c, "set timeout 30s"), 0);
	assert_int_equal(cmds_exec(&f->c, "si 12s"), 0);	/* 2 SIs < 30s */
	assert_int_equal(cmds_exec(&f->c, "mode balanced"), 0);
	assert_int_equal(cmds_exec(&f->c, "start"), 0);
	status_from(f, "10.0.0.1", "a", 4.0, 0, t);
	status_from(f, "10.0.0.2", "b", 0.0, 0, t + 20 * SEC);
	assert_true(f->c.m.rla.mean == 2.0);
	assert_int_equal(f->c.sch.bal_ls_pct, 40);
	/* the timer wakes up when "a" goes silent past the timeout */
	assert_int_equal(f->c.m.expiry, t + 30 * SEC + 1);
	master_timer(&f->c.e, t + 30 * SEC);	/* (an SI send, too) */
	assert_int_equal(f->c.sch.bal_ls_pct, 40);
	sent = (int)f->c.net.sent;
	master_timer(&f->c.e, t + 30 * SEC + 1);
	assert_int_equal(f->c.m.rla.nlive, 1);
	assert_int_equal(f->c.sch.bal_ls_pct, 10);	/* RLA 0 */
	assert_int_equal((int)f->c.net.sent, sent + 1);
	/* heard again: back in the RLA */
	status_from(f, "10.0.0.1", "a", 4.0, 0, t + 40 * SEC);
	assert_int_equal(f->c.m.rla.nlive, 2);
	assert_int_equal(f->c.sch.bal_ls_pct, 40);
	master_timer(&f->c.e, t + 71 * SEC);	/* both silent */
	assert_int_equal(f->c.m.rla.nlive, 0);
	assert_int_equal(f->c.sch.bal_ls_pct, 40);	/* kept */
}

static void
test_timeout_at_least_two_si(void **state)
{
	struct fixture	*f = *state;
	int64_t		 t = now_mono_ns();

	/* a node is heard only in its replies to the SI broadcasts, so a
	 * timeout shorter than two SIs would drop healthy nodes */
	assert_int_equal(cmds_exec(&f->c, "set timeout 2s"), 0);
	assert_int_equal(cmds_exec(&f->c, "si 60s"), 0);
	assert_int_equal(cmds_exec(&f->c, "mode balanced"), 0);
	assert_int_equal(cmds_exec(&f->c, "start"), 0);
	status_from(f, "10.0.0.1", "a", 4.0, 0, t);
	status_from(f, "10.0.0.2", "b", 0.0, 0, t);
	assert_true(con_node_timeout(&f->c) >= 120 * SEC);
	master_timer(&f->c.e, t + 30 * SEC);
	assert_int_equal(f->c.m.rla.nlive, 2);
	assert_true(f->c.m.rla.mean == 2.0);
	assert_int_equal(cmds_exec(&f->c, "show"), 0);
}

/* The output so far as one JSON document (it must parse). */
static json_t *
output_json(struct fixture *f)
{
	json_error_t	 e;
	json_t		*j = json_loads(fixture_output(f), 0, &e);

	if (j == NULL)
		fail_msg("not JSON: %s (line %d): %s", e.text, e.line,
		    fixture_output(f));
	return j;
}

static json_t *
node_at(json_t *root, size_t i)
{
	json_t	*n = json_array_get(json_object_get(root, "nodes"), i);

	assert_non_null(n);
	return n;
}

#define JINT(o, k)	json_integer_value(json_object_get((o), (k)))
#define JSTR(o, k)	json_string_value(json_object_get((o), (k)))

/* status --json, load --json, show --json: the schema of dts-console(1) */
static void
test_status_json(void **state)
{
	struct fixture	*f = *state;
	json_t		*j, *n, *o;
	int64_t		 t = now_mono_ns() / 2;	/* before the real round below */
	uint64_t	 ps0 = 1700000000000000000ULL;
	int		 rc;

	assert_int_equal(master_status(&f->c.e, 0, MASTER_JSON, t), 0);
	status_from(f, "10.0.0.2", "b\"q", 0.25, ps0 + 350 * 1000 +
	    100000000, t + MS(1));
	status_from(f, "10.0.0.1", "a", 1.5, ps0, t + MS(2));
	master_timer(&f->c.e, t + MS(300));
	assert_true(master_done(&f->c.e, &rc));
	assert_int_equal(rc, 0);
	j = output_json(f);
	assert_int_equal(JINT(j, "answered"), 2);
	assert_string_equal(JSTR(j, "skew_reference"), "10.0.0.1");
	n = node_at(j, 1);
	assert_string_equal(JSTR(n, "host"), "b\"q");	/* escaped */
	assert_string_equal(JSTR(n, "address"), "10.0.0.2");
	assert_true(json_is_true(json_object_get(n, "answered")));
	assert_string_equal(JSTR(n, "mode"), "static");
	assert_string_equal(JSTR(n, "phase"), "PS");
	assert_int_equal(JINT(n, "ps_us"), 80000);
	assert_int_equal(JINT(n, "ls_us"), 20000);
	assert_int_equal(JINT(n, "slices"), 42);
	assert_int_equal(JINT(n, "rejected_total"), 2);
	assert_int_equal(JINT(json_object_get(n, "rejected"), "mac"), 2);
	assert_float_equal(json_real_value(json_object_get(n, "q")), 0.25,
	    1e-9);
	assert_float_equal(json_real_value(json_object_get(n, "skew_us")),
	    350.0, 1e-6);
	assert_true(json_is_null(json_object_get(n, "master")));
	json_decref(j);

	/* nobody answers: the nodes are listed, answered false, no fields */
	assert_int_equal(cmds_exec(&f->c, "status --json"), 0);
	master_timer(&f->c.e, now_mono_ns() + SEC);
	assert_true(master_done(&f->c.e, &rc));
	assert_int_equal(rc, -1);
	j = output_json(f);
	assert_int_equal(JINT(j, "answered"), 0);
	n = node_at(j, 0);
	assert_true(json_is_false(json_object_get(n, "answered")));
	assert_null(json_object_get(n, "ps_us"));
	json_decref(j);

	/* load --json: Q, W, Q/W per node, the RLA */
	status_from(f, "10.0.0.1", "a", 1.5, ps0, now_mono_ns());
	assert_int_equal(cmds_exec(&f->c, "load --json"), 0);
	master_timer(&f->c.e, now_mono_ns() + SEC);
	assert_true(master_done(&f->c.e, &rc));
	j = output_json(f);
	assert_string_equal(JSTR(j, "mode"), "static");
	n = node_at(j, 0);
	assert_string_equal(JSTR(n, "w_from"), "1");
	assert_float_equal(json_real_value(json_object_get(n, "w")), 1.0,
	    1e-9);
	o = json_object_get(j, "rla");
	assert_non_null(o);
	assert_true(json_is_null(json_object_get(j, "balanced")));
	json_decref(j);

	/* show --json: every tunable */
	assert_int_equal(cmds_exec(&f->c, "ip 50ms"), 0);
	(void)fixture_output(f);
	assert_int_equal(cmds_exec(&f->c, "show --json"), 0);
	j = output_json(f);
	assert_int_equal(JINT(j, "ip_us"), 50000);
	assert_string_equal(JSTR(j, "ls_policy"), "stop");
	assert_true(json_is_array(json_object_get(json_object_get(j,
	    "table"), "ls_pct")));
	json_decref(j);
}

static void
test_status_round(void **state)
{
	struct fixture	*f = *state;
	const char	*out;
	int64_t		 t = now_mono_ns() / 2;	/* before the real round below */
	uint64_t	 ps0 = 1700000000000000000ULL;
	int		 rc;

	assert_int_equal(master_status(&f->c.e, 0, 1, t), 0);
	assert_true(master_busy(&f->c.e));
	assert_int_equal(master_deadline(&f->c.e), t + MS(300));
	status_from(f, "10.0.0.2", "b", 0.25, ps0 + 350 * 1000 + 100000000,
	    t + MS(1));
	status_from(f, "10.0.0.1", "a", 1.5, ps0, t + MS(2));
	master_timer(&f->c.e, t + MS(299));
	assert_true(master_busy(&f->c.e));
	master_timer(&f->c.e, t + MS(300));
	assert_false(master_busy(&f->c.e));
	assert_true(master_done(&f->c.e, &rc));
	assert_int_equal(rc, 0);
	assert_false(master_done(&f->c.e, &rc));	/* said once */
	out = fixture_output(f);
	assert_contains(out, "HOST             ADDRESS         MODE        "
	    "STATE      PS_US    LS_US PHASE      Q    SLICES OVERRUNS "
	    "REJECTED   SKEW_US MASTER          HEARD\n");
	assert_contains(out, "a                10.0.0.1        static      "
	    "slicing    80000    20000 PS      1.50        42        0        "
	    "2      +0.0 -               0.3s ago\n");
	assert_contains(out, "b                10.0.0.2        static      "
	    "slicing    80000    20000 PS      0.25        42        0        "
	    "2    +350.0 -               0.3s ago\n");
	assert_contains(out, "rejected: short 0, long 0, magic 0, type 0, "
	    "length 0, rate 0, mac 2, replay 0, range 0, master 0; "
	    "queue full 0\n");
	assert_contains(out, "2 nodes answered within 300ms; skew against "
	    "10.0.0.1; console dropped 0 datagrams (short 0,");
	/* nobody answers: a failure, with the known nodes listed */
	assert_int_equal(cmds_exec(&f->c, "status"), 0);
	master_timer(&f->c.e, now_mono_ns() + SEC);
	assert_true(master_done(&f->c.e, &rc));
	assert_int_equal(rc, -1);
	assert_string_equal(f->c.out.err, "status: no node answered within "
	    "300ms");
	out = fixture_output(f);
	assert_contains(out, "a                10.0.0.1        -           "
	    "no reply, last heard");
	/* load: the same round, then Q, W and the RLA; the table computes
	 * its own RLA and leaves the master's alone */
	assert_int_equal(master_status(&f->c.e, 1, 0, t + SEC), 0);
	status_from(f, "10.0.0.1", "a", 1.5, ps0, t + SEC);
	f->c.m.rla.mean = -7;
	master_timer(&f->c.e, t + 2 * SEC);
	assert_true(f->c.m.rla.mean == -7);
	out = fixture_output(f);
	assert_contains(out, "a                10.0.0.1          1.500   "
	    "1.000 1      1.500 yes");
	assert_contains(out, "RLA mean 0.875, max 1.500 over 2 live nodes; "
	    "mode static does not use it\n");
}

/* Ctrl-C: a status round ends at once, without its table, and says so. */
static void
test_cancel_status(void **state)
{
	struct fixture	*f = *state;
	int64_t		 t = 1000 * SEC;
	int		 rc;

	assert_int_equal(master_cancel(&f->c.e), 0);	/* nothing to cancel */
	assert_string_equal(fixture_output(f), "");
	assert_int_equal(master_status(&f->c.e, 0, 0, t), 0);
	assert_true(master_busy(&f->c.e));
	assert_int_equal(master_cancel(&f->c.e), 1);
	assert_false(master_busy(&f->c.e));
	assert_int_equal(master_deadline(&f->c.e), 0);
	assert_string_equal(fixture_output(f), "status: interrupted; no "
	    "table\n");
	master_timer(&f->c.e, t + SEC);			/* no table later */
	assert_false(master_done(&f->c.e, &rc));
	assert_string_equal(fixture_output(f), "");
}

/* Ctrl-C: a trace ends too (the file keeps what it has), with a status. */
static void
test_cancel_trace(void **state)
{
	struct fixture	*f = *state;
	char		 path[] = "/tmp/dts-test-trace.XXXXXX", cmd[64];
	char		 line[128];
	FILE		*csv;
	int		 fd, rc;

	assert_true((fd = mkstemp(path)) != -1);
	close(fd);
	snprintf(cmd, sizeof(cmd), "trace %s 1s", path);
	assert_int_equal(cmds_exec(&f->c, cmd), 0);
	assert_int_equal(master_status(&f->c.e, 1, 0, now_mono_ns()), 0);
	assert_true(master_busy(&f->c.e));
	(void)fixture_output(f);
	assert_int_equal(master_cancel(&f->c.e), 2);	/* both */
	assert_false(master_busy(&f->c.e));
	assert_int_equal(master_deadline(&f->c.e), 0);
	snprintf(line, sizeof(line), "load: interrupted; no table\n"
	    "trace: interrupted while recording; %s keeps the 0 edges "
	    "written\n", path);
	assert_string_equal(fixture_output(f), line);
	master_timer(&f->c.e, now_mono_ns() + 10 * SEC);
	assert_false(master_done(&f->c.e, &rc));
	assert_non_null(csv = fopen(path, "r"));
	assert_non_null(fgets(line, sizeof(line), csv));
	assert_string_equal(line, "host,addr,phase,real_ns,late_ns,op_ns\n");
	fclose(csv);
	unlink(path);
}

/* A trace that ends hands its result to the master, once. */
static void
test_trace_done(void **state)
{
	struct fixture	*f = *state;
	char		 path[] = "/tmp/dts-test-trace.XXXXXX", cmd[64];
	int		 fd, rc;

	assert_true((fd = mkstemp(path)) != -1);
	close(fd);
	snprintf(cmd, sizeof(cmd), "trace %s 10ms", path);
	assert_int_equal(cmds_exec(&f->c, cmd), 0);
	assert_false(master_done(&f->c.e, &rc));
	master_timer(&f->c.e, now_mono_ns() + SEC);	/* nobody was heard */
	assert_false(master_busy(&f->c.e));
	assert_true(master_done(&f->c.e, &rc));
	assert_int_equal(rc, -1);
	assert_string_equal(f->c.out.err, "trace: no node answered");
	assert_false(master_done(&f->c.e, &rc));
	unlink(path);
}

static void
test_incoming(void **state)
{
	struct fixture	*f = *state;
	struct auth_key	 con = { .insecure = 0 }, node = { 0 }, wrong = { 0 };
	struct seqgen	 g;
	struct proto_msg m, out;
	struct in_addr	 a1, a2;
	uint8_t		 buf[PROTO_MAX_DGRAM], junk[PROTO_MAX_DGRAM];
	uint8_t		 pk[AUTH_PUB_LEN];
	int		 n, i;

	inet_pton(AF_INET, "10.0.0.1", &a1);
	inet_pton(AF_INET, "10.0.0.2", &a2);
	/* the console: the nodes' secret and a key pair of its own */
	memset(con.key, 7, sizeof(con.key));
	con.derive = 1;
	crypto_sign_keypair(pk, con.sk);
	con.can_sign = 1;
	con.sign_id = auth_key_id(pk);
	f->c.net.key = con;
	/* the node at 10.0.0.1 holds only its own key */
	auth_node_key(con.key, a1.s_addr, node.key);
	memset(wrong.key, 8, sizeof(wrong.key));
	seqgen_init(&g);
	memset(&m, 0, sizeof(m));
	m.hdr.type = PROTO_STATUS;
	n = tu_seal(&node, &g, &m, buf);
	assert_int_equal(net_accept(&f->c.net, buf, (size_t)n, a1, &out), 0);
	assert_int_equal(net_accept(&f->c.net, buf, (size_t)n, a1, &out), -1);
	assert_int_equal(f->c.net.dropped[REJ_REPLAY], 1);
	/* node 10.0.0.1 cannot speak for 10.0.0.2 */
	n = tu_seal(&node, &g, &m, buf);
	assert_int_equal(net_accept(&f->c.net, buf, (size_t)n, a2, &out), -1);
	assert_int_equal(f->c.net.dropped[REJ_MAC], 1);
	n = tu_seal(&wrong, &g, &m, buf);
	assert_int_equal(net_accept(&f->c.net, buf, (size_t)n, a1, &out), -1);
	assert_int_equal(f->c.net.dropped[REJ_MAC], 2);
	m.hdr.type = PROTO_SCHEDULE;	/* another console's */
	m.u.schedule.ip_us = 100000;
	m.u.schedule.ps_us = 80000;
	m.u.schedule.si_us = 1000000;
	n = tu_seal(&con, &g, &m, buf);
	assert_int_equal(net_accept(&f->c.net, buf, (size_t)n, a1, &out), -1);
	assert_int_equal(f->c.net.dropped[REJ_TYPE], 1);
	n = tu_seal(&con, &f->c.net.seq, &m, buf);	/* our own broadcast */
	assert_int_equal(net_accept(&f->c.net, buf, (size_t)n, a1, &out), -1);
	assert_int_equal(f->c.net.own, 1);
	assert_int_equal(net_accept(&f->c.net, buf, 10, a1, &out), -1);
	assert_int_equal(f->c.net.dropped[REJ_SHORT], 1);
	/* random bytes never crash and are always counted */
	srand(1);
	for (i = 0; i < 2000; i++) {
		size_t len = (size_t)rand() % sizeof(junk);
		for (size_t j = 0; j < len; j++)
			junk[j] = (uint8_t)rand();
		if (i % 2 == 0 && len >= 8)
			memcpy(junk, buf, 8);	/* valid magic/type */
		assert_int_equal(net_accept(&f->c.net, junk, len, a1, &out),
		    -1);
	}
	assert_int_equal(net_dropped_total(&f->c.net), 2000 + 5);
	assert_int_equal(f->c.net.received, 1);
}

static void
master_status_from(struct fixture *f, const char *addr, uint8_t flags,
    const char *master, int64_t now)
{
	struct proto_msg	 m;

	memset(&m, 0, sizeof(m));
	m.hdr.type = PROTO_STATUS;
	m.u.status.mode = MODE_STATIC;
	m.u.status.flags = flags;
	m.u.status.ps_us = 80000;
	m.u.status.ip_us = 100000;
	m.u.status.si_us = 10000000;
	m.u.status.master = ntohl(ip4(master).s_addr);
	snprintf(m.u.status.name, sizeof(m.u.status.name), "a");
	master_datagram(&f->c.e, &m, ip4(addr), now);
}

/* A node taken over by another console: said once, with both addresses. */
/*
 * More nodes than a sender table holds (AUTH_SENDERS_MAX), half of them
 * with clocks 5 ms behind the rest, answering in that order: every reply
 * is taken, round after round.  A table of senders evicted the leaders
 * and raised its floor to their clocks, above the laggards' sequences.
 * Replays stay refused, a node's restart is taken once, its old sender's
 * datagrams no more, and forged sources leave no entry behind.
 */
#define MANY (4 * AUTH_SENDERS_MAX)

static void
test_many_nodes(void **state)
{
	struct fixture	*f = *state;
	static struct seqgen g[MANY];
	static uint8_t	 old[MANY / 8][PROTO_MAX_DGRAM];
	static int	 oldn[MANY / 8];
	struct auth_key	 node = { 0 };
	struct proto_msg m, out;
	struct in_addr	 a;
	uint8_t		 buf[PROTO_MAX_DGRAM];
	int		 round, i, n, npeer = f->c.net.npeer;

	memset(f->c.net.key.key, 7, sizeof(f->c.net.key.key));
	f->c.net.key.derive = 1;
	f->c.net.key.insecure = 0;
	f->c.net.keyless = 0;
	/* the console started a second ago, before the laggards' clocks */
	replay_init(&f->c.net.replay, now_real_us() - 1000000,
	    now_mono_us() - 1000000, 30000000);
	memset(&m, 0, sizeof(m));
	m.hdr.type = PROTO_STATUS;
	for (i = 0; i < MANY; i++) {
		seqgen_init(&g[i]);
		if (i >= MANY / 2)
			g[i].base_us -= 5000;	/* 5 ms behind */
	}
	for (round = 0; round < 3; round++) {
		for (i = 0; i < MANY; i++) {
			a.s_addr = htonl(0x0a010000u + (uint32_t)i);
			auth_node_key(f->c.net.key.key, a.s_addr, node.key);
			n = tu_seal(&node, &g[i], &m, buf);
			if (round == 0 && i % 8 == 0) {
				memcpy(old[i / 8], buf, (size_t)n);
				oldn[i / 8] = n;
			}
			if (net_accept(&f->c.net, buf, (size_t)n, a, &out) != 0)
				fail_msg("round %d: node %d refused", round, i);
		}
	}
	assert_int_equal(f->c.net.received, 3 * MANY);
	assert_int_equal(f->c.net.npeer, npeer + MANY);
	/* round 0's datagrams, again: every one refused */
	for (i = 0; i < MANY / 8; i++) {
		a.s_addr = htonl(0x0a010000u + (uint32_t)(8 * i));
		assert_int_equal(net_accept(&f->c.net, old[i], (size_t)oldn[i],
		    a, &out), -1);
	}
	assert_int_equal(f->c.net.dropped[REJ_REPLAY], MANY / 8);
	/* node 0 restarts: a new sender at its address is taken, and then
	 * its old sender's last datagram is no longer */
	a.s_addr = htonl(0x0a010000u);
	auth_node_key(f->c.net.key.key, a.s_addr, node.key);
	n = tu_seal(&node, &g[0], &m, buf);	/* before the restart */
	seqgen_init(&g[0]);
	g[0].base_us += 1000;	/* a restart takes a while: 1 ms */
	memcpy(old[0], buf, (size_t)n);
	oldn[0] = n;
	n = tu_seal(&node, &g[0], &m, buf);
	assert_int_equal(net_accept(&f->c.net, buf, (size_t)n, a, &out), 0);
	assert_int_equal(net_accept(&f->c.net, old[0], (size_t)oldn[0], a,
	    &out), -1);
	/* a forged reply from an address never heard makes no entry */
	npeer = f->c.net.npeer;	/* (the fixture's list seeded some) */
	a.s_addr = htonl(0x0b000001u);
	memset(node.key, 9, sizeof(node.key));
	n = tu_seal(&node, &g[1], &m, buf);
	assert_int_equal(net_accept(&f->c.net, buf, (size_t)n, a, &out), -1);
	assert_int_equal(f->c.net.npeer, npeer);
}

static void
test_master_lost(void **state)
{
	struct fixture	*f = *state;
	int64_t		 t = 1000 * SEC;
	const char	*out;
	uint64_t	 n;

	f->c.out.notice = notice_keep;
	notice_buf[0] = '\0';
	master_status_from(f, "10.0.0.1", SCHED_F_ACTIVE | STATUS_F_YOURS,
	    "10.0.0.9", t);
	master_status_from(f, "10.0.0.1", SCHED_F_ACTIVE | STATUS_F_YOURS,
	    "10.0.0.9", t + 1);
	assert_string_equal(notice_buf, "");
	master_status_from(f, "10.0.0.1", SCHED_F_ACTIVE, "10.0.0.7", t + 2);
	assert_string_equal(notice_buf, "node a (10.0.0.1) now follows the "
	    "console at 10.0.0.7: this console no longer commands it "
	    "(takeover takes it back)");
	notice_buf[0] = '\0';
	master_status_from(f, "10.0.0.1", SCHED_F_ACTIVE, "10.0.0.7", t + 3);
	assert_string_equal(notice_buf, "");	/* once */
	/* the status table names the master */
	assert_int_equal(master_status(&f->c.e, 0, 0, t + 4), 0);
	master_status_from(f, "10.0.0.1", SCHED_F_ACTIVE, "10.0.0.7", t + 5);
	master_timer(&f->c.e, t + 4 + MS(300));
	out = fixture_output(f);
	assert_contains(out, " 10.0.0.7        ");
	/* takeover starts and sends at once */
	n = f->c.net.sent;
	assert_int_equal(cmds_exec(&f->c, "takeover"), 0);
	assert_true(f->c.sch.started);
	assert_int_equal(f->c.net.sent, n + 1);
	assert_contains(fixture_output(f), "taken over: mode static");
}

int
main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, fixture_setup, \
    fixture_teardown)
	const struct CMUnitTest tests[] = {
		T(test_si_broadcasts),
		T(test_balanced),
		T(test_balanced_round),
		T(test_balanced_round_known),
		T(test_node_timeout),
		T(test_timeout_at_least_two_si),
		T(test_status_round),
		T(test_status_json),
		T(test_cancel_status),
		T(test_cancel_trace),
		T(test_trace_done),
		T(test_incoming),
		T(test_many_nodes),
		T(test_group),
		T(test_master_lost),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
