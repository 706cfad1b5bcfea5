/*
 * floor.c - the bare floor of a signal-based slice loop, for bench-edge.sh,
 * bench-share.sh and bench-sync.sh.
 *
 *   floor [-r RTPRIO] [-c CPU] [-g PGID | -F CGROUP.FREEZE] [-w WARM_S]
 *         [-l LS_US] [-O ORIGIN_NS] N SECONDS PS_US OUT.csv
 *
 * Forks N busy children into a new process group (SCHED_RR RTPRIO, like
 * pvmd's gang; -r 0: SCHED_OTHER) - or, with -g, drives the existing
 * process group PGID instead (e.g. dts's own gang while dts is in HPDT
 * mode, so that both see the very same processes; N is then only a
 * label, and the group is left continued, not killed), or with -F the
 * cgroup whose cgroup.freeze file is given (written instead of killpg:
 * dts's own freezer backend, bare) - then, as
 * SCHED_FIFO 99 with mlockall,
 * alternates killpg(SIGSTOP) and killpg(SIGCONT) on absolute
 * CLOCK_MONOTONIC deadlines (clock_nanosleep TIMER_ABSTIME): PS_US of
 * running, then LS_US (default PS_US) stopped, and so on
 * for SECONDS (after WARM_S of the same loop that is not recorded: the
 * gang may have been RT-throttled just before).  With -O the edges are
 * those of clock sync: a PS begins at ORIGIN_NS + k * (PS_US + LS_US),
 * ORIGIN_NS a CLOCK_REALTIME time in ns (converted once to
 * CLOCK_MONOTONIC, as dts converts a datagram's origin), so that loops
 * started apart (one per host of a test cluster) wake at the same
 * deadlines; without it the first edge (a stop) is PS_US from the start.
 * Per edge it records, like dts's trace:
 *   late_ns = wake - deadline, op_ns = (killpg done) - wake (the loop
 *   does nothing else, so that is the killpg call), real_ns = the
 *   CLOCK_REALTIME time when the killpg was done,
 * and writes OUT.csv: phase,late_ns,op_ns,real_ns.  On stdout one line:
 *   floor n=N edges=E cpu_ns=C wall_ns=W
 * (C = this controller's own CPU time, children excluded).  SIGTERM or
 * SIGINT end the loop early, with the same clean-up.  The children
 * are continued and killed before it exits; they also die with it
 * (PR_SET_PDEATHSIG).  Nothing else is done in the loop.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "burn.h"

static volatile sig_atomic_t quit;

static void
on_term(int sig)
{
	(void)sig;
	quit = 1;
}

struct edge {
	int64_t late, op, real;
	int stop;
};

/*
 * CLOCK_REALTIME - CLOCK_MONOTONIC, from the tightest of a few bracketed
 * reads (a preemption between two reads would shift every deadline).
 */
static int64_t
real_minus_mono(void)
{
	int64_t best = 0, width = -1;

	for (int i = 0; i < 16; i++) {
		int64_t m0 = ns(CLOCK_MONOTONIC), r = ns(CLOCK_REALTIME);
		int64_t m1 = ns(CLOCK_MONOTONIC);
		if (width < 0 || m1 - m0 < width) {
			width = m1 - m0;
			best = r - m0 - (m1 - m0) / 2;
		}
	}
	return best;
}

/* Stop or continue the gang: killpg, or (-F) a write to its cgroup.freeze. */
static void
gang_op(pid_t pg, int frz, int stop)
{
	if (frz == -1)
		killpg(pg, stop ? SIGSTOP : SIGCONT);
	else if (pwrite(frz, stop ? "1" : "0", 1, 0) != 1)
		perror("cgroup.freeze");
}

static void
die(const char *what)
{
	perror(what);
	exit(1);
}

int
main(int argc, char **argv)
{
	int rtprio = 97, cpu = -1, c, own = 1;
	double warm = 0;
	int64_t ls = 0, origin = 0;
	int aligned = 0;
	pid_t pg = 0;
	int frz = -1;

	while ((c = getopt(argc, argv, "r:c:g:F:w:l:O:")) != -1) {
		if (c == 'F') {
			if ((frz = open(optarg, O_WRONLY | O_CLOEXEC)) == -1)
				die(optarg);
			own = 0;
		} else if (c == 'O') {
			origin = atoll(optarg);
			aligned = 1;
		} else if (c == 'g') {
			pg = (pid_t)atoi(optarg);
			own = 0;
			if (pg <= 1)
				goto usage;
		} else if (c == 'l')
			ls = atoll(optarg) * 1000LL;
		else if (c == 'w')
			warm = atof(optarg);
		else if (c == 'r')
			rtprio = atoi(optarg);
		else if (c == 'c')
			cpu = atoi(optarg);
		else
			goto usage;
	}
	if (argc - optind != 4) {
usage:
		fprintf(stderr, "usage: floor [-r RTPRIO] [-c CPU] [-g PGID | -F CGROUP.FREEZE] [-w WARM_S] [-l LS_US] [-O ORIGIN_NS] N SECONDS PS_US OUT.csv\n");
		return 2;
	}
	int n = atoi(argv[optind]);
	double secs = atof(argv[optind + 1]);
	int64_t half = atoll(argv[optind + 2]) * 1000LL;
	const char *out = argv[optind + 3];
	if (n < 1 || secs <= 0 || half <= 0 || ls < 0)
		goto usage;
	if (ls == 0)
		ls = half;

	if (cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0)
			die("sched_setaffinity");
	}
	for (int i = 0; own && i < n; i++) {
		pid_t p = fork();
		if (p < 0)
			die("fork");
		if (p == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			setpgid(0, pg);
			if (rtprio > 0) {
				struct sched_param sp = { .sched_priority = rtprio };
				sched_setscheduler(0, SCHED_RR, &sp);
			}
			for (volatile uint64_t x = 0;; x++)
				;
		}
		if (pg == 0)
			pg = p;
		setpgid(p, pg);	/* both sides, no race */
	}

	size_t max = (size_t)(secs * 2e9 / (double)(half + ls)) + 4;
	struct edge *e = calloc(max, sizeof(*e));
	if (e == NULL)
		die("calloc");
	if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
		perror("mlockall");
	struct sched_param sp = { .sched_priority = sched_get_priority_max(SCHED_FIFO) };
	if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
		perror("sched_setscheduler FIFO");

	struct sigaction sa = { .sa_handler = on_term };	/* no SA_RESTART */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	int64_t t0 = ns(CLOCK_MONOTONIC) + half;
	int stop = 1;
	if (aligned) {
		/* the next edge of the grid origin + k * period, 1 ms from now */
		int64_t period = half + ls, o = origin - real_minus_mono();
		int64_t from = ns(CLOCK_MONOTONIC) + 1000000, q = (from - o) / period;
		if (o + q * period > from)	/* C division truncates toward 0 */
			q--;
		int64_t b = o + q * period;	/* a PS begins at b <= from */
		if (b + half > from) {
			t0 = b + half;
		} else {
			t0 = b + period;
			stop = 0;
		}
	}
	int64_t rec = t0 + (int64_t)(warm * 1e9);
	int64_t end = rec + (int64_t)(secs * 1e9), cpu0 = 0, w0 = 0;
	size_t k = 0;
	/* half = the PS length, ls = the LS length; stop = this edge stops */
	for (int64_t dl = t0; dl < end && k < max; dl += stop ? ls : half, stop = !stop) {
		if (w0 == 0 && dl >= rec) {
			cpu0 = ns(CLOCK_PROCESS_CPUTIME_ID);
			w0 = ns(CLOCK_MONOTONIC);
		}
		struct timespec ts = { dl / 1000000000LL, dl % 1000000000LL };
		while (!quit && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		if (quit)
			break;
		int64_t wake = ns(CLOCK_MONOTONIC);
		gang_op(pg, frz, stop);
		int64_t done = ns(CLOCK_MONOTONIC), real = ns(CLOCK_REALTIME);
		if (dl < rec)
			goto skip;
		e[k].late = wake - dl;
		e[k].op = done - wake;
		e[k].real = real;
		e[k].stop = stop;
		k++;
skip:
		/* missed edges: skip them, like dts */
		while (dl + (stop ? ls : half) < wake) {
			dl += stop ? ls : half;
			stop = !stop;
		}
	}
	int64_t cpu1 = ns(CLOCK_PROCESS_CPUTIME_ID), w1 = ns(CLOCK_MONOTONIC);

	sp.sched_priority = 0;
	sched_setscheduler(0, SCHED_OTHER, &sp);
	gang_op(pg, frz, 0);
	if (own) {
		killpg(pg, SIGKILL);
		while (waitpid(-pg, NULL, 0) > 0 || errno == EINTR)
			;
	}

	FILE *f = fopen(out, "w");
	if (f == NULL)
		die(out);
	fprintf(f, "phase,late_ns,op_ns,real_ns\n");
	for (size_t i = 0; i < k; i++)
		fprintf(f, "%s,%lld,%lld,%lld\n", e[i].stop ? "LS" : "PS",
			(long long)e[i].late, (long long)e[i].op, (long long)e[i].real);
	if (fclose(f) != 0)
		die(out);
	printf("floor n=%d edges=%zu cpu_ns=%lld wall_ns=%lld\n", n, k,
	       (long long)(cpu1 - cpu0), (long long)(w1 - w0));
	return 0;
}
