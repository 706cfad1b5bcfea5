/*
 * burn.h - the clocks and the CPU burner of the benchmark programs
 * (ring.c, bsp.c, mpiloop.c, floor.c, owd.c, wakeup.c): one definition,
 * so that "G ms of work" means the same in every program.  Header only: each program is built on its own
 * (cc -O2 -o prog prog.c ...).
 */
#ifndef DTS_BENCH_BURN_H
#define DTS_BENCH_BURN_H

#include <stdint.h>
#include <time.h>

/* Clock id in nanoseconds. */
static inline int64_t
ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* CLOCK_MONOTONIC in seconds. */
static inline double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* This thread's CPU time in seconds. */
static inline double
cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Burn about us microseconds of this thread's CPU time (not wall time:
 * a task preempted in the middle still does all its work). */
static inline void
work(long us)
{
	volatile unsigned long sink = 0;
	double end;

	if (us <= 0)
		return;
	end = cpu_s() + us / 1e6;
	do {
		for (int i = 0; i < 2000; i++)
			sink += (unsigned long)i;
	} while (cpu_s() < end);
}

#endif /* DTS_BENCH_BURN_H */
