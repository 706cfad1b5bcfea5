/*
 * test_console_jobs.c - the gang matrix in the master: each node's own
 * SCHEDULE with its slot table, learnt from STATUS; a job that starts
 * or ends is in the tables once the round of replies is in; modes
 * without tables; broadcast (a STATUS_REQ finds nodes, each heard node
 * gets its own); `set weight JOB W`; `jobs` and `jobs --json`; the jobs
 * in `status`.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <jansson.h>
#include <sodium.h>
#include <stdlib.h>

#include "cmds.h"
#include "console_fixture.h"
#include "report.h"
#include "timeutil.h"
#include "wire.h"

/* Every message the net sent since the last tap_reset(), but the
 * JOB_MEM_REQs of room (counted in memreq, the highest index asked). */
#define TAP_MAX 64
static struct {
	int		 n;
	struct in_addr	 dst[TAP_MAX];
	struct proto_msg m[TAP_MAX];
	int		 memreq, mem_index_max;
} tap;

static void
tap_fn(void *arg, struct in_addr dst, const struct proto_msg *m)
{
	(void)arg;
	if (m->hdr.type == PROTO_JOB_MEM_REQ) {
		tap.memreq++;
		if ((int)m->u.job_mem_req.index > tap.mem_index_max)
			tap.mem_index_max = (int)m->u.job_mem_req.index;
	}
	else if (tap.n < TAP_MAX) {
		tap.dst[tap.n] = dst;
		tap.m[tap.n++] = *m;
	}
}

static void
tap_reset(void)
{
	tap.n = 0;
	tap.memreq = 0;
	tap.mem_index_max = -1;
}

/* The SCHEDULE sent to addr since tap_reset(), NULL if none; fails on
 * two. */
static const struct proto_schedule *
sched_to(const char *addr)
{
	const struct proto_schedule	*p = NULL;
	struct in_addr			 a = ip4(addr);
	const char			*err;
	int				 i;

	for (i = 0; i < tap.n; i++)
		if (tap.dst[i].s_addr == a.s_addr &&
		    tap.m[i].hdr.type == PROTO_SCHEDULE) {
			if (p != NULL)
				fail_msg("two SCHEDULEs to %s", addr);
			p = &tap.m[i].u.schedule;
		}
	/* what the node checks (v5: slots valid, apart, within PS) */
	if (p != NULL && proto_check_schedule(p, &err) == -1)
		fail_msg("SCHEDULE to %s: %s", addr, err);
	return p;
}

static void
check_slot(const struct proto_schedule *p, int k, const char *job,
    uint32_t start, uint32_t len)
{
	assert_non_null(p);
	assert_true(k < p->nslots);
	assert_string_equal(p->slot[k].job, job);
	assert_int_equal(p->slot[k].start_us, start);
	assert_int_equal(p->slot[k].len_us, len);
}

/* The free RAM the next STATUSes give (mem_mib; 0: unknown), and flags
 * they add (STATUS_F_SWAP). */
static uint32_t status_mib;
static uint8_t status_flags;

/* A STATUS from addr listing jobs "name:members" ... (NULL ends). */
static void
status_jobs(struct fixture *f, const char *addr, int64_t now, ...)
{
	struct proto_msg	 m;
	const char		*j;
	va_list			 ap;
	int			 k = 0;

	memset(&m, 0, sizeof(m));
	m.hdr.type = PROTO_STATUS;
	m.u.status.mode = MODE_STATIC;
	m.u.status.flags = SCHED_F_ACTIVE | STATUS_F_HEARD;
	m.u.status.ps_us = 80000;
	m.u.status.ip_us = 100000;
	snprintf(m.u.status.name, sizeof(m.u.status.name), "n%s",
	    strrchr(addr, '.') + 1);
	va_start(ap, now);
	while ((j = va_arg(ap, const char *)) != NULL) {
		size_t l = strcspn(j, "=");

		memcpy(m.u.status.job[k].job, j, l);
		m.u.status.job[k].members = (uint32_t)atoi(j + l + 1);
		if (strchr(j, '/') != NULL)	/* "NAME=MEMBERS/WEIGHT" */
			m.u.status.job[k].weight = (unsigned)atoi(
			    strchr(j, '/') + 1);
		m.u.status.members += m.u.status.job[k].members;
		k++;
	}
	va_end(ap);
	m.u.status.njobs = (uint8_t)k;
	m.u.status.mem_mib = status_mib;
	m.u.status.flags |= status_flags;
	master_datagram(&f->c.e, &m, ip4(addr), now);
}

/* A JOB_MEM from addr: job (number index) has 100 MiB, swap in swap. */
static void
job_mem(struct fixture *f, const char *addr, int64_t now, const char *job,
    uint32_t index, uint64_t swap)
{
	struct proto_msg	 m;

	memset(&m, 0, sizeof(m));
	m.hdr.type = PROTO_JOB_MEM;
	m.u.job_mem.index = index;
	m.u.job_mem.count = index + 1;
	snprintf(m.u.job_mem.job, sizeof(m.u.job_mem.job), "%s", job);
	m.u.job_mem.mem_bytes = 100 << 20;
	m.u.job_mem.swap_bytes = swap;
	master_datagram(&f->c.e, &m, ip4(addr), now);
}

static int
run_one(void *arg, const char *cmd, int lineno)
{
	(void)lineno;
	return cmds_exec(arg, cmd);
}

/* Commands separated by ';', as -c takes them: 0, or -1 at the first
 * that fails. */
static int
run(struct fixture *f, const char *script)
{
	return cmd_script_split(script, run_one, &f->c);
}

/* Three nodes in a list; the tap on. */
static void
three(struct fixture *f)
{
	struct in_addr	 a[3] = { ip4("10.0.0.1"), ip4("10.0.0.2"),
	    ip4("10.0.0.3") };

	net_set_list(&f->c.net, a, 3, "test");
	f->c.net.tap = tap_fn;
	tap_reset();
}

static void
test_tables_per_node(void **state)
{
	struct fixture			*f = *state;
	const struct proto_schedule	*p;
	int64_t				 t, si;

	three(f);
	assert_int_equal(run(f, "ip 100ms; ps 80%"), 0);
	assert_int_equal(cmds_exec(&f->c, "start"), 0);
	/* no job known: one SCHEDULE for all, no table */
	assert_int_equal(tap.n, 3);
	assert_int_equal(sched_to("10.0.0.1")->nslots, 0);
	assert_int_equal(f->c.m.mx_tables, 0);
	tap_reset();
	/* the replies: alice on all three, bob on 1 and 2 */
	t = f->c.m.last_send + MASTER_TABLES_GAP_NS / 2;
	status_jobs(f, "10.0.0.1", t, "alice:pvm=4", "bob:pvm=2", NULL);
	assert_int_equal(f->c.m.mx_pending, 1);
	assert_int_equal(tap.n, 0);		/* the round is not in */
	status_jobs(f, "10.0.0.2", t, "bob:pvm=2", "alice:pvm=4", NULL);
	assert_int_equal(tap.n, 0);
	status_jobs(f, "10.0.0.3", t, "alice:pvm=4", NULL);
	/* every node answered, but within MASTER_TABLES_GAP_NS of the
	 * last SCHEDULE: not yet */
	assert_int_equal(tap.n, 0);
	si = f->c.m.next_si;
	status_jobs(f, "10.0.0.3", f->c.m.last_send + MASTER_TABLES_GAP_NS,
	    "alice:pvm=4", NULL);
	/* then each its own table, without a SYNC; the SI's grid stays */
	assert_int_equal(tap.n, 3);
	assert_int_equal(f->c.m.mx_pending, 0);
	assert_int_equal(f->c.m.mx_tables, 1);
	assert_int_equal(f->c.m.next_si, si);
	p = sched_to("10.0.0.1");
	assert_int_equal(p->nslots, 2);
	assert_true(p->flags & SCHED_F_ACTIVE);
	assert_false(p->flags & SCHED_F_SYNC);
	check_slot(p, 0, "alice:pvm", 0, 40000);	/* 3 nodes: row 0 */
	check_slot(p, 1, "bob:pvm", 40000, 40000);
	p = sched_to("10.0.0.2");
	assert_int_equal(p->nslots, 2);
	check_slot(p, 0, "alice:pvm", 0, 40000);
	check_slot(p, 1, "bob:pvm", 40000, 40000);
	p = sched_to("10.0.0.3");
	assert_int_equal(p->nslots, 1);
	check_slot(p, 0, "alice:pvm", 0, 40000);
	assert_int_equal(p->slot[1].job[0], 0);
	/* the same replies again: nothing changes, nothing is sent */
	tap_reset();
	t = now_mono_ns();
	status_jobs(f, "10.0.0.1", t, "alice:pvm=4", "bob:pvm=2", NULL);
	status_jobs(f, "10.0.0.2", t, "bob:pvm=2", "alice:pvm=4", NULL);
	status_jobs(f, "10.0.0.3", t, "alice:pvm=4", NULL);
	assert_int_equal(tap.n, 0);
	/* every SI: the tables again, with the SYNC */
	master_timer(&f->c.e, f->c.m.next_si);
	assert_int_equal(tap.n, 3);
	assert_int_equal(sched_to("10.0.0.1")->nslots, 2);
	assert_true(sched_to("10.0.0.1")->flags & SCHED_F_SYNC);
	/* bob ends on node 2 (its gang emptied); node 3 is silent: the
	 * table goes out when the round is over, status_wait */
	tap_reset();
	t = now_mono_ns();
	status_jobs(f, "10.0.0.2", t, "alice:pvm=4", "bob:pvm=0", NULL);
	status_jobs(f, "10.0.0.1", t, "alice:pvm=4", "bob:pvm=2", NULL);
	assert_int_equal(tap.n, 0);
	assert_int_equal(master_deadline(&f->c.e), f->c.m.last_send +
	    f->c.conf.console.status_wait_ns);
	master_timer(&f->c.e, master_deadline(&f->c.e));
	assert_int_equal(tap.n, 3);
	assert_int_equal(sched_to("10.0.0.2")->nslots, 1);
	check_slot(sched_to("10.0.0.2"), 0, "alice:pvm", 0, 40000);
	assert_int_equal(sched_to("10.0.0.1")->nslots, 2);
	/* bob ends everywhere: back to one SCHEDULE without a table, and
	 * the replies to it change nothing (no SCHEDULE for every STATUS:
	 * the table last sent is forgotten with the tables; replies come
	 * after the last send, which master_timer above made) */
	tap_reset();
	t = f->c.m.last_send + MASTER_TABLES_GAP_NS;
	status_jobs(f, "10.0.0.1", t, "alice:pvm=4", NULL);
	status_jobs(f, "10.0.0.2", t, "alice:pvm=4", NULL);
	status_jobs(f, "10.0.0.3", t, "alice:pvm=4", NULL);
	assert_int_equal(f->c.m.mx_tables, 0);
	assert_int_equal(tap.n, 3);
	assert_int_equal(sched_to("10.0.0.1")->nslots, 0);
	tap_reset();
	t = f->c.m.last_send + 1000;
	status_jobs(f, "10.0.0.1", t, "alice:pvm=4", NULL);
	status_jobs(f, "10.0.0.2", t, "alice:pvm=4", NULL);
	status_jobs(f, "10.0.0.3", t, "alice:pvm=4", NULL);
	assert_int_equal(tap.n, 0);
	assert_int_equal(f->c.m.mx_pending, 0);
}

/* A job alone on its nodes shares a row with a job elsewhere. */
static void
test_disjoint(void **state)
{
	struct fixture			*f = *state;
	int64_t				 t;

	three(f);
	assert_int_equal(run(f, "ip 100ms; ps 80%; start"), 0);
	tap_reset();
	t = f->c.m.last_send + MASTER_TABLES_GAP_NS;
	status_jobs(f, "10.0.0.1", t, "alice:a=1", "carol:c=1", NULL);
	status_jobs(f, "10.0.0.2", t, "alice:a=1", NULL);
	status_jobs(f, "10.0.0.3", t, "bob:b=1", NULL);
	assert_int_equal(f->c.m.mx.nrows, 2);
	assert_int_equal(tap.n, 3);
	/* alice and bob share row 0; carol row 1 */
	check_slot(sched_to("10.0.0.3"), 0, "bob:b", 0, 40000);
	check_slot(sched_to("10.0.0.1"), 0, "alice:a", 0, 40000);
	check_slot(sched_to("10.0.0.1"), 1, "carol:c", 40000, 40000);
}

/* No table where it is not needed, or in modes without slots. */
static void
test_no_tables(void **state)
{
	struct fixture	*f = *state;
	int64_t		 t;
	int		 i;

	three(f);
	assert_int_equal(cmds_exec(&f->c, "start"), 0);
	t = now_mono_ns();
	/* one job per node: the same SCHEDULE for all */
	status_jobs(f, "10.0.0.1", t, "alice:a=1", NULL);
	status_jobs(f, "10.0.0.2", t, "bob:b=1", NULL);
	status_jobs(f, "10.0.0.3", t, "bob:b=1", NULL);
	assert_int_equal(f->c.m.mx_tables, 0);
	tap_reset();
	master_timer(&f->c.e, f->c.m.next_si);
	assert_int_equal(tap.n, 3);
	for (i = 0; i < 3; i++)
		assert_int_equal(tap.m[i].u.schedule.nslots, 0);
	/* two jobs on a node, but distributed, hpdt, off: none */
	status_jobs(f, "10.0.0.1", now_mono_ns(), "alice:a=1", "bob:b=1",
	    NULL);
	assert_int_equal(cmds_exec(&f->c, "mode distributed"), 0);
	tap_reset();
	master_timer(&f->c.e, f->c.m.next_si);
	assert_int_equal(tap.n, 3);
	assert_int_equal(sched_to("10.0.0.1")->nslots, 0);
	assert_int_equal(cmds_exec(&f->c, "mode hpdt"), 0);
	assert_int_equal(f->c.m.mx_tables, 0);
	assert_int_equal(cmds_exec(&f->c, "mode balanced"), 0);
	assert_int_equal(f->c.m.mx_tables, 1);
	/* stopped: none */
	tap_reset();
	assert_int_equal(cmds_exec(&f->c, "stop"), 0);
	assert_int_equal(sched_to("10.0.0.1")->nslots, 0);
	assert_false(sched_to("10.0.0.1")->flags & SCHED_F_ACTIVE);
}

/* Broadcast: each node heard gets its own; a STATUS_REQ finds others. */
static void
test_broadcast(void **state)
{
	struct fixture	*f = *state;
	int		 i, req = 0, sch = 0;

	f->c.net.how = NET_BROADCAST;
	f->c.net.tap = tap_fn;
	assert_int_equal(cmds_exec(&f->c, "start"), 0);
	status_jobs(f, "10.0.0.7", now_mono_ns(), "alice:a=1", "bob:b=1",
	    NULL);
	status_jobs(f, "10.0.0.8", now_mono_ns(), "bob:b=1", NULL);
	tap_reset();
	master_timer(&f->c.e, f->c.m.next_si);
	for (i = 0; i < tap.n; i++) {
		if (tap.m[i].hdr.type == PROTO_STATUS_REQ)
			req++;
		else
			sch++;
	}
	assert_true(req >= 1);	/* one per broadcast address */
	assert_int_equal(sch, 2);
	assert_int_equal(sched_to("10.0.0.7")->nslots, 2);
	check_slot(sched_to("10.0.0.8"), 0, "bob:b", 0, 40000);
}

static void
test_set_weight(void **state)
{
	struct fixture	*f = *state;
	const char	*out;
	int64_t		 t;

	three(f);
	assert_int_equal(run(f, "ip 100ms; ps 80%; start"), 0);
	t = now_mono_ns();
	status_jobs(f, "10.0.0.1", t, "alice:pvm=4", "bob:pvm=2", NULL);
	status_jobs(f, "10.0.0.2", t, "alice:pvm=4", "bob:pvm=2", NULL);
	status_jobs(f, "10.0.0.3", t, NULL);
	(void)fixture_output(f);
	/* bad ones: one line, nothing changed, nothing sent */
	tap_reset();
	assert_int_equal(cmds_exec(&f->c, "set weight carol: 2"), -1);
	assert_true(strncmp(f->c.out.err, "set weight: ", 12) == 0);
	assert_non_null(strstr(f->c.out.err, "label"));
	assert_int_equal(cmds_exec(&f->c, "set weight "
	    "carolcarolcarolcarol:abcdefghijkl 2"), -1);
	assert_non_null(strstr(f->c.out.err, "too long"));
	assert_int_equal(cmds_exec(&f->c, "set weight bob:pvm 0"), -1);
	assert_string_equal(f->c.out.err, "set weight: 0 is out of range "
	    "[1, 100]");
	assert_int_equal(cmds_exec(&f->c, "set weight bob:pvm 101"), -1);
	assert_int_equal(cmds_exec(&f->c, "set weight bob:pvm 2.5"), -1);
	assert_string_equal(f->c.out.err, "set weight: \"2.5\" is not a "
	    "whole number");
	assert_int_equal(cmds_exec(&f->c, "set weight bob:pvm"), -1);
	assert_int_equal(tap.n, 0);
	assert_int_equal(f->c.jobw.n, 0);
	/* 3:1, sent at once */
	assert_int_equal(cmds_exec(&f->c, "set weight bob:pvm 3"), 0);
	assert_string_equal(fixture_output(f), "weight bob:pvm 3 (sent)\n");
	assert_int_equal(tap.n, 3);
	check_slot(sched_to("10.0.0.1"), 0, "alice:pvm", 0, 20000);
	check_slot(sched_to("10.0.0.1"), 1, "bob:pvm", 20000, 60000);
	assert_int_equal(cmds_exec(&f->c, "show"), 0);
	out = fixture_output(f);
	assert_contains(out, "\njob weights  bob:pvm 3; others 1\n");
	/* a host's weight is still a host's */
	assert_int_equal(cmds_exec(&f->c, "set weight n1 2"), 0);
	assert_int_equal(f->c.jobw.n, 1);
	/* bob ends and comes back: its weight stays */
	t = now_mono_ns();
	status_jobs(f, "10.0.0.1", t, "alice:pvm=4", NULL);
	status_jobs(f, "10.0.0.2", t, "alice:pvm=4", NULL);
	/* (a job no node runs takes a weight, for when it starts) */
	(void)fixture_output(f);
	assert_int_equal(cmds_exec(&f->c, "set weight bob:pvm 3"), 0);
	assert_string_equal(fixture_output(f), "weight bob:pvm 3 (no node "
	    "runs it yet: kept for when one does)\n");
	status_jobs(f, "10.0.0.1", now_mono_ns(), "alice:pvm=4", "bob:pvm=1",
	    NULL);
	tap_reset();
	master_timer(&f->c.e, f->c.m.next_si);
	check_slot(sched_to("10.0.0.1"), 1, "bob:pvm", 20000, 60000);
	/* auto forgets it */
	tap_reset();
	assert_int_equal(cmds_exec(&f->c, "set weight bob:pvm auto"), 0);
	assert_int_equal(f->c.jobw.n, 0);
	check_slot(sched_to("10.0.0.1"), 1, "bob:pvm", 40000, 40000);
}

/* `jobs`, its round answered by n1 and n2 with a, b and n3 with none. */
static const char *
jobs_round(struct fixture *f, const char *a, const char *b)
{
	int64_t		 t;
	int		 rc;

	(void)fixture_output(f);
	assert_int_equal(cmds_exec(&f->c, "jobs"), 0);
	t = now_mono_ns();
	status_jobs(f, "10.0.0.1", t, a, b, NULL);
	status_jobs(f, "10.0.0.2", t, a, b, NULL);
	status_jobs(f, "10.0.0.3", t, NULL);
	master_timer(&f->c.e, t + SEC);
	assert_true(master_done(&f->c.e, &rc));
	assert_int_equal(rc, 0);
	return fixture_output(f);
}

/* A job's weight from its nodes' STATUS, unless the operator sets one. */
static void
test_node_weight(void **state)
{
	struct fixture		*f = *state;
	const char		*out;
	int64_t			 t;

	three(f);
	assert_int_equal(run(f, "ip 100ms; ps 80%; start"), 0);
	t = now_mono_ns();
	status_jobs(f, "10.0.0.1", t, "alice:s12=1/3", "bob:s13=1", NULL);
	status_jobs(f, "10.0.0.2", t, "alice:s12=1/3", "bob:s13=1", NULL);
	status_jobs(f, "10.0.0.3", t, NULL);
	(void)fixture_output(f);
	tap_reset();
	master_timer(&f->c.e, f->c.m.next_si);
	check_slot(sched_to("10.0.0.1"), 0, "alice:s12", 0, 60000);
	check_slot(sched_to("10.0.0.2"), 1, "bob:s13", 60000, 20000);
	out = jobs_round(f, "alice:s12=1/3", "bob:s13=1");
	assert_contains(out, "0       0.000    60.000  75.0%      3  ");
	assert_contains(out, "1      60.000    20.000  25.0%      1  ");
	assert_contains(out, "; weights: alice:s12 3 (slurm)\n");
	/* the operator's wins, 1 too */
	tap_reset();
	assert_int_equal(cmds_exec(&f->c, "set weight alice:s12 1"), 0);
	assert_string_equal(fixture_output(f), "weight alice:s12 1 (sent)\n");
	check_slot(sched_to("10.0.0.1"), 0, "alice:s12", 0, 40000);
	check_slot(sched_to("10.0.0.1"), 1, "bob:s13", 40000, 40000);
	out = jobs_round(f, "alice:s12=1/3", "bob:s13=1");
	assert_contains(out, "; weights: alice:s12 1\n");
	/* auto: the nodes' again */
	tap_reset();
	assert_int_equal(cmds_exec(&f->c, "set weight alice:s12 auto"), 0);
	assert_string_equal(fixture_output(f), "weight alice:s12 auto (its "
	    "nodes' if they give one, else 1) (sent)\n");
	check_slot(sched_to("10.0.0.1"), 0, "alice:s12", 0, 60000);
	/* a weight that changes alone (the same jobs, members) counts */
	t = now_mono_ns();
	status_jobs(f, "10.0.0.1", t, "alice:s12=1/3", "bob:s13=1/2", NULL);
	status_jobs(f, "10.0.0.2", t, "alice:s12=1/3", "bob:s13=1/2", NULL);
	tap_reset();
	master_timer(&f->c.e, f->c.m.next_si);
	check_slot(sched_to("10.0.0.1"), 0, "alice:s12", 0, 48000);
	check_slot(sched_to("10.0.0.1"), 1, "bob:s13", 48000, 32000);
	out = jobs_round(f, "alice:s12=1/3", "bob:s13=1/2");
	assert_contains(out, "; weights: alice:s12 3 (slurm), bob:s13 2 "
	    "(slurm)\n");
}

static json_t *
output_json(struct fixture *f)
{
	json_error_t	 e;
	json_t		*j = json_loads(fixture_output(f), 0, &e);

	if (j == NULL)
		fail_msg("not JSON: %s", e.text);
	return j;
}

static void
test_jobs_command(void **state)
{
	struct fixture	*f = *state;
	const char	*out;
	json_t		*j, *r, *n;
	int64_t		 t;
	int		 rc;

	three(f);
	assert_int_equal(cmds_exec(&f->c, "jobs -v"), -1);
	assert_string_equal(f->c.out.err, "jobs: unknown option \"-v\" "
	    "(usage: jobs [--json])");
	/* not started: the matrix all the same, from the replies */
	assert_int_equal(run(f, "ip 100ms; ps 80%; jobs"), 0);
	t = now_mono_ns();
	status_jobs(f, "10.0.0.1", t, "alice:pvm=4", "bob:pvm=2", NULL);
	status_jobs(f, "10.0.0.2", t, "alice:pvm=4", NULL);
	status_jobs(f, "10.0.0.3", t, "carol:x=1", NULL);
	(void)fixture_output(f);
	master_timer(&f->c.e, t + SEC);
	assert_true(master_done(&f->c.e, &rc));
	assert_int_equal(rc, 0);
	out = fixture_output(f);
	assert_contains(out, "mode static, PS 80ms: not started: no slot "
	    "table sent\n");
	assert_contains(out, "ROW  START_MS    LEN_MS  SHARE WEIGHT  n1       "
	    "  n2         n3     \n");
	assert_contains(out, "0       0.000    40.000  50.0%      1  "
	    "alice:pvm  alice:pvm  carol:x\n");
	assert_contains(out, "1      40.000    40.000  50.0%      1  "
	    "bob:pvm    -          -      \n");
	assert_contains(out, "2 rows, 3 jobs on 3 nodes\n");
	/* --json */
	assert_int_equal(cmds_exec(&f->c, "start"), 0);
	assert_int_equal(cmds_exec(&f->c, "set weight bob:pvm 3"), 0);
	(void)fixture_output(f);
	assert_int_equal(cmds_exec(&f->c, "jobs --json"), 0);
	t = now_mono_ns();
	status_jobs(f, "10.0.0.1", t, "alice:pvm=4", "bob:pvm=2", NULL);
	status_jobs(f, "10.0.0.2", t, "alice:pvm=4", NULL);
	status_jobs(f, "10.0.0.3", t, "carol:x=1", NULL);
	(void)fixture_output(f);
	master_timer(&f->c.e, t + SEC);
	assert_true(master_done(&f->c.e, &rc));
	j = output_json(f);
	assert_true(json_is_true(json_object_get(j, "slot_tables")));
	assert_int_equal(json_integer_value(json_object_get(j, "ps_us")),
	    80000);
	r = json_array_get(json_object_get(j, "rows"), 1);
	assert_int_equal(json_integer_value(json_object_get(r, "start_us")),
	    20000);
	assert_int_equal(json_integer_value(json_object_get(r, "weight")), 3);
	assert_string_equal(json_string_value(json_array_get(
	    json_object_get(r, "jobs"), 0)), "bob:pvm");
	n = json_array_get(json_object_get(j, "nodes"), 0);
	assert_string_equal(json_string_value(json_object_get(n, "address")),
	    "10.0.0.1");
	assert_int_equal(json_array_size(json_object_get(n, "jobs")), 2);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j,
	    "weights"), "bob:pvm")), 3);
	json_decref(j);
	/* nobody answers */
	assert_int_equal(cmds_exec(&f->c, "jobs"), 0);
	master_timer(&f->c.e, now_mono_ns() + SEC);
	assert_true(master_done(&f->c.e, &rc));
	assert_int_equal(rc, -1);
	assert_string_equal(f->c.out.err, "jobs: no node answered within "
	    "300ms");
}

/* `jobs` (a round of replies from every node) into the output. */
static const char *
room_jobs_cmd(struct fixture *f, int64_t t, uint32_t mib2, const char *cmd)
{
	int	 rc;

	(void)fixture_output(f);
	assert_int_equal(cmds_exec(&f->c, cmd), 0);
	status_mib = 4096;
	status_jobs(f, "10.0.0.1", t, "alice:big=4", "bob:pvm=2", NULL);
	status_mib = mib2;
	status_jobs(f, "10.0.0.2", t, "alice:big=4", NULL);
	status_jobs(f, "10.0.0.3", t, "bob:pvm=2", NULL);
	master_timer(&f->c.e, t + SEC);
	assert_true(master_done(&f->c.e, &rc));
	assert_int_equal(rc, 0);
	return fixture_output(f);
}

static const char *
room_jobs(struct fixture *f, int64_t t, uint32_t mib2)
{
	return room_jobs_cmd(f, t, mib2, "jobs");
}

/*
 * Room (dts(8), MEMORY): alice:big on n1 and n2, bob:pvm on n1 and n3.
 * n2's free RAM falls under what alice:big has in swap there plus
 * console.resume_reserve (256M): the job is held (no slot; n1 and n2
 * get it as held, n3 does not), bob:pvm gets the whole PS, `jobs` says
 * why; when n2 has room again it gets its slot back.
 */
static void
test_hold(void **state)
{
	struct fixture			*f = *state;
	const struct proto_schedule	*p;
	const char			*out;
	json_t				*root, *j, *h;
	int64_t				 t;

	three(f);
	assert_int_equal(run(f, "ip 100ms; ps 80%; start"), 0);
	tap_reset();
	t = f->c.m.last_send + MASTER_TABLES_GAP_NS;
	status_mib = 4096;
	status_jobs(f, "10.0.0.1", t, "alice:big=4", "bob:pvm=2", NULL);
	status_jobs(f, "10.0.0.2", t, "alice:big=4", NULL);
	status_jobs(f, "10.0.0.3", t, "bob:pvm=2", NULL);
	assert_int_equal(tap.memreq, 0);	/* no node swaps: no ask */
	p = sched_to("10.0.0.1");
	assert_int_equal(p->nslots, 2);
	assert_int_equal(p->nheld, 0);
	/* no JOB_MEM from n2 yet: "-"; n1's alone decides nothing */
	job_mem(f, "10.0.0.1", t, "alice:big", 0, 300 << 20);
	job_mem(f, "10.0.0.1", t, "bob:pvm", 1, 0);
	tap_reset();
	out = room_jobs(f, t, 400);
	assert_int_equal(tap.memreq, 2 * 3);	/* jobs: index 0, 1 to each */
	assert_int_equal(tap.mem_index_max, 1);
	assert_contains(out, "JOB       NODES         MEM        SWAP  "
	    "STATE\n");
	assert_contains(out, "alice:big     2           -           -  "
	    "slotted\n");
	/* n2 swaps (STATUS_F_SWAP): the master asks its job's memory, once
	 * a second at most; a STATUS without it has no swap (n1's above) */
	status_flags = STATUS_F_SWAP;
	t += MASTER_TABLES_GAP_NS;
	tap_reset();
	status_jobs(f, "10.0.0.2", t, "alice:big=4", NULL);
	assert_int_equal(tap.memreq, 1);
	status_jobs(f, "10.0.0.2", t + 1, "alice:big=4", NULL);
	assert_int_equal(tap.memreq, 1);
	assert_int_equal(f->c.nodes.v[0].jm[0].swap_bytes, 0);
	job_mem(f, "10.0.0.1", t, "alice:big", 0, 300 << 20);
	/* n2: 300 MiB of it in swap, 400 MiB free (needs 556 MiB) */
	tap_reset();
	job_mem(f, "10.0.0.2", t, "alice:big", 0, 300 << 20);
	assert_int_equal(f->c.m.nheld, 1);
	assert_int_equal(f->c.m.mx_tables, 1);
	p = sched_to("10.0.0.1");
	assert_int_equal(p->nslots, 1);
	check_slot(p, 0, "bob:pvm", 0, 80000);
	assert_int_equal(p->nheld, 1);
	assert_string_equal(p->slot[1].job, "alice:big");
	p = sched_to("10.0.0.2");
	assert_int_equal(p->nslots, 0);
	assert_int_equal(p->nheld, 1);
	assert_string_equal(p->slot[0].job, "alice:big");
	p = sched_to("10.0.0.3");
	assert_int_equal(p->nheld, 0);
	check_slot(p, 0, "bob:pvm", 0, 80000);
	out = room_jobs(f, t, 400);
	assert_contains(out, "alice:big     2   200.0 MiB   600.0 MiB  held: "
	    "n2 has 400.0 MiB free, needs 556.0 MiB (its swap there + "
	    "console.resume_reserve)\n");
	assert_contains(out, "bob:pvm       2           -           -  "
	    "slotted\n");		/* no JOB_MEM from n3 */
	out = room_jobs_cmd(f, t, 400, "jobs --json");
	root = json_loads(out, 0, NULL);
	assert_non_null(root);
	j = json_array_get(json_object_get(root, "jobs"), 0);
	assert_string_equal(json_string_value(json_object_get(j, "job")),
	    "alice:big");
	assert_true(json_is_true(json_object_get(j, "held")));
	assert_int_equal(json_integer_value(json_object_get(j,
	    "swap_bytes")), 600 << 20);
	h = json_object_get(j, "held_by");
	assert_string_equal(json_string_value(json_object_get(h, "node")),
	    "n2");
	assert_int_equal(json_integer_value(json_object_get(h, "need_bytes")),
	    556 << 20);
	j = json_array_get(json_object_get(root, "jobs"), 1);
	assert_true(json_is_null(json_object_get(j, "memory_bytes")));
	assert_true(json_is_null(json_object_get(j, "held_by")));
	json_decref(root);
	/* the same again: nothing to send */
	tap_reset();
	status_mib = 400;
	status_jobs(f, "10.0.0.2", t, "alice:big=4", NULL);
	job_mem(f, "10.0.0.2", t, "alice:big", 0, 300 << 20);
	assert_int_equal(tap.n, 0);
	/* room again on n2: its slot back */
	t += MASTER_TABLES_GAP_NS;
	status_mib = 600;
	status_jobs(f, "10.0.0.2", t, "alice:big=4", NULL);
	status_jobs(f, "10.0.0.1", t, "alice:big=4", "bob:pvm=2", NULL);
	status_jobs(f, "10.0.0.3", t, "bob:pvm=2", NULL);
	assert_int_equal(f->c.m.nheld, 0);
	p = sched_to("10.0.0.1");
	assert_int_equal(p->nslots, 2);
	assert_int_equal(p->nheld, 0);
	p = sched_to("10.0.0.2");
	assert_int_equal(p->nheld, 0);
	/* not in DISTRIBUTED: no table, nothing held */
	status_mib = 100;
	assert_int_equal(cmds_exec(&f->c, "mode distributed"), 0);
	t += MASTER_TABLES_GAP_NS;
	status_jobs(f, "10.0.0.2", t, "alice:big=4", NULL);
	master_matrix(&f->c.e, t);
	assert_int_equal(f->c.m.nheld, 0);
	assert_int_equal(f->c.m.mx_tables, 0);
	status_mib = 0;
	status_flags = 0;
}

static void
test_status_shows_jobs(void **state)
{
	struct fixture	*f = *state;
	const char	*out;
	json_t		*j, *a;
	int64_t		 t = now_mono_ns();
	int		 rc;

	assert_int_equal(master_status(&f->c.e, MASTER_STATUS, 0, t), 0);
	status_jobs(f, "10.0.0.1", t, "alice:pvm=4", "bob:mpi=2", NULL);
	master_timer(&f->c.e, t + SEC);
	assert_true(master_done(&f->c.e, &rc));
	out = fixture_output(f);
	assert_contains(out, "\n    jobs: alice:pvm (4), bob:mpi (2)\n");
	assert_int_equal(master_status(&f->c.e, MASTER_STATUS, MASTER_JSON,
	    t + 2 * SEC), 0);
	status_jobs(f, "10.0.0.1", t + 2 * SEC, "alice:pvm=4", NULL);
	master_timer(&f->c.e, t + 3 * SEC);
	assert_true(master_done(&f->c.e, &rc));
	j = output_json(f);
	a = json_object_get(json_array_get(json_object_get(j, "nodes"), 0),
	    "jobs");
	assert_int_equal(json_array_size(a), 1);
	assert_string_equal(json_string_value(json_object_get(
	    json_array_get(a, 0), "job")), "alice:pvm");
	assert_int_equal(json_integer_value(json_object_get(
	    json_array_get(a, 0), "members")), 4);
	json_decref(j);
}

extern int stub_pvm_calls;

/*
 * Without its key pair (or the nodes' secret) a console starts, runs the
 * PVM commands and changes its own settings, and sends nothing: every
 * command that would talk to dts says why in one line.
 */
static void
test_keyless(void **state)
{
	static const char *const refused[] = {
		"start", "takeover", "stop", "status", "jobs", "load",
		"metrics", "trace /dev/null",
	};
	struct fixture	*f = *state;
	struct dts_conf	 conf;
	struct net	 n;
	char		 err[256], want[512];
	size_t		 i;

	conf_defaults(&conf);
	snprintf(conf.console.sign_key, sizeof(conf.console.sign_key),
	    "/nonexistent/console.key");
	assert_int_equal(net_init(&n, &conf, 0, err, sizeof(err)), 0);
	assert_true(n.keyless);
	assert_true(n.keyless_why[0] != 0);
	net_close(&n);
	f->c.net.keyless = 1;
	snprintf(f->c.net.keyless_why, sizeof(f->c.net.keyless_why),
	    "console.key: No such file or directory");
	f->c.net.tap = tap_fn;
	tap_reset();
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		char	 cmd[32];

		snprintf(cmd, sizeof(cmd), "%.*s", (int)strcspn(refused[i],
		    " "), refused[i]);
		assert_int_equal(cmds_exec(&f->c, refused[i]), -1);
		if (strcmp(cmd, "status") == 0 || strcmp(cmd, "jobs") == 0)
			/* no console_keys: no read key either */
			snprintf(want, sizeof(want), "%s: no console key "
			    "(console.key: No such file or directory), and no "
			    "console_keys, so no read key either", cmd);
		else
			snprintf(want, sizeof(want), "%s: no console key "
			    "(console.key: No such file or directory): this "
			    "console runs the PVM commands, and status and "
			    "jobs read-only (see KEYS in dts-console(1))", cmd);
		assert_string_equal(f->c.out.err, want);
	}
	assert_false(f->c.sch.started);
	assert_false(master_busy(&f->c.e));
	assert_int_equal(f->c.net.sent, 0);
	assert_int_equal(tap.n, 0);
	/* its own settings, and PVM */
	assert_int_equal(cmds_exec(&f->c, "ps 50%"), 0);
	stub_pvm_calls = 0;
	(void)cmds_exec(&f->c, "conf");
	(void)cmds_exec(&f->c, "spawn -n 2 prog");
	assert_int_equal(stub_pvm_calls, 2);
}

/*
 * A keyless console with console_keys: status and jobs go out as read
 * requests (STATUS_REQ, key_id AUTH_READ_ID, the read key's tag), and
 * nothing else does; what comes back is taken only as a STATUS or a JOB
 * under a read key.
 */
static void
test_keyless_reader(void **state)
{
	static const char *const refused[] = {
		"start", "takeover", "stop", "load", "metrics",
		"trace /dev/null",
	};
	struct fixture	*f = *state;
	struct auth_key	 con = { 0 }, node = { 0 }, other = { 0 };
	struct seqgen	 g;
	struct proto_msg m, got;
	struct in_addr	 from = { .s_addr = htonl(0x7f000001) };
	uint8_t		 buf[PROTO_MAX_DGRAM], seed[32] = { 1 };
	char		 pub[2 * AUTH_PUB_LEN + 1], err[256];
	int		 n;
	size_t		 i;

	/* a console key pair, and its public key as console_keys has it */
	crypto_sign_seed_keypair(buf, con.sk, seed);
	auth_signer_public(&con, pub);
	f->c.net.keyless = 1;
	snprintf(f->c.net.keyless_why, sizeof(f->c.net.keyless_why),
	    "console.key: No such file or directory");
	assert_int_equal(auth_pub_add(&f->c.net.rkey, pub, err, sizeof(err)),
	    0);
	f->c.net.tap = tap_fn;
	tap_reset();
	for (i = 0; i < 2; i++) {
		assert_int_equal(cmds_exec(&f->c, i == 0 ? "status" : "jobs"),
		    0);
		assert_true(tap.n >= 1);
		assert_int_equal(tap.m[tap.n - 1].hdr.type, PROTO_STATUS_REQ);
		assert_int_equal(tap.m[tap.n - 1].hdr.key_id, AUTH_READ_ID);
		assert_int_equal(master_cancel(&f->c.e), 1);
	}
	n = tap.n;
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		assert_int_equal(cmds_exec(&f->c, refused[i]), -1);
	/* the console's own settings: taken, and nothing is sent */
	assert_int_equal(cmds_exec(&f->c, "set weight a:b 2"), 0);
	assert_int_equal(cmds_exec(&f->c, "mode static"), 0);
	assert_int_equal(tap.n, n);
	assert_false(f->c.sch.started);

	/* a STATUS under the read key passes, under the node's key not */
	assert_int_equal(auth_pub_add(&node, pub, err, sizeof(err)), 0);
	memcpy(other.key, node.read[0], sizeof(other.key));
	seqgen_init(&g);
	memset(&m, 0, sizeof(m));
	m.hdr.type = PROTO_STATUS;
	snprintf(m.u.status.name, sizeof(m.u.status.name), "n1");
	n = proto_seal(&other, &g, now_mono_us(), &m, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal(net_accept(&f->c.net, buf, (size_t)n, from, &got),
	    0);
	assert_string_equal(got.u.status.name, "n1");
	other.key[0] ^= 1;
	n = proto_seal(&other, &g, now_mono_us(), &m, buf, sizeof(buf));
	assert_int_equal(net_accept(&f->c.net, buf, (size_t)n, from, &got),
	    -1);
	/* a LOAD under the read key: not an answer to a read request */
	other.key[0] ^= 1;
	memset(&m, 0, sizeof(m));
	m.hdr.type = PROTO_LOAD;
	n = proto_seal(&other, &g, now_mono_us(), &m, buf, sizeof(buf));
	assert_int_equal(net_accept(&f->c.net, buf, (size_t)n, from, &got),
	    -1);
}

int
main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, fixture_setup, \
    fixture_teardown)
	const struct CMUnitTest tests[] = {
		T(test_tables_per_node),
		T(test_disjoint),
		T(test_no_tables),
		T(test_broadcast),
		T(test_set_weight),
		T(test_node_weight),
		T(test_jobs_command),
		T(test_hold),
		T(test_status_shows_jobs),
		T(test_keyless),
		T(test_keyless_reader),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
