/*
 * mpiloop.c - a fine-grained MPI program for the MPI tests and
 * bench-mpi.sh: a token passed around the ranks (a ping-pong for 2 ranks)
 * plus an MPI_Allreduce, every iteration.
 *
 *   mpiloop [-i ITERS] [-t SECONDS] [-f STOPFILE] [-w WORK_US] [-b BYTES]
 *           [-s SLEEP_US] [-P] [-r] [-o OUTFILE]
 *
 * Every iteration rank 0 sends a token of BYTES (default 8) to rank 1,
 * each rank burns WORK_US of CPU (default 0) and passes it on, rank N-1
 * sends it back to rank 0; then all ranks MPI_Allreduce (sum) their
 * (rank + 1) * (i % 7 + 1) and rank 0's stop flag.  Every rank checks the
 * token (its iteration stamp and its bytes) and the sum, and aborts the
 * job (MPI_Abort, status 3) on a wrong one.  The loop ends after ITERS
 * iterations (default 1000; 0: no limit), once SECONDS (default 60)
 * have passed, or once STOPFILE exists (rank 0 looks every 10 ms),
 * whichever comes first: rank 0 decides, the others learn it from the
 * same Allreduce.
 *
 * Waiting is MPI's own (MPI_Recv: Open MPI and MPICH poll busily) unless
 * -s: then every receive is an MPI_Irecv completed by MPI_Test with a
 * nanosleep of SLEEP_US between tests, so the rank sleeps in the kernel
 * while it waits (the program's own blocking wait).
 *
 * -P: every rank joins the process group of its session's leader first
 * (setpgid(0, getsid(0))): with the launcher started by setsid, one
 * killpg then reaches the launcher and every rank of its host, as
 * bench-mpi.sh's floor (tests/bench/floor.c -g) stops a gang.
 *
 * -r: before the loop rank 0 prints one line per rank,
 *   rank R of N host HOST pid PID cgroup CGROUP
 * (CGROUP = its cgroup v2 path, from /proc/self/cgroup).  At the end rank
 * 0 prints (and appends to OUTFILE, if given) one line:
 *   mpiloop ranks=N iters=DONE of=ITERS work_us=W bytes=B elapsed_s=S
 *   iter_us=U complete=0|1
 * (complete=0: stopped by SECONDS or STOPFILE before ITERS; with ITERS 0
 * the run is complete whenever it stops).  Exit status 0, or 2
 * for bad usage.
 * Build: mpicc.openmpi -O2 -o mpiloop mpiloop.c (or mpicc.mpich).
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "burn.h"

#define LINE_MAX_ 320
#define TAG_TOKEN 7

static long sleep_us = -1;	/* -s: sleep between MPI_Tests */

static void
recv_token(unsigned char *buf, int len, int from)
{
	MPI_Request req;
	struct timespec ts;
	int done = 0;

	if (sleep_us < 0) {
		MPI_Recv(buf, len, MPI_UNSIGNED_CHAR, from, TAG_TOKEN,
		    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		return;
	}
	ts.tv_sec = sleep_us / 1000000;
	ts.tv_nsec = sleep_us % 1000000 * 1000;
	MPI_Irecv(buf, len, MPI_UNSIGNED_CHAR, from, TAG_TOKEN,
	    MPI_COMM_WORLD, &req);
	for (;;) {
		MPI_Test(&req, &done, MPI_STATUS_IGNORE);
		if (done)
			break;
		nanosleep(&ts, NULL);
	}
}

static void
stamp(unsigned char *buf, int len, long i)
{
	memcpy(buf, &i, sizeof(i));
	for (int k = (int)sizeof(i); k < len; k++)
		buf[k] = (unsigned char)(i + k);
}

static void
check(const unsigned char *buf, int len, long i, int rank)
{
	long got;

	memcpy(&got, buf, sizeof(got));
	for (int k = (int)sizeof(got); k < len && got == i; k++)
		if (buf[k] != (unsigned char)(i + k))
			got = -1;
	if (got != i) {
		fprintf(stderr, "mpiloop: rank %d: iteration %ld: bad token "
		    "(stamp %ld)\n", rank, i, got);
		MPI_Abort(MPI_COMM_WORLD, 3);
	}
}

static void
report_ranks(int rank, int n)
{
	char line[LINE_MAX_], host[64] = "?", cg[160] = "?", *all = NULL;
	FILE *f;

	gethostname(host, sizeof(host));
	host[sizeof(host) - 1] = '\0';
	if ((f = fopen("/proc/self/cgroup", "r")) != NULL) {
		char l[256];

		while (fgets(l, sizeof(l), f) != NULL)
			if (strncmp(l, "0::", 3) == 0) {
				l[strcspn(l, "\n")] = '\0';
				snprintf(cg, sizeof(cg), "%.159s", l + 3);
			}
		fclose(f);
	}
	memset(line, 0, sizeof(line));
	snprintf(line, sizeof(line), "rank %d of %d host %s pid %d cgroup %s",
	    rank, n, host, (int)getpid(), cg);
	if (rank == 0 && (all = malloc((size_t)n * LINE_MAX_)) == NULL)
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Gather(line, LINE_MAX_, MPI_CHAR, all, LINE_MAX_, MPI_CHAR, 0,
	    MPI_COMM_WORLD);
	if (rank == 0) {
		for (int r = 0; r < n; r++)
			printf("%s\n", all + (size_t)r * LINE_MAX_);
		fflush(stdout);
		free(all);
	}
}

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: mpiloop [-i ITERS] [-t SECONDS] [-w WORK_US] "
	    "[-f STOPFILE] [-b BYTES] [-s SLEEP_US] [-P] [-r] [-o OUTFILE]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	long iters = 1000, work_us = 0, i;
	double max_s = 60, t0, t1, sum[2], mine[2], want, looked = 0;
	int rank, n, bytes = 8, ranks = 0, group = 0, c;
	const char *out = NULL, *stopfile = NULL;
	unsigned char *buf;

	while ((c = getopt(argc, argv, "i:t:f:w:b:s:Pro:")) != -1) {
		switch (c) {
		case 'i': iters = atol(optarg); break;
		case 't': max_s = atof(optarg); break;
		case 'f': stopfile = optarg; break;
		case 'w': work_us = atol(optarg); break;
		case 'b': bytes = atoi(optarg); break;
		case 's': sleep_us = atol(optarg); break;
		case 'P': group = 1; break;
		case 'r': ranks = 1; break;
		case 'o': out = optarg; break;
		default: usage();
		}
	}
	if (optind != argc || iters < 0 || max_s <= 0 || work_us < 0 ||
	    bytes < (int)sizeof(long) || bytes > (1 << 24))
		usage();
	if (group && setpgid(0, getsid(0)) == -1)
		perror("mpiloop: setpgid to the session's group");
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if ((buf = malloc((size_t)bytes)) == NULL)
		MPI_Abort(MPI_COMM_WORLD, 1);
	if (ranks)
		report_ranks(rank, n);
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = now_s();
	for (i = 0; iters == 0 || i < iters; i++) {
		if (n > 1) {
			if (rank == 0) {
				stamp(buf, bytes, i);
				work(work_us);
				MPI_Send(buf, bytes, MPI_UNSIGNED_CHAR, 1,
				    TAG_TOKEN, MPI_COMM_WORLD);
				recv_token(buf, bytes, n - 1);
			} else {
				recv_token(buf, bytes, rank - 1);
				check(buf, bytes, i, rank);
				work(work_us);
				MPI_Send(buf, bytes, MPI_UNSIGNED_CHAR,
				    (rank + 1) % n, TAG_TOKEN, MPI_COMM_WORLD);
			}
			if (rank == 0)
				check(buf, bytes, i, rank);
		}
		mine[0] = (double)(rank + 1) * (double)(i % 7 + 1);
		mine[1] = 0;
		if (rank == 0) {
			double t = now_s();

			mine[1] = t - t0 >= max_s;
			if (stopfile != NULL && t - looked >= 0.01) {
				looked = t;
				mine[1] = mine[1] || access(stopfile, F_OK) == 0;
			}
		}
		MPI_Allreduce(mine, sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		want = (double)n * (n + 1) / 2 * (double)(i % 7 + 1);
		if (sum[0] != want) {
			fprintf(stderr, "mpiloop: rank %d: iteration %ld: "
			    "allreduce %g, want %g\n", rank, i, sum[0], want);
			MPI_Abort(MPI_COMM_WORLD, 3);
		}
		if (sum[1] > 0) {
			i++;
			break;
		}
	}
	t1 = now_s();
	if (rank == 0) {
		char line[LINE_MAX_];
		FILE *f;

		snprintf(line, sizeof(line), "mpiloop ranks=%d iters=%ld of=%ld "
		    "work_us=%ld bytes=%d elapsed_s=%.6f iter_us=%.3f "
		    "complete=%d", n, i, iters, work_us, bytes, t1 - t0,
		    i > 0 ? (t1 - t0) * 1e6 / (double)i : 0.0,
		    iters == 0 || i >= iters);
		printf("%s\n", line);
		fflush(stdout);
		if (out != NULL && (f = fopen(out, "a")) != NULL) {
			fprintf(f, "%s\n", line);
			fclose(f);
		}
	}
	free(buf);
	MPI_Finalize();
	return 0;
}
