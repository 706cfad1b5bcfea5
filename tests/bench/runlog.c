/*
 * runlog.c - a CPU spinner that logs when it ran, for bench-matrix.sh:
 * a member of a DTS job that sees its own slots from the inside.
 *
 *   runlog [-g GAP_US] [-t SECONDS] OUTFILE
 *
 * It spins on clock_gettime(CLOCK_REALTIME).  Two reads more than GAP_US
 * (default 1000) apart mean it did not run in between (stopped, frozen,
 * or preempted): the gap is one line of OUTFILE, "stop_ns resume_ns"
 * (CLOCK_REALTIME, one clock for every network namespace of the cluster),
 * written when it ends: after SECONDS (default 60), or on SIGTERM or
 * SIGINT, and also (the gaps so far) on SIGUSR1.  The first line is "# start_ns end_ns gaps".  At most 200000
 * gaps are kept (the later ones are counted, not logged).
 * Build: cc -O2 -o runlog runlog.c
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define MAXGAPS 200000

static volatile sig_atomic_t done, dump;

static void
on_sig(int sig)
{
	if (sig == SIGUSR1)
		dump = 1;
	else
		done = 1;
}

static int
save(const char *path, int64_t t0, int64_t t1, int64_t (*gap)[2], long n, long lost)
{
	FILE *f;
	long i;

	if ((f = fopen(path, "w")) == NULL) {
		perror(path);
		return 1;
	}
	fprintf(f, "# %lld %lld %ld lost=%ld\n", (long long)t0, (long long)t1, n, lost);
	for (i = 0; i < n; i++)
		fprintf(f, "%lld %lld\n", (long long)gap[i][0], (long long)gap[i][1]);
	return fclose(f) != 0;
}

static int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int
main(int argc, char **argv)
{
	static int64_t gap[MAXGAPS][2];
	int64_t min_gap = 1000000, secs = 60, t0, end, prev, t;
	long n = 0, lost = 0;
	struct sigaction sa = { .sa_handler = on_sig };
	int c;

	while ((c = getopt(argc, argv, "g:t:")) != -1) {
		switch (c) {
		case 'g': min_gap = atoll(optarg) * 1000; break;
		case 't': secs = atoll(optarg); break;
		default: goto usage;
		}
	}
	if (optind != argc - 1 || min_gap <= 0 || secs <= 0)
		goto usage;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	t0 = prev = now_ns();
	end = t0 + secs * 1000000000;
	while (!done && prev < end) {
		t = now_ns();
		if (t - prev > min_gap) {
			if (n < MAXGAPS) {
				gap[n][0] = prev;
				gap[n][1] = t;
				n++;
			} else
				lost++;
		}
		prev = t;
		if (dump) {
			dump = 0;
			(void)save(argv[optind], t0, prev, gap, n, lost);
			prev = now_ns();	/* the write is no gap */
		}
	}
	return save(argv[optind], t0, prev, gap, n, lost);
usage:
	fprintf(stderr, "usage: runlog [-g GAP_US] [-t SECONDS] OUTFILE\n");
	return 2;
}
