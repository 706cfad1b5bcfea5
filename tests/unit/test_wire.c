/*
 * test_wire.c - the messages as doc/protocol.txt draws them, byte by
 * byte, written here by hand: proto_decode() must read every field from
 * its documented offset, and proto_encode() must write these very bytes.
 * (test_proto.c only round-trips through our own encoder, which would
 * agree with a decoder that shares its mistake.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "proto.h"
#include "wire.h"

/* The header of a reply: magic "DTS1", version 5, TYPE, payload length
 * LEN (16 bits), sender 0x0a0b0c0d, key_id 0, seq 0x0102030405060708. */
#define HDR(type, len) \
	0x44, 0x54, 0x53, 0x31, 0x05, (type), ((len) >> 8), ((len) & 0xff), \
	0x0a, 0x0b, 0x0c, 0x0d, 0x00, 0x00, 0x00, 0x00, \
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08
/* A command's: key_id 0x8a88e3dd. */
#define CMD_HDR(type, len) \
	0x44, 0x54, 0x53, 0x31, 0x05, (type), ((len) >> 8), ((len) & 0xff), \
	0x0a, 0x0b, 0x0c, 0x0d, 0x8a, 0x88, 0xe3, 0xdd, \
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08

/* SCHEDULE, 352 bytes, then a 64-byte tag (zero: not checked here). */
static const uint8_t schedule_dgram[24 + 352 + 64] = {
	CMD_HDR(1, 352),
	/*  0 mode 1 (static), sync 1 (clock), flags 0x03, reserved */
	0x01, 0x01, 0x03, 0x00,
	/*  4 ps_us 80000, 8 ip_us 100000, 12 si_us 10000000 */
	0x00, 0x01, 0x38, 0x80, 0x00, 0x01, 0x86, 0xa0,
	0x00, 0x98, 0x96, 0x80,
	/* 16 origin_ns 1763770000000000000 (0x187a2b785b7da000) */
	0x18, 0x7a, 0x2b, 0x78, 0x5b, 0x7d, 0xa0, 0x00,
	/* 24 nslots 2, 25 pad[7] */
	0x02, 0, 0, 0, 0, 0, 0, 0,
	/* 32 slot[0]: job "alice:vm1" NUL padded to 32, 64 start_us 0,
	 * 68 len_us 30000 */
	'a', 'l', 'i', 'c', 'e', ':', 'v', 'm', '1',
	[24 + 64] = 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x75, 0x30,
	/* 72 slot[1]: "bob:pvm", 104 start_us 30000, 108 len_us 50000 */
	'b', 'o', 'b', ':', 'p', 'v', 'm',
	[24 + 104] = 0x00, 0x00, 0x75, 0x30, 0x00, 0x00, 0xc3, 0x50,
	/* 112 slot[2..7]: unused, zero */
};

/* STATUS, 424 bytes, then a 32-byte tag (zero: not checked here). */
static const uint8_t status_dgram[24 + 424 + 32] = {
	HDR(3, 424),
	/*  0 mode 2 (balanced), sync 1 (clock), flags 0x09, phase 2 (LS) */
	0x02, 0x01, 0x09, 0x02,
	/*  4 ps_us 80000, 8 ip_us 100000, 12 si_us 10000000 */
	0x00, 0x01, 0x38, 0x80, 0x00, 0x01, 0x86, 0xa0,
	0x00, 0x98, 0x96, 0x80,
	/* 16 load_milli 1250, 20 members 3 */
	0x00, 0x00, 0x04, 0xe2, 0x00, 0x00, 0x00, 0x03,
	/* 24 slices 0x1122334455667788, 32 overruns 258 */
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02,
	/* 40 last_ps_ns 1763770000123456789 (0x187a2b7862d96d15) */
	0x18, 0x7a, 0x2b, 0x78, 0x62, 0xd9, 0x6d, 0x15,
	/* 48 rejected[10]: short 1, long 2, ... master 10 */
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02,
	0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x04,
	0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x06,
	0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x08,
	0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00, 0x0a,
	/* 88 queue_full 65536, 92 master 10.0.0.1 */
	0x00, 0x01, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x01,
	/* 96 name "h0", NUL padded to 32 bytes */
	'h', '0',
	/* 128 njobs 2, 129 pad[7] */
	[24 + 128] = 0x02, 0, 0, 0, 0, 0, 0, 0,
	/* 136 job[0]: "alice:vm1" NUL padded to 32, 168 members 2 */
	'a', 'l', 'i', 'c', 'e', ':', 'v', 'm', '1',
	[24 + 168] = 0x00, 0x00, 0x00, 0x02,
	/* 172 job[1]: "bob:pvm", 204 members 1 */
	'b', 'o', 'b', ':', 'p', 'v', 'm',
	[24 + 204] = 0x00, 0x00, 0x00, 0x01,
	/* 208 job[2..7]: unused, zero */
};

/* JOB_REQ, 72 bytes: index 1, then 68 bytes of zero padding; a zero
 * 64-byte tag. */
static const uint8_t job_req_dgram[24 + 72 + 64] = {
	CMD_HDR(9, 72),
	0x00, 0x00, 0x00, 0x01,
};

/* JOB, 72 bytes, then a zero tag. */
static const uint8_t job_dgram[24 + 72 + 32] = {
	HDR(10, 72),
	/* 0 index 1, 4 count 2 */
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02,
	/* 8 job "bob:pvm", NUL padded to 32 */
	'b', 'o', 'b', ':', 'p', 'v', 'm',
	/* 40 slot_ns 50 s, 48 stopped_ns 49.5 s, 56 cpu_ns
	 * 0x0102030405060708 */
	[24 + 40] = 0x00, 0x00, 0x00, 0x0b, 0xa4, 0x3b, 0x74, 0x00,
	0x00, 0x00, 0x00, 0x0b, 0x86, 0x6e, 0x0f, 0x00,
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	/* 64 members 1, 68 running 1 */
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01,
};

/* TRACE, 8 + 16 x 20 bytes: two edges, then a zero tag. */
static const uint8_t trace_dgram[24 + 328 + 32] = {
	HDR(6, 328),
	/* 0 count 2, 4 more 1 */
	0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01,
	/* edge 0: real_ns 1000000000000000001, late_ns 1500, op_ns 70,
	 * phase 1 (PS), pad */
	0x0d, 0xe0, 0xb6, 0xb3, 0xa7, 0x64, 0x00, 0x01,
	0x00, 0x00, 0x05, 0xdc, 0x00, 0x00, 0x00, 0x46,
	0x01, 0x00, 0x00, 0x00,
	/* edge 1: real_ns 1000000000080000001, late_ns 0xffffffff
	 * (saturated), op_ns 0x00010000, phase 2 (LS) */
	0x0d, 0xe0, 0xb6, 0xb3, 0xac, 0x28, 0xb4, 0x01,
	0xff, 0xff, 0xff, 0xff, 0x00, 0x01, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x00,
};

/* METRICS, 272 bytes, then a zero tag. */
static const uint8_t metrics_dgram[24 + 272 + 32] = {
	HDR(8, 272),
	/*  0 uptime_ns 0x0102030405060708, 8 slices 1000, 16 overruns 3 */
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xe8,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
	/* 24 ps_ns 50 s, 32 ls_ns 49 s, 40 stopped_ns 49.5 s */
	0x00, 0x00, 0x00, 0x0b, 0xa4, 0x3b, 0x74, 0x00,
	0x00, 0x00, 0x00, 0x0b, 0x68, 0xa0, 0xaa, 0x00,
	0x00, 0x00, 0x00, 0x0b, 0x86, 0x6e, 0x0f, 0x00,
	/* 48 gang_cpu_ns 0xffeeddccbbaa9988 */
	0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88,
	/* 56 mode 3 (distributed), phase 1 (PS), flags 0x05, reserved */
	0x03, 0x01, 0x05, 0x00,
	/* 60 ps_us 90000, 64 ip_us 100000, 68 load_milli 2500 */
	0x00, 0x01, 0x5f, 0x90, 0x00, 0x01, 0x86, 0xa0,
	0x00, 0x00, 0x09, 0xc4,
	/* 72 members 7, 76 failsafe 2, 80 master_changes 5, 84 queue_full 9 */
	0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x02,
	0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x09,
	/* 88 rejected[10]: short 11, long 12, ... master 20 */
	0x00, 0x00, 0x00, 0x0b, 0x00, 0x00, 0x00, 0x0c,
	0x00, 0x00, 0x00, 0x0d, 0x00, 0x00, 0x00, 0x0e,
	0x00, 0x00, 0x00, 0x0f, 0x00, 0x00, 0x00, 0x10,
	0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x12,
	0x00, 0x00, 0x00, 0x13, 0x00, 0x00, 0x00, 0x14,
	/* 128 late: n[12] 1, 2, ..., 12; sum_ns 0x1000 */
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02,
	0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x04,
	0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x06,
	0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x08,
	0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00, 0x0a,
	0x00, 0x00, 0x00, 0x0b, 0x00, 0x00, 0x00, 0x0c,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
	/* 184 op: n[0] 0x01000000, n[11] 0xffffffff, the rest 0; sum_ns
	 * 0x8000000000000001 */
	0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
	0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	/* 240 name "n7", NUL padded to 32 bytes */
	'n', '7',
};

static void
test_status_decodes(void **state)
{
	struct proto_msg m;
	enum proto_reject why;
	const struct proto_status *s = &m.u.status;

	(void)state;
	memset(&m, 0x5a, sizeof(m));
	assert_int_equal(proto_decode(status_dgram, sizeof(status_dgram),
	    &m, &why), 0);
	assert_int_equal(m.hdr.magic, PROTO_MAGIC);
	assert_int_equal(m.hdr.version, 5);
	assert_int_equal(m.hdr.type, PROTO_STATUS);
	assert_int_equal(m.hdr.length, 424);
	assert_int_equal(m.hdr.sender, 0x0a0b0c0d);
	assert_int_equal(m.hdr.key_id, 0);
	assert_true(m.hdr.seq == 0x0102030405060708ull);
	assert_int_equal(s->mode, MODE_BALANCED);
	assert_int_equal(s->sync, SYNC_CLOCK);
	assert_int_equal(s->flags, SCHED_F_ACTIVE | STATUS_F_YOURS);
	assert_int_equal(s->phase, PHASE_LS);
	assert_int_equal(s->ps_us, 80000);
	assert_int_equal(s->ip_us, 100000);
	assert_int_equal(s->si_us, 10000000);
	assert_int_equal(s->load_milli, 1250);
	assert_int_equal(s->members, 3);
	assert_true(s->slices == 0x1122334455667788ull);
	assert_true(s->overruns == 258);
	assert_true(s->last_ps_ns == 1763770000123456789ull);
	for (unsigned i = 0; i < REJ_COUNT; i++)
		assert_int_equal(s->rejected[i], i + 1);
	assert_int_equal(s->rejected[REJ_SHORT], 1);
	assert_int_equal(s->rejected[REJ_MASTER], 10);
	assert_int_equal(s->queue_full, 65536);
	assert_int_equal(s->master, 0x0a000001);
	assert_string_equal(s->name, "h0");
	assert_int_equal(s->njobs, 2);
	assert_string_equal(s->job[0].job, "alice:vm1");
	assert_int_equal(s->job[0].members, 2);
	assert_string_equal(s->job[1].job, "bob:pvm");
	assert_int_equal(s->job[1].members, 1);
	for (unsigned i = 2; i < PROTO_JOBS_MAX; i++) {
		assert_string_equal(s->job[i].job, "");
		assert_int_equal(s->job[i].members, 0);
	}
}

static void
test_schedule_decodes(void **state)
{
	struct proto_msg m;
	enum proto_reject why;
	const struct proto_schedule *s = &m.u.schedule;
	const char *err;

	(void)state;
	memset(&m, 0x5a, sizeof(m));
	assert_int_equal(proto_decode(schedule_dgram, sizeof(schedule_dgram),
	    &m, &why), 0);
	assert_int_equal(m.hdr.type, PROTO_SCHEDULE);
	assert_int_equal(m.hdr.length, 352);
	assert_int_equal(m.hdr.key_id, 0x8a88e3dd);
	assert_int_equal(s->mode, MODE_STATIC);
	assert_int_equal(s->sync, SYNC_CLOCK);
	assert_int_equal(s->flags, SCHED_F_ACTIVE | SCHED_F_SYNC);
	assert_int_equal(s->ps_us, 80000);
	assert_int_equal(s->ip_us, 100000);
	assert_int_equal(s->si_us, 10000000);
	assert_true(s->origin_ns == 1763770000000000000ull);
	assert_int_equal(s->nslots, 2);
	assert_string_equal(s->slot[0].job, "alice:vm1");
	assert_int_equal(s->slot[0].start_us, 0);
	assert_int_equal(s->slot[0].len_us, 30000);
	assert_string_equal(s->slot[1].job, "bob:pvm");
	assert_int_equal(s->slot[1].start_us, 30000);
	assert_int_equal(s->slot[1].len_us, 50000);
	for (unsigned i = 2; i < PROTO_JOBS_MAX; i++) {
		assert_string_equal(s->slot[i].job, "");
		assert_int_equal(s->slot[i].start_us, 0);
		assert_int_equal(s->slot[i].len_us, 0);
	}
	assert_int_equal(proto_check_schedule(s, &err), 0);
}

static void
test_job_decodes(void **state)
{
	struct proto_msg m;
	enum proto_reject why;
	const struct proto_job *j = &m.u.job;

	(void)state;
	memset(&m, 0x5a, sizeof(m));
	assert_int_equal(proto_decode(job_req_dgram, sizeof(job_req_dgram),
	    &m, &why), 0);
	assert_int_equal(m.hdr.type, PROTO_JOB_REQ);
	assert_int_equal(m.hdr.length, 72);
	assert_int_equal(m.u.job_req.index, 1);
	memset(&m, 0x5a, sizeof(m));
	assert_int_equal(proto_decode(job_dgram, sizeof(job_dgram), &m, &why),
	    0);
	assert_int_equal(m.hdr.type, PROTO_JOB);
	assert_int_equal(m.hdr.length, 72);
	assert_int_equal(j->index, 1);
	assert_int_equal(j->count, 2);
	assert_string_equal(j->job, "bob:pvm");
	assert_true(j->slot_ns == 50000000000ull);
	assert_true(j->stopped_ns == 49500000000ull);
	assert_true(j->cpu_ns == 0x0102030405060708ull);
	assert_int_equal(j->members, 1);
	assert_int_equal(j->running, 1);
}

static void
test_trace_decodes(void **state)
{
	struct proto_msg m;
	enum proto_reject why;
	const struct proto_trace *t = &m.u.trace;

	(void)state;
	memset(&m, 0x5a, sizeof(m));
	assert_int_equal(proto_decode(trace_dgram, sizeof(trace_dgram),
	    &m, &why), 0);
	assert_int_equal(m.hdr.type, PROTO_TRACE);
	assert_int_equal(m.hdr.length, 328);
	assert_int_equal(t->count, 2);
	assert_int_equal(t->more, 1);
	assert_true(t->edge[0].real_ns == 1000000000000000001ull);
	assert_int_equal(t->edge[0].late_ns, 1500);
	assert_int_equal(t->edge[0].op_ns, 70);
	assert_int_equal(t->edge[0].phase, PHASE_PS);
	assert_true(t->edge[1].real_ns == 1000000000080000001ull);
	assert_true(t->edge[1].late_ns == 0xffffffffu);
	assert_int_equal(t->edge[1].op_ns, 0x10000);
	assert_int_equal(t->edge[1].phase, PHASE_LS);
	for (unsigned i = 2; i < PROTO_TRACE_MAX; i++) {
		assert_true(t->edge[i].real_ns == 0);
		assert_int_equal(t->edge[i].phase, PHASE_NONE);
	}
}

static void
test_metrics_decodes(void **state)
{
	struct proto_msg m;
	enum proto_reject why;
	const struct proto_metrics *p = &m.u.metrics;

	(void)state;
	memset(&m, 0x5a, sizeof(m));
	assert_int_equal(proto_decode(metrics_dgram, sizeof(metrics_dgram),
	    &m, &why), 0);
	assert_int_equal(m.hdr.type, PROTO_METRICS);
	assert_int_equal(m.hdr.length, 272);
	assert_true(p->uptime_ns == 0x0102030405060708ull);
	assert_true(p->slices == 1000);
	assert_true(p->overruns == 3);
	assert_true(p->ps_ns == 50000000000ull);
	assert_true(p->ls_ns == 49000000000ull);
	assert_true(p->stopped_ns == 49500000000ull);
	assert_true(p->gang_cpu_ns == 0xffeeddccbbaa9988ull);
	assert_int_equal(p->mode, MODE_DISTRIBUTED);
	assert_int_equal(p->phase, PHASE_PS);
	assert_int_equal(p->flags, SCHED_F_ACTIVE | STATUS_F_OWN);
	assert_int_equal(p->ps_us, 90000);
	assert_int_equal(p->ip_us, 100000);
	assert_int_equal(p->load_milli, 2500);
	assert_int_equal(p->members, 7);
	assert_int_equal(p->failsafe, 2);
	assert_int_equal(p->master_changes, 5);
	assert_int_equal(p->queue_full, 9);
	for (unsigned i = 0; i < REJ_COUNT; i++)
		assert_int_equal(p->rejected[i], i + 11);
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		assert_int_equal(p->late.n[i], i + 1);
		assert_true(p->op.n[i] == (i == 0 ? 0x01000000u :
		    i == HIST_BUCKETS - 1 ? 0xffffffffu : 0));
	}
	assert_true(p->late.sum_ns == 0x1000);
	assert_true(p->op.sum_ns == 0x8000000000000001ull);
	assert_string_equal(p->name, "n7");
}

/* Our encoder writes the documented bytes (the tag is not its job). */
static void
encodes_as(const uint8_t *want, size_t len)
{
	struct proto_msg m;
	enum proto_reject why;
	uint8_t buf[PROTO_MAX_DGRAM];
	size_t tag;

	assert_int_equal(proto_decode(want, len, &m, &why), 0);
	tag = proto_tag_len(m.hdr.type);
	memset(buf, 0xa5, sizeof(buf));
	assert_int_equal(proto_encode(&m, buf, sizeof(buf)), (int)(len - tag));
	assert_memory_equal(buf, want, len - tag);
}

static void
test_schedule_encodes(void **state)
{
	(void)state;
	encodes_as(schedule_dgram, sizeof(schedule_dgram));
}

static void
test_job_encodes(void **state)
{
	(void)state;
	encodes_as(job_req_dgram, sizeof(job_req_dgram));
	encodes_as(job_dgram, sizeof(job_dgram));
}

/* b with byte off set to v decodes to -1 with why REJ_RANGE. */
static void
refused(const uint8_t *dgram, size_t len, size_t off, uint8_t v)
{
	uint8_t b[PROTO_MAX_DGRAM];
	struct proto_msg m;
	enum proto_reject why = REJ_COUNT;

	memcpy(b, dgram, len);
	b[off] = v;
	assert_int_equal(proto_decode(b, len, &m, &why), -1);
	assert_int_equal(why, REJ_RANGE);
}

/* v5: pads and unused entries are zero; counts at most 8; a used name
 * ends within its field. */
static void
test_v5_refusals(void **state)
{
	const size_t P = PROTO_HDR_LEN;

	(void)state;
	refused(schedule_dgram, sizeof(schedule_dgram), P + 24, 9); /* nslots */
	refused(schedule_dgram, sizeof(schedule_dgram), P + 25, 1); /* pad */
	refused(schedule_dgram, sizeof(schedule_dgram), P + 31, 1);
	refused(schedule_dgram, sizeof(schedule_dgram), P + 112, 'x');
	refused(schedule_dgram, sizeof(schedule_dgram), P + 351, 1);
	refused(schedule_dgram, sizeof(schedule_dgram), P + 24, 1); /* slot 1
								      unused */
	refused(status_dgram, sizeof(status_dgram), P + 128, 9);   /* njobs */
	refused(status_dgram, sizeof(status_dgram), P + 128, 1);   /* job 1 */
	refused(status_dgram, sizeof(status_dgram), P + 129, 1);   /* pad */
	refused(status_dgram, sizeof(status_dgram), P + 423, 1);   /* job 7 */
	refused(status_dgram, sizeof(status_dgram), P + 136 + 31, 'x');
	refused(status_dgram, sizeof(status_dgram), P + 136 + 10, 'x');
	refused(schedule_dgram, sizeof(schedule_dgram), P + 72 + 20, 'x');
	refused(job_req_dgram, sizeof(job_req_dgram), P + 4, 1);   /* pad */
	refused(job_req_dgram, sizeof(job_req_dgram), P + 71, 1);
	refused(job_dgram, sizeof(job_dgram), P + 7, 9);           /* count */
	refused(job_dgram, sizeof(job_dgram), P + 7, 1);   /* none, a name */
	refused(job_dgram, sizeof(job_dgram), P + 71, 2);  /* running 2 */
	refused(job_dgram, sizeof(job_dgram), P + 8 + 31, 'x');
}

static void
test_status_encodes(void **state)
{
	(void)state;
	encodes_as(status_dgram, sizeof(status_dgram));
}

static void
test_trace_encodes(void **state)
{
	(void)state;
	encodes_as(trace_dgram, sizeof(trace_dgram));
}

static void
test_metrics_encodes(void **state)
{
	uint8_t b[sizeof(metrics_dgram)];
	struct proto_msg m;
	enum proto_reject why;

	(void)state;
	encodes_as(metrics_dgram, sizeof(metrics_dgram));
	/* the reserved byte is 0, or the reply is out of range */
	memcpy(b, metrics_dgram, sizeof(b));
	b[24 + 59] = 1;
	assert_int_equal(proto_decode(b, sizeof(b), &m, &why), -1);
	assert_int_equal(why, REJ_RANGE);
}

/* One byte off the documented layout is refused, with its reason. */
static void
test_layout_refusals(void **state)
{
	uint8_t b[sizeof(status_dgram)];
	struct proto_msg m;
	enum proto_reject why;

	(void)state;
	memcpy(b, status_dgram, sizeof(b));
	b[4] = 2;			/* version 2 */
	assert_int_equal(proto_decode(b, sizeof(b), &m, &why), -1);
	assert_int_equal(why, REJ_MAGIC);
	memcpy(b, status_dgram, sizeof(b));
	b[7] = 0xa7;			/* payload length 423 */
	assert_int_equal(proto_decode(b, sizeof(b), &m, &why), -1);
	assert_int_equal(why, REJ_LENGTH);
	memcpy(b, status_dgram, sizeof(b));
	b[15] = 1;			/* a reply with a key_id */
	assert_int_equal(proto_decode(b, sizeof(b), &m, &why), -1);
	assert_int_equal(proto_decode(status_dgram, sizeof(status_dgram) - 1,
	    &m, &why), -1);		/* the tag one byte short */
	assert_int_equal(why, REJ_LENGTH);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_decodes),
		cmocka_unit_test(test_trace_decodes),
		cmocka_unit_test(test_status_encodes),
		cmocka_unit_test(test_trace_encodes),
		cmocka_unit_test(test_metrics_decodes),
		cmocka_unit_test(test_metrics_encodes),
		cmocka_unit_test(test_layout_refusals),
		cmocka_unit_test(test_schedule_decodes),
		cmocka_unit_test(test_schedule_encodes),
		cmocka_unit_test(test_job_decodes),
		cmocka_unit_test(test_job_encodes),
		cmocka_unit_test(test_v5_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
