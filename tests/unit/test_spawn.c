/*
 * test_spawn.c - the shared process and event-fd helpers: spawn() runs a
 * program with clean signals and reports why a child could not run;
 * evfd's signalfd and timerfd fire; cg_write writes and says why not.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "evfd.h"
#include "spawn.h"

/* The child's exit status, after waiting for it. */
static int
status_of(pid_t pid)
{
	int	 st;

	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/*
 * A shell that exits 0 only if no signal is blocked and none of 1-31 is
 * ignored (glibc keeps 32 and 33 to itself: nobody can reset those).
 */
static void
clean_signals(void **state)
{
	char		*argv[] = { "sh", "-c",
	    "grep -q '^SigBlk:\t0*$' /proc/self/status"
	    " && ign=$(sed -n 's/^SigIgn:\t//p' /proc/self/status)"
	    " && [ $((0x$ign & 0x7fffffff)) -eq 0 ]", NULL };
	sigset_t	 term, old;
	char		 err[256];
	pid_t		 pid;

	(void)state;
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, &old);
	signal(SIGINT, SIG_IGN);
	pid = spawn("/bin/sh", argv, NULL, NULL, err, sizeof(err));
	signal(SIGINT, SIG_DFL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	assert_true(pid > 0);
	assert_int_equal(status_of(pid), 0);
}

static void
exec_fails(void **state)
{
	char	*argv[] = { "nothing", NULL };
	char	 err[256];

	(void)state;
	assert_int_equal(spawn("/nonexistent/nothing", argv, NULL, NULL, err,
	    sizeof(err)), -1);
	assert_string_equal(err, "cannot run /nonexistent/nothing: exec: No "
	    "such file or directory");
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);	/* reaped */
	assert_int_equal(errno, ECHILD);
}

static const char *
fail_setup(void *arg)
{
	errno = *(int *)arg;
	return "the set-up";
}

static const char *
exit_setup(void *arg)
{
	return setenv("SPAWN_TEST", arg, 1) == -1 ? "setenv" : NULL;
}

static void
setup_runs(void **state)
{
	char	*argv[] = { "sh", "-c", "test \"$SPAWN_TEST\" = yes", NULL };
	char	 err[256];
	int	 e = EPERM;
	pid_t	 pid;

	(void)state;
	assert_int_equal(spawn("/bin/sh", argv, fail_setup, &e, err,
	    sizeof(err)), -1);
	assert_string_equal(err, "cannot run /bin/sh: the set-up: Operation "
	    "not permitted");
	pid = spawn("/bin/sh", argv, exit_setup, "yes", err, sizeof(err));
	assert_true(pid > 0);
	assert_int_equal(status_of(pid), 0);
	assert_null(getenv("SPAWN_TEST"));	/* only in the child */
}

static void
signal_fd(void **state)
{
	struct signalfd_siginfo	 si;
	sigset_t		 usr1, old;
	int			 fd;

	(void)state;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_SETMASK, NULL, &old);
	assert_true((fd = evfd_signals(&usr1)) >= 0);
	/* non-blocking: nothing to read yet */
	assert_int_equal(read(fd, &si, sizeof(si)), -1);
	assert_int_equal(errno, EAGAIN);
	raise(SIGUSR1);
	assert_int_equal(read(fd, &si, sizeof(si)), sizeof(si));
	assert_int_equal(si.ssi_signo, SIGUSR1);
	assert_true(signal(SIGPIPE, SIG_IGN) == SIG_IGN);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	signal(SIGPIPE, SIG_DFL);
}

static void
timer_fd(void **state)
{
	struct timespec	 t0, t1;
	uint64_t	 n;
	int		 fd;

	(void)state;
	assert_true((fd = evfd_timer(CLOCK_MONOTONIC)) >= 0);
	assert_int_equal(read(fd, &n, sizeof(n)), -1);	/* not armed */
	assert_int_equal(errno, EAGAIN);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(evfd_timer_set(fd, 20000000, 0), 0);	/* 20 ms */
	assert_int_equal(fcntl(fd, F_SETFL, 0), 0);		/* wait */
	assert_int_equal(read(fd, &n, sizeof(n)), sizeof(n));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true((t1.tv_sec - t0.tv_sec) * 1000000000L + t1.tv_nsec -
	    t0.tv_nsec >= 20000000L);
	close(fd);
}

/* cg_write and cg_read on a plain directory standing in for a cgroup. */
static void
cgroup_files(void **state)
{
	char	 dir[] = "/tmp/test_spawn.XXXXXX", path[64], buf[32];
	int	 fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/cgroup.freeze", dir);
	assert_true((fd = open(path, O_CREAT | O_WRONLY, 0600)) >= 0);
	close(fd);
	assert_int_equal(cg_write(dir, "cgroup.freeze", "1"), 0);
	assert_int_equal(cg_read(dir, "cgroup.freeze", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "1");
	fd = cg_open(dir, "cgroup.freeze", O_WRONLY);
	assert_true(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC));
	assert_int_equal(cg_write_fd(fd, "0"), 0);	/* at offset 0 */
	close(fd);
	assert_int_equal(cg_read(dir, "cgroup.freeze", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0");
	assert_int_equal(cg_write(dir, "cgroup.none", "1"), -1);
	assert_int_equal(errno, ENOENT);
	unlink(path);
	rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest	 tests[] = {
		cmocka_unit_test(clean_signals),
		cmocka_unit_test(exec_fails),
		cmocka_unit_test(setup_runs),
		cmocka_unit_test(signal_fd),
		cmocka_unit_test(timer_fd),
		cmocka_unit_test(cgroup_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
