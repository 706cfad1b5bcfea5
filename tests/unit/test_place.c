/*
 * test_place.c - dts-place's goodness and plans (place/goodness.c): the
 * free host first, W, RT gangs, the RAM threshold, the participation
 * threshold, the owner last, the history factor, stale reports, the
 * repeated checks, the circle when no load is known, and a plan that is
 * the circle's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "goodness.h"

#define S 1000000000LL

static const struct place_conf defaults = {
	.history = 0.5, .threshold = 1, .reserve = 0.5, .load_weight = 1,
	.rt_weight = 1, .mem_min_mib = 1, .checks = 3, .stale_ns = 2 * S,
};

/* n hosts "h0".. of 2 CPUs, W 1, no report. */
static void
hosts(struct place_host *h, int n)
{
	int	 i;

	memset(h, 0, sizeof(*h) * (size_t)n);
	for (i = 0; i < n; i++) {
		h[i].name[0] = 'h';
		h[i].name[1] = (char)('0' + i);
		h[i].w = 1;
		h[i].ncpu = 1;
	}
}

/* k reports of q (per CPU) for host i, 1 s apart from t. */
static void
report(struct place_host *h, int n, int i, const struct place_conf *c,
    struct place_report r, int k, int64_t t)
{
	int	 j;

	if (r.ncpu == 0)
		r.ncpu = 2;
	for (j = 0; j < k; j++) {
		place_take(&h[i], c, &r, t + j * S);
		place_check(&h[i], c, place_mean(h, n, -1, c));
	}
}

static int
count(const int *out, int n, int host)
{
	int	 i, k = 0;

	for (i = 0; i < n; i++)
		k += out[i] == host;
	return k;
}

/* One hog on h0, two on h1, none on h2 (2 CPUs each): the free host gets
 * the first task, then h0 and h2 tie (a CPU free each: the circle's order
 * decides); 6 tasks: 3, 2, 1. */
static void
test_free_host_first(void **state)
{
	struct place_host	 h[3];
	const char		*why;
	int			 out[6];

	(void)state;
	hosts(h, 3);
	report(h, 3, 0, &defaults, (struct place_report){ .q = 0.5 }, 1, S);
	report(h, 3, 1, &defaults, (struct place_report){ .q = 1.0 }, 1, S);
	report(h, 3, 2, &defaults, (struct place_report){ .q = 0 }, 1, S);
	assert_int_equal(place_plan(h, 3, &defaults, 2, 0, 2 * S, out, &why),
	    2);
	assert_int_equal(out[0], 2);
	assert_int_equal(out[1], 0);
	hosts(h, 3);
	report(h, 3, 0, &defaults, (struct place_report){ .q = 0.5 }, 1, S);
	report(h, 3, 1, &defaults, (struct place_report){ .q = 1.0 }, 1, S);
	report(h, 3, 2, &defaults, (struct place_report){ .q = 0 }, 1, S);
	assert_int_equal(place_plan(h, 3, &defaults, 6, 0, 2 * S, out, &why),
	    6);
	assert_int_equal(out[0], 2);
	assert_int_equal(count(out, 6, 2), 3);
	assert_int_equal(count(out, 6, 0), 2);
	assert_int_equal(count(out, 6, 1), 1);
	assert_int_equal(h[2].total, 3);
	assert_int_equal(h[2].placed, 3);
	assert_true(h[2].spawn_ns == 2 * S);
}

/* goodness = W * ncpu / (1 + runnable); a faster host wins a tie. */
static void
test_goodness(void **state)
{
	struct place_host	 h[2];
	struct place_conf	 c = defaults;
	const char		*why;
	int			 out[1];

	(void)state;
	hosts(h, 2);
	report(h, 2, 0, &c, (struct place_report){ .q = 0.5, .rt = 1,
	    .own = 1 }, 1, S);
	place_eval(h, 2, &c);
	/* 1 local runnable + 1 other gang's member + 1 task of ours */
	assert_true(fabs(h[0].runnable - 3) < 1e-9);
	assert_true(fabs(h[0].good - 2.0 / 4) < 1e-9);
	c.rt_weight = 0.5;
	c.load_weight = 2;
	place_eval(h, 2, &c);
	assert_true(fabs(h[0].runnable - 3.5) < 1e-9);
	hosts(h, 2);
	h[1].w = 2;
	report(h, 2, 0, &defaults, (struct place_report){ .q = 0 }, 1, S);
	report(h, 2, 1, &defaults, (struct place_report){ .q = 0 }, 1, S);
	assert_int_equal(place_plan(h, 2, &defaults, 1, 0, S, out, &why), 1);
	assert_int_equal(out[0], 1);
}

/* A host under place.mem_min takes no task, even idle; 0 is unknown. */
static void
test_ram(void **state)
{
	struct place_host	 h[2];
	struct place_conf	 c = defaults;
	const char		*why;
	int			 out[8];

	(void)state;
	c.mem_min_mib = 256;
	hosts(h, 2);
	report(h, 2, 0, &c, (struct place_report){ .q = 0, .mem_mib = 100 },
	    1, S);
	report(h, 2, 1, &c, (struct place_report){ .q = 1.5,
	    .mem_mib = 4096 }, 1, S);
	assert_int_equal(place_plan(h, 2, &c, 8, 0, S, out, &why), 8);
	assert_int_equal(count(out, 8, 0), 0);
	assert_int_equal(h[0].cls, PC_RAM);
	/* unknown free RAM (a node before the field): a candidate */
	hosts(h, 2);
	report(h, 2, 0, &c, (struct place_report){ .q = 0 }, 1, S);
	place_eval(h, 2, &c);
	assert_int_equal(h[0].cls, PC_CAND);
	/* every host short of RAM: the circle, and why */
	hosts(h, 1);
	report(h, 1, 0, &c, (struct place_report){ .mem_mib = 10 }, 1, S);
	assert_int_equal(place_plan(h, 1, &c, 1, 0, S, out, &why), -1);
	assert_string_equal(why, "no host may take a task");
	assert_int_equal(h[0].total, 0);
}

/* Over the mean by more than the threshold, checks reports in a row:
 * left out; fewer reports in a row: still a candidate. */
static void
test_participation(void **state)
{
	struct place_host	 h[3];
	const char		*why;
	int			 out[6];

	(void)state;
	/* the first report of all, a loaded host's: no mean to be over */
	hosts(h, 3);
	report(h, 3, 2, &defaults, (struct place_report){ .q = 3 }, 1, S);
	assert_int_equal(h[2].over_n, 0);
	hosts(h, 3);
	report(h, 3, 0, &defaults, (struct place_report){ .q = 0 }, 1, S);
	report(h, 3, 1, &defaults, (struct place_report){ .q = 0 }, 1, S);
	report(h, 3, 2, &defaults, (struct place_report){ .q = 3 }, 2, S);
	place_eval(h, 3, &defaults);
	assert_int_equal(h[2].cls, PC_CAND);	/* 2 checks of 3 */
	report(h, 3, 2, &defaults, (struct place_report){ .q = 3 }, 1, 3 * S);
	place_eval(h, 3, &defaults);
	assert_int_equal(h[2].cls, PC_OVER);
	assert_int_equal(place_plan(h, 3, &defaults, 6, 0, 4 * S, out, &why),
	    6);
	assert_int_equal(count(out, 6, 2), 0);
	/* one report under it again: back in */
	report(h, 3, 2, &defaults, (struct place_report){ .q = 0 }, 1, 9 * S);
	assert_int_equal(h[2].over_n, 0);
}

/* Owner active (a user logged in, local load over the reserve): placed
 * after every other host, even a busier one; no user: an ordinary host. */
static void
test_owner_last(void **state)
{
	struct place_host	 h[2];
	struct place_conf	 c = defaults;
	const char		*why;
	int			 out[4];

	(void)state;
	c.checks = 1;
	c.threshold = 100;
	hosts(h, 2);
	report(h, 2, 0, &c, (struct place_report){ .q = 0.3, .users = 1 }, 1,
	    S);
	report(h, 2, 1, &c, (struct place_report){ .q = 1.5 }, 1, S);
	assert_int_equal(place_plan(h, 2, &c, 4, 0, 2 * S, out, &why), 4);
	assert_int_equal(h[0].cls, PC_OWNER);
	assert_int_equal(count(out, 4, 0), 0);
	hosts(h, 2);
	report(h, 2, 0, &c, (struct place_report){ .q = 0.3 }, 1, S);
	report(h, 2, 1, &c, (struct place_report){ .q = 1.5 }, 1, S);
	assert_int_equal(place_plan(h, 2, &c, 1, 0, 2 * S, out, &why), 1);
	assert_int_equal(out[0], 0);
	/* only owners: they still take the tasks (never worse than PVM) */
	hosts(h, 1);
	report(h, 1, 0, &c, (struct place_report){ .q = 1, .users = 2 }, 1, S);
	assert_int_equal(place_plan(h, 1, &c, 2, 0, 2 * S, out, &why), 2);
}

/* The history factor: h * old + (1 - h) * new; 0 takes the report. */
static void
test_history(void **state)
{
	struct place_host	 h[1];
	struct place_conf	 c = defaults;

	(void)state;
	hosts(h, 1);
	report(h, 1, 0, &c, (struct place_report){ .q = 1 }, 1, S);
	assert_true(fabs(h[0].q - 1) < 1e-9);	/* the first: as it is */
	report(h, 1, 0, &c, (struct place_report){ .q = 0 }, 1, 2 * S);
	assert_true(fabs(h[0].q - 0.5) < 1e-9);
	c.history = 0;
	report(h, 1, 0, &c, (struct place_report){ .q = 2 }, 1, 3 * S);
	assert_true(fabs(h[0].q - 2) < 1e-9);
}

/* A report sooner than place.stale after a spawn keeps dts-place's own
 * count; a later one replaces it. */
static void
test_stale(void **state)
{
	struct place_host	 h[2];
	const char		*why;
	int			 out[2];

	(void)state;
	hosts(h, 2);
	report(h, 2, 0, &defaults, (struct place_report){ .q = 0 }, 1, S);
	report(h, 2, 1, &defaults, (struct place_report){ .q = 1 }, 1, S);
	assert_int_equal(place_plan(h, 2, &defaults, 2, 0, 10 * S, out,
	    &why), 2);
	assert_int_equal(count(out, 2, 0), 2);
	/* 1 s later: the tasks are not in the report yet (own 0): kept */
	report(h, 2, 0, &defaults, (struct place_report){ .q = 0 }, 1, 11 * S);
	assert_int_equal(h[0].placed, 2);
	place_eval(h, 2, &defaults);
	assert_true(fabs(h[0].runnable - 2) < 1e-9);
	/* 3 s later: the report is trusted (own 1: one task ended) */
	report(h, 2, 0, &defaults, (struct place_report){ .q = 0, .own = 1 },
	    1, 13 * S);
	assert_int_equal(h[0].placed, 0);
	place_eval(h, 2, &defaults);
	assert_true(fabs(h[0].runnable - 1) < 1e-9);
}

/* No load known: the circle, said by why; a host without a report ranks
 * after the candidates with room, before those without. */
static void
test_unknown(void **state)
{
	struct place_host	 h[3];
	const char		*why;
	int			 out[6];

	(void)state;
	hosts(h, 3);
	assert_int_equal(place_plan(h, 3, &defaults, 3, 0, S, out, &why), -1);
	assert_string_equal(why, "no load known");
	assert_int_equal(place_plan(h, 0, &defaults, 3, 0, S, out, &why), -1);
	report(h, 3, 0, &defaults, (struct place_report){ .q = 0 }, 1, S);
	report(h, 3, 1, &defaults, (struct place_report){ .q = 1 }, 1, S);
	assert_int_equal(place_plan(h, 3, &defaults, 6, 0, S, out, &why), 6);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[1], 0);	/* h0 has room for 2 */
	assert_int_equal(out[2], 2);	/* then the unknown host */
	assert_int_equal(h[2].cls, PC_UNKNOWN);
}

/* Ties go round the circle from start. */
static void
test_ties(void **state)
{
	struct place_host	 h[3];
	const char		*why;
	int			 out[3], i;

	(void)state;
	hosts(h, 3);
	for (i = 0; i < 3; i++)
		report(h, 3, i, &defaults, (struct place_report){ .q = 0,
		    .ncpu = 1 }, 1, S);
	assert_int_equal(place_plan(h, 3, &defaults, 3, 1, S, out, &why), 3);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[1], 2);
	assert_int_equal(out[2], 0);
}

/*
 * A plan is PVM's circle's (one pvm_spawn call) when every host gets
 * ntask / n or one more, and, where some get one more, the hosts are as
 * good as each other; not with a host left out, a count off by two, fewer
 * tasks than hosts, or one more on a better host.
 */
static void
test_same_as_circle(void **state)
{
	struct place_host	 h[3];
	const int		 even[3] = { 2, 2, 2 }, plan[3] = { 22, 21, 21 };
	const int		 off[3] = { 23, 21, 20 }, two[2] = { 3, 3 };
	const int		 one[1] = { 1 };

	(void)state;
	hosts(h, 3);
	h[0].good = h[1].good = h[2].good = 2;
	assert_int_equal(place_same_as_circle(h, 3, even, 3, 6), 1);
	assert_int_equal(place_same_as_circle(h, 3, plan, 3, 64), 1);
	assert_int_equal(place_same_as_circle(h, 3, off, 3, 64), 0);
	assert_int_equal(place_same_as_circle(h, 3, two, 2, 6), 0);
	assert_int_equal(place_same_as_circle(h, 3, one, 1, 1), 0);
	h[0].good = 2.5;	/* h0 better: its one more matters */
	assert_int_equal(place_same_as_circle(h, 3, plan, 3, 64), 0);
	assert_int_equal(place_same_as_circle(h, 3, even, 3, 6), 1);
	h[0].good = 2;
	h[2].cls = PC_OWNER;
	assert_int_equal(place_same_as_circle(h, 3, plan, 3, 64), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_free_host_first),
		cmocka_unit_test(test_goodness),
		cmocka_unit_test(test_ram),
		cmocka_unit_test(test_participation),
		cmocka_unit_test(test_owner_last),
		cmocka_unit_test(test_history),
		cmocka_unit_test(test_stale),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_ties),
		cmocka_unit_test(test_same_as_circle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
