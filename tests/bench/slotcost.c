/*
 * slotcost.c - the scheduler's edge cost with N gangs (jobs) against one,
 * on real cgroups: dts/scheduler.c over dts/gang.c, each gang a cgroup
 * of its own under the cgroup2 mount holding one CPU-bound process.
 *
 *	slotcost N SECONDS IP_US PS_US [freezer|signal]
 *
 * The loop is the edge thread's (dts/scheduler.c edge_thread) without
 * the futex: at SCHED_FIFO 90, mlockall, clock_nanosleep(TIMER_ABSTIME)
 * to the scheduler's next wake-up, then sched_timer.  Per edge: late =
 * wake-up after the deadline, op = the edge's gang operations as dts
 * counts them (its histogram dts_edge_op_seconds, TRACE's op_ns: from
 * the wake-up until every gang is as the edge wants it), work = all of
 * sched_timer (also what an LS does after its edge, while the gangs are
 * frozen: each job set to its level of the next PS's first slot).  With
 * N > 1 the PS is N slots: a slot edge lowers one job and raises the next
 * (work-conserving, dts(8) JOBS).  Prints one line per kind of edge (ps,
 * ls, slot):
 *	N kind edges late_p50 late_p99 op_p50 op_p99 op_mean work_mean
 *	    total_p50 total_p99
 * (ns; total = late + op).  Everything it made is gone when it exits (gangs released, the
 * processes killed, the cgroups removed), also on SIGINT/SIGTERM.
 * Built by tests/bench/bench-slot.sh.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "cgroup.h"
#include "conf.h"
#include "gang.h"
#include "log.h"
#include "proto.h"
#include "scheduler.h"
#include "timeutil.h"

#define GANGS_MAX	PROTO_JOBS_MAX
#define EDGES_MAX	(1 << 20)

static struct gang	 g[GANGS_MAX];
static struct gang	 tmpl;		/* the subtree, as dts's */
static pid_t		 kid[GANGS_MAX];
static int		 ngangs;
static volatile sig_atomic_t quit;

struct edge {
	int64_t	 late, op, work;
	int	 kind;		/* 0 PS, 1 LS, 2 slot edge */
};

static struct edge	 edges[EDGES_MAX];

static void
on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

static void
cleanup(void)
{
	int	 k;

	for (k = 0; k < ngangs; k++) {
		gang_release(&g[k]);
		if (kid[k] > 0) {
			kill(kid[k], SIGKILL);
			(void)waitpid(kid[k], NULL, 0);
		}
		(void)rmdir(g[k].cg);
	}
	(void)gang_hold(&tmpl, 0);
	if (tmpl.jobs[0] != '\0')
		(void)rmdir(tmpl.jobs);
	if (tmpl.base[0] != '\0')
		(void)rmdir(tmpl.base);
}

static int
cmp64(const void *a, const void *b)
{
	int64_t	 x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int64_t
pct(int64_t *v, size_t n, double p)
{
	size_t	 i = (size_t)(n * p);

	if (n == 0)
		return 0;
	if (i >= n)
		i = n - 1;
	return v[i];
}

static const char *const kinds[] = { "ps", "ls", "slot" };

static void
report(int n, int kind, size_t count)
{
	int64_t	*late = malloc(count * sizeof(*late));
	int64_t	*op = malloc(count * sizeof(*op));
	int64_t	*tot = malloc(count * sizeof(*tot));
	int64_t	 sum = 0, work = 0;
	size_t	 m = 0, i;

	if (late == NULL || op == NULL || tot == NULL)
		exit(1);
	for (i = 0; i < count; i++) {
		if (edges[i].kind != kind)
			continue;
		late[m] = edges[i].late;
		op[m] = edges[i].op;
		tot[m] = edges[i].late + edges[i].op;
		sum += edges[i].op;
		work += edges[i].work;
		m++;
	}
	qsort(late, m, sizeof(*late), cmp64);
	qsort(op, m, sizeof(*op), cmp64);
	qsort(tot, m, sizeof(*tot), cmp64);
	printf("%d %s %zu %lld %lld %lld %lld %lld %lld %lld %lld\n", n,
	    kinds[kind], m,
	    (long long)pct(late, m, .5), (long long)pct(late, m, .99),
	    (long long)pct(op, m, .5), (long long)pct(op, m, .99),
	    (long long)(m ? sum / (int64_t)m : 0),
	    (long long)(m ? work / (int64_t)m : 0),
	    (long long)pct(tot, m, .5), (long long)pct(tot, m, .99));
	free(late);
	free(op);
	free(tot);
}

int
main(int argc, char **argv)
{
	struct sched		 s;
	struct proto_schedule	 p;
	struct sched_param	 sp = { .sched_priority = 90 };
	struct sigaction	 sa;
	struct timespec		 ts;
	char			 mnt[CG_PATH_MAX], where[64];
	char			 err[256], name[PROTO_JOB_LEN];
	const char		*why;
	int64_t			 end, w, t1, t2;
	uint64_t		 slices, opsum;
	size_t			 count = 0;
	int			 n, secs, ip_us, ps_us, k, backend;

	if (argc < 5) {
		fprintf(stderr, "usage: slotcost N SECONDS IP_US PS_US "
		    "[freezer|signal]\n");
		return 2;
	}
	n = atoi(argv[1]);
	secs = atoi(argv[2]);
	ip_us = atoi(argv[3]);
	ps_us = atoi(argv[4]);
	backend = argc > 5 && strcmp(argv[5], "signal") == 0 ?
	    BACKEND_SIGNAL : BACKEND_FREEZER;
	if (n < 1 || n > GANGS_MAX || secs < 1 || ps_us < 1 ||
	    ip_us <= ps_us) {
		fprintf(stderr, "slotcost: bad arguments\n");
		return 2;
	}
	log_init("slotcost", LOG_TO_STDERR, NULL, LOG_LVL_WARN);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (cg_mount(mnt, sizeof(mnt)) == -1) {
		fprintf(stderr, "slotcost: no cgroup2 mount\n");
		return 1;
	}
	snprintf(where, sizeof(where), "/dts-slotcost.%d", (int)getpid());
	if (gang_setup(&tmpl, where, backend, 50, err, sizeof(err)) == -1) {
		fprintf(stderr, "slotcost: %s\n", err);
		cleanup();
		return 1;
	}
	for (k = 0; k < n; k++) {
		snprintf(name, sizeof(name), "job.bench@j%d", k);
		if (gang_open(&g[k], &tmpl, name, err, sizeof(err)) == -1) {
			fprintf(stderr, "slotcost: %s\n", err);
			cleanup();
			return 1;
		}
		ngangs = k + 1;
		if ((kid[k] = fork()) == 0) {
			for (;;)
				;	/* CPU-bound, as a PVM task */
		}
		if (kid[k] == -1 || gang_adopt(&g[k], kid[k]) == -1) {
			fprintf(stderr, "slotcost: adopt: %s\n",
			    strerror(errno));
			cleanup();
			return 1;
		}
	}
	sched_init(&s, NULL, 0);
	sched_set_hold(&s, &tmpl);
	for (k = 0; k < n; k++) {
		snprintf(name, sizeof(name), "bench:j%d", k);
		(void)sched_job_add(&s, &g[k], name);
	}
	if (sched_setscheduler(0, SCHED_FIFO, &sp) == -1 ||
	    mlockall(MCL_CURRENT | MCL_FUTURE) == -1)
		fprintf(stderr, "slotcost: FIFO/mlockall: %s\n",
		    strerror(errno));
	memset(&p, 0, sizeof(p));
	p.mode = MODE_STATIC;
	p.sync = SYNC_ARRIVAL;
	p.flags = SCHED_F_ACTIVE;
	p.ps_us = (uint32_t)ps_us;
	p.ip_us = (uint32_t)ip_us;
	p.si_us = (uint32_t)(ip_us * 10);
	if (sched_apply(&s, &p, now_mono_ns() - ARRIVAL_DELAY, now_real_ns() -
	    ARRIVAL_DELAY, &why) == -1) {
		fprintf(stderr, "slotcost: schedule: %s\n", why);
		cleanup();
		return 1;
	}
	end = now_mono_ns() + (int64_t)secs * NS_PER_SEC;
	while (!quit && count < EDGES_MAX && (w = s.wake_at) != 0 &&
	    w < end) {
		ts = ns_to_ts(w);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
		    NULL) == EINTR && !quit)
			;
		slices = s.slices;
		opsum = s.st.op.sum_ns;
		t1 = now_mono_ns();
		sched_timer(&s, t1);
		t2 = now_mono_ns();
		edges[count].late = t1 - w;
		edges[count].op = (int64_t)(s.st.op.sum_ns - opsum);
		edges[count].work = t2 - t1;
		edges[count].kind = s.slices != slices ? 0 :
		    s.phase == PHASE_LS ? 1 : 2;
		count++;
	}
	sched_release(&s);
	sp.sched_priority = 0;
	(void)sched_setscheduler(0, SCHED_OTHER, &sp);
	cleanup();
	report(n, 0, count);
	report(n, 1, count);
	if (n > 1)
		report(n, 2, count);
	return 0;
}
