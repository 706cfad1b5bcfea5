/*
 * test_proto.c - wire encoding: round trips of every message and every
 * malformed case proto_decode() must reject, with its reason.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "auth.h"
#include "job.h"
#include "names.h"
#include "proto.h"
#include "timeutil.h"
#include "wire.h"

static struct proto_msg
sample_schedule(void)
{
	struct proto_msg m = { .hdr = { .type = PROTO_SCHEDULE, .sender = 0xdeadbeef,
	    .seq = 0x0102030405060708ull } };

	m.u.schedule = (struct proto_schedule){ .mode = MODE_BALANCED, .sync = SYNC_CLOCK,
	    .flags = SCHED_F_ACTIVE | SCHED_F_SYNC, .ps_us = 80000, .ip_us = 100000,
	    .si_us = 10000000, .origin_ns = 1763770000123456789ull };
	return m;
}

/* encode + a dummy tag, as it travels */
static int
wire(const struct proto_msg *m, uint8_t *buf, size_t cap)
{
	int n = proto_encode(m, buf, cap);

	assert_true(n > 0);
	memset(buf + n, 0xaa, proto_tag_len(m->hdr.type));
	return n + (int)proto_tag_len(m->hdr.type);
}

static void
test_schedule_roundtrip(void **state)
{
	struct proto_msg m = sample_schedule(), out;
	enum proto_reject why;
	uint8_t buf[PROTO_MAX_DGRAM];
	int n = wire(&m, buf, sizeof(buf));

	assert_int_equal(n, PROTO_HDR_LEN + PROTO_SCHEDULE_LEN + PROTO_SIG_LEN);
	/* network byte order on the wire */
	assert_int_equal(buf[0], 'D');
	assert_int_equal(buf[3], '1');
	assert_int_equal(buf[16], 0x01);
	assert_int_equal(buf[23], 0x08);
	assert_int_equal(proto_decode(buf, (size_t)n, &out, &why), 0);
	assert_int_equal(out.hdr.type, PROTO_SCHEDULE);
	assert_int_equal(out.hdr.length, PROTO_SCHEDULE_LEN);
	assert_int_equal(out.hdr.sender, 0xdeadbeef);
	assert_true(out.hdr.seq == 0x0102030405060708ull);
	assert_memory_equal(&out.u.schedule, &m.u.schedule, sizeof(m.u.schedule));
}

static void
test_status_roundtrip(void **state)
{
	struct proto_msg m = { .hdr = { .type = PROTO_STATUS, .seq = 7 } }, out;
	enum proto_reject why;
	uint8_t buf[PROTO_MAX_DGRAM];

	m.u.status.mode = MODE_HPDT;
	m.u.status.phase = PHASE_LS;
	m.u.status.load_milli = 2500;
	m.u.status.members = 17;
	m.u.status.slices = 1ull << 40;
	m.u.status.overruns = 3;
	m.u.status.last_ps_ns = 1763770000999999999ull;
	for (int i = 0; i < REJ_COUNT; i++)
		m.u.status.rejected[i] = (uint32_t)(i * 1000 + 1);
	strcpy(m.u.status.name, "node-with-a-name");
	int n = wire(&m, buf, sizeof(buf));
	assert_int_equal(n, PROTO_HDR_LEN + PROTO_STATUS_LEN + PROTO_MAC_LEN);
	assert_int_equal(proto_decode(buf, (size_t)n, &out, &why), 0);
	assert_memory_equal(&out.u.status, &m.u.status, sizeof(m.u.status));
}

static void
test_long_name_truncated(void **state)
{
	struct proto_msg m = { .hdr = { .type = PROTO_STATUS } }, out;
	enum proto_reject why;
	uint8_t buf[PROTO_MAX_DGRAM];

	memset(m.u.status.name, 'x', sizeof(m.u.status.name));	/* no NUL */
	int n = wire(&m, buf, sizeof(buf));
	assert_int_equal(proto_decode(buf, (size_t)n, &out, &why), 0);
	assert_int_equal(strlen(out.u.status.name), PROTO_NAME_LEN - 1);
}

static void
test_load_and_req_roundtrip(void **state)
{
	struct proto_msg m = { .hdr = { .type = PROTO_LOAD } }, out;
	enum proto_reject why;
	uint8_t buf[PROTO_MAX_DGRAM];

	m.u.load.load_milli = 4001;
	m.u.load.ncpu = 2;
	int n = wire(&m, buf, sizeof(buf));
	assert_int_equal(proto_decode(buf, (size_t)n, &out, &why), 0);
	assert_int_equal(out.u.load.load_milli, 4001);
	assert_int_equal(out.u.load.ncpu, 2);

	m.hdr.type = PROTO_STATUS_REQ;
	n = wire(&m, buf, sizeof(buf));
	/* a request is never smaller than the reply it asks for */
	assert_true(n >= PROTO_HDR_LEN + PROTO_STATUS_LEN + PROTO_MAC_LEN);
	assert_int_equal(proto_decode(buf, (size_t)n, &out, &why), 0);
	assert_int_equal(out.hdr.type, PROTO_STATUS_REQ);

	m.hdr.type = PROTO_METRICS_REQ;
	n = wire(&m, buf, sizeof(buf));
	assert_true(n >= PROTO_HDR_LEN + PROTO_METRICS_LEN + PROTO_MAC_LEN);
	assert_int_equal(proto_decode(buf, (size_t)n, &out, &why), 0);
	assert_int_equal(out.hdr.type, PROTO_METRICS_REQ);
	assert_true(proto_is_command(PROTO_METRICS_REQ));
	assert_false(proto_is_command(PROTO_METRICS));
}

static void
test_metrics_roundtrip(void **state)
{
	struct proto_msg m = { .hdr = { .type = PROTO_METRICS, .seq = 9 } }, out;
	struct proto_metrics *p = &m.u.metrics;
	enum proto_reject why;
	uint8_t buf[PROTO_MAX_DGRAM];

	p->uptime_ns = 1ull << 50;
	p->slices = 12345;
	p->ps_ns = 3;
	p->ls_ns = 4;
	p->stopped_ns = 5;
	p->gang_cpu_ns = UINT64_MAX;
	p->mode = MODE_DISTRIBUTED;
	p->phase = PHASE_PS;
	p->flags = SCHED_F_ACTIVE;
	p->ps_us = 70000;
	p->failsafe = 6;
	p->master_changes = 7;
	for (int i = 0; i < REJ_COUNT; i++)
		p->rejected[i] = (uint32_t)(i + 100);
	for (int i = 0; i < HIST_BUCKETS; i++) {
		p->late.n[i] = (uint32_t)(i * 7);
		p->op.n[i] = UINT32_MAX - (uint32_t)i;
	}
	p->late.sum_ns = 77;
	p->op.sum_ns = 88;
	strcpy(p->name, "metrics-node");
	int n = wire(&m, buf, sizeof(buf));
	assert_int_equal(n, PROTO_HDR_LEN + PROTO_METRICS_LEN + PROTO_MAC_LEN);
	assert_int_equal(proto_decode(buf, (size_t)n, &out, &why), 0);
	assert_memory_equal(&out.u.metrics, &m.u.metrics, sizeof(m.u.metrics));
}

/*
 * Every type's datagram fits; a node takes exactly the commands but
 * WEIGHT, a console the replies from its nodes and SCHEDULE and WEIGHT
 * from its peer; every type a console sends is signed.
 */
static void
test_every_type(void **state)
{
	unsigned peer = PROTO_TYPE_BIT(PROTO_WEIGHT);

	for (unsigned t = 1; t <= PROTO_TYPE_LAST; t++) {
		assert_true(proto_payload_len(t) > 0);
		assert_true(PROTO_HDR_LEN + (size_t)proto_payload_len(t) +
		    proto_tag_len(t) <= PROTO_MAX_DGRAM);
		assert_int_equal(!!((PROTO_ACCEPT_NODE | peer) &
		    PROTO_TYPE_BIT(t)), proto_is_command(t));
		assert_int_equal(!!(PROTO_ACCEPT_CONSOLE & PROTO_TYPE_BIT(t)),
		    !proto_is_command(t));
		assert_int_equal(proto_tag_len(t), proto_is_command(t) ?
		    PROTO_SIG_LEN : PROTO_MAC_LEN);
	}
	assert_int_equal(proto_payload_len(PROTO_TYPE_LAST + 1), -1);
	/* WEIGHT is the peer's only: no node takes it */
	assert_int_equal(PROTO_TYPE_LAST, PROTO_JOB_MEM);
	assert_false(PROTO_ACCEPT_NODE & peer);
	assert_int_equal(PROTO_ACCEPT_PEER, PROTO_TYPE_BIT(PROTO_SCHEDULE) |
	    peer);
}

static void
test_trace_roundtrip(void **state)
{
	struct proto_msg m = { .hdr = { .type = PROTO_TRACE } }, out;
	enum proto_reject why;
	uint8_t buf[PROTO_MAX_DGRAM];
	int k;

	m.u.trace.count = 3;
	m.u.trace.more = 1;
	for (int i = 0; i < 3; i++) {
		m.u.trace.edge[i].real_ns = 1763770000000000000ull + (uint64_t)i * 50000000;
		m.u.trace.edge[i].late_ns = 20000u + (uint32_t)i;
		m.u.trace.edge[i].op_ns = 7000u + (uint32_t)i;
		m.u.trace.edge[i].phase = i & 1 ? PHASE_LS : PHASE_PS;
	}
	int n = wire(&m, buf, sizeof(buf));
	assert_int_equal(n, PROTO_HDR_LEN + PROTO_TRACE_LEN + PROTO_MAC_LEN);
	assert_true(n <= PROTO_MAX_DGRAM);
	assert_int_equal(proto_decode(buf, (size_t)n, &out, &why), 0);
	assert_int_equal(out.u.trace.count, 3);
	assert_int_equal(out.u.trace.more, 1);
	for (int i = 0; i < 3; i++) {
		assert_true(out.u.trace.edge[i].real_ns == m.u.trace.edge[i].real_ns);
		assert_int_equal(out.u.trace.edge[i].late_ns, m.u.trace.edge[i].late_ns);
		assert_int_equal(out.u.trace.edge[i].op_ns, m.u.trace.edge[i].op_ns);
		assert_int_equal(out.u.trace.edge[i].phase, m.u.trace.edge[i].phase);
	}
	/* a count beyond what a datagram holds is out of range */
	buf[PROTO_HDR_LEN + 3] = PROTO_TRACE_MAX + 1;
	assert_int_equal(proto_decode(buf, (size_t)n, &out, &why), -1);
	assert_int_equal(why, REJ_RANGE);

	/* the request is never smaller than the reply */
	m.hdr.type = PROTO_TRACE_REQ;
	m.u.trace_req.since_ns = 123456789;
	k = wire(&m, buf, sizeof(buf));
	assert_true(k >= n);
	assert_int_equal(proto_decode(buf, (size_t)k, &out, &why), 0);
	assert_true(out.u.trace_req.since_ns == 123456789);
}

static void
test_encode_errors(void **state)
{
	struct proto_msg m = sample_schedule();
	uint8_t buf[PROTO_MAX_DGRAM];

	assert_int_equal(proto_encode(&m, buf, 10), -1);	/* too small */
	m.hdr.type = 0;
	assert_int_equal(proto_encode(&m, buf, sizeof(buf)), -1);
	m.hdr.type = PROTO_TYPE_LAST + 1;
	assert_int_equal(proto_encode(&m, buf, sizeof(buf)), -1);
}

static void
expect_reject(const uint8_t *buf, size_t len, enum proto_reject want)
{
	struct proto_msg out;
	enum proto_reject why = REJ_COUNT;

	assert_int_equal(proto_decode(buf, len, &out, &why), -1);
	assert_int_equal(why, want);
}

static void
test_malformed(void **state)
{
	struct proto_msg m = sample_schedule(), st, out;
	enum proto_reject why;
	uint8_t buf[PROTO_MAX_DGRAM + 64], bad[sizeof(buf)];
	int n = wire(&m, buf, sizeof(buf)), k;

	/* every truncation shorter than header + tag */
	for (size_t len = 0; len < PROTO_HDR_LEN + PROTO_MAC_LEN; len++)
		expect_reject(buf, len, REJ_SHORT);
	/* truncated payload */
	expect_reject(buf, (size_t)n - 1, REJ_LENGTH);
	/* trailing junk */
	memset(buf + n, 0, 8);
	expect_reject(buf, (size_t)n + 8, REJ_LENGTH);
	/* oversized */
	memset(bad, 0, sizeof(bad));
	memcpy(bad, buf, (size_t)n);
	expect_reject(bad, PROTO_MAX_DGRAM + 1, REJ_LONG);
	/* magic */
	memcpy(bad, buf, (size_t)n);
	bad[0] ^= 0xff;
	expect_reject(bad, (size_t)n, REJ_MAGIC);
	/* version */
	memcpy(bad, buf, (size_t)n);
	bad[4] = PROTO_VERSION + 1;
	expect_reject(bad, (size_t)n, REJ_MAGIC);
	/* type 0, unknown type */
	memcpy(bad, buf, (size_t)n);
	bad[5] = 0;
	expect_reject(bad, (size_t)n, REJ_TYPE);
	bad[5] = 99;
	expect_reject(bad, (size_t)n, REJ_TYPE);
	/* header length field disagrees */
	memcpy(bad, buf, (size_t)n);
	bad[7] ^= 1;
	expect_reject(bad, (size_t)n, REJ_LENGTH);
	/* type says STATUS but the size is a SCHEDULE's */
	memcpy(bad, buf, (size_t)n);
	bad[5] = PROTO_STATUS;
	expect_reject(bad, (size_t)n, REJ_LENGTH);
	/* a command's key_id is any value (the receiver looks it up) */
	memcpy(bad, buf, (size_t)n);
	bad[12] = 1;
	assert_int_equal(proto_decode(bad, (size_t)n, &out, &why), 0);
	assert_int_equal(out.hdr.key_id, 0x01000000);
	/* a command with a reply's tag length */
	expect_reject(buf, (size_t)n - PROTO_SIG_LEN + PROTO_MAC_LEN, REJ_LENGTH);
	/* a reply's key_id must be zero */
	memset(&st, 0, sizeof(st));
	st.hdr.type = PROTO_LOAD;
	k = wire(&st, bad, sizeof(bad));
	assert_int_equal(k, PROTO_HDR_LEN + PROTO_LOAD_LEN + PROTO_MAC_LEN);
	assert_int_equal(proto_decode(bad, (size_t)k, &out, &why), 0);
	bad[15] = 1;
	expect_reject(bad, (size_t)k, REJ_RANGE);
	/* reserved schedule byte */
	memcpy(bad, buf, (size_t)n);
	bad[PROTO_HDR_LEN + 3] = 1;
	expect_reject(bad, (size_t)n, REJ_RANGE);
}

static void
test_schedule_ranges(void **state)
{
	struct proto_schedule s = sample_schedule().u.schedule, t;
	const char *err = NULL;

	assert_int_equal(proto_check_schedule(&s, &err), 0);
	t = s; t.mode = MODE_COUNT;
	assert_int_equal(proto_check_schedule(&t, &err), -1);
	assert_string_equal(err, "unknown mode");
	t = s; t.sync = SYNC_COUNT;
	assert_int_equal(proto_check_schedule(&t, &err), -1);
	assert_string_equal(err, "unknown sync method");
	t = s; t.flags = 0x80;
	assert_int_equal(proto_check_schedule(&t, &err), -1);
	assert_string_equal(err, "unknown flags");
	t = s; t.ip_us = 999;
	assert_int_equal(proto_check_schedule(&t, &err), -1);
	assert_string_equal(err, "ip 999us is out of range [1ms, 60s]");
	t = s; t.ip_us = 60000001; t.si_us = 60000001;
	assert_int_equal(proto_check_schedule(&t, &err), -1);
	assert_string_equal(err, "ip 60000.001ms is out of range [1ms, 60s]");
	t = s; t.ps_us = 0;
	assert_int_equal(proto_check_schedule(&t, &err), -1);
	assert_string_equal(err, "ps 0s is too short (PS must be at least 1us)");
	t = s; t.ps_us = t.ip_us;
	assert_int_equal(proto_check_schedule(&t, &err), -1);
	assert_non_null(strstr(err, "is not shorter than ip"));
	t = s; t.si_us = 9999;
	assert_int_equal(proto_check_schedule(&t, &err), -1);
	assert_string_equal(err, "si 9.999ms is out of range [10ms, 3600s]");
	/* the node checks SI >= IP, as the console does */
	t = s; t.ip_us = 2000000; t.ps_us = 1000000; t.si_us = 1000000;
	assert_int_equal(proto_check_schedule(&t, &err), -1);
	assert_string_equal(err, "si 1s is shorter than ip 2s (SI must be at "
	    "least IP)");
	/* an origin that does not fit the node's int64 clock arithmetic */
	t = s; t.origin_ns = (uint64_t)INT64_MAX + 1;
	assert_int_equal(proto_check_schedule(&t, &err), -1);
	assert_non_null(strstr(err, "origin"));
	t = s; t.origin_ns = (uint64_t)INT64_MAX;
	assert_int_equal(proto_check_schedule(&t, &err), 0);
	t = s; t.ip_us = 1000; t.ps_us = 999;
	assert_int_equal(proto_check_schedule(&t, &err), 0);
}

/* A SCHEDULE with slots for "a:x" [0, 30 ms) and "b:y" [30, 80 ms). */
static struct proto_schedule
slotted(void)
{
	struct proto_schedule s = sample_schedule().u.schedule;

	s.nslots = 2;
	strcpy(s.slot[0].job, "a:x");
	s.slot[0].start_us = 0;
	s.slot[0].len_us = 30000;
	strcpy(s.slot[1].job, "b:y");
	s.slot[1].start_us = 30000;
	s.slot[1].len_us = 50000;
	return s;
}

static void
test_slots_roundtrip(void **state)
{
	struct proto_msg m = sample_schedule(), out;
	enum proto_reject why;
	uint8_t buf[PROTO_MAX_DGRAM];
	int n;

	m.u.schedule = slotted();
	n = wire(&m, buf, sizeof(buf));
	assert_int_equal(n, PROTO_HDR_LEN + PROTO_SCHEDULE_LEN + PROTO_SIG_LEN);
	assert_int_equal(proto_decode(buf, (size_t)n, &out, &why), 0);
	assert_memory_equal(&out.u.schedule, &m.u.schedule,
	    sizeof(m.u.schedule));
	/* the encoder writes unused slots and a long name as they travel:
	 * zero, and at most PROTO_JOB_LEN - 1 bytes */
	memset(&m.u.schedule.slot[5], 0x77, sizeof(m.u.schedule.slot[5]));
	memset(m.u.schedule.slot[1].job, 'z', PROTO_JOB_LEN);
	m.u.schedule.pad[3] = 9;
	n = wire(&m, buf, sizeof(buf));
	assert_int_equal(proto_decode(buf, (size_t)n, &out, &why), 0);
	assert_int_equal(strlen(out.u.schedule.slot[1].job), PROTO_JOB_LEN - 1);
	assert_int_equal(out.u.schedule.slot[5].len_us, 0);
	assert_int_equal(out.u.schedule.pad[3], 0);
	/* nslots past the table: the encoder writes what it holds */
	m.u.schedule.nslots = 200;
	n = wire(&m, buf, sizeof(buf));
	assert_int_equal(buf[PROTO_HDR_LEN + 24], PROTO_JOBS_MAX);
}

static void
test_jobs_roundtrip(void **state)
{
	struct proto_msg m = { .hdr = { .type = PROTO_STATUS, .seq = 7 } }, out;
	enum proto_reject why;
	uint8_t buf[PROTO_MAX_DGRAM];
	int n;

	m.u.status.members = 6;
	strcpy(m.u.status.name, "n");
	m.u.status.njobs = PROTO_JOBS_MAX;
	for (int i = 0; i < PROTO_JOBS_MAX; i++) {
		snprintf(m.u.status.job[i].job, PROTO_JOB_LEN, "user%d:job-%d",
		    i, i);
		m.u.status.job[i].members = (uint32_t)i * 1000000u;
	}
	n = wire(&m, buf, sizeof(buf));
	assert_int_equal(n, PROTO_HDR_LEN + PROTO_STATUS_LEN + PROTO_MAC_LEN);
	assert_int_equal(proto_decode(buf, (size_t)n, &out, &why), 0);
	assert_memory_equal(&out.u.status, &m.u.status, sizeof(m.u.status));
	/* entries past njobs go out zero */
	m.u.status.njobs = 1;
	n = wire(&m, buf, sizeof(buf));
	assert_int_equal(proto_decode(buf, (size_t)n, &out, &why), 0);
	assert_int_equal(out.u.status.njobs, 1);
	assert_string_equal(out.u.status.job[0].job, "user0:job-0");
	assert_string_equal(out.u.status.job[1].job, "");
	assert_int_equal(out.u.status.job[7].members, 0);

	/* the weights: each job's in the high byte of its members word */
	m.u.status.njobs = PROTO_JOBS_MAX;
	for (int i = 0; i < PROTO_JOBS_MAX; i++) {
		m.u.status.job[i].members = i == 7 ? PROTO_MEMBERS_MAX :
		    (uint32_t)i;
		m.u.status.job[i].weight = i == 7 ? PROTO_WEIGHT_JOB_MAX :
		    (unsigned)i;
	}
	n = wire(&m, buf, sizeof(buf));
	assert_int_equal(proto_decode(buf, (size_t)n, &out, &why), 0);
	assert_memory_equal(&out.u.status, &m.u.status, sizeof(m.u.status));
	assert_int_equal(out.u.status.job[3].weight, 3);
	assert_int_equal(out.u.status.job[7].weight, PROTO_WEIGHT_JOB_MAX);
	assert_int_equal(out.u.status.job[7].members, PROTO_MEMBERS_MAX);
	{
		size_t	 w3 = PROTO_HDR_LEN + 136 + 3 * PROTO_JOB_BRIEF_LEN +
		    PROTO_JOB_LEN;

		assert_int_equal(buf[w3], 3);		/* weight */
		assert_int_equal(buf[w3 + 3], 3);	/* members, low */
		/* a weight past PROTO_WEIGHT_JOB_MAX is refused */
		buf[w3] = PROTO_WEIGHT_JOB_MAX + 1;
		assert_int_equal(proto_decode(buf, (size_t)n, &out, &why),
		    -1);
		/* a node before weights: 0, none given */
		buf[w3] = 0;
		assert_int_equal(proto_decode(buf, (size_t)n, &out, &why), 0);
		assert_int_equal(out.u.status.job[3].weight, 0);
		assert_int_equal(out.u.status.job[3].members, 3);
	}

	/* JOB_REQ, never smaller than JOB; JOB, and JOB of no job */
	memset(&m, 0, sizeof(m));
	m.hdr.type = PROTO_JOB_REQ;
	m.u.job_req.index = 3;
	int k = wire(&m, buf, sizeof(buf));
	assert_int_equal(k, PROTO_HDR_LEN + PROTO_JOB_REQ_LEN + PROTO_SIG_LEN);
	assert_int_equal(proto_decode(buf, (size_t)k, &out, &why), 0);
	assert_int_equal(out.u.job_req.index, 3);
	assert_true(proto_is_command(PROTO_JOB_REQ));
	assert_false(proto_is_command(PROTO_JOB));
	memset(&m, 0, sizeof(m));
	m.hdr.type = PROTO_JOB;
	m.u.job = (struct proto_job){ .index = 3, .count = 4, .job = "u:l",
	    .slot_ns = 1ull << 60, .stopped_ns = 5, .cpu_ns = UINT64_MAX,
	    .members = 9, .running = 1 };
	n = wire(&m, buf, sizeof(buf));
	assert_int_equal(n, PROTO_HDR_LEN + PROTO_JOB_LEN_WIRE + PROTO_MAC_LEN);
	assert_true(k - PROTO_SIG_LEN >= n - PROTO_MAC_LEN);
	assert_int_equal(proto_decode(buf, (size_t)n, &out, &why), 0);
	assert_memory_equal(&out.u.job, &m.u.job, sizeof(m.u.job));
	/* index >= count: only index and count travel */
	m.u.job.index = 4;
	n = wire(&m, buf, sizeof(buf));
	assert_int_equal(proto_decode(buf, (size_t)n, &out, &why), 0);
	assert_int_equal(out.u.job.index, 4);
	assert_int_equal(out.u.job.count, 4);
	assert_string_equal(out.u.job.job, "");
	assert_true(out.u.job.slot_ns == 0 && out.u.job.cpu_ns == 0);
	assert_int_equal(out.u.job.members, 0);
	assert_int_equal(out.u.job.running, 0);
}

static void
test_slot_ranges(void **state)
{
	struct proto_schedule s = slotted(), t;
	const char *err = NULL;

	assert_int_equal(proto_check_schedule(&s, &err), 0);
	/* 8 slots of 10 ms fill the PS exactly, in any order */
	t = s;
	t.nslots = PROTO_JOBS_MAX;
	for (int i = 0; i < PROTO_JOBS_MAX; i++) {
		snprintf(t.slot[i].job, PROTO_JOB_LEN, "u:j%d", i);
		t.slot[i].start_us = (uint32_t)(PROTO_JOBS_MAX - 1 - i) * 10000;
		t.slot[i].len_us = 10000;
	}
	assert_int_equal(proto_check_schedule(&t, &err), 0);
	t = s; t.nslots = PROTO_JOBS_MAX + 1;
	assert_int_equal(proto_check_schedule(&t, &err), -1);
	assert_string_equal(err, "9 slots, more than the 8 a SCHEDULE holds");
	t = s; t.slot[2].len_us = 1;
	assert_int_equal(proto_check_schedule(&t, &err), -1);
	assert_string_equal(err, "slot 2 is unused (2 slots) but not zero");
	t = s; t.slot[1].job[1] = '\n';
	assert_int_equal(proto_check_schedule(&t, &err), -1);
	assert_string_equal(err, "slot 1: job name is not printable");
	t = s; memset(t.slot[0].job, 0, PROTO_JOB_LEN);
	assert_int_equal(proto_check_schedule(&t, &err), -1);
	assert_string_equal(err, "slot 0: job name is empty");
	t = s; strcpy(t.slot[0].job, "a:x:y");
	assert_int_equal(proto_check_schedule(&t, &err), -1);
	assert_non_null(strstr(err, "slot 0: job label \"x:y\" has a byte"));
	t = s; strcpy(t.slot[1].job, "a:x");
	assert_int_equal(proto_check_schedule(&t, &err), -1);
	assert_string_equal(err, "slot 1 (a:x) names the job of slot 0 again");
	t = s; t.slot[0].len_us = 0;
	assert_int_equal(proto_check_schedule(&t, &err), -1);
	assert_string_equal(err, "slot 0 (a:x) has a length of 0 us");
	t = s; t.slot[1].len_us = 60000;
	assert_int_equal(proto_check_schedule(&t, &err), -1);
	assert_string_equal(err, "slot 1 (b:y) ends at 90000 us, past the PS "
	    "of 80000 us");
	/* no wrap: start + len in 64 bits */
	t = s; t.slot[1].start_us = UINT32_MAX; t.slot[1].len_us = 2;
	assert_int_equal(proto_check_schedule(&t, &err), -1);
	assert_non_null(strstr(err, "ends at 4294967297 us"));
	t = s; t.slot[1].start_us = 29999;
	assert_int_equal(proto_check_schedule(&t, &err), -1);
	assert_string_equal(err, "slot 1 (b:y) overlaps slot 0 (a:x)");
	/* a later slot before an earlier one, overlapping */
	t = s; t.slot[0].start_us = 50000; t.slot[1].start_us = 0;
	t.slot[1].len_us = 50001;
	assert_int_equal(proto_check_schedule(&t, &err), -1);
	assert_string_equal(err, "slot 1 (b:y) overlaps slot 0 (a:x)");
	/* touching in reverse order is no overlap */
	t = s; t.slot[0].start_us = 50000; t.slot[1].start_us = 0;
	assert_int_equal(proto_check_schedule(&t, &err), 0);
	/* one inside another */
	t = s; t.slot[0].start_us = 40000; t.slot[0].len_us = 10;
	t.slot[1].start_us = 0; t.slot[1].len_us = 80000;
	assert_int_equal(proto_check_schedule(&t, &err), -1);
	assert_string_equal(err, "slot 1 (b:y) overlaps slot 0 (a:x)");
	/* gaps are fine: that time goes to the node's other jobs */
	t = s; t.slot[0].len_us = 10000; t.slot[1].start_us = 70000;
	t.slot[1].len_us = 10000;
	assert_int_equal(proto_check_schedule(&t, &err), 0);
	/* slots do not excuse the rest of the schedule */
	t = s; t.mode = MODE_COUNT;
	assert_int_equal(proto_check_schedule(&t, &err), -1);
	assert_string_equal(err, "unknown mode");
}

/* ---- WEIGHT: a master console's weights, to its standby ------------- */

static struct proto_msg
sample_weight(void)
{
	struct proto_msg m = { .hdr = { .type = PROTO_WEIGHT,
	    .sender = 0x11223344, .key_id = 7, .seq = 99 } };

	m.u.weight = (struct proto_weight){ .gen = 0xfffffffe, .index = 3,
	    .count = 128, .kind = WEIGHT_KIND_HOST, .weight = 1500000,
	    .name = "node-with-a-long-name.cluster.example.org" };
	return m;
}

static void
test_weight_roundtrip(void **state)
{
	struct proto_msg m = sample_weight(), out;
	enum proto_reject why;
	uint8_t buf[PROTO_MAX_DGRAM];
	int n = wire(&m, buf, sizeof(buf));

	/* a console's message: signed, its key_id travels */
	assert_int_equal(n, PROTO_HDR_LEN + PROTO_WEIGHT_LEN + PROTO_SIG_LEN);
	assert_int_equal(buf[5], PROTO_WEIGHT);
	assert_int_equal(buf[15], 7);
	/* gen, index, count, kind, weight in network order, at 0 4 6 8 12 */
	assert_memory_equal(buf + PROTO_HDR_LEN, "\xff\xff\xff\xfe\x00\x03"
	    "\x00\x80\x01\x00\x00\x00\x00\x16\xe3\x60", 16);
	assert_int_equal(proto_decode(buf, (size_t)n, &out, &why), 0);
	assert_memory_equal(&out.u.weight, &m.u.weight, sizeof(m.u.weight));
	/* a job's, and the longest host name (63 bytes) */
	m.u.weight.kind = WEIGHT_KIND_JOB;
	m.u.weight.weight = 100 * PROTO_WEIGHT_UNIT;
	memset(m.u.weight.name, 0, sizeof(m.u.weight.name));
	strcpy(m.u.weight.name, "alice:vm1");
	n = wire(&m, buf, sizeof(buf));
	assert_int_equal(proto_decode(buf, (size_t)n, &out, &why), 0);
	assert_memory_equal(&out.u.weight, &m.u.weight, sizeof(m.u.weight));
	m.u.weight.kind = WEIGHT_KIND_HOST;
	memset(m.u.weight.name, 'h', PROTO_WEIGHT_NAME_LEN - 1);
	n = wire(&m, buf, sizeof(buf));
	assert_int_equal(proto_decode(buf, (size_t)n, &out, &why), 0);
	assert_int_equal(strlen(out.u.weight.name), PROTO_WEIGHT_NAME_LEN - 1);
	/* count 0: no entry, whatever the struct held */
	m.u.weight.count = 0;
	m.u.weight.index = 0;
	n = wire(&m, buf, sizeof(buf));
	assert_int_equal(proto_decode(buf, (size_t)n, &out, &why), 0);
	assert_int_equal(out.u.weight.count, 0);
	assert_int_equal(out.u.weight.kind, WEIGHT_KIND_NONE);
	assert_int_equal(out.u.weight.weight, 0);
	assert_string_equal(out.u.weight.name, "");
}

/* The sample's datagram with payload byte off set to b: refused
 * [range] by the decoder. */
static void
weight_refused(size_t off, uint8_t b)
{
	struct proto_msg m = sample_weight();
	uint8_t buf[PROTO_MAX_DGRAM];
	int n = wire(&m, buf, sizeof(buf));

	assert_int_not_equal(buf[PROTO_HDR_LEN + off], b);
	buf[PROTO_HDR_LEN + off] = b;
	expect_reject(buf, (size_t)n, REJ_RANGE);
}

static void
test_weight_malformed(void **state)
{
	struct proto_msg m = sample_weight(), out;
	enum proto_reject why;
	uint8_t buf[PROTO_MAX_DGRAM];
	int n;

	weight_refused(4, 0x80);		/* index >= count */
	weight_refused(5, 0x80);		/* index 128 of 128 */
	weight_refused(7, 0x81);		/* count 129 */
	weight_refused(6, 0x01);		/* count 384 */
	weight_refused(9, 1);			/* pad */
	weight_refused(11, 1);
	weight_refused(16 + 50, 'x');		/* after the name's NUL */
	weight_refused(79, 'x');
	/* a name that fills its field: no NUL */
	memset(m.u.weight.name, 'h', PROTO_WEIGHT_NAME_LEN);
	n = proto_encode(&m, buf, sizeof(buf));
	memset(buf + PROTO_HDR_LEN + 16, 'h', PROTO_WEIGHT_NAME_LEN);
	memset(buf + n, 0, PROTO_SIG_LEN);
	expect_reject(buf, (size_t)n + PROTO_SIG_LEN, REJ_RANGE);
	/* count 0 carries no entry: index, kind, weight, name all zero */
	m = sample_weight();
	m.u.weight.count = 0;
	m.u.weight.index = 0;
	n = wire(&m, buf, sizeof(buf));
	assert_int_equal(proto_decode(buf, (size_t)n, &out, &why), 0);
	for (size_t off = 4; off < PROTO_WEIGHT_LEN; off++) {
		if (off == 6 || off == 7)
			continue;	/* count itself */
		buf[PROTO_HDR_LEN + off] = 1;
		expect_reject(buf, (size_t)n, REJ_RANGE);
		buf[PROTO_HDR_LEN + off] = 0;
	}
	/* a node takes no WEIGHT: it is the peer's */
	m = sample_weight();
	n = wire(&m, buf, sizeof(buf));
	assert_int_equal(proto_frame(buf, (size_t)n, PROTO_ACCEPT_NODE, &out,
	    &why), -1);
	assert_int_equal(why, REJ_TYPE);
	assert_int_equal(proto_frame(buf, (size_t)n, PROTO_ACCEPT_PEER, &out,
	    &why), 0);
}

/* p sealed (insecure) and opened as a standby does: 0, or -1 with why. */
static int
weight_open(const struct proto_weight *p, enum proto_reject *why)
{
	struct auth_key k = { .insecure = 1 };
	struct proto_msg m = { .hdr.type = PROTO_WEIGHT }, out;
	struct replay r;
	struct seqgen g;
	uint8_t buf[PROTO_MAX_DGRAM];
	int n;

	m.u.weight = *p;
	seqgen_init(&g);
	/* started a second ago: the seal's stamp is newer than its start */
	replay_init(&r, now_real_us() - 1000000, now_mono_us() - 1000000,
	    5000000);
	n = proto_seal(&k, &g, now_mono_us(), &m, buf, sizeof(buf));
	assert_true(n > 0);
	(void)replay_clock(&r, now_real_us(), now_mono_us());
	return proto_open(&k, &r, PROTO_ACCEPT_PEER, buf, (size_t)n, &out,
	    why);
}

/* p is refused [range] after the tag, with err containing want. */
static void
weight_out_of_range(const struct proto_weight *p, const char *want)
{
	enum proto_reject why = REJ_COUNT;
	const char *err = "";

	assert_int_equal(proto_check_weight(p, &err), -1);
	if (strstr(err, want) == NULL)
		fail_msg("\"%s\" not in \"%s\"", want, err);
	assert_int_equal(weight_open(p, &why), -1);
	assert_int_equal(why, REJ_RANGE);
}

static void
test_weight_ranges(void **state)
{
	struct proto_weight h = sample_weight().u.weight, j = h, t;
	enum proto_reject why;
	const char *err;

	j.kind = WEIGHT_KIND_JOB;
	strcpy(j.name, "alice:vm1");
	j.weight = 5 * PROTO_WEIGHT_UNIT;
	assert_int_equal(proto_check_weight(&h, &err), 0);
	assert_int_equal(weight_open(&h, &why), 0);
	assert_int_equal(weight_open(&j, &why), 0);
	/* the bounds themselves */
	t = h; t.weight = 1;
	assert_int_equal(proto_check_weight(&t, &err), 0);
	t = h; t.weight = PROTO_WEIGHT_HOST_MAX * PROTO_WEIGHT_UNIT;
	assert_int_equal(proto_check_weight(&t, &err), 0);
	t = j; t.weight = PROTO_WEIGHT_UNIT;
	assert_int_equal(proto_check_weight(&t, &err), 0);
	t = j; t.weight = PROTO_WEIGHT_JOB_MAX * PROTO_WEIGHT_UNIT;
	assert_int_equal(proto_check_weight(&t, &err), 0);
	/* kind */
	t = h; t.kind = WEIGHT_KIND_NONE;
	weight_out_of_range(&t, "unknown kind of weight 0");
	t = h; t.kind = WEIGHT_KIND_COUNT;
	weight_out_of_range(&t, "unknown kind of weight 3");
	/* names: a host's printable, no space nor ':'; a job's valid */
	t = h; memset(t.name, 0, sizeof(t.name));
	weight_out_of_range(&t, "a host name is 1 to 63 bytes");
	t = h; t.name[2] = ' ';
	weight_out_of_range(&t, "has a byte that is not printable");
	t = h; t.name[2] = '\t';
	weight_out_of_range(&t, "has a byte that is not printable");
	t = h; t.name[2] = (char)0xc3;
	weight_out_of_range(&t, "has a byte that is not printable");
	t = h; strcpy(t.name, "alice:vm1");
	weight_out_of_range(&t, "':'");
	t = j; strcpy(t.name, "alice");
	weight_out_of_range(&t, "job name");
	t = j; memset(t.name, 'a', PROTO_JOB_LEN); t.name[3] = ':';
	weight_out_of_range(&t, "is too long (at most 31 bytes)");
	/* weights */
	t = h; t.weight = 0;
	weight_out_of_range(&t, "a host's weight 0 millionths is out of range");
	t = h; t.weight = PROTO_WEIGHT_HOST_MAX * PROTO_WEIGHT_UNIT + 1;
	weight_out_of_range(&t, "out of range");
	t = j; t.weight = 0;
	weight_out_of_range(&t, "a job's weight 0 millionths");
	t = j; t.weight = PROTO_WEIGHT_UNIT + 1;	/* not whole */
	weight_out_of_range(&t, "a job's weight 1000001 millionths");
	t = j; t.weight = (PROTO_WEIGHT_JOB_MAX + 1) * PROTO_WEIGHT_UNIT;
	weight_out_of_range(&t, "out of range");
	/* index and count, as a receiver's check sees them */
	t = h; t.index = t.count;
	assert_int_equal(proto_check_weight(&t, &err), -1);
	assert_string_equal(err, "entry 128 of 128");
	t = h; t.count = PROTO_WEIGHTS_MAX + 1; t.index = 0;
	assert_int_equal(proto_check_weight(&t, &err), -1);
	t = h; t.count = 0; t.index = 0;
	assert_int_equal(proto_check_weight(&t, &err), -1);	/* an entry */
	memset(&t, 0, sizeof(t));
	t.gen = 5;
	assert_int_equal(proto_check_weight(&t, &err), 0);	/* none */
	assert_int_equal(weight_open(&t, &why), 0);
}

static void
test_names(void **state)
{
	for (int m = 0; m < MODE_COUNT; m++)
		assert_int_equal(proto_mode_parse(proto_mode_name((unsigned)m)), m);
	assert_int_equal(proto_mode_parse("STATIC"), MODE_STATIC);
	assert_int_equal(proto_mode_parse("fast"), -1);
	assert_int_equal(proto_sync_parse("clock"), SYNC_CLOCK);
	assert_int_equal(proto_sync_parse("ntp"), -1);
	assert_string_equal(proto_mode_name(99), "?");
	assert_string_equal(proto_reject_name(REJ_REPLAY), "replay");
	assert_string_equal(proto_phase_name(PHASE_LS), "LS");
	/* a TRACE edge: a phase, or a slot edge (not a phase: no name) */
	assert_string_equal(proto_edge_name(PHASE_PS), "PS");
	assert_string_equal(proto_edge_name(TRACE_SLOT), "slot");
	assert_string_equal(proto_phase_name(TRACE_SLOT), "?");
	/* one name for every value, no hole, and nothing past the end */
	assert_int_equal(names_count(proto_mode_names), MODE_COUNT);
	assert_int_equal(names_count(proto_sync_names), SYNC_COUNT);
	assert_int_equal(names_count(proto_phase_names), PHASE_COUNT);
	assert_int_equal(names_count(proto_reject_names), REJ_COUNT);
	assert_string_equal(proto_reject_name(REJ_COUNT), "?");
	assert_string_equal(proto_sync_name(SYNC_COUNT), "?");
	assert_int_equal(names_find(proto_reject_names, "Replay"), REJ_REPLAY);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schedule_roundtrip),
		cmocka_unit_test(test_status_roundtrip),
		cmocka_unit_test(test_long_name_truncated),
		cmocka_unit_test(test_load_and_req_roundtrip),
		cmocka_unit_test(test_trace_roundtrip),
		cmocka_unit_test(test_metrics_roundtrip),
		cmocka_unit_test(test_every_type),
		cmocka_unit_test(test_encode_errors),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_schedule_ranges),
		cmocka_unit_test(test_slots_roundtrip),
		cmocka_unit_test(test_jobs_roundtrip),
		cmocka_unit_test(test_slot_ranges),
		cmocka_unit_test(test_weight_roundtrip),
		cmocka_unit_test(test_weight_malformed),
		cmocka_unit_test(test_weight_ranges),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
