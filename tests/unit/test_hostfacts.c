/*
 * test_hostfacts.c - a node's free RAM for STATUS (common/hostfacts.c):
 * MemAvailable from /proc/meminfo's text, the room left in a memory
 * cgroup (v2 "max", a v1 limit at or above RAM: none), and the facts of
 * this machine within their ranges, read again only after a second.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <unistd.h>

#include "hostfacts.h"
#include "timeutil.h"

static void
test_mem_available(void **state)
{
	(void)state;
	assert_true(hostfacts_mem_available("MemTotal:       24000000 kB\n"
	    "MemFree:         1000 kB\nMemAvailable:    2048 kB\n") ==
	    2048 * 1024);
	assert_true(hostfacts_mem_available("MemTotal: 1 kB\n") == 0);
}

static void
test_room(void **state)
{
	(void)state;
	assert_true(hostfacts_room("max\n", "1000\n", 1 << 30) == UINT64_MAX);
	assert_true(hostfacts_room("268435456\n", "1048576\n", 1ULL << 34) ==
	    268435456 - 1048576);
	/* v1's "no limit" is a huge number, at or above RAM */
	assert_true(hostfacts_room("9223372036854771712\n", "5\n",
	    1ULL << 34) == UINT64_MAX);
	assert_true(hostfacts_room("100\n", "200\n", 1ULL << 34) == 0);
	assert_true(hostfacts_room("x\n", "1\n", 1ULL << 34) == UINT64_MAX);
}

static void
test_this_machine(void **state)
{
	struct hostfacts	 h = { 0 };
	int64_t			 now = now_mono_ns();

	(void)state;
	hostfacts_get(&h, now);
	assert_true(h.ncpu >= 1);
	assert_true(h.mem_mib >= 1);
	assert_int_equal(h.ncpu, sysconf(_SC_NPROCESSORS_ONLN) > 255 ? 255 :
	    sysconf(_SC_NPROCESSORS_ONLN));
	h.ncpu = 0;
	hostfacts_get(&h, now + NS_PER_SEC / 2);	/* cached */
	assert_int_equal(h.ncpu, 0);
	hostfacts_get(&h, now + NS_PER_SEC);
	assert_true(h.ncpu >= 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mem_available),
		cmocka_unit_test(test_room),
		cmocka_unit_test(test_this_machine),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
