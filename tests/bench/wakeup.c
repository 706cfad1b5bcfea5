/*
 * wakeup.c - an interactive local task, for bench-latency.sh.
 *
 *   wakeup [-c CPU] [-J] SECONDS PERIOD_MS WORK_MS OUT.csv
 *
 * SCHED_OTHER (as started), pinned to CPU (default 1).  Wakes once in
 * every PERIOD_MS slot, at an absolute CLOCK_MONOTONIC deadline
 * k * PERIOD_MS + u_k, u_k uniform in [0, PERIOD_MS) (clock_nanosleep
 * TIMER_ABSTIME), then burns WORK_MS of its own CPU time.  The random
 * point in each slot keeps the wake-ups from locking to the phase of an
 * IP that is a multiple or divisor of the period (50 ms vs 100 ms); -J
 * wakes exactly at k * PERIOD_MS instead.  Per intended wake-up it records
 * delay = actual wake - intended wake; a wake-up that is served late does
 * not move the later ones (absolute deadlines), so a long stall shows up as
 * a run of late wake-ups, as an event-driven program would see it.
 * OUT.csv: delay_ns,intended_real_ns (the intended wake-up on
 * CLOCK_REALTIME, to line it up with dts's slice trace).  stdout:
 * "wakeup n=N".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "burn.h"

int
main(int argc, char **argv)
{
	int cpu = 1, c, jitter = 1;

	while ((c = getopt(argc, argv, "c:J")) != -1) {
		if (c == 'c')
			cpu = atoi(optarg);
		else if (c == 'J')
			jitter = 0;
		else
			goto usage;
	}
	if (argc - optind != 4) {
usage:
		fprintf(stderr, "usage: wakeup [-c CPU] [-J] SECONDS PERIOD_MS WORK_MS OUT.csv\n");
		return 2;
	}
	double secs = atof(argv[optind]);
	int64_t period = (int64_t)(atof(argv[optind + 1]) * 1e6);
	int64_t work = (int64_t)(atof(argv[optind + 2]) * 1e6);
	const char *out = argv[optind + 3];
	if (secs <= 0 || period <= 0 || work < 0)
		goto usage;

	if (cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0) {
			perror("sched_setaffinity");
			return 1;
		}
	}
	size_t max = (size_t)(secs * 1e9 / (double)period) + 1, n = 0;
	int64_t *d = calloc(max, sizeof(*d));
	if (d == NULL) {
		perror("calloc");
		return 1;
	}
	int64_t *at = calloc(max, sizeof(*at));
	int64_t r0 = ns(CLOCK_REALTIME), m0 = ns(CLOCK_MONOTONIC);
	int64_t off = r0 - m0 + (ns(CLOCK_REALTIME) - r0) / 2;
	if (at == NULL) {
		perror("calloc");
		return 1;
	}
	int64_t slot = ns(CLOCK_MONOTONIC);
	srand48(12345);
	for (; n < max; n++) {
		slot += period;
		int64_t dl = slot + (jitter ? (int64_t)(drand48() * (double)period) : 0);
		struct timespec ts = { dl / 1000000000LL, dl % 1000000000LL };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		d[n] = ns(CLOCK_MONOTONIC) - dl;
		at[n] = dl + off;
		int64_t c0 = ns(CLOCK_THREAD_CPUTIME_ID);
		while (ns(CLOCK_THREAD_CPUTIME_ID) - c0 < work)
			;
	}
	FILE *f = fopen(out, "w");
	if (f == NULL) {
		perror(out);
		return 1;
	}
	fprintf(f, "delay_ns,intended_real_ns\n");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%lld,%lld\n", (long long)d[i], (long long)at[i]);
	if (fclose(f) != 0) {
		perror(out);
		return 1;
	}
	printf("wakeup n=%zu\n", n);
	return 0;
}
