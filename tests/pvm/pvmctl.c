/*
 * pvmctl.c - dts-pvmctl, a non-interactive PVM client for tests and demos.
 *
 *   dts-pvmctl [-T SECONDS] [-L] CMD [ARGS]
 *
 * Plain libpvm3 calls only (pvm_config, pvm_spawn, pvm_tasks, ...): it never
 * calls pvm_hostsync, which hangs while any pvmd is stopped, and it never
 * starts a pvmd.  Task ids are printed in hexadecimal without a prefix.
 * Every error is one line on stderr and exit status 1; bad usage exits 2.
 * -T bounds the whole command (a pvmd stopped for LS may block any call).
 * -L asks the node's dts ($DTS_SOCKET, else the default socket) to lift
 * the command into the job's gang ($DTS_JOB, else "pvm") as dts-console
 * does (dts(8), LIFTS); a refusal is one line on stderr, and the command
 * runs unlifted.
 *
 *   conf                      one line per host: name tid arch speed
 *   wait N TIMEOUT_S          until the VM has >= N hosts (or a pvmd at all)
 *   spawn [-n N] [-w HOST] PROG [ARGS...]   print the tids, one a line
 *   run [-n N] [-w HOST] PROG [ARGS...]     spawn, wait until all exited,
 *                             print "tasks=N elapsed_s=S"
 *   tasks                     tid ptid pid host name (ourselves left out)
 *   add HOST... | delete HOST...            "HOST ok" or "HOST error NAME"
 *   halt                      pvm_halt: every pvmd and task ends
 *   joined TIMEOUT_S [HOLD_S] enroll, then wait until our cgroup changes
 *                             (dts-pvmjoin had us join the gang): print
 *                             "joined_ms=MS policy=RR|FIFO|OTHER|IDLE|..."
 *                             (ms since enrolling; the policy once it is
 *                             no longer OTHER, or 100 ms later); stay
 *                             HOLD_S more
 *
 * PVM_TMP selects the pvmd, as for every PVM client; running as root needs
 * PVM_ALLOW_ROOT=1.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pvm3.h>

#include "adopt_msg.h"
#include "job.h"
#include "pvmerr.h"

#define PROG      "dts-pvmctl"
#define EXIT_TAG  0x7d5e /* message tag of our PvmTaskExit notifications */

struct cmd {
	const char *name;
	int         min_args;
	int         max_args;  /* -1: unlimited */
	const char *usage;
	int       (*fn)(int argc, char **argv);
};

static int enrolled;
static int err_fd = STDERR_FILENO; /* stderr, even while libpvm3 is muted */

/* ---- errors ----------------------------------------------------------- */

static void
finish(void)
{
	if (enrolled)
		pvm_exit();
	enrolled = 0;
}

static void __attribute__((format(printf, 1, 2), noreturn))
die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	finish();
	exit(1);
}

static void
on_alarm(int sig)
{
	static const char msg[] = PROG ": timed out waiting for pvmd\n";
	ssize_t n;

	(void)sig;
	n = write(err_fd, msg, sizeof(msg) - 1);
	(void)n;
	_exit(1);
}

/* Exit with a message after secs, unless an earlier deadline is armed. */
static void
arm_alarm(unsigned secs)
{
	struct sigaction sa;
	unsigned left;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	left = alarm(secs);
	if (left && left < secs)
		alarm(left);
}

/* ---- helpers ---------------------------------------------------------- */

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
parse_count(const char *s, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > 100000)
		return -1;
	*out = (int)v;
	return 0;
}

static int
parse_secs(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0) || v > 1e6)
		return -1;
	*out = v;
	return 0;
}

static const char *
pvm_tmp(void)
{
	const char *t = getenv("PVM_TMP");

	return t ? t : "/tmp";
}

/* Does the file a running pvmd leaves in PVM_TMP exist? */
static int
pvmd_file_exists(void)
{
	const char *vmid = getenv("PVM_VMID");
	char path[4096];
	int n;

	if (vmid && *vmid)
		n = snprintf(path, sizeof(path), "%s/pvmd.%d.%s", pvm_tmp(),
			     (int)getuid(), vmid);
	else
		n = snprintf(path, sizeof(path), "%s/pvmd.%d", pvm_tmp(), (int)getuid());
	return n > 0 && (size_t)n < sizeof(path) && access(path, F_OK) == 0;
}

/* pvm_mytid with libpvm3's own complaints on stderr muted: we report. */
static int
quiet_mytid(void)
{
	int saved = dup(STDERR_FILENO), null, tid;

	null = open("/dev/null", O_WRONLY);
	if (saved >= 0 && null >= 0)
		dup2(null, STDERR_FILENO);
	if (null >= 0)
		close(null);
	pvm_setopt(PvmAutoErr, 0);
	tid = pvm_mytid();
	if (saved >= 0) {
		dup2(saved, STDERR_FILENO);
		close(saved);
	}
	return tid;
}

/*
 * Connect to the running pvmd; never start one (libpvm3's pvm_mytid does
 * not either).  Returns 0, or the (negative) PVM error.
 */
static int
try_enroll(void)
{
	int tid;

	if (enrolled)
		return 0;
	if (getuid() == 0 && !getenv("PVM_ALLOW_ROOT"))
		die("running as root needs PVM_ALLOW_ROOT=1 (libpvm3 exits otherwise)");
	if (!pvmd_file_exists())
		return PvmSysErr;
	tid = quiet_mytid();
	if (tid < 0)
		return tid;
	enrolled = 1;
	return 0;
}

static void
enroll(void)
{
	int cc = try_enroll();

	if (cc == PvmSysErr || cc == PvmNoSuchBuf)
		die("no pvmd running (PVM_TMP=%s)", pvm_tmp());
	if (cc < 0)
		die("pvm_mytid: %s", pvmerr_name(cc));
}

/* pvmd tid -> host name, from a host table; NULL if unknown. */
static const char *
host_name(const struct pvmhostinfo *h, int nhost, int dtid)
{
	int i;

	for (i = 0; i < nhost; i++)
		if (h[i].hi_tid == dtid)
			return h[i].hi_name;
	return NULL;
}

/* ---- commands --------------------------------------------------------- */

static int
cmd_conf(int argc, char **argv)
{
	struct pvmhostinfo *h;
	int nhost, narch, i, cc;

	(void)argc;
	(void)argv;
	enroll();
	cc = pvm_config(&nhost, &narch, &h);
	if (cc < 0)
		die("pvm_config: %s", pvmerr_name(cc));
	for (i = 0; i < nhost; i++)
		printf("%s %x %s %d\n", h[i].hi_name, (unsigned)h[i].hi_tid,
		       h[i].hi_arch, h[i].hi_speed);
	return 0;
}

static int
cmd_wait(int argc, char **argv)
{
	struct pvmhostinfo *h;
	int want, nhost = 0, narch, cc = 0;
	double timeout, deadline;

	(void)argc;
	if (parse_count(argv[1], &want) || parse_secs(argv[2], &timeout))
		return 2;
	deadline = now_s() + timeout;
	arm_alarm((unsigned)timeout + 2); /* in case pvmd stops answering */
	for (;;) {
		cc = try_enroll();
		if (cc == 0) {
			cc = pvm_config(&nhost, &narch, &h);
			if (cc >= 0 && nhost >= want)
				return 0;
		}
		if (now_s() >= deadline)
			break;
		usleep(100 * 1000);
	}
	if (!enrolled)
		die("no pvmd running (PVM_TMP=%s) after %gs", pvm_tmp(), timeout);
	if (cc < 0)
		die("pvm_config: %s", pvmerr_name(cc));
	die("timed out after %gs: %d of %d hosts", timeout, nhost, want);
}

/* Options of spawn and run: [-n N] [-w HOST]; returns argv index of PROG. */
static int
spawn_opts(int argc, char **argv, int *n, char **where)
{
	int c;

	*n = 1;
	*where = NULL;
	optind = 1;
	while ((c = getopt(argc, argv, "+n:w:")) != -1) {
		switch (c) {
		case 'n':
			if (parse_count(optarg, n))
				return -1;
			break;
		case 'w':
			*where = optarg;
			break;
		default:
			return -1;
		}
	}
	return optind < argc ? optind : -1;
}

/*
 * Spawn n tasks of argv[0] (argv is NULL terminated).  Returns the tid
 * array (all n started) or dies, after killing the ones that did start if
 * kill_partial.
 */
static int *
spawn_tasks(char **argv, int n, char *where, int kill_partial)
{
	int *tids = calloc((size_t)n, sizeof(*tids));
	int numt, i, err = PvmOk;

	if (!tids)
		die("out of memory");
	numt = pvm_spawn(argv[0], argv[1] ? &argv[1] : NULL,
			 where ? PvmTaskHost : PvmTaskDefault, where, n, tids);
	if (numt >= n)
		return tids;
	err = numt < 0 ? numt : PvmOk;
	for (i = 0; i < n && err == PvmOk; i++)
		if (tids[i] < 0)
			err = tids[i];
	for (i = 0; i < n && numt > 0; i++) {
		if (tids[i] <= 0)
			continue;
		if (kill_partial)
			pvm_kill(tids[i]);
		else
			printf("%x\n", (unsigned)tids[i]);
	}
	fflush(stdout);
	die("spawn %s: %d of %d started: %s", argv[0], numt < 0 ? 0 : numt, n,
	    pvmerr_name(err));
}

static int
cmd_spawn(int argc, char **argv)
{
	char *where;
	int n, i, *tids, p = spawn_opts(argc, argv, &n, &where);

	if (p < 0)
		return 2;
	enroll();
	tids = spawn_tasks(&argv[p], n, where, 0);
	for (i = 0; i < n; i++)
		printf("%x\n", (unsigned)tids[i]);
	free(tids);
	return 0;
}

static int
cmd_run(int argc, char **argv)
{
	char *where;
	int n, i, cc, left, *tids, p = spawn_opts(argc, argv, &n, &where);
	double t0;

	if (p < 0)
		return 2;
	enroll();
	t0 = now_s();
	tids = spawn_tasks(&argv[p], n, where, 1);
	cc = pvm_notify(PvmTaskExit, EXIT_TAG, n, tids);
	if (cc < 0) {
		for (i = 0; i < n; i++)
			pvm_kill(tids[i]);
		die("pvm_notify: %s", pvmerr_name(cc));
	}
	for (left = n; left > 0; left--) {
		cc = pvm_recv(-1, EXIT_TAG);
		if (cc < 0)
			die("pvm_recv: %s (%d tasks still running)",
			    pvmerr_name(cc), left);
	}
	printf("tasks=%d elapsed_s=%.3f\n", n, now_s() - t0);
	free(tids);
	return 0;
}

static int
cmd_tasks(int argc, char **argv)
{
	struct pvmtaskinfo *t;
	struct pvmhostinfo *h;
	int ntask, nhost, narch, i, cc, me;
	const char *hn;

	(void)argc;
	(void)argv;
	enroll();
	me = pvm_mytid();
	cc = pvm_config(&nhost, &narch, &h);
	if (cc < 0)
		die("pvm_config: %s", pvmerr_name(cc));
	cc = pvm_tasks(0, &ntask, &t);
	if (cc < 0)
		die("pvm_tasks: %s", pvmerr_name(cc));
	for (i = 0; i < ntask; i++) {
		if (t[i].ti_tid == me)
			continue;
		hn = host_name(h, nhost, t[i].ti_host);
		printf("%x %x %d ", (unsigned)t[i].ti_tid, (unsigned)t[i].ti_ptid,
		       t[i].ti_pid);
		if (hn)
			printf("%s", hn);
		else
			printf("%x", (unsigned)t[i].ti_host);
		printf(" %s\n", t[i].ti_a_out && *t[i].ti_a_out ? t[i].ti_a_out : "-");
	}
	return 0;
}

/* add and delete: one line per host, "HOST ok" or "HOST error NAME". */
static int
report_hosts(char **hosts, int n, const int *infos, int cc, const char *what)
{
	int i, bad = 0;

	if (cc < 0)
		die("%s: %s", what, pvmerr_name(cc));
	for (i = 0; i < n; i++) {
		if (infos[i] < 0) {
			printf("%s error %s\n", hosts[i],
			    pvmerr_name(infos[i]));
			bad++;
		} else {
			printf("%s ok\n", hosts[i]);
		}
	}
	fflush(stdout);
	if (bad)
		die("%s: %d of %d hosts failed", what, bad, n);
	return 0;
}

static int
cmd_add(int argc, char **argv)
{
	int *infos = calloc((size_t)argc, sizeof(*infos));
	int cc;

	if (!infos)
		die("out of memory");
	enroll();
	cc = pvm_addhosts(&argv[1], argc - 1, infos);
	return report_hosts(&argv[1], argc - 1, infos, cc, "pvm_addhosts");
}

static int
cmd_delete(int argc, char **argv)
{
	int *infos = calloc((size_t)argc, sizeof(*infos));
	int cc;

	if (!infos)
		die("out of memory");
	enroll();
	cc = pvm_delhosts(&argv[1], argc - 1, infos);
	return report_hosts(&argv[1], argc - 1, infos, cc, "pvm_delhosts");
}

static int
cmd_halt(int argc, char **argv)
{
	int cc;

	(void)argc;
	(void)argv;
	enroll();
	signal(SIGTERM, SIG_IGN); /* pvmd sends it to every task, us too */
	cc = pvm_halt();
	enrolled = 0; /* the pvmd is gone: nothing to pvm_exit from */
	if (cc < 0)
		die("pvm_halt: %s", pvmerr_name(cc));
	return 0;
}

/* Our cgroup line of /proc/self/cgroup ("0::/path"), or "" */
static void
own_cgroup(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "r");

	buf[0] = '\0';
	if (f == NULL)
		return;
	while (fgets(buf, (int)len, f) != NULL && strncmp(buf, "0::", 3) != 0)
		buf[0] = '\0';
	fclose(f);
}

static int
cmd_joined(int argc, char **argv)
{
	static const char *const names[] = { "OTHER", "FIFO", "RR", "BATCH",
	    "ISO", "IDLE", "DEADLINE" };
	char before[4096], now[4096];
	double timeout, hold = 0, t0, ms;
	int pol = SCHED_OTHER;

	if (parse_secs(argv[1], &timeout) || (argc > 2 && parse_secs(argv[2], &hold)))
		return 2;
	own_cgroup(before, sizeof(before));
	enroll();
	t0 = now_s();
	for (;;) {
		own_cgroup(now, sizeof(now));
		if (strcmp(now, before) != 0)
			break;
		if (now_s() - t0 > timeout)
			die("not joined within %.1f s (cgroup %s)", timeout,
			    strtok(before, "\n"));
		usleep(1000);
	}
	ms = (now_s() - t0) * 1000;
	/* dts sets the policy right after the move: allow it 100 ms */
	for (int i = 0; i < 100 && (pol = sched_getscheduler(0) &
	    ~SCHED_RESET_ON_FORK) == SCHED_OTHER; i++)
		usleep(1000);
	printf("joined_ms=%.1f policy=%s\n", ms,
	    pol >= 0 && pol < 7 ? names[pol] : "?");
	if (hold > 0)
		usleep((useconds_t)(hold * 1e6));
	return 0;
}

/* ---- main ------------------------------------------------------------- */

static const struct cmd cmds[] = {
	{ "conf", 0, 0, "conf", cmd_conf },
	{ "wait", 2, 2, "wait N TIMEOUT_S", cmd_wait },
	{ "spawn", 1, -1, "spawn [-n N] [-w HOST] PROG [ARGS...]", cmd_spawn },
	{ "run", 1, -1, "run [-n N] [-w HOST] PROG [ARGS...]", cmd_run },
	{ "tasks", 0, 0, "tasks", cmd_tasks },
	{ "add", 1, -1, "add HOST...", cmd_add },
	{ "delete", 1, -1, "delete HOST...", cmd_delete },
	{ "halt", 0, 0, "halt", cmd_halt },
	{ "joined", 1, 2, "joined TIMEOUT_S [HOLD_S]", cmd_joined },
};
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

static void __attribute__((noreturn))
usage(const struct cmd *c)
{
	size_t i;

	if (c) {
		fprintf(stderr, "usage: " PROG " %s\n", c->usage);
	} else {
		fprintf(stderr, "usage: " PROG " [-T SECONDS] [-L] CMD [ARGS]\n");
		for (i = 0; i < NCMDS; i++)
			fprintf(stderr, "  %s\n", cmds[i].usage);
	}
	exit(2);
}

static void
set_deadline(const char *arg)
{
	double t;

	if (parse_secs(arg, &t) || t < 1)
		usage(NULL);
	arm_alarm((unsigned)t);
}

/* -L: lifted until we exit (the kernel closes the connection). */
static void
lift(void)
{
	const char	*sock = getenv(ADOPT_SOCKET_ENV);
	char		 err[ADOPT_MSG_MAX];
	int		 fd, ms;

	if (adopt_lift(sock != NULL && sock[0] != '\0' ? sock :
	    ADOPT_SOCKET_DEFAULT, job_label_pick(NULL), LIFT_WAIT_MS, &fd,
	    &ms, err, sizeof(err)) < 0)
		dprintf(err_fd, PROG ": not lifted: %s\n", err);
}

int
main(int argc, char **argv)
{
	const struct cmd *c = NULL;
	int nargs, rc;
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	err_fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (err_fd < 0)
		err_fd = STDERR_FILENO;
	if (argc >= 3 && strcmp(argv[1], "-T") == 0) {
		set_deadline(argv[2]);
		argc -= 2;
		argv += 2;
	}
	if (argc >= 2 && strcmp(argv[1], "-L") == 0) {
		lift();
		argc--;
		argv++;
	}
	if (argc < 2)
		usage(NULL);
	for (i = 0; i < NCMDS; i++)
		if (strcmp(argv[1], cmds[i].name) == 0)
			c = &cmds[i];
	if (!c)
		usage(NULL);
	nargs = argc - 2;
	if (nargs < c->min_args || (c->max_args >= 0 && nargs > c->max_args))
		usage(c);
	rc = c->fn(argc - 1, argv + 1);
	if (rc == 2)
		usage(c);
	finish();
	return rc;
}
