/*
 * test_wire.c - the layout of doc/protocol.txt against our code, on the
 * document's own example datagrams (vectors.h; test_golden.c checks
 * their field values and tags): proto_encode() must write the very
 * bytes the document shows, and one byte off the documented layout (a
 * pad, an unused entry, a count, a name that does not end in its field,
 * the version, the length) is refused with its reason.  (test_proto.c
 * only round-trips through our own encoder, which would agree with a
 * decoder that shares its mistake.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "proto.h"
#include "vectors.h"
#include "wire.h"

/* Our encoder writes the documented bytes (the tag is not its job). */
static void
encodes_as(const char *name)
{
	struct vector v;
	struct proto_msg m;
	enum proto_reject why;
	uint8_t buf[PROTO_MAX_DGRAM];
	size_t tag;

	vector_load(name, &v);
	assert_int_equal(proto_decode(v.b, v.len, &m, &why), 0);
	tag = proto_tag_len(m.hdr.type);
	memset(buf, 0xa5, sizeof(buf));
	assert_int_equal(proto_encode(&m, buf, sizeof(buf)),
	    (int)(v.len - tag));
	assert_memory_equal(buf, v.b, v.len - tag);
}

static void
test_encodes(void **state)
{
	static const char *const names[] = {
		"SCHEDULE", "SCHEDULE_SLOTS", "STATUS_REQ", "TRACE_REQ",
		"METRICS_REQ", "JOB_REQ", "STATUS", "STATUS_JOBS", "LOAD",
		"TRACE", "METRICS", "JOB", "READ_JOB_REQ", "READ_JOB",
		"WEIGHT", "JOB_MEM_REQ", "JOB_MEM",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		encodes_as(names[i]);
}

/* The vector with byte off set to b decodes to -1 with why REJ_RANGE. */
static void
refused(const char *name, size_t off, uint8_t b)
{
	struct vector v;
	struct proto_msg m;
	enum proto_reject why = REJ_COUNT;

	vector_load(name, &v);
	assert_true(off < v.len);
	assert_int_equal(proto_decode(v.b, v.len, &m, &why), 0);
	assert_int_not_equal(v.b[off], b);
	v.b[off] = b;
	if (proto_decode(v.b, v.len, &m, &why) != -1)
		fail_msg("%s with byte %zu = 0x%02x accepted", name, off, b);
	assert_int_equal(why, REJ_RANGE);
}

/* v5: pads and unused entries are zero; counts at most 8; a used name
 * ends within its field.  (SCHEDULE_SLOTS: 2 slots, "alice:vm1" and
 * "bob:pvm"; STATUS_JOBS: 2 jobs, "alice:vm1" first; JOB: index 1 of 2,
 * "bob:pvm", not running.) */
static void
test_v5_refusals(void **state)
{
	const size_t P = PROTO_HDR_LEN;

	(void)state;
	refused("SCHEDULE_SLOTS", P + 24, 9);		/* nslots */
	refused("SCHEDULE_SLOTS", P + 25, 7);		/* nheld: 2 + 7 > 8 */
	refused("SCHEDULE_SLOTS", P + 26, 1);		/* pad */
	refused("SCHEDULE_SLOTS", P + 31, 1);
	refused("SCHEDULE_SLOTS", P + 112, 'x');	/* slot 2, unused */
	refused("SCHEDULE_SLOTS", P + 351, 1);		/* slot 7 */
	refused("SCHEDULE_SLOTS", P + 24, 1);		/* slot 1 unused */
	refused("SCHEDULE_SLOTS", P + 72 + 20, 'x');	/* after its NUL */
	refused("STATUS_JOBS", P + 128, 9);		/* njobs */
	refused("STATUS_JOBS", P + 128, 1);		/* job 1 unused */
	refused("STATUS_JOBS", P + 131, 1);		/* pad (129, 130: users, ncpu) */
	refused("STATUS_JOBS", P + 423, 1);		/* job 7 */
	refused("STATUS_JOBS", P + 136 + 31, 'x');	/* no NUL */
	refused("STATUS_JOBS", P + 136 + 10, 'x');	/* after its NUL */
	refused("STATUS_JOBS", P + 136 + 32, 101);	/* weight > 100 */
	refused("STATUS_JOBS", P + 136 + 32, 255);
	refused("JOB_REQ", P + 4, 1);			/* pad */
	refused("JOB_REQ", P + 71, 1);
	refused("JOB", P + 7, 9);			/* count */
	refused("JOB", P + 7, 1);			/* none, a name */
	refused("JOB", P + 71, 2);			/* running 2 */
	refused("JOB", P + 8 + 31, 'x');
	refused("METRICS", P + 59, 1);			/* reserved */
	/* JOB_MEM_REQ: index 1; JOB_MEM: index 1 of 2, "bob:pvm" */
	refused("JOB_MEM_REQ", P + 4, 1);		/* pad */
	refused("JOB_MEM_REQ", P + 71, 1);
	refused("JOB_MEM", P + 7, 9);			/* count */
	refused("JOB_MEM", P + 7, 1);			/* none, a name */
	refused("JOB_MEM", P + 8 + 31, 'x');		/* no NUL */
	refused("JOB_MEM", P + 8 + 10, 'x');		/* after its NUL */
	/* WEIGHT: generation 3, entry 1 of 2, "alice:vm1" */
	refused("WEIGHT", P + 5, 2);			/* index 2 of 2 */
	refused("WEIGHT", P + 7, 1);			/* 1 of 1 */
	refused("WEIGHT", P + 6, 1);			/* count 258 */
	refused("WEIGHT", P + 9, 1);			/* pad */
	refused("WEIGHT", P + 11, 1);
	refused("WEIGHT", P + 16 + 20, 'x');		/* after its NUL */
	refused("WEIGHT", P + 79, 'x');
}

/* One byte off the documented layout is refused, with its reason. */
static void
test_layout_refusals(void **state)
{
	struct vector v, b;
	struct proto_msg m;
	enum proto_reject why;

	(void)state;
	vector_load("STATUS", &v);
	b = v;
	b.b[4] = 2;			/* version 2 */
	assert_int_equal(proto_decode(b.b, b.len, &m, &why), -1);
	assert_int_equal(why, REJ_MAGIC);
	b = v;
	b.b[7]--;			/* payload length one less */
	assert_int_equal(proto_decode(b.b, b.len, &m, &why), -1);
	assert_int_equal(why, REJ_LENGTH);
	b = v;
	b.b[15] = 1;			/* a reply with a key_id */
	assert_int_equal(proto_decode(b.b, b.len, &m, &why), -1);
	assert_int_equal(proto_decode(v.b, v.len - 1, &m, &why), -1);
	assert_int_equal(why, REJ_LENGTH);	/* the tag one byte short */
}

/*
 * Where the document's vectors hold zeros or equal values, a decoder
 * could read one counter from another's offset unnoticed: each of the
 * rejected[] counters, and each histogram bucket, set apart here at its
 * documented offset (STATUS: rejected at 48; METRICS: rejected at 88,
 * late at 128, op at 184, 4 bytes each) and read back from there.
 */
static void
test_arrays_in_place(void **state)
{
	const size_t P = PROTO_HDR_LEN;
	struct vector v;
	struct proto_msg m;
	enum proto_reject why;

	(void)state;
	vector_load("STATUS", &v);
	for (unsigned i = 0; i < REJ_COUNT; i++)
		v.b[P + 48 + 4 * i + 3] = (uint8_t)(i + 1);
	v.b[P + 48] = 0x80;		/* the high byte of rejected[0] */
	assert_int_equal(proto_decode(v.b, v.len, &m, &why), 0);
	assert_true(m.u.status.rejected[0] == 0x80000001u);
	for (unsigned i = 1; i < REJ_COUNT; i++)
		assert_int_equal(m.u.status.rejected[i], i + 1);
	vector_load("METRICS", &v);
	for (unsigned i = 0; i < REJ_COUNT; i++)
		v.b[P + 88 + 4 * i + 3] = (uint8_t)(i + 11);
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		memset(v.b + P + 128 + 4 * i, 0, 4);
		memset(v.b + P + 184 + 4 * i, 0, 4);
		v.b[P + 128 + 4 * i + 3] = (uint8_t)(i + 1);
		v.b[P + 184 + 4 * i] = (uint8_t)(i + 1);
	}
	assert_int_equal(proto_decode(v.b, v.len, &m, &why), 0);
	for (unsigned i = 0; i < REJ_COUNT; i++)
		assert_int_equal(m.u.metrics.rejected[i], i + 11);
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		assert_int_equal(m.u.metrics.late.n[i], i + 1);
		assert_true(m.u.metrics.op.n[i] == (i + 1) << 24);
	}
}

/*
 * Held jobs (nheld, byte 25): after the slots, each a name with start
 * and length 0, as the document says; a held entry with a slot, named
 * twice or past the table is refused (decode, or the range check).
 */
static void
test_held(void **state)
{
	const size_t P = PROTO_HDR_LEN;
	struct vector v;
	struct proto_msg m, out;
	struct proto_schedule t;
	enum proto_reject why;
	uint8_t buf[PROTO_MAX_DGRAM];
	const char *err;
	int n;

	(void)state;
	vector_load("SCHEDULE_SLOTS", &v);
	assert_int_equal(proto_decode(v.b, v.len, &m, &why), 0);
	m.u.schedule.nheld = 1;
	strcpy(m.u.schedule.slot[2].job, "carol:big");
	n = proto_encode(&m, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal(buf[P + 24], 2);
	assert_int_equal(buf[P + 25], 1);
	assert_memory_equal(buf + P + 32 + 2 * 40, "carol:big", 10);
	assert_int_equal(proto_decode(buf, (size_t)n + proto_tag_len(
	    PROTO_SCHEDULE), &out, &why), 0);
	assert_int_equal(out.u.schedule.nheld, 1);
	assert_string_equal(out.u.schedule.slot[2].job, "carol:big");
	assert_int_equal(proto_check_schedule(&out.u.schedule, &err), 0);
	/* a held entry's slot, a name twice, an empty name */
	t = out.u.schedule;
	t.slot[2].len_us = 10;
	assert_int_equal(proto_check_schedule(&t, &err), -1);
	assert_non_null(strstr(err, "held job 0 (carol:big) has a slot"));
	t = out.u.schedule;
	memset(t.slot[2].job, 0, sizeof(t.slot[2].job));
	strcpy(t.slot[2].job, "bob:pvm");
	assert_int_equal(proto_check_schedule(&t, &err), -1);
	assert_string_equal(err, "held job 0 (bob:pvm) is named twice");
	t = out.u.schedule;
	t.nheld = 2;
	assert_int_equal(proto_check_schedule(&t, &err), -1);
	assert_non_null(strstr(err, "held job 1"));
	t.nheld = 7;
	assert_int_equal(proto_check_schedule(&t, &err), -1);
	assert_non_null(strstr(err, "2 slots and 7 held jobs"));
	/* an entry past nslots + nheld is refused as before */
	t = out.u.schedule;
	t.nheld = 0;
	assert_int_equal(proto_check_schedule(&t, &err), -1);
	assert_non_null(strstr(err, "slot 2 is unused"));
	/* held alone, no slot (nslots 0) */
	memset(&t.slot, 0, sizeof(t.slot));
	t.nslots = 0;
	t.nheld = 1;
	strcpy(t.slot[0].job, "carol:big");
	assert_int_equal(proto_check_schedule(&t, &err), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encodes),
		cmocka_unit_test(test_v5_refusals),
		cmocka_unit_test(test_held),
		cmocka_unit_test(test_layout_refusals),
		cmocka_unit_test(test_arrays_in_place),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
