/*
 * swarm.c - a job of many members, for the job-size test and bench
 * (t113-job-size.sh, bench-size.sh): does the job pay for its own size?
 *
 *   swarm [-p PROCS] [-t THREADS] [-s | -a] SECONDS
 *
 * PROCS child processes and THREADS threads that only sleep, and with -s
 * the first process spins (its last thread, once every member is made);
 * with -a every member spins.  When every member is there, swarm prints
 * "swarm: ready P processes, T threads" to stderr.  After SECONDS it
 * ends, and every child with it (each asks for SIGKILL when swarm dies).  Exit 0, or 1 if a member
 * could not be made (after the members it made end).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

static volatile unsigned long	 sink;
static int			 all;

static void
spin_forever(void)
{
	for (;;)
		sink++;
}

static void *
sleeper(void *arg)
{
	(void)arg;
	if (all)
		spin_forever();
	for (;;)
		pause();
	return NULL;
}

static void
usage(void)
{
	fprintf(stderr, "usage: swarm [-p PROCS] [-t THREADS] [-s | -a] SECONDS\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	pthread_attr_t	 attr;
	pthread_t	 th;
	struct timespec	 end, now;
	pid_t		 parent = getpid(), pid;
	long		 procs = 0, threads = 0, secs, made_p = 0, made_t = 0;
	int		 c, spin = 0, rc = 0;

	while ((c = getopt(argc, argv, "p:t:sa")) != -1)
		switch (c) {
		case 'p': procs = strtol(optarg, NULL, 10); break;
		case 't': threads = strtol(optarg, NULL, 10); break;
		case 's': spin = 1; break;
		case 'a': all = spin = 1; break;
		default: usage();
		}
	if (optind + 1 != argc || procs < 0 || threads < 0 ||
	    (secs = strtol(argv[optind], NULL, 10)) <= 0)
		usage();
	for (; made_p < procs; made_p++) {
		if ((pid = fork()) == -1) {
			fprintf(stderr, "swarm: fork %ld: %s\n", made_p,
			    strerror(errno));
			rc = 1;
			break;
		}
		if (pid == 0) {
			(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(0);
			if (all)
				spin_forever();
			for (;;)
				pause();
		}
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (; rc == 0 && made_t < threads; made_t++)
		if ((errno = pthread_create(&th, &attr, sleeper, NULL)) != 0) {
			fprintf(stderr, "swarm: thread %ld: %s\n", made_t,
			    strerror(errno));
			rc = 1;
		}
	if (rc == 0)
		fprintf(stderr, "swarm: ready %ld processes, %ld threads\n",
		    made_p, made_t);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += rc == 0 ? secs : 0;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec || (now.tv_sec == end.tv_sec &&
		    now.tv_nsec >= end.tv_nsec))
			break;
		if (spin)
			for (int i = 0; i < 100000; i++)
				sink += (unsigned long)i;
		else
			(void)clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
			    &end, NULL);
	}
	return rc;
}
