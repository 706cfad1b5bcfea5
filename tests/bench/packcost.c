/*
 * packcost - what the master's gang matrix costs an SI (bench-scale).
 *
 *   packcost N JOBFILE [ROUNDS]
 *
 * JOBFILE is simnodes -J's (NAME FROM TO NODES); the jobs that run from
 * the start are taken.  Each round does what the master does at every
 * SI (master/master.c master_matrix and send_tables): matrix_init, a
 * matrix_add for each node's jobs in node order, matrix_pack, and
 * matrix_slots for each of the N nodes.  Prints key=value lines: the
 * round's time (p50, max, ms; CLOCK_THREAD_CPUTIME_ID), the rows, and
 * the tables that differ from the previous node's (the signatures the
 * master's batch makes, nodes sent in order).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "matrix.h"

static double
cpu_ms(void)
{
	struct timespec	 t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int
cmp_d(const void *a, const void *b)
{
	double	 x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	static struct matrix	 m;
	static char		 (*name)[PROTO_JOB_LEN];
	static int		 (*on)[PROTO_JOBS_MAX], *non;
	struct proto_slot	 s[PROTO_JOBS_MAX], prev[PROTO_JOBS_MAX];
	char			 ln[65536], nm[PROTO_JOB_LEN], spec[60000];
	char			 err[256], *tok, *save;
	double			 from, to, *t, t0;
	int			 n, rounds, nj = 0, r, i, k, a, b, diff = 0;
	FILE			*f;

	if (argc < 3 || (n = atoi(argv[1])) <= 0 || n > MATRIX_NODES_MAX) {
		fprintf(stderr, "usage: packcost N JOBFILE [ROUNDS]\n");
		return 2;
	}
	rounds = argc > 3 ? atoi(argv[3]) : 20;
	if (rounds < 1 || (f = fopen(argv[2], "r")) == NULL) {
		fprintf(stderr, "packcost: cannot read %s\n", argv[2]);
		return 2;
	}
	name = calloc(8 * (size_t)n, sizeof(*name));
	on = calloc((size_t)n, sizeof(*on));
	non = calloc((size_t)n, sizeof(*non));
	t = calloc((size_t)rounds, sizeof(*t));
	if (name == NULL || on == NULL || non == NULL || t == NULL)
		return 1;
	while (fgets(ln, sizeof(ln), f) != NULL) {
		if (ln[0] == '#' || sscanf(ln, "%31s %lf %lf %59999s", nm,
		    &from, &to, spec) != 4 || from > 0 || to > 0)
			continue;
		if (nj == 8 * n)
			break;
		snprintf(name[nj], PROTO_JOB_LEN, "%s", nm);
		for (tok = strtok_r(spec, ",", &save); tok != NULL;
		    tok = strtok_r(NULL, ",", &save)) {
			if (sscanf(tok, "%d-%d", &a, &b) != 2)
				b = a = atoi(tok);
			for (i = a; i <= b && i < n; i++)
				if (i >= 0 && non[i] < PROTO_JOBS_MAX)
					on[i][non[i]++] = nj;
		}
		nj++;
	}
	fclose(f);
	for (r = 0; r < rounds; r++) {
		t0 = cpu_ms();
		matrix_init(&m);
		for (i = 0; i < n; i++)
			for (k = 0; k < non[i]; k++)
				if (matrix_add(&m, i, name[on[i][k]], err,
				    sizeof(err)) == -1) {
					fprintf(stderr, "packcost: %s\n", err);
					return 1;
				}
		matrix_pack(&m, 50000);
		diff = 0;
		memset(prev, 0xff, sizeof(prev));
		for (i = 0; i < n; i++) {
			(void)matrix_slots(&m, i, s, PROTO_JOBS_MAX);
			diff += memcmp(s, prev, sizeof(s)) != 0;
			memcpy(prev, s, sizeof(s));
		}
		t[r] = cpu_ms() - t0;
	}
	qsort(t, (size_t)rounds, sizeof(*t), cmp_d);
	printf("nodes=%d\njobs=%d\npairs=%d\nrows=%d\ntables_differ=%d\n"
	    "rounds=%d\nround_p50_ms=%.3f\nround_max_ms=%.3f\n", n, m.njobs,
	    m.npairs, m.nrows, diff, rounds, t[rounds / 2], t[rounds - 1]);
	matrix_free(&m);
	return 0;
}
