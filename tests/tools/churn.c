/*
 * churn.c - a churning thread pool, for ls_policy idle's system test
 * (t94-idle-churn.sh) and bench-edge: a thread born while dts switches
 * the gang's threads one by one inherits its creator's policy, so a chain
 * of short-lived threads can carry SCHED_RR through an idle LS.
 *
 *   churn CHAINS IDLE SECONDS [SPIN_US [STATE]]
 *
 * IDLE threads that only sleep, and CHAINS chains of threads: each link
 * spins SPIN_US microseconds (default 200), starts the next link and
 * ends.  After SECONDS of wall-clock time every chain stops and churn
 * prints one line to stderr:
 *
 *   churn: LINKS links, born at SCHED_RR R, SCHED_IDLE I, other O
 *
 * (the policy each link had when it began, which is its creator's at the
 * clone).  With dts's state file STATE, each link looks at dts's phase
 * and its own policy when its spin ends, and a second line counts the
 * links that ended an LS spin at real-time priority:
 *
 *   churn: LS links L, at SCHED_RR in LS E, born at SCHED_IDLE B
 *
 * Exit 0, or 1 if a thread could not be started.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "timeutil.h"

static int64_t		 end_ns, spin_ns;
static atomic_long	 links, born_rr, born_idle, born_other, ls_links, ls_rr,
			 ls_born_idle;
static const char	*state;
static atomic_int	 chains_left;
static volatile uint64_t sink;
static pthread_attr_t	 attr;	/* detached, small stacks */

/* Is dts in an LS (its state file's phase line)?  -1 if unknown. */
static int
in_ls(void)
{
	char	 buf[4096], *p;
	ssize_t	 n;
	int	 fd;

	if (state == NULL || (fd = open(state, O_RDONLY)) == -1)
		return -1;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if ((p = strstr(buf, "\nphase ")) == NULL)
		return -1;
	return strncmp(p + 7, "LS", 2) == 0;
}

static void *
link_main(void *arg)
{
	pthread_t	 next;
	int64_t		 now = now_mono_ns(), until = now + spin_ns;
	int		 policy = sched_getscheduler(0), born = policy;

	(void)arg;
	atomic_fetch_add(&links, 1);
	if (policy == SCHED_RR || policy == SCHED_FIFO)
		atomic_fetch_add(&born_rr, 1);
	else if (policy == SCHED_IDLE)
		atomic_fetch_add(&born_idle, 1);
	else
		atomic_fetch_add(&born_other, 1);
	while (now_mono_ns() < until)
		sink++;
	if (state != NULL && in_ls() == 1) {
		atomic_fetch_add(&ls_links, 1);
		policy = sched_getscheduler(0);
		if (policy == SCHED_RR || policy == SCHED_FIFO)
			atomic_fetch_add(&ls_rr, 1);
		if (born == SCHED_IDLE)
			atomic_fetch_add(&ls_born_idle, 1);
	}
	if (until >= end_ns) {
		atomic_fetch_sub(&chains_left, 1);
		return NULL;
	}
	/* a pthread_create that fails (a thread limit) is retried */
	while (pthread_create(&next, &attr, link_main, NULL) != 0)
		usleep(1000);
	return NULL;
}

static void *
sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t	 t;
	int		 chains, idle, rc;
	double		 secs;

	if (argc < 4 || argc > 6 || (chains = atoi(argv[1])) < 0 ||
	    (idle = atoi(argv[2])) < 0 || (secs = atof(argv[3])) <= 0) {
		fprintf(stderr, "usage: churn CHAINS IDLE SECONDS [SPIN_US "
		    "[STATE]]\n");
		return 2;
	}
	spin_ns = (argc >= 5 ? atol(argv[4]) : 200) * 1000LL;
	state = argc == 6 ? argv[5] : NULL;
	end_ns = now_mono_ns() + (int64_t)(secs * 1e9);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (int i = 0; i < idle; i++)
		if ((rc = pthread_create(&t, &attr, sleeper, NULL)) != 0) {
			fprintf(stderr, "churn: idle thread %d: %s\n", i,
			    strerror(rc));
			return 1;
		}
	atomic_store(&chains_left, chains);
	for (int i = 0; i < chains; i++)
		if ((rc = pthread_create(&t, &attr, link_main, NULL)) != 0) {
			fprintf(stderr, "churn: chain %d: %s\n", i,
			    strerror(rc));
			return 1;
		}
	while (atomic_load(&chains_left) > 0)
		usleep(10000);
	fprintf(stderr, "churn: %ld links, born at SCHED_RR %ld, SCHED_IDLE "
	    "%ld, other %ld\n", atomic_load(&links), atomic_load(&born_rr),
	    atomic_load(&born_idle), atomic_load(&born_other));
	if (state != NULL)
		fprintf(stderr, "churn: LS links %ld, at SCHED_RR in LS %ld, "
		    "born at SCHED_IDLE %ld\n", atomic_load(&ls_links),
		    atomic_load(&ls_rr), atomic_load(&ls_born_idle));
	return 0;
}
