/*
 * test_slice.c - deadline arithmetic of the PS/LS loop: absolute edges,
 * no drift, overrun skipping, clock-sync origins in the past and future.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "proto.h"
#include "slice.h"

#define MS 1000000LL
#define US 1000LL

static void
test_edge_index(void **state)
{
	/* t0 = 1000 ms, PS 80 ms, IP 100 ms */
	int64_t t0 = 1000 * MS, ps = 80 * MS, ip = 100 * MS;

	assert_int_equal(slice_edge_index(t0, ps, ip, t0), 0);
	assert_int_equal(slice_edge_index(t0, ps, ip, t0 + 79 * MS), 0);
	assert_int_equal(slice_edge_index(t0, ps, ip, t0 + 80 * MS), 1);
	assert_int_equal(slice_edge_index(t0, ps, ip, t0 + 99 * MS), 1);
	assert_int_equal(slice_edge_index(t0, ps, ip, t0 + 100 * MS), 2);
	/* before the origin: floor, not truncation */
	assert_int_equal(slice_edge_index(t0, ps, ip, t0 - 1), -1);
	assert_int_equal(slice_edge_index(t0, ps, ip, t0 - 20 * MS), -1);
	assert_int_equal(slice_edge_index(t0, ps, ip, t0 - 21 * MS), -2);
	for (int64_t e = -5; e < 20; e++)
		assert_int_equal(slice_edge_index(t0, ps, ip,
		    slice_edge_time(t0, ps, ip, e)), e);
	assert_int_equal(slice_edge_time(t0, ps, ip, 3), t0 + 180 * MS);
	assert_int_equal(slice_edge_time(t0, ps, ip, -1), t0 - 20 * MS);
}

static void
test_sync_and_advance(void **state)
{
	struct slice s = { 0 };
	int64_t t0 = 5000 * MS, ps = 80 * MS, ip = 100 * MS;
	int crossed;

	assert_int_equal(slice_sync(&s, t0, ps, ip, t0), PHASE_PS);
	assert_int_equal(s.deadline, t0 + ps);
	/* on time, 7 us late: LS, next deadline stays absolute */
	assert_int_equal(slice_advance(&s, t0 + ps + 7000, &crossed), PHASE_LS);
	assert_int_equal(crossed, 1);
	assert_int_equal(s.deadline, t0 + ip);
	assert_int_equal(slice_advance(&s, t0 + ip + 30000, &crossed), PHASE_PS);
	assert_int_equal(s.deadline, t0 + ip + ps);
	assert_int_equal(s.overruns, 0);
}

static void
test_no_drift(void **state)
{
	struct slice s = { 0 };
	int64_t t0 = 0, ps = 8 * MS, ip = 10 * MS;
	int crossed;

	slice_sync(&s, t0, ps, ip, t0);
	/* 10000 edges, each woken 90 us late: deadlines do not accumulate it */
	for (int i = 0; i < 10000; i++)
		slice_advance(&s, s.deadline + 90000, &crossed);
	assert_int_equal(s.deadline, t0 + 5000 * ip + ps);
	assert_int_equal(s.overruns, 0);
}

static void
test_overrun_skips(void **state)
{
	struct slice s = { 0 };
	int64_t ps = 80 * MS, ip = 100 * MS;
	int crossed;

	slice_sync(&s, 0, ps, ip, 0);
	/* the LS edge at 80 ms is missed until 250 ms: LS(80) PS(100) LS(180)
	 * PS(200) passed; now in PS 2 (200..280) */
	assert_int_equal(slice_advance(&s, 250 * MS, &crossed), PHASE_PS);
	assert_int_equal(crossed, 4);
	assert_int_equal(s.overruns, 3);
	assert_int_equal(s.deadline, 280 * MS);
	/* late exactly onto an edge */
	assert_int_equal(slice_advance(&s, 300 * MS, &crossed), PHASE_PS);
	assert_int_equal(crossed, 2);
	assert_int_equal(s.overruns, 4);
	assert_int_equal(s.deadline, 380 * MS);
}

static void
test_spurious_early(void **state)
{
	struct slice s = { 0 };
	int crossed;

	slice_sync(&s, 0, 80 * MS, 100 * MS, 0);
	assert_int_equal(slice_advance(&s, 79 * MS, &crossed), PHASE_PS);
	assert_int_equal(crossed, 0);
	assert_int_equal(s.deadline, 80 * MS);
}

static void
test_clock_origin(void **state)
{
	struct slice s = { 0 };
	int64_t ps = 80 * MS, ip = 100 * MS;

	/* origin long ago: phase from the grid, not from now */
	assert_int_equal(slice_sync(&s, 0, ps, ip, 123400 * MS + 85 * MS), PHASE_LS);
	assert_int_equal(s.deadline, 123500 * MS);
	/* origin slightly in the future: LS until it */
	assert_int_equal(slice_sync(&s, 1000 * MS, ps, ip, 995 * MS), PHASE_LS);
	assert_int_equal(s.deadline, 1000 * MS);
	/* two nodes with the same origin, syncing at different moments of the
	 * same slice, agree on the next edge */
	struct slice a = { 0 }, b = { 0 };
	slice_sync(&a, 7 * MS, ps, ip, 10000 * MS + 3);
	slice_sync(&b, 7 * MS, ps, ip, 10000 * MS + 5 * MS);
	assert_int_equal(a.deadline, b.deadline);
	assert_int_equal(a.phase, b.phase);
}

/*
 * slice_lead: the largest freeze time and a quarter, past half a point
 * of the IP, at most half the PS
 */
static void
test_lead(void **state)
{
	/* IP 1 ms, PS 90 %: half a point of the IP is 5 us */
	int64_t	 many[] = { 180 * US, 150 * US, 9000 * US, 170 * US, 160 * US };
	int64_t	 few[] = { 3 * US, 4 * US, 900 * US, 2 * US, 4 * US };
	int64_t	 huge[] = { 400 * US, 500 * US, 450 * US };
	int64_t	 calm[] = { 180 * US, 150 * US, 170 * US, 160 * US };
	int64_t	 tiny[] = { 3 * US, 4 * US, 2 * US, 4 * US };

	(void)state;
	/* 64 spinning tasks, one freeze late: the longest, +25 %, capped
	 * at half the PS (the owner first: the job pays) */
	assert_int_equal(slice_lead(many, 5, 900 * US, MS), 450 * US);
	assert_int_equal(slice_lead(calm, 4, 900 * US, MS), 225 * US);
	/* one task: a freeze within half a point of the IP needs no lead;
	 * one late wake-up gives one (the owner first) */
	assert_int_equal(slice_lead(tiny, 4, 900 * US, MS), 0);
	assert_int_equal(slice_lead(few, 5, 900 * US, MS), 450 * US);
	/* at most half the PS */
	assert_int_equal(slice_lead(huge, 3, 900 * US, MS), 450 * US);
	/* 4,000 sleeping members at IP 100 ms, PS 50 %: 8-10 ms to freeze
	 * them, all of it inside the PS (no 1 ms cap: the job pays) */
	int64_t	 sleepers[] = { 8 * MS, 9 * MS, 10 * MS, 9 * MS };
	assert_int_equal(slice_lead(sleepers, 4, 50 * MS, 100 * MS),
	    10 * MS + 10 * MS / 4);
	/* the 64 spinners at IP 100 ms: 180 us is no half point of it */
	assert_int_equal(slice_lead(calm, 4, 90 * MS, 100 * MS), 0);
	/* too few times yet, or no LS */
	assert_int_equal(slice_lead(many, SLICE_LEAD_MIN - 1, 900 * US, MS), 0);
	assert_int_equal(slice_lead(many, 5, MS, MS), 0);
	/* exactly half a point: none */
	int64_t	 edge[] = { 5 * US, 5 * US, 5 * US };
	assert_int_equal(slice_lead(edge, 3, 900 * US, MS), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edge_index),
		cmocka_unit_test(test_sync_and_advance),
		cmocka_unit_test(test_no_drift),
		cmocka_unit_test(test_overrun_skips),
		cmocka_unit_test(test_spurious_early),
		cmocka_unit_test(test_clock_origin),
		cmocka_unit_test(test_lead),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
