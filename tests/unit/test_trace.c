/*
 * test_trace.c - the ring of slice edges: order, the since cursor, the
 * "more" flag, wrap-around, lateness and operation times.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "proto.h"
#include "trace.h"

static void
test_record_and_since(void **state)
{
	struct trace_edge out[8];
	int more, n;

	/* deadline 1000, woke at 1030, done at 1042; realtime 5000 */
	trace_record(PHASE_LS, 1000, 1030, 1042, 5000);
	trace_record(PHASE_PS, 2000, 2010, 2015, 6000);
	trace_record(PHASE_LS, 3000, 3000, 3001, 7000);
	n = trace_since(0, out, 8, &more);
	assert_int_equal(n, 3);
	assert_int_equal(more, 0);
	assert_int_equal(out[0].phase, PHASE_LS);
	assert_int_equal(out[0].late, 30);
	assert_int_equal(out[0].op, 12);
	assert_int_equal(out[0].real, 5000);
	assert_int_equal(out[2].real, 7000);
	/* the cursor: only what came after it */
	n = trace_since(6000, out, 8, &more);
	assert_int_equal(n, 1);
	assert_int_equal(out[0].real, 7000);
	n = trace_since(7000, out, 8, &more);
	assert_int_equal(n, 0);
	/* a small buffer says there is more */
	n = trace_since(0, out, 2, &more);
	assert_int_equal(n, 2);
	assert_int_equal(more, 1);
	assert_int_equal(out[1].real, 6000);
}

static void
test_wrap(void **state)
{
	static struct trace_edge out[TRACE_LEN + 8];
	int more, n;

	/* after the 3 of the first test: wrap the ring twice over */
	for (int64_t i = 0; i < 2 * TRACE_LEN; i++)
		trace_record(i & 1 ? PHASE_PS : PHASE_LS, 0, 0, 0, 10000 + i);
	n = trace_since(0, out, TRACE_LEN + 8, &more);
	assert_int_equal(n, TRACE_LEN);	/* only the newest are kept */
	assert_int_equal(more, 0);
	assert_int_equal(out[0].real, 10000 + TRACE_LEN);
	assert_int_equal(out[TRACE_LEN - 1].real, 10000 + 2 * TRACE_LEN - 1);
	for (int i = 1; i < n; i++)
		assert_true(out[i].real > out[i - 1].real);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_and_since),
		cmocka_unit_test(test_wrap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
