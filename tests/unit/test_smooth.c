/*
 * test_smooth.c - the load index (load/smooth.c) and the run-queue samples
 * (load/sample.c) of dts-load.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "proto.h"
#include "sample.h"
#include "smooth.h"
#include "timeutil.h"

#define LI_DEFAULT (10 * NS_PER_SEC)
#define W_DEFAULT  (60 * NS_PER_SEC)

/* cmocka 1.1 compares only floats; these need doubles. */
#define assert_near(a, b, eps) check_near((a), (b), (eps), __FILE__, __LINE__)

static void
check_near(double a, double b, double eps, const char *file, int line)
{
	if (fabs(a - b) <= eps)
		return;
	print_error("%.17g != %.17g (within %g)\n", a, b, eps);
	_fail(file, line);
}

/* A smoother with d = 0: Q is exactly the last q, to test the threshold. */
static void
smooth_unsmoothed(struct smooth *s, double threshold)
{
	smooth_init(s, LI_DEFAULT, 0, threshold);
	assert_true(s->d == 0.0);
}

static void
test_decay_default(void **state)
{
	struct smooth	 s;

	(void)state;
	smooth_init(&s, LI_DEFAULT, W_DEFAULT, 1.0);
	assert_near(s.d, exp(-1.0 / 6.0), 1e-12);
	assert_near(s.q, 0.0, 0.0);
	/* sub-second values for tests: the same ratio, the same d */
	smooth_init(&s, 100 * NS_PER_MS, 600 * NS_PER_MS, 1.0);
	assert_near(s.d, exp(-1.0 / 6.0), 1e-12);
}

static void
test_first_step(void **state)
{
	struct smooth	 s;
	double		 q;

	(void)state;
	smooth_init(&s, LI_DEFAULT, W_DEFAULT, 1.0);
	q = smooth_update(&s, 1.0);
	assert_near(q, 1.0 - s.d, 1e-12);
	assert_near(s.q, q, 0.0);
	/* Q_2 = Q_1 d + q (1 - d) */
	q = smooth_update(&s, 3.0);
	assert_near(q, (1.0 - s.d) * s.d + 3.0 * (1.0 - s.d), 1e-12);
}

static void
test_converges(void **state)
{
	struct smooth	 s;
	int		 i;

	(void)state;
	smooth_init(&s, LI_DEFAULT, W_DEFAULT, 1.0);
	for (i = 0; i < 60; i++)
		smooth_update(&s, 2.5);
	assert_near(s.q, 2.5, 1e-3);
	/* and back down towards 0 */
	for (i = 0; i < 60; i++)
		smooth_update(&s, 0.0);
	assert_near(s.q, 0.0, 1e-3);
}

/*
 * A step from 0 to 1 reaches 1/2 after W ln 2 = 41.6 s: between the 4th
 * and the 5th interval of 10 s.  (The thesis's P = 1/(LI N) would take
 * ~416 s, 41 intervals.)
 */
static void
test_half_life(void **state)
{
	struct smooth	 s;
	int		 i;

	(void)state;
	smooth_init(&s, LI_DEFAULT, W_DEFAULT, 1.0);
	for (i = 0; i < 4; i++)
		smooth_update(&s, 1.0);
	assert_true(s.q < 0.5);
	assert_near(s.q, 1.0 - exp(-4.0 / 6.0), 1e-12);
	smooth_update(&s, 1.0);
	assert_true(s.q > 0.5);
}

static void
test_disabled_smoothing(void **state)
{
	struct smooth	 s;

	(void)state;
	smooth_init(&s, 0, W_DEFAULT, 1.0);
	assert_near(smooth_update(&s, 0.75), 0.75, 0.0);
	smooth_init(&s, LI_DEFAULT, -1, 1.0);
	assert_near(smooth_update(&s, 0.75), 0.75, 0.0);
}

static void
test_threshold_reached(void **state)
{
	struct smooth	 s;

	(void)state;
	smooth_unsmoothed(&s, 1.0);
	assert_false(smooth_should_report(&s));	/* Q_0 = 0 */
	smooth_update(&s, 0.999);
	assert_false(smooth_should_report(&s));
	smooth_update(&s, 1.0);
	assert_true(smooth_should_report(&s));	/* ">=", not "<=" */
	smooth_update(&s, 1.5);
	assert_true(smooth_should_report(&s));
	/* a fall counts as much as a rise */
	smooth_mark_reported(&s);
	smooth_update(&s, 0.5);
	assert_true(smooth_should_report(&s));
	smooth_update(&s, 0.501);
	assert_false(smooth_should_report(&s));
}

/* Not reported: the reference stays where it was. */
static void
test_threshold_vs_last_reported(void **state)
{
	struct smooth	 s;
	int		 i;

	(void)state;
	smooth_unsmoothed(&s, 1.0);
	for (i = 1; i <= 3; i++) {
		smooth_update(&s, 0.3 * i);
		assert_false(smooth_should_report(&s));
	}
	smooth_update(&s, 0.3 * 4);
	assert_true(smooth_should_report(&s));
	smooth_mark_reported(&s);
	assert_near(s.last_reported, 1.2, 1e-12);
	assert_false(smooth_should_report(&s));
	smooth_update(&s, 1.5);
	assert_false(smooth_should_report(&s));
	smooth_update(&s, 2.2);
	assert_true(smooth_should_report(&s));
}

static void
test_threshold_fractional(void **state)
{
	struct smooth	 s;

	(void)state;
	smooth_unsmoothed(&s, 0.25);
	smooth_update(&s, 0.1);
	smooth_mark_reported(&s);
	smooth_update(&s, 0.35);	/* 0.35 - 0.1 rounds below 0.25 */
	assert_true(smooth_should_report(&s));
	smooth_update(&s, 0.3);
	assert_false(smooth_should_report(&s));
}

static void
test_mean_empty(void **state)
{
	struct sample_acc	 acc;
	double			 q = 42.0;

	(void)state;
	sample_reset(&acc);
	assert_int_equal(sample_mean(&acc, &q), 0);
	assert_near(q, 42.0, 0.0);	/* untouched */
}

static void
test_mean(void **state)
{
	struct sample_acc	 acc;
	double			 q = -1.0;

	(void)state;
	sample_reset(&acc);
	sample_add(&acc, 1.0);
	sample_add(&acc, 2.0);
	sample_add(&acc, 0.0);
	sample_add(&acc, 3.0);
	assert_int_equal(sample_mean(&acc, &q), 4);
	assert_near(q, 1.5, 1e-12);
	sample_reset(&acc);
	assert_int_equal(sample_mean(&acc, &q), 0);
}

static void
test_kind(void **state)
{
	(void)state;
	assert_int_equal(sample_kind(PHASE_LS, 0), SAMPLE_GANG_STOPPED);
	assert_int_equal(sample_kind(PHASE_PS, 0), SAMPLE_SKIP);
	assert_int_equal(sample_kind(PHASE_NONE, 0), SAMPLE_GANG_RUNS);
	assert_int_equal(sample_kind(77, 0), SAMPLE_SKIP);
	/* ls_policy idle: the gang runs in LS, its runnable members are
	 * subtracted; PS still takes no sample */
	assert_int_equal(sample_kind(PHASE_LS, 1), SAMPLE_GANG_RUNS);
	assert_int_equal(sample_kind(PHASE_PS, 1), SAMPLE_SKIP);
	assert_int_equal(sample_kind(PHASE_NONE, 1), SAMPLE_GANG_RUNS);
}

/* LS: everything running except dts-load itself is local load. */
static void
test_runq_ls(void **state)
{
	double	 v = -1.0;

	(void)state;
	assert_int_equal(sample_runq(SAMPLE_GANG_STOPPED, 3, 0, 1, 0, &v), 1);
	assert_near(v, 2.0, 0.0);
	/* the gang is stopped: its runnable count must not be subtracted */
	assert_int_equal(sample_runq(SAMPLE_GANG_STOPPED, 3, 2, 1, 0, &v), 1);
	assert_near(v, 2.0, 0.0);
	assert_int_equal(sample_runq(SAMPLE_GANG_STOPPED, 3, 0, 2, 1, &v), 1);
	assert_near(v, 1.0, 0.0);
	/* per_cpu off: not divided even on 2 CPUs */
	assert_int_equal(sample_runq(SAMPLE_GANG_STOPPED, 3, 0, 2, 0, &v), 1);
	assert_near(v, 2.0, 0.0);
	assert_int_equal(sample_runq(SAMPLE_GANG_STOPPED, 6, 0, 4, 1, &v), 1);
	assert_near(v, 1.25, 0.0);
}

static void
test_runq_ps(void **state)
{
	double	 v = -1.0;

	(void)state;
	assert_int_equal(sample_runq(SAMPLE_SKIP, 5, 0, 1, 0, &v), 0);
	assert_int_equal(sample_runq(SAMPLE_SKIP, 5, 2, 2, 1, &v), 0);
	assert_near(v, -1.0, 0.0);
}

static void
test_runq_none(void **state)
{
	double	 v = -1.0;

	(void)state;
	/* 5 running = dts-load + 2 gang members + 2 local processes */
	assert_int_equal(sample_runq(SAMPLE_GANG_RUNS, 5, 2, 1, 0, &v), 1);
	assert_near(v, 2.0, 0.0);
	assert_int_equal(sample_runq(SAMPLE_GANG_RUNS, 5, 2, 2, 1, &v), 1);
	assert_near(v, 1.0, 0.0);
}

static void
test_runq_never_negative(void **state)
{
	double	 v = -1.0;

	(void)state;
	assert_int_equal(sample_runq(SAMPLE_GANG_STOPPED, 0, 0, 1, 0, &v), 1);
	assert_near(v, 0.0, 0.0);
	assert_int_equal(sample_runq(SAMPLE_GANG_STOPPED, 1, 0, 2, 1, &v), 1);
	assert_near(v, 0.0, 0.0);
	/* the gang count and procs_running are read at different moments */
	assert_int_equal(sample_runq(SAMPLE_GANG_RUNS, 2, 4, 1, 0, &v), 1);
	assert_near(v, 0.0, 0.0);
	/* /proc/stat unreadable: no sample rather than a wrong one */
	assert_int_equal(sample_runq(SAMPLE_GANG_STOPPED, -1, 0, 1, 0, &v), 0);
	/* a bogus CPU count does not divide */
	assert_int_equal(sample_runq(SAMPLE_GANG_STOPPED, 3, 0, 0, 1, &v), 1);
	assert_near(v, 2.0, 0.0);
}

/* The pieces together: one LI of samples, half of them skipped in PS. */
static void
test_interval(void **state)
{
	struct sample_acc	 acc;
	struct smooth		 s;
	static const unsigned	 phase[] = { PHASE_PS, PHASE_LS, PHASE_PS,
	    PHASE_LS, PHASE_PS, PHASE_LS };
	size_t			 i;
	double			 v, q;

	(void)state;
	smooth_init(&s, LI_DEFAULT, W_DEFAULT, 1.0);
	sample_reset(&acc);
	for (i = 0; i < sizeof(phase) / sizeof(phase[0]); i++)
		if (sample_runq(sample_kind(phase[i], 0), 4, 3, 1, 0, &v))
			sample_add(&acc, v);
	assert_int_equal(sample_mean(&acc, &q), 3);
	assert_near(q, 3.0, 0.0);
	assert_near(smooth_update(&s, q), 3.0 * (1.0 - s.d), 1e-12);
	/* 0.46 after one LI; 1 - d^n >= 1/3 first at n = 3 */
	assert_false(smooth_should_report(&s));
	smooth_update(&s, q);
	assert_false(smooth_should_report(&s));
	smooth_update(&s, q);
	assert_true(smooth_should_report(&s));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decay_default),
		cmocka_unit_test(test_first_step),
		cmocka_unit_test(test_converges),
		cmocka_unit_test(test_half_life),
		cmocka_unit_test(test_disabled_smoothing),
		cmocka_unit_test(test_threshold_reached),
		cmocka_unit_test(test_threshold_vs_last_reported),
		cmocka_unit_test(test_threshold_fractional),
		cmocka_unit_test(test_mean_empty),
		cmocka_unit_test(test_mean),
		cmocka_unit_test(test_kind),
		cmocka_unit_test(test_runq_ls),
		cmocka_unit_test(test_runq_ps),
		cmocka_unit_test(test_runq_none),
		cmocka_unit_test(test_runq_never_negative),
		cmocka_unit_test(test_interval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
