/*
 * test_log.c - logging never blocks its caller: the queue and its logger
 * thread (SCHED_OTHER even under a real-time caller), lines dropped and
 * said so when the destination is stuck, a forked child and fatal()
 * still write; the rate limit of log_limited(); log_file refused when it
 * is a link, a FIFO, writable by others or not root's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "log.h"
#include "unit_util.h"

#define SEC 1000000000LL
#define MS  1000000LL
#define T0  (100 * SEC)

static char dir[] = "/tmp/test_log.XXXXXX";

static int64_t
mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * SEC + ts.tv_nsec;
}

static char *
path(const char *name)
{
	static char p[256];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return p;
}

/* The whole file ("" if none), kept until the next call. */
static const char *
slurp(const char *file)
{
	static char	*last;

	free(last);
	last = tu_slurp(file, NULL);
	return last != NULL ? last : "";
}

static int
count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
		n++;
	return n;
}

/* ---- the rate limit ---------------------------------------------------- */

static int
takes(struct log_limit *l, int64_t now, int tries, uint64_t *supp)
{
	int ok = 0;
	uint64_t s;

	for (int i = 0; i < tries; i++)
		if (log_limit_take(l, now, &s)) {
			ok++;
			if (supp != NULL)
				*supp = s;
		}
	return ok;
}

static void
test_limit_bucket(void **state)
{
	struct log_limit l = LOG_LIMIT_INIT;
	uint64_t supp = 99;

	(void)state;
	assert_int_equal(takes(&l, T0, 100, &supp), LOG_LIMIT_BURST);
	assert_int_equal(supp, 0);
	/* 100 ms: one line at 10/s, which says how many were suppressed */
	assert_int_equal(takes(&l, T0 + 100 * MS, 1, &supp), 1);
	assert_int_equal(supp, 100 - LOG_LIMIT_BURST);
	assert_int_equal(takes(&l, T0 + 100 * MS, 5, NULL), 0);
	/* asked every 50 us, the tokens still add up: 10 in a second */
	int ok = 0;
	for (int64_t t = T0 + 100 * MS; t < T0 + 1100 * MS; t += 50000)
		ok += takes(&l, t, 1, NULL);
	assert_in_range(ok, LOG_LIMIT_RATE - 1, LOG_LIMIT_RATE);
	/* a long silence: a full burst, not more */
	assert_int_equal(takes(&l, T0 + 3600 * SEC, 100, NULL), LOG_LIMIT_BURST);
}

static void
test_limited_lines(void **state)
{
	static struct log_limit l = LOG_LIMIT_INIT;
	const char *s;

	(void)state;
	assert_int_equal(log_init("test", LOG_TO_FILE, path("limited.log"),
	    LOG_LVL_INFO), 0);
	for (int i = 0; i < LOG_LIMIT_BURST + 5; i++)
		log_limited(&l, LOG_LVL_WARN, "refused %d", i);
	usleep(150000);		/* one token back */
	log_limited(&l, LOG_LVL_WARN, "refused last");
	log_limited(&l, LOG_LVL_DEBUG, "below the level");
	log_fini();
	s = slurp(path("limited.log"));
	assert_int_equal(count(s, "refused"), LOG_LIMIT_BURST + 1);
	assert_non_null(strstr(s, "refused last (5 similar lines suppressed)"));
	assert_null(strstr(s, "below the level"));
}

/* ---- log_file ------------------------------------------------------------ */

static void
refused(const char *file, const char *why)
{
	int64_t t = mono();

	assert_int_equal(log_init("test", LOG_TO_FILE, file, LOG_LVL_INFO), -1);
	assert_true(mono() - t < SEC);		/* a FIFO did not block */
	if (strstr(log_file_why(), why) == NULL)
		fail_msg("%s: \"%s\", want \"%s\"", file, log_file_why(), why);
	log_fini();
}

static void
test_file_checks(void **state)
{
	int fd;

	(void)state;
	assert_int_equal(log_init("test", LOG_TO_FILE, path("ok.log"),
	    LOG_LVL_INFO), 0);
	log_info("a line");
	log_fini();
	assert_non_null(strstr(slurp(path("ok.log")), "test["));
	assert_int_equal(access(path("ok.log"), F_OK), 0);

	assert_int_equal(symlink("ok.log", path("link.log")), 0);
	refused(path("link.log"), "symbolic link");

	assert_int_equal(mkfifo(path("fifo.log"), 0600), 0);
	refused(path("fifo.log"), "not a regular file");

	fd = open(path("open.log"), O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chmod(path("open.log"), 0620), 0);
	refused(path("open.log"), "writable by its group");
	assert_int_equal(chmod(path("open.log"), 0602), 0);
	refused(path("open.log"), "writable by others");

	if (geteuid() == 0) {
		assert_int_equal(chmod(path("open.log"), 0600), 0);
		assert_int_equal(chown(path("open.log"), 65534, 65534), 0);
		refused(path("open.log"), "owned by uid 65534");
	}
	refused(path("nodir/x.log"), "No such file");
}

/* ---- the queue ----------------------------------------------------------- */

/* The logger thread of this process (its comm is "dts-log"): tid or 0. */
static pid_t
logger_tid(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	pid_t tid = 0;
	char f[300];

	while (d != NULL && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(f, sizeof(f), "/proc/self/task/%s/comm", e->d_name);
		if (strncmp(slurp(f), "dts-log", 7) == 0)
			tid = atoi(e->d_name);
	}
	if (d != NULL)
		closedir(d);
	return tid;
}

/*
 * stderr is a pipe of 4 KiB nobody reads: the logger blocks in write().
 * 2000 lines from the caller must not wait for it: they are queued or
 * dropped, and once the pipe is read, the lines dropped are said.
 */
static void
test_stuck_destination(void **state)
{
	struct sched_param sp = { .sched_priority = 1 };
	int p[2], saved, rt;
	int64_t t;
	char buf[4096];
	static char all[1 << 20];
	size_t len = 0;
	pid_t tid;

	(void)state;
	assert_int_equal(pipe(p), 0);
	(void)fcntl(p[1], F_SETPIPE_SZ, 4096);
	saved = dup(STDERR_FILENO);
	assert_int_equal(dup2(p[1], STDERR_FILENO), STDERR_FILENO);
	close(p[1]);
	log_init("test", LOG_TO_STDERR, NULL, LOG_LVL_INFO);
	/* a real-time caller, as dts's main thread: the logger is not RT */
	rt = sched_setscheduler(0, SCHED_FIFO, &sp) == 0;
	assert_int_equal(log_async_start(), 0);
	tid = logger_tid();
	assert_true(tid > 0);
	assert_int_equal(sched_getscheduler(tid), SCHED_OTHER);
	if (rt) {
		sp.sched_priority = 0;
		(void)sched_setscheduler(0, SCHED_OTHER, &sp);
	}

	t = mono();
	for (int i = 0; i < 2000; i++)
		log_info("line %d of a flood", i);
	assert_true(mono() - t < 500 * MS);
	assert_true(log_dropped() > 0);

	/* read what the logger writes until it has written all; then one
	 * more line, which finds room */
	for (int last = 0; len < sizeof(all) - sizeof(buf);) {
		struct pollfd pf = { .fd = p[0], .events = POLLIN };
		ssize_t n;

		if (poll(&pf, 1, last ? 2000 : 300) != 1) {
			if (last)
				break;
			log_info("the last line");
			last = 1;
			continue;
		}
		if ((n = read(p[0], buf, sizeof(buf))) <= 0)
			break;
		memcpy(all + len, buf, (size_t)n);
		len += (size_t)n;
		all[len] = '\0';
		if (strstr(all, "the last line") != NULL)
			break;
	}
	/* a write still under way fails (EPIPE), so log_fini() can join */
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(p[0]);
	log_fini();
	assert_non_null(strstr(all, "line 0 of a flood"));
	assert_non_null(strstr(all, "the last line"));
	assert_non_null(strstr(all, "log lines dropped: the log was full)"));
	/* what was written, and what it says was dropped, add up */
	{
		uint64_t said = 0;
		for (const char *q = all; (q = strstr(q, "warn: (")) != NULL; q++)
			said += strtoull(q + 7, NULL, 10);
		assert_int_equal(said + (uint64_t)count(all, "of a flood"), 2000);
	}
}

/* A forked child writes at once (it has no logger thread), and fatal()
 * gets its line out, after what was queued, before exit(1). */
static void
test_child_and_fatal(void **state)
{
	int status;
	pid_t pid;
	const char *s;

	(void)state;
	assert_int_equal(log_init("test", LOG_TO_FILE, path("async.log"),
	    LOG_LVL_INFO), 0);
	assert_int_equal(log_async_start(), 0);
	log_info("parent before fork");
	if ((pid = fork()) == 0) {
		log_info("child line");
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	log_fini();
	s = slurp(path("async.log"));
	assert_non_null(strstr(s, "child line"));
	assert_non_null(strstr(s, "parent before fork"));

	if ((pid = fork()) == 0) {
		log_init("test", LOG_TO_FILE, path("fatal.log"), LOG_LVL_INFO);
		if (log_async_start() != 0)
			_exit(3);
		for (int i = 0; i < 50; i++)
			log_info("queued %d", i);
		fatalx("the end");
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 1);
	s = slurp(path("fatal.log"));
	assert_int_equal(count(s, "queued"), 50);
	assert_non_null(strstr(s, "queued 49"));
	assert_non_null(strstr(strstr(s, "queued 49"), "err: the end"));
}

static int
setup(void **state)
{
	(void)state;
	return mkdtemp(dir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_limit_bucket),
		cmocka_unit_test(test_limited_lines),
		cmocka_unit_test(test_file_checks),
		cmocka_unit_test(test_stuck_destination),
		cmocka_unit_test(test_child_and_fatal),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
