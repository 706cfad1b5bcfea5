/*
 * lifter.c - asks the node's dts for lifts (dts(8), LIFTS), for t108.
 *
 *   lifter [-n COUNT] [-d DURATION_MS] [-h HOLD_MS] [-s] [-w WAIT_MS]
 *          [-c CHAINS]
 *
 * COUNT times (1), or with -d until DURATION_MS have passed: a lift
 * ($DTS_SOCKET, else the default socket; the job $DTS_JOB, else "pvm"),
 * then HOLD_MS (100) spinning (-s) or asleep, then the lift let go.  A
 * refused lift holds HOLD_MS too, unlifted (as a console's command then
 * runs unlifted), so that a loop asks for lifts at the pace it would use
 * them.  One line a lift:
 *   "lift I: OK MS policy=RR|OTHER|...[,reset_on_fork] cgroup=CG held_ms=H cpu_ms=C"
 *   "lift I: ERR REASON"
 * (the policy and cgroup as the hold began), then
 *   "granted=G refused=R lifted_ms=L elapsed_ms=E".
 * and then -w WAIT_MS (0) asleep before it exits.  Exit 0; bad usage
 * exits 2.
 *
 * -c CHAINS: from the start, CHAINS chains of threads clone all along
 * (each link creates the next and exits at once), so that every lift
 * begins and ends with a clone under way: a link born at RR outside the
 * gang would hand RR down its chain for good (t115).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "adopt_msg.h"
#include "job.h"
#include "timeutil.h"

static int64_t
cpu_ns(void)
{
	struct timespec	 t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (int64_t)t.tv_sec * NS_PER_SEC + t.tv_nsec;
}

/* The policy's name, with ",reset_on_fork" where the flag is set. */
static const char *
policy(void)
{
	int	 p = sched_getscheduler(0), rof = p != -1 &&
	    (p & SCHED_RESET_ON_FORK);

	switch (p == -1 ? -1 : p & ~SCHED_RESET_ON_FORK) {
	case SCHED_OTHER:	return rof ? "OTHER,reset_on_fork" : "OTHER";
	case SCHED_RR:		return rof ? "RR,reset_on_fork" : "RR";
	case SCHED_FIFO:	return rof ? "FIFO,reset_on_fork" : "FIFO";
	case SCHED_IDLE:	return rof ? "IDLE,reset_on_fork" : "IDLE";
	case SCHED_BATCH:	return rof ? "BATCH,reset_on_fork" : "BATCH";
	default:		return "?";
	}
}

static void
cgroup(char *buf, size_t len)
{
	FILE	*f = fopen("/proc/self/cgroup", "re");
	char	 line[512];

	snprintf(buf, len, "?");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "0::", 3) == 0) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(buf, len, "%s", line + 3);
		}
	fclose(f);
}

/* HOLD_MS spinning (spin) or asleep. */
static void
hold_for(int ms, int spin, volatile uint64_t *sink)
{
	int64_t	 end = now_mono_ns() + (int64_t)ms * NS_PER_MS;

	if (spin)
		while (now_mono_ns() < end)
			(*sink)++;
	else {
		struct timespec d = { ms / 1000, (long)(ms % 1000) * NS_PER_MS };
		nanosleep(&d, NULL);
	}
}

static pthread_attr_t detached;

/* A link of a chain: the next one, then gone. */
static void *
link_run(void *arg)
{
	pthread_t	 t;

	while (pthread_create(&t, &detached, link_run, arg) != 0)
		sched_yield();
	return NULL;
}

static int
chains_start(int n)
{
	pthread_t	 t;

	if (pthread_attr_init(&detached) != 0 ||
	    pthread_attr_setdetachstate(&detached,
	    PTHREAD_CREATE_DETACHED) != 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t, &detached, link_run, NULL) != 0)
			return -1;
	return 0;
}

int
main(int argc, char **argv)
{
	const char	*sock = getenv(ADOPT_SOCKET_ENV);
	char		 err[ADOPT_MSG_MAX], cg[512];
	int		 opt, count = 1, hold = 100, spin = 0, fd, ms, rc;
	int		 wait = 0, duration = 0, chains = 0;
	int		 granted = 0, refused = 0;
	int64_t		 t0 = now_mono_ns(), lifted = 0;
	volatile uint64_t sink = 0;

	while ((opt = getopt(argc, argv, "n:d:h:sw:c:")) != -1) {
		switch (opt) {
		case 'c': chains = atoi(optarg); break;
		case 'n': count = atoi(optarg); break;
		case 'd': duration = atoi(optarg); break;
		case 'h': hold = atoi(optarg); break;
		case 's': spin = 1; break;
		case 'w': wait = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: lifter [-n COUNT] [-d DURATION_MS]"
			    " [-h HOLD_MS] [-s] [-w WAIT_MS] [-c CHAINS]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (chains > 0 && chains_start(chains) == -1) {
		fprintf(stderr, "lifter: cannot start %d chains\n", chains);
		return 1;
	}
	for (int i = 1; duration > 0 ? now_mono_ns() - t0 <
	    (int64_t)duration * NS_PER_MS : i <= count; i++) {
		rc = adopt_lift(sock != NULL && sock[0] != '\0' ? sock :
		    ADOPT_SOCKET_DEFAULT, job_label_pick(NULL), LIFT_WAIT_MS,
		    &fd, &ms, err, sizeof(err));
		if (rc != 1) {
			refused++;
			printf("lift %d: ERR %s\n", i, rc == 0 ? "old dts" : err);
			hold_for(hold, spin, &sink);
			continue;
		}
		granted++;
		cgroup(cg, sizeof(cg));
		const char *pol = policy();
		int64_t s = now_mono_ns(), c = cpu_ns();
		hold_for(hold, spin, &sink);
		int64_t held = now_mono_ns() - s;
		close(fd);
		lifted += held < (int64_t)ms * NS_PER_MS ? held :
		    (int64_t)ms * NS_PER_MS;
		printf("lift %d: OK %d policy=%s cgroup=%s held_ms=%.1f "
		    "cpu_ms=%.1f\n", i, ms, pol, cg, (double)held / NS_PER_MS,
		    (double)(cpu_ns() - c) / NS_PER_MS);
	}
	printf("granted=%d refused=%d lifted_ms=%.0f elapsed_ms=%.0f\n",
	    granted, refused, (double)lifted / NS_PER_MS,
	    (double)(now_mono_ns() - t0) / NS_PER_MS);
	if (wait > 0) {
		struct timespec d = { wait / 1000,
		    (long)(wait % 1000) * NS_PER_MS };
		nanosleep(&d, NULL);
	}
	return 0;
}
