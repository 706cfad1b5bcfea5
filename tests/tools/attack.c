/*
 * attack.c - what a hostile parallel job does to keep its CPU in the local
 * slice, for the owner's-promise system test (t80-owner-attacks.sh).  Run
 * as the gang's own (unprivileged) user, usually as a PVM task so that it
 * starts inside the gang.
 *
 *   attack ptrace PID           PTRACE_ATTACH to PID; exit 0 if it worked
 *   attack signal SIG PID       kill(PID, SIG); exit 0 if it worked
 *   attack setsid N SECONDS     N children that setsid() and spin
 *   attack daemon N SECONDS     N daemons (fork, setsid, fork, parent
 *                               exits) that spin
 *   attack forkbomb N SECONDS   fork as fast as it can, up to N spinning
 *                               processes (bounded: this is a test)
 *   attack rt SECONDS           ask for SCHED_FIFO, then spin
 *   attack cont SECONDS PID...  SIGCONT to every PID each millisecond: a
 *                               stopped gang runs again (signal backend)
 *   attack unidle SECONDS [STATE]
 *                               spin, and each millisecond ask to leave
 *                               SCHED_IDLE (ls_policy idle's LS) for
 *                               SCHED_OTHER; prints how often it was
 *                               at SCHED_IDLE and how often that worked.
 *                               With dts's state file STATE: a success
 *                               with a slice edge between the look and
 *                               the ask (seq moved) is a race with the
 *                               PS edge, which moved it to SCHED_RR, from
 *                               where anyone may go to SCHED_OTHER: it
 *                               is counted apart, not as an escape
 *
 * Every spinner ends by itself after SECONDS of wall-clock time, so a
 * failed cleanup cannot leave it behind for long.  The spawning forms print
 * one line "attack: PIDS..." to stderr and then wait for their children
 * (the daemons are not children: the form returns at once).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "timeutil.h"

static volatile uint64_t sink;

static void __attribute__((noreturn))
spin(double secs)
{
	int64_t end = now_mono_ns() + (int64_t)(secs * 1e9);

	while (now_mono_ns() < end)
		for (int i = 0; i < 100000; i++)
			sink += (uint64_t)i;
	_exit(0);
}

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: attack ptrace PID | signal SIG PID | "
	    "setsid N SECS | daemon N SECS | forkbomb N SECS | rt SECS | "
	    "cont SECS PID... | unidle SECS [STATE]\n");
	exit(2);
}

/*
 * The seq of dts's state file at path (dts(8), SUSPEND AWARENESS): read
 * whole until seq and end agree.  0 without a path or a file.
 */
static uint64_t
state_seq(const char *path)
{
	char buf[4096], *e;
	uint64_t seq;
	ssize_t n;
	int fd, tries;

	if (path == NULL || (fd = open(path, O_RDONLY)) == -1)
		return 0;
	for (tries = 0; tries < 1000; tries++) {
		n = pread(fd, buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			break;
		buf[n] = '\0';
		if (strncmp(buf, "seq ", 4) != 0 ||
		    (e = strstr(buf, "\nend ")) == NULL)
			break;
		seq = strtoull(buf + 4, NULL, 10);
		if (strtoull(e + 5, NULL, 10) == seq) {
			close(fd);
			return seq;
		}
	}
	close(fd);
	return 0;
}

static long
num(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < 0)
		usage();
	return v;
}

static int
do_ptrace(pid_t pid)
{
	if (ptrace(PTRACE_ATTACH, pid, NULL, NULL) == -1) {
		fprintf(stderr, "attack: ptrace %d: %s\n", (int)pid,
		    strerror(errno));
		return 1;
	}
	(void)waitpid(pid, NULL, 0);
	(void)ptrace(PTRACE_DETACH, pid, NULL, NULL);
	fprintf(stderr, "attack: ptrace %d: attached\n", (int)pid);
	return 0;
}

static int
do_signal(int sig, pid_t pid)
{
	if (kill(pid, sig) == -1) {
		fprintf(stderr, "attack: signal %d to %d: %s\n", sig, (int)pid,
		    strerror(errno));
		return 1;
	}
	fprintf(stderr, "attack: signal %d to %d: sent\n", sig, (int)pid);
	return 0;
}

/* n children that leave our session and process group, then spin. */
static int
do_setsid(long n, double secs)
{
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			(void)setsid();
			spin(secs);
		}
		if (pid > 0)
			fprintf(stderr, "attack: setsid spinner %d\n", (int)pid);
	}
	while (wait(NULL) > 0)
		;
	return 0;
}

/* The classic daemon(3) dance: nobody waits for these. */
static int
do_daemon(long n, double secs)
{
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			(void)setsid();
			if (fork() != 0)
				_exit(0);
			spin(secs);
		}
		if (pid > 0)
			(void)waitpid(pid, NULL, 0);
	}
	fprintf(stderr, "attack: %ld daemons\n", n);
	return 0;
}

/*
 * Fork as fast as possible until n processes exist, all spinning.  The
 * parent forks them all in one go: at SCHED_RR a new child waits behind
 * its parent's time slice, so this grows fastest.
 */
static int
do_forkbomb(long n, double secs)
{
	for (long made = 1; made < n; made++) {
		pid_t pid = fork();
		if (pid == -1)
			break;
		if (pid == 0)
			spin(secs);
	}
	spin(secs);
}

static int
do_rt(double secs)
{
	struct sched_param sp = { .sched_priority = 50 };

	if (sched_setscheduler(0, SCHED_FIFO, &sp) == 0)
		fprintf(stderr, "attack: got SCHED_FIFO 50\n");
	else
		fprintf(stderr, "attack: SCHED_FIFO: %s\n", strerror(errno));
	spin(secs);
}

static int
do_unidle(double secs, const char *state)
{
	struct sched_param sp = { .sched_priority = 0 };
	int64_t end = now_mono_ns() + (int64_t)(secs * 1e9), next = 0;
	long tries = 0, escaped = 0, raced = 0;
	uint64_t seq0;

	while (now_mono_ns() < end) {
		for (int i = 0; i < 10000; i++)
			sink += (uint64_t)i;
		if (now_mono_ns() < next)
			continue;
		seq0 = state_seq(state);
		if (sched_getscheduler(0) != SCHED_IDLE)
			continue;
		next = now_mono_ns() + 1000000;
		tries++;
		if (sched_setscheduler(0, SCHED_OTHER, &sp) != 0)
			continue;
		if (state != NULL && state_seq(state) != seq0)
			raced++;
		else
			escaped++;
	}
	fprintf(stderr, "attack: unidle: at SCHED_IDLE %ld times, left it "
	    "%ld times (%ld more in a race with a PS edge)\n", tries, escaped,
	    raced);
	return 0;
}

static int
do_cont(double secs, int n, char **pids)
{
	struct timespec ms = { 0, 1000000 };
	int64_t end = now_mono_ns() + (int64_t)(secs * 1e9);

	while (now_mono_ns() < end) {
		for (int i = 0; i < n; i++)
			(void)kill((pid_t)num(pids[i]), SIGCONT);
		nanosleep(&ms, NULL);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "ptrace") == 0)
		return do_ptrace((pid_t)num(argv[2]));
	if (argc == 4 && strcmp(argv[1], "signal") == 0)
		return do_signal((int)num(argv[2]), (pid_t)num(argv[3]));
	if (argc == 4 && strcmp(argv[1], "setsid") == 0)
		return do_setsid(num(argv[2]), (double)num(argv[3]));
	if (argc == 4 && strcmp(argv[1], "daemon") == 0)
		return do_daemon(num(argv[2]), (double)num(argv[3]));
	if (argc == 4 && strcmp(argv[1], "forkbomb") == 0)
		return do_forkbomb(num(argv[2]), (double)num(argv[3]));
	if (argc == 3 && strcmp(argv[1], "rt") == 0)
		return do_rt((double)num(argv[2]));
	if ((argc == 3 || argc == 4) && strcmp(argv[1], "unidle") == 0)
		return do_unidle((double)num(argv[2]), argc == 4 ? argv[3] :
		    NULL);
	if (argc >= 4 && strcmp(argv[1], "cont") == 0)
		return do_cont((double)num(argv[2]), argc - 3, argv + 3);
	usage();
}
