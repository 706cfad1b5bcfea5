/*
 * test_bucket.c - per-source token buckets: burst, refill, the global cap,
 * the master's exemption and eviction when the table is full.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bucket.h"

#define SEC 1000000000LL
#define T0  (100 * SEC)

/* How many datagrams from addr pass at instant now. */
static int
drain(struct buckets *t, uint32_t addr, int exempt, int64_t now, int tries)
{
	int ok = 0;

	for (int i = 0; i < tries; i++)
		ok += buckets_take(t, addr, exempt, now) == 0;
	return ok;
}

static void
test_burst_then_rate(void **state)
{
	struct buckets t;

	(void)state;
	buckets_init(&t, 50, 20, 1000, 1000, T0);
	assert_int_equal(drain(&t, 1, 0, T0, 100), 20);	/* the burst */
	assert_int_equal(drain(&t, 1, 0, T0 + SEC / 10, 100), 5); /* 50/s */
	assert_int_equal(drain(&t, 1, 0, T0 + 100 * SEC, 100), 20); /* capped */
}

static void
test_sources_independent(void **state)
{
	struct buckets t;

	(void)state;
	buckets_init(&t, 50, 20, 1000, 1000, T0);
	assert_int_equal(drain(&t, 1, 0, T0, 100), 20);
	assert_int_equal(drain(&t, 2, 0, T0, 100), 20);
	assert_int_equal(drain(&t, 1, 0, T0, 100), 0);
}

static void
test_global_cap_and_exempt(void **state)
{
	struct buckets t;
	int passed = 0;

	(void)state;
	buckets_init(&t, 50, 20, 100, 30, T0);
	for (uint32_t a = 1; a <= 10; a++)	/* many forged sources */
		passed += drain(&t, a, 0, T0, 20);
	assert_int_equal(passed, 30);		/* the global burst */
	assert_int_equal(drain(&t, 99, 0, T0, 5), 0);
	assert_int_equal(drain(&t, 99, 1, T0, 50), 20); /* the master: own bucket */
}

static void
test_eviction(void **state)
{
	struct buckets t;

	(void)state;
	buckets_init(&t, 50, 20, 1000000, 1000000, T0);
	assert_int_equal(drain(&t, 1, 0, T0, 100), 20);
	for (uint32_t a = 2; a < 2 + BUCKET_SOURCES; a++)
		(void)drain(&t, a, 0, T0 + 1, 1);
	assert_int_equal(t.n, BUCKET_SOURCES);
	/* source 1, heard longest ago, was forgotten: a full bucket again */
	assert_int_equal(drain(&t, 1, 0, T0 + 2, 100), 20);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_burst_then_rate),
		cmocka_unit_test(test_sources_independent),
		cmocka_unit_test(test_global_cap_and_exempt),
		cmocka_unit_test(test_eviction),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
