/*
 * test_timeutil.c - the duration and slice syntax, and duration_format().
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeutil.h"

#define assert_contains(hay, needle) do {				\
	if (strstr((hay), (needle)) == NULL)				\
		fail_msg("\"%s\" does not contain \"%s\"", (hay), (needle)); \
} while (0)

static int64_t
dur_ok(const char *s)
{
	char	 err[256] = "";
	int64_t	 ns = -42;

	if (duration_parse(s, &ns, err, sizeof(err)) != 0)
		fail_msg("\"%s\" rejected: %s", s, err);
	return ns;
}

static const char *
dur_err(const char *s)
{
	static char	 err[256];
	int64_t		 ns = -42;

	err[0] = '\0';
	if (duration_parse(s, &ns, err, sizeof(err)) != -1)
		fail_msg("\"%s\" accepted as %lld ns", s, (long long)ns);
	assert_int_equal(ns, -42);
	assert_null(strchr(err, '\n'));
	return err;
}

static void
test_duration_units(void **state)
{
	(void)state;
	assert_int_equal(dur_ok("800ms"), 800 * NS_PER_MS);
	assert_int_equal(dur_ok("1s"), NS_PER_SEC);
	assert_int_equal(dur_ok("2.5s"), 2500 * NS_PER_MS);
	assert_int_equal(dur_ok("250us"), 250 * NS_PER_US);
	assert_int_equal(dur_ok("10ns"), 10);
	assert_int_equal(dur_ok("1m"), 60 * NS_PER_SEC);
	assert_int_equal(dur_ok("1.5m"), 90 * NS_PER_SEC);
	assert_int_equal(dur_ok("1.5ms"), 1500 * NS_PER_US);
	assert_int_equal(dur_ok("0.25us"), 250);
}

static void
test_duration_plain_and_fractions(void **state)
{
	(void)state;
	assert_int_equal(dur_ok("2.5"), 2500 * NS_PER_MS);	/* seconds */
	assert_int_equal(dur_ok("0"), 0);
	assert_int_equal(dur_ok("0.1"), 100 * NS_PER_MS);	/* exact */
	assert_int_equal(dur_ok(".5s"), 500 * NS_PER_MS);
	assert_int_equal(dur_ok("1."), NS_PER_SEC);
	assert_int_equal(dur_ok("0.000000001"), 1);
	assert_int_equal(dur_ok("0.0000000005"), 1);		/* rounds */
	assert_int_equal(dur_ok("0.0000000004"), 0);
	assert_int_equal(dur_ok("0.1234567891234567891234s"), 123456789);
	assert_int_equal(dur_ok("86400"), 86400 * NS_PER_SEC);	/* > 1 day ok */
	assert_int_equal(dur_ok("007ms"), 7 * NS_PER_MS);
	assert_int_equal(dur_ok("9223372036s"), 9223372036 * NS_PER_SEC);
	assert_int_equal(dur_ok("9223372036854775807ns"), INT64_MAX);
}

static void
test_duration_errors(void **state)
{
	(void)state;
	assert_string_equal(dur_err("10xs"),
	    "\"10xs\": unknown unit \"xs\" (use ns, us, ms, s or m)");
	assert_contains(dur_err("1h"), "unknown unit \"h\"");
	assert_contains(dur_err("1 s"), "unknown unit \" s\"");
	assert_contains(dur_err("1S"), "unknown unit \"S\"");
	assert_contains(dur_err(""), "empty");
	assert_contains(dur_err("-1s"), "\"-1s\"");
	assert_contains(dur_err("-1s"), "negative");
	assert_contains(dur_err("-0"), "negative");
	assert_contains(dur_err("abc"), "\"abc\": not a duration");
	assert_contains(dur_err("ms"), "not a duration");
	assert_contains(dur_err("."), "not a duration");
	assert_contains(dur_err("+1s"), "not a duration");
	assert_contains(dur_err("1.2.3s"), "not a duration");
	assert_contains(dur_err("1e3"), "unknown unit \"e3\"");
	assert_contains(dur_err("9223372037s"), "too large");
	assert_contains(dur_err("9223372036854775808ns"), "too large");
	assert_contains(dur_err("99999999999999999999999999s"), "too large");
	assert_contains(dur_err("153722867.3m"), "too large");
}

static void
test_duration_null(void **state)
{
	char	 err[64];
	int64_t	 ns;

	(void)state;
	assert_int_equal(duration_parse(NULL, &ns, err, sizeof(err)), -1);
	assert_contains(err, "empty");
}

static void
test_slice_percent(void **state)
{
	char	 err[256];
	int64_t	 ns;
	int32_t	 pm;
	size_t	 i;
	static const struct { const char *s; int32_t pm; } ok[] = {
		{ "80%", 80000 }, { "62.5%", 62500 }, { "0.001%", 1 },
		{ "99.999%", 99999 }, { "50.0005%", 50001 }, { "1%", 1000 },
		{ "33.3334%", 33333 },
	};

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ns = 7;
		pm = 7;
		if (slice_parse(ok[i].s, &ns, &pm, err, sizeof(err)) != 0)
			fail_msg("\"%s\": %s", ok[i].s, err);
		assert_int_equal(pm, ok[i].pm);
		assert_int_equal(ns, -1);
	}
}

static void
test_slice_duration(void **state)
{
	char	 err[256];
	int64_t	 ns = 0;
	int32_t	 pm = 0;

	(void)state;
	assert_int_equal(slice_parse("800ms", &ns, &pm, err, sizeof(err)), 0);
	assert_int_equal(ns, 800 * NS_PER_MS);
	assert_int_equal(pm, -1);
	assert_int_equal(slice_parse("0.5", &ns, &pm, err, sizeof(err)), 0);
	assert_int_equal(ns, 500 * NS_PER_MS);
	assert_int_equal(slice_parse("5xs", &ns, &pm, err, sizeof(err)), -1);
	assert_contains(err, "unknown unit \"xs\"");
}

static void
test_slice_errors(void **state)
{
	static const struct { const char *s, *why; } bad[] = {
		{ "100%", "less than 100%" }, { "0%", "more than 0%" },
		{ "150%", "less than 100%" }, { "0.0001%", "more than 0%" },
		{ "99.9999%", "less than 100%" }, { "-5%", "not a percentage" },
		{ "%", "not a percentage" }, { "abc%", "not a percentage" },
		{ "8 0%", "not a percentage" }, { "80%%", "not a percentage" },
		{ "1e1%", "not a percentage" },
		{ "99999999999999999999999%", "less than 100%" },
	};
	char	 err[256];
	int64_t	 ns;
	int32_t	 pm;
	size_t	 i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (slice_parse(bad[i].s, &ns, &pm, err, sizeof(err)) != -1)
			fail_msg("\"%s\" accepted", bad[i].s);
		assert_contains(err, bad[i].why);
		assert_contains(err, bad[i].s);
	}
}

static void
test_duration_format(void **state)
{
	static const struct { int64_t ns; const char *s; } f[] = {
		{ NS_PER_SEC, "1s" }, { 800 * NS_PER_MS, "800ms" },
		{ 1500 * NS_PER_US, "1.5ms" }, { 250 * NS_PER_US, "250us" },
		{ 10 * NS_PER_SEC, "10s" }, { 90 * NS_PER_SEC, "90s" },
		{ 0, "0s" }, { 500, "500ns" }, { 1500, "1.5us" },
		{ 1234567, "1234.567us" }, { 1001 * NS_PER_MS, "1.001s" },
		{ 1000001, "1000.001us" }, { -2 * NS_PER_SEC, "-2s" },
		{ 86400 * NS_PER_SEC, "86400s" }, { 2500 * NS_PER_MS, "2.5s" },
	};
	char	 buf[32];
	size_t	 i;

	(void)state;
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		assert_string_equal(duration_format(f[i].ns, buf, sizeof(buf)),
		    f[i].s);
}

static void
test_duration_round_trip(void **state)
{
	char	 buf[32];
	int64_t	 ns, back;
	int	 i;

	(void)state;
	srandom(12345);
	for (i = 0; i < 20000; i++) {
		ns = ((int64_t)random() << 20 ^ random()) %
		    (100000 * NS_PER_SEC);
		if (i % 4 == 0)
			ns -= ns % NS_PER_MS;
		duration_format(ns, buf, sizeof(buf));
		back = dur_ok(buf);
		if (back != ns)
			fail_msg("%lld -> \"%s\" -> %lld", (long long)ns, buf,
			    (long long)back);
	}
}

static void
test_clocks(void **state)
{
	int64_t	 a, b;

	(void)state;
	a = now_mono_ns();
	b = now_mono_ns();
	assert_true(a > 0 && b >= a);
	assert_true(now_real_ns() > 1600000000LL * NS_PER_SEC);
	assert_true(now_real_us() > 1600000000ULL * 1000000ULL);
}

static void
test_ns_to_ts(void **state)
{
	struct timespec	 ts = ns_to_ts(2500 * NS_PER_MS + 7);

	(void)state;
	assert_int_equal(ts.tv_sec, 2);
	assert_int_equal(ts.tv_nsec, 500000007);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duration_units),
		cmocka_unit_test(test_duration_plain_and_fractions),
		cmocka_unit_test(test_duration_errors),
		cmocka_unit_test(test_duration_null),
		cmocka_unit_test(test_slice_percent),
		cmocka_unit_test(test_slice_duration),
		cmocka_unit_test(test_slice_errors),
		cmocka_unit_test(test_duration_format),
		cmocka_unit_test(test_duration_round_trip),
		cmocka_unit_test(test_clocks),
		cmocka_unit_test(test_ns_to_ts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
