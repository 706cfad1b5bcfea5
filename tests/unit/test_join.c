/*
 * test_join.c - the pure parsing behind a JOIN (dts(8), "Tasks started
 * outside pvmd"): the request itself, the "Uid:" line of /proc/PID/status
 * and the cgroup v2 line of /proc/PID/cgroup.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "adopt_msg.h"
#include "proc.h"

static pid_t
join_ok(const char *req)
{
	pid_t pid = -42;

	if (adopt_parse_join(req, &pid) != 0)
		fail_msg("\"%s\" rejected", req);
	return pid;
}

static void
join_bad(const char *req)
{
	pid_t pid = -42;

	if (adopt_parse_join(req, &pid) != -1)
		fail_msg("\"%s\" accepted as %d", req, (int)pid);
	assert_int_equal(pid, -42);
}

static void
test_join_valid(void **state)
{
	(void)state;
	assert_int_equal(join_ok("JOIN 1"), 1);
	assert_int_equal(join_ok("JOIN 42"), 42);
	assert_int_equal(join_ok("JOIN 123456"), 123456);
	assert_int_equal(join_ok("JOIN 4194304"), ADOPT_PID_MAX);
}

static void
test_join_malformed(void **state)
{
	static const char *const bad[] = {
		"", "JOIN", "JOIN ", "JOIN  12", "JOIN\t12", "join 12",
		"JOIN12", "JOIN 0", "JOIN 00", "JOIN 012", "JOIN -1",
		"JOIN -12", "JOIN +12", "JOIN 12 ", "JOIN 12x", "JOIN x12",
		"JOIN abc", "JOIN 1.5", "JOIN 0x10", "JOIN 4194305",
		"JOIN 99999999999", "JOIN 18446744073709551617",
		"JOIN 2147483648", "JOIN 12 13", "ADOPT pvmd", "JOINT 12",
		" JOIN 12",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		join_bad(bad[i]);
}

static void
test_uids(void **state)
{
	uid_t u[4] = { 9, 9, 9, 9 };

	(void)state;
	assert_int_equal(proc_parse_uids("Name:\tsleep\nUmask:\t0022\n"
	    "State:\tS (sleeping)\nUid:\t1000\t0\t1000\t1001\nGid:\t5\t5\t5\t5\n",
	    u), 0);
	assert_int_equal(u[0], 1000);
	assert_int_equal(u[1], 0);
	assert_int_equal(u[2], 1000);
	assert_int_equal(u[3], 1001);
	assert_int_equal(proc_parse_uids("Uid:\t0\t0\t0\t0\n", u), 0);
	assert_int_equal(u[0] + u[1] + u[2] + u[3], 0);
	/* no Uid line, a truncated one, a Uid inside another field */
	assert_int_equal(proc_parse_uids("Name:\tx\nGid:\t1\t1\t1\t1\n", u),
	    -1);
	assert_int_equal(proc_parse_uids("Name:\tx\nUid:\t1000\t1000\n", u),
	    -1);
	assert_int_equal(proc_parse_uids("Name:\tUid: 1 2 3 4\n", u), -1);
	assert_int_equal(proc_parse_uids("", u), -1);
}

static void
test_cgroup(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(proc_parse_cgroup("0::/dts/gang\n", buf, sizeof(buf)),
	    0);
	assert_string_equal(buf, "/dts/gang");
	/* a v1 hierarchy listed first (hybrid mode) */
	assert_int_equal(proc_parse_cgroup("1:name=systemd:/user.slice\n"
	    "0::/system.slice/dts.service/gang\n", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/system.slice/dts.service/gang");
	assert_int_equal(proc_parse_cgroup("0::/\n", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/");
	/* no v2 line; an empty path; too long for the buffer */
	assert_int_equal(proc_parse_cgroup("1:cpu:/a\n", buf, sizeof(buf)), -1);
	assert_int_equal(proc_parse_cgroup("0::\n", buf, sizeof(buf)), -1);
	assert_int_equal(proc_parse_cgroup("0::/abcdefgh\n", buf, 9), -1);
	assert_int_equal(proc_parse_cgroup("0::/abcdefg\n", buf, 9), 0);
	assert_string_equal(buf, "/abcdefg");
	assert_int_equal(proc_parse_cgroup("10::/x\n", buf, sizeof(buf)), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_join_valid),
		cmocka_unit_test(test_join_malformed),
		cmocka_unit_test(test_uids),
		cmocka_unit_test(test_cgroup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
