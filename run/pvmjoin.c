/*
 * pvmjoin.c - dts-pvmjoin: every task of the local pvmd joins the gang,
 * however it was started (dts(8), "Tasks started outside pvmd").
 *
 *   dts-pvmjoin [-v] [-p pid] [-S socket]
 *
 * dts-run --pvmd starts it once dts has adopted the caller and before it
 * execs pvmd, so it runs in the gang as the pvmd's user, with stdin,
 * stdout and stderr on /dev/null.  It waits until that pvmd answers
 * (find_pvmd, retried with a back-off for up to START_WAIT), then every
 * PERIOD asks it for the tasks of its host (pvm_tasks) and, for each
 * task outside the gang it has not asked about yet, sends "JOIN <pid>" to
 * dts over the adoption socket; dts checks and moves it.  It ends when pvmd
 * does (pvm_tasks fails): PVM's own reset and kill (SIGTERM) do not end
 * it.  It is stopped in every LS with the rest of the gang, so a task
 * joins within PERIOD of PS time.
 *
 * Left out: tasks already in the gang (pvmd spawned them), ourselves, and
 * dts-console: the console sends the schedule, and in the gang it would
 * sleep through every LS and miss its SI (the nodes' dead-man switch).
 */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <pvm3.h>

#include "adopt_msg.h"
#include "cgroup.h"
#include "log.h"
#include "proc.h"
#include "timeutil.h"

#define PERIOD      (20 * NS_PER_MS)  /* pvm_tasks: 25-150 us of CPU */
#define START_WAIT  (60 * NS_PER_SEC) /* for pvmd to answer at all */
#define BACKOFF_MIN (10 * NS_PER_MS)
#define BACKOFF_MAX NS_PER_SEC
#define REPLY_WAIT_MS 2000            /* dts answers in microseconds */
#define TASKS_MAX   65536             /* more on one host: the rest later */

static struct {
	const char	*sock;
	char		 cg[CG_PATH_MAX];	/* our gang (/proc/self/cgroup) */
	pid_t		 self;
	pid_t		 pvmd;		/* -p: the process that execs pvmd */
	const char	*vmid;		/* PVM_VMID as we were started */
	pid_t		*done, *next;	/* sorted: pids dealt with */
	int		 ndone;
	int		 dts_down;	/* the last request found no dts */
} j;

static void __attribute__((noreturn))
usage(int rc)
{
	fprintf(rc ? stderr : stdout,
	    "usage: dts-pvmjoin [-v] [-p pid] [-S socket]\n");
	exit(rc);
}

static void
sleep_ns(int64_t ns)
{
	struct timespec	 ts = ns_to_ts(ns);

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/*
 * The pvmd libpvm3 talks to is ours: its socket's peer (the process that
 * listened) is the one dts-run became (-p), or is in our gang.  A slave
 * pvmd listens before it forks, so its peer is the process that exec'd
 * it, which has ended by now.
 */
static int
pvmd_is_ours(void)
{
	struct ucred	 cr;
	socklen_t	 len = sizeof(cr);
	char		 cg[CG_PATH_MAX];
	int		*fds = NULL;

	if (pvm_getfds(&fds) < 1 || fds == NULL ||
	    getsockopt(fds[0], SOL_SOCKET, SO_PEERCRED, &cr, &len) == -1)
		return 0;
	return (j.pvmd > 0 && cr.pid == j.pvmd) ||
	    (proc_pid_cgroup(cr.pid, cg, sizeof(cg)) == 0 &&
	    strcmp(cg, j.cg) == 0);
}

/* Enroll in the pvmd of VM vmid (NULL: none); its tid if it is ours,
 * else -1. */
static int
try_pvmd(const char *vmid)
{
	int	 tid;

	if ((vmid != NULL ? setenv("PVM_VMID", vmid, 1) :
	    unsetenv("PVM_VMID")) == -1)
		return -1;
	if ((tid = pvm_mytid()) < 0)
		return -1;
	if (pvmd_is_ours())
		return tid;
	pvm_exit();
	return -1;
}

/*
 * Our pvmd, whatever its VM id: a slave pvmd reads PVM_VMID from the
 * master's handshake, which we never see, so every address file
 * pvmd.UID.VMID of PVM_TMP is tried too.  A pvmd outside our gang
 * (another VM of this user) is never taken.  Its tid, or -1.
 */
static int
find_pvmd(void)
{
	const char	*tmp = getenv("PVM_TMP");
	char		 prefix[32];
	struct dirent	*e;
	DIR		*d;
	int		 tid;

	if ((tid = try_pvmd(j.vmid)) >= 0)
		return tid;
	snprintf(prefix, sizeof(prefix), "pvmd.%u.", (unsigned)getuid());
	if ((d = opendir(tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp")) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 &&
		    e->d_name[strlen(prefix)] != '\0' &&
		    (tid = try_pvmd(e->d_name + strlen(prefix))) >= 0)
			break;
	closedir(d);
	return tid;
}

/*
 * Until our pvmd answers: the master writes its address file soon after
 * the exec; a slave only after the master's handshake.  Our host's pvmd
 * tid, or -1 after START_WAIT.
 */
static int
wait_for_pvmd(void)
{
	int64_t	 end = now_mono_ns() + START_WAIT, delay = BACKOFF_MIN;
	int	 tid;

	for (;;) {
		if ((tid = find_pvmd()) >= 0)
			return pvm_tidtohost(tid);
		if (now_mono_ns() + delay > end)
			return -1;
		sleep_ns(delay);
		if ((delay *= 2) > BACKOFF_MAX)
			delay = BACKOFF_MAX;
	}
}

static int
cmp_pid(const void *a, const void *b)
{
	pid_t	 x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* Ask dts for pid: 1 answered (joined or refused), 0 no dts to ask or
 * dts busy (ask again next time). */
static int
ask_join(pid_t pid)
{
	char	 req[64], reply[ADOPT_MSG_MAX + 1], err[ADOPT_MSG_MAX];

	snprintf(req, sizeof(req), "JOIN %d", (int)pid);
	if (adopt_ask(j.sock, req, reply, sizeof(reply), REPLY_WAIT_MS, err,
	    sizeof(err)) == -1) {
		if (!j.dts_down)
			log_warnx("%s; will ask again", err);
		j.dts_down = 1;
		return 0;
	}
	j.dts_down = 0;
	if (strncmp(reply, ADOPT_BUSY, strlen(ADOPT_BUSY)) == 0) {
		log_debug("pid %d: %s; will ask again", (int)pid, reply + 4);
		return 0;
	}
	if (strcmp(reply, "OK") == 0)
		log_debug("pid %d joined the gang", (int)pid);
	else
		log_info("dts did not take pid %d in: %s", (int)pid,
		    strncmp(reply, "ERR ", 4) == 0 ? reply + 4 : reply);
	return 1;
}

/* One task: 1 if it needs nothing more from us (in the gang, left out,
 * or dts answered), 0 to look at it again next time. */
static int
deal_with(pid_t pid)
{
	char	 cg[CG_PATH_MAX], comm[64];

	if (proc_pid_cgroup(pid, cg, sizeof(cg)) == -1 ||
	    strcmp(cg, j.cg) == 0)
		return 1;	/* gone, or in the gang already */
	if (proc_pid_comm(pid, comm, sizeof(comm)) == 0 &&
	    strcmp(comm, "dts-console") == 0)
		return 1;
	return ask_join(pid);
}

/*
 * The tasks of this period: the ones dealt with before are skipped, the
 * others dealt with now; what is left in j.done is exactly the current
 * tasks dealt with, so a pid that comes back for a new task is looked at
 * again.
 */
static void
scan(const struct pvmtaskinfo *ti, int n)
{
	int	 m = 0, k = 0;

	if (n > TASKS_MAX)
		n = TASKS_MAX;
	for (int i = 0; i < n; i++)
		if (ti[i].ti_pid > 0 && ti[i].ti_pid != j.self)
			j.next[m++] = ti[i].ti_pid;
	qsort(j.next, (size_t)m, sizeof(pid_t), cmp_pid);
	for (int i = 0; i < m; i++) {
		pid_t pid = j.next[i];
		if (k > 0 && j.next[k - 1] == pid)
			continue;	/* listed twice */
		if (bsearch(&pid, j.done, (size_t)j.ndone, sizeof(pid_t),
		    cmp_pid) != NULL || deal_with(pid))
			j.next[k++] = pid;
	}
	memcpy(j.done, j.next, (size_t)k * sizeof(pid_t));
	j.ndone = k;
}

int
main(int argc, char **argv)
{
	int			 host, n, c, verbose = 0;
	struct pvmtaskinfo	*ti;
	int64_t			 next;

	j.sock = getenv(ADOPT_SOCKET_ENV);
	if (j.sock == NULL || j.sock[0] == '\0')
		j.sock = ADOPT_SOCKET_DEFAULT;
	while ((c = getopt(argc, argv, "hp:S:vV")) != -1) {
		char *end;
		long v;

		switch (c) {
		case 'p':
			v = strtol(optarg, &end, 10);
			if (end == optarg || *end != '\0' || v < 1 ||
			    v > ADOPT_PID_MAX)
				usage(2);
			j.pvmd = (pid_t)v;
			break;
		case 'S': j.sock = optarg; break;
		case 'v': verbose = 1; break;
		case 'V': printf("dts-pvmjoin %s\n", PACKAGE_VERSION); return 0;
		case 'h': usage(0);
		default: usage(2);
		}
	}
	if (optind != argc)
		usage(2);
	log_init("dts-pvmjoin", verbose ? LOG_TO_STDERR : LOG_TO_SYSLOG, NULL,
	    verbose ? LOG_LVL_DEBUG : LOG_LVL_INFO);
	/* PVM's reset and kill send SIGTERM: we end with pvmd instead */
	signal(SIGTERM, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	j.self = getpid();
	if ((j.vmid = getenv("PVM_VMID")) != NULL)
		j.vmid = j.vmid[0] != '\0' ? strdup(j.vmid) : NULL;
	j.done = malloc(TASKS_MAX * sizeof(pid_t));
	j.next = malloc(TASKS_MAX * sizeof(pid_t));
	if (j.done == NULL || j.next == NULL)
		fatalx("out of memory");
	if (proc_pid_cgroup(0, j.cg, sizeof(j.cg)) == -1)
		fatalx("cannot read /proc/self/cgroup");
	pvm_setopt(PvmAutoErr, 0);
	if ((host = wait_for_pvmd()) < 0) {
		log_warnx("no pvmd of this gang answered within %d s: PVM "
		    "tasks started outside it will not join the gang",
		    (int)(START_WAIT / NS_PER_SEC));
		return 1;
	}
	log_debug("watching the tasks of pvmd %x for gang %s", host, j.cg);
	for (next = now_mono_ns();;) {
		int64_t now;

		if ((c = pvm_tasks(host, &n, &ti)) < 0) {
			log_debug("pvm_tasks: %d: pvmd is gone", c);
			return 0;
		}
		scan(ti, n);
		now = now_mono_ns();
		if ((next += PERIOD) <= now)	/* late (stopped in LS) */
			next = now + PERIOD;
		sleep_ns(next - now);
	}
}
