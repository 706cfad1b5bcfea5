/*
 * test_join.c - the pure parsing behind a JOIN (dts(8), "Tasks started
 * outside pvmd"): the request itself, the "Uid:" line of /proc/PID/status
 * and the cgroup v2 line of /proc/PID/cgroup; and the pure parts of dts's
 * intake (dts(8), SECURITY): the "Tgid:" line (a thread is not a
 * process), a pidfd's "Pid:" (-1 once reaped) and the rate budgets; an
 * ADOPT request's "JOB <label>" line; the client's bounded wait on a dts
 * whose backlog is full.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>

#include "adopt_msg.h"
#include "job.h"
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
job_ok(const char *req, const char *want)
{
	char label[16], err[256] = "";

	memset(label, 0x5a, sizeof(label));
	if (adopt_parse_job(req, label, err, sizeof(err)) != 0)
		fail_msg("\"%s\" rejected: %s", req, err);
	assert_string_equal(label, want);
}

static void
job_bad(const char *req, const char *want)
{
	char label[16] = "unchanged", err[256] = "";

	if (adopt_parse_job(req, label, err, sizeof(err)) != -1)
		fail_msg("\"%s\" accepted as %s", req, label);
	assert_string_equal(err, want);
	assert_null(strchr(err, '\n'));
	assert_string_equal(label, "unchanged");
}

/* "JOB <label>": anywhere after the first line, once; none: the default */
static void
test_parse_job(void **state)
{
	(void)state;
	job_ok("ADOPT pvmd\nSTATE\nJOB vm1", "vm1");
	job_ok("ADOPT run\nJOB a.b_C-9\nSTATE", "a.b_C-9");
	job_ok("ADOPT run\nJOB abcdefghij12345", "abcdefghij12345");
	job_ok("JOB x", "x");			/* the lines after the first */
	job_ok("STATE\nJOB x", "x");
	job_ok("ADOPT pvmd\nSTATE", JOB_LABEL_DEFAULT);
	job_ok("ADOPT pvmd", "pvm");
	job_ok("", "pvm");
	job_ok(NULL, "pvm");
	job_ok("ADOPT run\nJOBS x", "pvm");	/* not a JOB line */
	job_ok("ADOPT run\nJOB x\n", "x");
	job_bad("ADOPT run\nJOB x\nJOB y", "two JOB lines in one request");
	job_bad("ADOPT run\nJOB x\nSTATE\nJOB x",
	    "two JOB lines in one request");
	job_bad("ADOPT run\nJOB", "a JOB line without a label");
	job_bad("ADOPT run\nJOB \nSTATE", "a JOB line without a label");
	job_bad("ADOPT run\nJOB abcdefghij123456", "job label "
	    "\"abcdefghij12345...\" is too long (at most 15 bytes)");
	job_bad("ADOPT run\nJOB a b", "job label \"a b\" has a byte that is "
	    "not a letter, digit, '.', '_' or '-'");
	job_bad("ADOPT run\nJOB  x", "job label \" x\" has a byte that is "
	    "not a letter, digit, '.', '_' or '-'");
	job_bad("ADOPT run\nJOB a:b", "job label \"a:b\" has a byte that is "
	    "not a letter, digit, '.', '_' or '-'");
	job_bad("ADOPT run\nJOB x\ty", "job label \"x\\x09y\" has a byte "
	    "that is not a letter, digit, '.', '_' or '-'");
	/* a very long line is still one line of error */
	char req[600];
	memset(req, 'j', sizeof(req));
	memcpy(req, "ADOPT run\nJOB ", 14);
	req[sizeof(req) - 1] = '\0';
	job_bad(req, "job label \"jjjjjjjjjjjjjjj...\" is too long (at most "
	    "15 bytes)");
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

static void
test_status(void **state)
{
	uid_t	 u[4] = { 9, 9, 9, 9 };
	pid_t	 t = -42;

	(void)state;
	assert_int_equal(adopt_parse_status("Name:\tpython3\nUmask:\t0022\n"
	    "State:\tS (sleeping)\nTgid:\t4242\nNgid:\t0\nPid:\t4243\n"
	    "PPid:\t1\nTracerPid:\t0\nUid:\t1000\t1000\t1000\t1000\n",
	    &t, u), 0);
	assert_int_equal(t, 4242);	/* the thread 4243 of process 4242 */
	assert_int_equal(u[0], 1000);
	assert_int_equal(u[3], 1000);
	/* no Tgid, no Uid, a Tgid of 0, a negative or non-numeric one */
	t = -42;
	assert_int_equal(adopt_parse_status("Pid:\t5\nUid:\t0\t0\t0\t0\n",
	    &t, u), -1);
	assert_int_equal(adopt_parse_status("Tgid:\t5\nPid:\t5\n", &t, u),
	    -1);
	assert_int_equal(adopt_parse_status("Tgid:\t0\nUid:\t0\t0\t0\t0\n",
	    &t, u), -1);
	assert_int_equal(adopt_parse_status("Tgid:\t-1\nUid:\t0\t0\t0\t0\n",
	    &t, u), -1);
	assert_int_equal(adopt_parse_status("Tgid:\tx\nUid:\t0\t0\t0\t0\n",
	    &t, u), -1);
	assert_int_equal(adopt_parse_status("Name:\tTgid: 7\nUid:\t0\t0\t0"
	    "\t0\n", &t, u), -1);
	assert_int_equal(t, -42);
}

static void
test_fdinfo(void **state)
{
	pid_t	 p = -42;

	(void)state;
	assert_int_equal(adopt_parse_fdinfo_pid("pos:\t0\nflags:\t02000002\n"
	    "mnt_id:\t15\nino:\t3362\nPid:\t4242\nNSpid:\t4242\n", &p), 0);
	assert_int_equal(p, 4242);
	/* reaped: the number may be another process's now */
	assert_int_equal(adopt_parse_fdinfo_pid("pos:\t0\nPid:\t-1\n"
	    "NSpid:\t-1\n", &p), 0);
	assert_int_equal(p, -1);
	/* not a pidfd; garbage; only NSpid */
	p = -42;
	assert_int_equal(adopt_parse_fdinfo_pid("pos:\t0\nflags:\t02\n", &p),
	    -1);
	assert_int_equal(adopt_parse_fdinfo_pid("Pid:\t12x\n", &p), -1);
	assert_int_equal(adopt_parse_fdinfo_pid("Pid:\t-2\n", &p), -1);
	assert_int_equal(adopt_parse_fdinfo_pid("Pid:\t0\n", &p), -1);
	assert_int_equal(adopt_parse_fdinfo_pid("NSpid:\t12\n", &p), -1);
	assert_int_equal(p, -42);
}

static void
test_rate(void **state)
{
	struct adopt_rate	 r = { 0 };
	const int64_t		 each = 100, t0 = 1000000;
	int64_t			 at;
	int			 n;

	(void)state;
	/* a full budget: a burst of 5 at once, then one every 100 ns */
	for (n = 0; adopt_rate_when(&r, t0, each, 5) == t0; n++)
		adopt_rate_take(&r, t0, each);
	assert_int_equal(n, 5);
	at = adopt_rate_when(&r, t0, each, 5);
	assert_int_equal(at, t0 + each);
	/* the next turns, taken early (parked), queue one after the other */
	adopt_rate_take(&r, at, each);
	assert_int_equal(adopt_rate_when(&r, t0, each, 5), t0 + 2 * each);
	/* a long quiet spell fills the budget again, no more */
	for (n = 0; adopt_rate_when(&r, t0 + 100000, each, 5) == t0 + 100000;
	    n++)
		adopt_rate_take(&r, t0 + 100000, each);
	assert_int_equal(n, 5);
	/* a burst of 1: one every interval */
	r.tat = 0;
	assert_int_equal(adopt_rate_when(&r, t0, each, 1), t0);
	adopt_rate_take(&r, t0, each);
	assert_int_equal(adopt_rate_when(&r, t0, each, 1), t0 + each);
}

/* The lift credit (adopt_msg.h): 1 s at once, then 10 % of the time. */
static void
test_lift_credit(void **state)
{
	struct lift_credit	 c = { 0, 0 };
	const int64_t		 t0 = 5 * LIFT_BURST_NS, ms = 1000 * 1000;
	int64_t			 len, wait, sum = 0, now = t0;
	int			 n;

	(void)state;
	/* rested: lifts of the cap until the 1 s is spent */
	for (n = 0; (len = lift_credit_grant(&c, now, &wait)) > 0; n++) {
		assert_true(len <= LIFT_MAX_NS);
		sum += len;
		lift_credit_settle(&c, now, len, len);	/* used it all */
	}
	assert_int_equal(sum, LIFT_BURST_NS);
	assert_int_equal(n, 4);
	assert_int_equal(wait, LIFT_MIN_NS * 100 / LIFT_SHARE_PCT);
	/* 100 ms later: 10 ms of credit, one lift of 10 ms */
	now += 100 * ms;
	assert_int_equal(lift_credit_grant(&c, now, &wait), 10 * ms);
	/* a short lift counts LIFT_MIN_NS, an unused rest comes back */
	lift_credit_settle(&c, now, 10 * ms, 1 * ms);
	assert_int_equal(lift_credit_grant(&c, now, &wait), 0);
	now += 10 * LIFT_BURST_NS;	/* long rest: full, no more */
	assert_int_equal(lift_credit_grant(&c, now, &wait), LIFT_MAX_NS);
	lift_credit_settle(&c, now, LIFT_MAX_NS, 50 * ms);
	assert_int_equal(lift_credit_grant(&c, now, &wait), LIFT_MAX_NS);
	lift_credit_settle(&c, now, LIFT_MAX_NS, 0);
	/* 1 s - 50 ms - 10 ms left: the burst is never exceeded */
	sum = 0;
	while ((len = lift_credit_grant(&c, now, &wait)) > 0) {
		sum += len;
		lift_credit_settle(&c, now, len, len);
	}
	assert_int_equal(sum, LIFT_BURST_NS - 60 * ms);
	/* a lift that ends late is charged what it used */
	now += 10 * LIFT_BURST_NS;
	assert_int_equal(lift_credit_grant(&c, now, &wait), LIFT_MAX_NS);
	lift_credit_settle(&c, now, LIFT_MAX_NS, LIFT_BURST_NS + LIFT_MAX_NS);
	assert_int_equal(lift_credit_grant(&c, now, &wait), 0);
	now += 10 * LIFT_BURST_NS;	/* 1 s below 0, then 1 s rested */
	assert_int_equal(lift_credit_grant(&c, now, &wait), LIFT_MAX_NS);
}

/*
 * A loop of lifts (t108): each asks, holds its command hold_ms (a refused
 * one too, unlifted), then gap_ms between commands; the lift ends at the
 * first of the hold and its length.  Its lifted time over the loop's
 * elapsed time E is at most the burst + LIFT_SHARE_PCT of E; *refused
 * and *shortest (the shortest lift granted) say how the budget cut it.
 */
static int64_t
lift_loop(int hold_ms, int gap_ms, int64_t elapsed_ms, int *refused,
    int64_t *shortest)
{
	struct lift_credit	 c = { 0, 0 };
	const int64_t		 ms = 1000 * 1000, t0 = 7 * LIFT_BURST_NS;
	int64_t			 now = t0, len, wait, used, lifted = 0;

	*refused = 0;
	*shortest = LIFT_MAX_NS;
	while (now - t0 < elapsed_ms * ms) {
		if ((len = lift_credit_grant(&c, now, &wait)) == 0)
			(*refused)++;
		else {
			used = len < hold_ms * ms ? len : hold_ms * ms;
			lifted += used;
			if (len < *shortest)
				*shortest = len;
			lift_credit_settle(&c, now + used, len, used);
		}
		now += (hold_ms + gap_ms) * ms;
	}
	assert_true(lifted <= LIFT_BURST_NS + (now - t0) * LIFT_SHARE_PCT /
	    100);
	return lifted;
}

static void
test_lift_loop(void **state)
{
	const int64_t	 ms = 1000 * 1000;
	int64_t		 shortest, lifted;
	int		 refused;

	(void)state;
	/* 100 ms held every 148 ms (t108 before): 15 ms of credit comes
	 * back each round, more than LIFT_MIN_NS: never refused, cut to
	 * lifts of 15 ms instead */
	lifted = lift_loop(100, 48, 4433, &refused, &shortest);
	assert_int_equal(refused, 0);
	assert_true(shortest < 20 * ms);
	assert_true(lifted > LIFT_BURST_NS / 2);
	/* 50 ms every 80 ms (t108 now): refused once the burst is spent */
	lifted = lift_loop(50, 30, 6000, &refused, &shortest);
	assert_true(refused > 10);
	assert_true(lifted >= LIFT_BURST_NS);
	/* a command of 50 ms a second (a user at the console): never cut */
	lift_loop(50, 950, 60000, &refused, &shortest);
	assert_int_equal(refused, 0);
	assert_int_equal(shortest, LIFT_MAX_NS);
}

/*
 * A listener that accepts nobody (a stopped dts) with a full backlog:
 * adopt_ask and adopt_lift give up within their wait with dts's
 * "no answer" line, where a plain connect() waited for ever (alarm: the
 * old code is killed rather than hanging the suite).
 */
static void
test_full_backlog(void **state)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char		 dir[] = "/tmp/test_join.XXXXXX", err[256], want[256];
	char		 reply[64];
	int		 l, c[8], n = 0, fd, ms;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/sock", dir);
	assert_true((l = socket(AF_UNIX, SOCK_SEQPACKET, 0)) != -1);
	assert_int_equal(bind(l, (struct sockaddr *)&sun, sizeof(sun)), 0);
	assert_int_equal(listen(l, 0), 0);
	for (n = 0; n < 8; n++) {	/* non-blocking: EAGAIN once full */
		c[n] = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0);
		assert_true(c[n] != -1);
		if (connect(c[n], (struct sockaddr *)&sun, sizeof(sun)) == -1) {
			assert_int_equal(errno, EAGAIN);
			close(c[n]);
			break;
		}
	}
	assert_true(n < 8);		/* the backlog is full */
	alarm(20);
	assert_int_equal(adopt_ask(sun.sun_path, "ADOPT run", reply,
	    sizeof(reply), 200, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "no answer from dts at %s", sun.sun_path);
	assert_string_equal(err, want);
	assert_int_equal(adopt_lift(sun.sun_path, NULL, 200, &fd, &ms, err,
	    sizeof(err)), -2);
	snprintf(want, sizeof(want), "no answer from dts at %s", sun.sun_path);
	assert_string_equal(err, want);
	assert_int_equal(fd, -1);
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	assert_int_equal(adopt_connect(fd, &sun, 200), -1);
	assert_int_equal(errno, EAGAIN);
	alarm(0);
	close(fd);
	while (n-- > 0)
		close(c[n]);
	close(l);
	unlink(sun.sun_path);
	rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_join_valid),
		cmocka_unit_test(test_join_malformed),
		cmocka_unit_test(test_parse_job),
		cmocka_unit_test(test_uids),
		cmocka_unit_test(test_cgroup),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_fdinfo),
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_lift_credit),
		cmocka_unit_test(test_lift_loop),
		cmocka_unit_test(test_full_backlog),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
