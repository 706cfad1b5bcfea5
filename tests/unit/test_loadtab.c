/*
 * test_loadtab.c - Table 2.1 (a load's LS share, and the PS it leaves)
 * and the kernel's real-time budget check.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "loadtab.h"
#include "timeutil.h"

#define assert_contains(hay, needle) do {				\
	if (strstr((hay), (needle)) == NULL)				\
		fail_msg("\"%s\" does not contain \"%s\"", (hay), (needle)); \
} while (0)

/* Entry i applies up to (i+1) * step; the last one above; NaN: the last. */
static void
test_ls_pct(void **state)
{
	struct load_table	 t = { .step = 0.5, .n = 3,
	    .ls_pct = { 10, 40, 70 } };
	struct load_table	 none = { .step = 0.5, .n = 0 };

	(void)state;
	assert_int_equal(loadtab_ls_pct(&t, 0), 10);
	assert_int_equal(loadtab_ls_pct(&t, 0.5), 10);
	assert_int_equal(loadtab_ls_pct(&t, 0.51), 40);
	assert_int_equal(loadtab_ls_pct(&t, 1.0), 40);
	assert_int_equal(loadtab_ls_pct(&t, 1.01), 70);
	assert_int_equal(loadtab_ls_pct(&t, 1e9), 70);
	assert_int_equal(loadtab_ls_pct(&t, -1), 10);
	assert_int_equal(loadtab_ls_pct(&t, NAN), 70);
	assert_int_equal(loadtab_ls_pct(&none, 1), 0);
}

/* PS = IP * (100 - ls) / 100, cut to whole microseconds. */
static void
test_ps(void **state)
{
	(void)state;
	assert_int_equal(loadtab_ps(100 * NS_PER_MS, 20), 80 * NS_PER_MS);
	assert_int_equal(loadtab_ps(NS_PER_SEC, 0), NS_PER_SEC);
	assert_int_equal(loadtab_ps(NS_PER_SEC, 100), 0);
	/* 1.5 us * 50 % = 750 ns: no whole microsecond */
	assert_int_equal(loadtab_ps(1500, 50), 0);
	assert_int_equal(loadtab_ps(3 * NS_PER_US + 999, 0), 3 * NS_PER_US);
}

static void
test_rt_budget_share(void **state)
{
	char	 err[512] = "";

	(void)state;
	assert_int_equal(rt_budget_check(980 * NS_PER_MS, NS_PER_SEC, 950000,
	    1000000, err, sizeof(err)), -1);
	assert_string_equal(err, "PS 980ms of IP 1s is 98% but the kernel "
	    "allows real-time tasks only 95% (sched_rt_runtime_us=950000 of "
	    "sched_rt_period_us=1000000)");
	assert_int_equal(rt_budget_check(96 * NS_PER_MS, 100 * NS_PER_MS,
	    950000, 1000000, err, sizeof(err)), -1);
	assert_contains(err, "is 96%");
	assert_int_equal(rt_budget_check(9505 * NS_PER_US, 10 * NS_PER_MS,
	    950000, 1000000, err, sizeof(err)), -1);
	assert_contains(err, "95.05%");
}

static void
test_rt_budget_runtime(void **state)
{
	char	 err[512] = "";

	(void)state;
	assert_int_equal(rt_budget_check(1200 * NS_PER_MS, 2 * NS_PER_SEC,
	    950000, 1000000, err, sizeof(err)), -1);
	assert_contains(err, "PS 1.2s is longer than the kernel's real-time "
	    "runtime 950ms per 1s");
	assert_contains(err, "sched_rt_runtime_us=950000");
	/* 951ms of 10s is a small share but still too long a stretch */
	assert_int_equal(rt_budget_check(951 * NS_PER_MS, 10 * NS_PER_SEC,
	    950000, 1000000, err, sizeof(err)), -1);
	assert_contains(err, "PS 951ms is longer");
}

static void
test_rt_budget_ok(void **state)
{
	char	 err[512] = "untouched";

	(void)state;
	assert_int_equal(rt_budget_check(950 * NS_PER_MS, NS_PER_SEC, 950000,
	    1000000, err, sizeof(err)), 0);		/* exactly at the cap */
	assert_int_equal(rt_budget_check(80 * NS_PER_MS, 100 * NS_PER_MS,
	    950000, 1000000, err, sizeof(err)), 0);
	assert_int_equal(rt_budget_check(900 * NS_PER_MS, NS_PER_SEC, 950000,
	    1000000, err, sizeof(err)), 0);
	/* unlimited (-1): anything goes */
	assert_int_equal(rt_budget_check(59 * NS_PER_SEC, 60 * NS_PER_SEC, -1,
	    1000000, err, sizeof(err)), 0);
	assert_string_equal(err, "untouched");
}

static void
test_rt_budget_read(void **state)
{
	long	 rt = -7, per = -7;

	(void)state;
	rt_budget_read(&rt, &per);
	assert_true(per > 0);
	assert_true(rt == -1 || (rt >= 0 && rt <= per));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ls_pct),
		cmocka_unit_test(test_ps),
		cmocka_unit_test(test_rt_budget_share),
		cmocka_unit_test(test_rt_budget_runtime),
		cmocka_unit_test(test_rt_budget_ok),
		cmocka_unit_test(test_rt_budget_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
