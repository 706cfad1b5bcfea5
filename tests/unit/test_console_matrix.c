/*
 * test_console_matrix.c - the gang matrix: packing into rows (jobs on
 * disjoint nodes share one), each row's share of PS (equal, weighted),
 * rounding to exactly PS, each node's slot table, a node's job limit,
 * bad names, determinism whatever the input order, the weight table, and
 * the cluster's scale (hundreds of jobs on a thousand nodes: gangs,
 * first fit and the per-user rule checked the long way).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"

static struct matrix *
mx_new(void)
{
	struct matrix	*m = calloc(1, sizeof(*m));

	if (m == NULL)
		abort();
	matrix_init(m);
	return m;
}

static void
mx_free(struct matrix *m)
{
	matrix_free(m);
	free(m);
}

static void
add(struct matrix *m, int node, const char *job)
{
	char	 err[256];

	if (matrix_add(m, node, job, err, sizeof(err)) == -1)
		fail_msg("matrix_add %d %s: %s", node, job, err);
}

/* The slots of node, checked: by start, no overlap, within PS. */
static int
slots(const struct matrix *m, int node, struct proto_slot *s)
{
	int	 n = matrix_slots(m, node, s, PROTO_JOBS_MAX), i;

	assert_true(n >= 0 && n <= PROTO_JOBS_MAX);
	for (i = 0; i < n; i++) {
		assert_true(s[i].len_us > 0);
		assert_true(s[i].start_us + s[i].len_us <= m->ps_us);
		if (i > 0)
			assert_true(s[i].start_us >= s[i - 1].start_us +
			    s[i - 1].len_us);
	}
	for (; i < PROTO_JOBS_MAX; i++)
		assert_int_equal(s[i].job[0], 0);
	return n;
}

static void
test_same_nodes_two_rows(void **state)
{
	struct matrix		*m = mx_new();
	struct proto_slot	 s[PROTO_JOBS_MAX];
	int			 node;

	(void)state;
	for (node = 0; node < 3; node++) {
		add(m, node, "bob:pvm");
		add(m, node, "alice:pvm");
	}
	matrix_pack(m, 80000);
	assert_int_equal(m->nrows, 2);
	for (node = 0; node < 3; node++) {
		assert_int_equal(slots(m, node, s), 2);
		/* same node count: by name, alice first */
		assert_string_equal(s[0].job, "alice:pvm");
		assert_int_equal(s[0].start_us, 0);
		assert_int_equal(s[0].len_us, 40000);
		assert_string_equal(s[1].job, "bob:pvm");
		assert_int_equal(s[1].start_us, 40000);
		assert_int_equal(s[1].len_us, 40000);
	}
	mx_free(m);
}

static void
test_disjoint_one_row(void **state)
{
	struct matrix		*m = mx_new();
	struct proto_slot	 s[PROTO_JOBS_MAX];

	(void)state;
	add(m, 0, "alice:a");
	add(m, 1, "alice:a");
	add(m, 2, "bob:b");
	add(m, 3, "bob:b");
	matrix_pack(m, 80000);
	assert_int_equal(m->nrows, 1);
	assert_int_equal(m->row[0].njobs, 2);
	assert_int_equal(slots(m, 0, s), 1);
	assert_string_equal(s[0].job, "alice:a");
	assert_int_equal(s[0].start_us, 0);
	assert_int_equal(s[0].len_us, 80000);
	assert_int_equal(slots(m, 3, s), 1);
	assert_string_equal(s[0].job, "bob:b");
	assert_int_equal(s[0].len_us, 80000);
	assert_int_equal(slots(m, 4, s), 0);	/* no job there */
	mx_free(m);
}

/* A job alone on its hosts shares a row with one elsewhere. */
static void
test_chain(void **state)
{
	struct matrix		*m = mx_new();
	struct proto_slot	 s[PROTO_JOBS_MAX];

	(void)state;
	/* a on 0,1; b on 1,2; c on 2: a and c share row 0, b row 1 */
	add(m, 0, "u:a");
	add(m, 1, "u:a");
	add(m, 1, "u:b");
	add(m, 2, "u:b");
	add(m, 2, "u:c");
	matrix_pack(m, 90000);
	assert_int_equal(m->nrows, 2);
	assert_int_equal(m->job[matrix_find(m, "u:a")].row, 0);
	assert_int_equal(m->job[matrix_find(m, "u:b")].row, 1);
	assert_int_equal(m->job[matrix_find(m, "u:c")].row, 0);
	assert_int_equal(matrix_cell(m, 1, 0), -1);
	assert_int_equal(slots(m, 0, s), 1);	/* the rest: work-conserving */
	assert_int_equal(s[0].len_us, 45000);
	assert_int_equal(slots(m, 2, s), 2);
	assert_string_equal(s[0].job, "u:c");
	assert_string_equal(s[1].job, "u:b");
	assert_int_equal(s[1].start_us, 45000);
	mx_free(m);
}

static void
test_four_on_one(void **state)
{
	struct matrix		*m = mx_new();
	struct proto_slot	 s[PROTO_JOBS_MAX];
	int			 i;

	(void)state;
	add(m, 0, "u:d");
	add(m, 0, "u:b");
	add(m, 0, "u:c");
	add(m, 0, "u:a");
	add(m, 0, "u:a");	/* twice is once */
	matrix_pack(m, 80000);
	assert_int_equal(m->nrows, 4);
	assert_int_equal(slots(m, 0, s), 4);
	for (i = 0; i < 4; i++) {
		char	 want[8];

		snprintf(want, sizeof(want), "u:%c", 'a' + i);
		assert_string_equal(s[i].job, want);
		assert_int_equal(s[i].start_us, 20000 * i);
		assert_int_equal(s[i].len_us, 20000);
	}
	mx_free(m);
}

/* A node-given weight (its STATUS) holds unless the operator set one. */
static void
test_node_weights(void **state)
{
	struct matrix		*m = mx_new();
	struct proto_slot	 s[PROTO_JOBS_MAX];
	struct jobw		 t = { 0 };
	int			 i;

	(void)state;
	add(m, 0, "alice:s12");
	add(m, 1, "alice:s12");
	add(m, 0, "bob:s13");
	add(m, 1, "bob:s13");
	assert_int_equal(matrix_node_weight(m, "alice:s12", 3), 0);
	assert_int_equal(matrix_node_weight(m, "bob:s13", 0), 0); /* none */
	assert_int_equal(matrix_node_weight(m, "nobody:x", 3), -1);
	assert_int_equal(matrix_node_weight(m, "bob:s13", 101), -1);
	i = matrix_find(m, "alice:s12");
	assert_int_equal(m->job[i].weight, 3);
	assert_int_equal(m->job[i].wsrc, MATRIX_WSRC_NODE);
	assert_int_equal(m->job[matrix_find(m, "bob:s13")].wsrc,
	    MATRIX_WSRC_DEFAULT);
	/* nodes that differ: the largest holds, in any order */
	assert_int_equal(matrix_node_weight(m, "alice:s12", 2), 0);
	assert_int_equal(m->job[i].weight, 3);
	jobw_apply(&t, m);
	matrix_pack(m, 80000);
	assert_int_equal(slots(m, 1, s), 2);
	assert_string_equal(s[0].job, "alice:s12");
	assert_int_equal(s[0].len_us, 60000);	/* 3:1 */
	assert_string_equal(s[1].job, "bob:s13");
	assert_int_equal(s[1].len_us, 20000);
	/* the operator's weight wins, 1 too */
	matrix_init(m);
	add(m, 0, "alice:s12");
	add(m, 0, "bob:s13");
	assert_int_equal(jobw_set(&t, "alice:s12", 1), 0);
	assert_int_equal(matrix_node_weight(m, "alice:s12", 3), 0);
	jobw_apply(&t, m);
	assert_int_equal(matrix_node_weight(m, "alice:s12", 4), 0);
	i = matrix_find(m, "alice:s12");
	assert_int_equal(m->job[i].weight, 1);
	assert_int_equal(m->job[i].wsrc, MATRIX_WSRC_SET);
	matrix_pack(m, 80000);
	assert_int_equal(slots(m, 0, s), 2);
	assert_int_equal(s[0].len_us, 40000);
	assert_int_equal(s[1].len_us, 40000);
	/* auto: the nodes' again */
	assert_int_equal(jobw_set(&t, "alice:s12", JOBW_AUTO), 0);
	matrix_init(m);
	add(m, 0, "alice:s12");
	add(m, 0, "bob:s13");
	assert_int_equal(matrix_node_weight(m, "alice:s12", 3), 0);
	jobw_apply(&t, m);
	matrix_pack(m, 80000);
	assert_int_equal(slots(m, 0, s), 2);
	assert_int_equal(s[0].len_us, 60000);
	mx_free(m);
}

static void
test_weights(void **state)
{
	struct matrix		*m = mx_new();
	struct proto_slot	 s[PROTO_JOBS_MAX];
	struct jobw		 t = { 0 };

	(void)state;
	add(m, 0, "alice:pvm");
	add(m, 0, "bob:pvm");
	add(m, 1, "carol:x");	/* shares alice's row */
	assert_int_equal(jobw_set(&t, "bob:pvm", 3), 0);
	assert_int_equal(jobw_set(&t, "dave:gone", 7), 0);	/* not here */
	jobw_apply(&t, m);
	matrix_pack(m, 80000);
	assert_int_equal(slots(m, 0, s), 2);
	assert_string_equal(s[0].job, "alice:pvm");
	assert_int_equal(s[0].len_us, 20000);
	assert_string_equal(s[1].job, "bob:pvm");
	assert_int_equal(s[1].start_us, 20000);
	assert_int_equal(s[1].len_us, 60000);
	/* a row weighs its heaviest job's weight */
	assert_int_equal(matrix_set_weight(m, "carol:x", 5), 0);
	matrix_pack(m, 80000);
	assert_int_equal(slots(m, 0, s), 2);
	assert_int_equal(s[0].len_us, 50000);	/* 5/(5+3) */
	assert_int_equal(s[1].len_us, 30000);
	assert_int_equal(slots(m, 1, s), 1);
	assert_int_equal(s[0].len_us, 50000);
	assert_int_equal(matrix_set_weight(m, "nobody:x", 5), -1);
	assert_int_equal(matrix_set_weight(m, "carol:x", 0), -1);
	assert_int_equal(matrix_set_weight(m, "carol:x", 101), -1);
	mx_free(m);
}

/*
 * Fair share per user: alice's 3 jobs and bob's 1 on one node, PS 80 ms:
 * 40 ms each user (alice's job 13.3 ms); a user's jobs that share a
 * node only on some of their nodes divide by the most on one node; a
 * weight is divided as well; the row's weight as the console shows it.
 */
static void
test_user_share(void **state)
{
	struct matrix		*m = mx_new();
	struct proto_slot	 s[PROTO_JOBS_MAX];
	char			 w[32];
	uint32_t		 alice = 0;
	int			 i;

	(void)state;
	add(m, 0, "bob:x");
	add(m, 0, "alice:c");
	add(m, 0, "alice:a");
	add(m, 0, "alice:b");
	matrix_pack(m, 80000);
	assert_int_equal(m->nrows, 4);
	assert_int_equal(slots(m, 0, s), 4);
	for (i = 0; i < 3; i++) {
		assert_int_equal(strncmp(s[i].job, "alice:", 6), 0);
		alice += s[i].len_us;
	}
	assert_int_equal(s[0].len_us, 13333);
	assert_int_equal(alice, 40000);
	assert_string_equal(s[3].job, "bob:x");
	assert_int_equal(s[3].start_us, 40000);
	assert_int_equal(s[3].len_us, 40000);
	assert_string_equal(matrix_share_format(m->row[0].share, w,
	    sizeof(w)), "0.33");
	assert_string_equal(matrix_share_format(m->row[3].share, w,
	    sizeof(w)), "1");

	/* alice's 3 jobs, weight 3 each: 3/4 of the PS hers */
	for (i = 0; i < 3; i++) {
		char	 job[16];

		snprintf(job, sizeof(job), "alice:%c", 'a' + i);
		assert_int_equal(matrix_set_weight(m, job, 3), 0);
	}
	matrix_pack(m, 80000);
	assert_int_equal(slots(m, 0, s), 4);
	assert_int_equal(s[0].len_us, 20000);
	assert_int_equal(s[3].start_us, 60000);
	assert_string_equal(matrix_share_format(m->row[0].share, w,
	    sizeof(w)), "1");

	/* alice:a on nodes 0 and 1, alice:b on 0, alice:c on 1: at most 2
	 * of hers on a node, each half of hers; bob on 0 gets his 40 ms */
	matrix_init(m);
	add(m, 0, "alice:a");
	add(m, 1, "alice:a");
	add(m, 0, "alice:b");
	add(m, 1, "alice:c");
	add(m, 0, "bob:x");
	matrix_pack(m, 80000);
	assert_int_equal(m->nrows, 3);	/* a; b and c; bob */
	assert_int_equal(slots(m, 0, s), 3);
	assert_int_equal(s[0].len_us + s[1].len_us, 40000);
	assert_string_equal(s[2].job, "bob:x");
	assert_int_equal(s[2].len_us, 40000);
	assert_int_equal(slots(m, 1, s), 2);	/* a and c: 20 ms each */
	assert_int_equal(s[1].len_us, 20000);
	assert_string_equal(matrix_share_format(m->row[0].share, w,
	    sizeof(w)), "0.50");
	mx_free(m);
}

/* Slots that do not divide evenly still end exactly at PS. */
static void
test_rounding(void **state)
{
	struct matrix		*m = mx_new();
	struct proto_slot	 s[PROTO_JOBS_MAX];
	int			 n;

	(void)state;
	add(m, 0, "u:a");
	add(m, 0, "u:b");
	add(m, 0, "u:c");
	assert_int_equal(matrix_set_weight(m, "u:b", 7), 0);
	matrix_pack(m, 100001);
	n = slots(m, 0, s);
	assert_int_equal(n, 3);
	assert_int_equal(s[0].start_us, 0);
	assert_int_equal(s[1].start_us, s[0].len_us);
	assert_int_equal(s[2].start_us + s[2].len_us, 100001);
	assert_int_equal(s[0].len_us + s[1].len_us + s[2].len_us, 100001);
	mx_free(m);
}

/* A node lists at most PROTO_JOBS_MAX jobs: a 9th is refused, in a line. */
static void
test_node_full(void **state)
{
	struct matrix		*m = mx_new();
	struct proto_slot	 s[PROTO_JOBS_MAX];
	char			 job[16], err[256];
	int			 i;

	(void)state;
	for (i = 0; i < PROTO_JOBS_MAX; i++) {
		snprintf(job, sizeof(job), "u:j%d", i);
		add(m, 0, job);
	}
	assert_int_equal(matrix_add(m, 0, "u:j8", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "at most 8 a node"));
	assert_null(strchr(err, '\n'));
	assert_int_equal(m->refused, 1);
	assert_int_equal(m->njobs, PROTO_JOBS_MAX);
	add(m, 1, "u:j8");	/* elsewhere it is fine */
	matrix_pack(m, 80000);
	assert_int_equal(slots(m, 0, s), PROTO_JOBS_MAX);
	assert_int_equal(s[PROTO_JOBS_MAX - 1].start_us +
	    s[PROTO_JOBS_MAX - 1].len_us, 80000);
	assert_int_equal(slots(m, 1, s), 1);
	mx_free(m);
}

static void
test_bad_input(void **state)
{
	struct matrix	*m = mx_new();
	char		 err[256], name[PROTO_JOB_LEN];

	(void)state;
	assert_int_equal(matrix_add(m, 0, "", err, sizeof(err)), -1);
	assert_int_equal(matrix_add(m, 0, "a b", err, sizeof(err)), -1);
	assert_int_equal(matrix_add(m, 0, "a\001", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not printable"));
	memset(name, 'x', sizeof(name));	/* no NUL in the field */
	assert_int_equal(matrix_add(m, 0, name, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "too long"));
	assert_int_equal(matrix_add(m, -1, "u:a", err, sizeof(err)), -1);
	assert_int_equal(matrix_add(m, MATRIX_NODES_MAX, "u:a", err,
	    sizeof(err)), -1);
	assert_int_equal(m->njobs, 0);
	assert_int_equal(m->refused, 6);
	matrix_pack(m, 80000);	/* nothing: no row, no division by 0 */
	assert_int_equal(m->nrows, 0);
	mx_free(m);
}

/*
 * A cluster of thousands (console.nodes takes NODES_TABLE_MAX): two jobs
 * on nodes far above the first 256 share them in two rows, and a job on
 * the last node alone gets the whole PS.
 */
static void
test_many_nodes(void **state)
{
	struct matrix		*m = mx_new();
	struct proto_slot	 s[PROTO_JOBS_MAX];

	(void)state;
	add(m, 9998, "u:a");
	add(m, 9999, "u:a");
	add(m, 9999, "v:b");
	add(m, 3, "v:b");
	add(m, MATRIX_NODES_MAX - 1, "w:c");
	matrix_pack(m, 80000);
	assert_int_equal(m->nrows, 2);
	assert_int_equal(slots(m, 9999, s), 2);
	assert_int_equal(s[0].len_us + s[1].len_us, 80000);
	assert_int_equal(slots(m, 9998, s), 1);
	assert_int_equal(s[0].len_us, 40000);
	assert_int_equal(slots(m, MATRIX_NODES_MAX - 1, s), 1);
	assert_int_equal(s[0].start_us, 0);
	mx_free(m);
}

/* The same cluster in any order: the same rows, the same tables. */
static void
test_deterministic(void **state)
{
	static const struct { int node; const char *job; } in[] = {
		{ 0, "alice:pvm" }, { 1, "alice:pvm" }, { 2, "alice:pvm" },
		{ 0, "bob:mpi" }, { 1, "bob:mpi" },
		{ 2, "carol:x" }, { 3, "carol:x" },
		{ 3, "dave:y" }, { 4, "dave:y" },
		{ 4, "erin:z" }, { 0, "erin:z" },
		{ 5, "frank:w" },
	};
	enum { N = sizeof(in) / sizeof(in[0]) };
	struct matrix		*a = mx_new(), *b = mx_new();
	struct proto_slot	 sa[PROTO_JOBS_MAX], sb[PROTO_JOBS_MAX];
	int			 perm[N], i, k, node, round;

	(void)state;
	for (i = 0; i < N; i++)
		add(a, in[i].node, in[i].job);
	matrix_pack(a, 80000);
	srand(22);
	for (round = 0; round < 50; round++) {
		for (i = 0; i < N; i++)
			perm[i] = i;
		for (i = N - 1; i > 0; i--) {
			int t, j = rand() % (i + 1);

			t = perm[i];
			perm[i] = perm[j];
			perm[j] = t;
		}
		matrix_init(b);
		for (i = 0; i < N; i++)
			add(b, in[perm[i]].node, in[perm[i]].job);
		matrix_pack(b, 80000);
		assert_int_equal(a->nrows, b->nrows);
		for (node = 0; node < 6; node++) {
			k = slots(a, node, sa);
			assert_int_equal(slots(b, node, sb), k);
			assert_memory_equal(sa, sb, sizeof(sa));
		}
	}
	/* first fit: alice (3 nodes) row 0; then the 2-node jobs by name:
	 * bob row 1, carol row 1, dave row 0, erin (0 and 4) row 2; frank
	 * (1 node) row 0 */
	assert_int_equal(a->job[matrix_find(a, "alice:pvm")].row, 0);
	assert_int_equal(a->job[matrix_find(a, "dave:y")].row, 0);
	assert_int_equal(a->job[matrix_find(a, "frank:w")].row, 0);
	assert_int_equal(a->job[matrix_find(a, "bob:mpi")].row, 1);
	assert_int_equal(a->job[matrix_find(a, "carol:x")].row, 1);
	assert_int_equal(a->job[matrix_find(a, "erin:z")].row, 2);
	mx_free(a);
	mx_free(b);
}

/*
 * The cluster's scale: 1,200 nodes, 400 jobs of 4-40 nodes (5 users), a
 * node never past PROTO_JOBS_MAX.  Every job is in, past the old caps
 * (64 jobs, 256 nodes); each job's slot is the same on every one of its
 * nodes (its gang), on none of them empty; the rows are a first fit (a
 * job's row is the lowest none of its nodes has a job in); each share
 * is the per-user rule computed the long way (weight / the most jobs
 * its user has on one of its nodes); the rows end exactly at PS.
 */
enum { SC_NODES = 1200, SC_JOBS = 400 };

static int
sc_fill(struct matrix *m, unsigned seed, int jobs, int nodes)
{
	static unsigned char	 load[SC_NODES];
	char			 job[PROTO_JOB_LEN];
	int			 i, k, at, size, tries, ok = 0;

	memset(load, 0, sizeof(load));
	srand(seed);
	for (i = 0; i < jobs; i++) {
		size = 4 + rand() % 37;
		for (tries = 0; tries < 1000; tries++) {
			at = rand() % (nodes - size);
			for (k = 0; k < size && load[at + k] < PROTO_JOBS_MAX;
			    k++)
				;
			if (k == size)
				break;
		}
		if (tries == 1000)
			continue;
		snprintf(job, sizeof(job), "user%d:job%d", i % 5, i);
		for (k = 0; k < size; k++) {
			add(m, at + k, job);
			load[at + k]++;
		}
		ok++;
	}
	return ok;
}

/* the long way: does job i's user have n jobs on one of its nodes? */
static int
sc_most(const struct matrix *m, int i)
{
	int	 node, a, n, most = 1, on;

	for (node = 0; node < m->nnodes; node++) {
		for (a = 0, on = 0, n = 0; a < m->node_njobs[node]; a++) {
			int	 k = m->node_job[node][a];
			size_t	 u = strcspn(m->job[k].name, ":");

			on |= k == i;
			n += strncmp(m->job[k].name, m->job[i].name, u + 1) == 0;
		}
		if (on && n > most)
			most = n;
	}
	return most;
}

static void
sc_check(const struct matrix *m)
{
	struct proto_slot	 s[PROTO_JOBS_MAX];
	uint32_t		*start, *len;
	int			*seen, node, i, k, n, r, end = 0, a, b;

	start = calloc((size_t)m->njobs, sizeof(*start));
	len = calloc((size_t)m->njobs, sizeof(*len));
	seen = calloc((size_t)m->njobs, sizeof(*seen));
	assert_non_null(start);
	assert_non_null(len);
	assert_non_null(seen);
	for (node = 0; node < m->nnodes; node++) {
		n = slots(m, node, s);
		assert_int_equal(n, m->node_njobs[node]);
		for (k = 0; k < n; k++) {
			i = matrix_find(m, s[k].job);
			assert_true(i >= 0);
			if (seen[i]++ == 0) {
				start[i] = s[k].start_us;
				len[i] = s[k].len_us;
			}
			assert_int_equal(s[k].start_us, start[i]);
			assert_int_equal(s[k].len_us, len[i]);
		}
	}
	for (i = 0; i < m->njobs; i++) {
		assert_int_equal(seen[i], m->job[i].nnodes);
		assert_int_equal(m->job[i].share, m->job[i].weight *
		    MATRIX_SHARE_UNIT / sc_most(m, i));
		/* first fit: each lower row has a job on one of its nodes */
		for (r = 0; r < m->job[i].row; r++) {
			for (node = 0, b = 0; node < m->nnodes && !b; node++) {
				for (a = 0, k = 0; a < m->node_njobs[node]; a++)
					k |= m->node_job[node][a] == i;
				b = k && matrix_cell(m, r, node) >= 0;
			}
			assert_true(b);
		}
	}
	for (r = 0; r < m->nrows; r++) {
		assert_int_equal(m->row[r].start_us, end);
		end += (int)m->row[r].len_us;
	}
	assert_int_equal(end, m->ps_us);
	free(start);
	free(len);
	free(seen);
}

static void
test_scale(void **state)
{
	struct matrix	*m = mx_new();
	int		 n;

	(void)state;
	n = sc_fill(m, 37, SC_JOBS, SC_NODES);
	assert_true(n >= 300);
	assert_int_equal(m->refused, 0);
	assert_int_equal(m->njobs, n);
	assert_true(m->nnodes > 256);
	assert_int_equal(matrix_set_weight(m, "user3:job3", 4), 0);
	matrix_pack(m, 50000);
	assert_true(m->nrows >= PROTO_JOBS_MAX);
	sc_check(m);
	mx_free(m);
}

/*
 * matrix_init keeps the storage: a matrix refilled with a smaller
 * cluster is the one a fresh matrix makes of it (no node, job or row
 * left over from the bigger one).
 */
static void
test_refill(void **state)
{
	struct matrix		*m = mx_new(), *f = mx_new();
	struct proto_slot	 a[PROTO_JOBS_MAX], b[PROTO_JOBS_MAX];
	int			 node;

	(void)state;
	(void)sc_fill(m, 5, SC_JOBS, SC_NODES);
	matrix_pack(m, 50000);
	matrix_init(m);
	assert_int_equal(m->njobs, 0);
	assert_int_equal(matrix_find(m, "user0:job0"), -1);
	(void)sc_fill(m, 6, 100, 300);
	(void)sc_fill(f, 6, 100, 300);
	matrix_pack(m, 50000);
	matrix_pack(f, 50000);
	assert_int_equal(m->njobs, f->njobs);
	assert_int_equal(m->nrows, f->nrows);
	for (node = 0; node < SC_NODES; node++) {
		assert_int_equal(slots(m, node, a), slots(f, node, b));
		assert_memory_equal(a, b, sizeof(a));
	}
	sc_check(m);
	mx_free(m);
	mx_free(f);
}

/*
 * Past the old caps: the 65th job and later get their slots, on nodes
 * past the 256th; a job alone on its nodes has the whole PS.
 */
static void
test_past_caps(void **state)
{
	struct matrix		*m = mx_new();
	struct proto_slot	 s[PROTO_JOBS_MAX];
	char			 job[PROTO_JOB_LEN];
	int			 i;

	(void)state;
	for (i = 0; i < 200; i++) {	/* 200 jobs, 2 nodes each, alone */
		snprintf(job, sizeof(job), "u%d:j", i);
		add(m, 300 + 2 * i, job);
		add(m, 301 + 2 * i, job);
	}
	add(m, 699, "late:x");		/* beside u199:j */
	matrix_pack(m, 80000);
	assert_int_equal(m->njobs, 201);
	assert_int_equal(m->nrows, 2);
	assert_int_equal(slots(m, 300 + 2 * 150, s), 1);
	assert_string_equal(s[0].job, "u150:j");
	assert_int_equal(s[0].len_us, 40000);
	assert_int_equal(slots(m, 699, s), 2);
	assert_string_equal(s[1].job, "late:x");
	assert_int_equal(s[1].start_us, 40000);
	assert_int_equal(slots(m, 299, s), 0);
	assert_int_equal(slots(m, 701, s), 0);
	mx_free(m);
}

/*
 * The per-user rule: user a's 3 jobs on node 0 with b's one and ab's
 * one (another user, whose name begins with a's), a:3 also on node 1:
 * each of a's jobs weighs 1/3 wherever it runs (its user's most jobs on
 * one of its nodes), b and ab 1 each: node 0's PS in three, a's jobs
 * share a third.
 */
static void
test_user_rows(void **state)
{
	struct matrix		*m = mx_new();
	struct proto_slot	 s[PROTO_JOBS_MAX];
	char			 buf[16];
	int			 i, a = 0;

	(void)state;
	add(m, 0, "a:1");
	add(m, 0, "a:2");
	add(m, 0, "a:3");
	add(m, 0, "b:1");
	add(m, 0, "ab:1");
	add(m, 1, "a:3");
	matrix_pack(m, 60000);
	assert_string_equal(matrix_share_format(m->job[matrix_find(m,
	    "a:3")].share, buf, sizeof(buf)), "0.33");
	assert_int_equal(m->job[matrix_find(m, "ab:1")].share,
	    MATRIX_SHARE_UNIT);
	assert_int_equal(slots(m, 0, s), 5);
	for (i = 0; i < 5; i++)
		if (strncmp(s[i].job, "a:", 2) == 0)
			a += (int)s[i].len_us;
		else
			assert_int_equal(s[i].len_us, 20000);
	assert_int_equal(a, 20000);
	assert_int_equal(slots(m, 1, s), 1);
	assert_string_equal(s[0].job, "a:3");
	mx_free(m);
}

/* Bad input changes nothing: the jobs, pairs and the next pack's rows. */
static void
test_bad_pack_input(void **state)
{
	struct matrix		*m = mx_new();
	struct proto_slot	 s[PROTO_JOBS_MAX];
	char			 err[256], job[16];
	int			 i;

	(void)state;
	for (i = 0; i < PROTO_JOBS_MAX; i++) {
		snprintf(job, sizeof(job), "u:%d", i);
		add(m, 1000, job);
	}
	add(m, 1001, "v:x");
	assert_int_equal(matrix_add(m, 1000, "v:x", err, sizeof(err)), -1);
	assert_int_equal(matrix_add(m, 1001, "bad name", err, sizeof(err)),
	    -1);
	assert_int_equal(matrix_add(m, -5, "v:x", err, sizeof(err)), -1);
	assert_int_equal(matrix_add(m, 1001, "v:x", err, sizeof(err)), 0);
	assert_int_equal(m->refused, 3);
	assert_int_equal(m->njobs, PROTO_JOBS_MAX + 1);
	assert_int_equal(m->npairs, PROTO_JOBS_MAX + 1);
	assert_int_equal(m->job[matrix_find(m, "v:x")].nnodes, 1);
	matrix_pack(m, 0);		/* a PS of 0: no slot, no crash */
	assert_int_equal(slots(m, 1000, s), 0);
	matrix_pack(m, 80000);
	assert_int_equal(slots(m, 1000, s), PROTO_JOBS_MAX);
	assert_int_equal(slots(m, 1001, s), 1);
	assert_int_equal(matrix_cell(m, 0, -1), -1);
	assert_int_equal(matrix_cell(m, 0, MATRIX_NODES_MAX), -1);
	assert_int_equal(matrix_slots(m, MATRIX_NODES_MAX, s,
	    PROTO_JOBS_MAX), 0);
	mx_free(m);
}

static void
test_jobw(void **state)
{
	struct jobw	 t = { 0 };
	char		 err[256], job[16];
	int		 w, i;

	(void)state;
	assert_int_equal(jobw_parse("3", &w, err, sizeof(err)), 0);
	assert_int_equal(w, 3);
	assert_int_equal(jobw_parse("100", &w, err, sizeof(err)), 0);
	assert_int_equal(jobw_parse("0", &w, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "out of range [1, 100]"));
	assert_int_equal(jobw_parse("101", &w, err, sizeof(err)), -1);
	assert_int_equal(jobw_parse("1.5", &w, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a whole number"));
	assert_int_equal(jobw_parse("", &w, err, sizeof(err)), -1);
	assert_int_equal(jobw_parse("99999999999999999999", &w, err,
	    sizeof(err)), -1);
	assert_int_equal(jobw_get(&t, "a:b"), 1);
	assert_int_equal(jobw_set(&t, "a:b", 4), 0);
	assert_int_equal(jobw_get(&t, "a:b"), 4);
	assert_int_equal(jobw_set(&t, "a:b", 1), 0);	/* kept: the operator's */
	assert_int_equal(t.n, 1);
	assert_int_equal(jobw_has(&t, "a:b"), 1);
	assert_int_equal(jobw_parse("auto", &w, err, sizeof(err)), 0);
	assert_int_equal(w, JOBW_AUTO);
	assert_int_equal(jobw_set(&t, "a:b", JOBW_AUTO), 0);	/* forgotten */
	assert_int_equal(t.n, 0);
	assert_int_equal(jobw_has(&t, "a:b"), 0);
	for (i = 0; i < JOBW_MAX; i++) {
		snprintf(job, sizeof(job), "u:%d", i);
		assert_int_equal(jobw_set(&t, job, 2), 0);
	}
	assert_int_equal(jobw_set(&t, "u:full", 2), -1);
	assert_int_equal(jobw_set(&t, "u:3", 9), 0);	/* a change fits */
	assert_int_equal(jobw_get(&t, "u:3"), 9);
}

/*
 * A held job (matrix_hold, room: dts(8) MEMORY) has no row and no
 * share: alice:a and alice:b on nodes 0 and 1, bob:c on node 1; alice:a
 * held by node 1: two rows where there were three, alice:b alone is
 * its user's on node 1 (share 1, not 1/2), and each of alice:a's nodes
 * gets it as held; it packs again when it is not held.
 */
static void
test_held(void **state)
{
	struct matrix		*m = mx_new();
	struct proto_slot	 s[PROTO_JOBS_MAX];
	int			 a, n;

	(void)state;
	add(m, 0, "alice:a");
	add(m, 1, "alice:a");
	add(m, 1, "alice:b");
	add(m, 1, "bob:c");
	a = matrix_find(m, "alice:a");
	matrix_hold(m, a, 1, 100 << 20, 600 << 20);
	matrix_hold(m, a, 0, 1, 2);		/* the first node is kept */
	matrix_pack(m, 80000);
	assert_int_equal(m->job[a].row, -1);
	assert_int_equal(m->job[a].held_node, 1);
	assert_int_equal(m->job[a].held_need, 600 << 20);
	assert_int_equal(m->nrows, 2);
	assert_int_equal(m->job[matrix_find(m, "alice:b")].share,
	    MATRIX_SHARE_UNIT);
	assert_int_equal(slots(m, 0, s), 0);
	assert_int_equal(matrix_held(m, 0, s, PROTO_JOBS_MAX), 1);
	assert_string_equal(s[0].job, "alice:a");
	assert_int_equal(s[0].len_us, 0);
	n = slots(m, 1, s);
	assert_int_equal(n, 2);
	assert_int_equal(s[0].len_us + s[1].len_us, 80000);
	assert_int_equal(matrix_held(m, 1, s + n, PROTO_JOBS_MAX - n), 1);
	assert_string_equal(s[2].job, "alice:a");
	assert_int_equal(matrix_held(m, 1, s, 0), 0);	/* no room */
	/* not held: three rows again */
	matrix_init(m);
	add(m, 0, "alice:a");
	add(m, 1, "alice:a");
	add(m, 1, "alice:b");
	add(m, 1, "bob:c");
	matrix_pack(m, 80000);
	assert_int_equal(m->nrows, 3);
	assert_int_equal(matrix_held(m, 0, s, PROTO_JOBS_MAX), 0);
	mx_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_nodes_two_rows),
		cmocka_unit_test(test_disjoint_one_row),
		cmocka_unit_test(test_chain),
		cmocka_unit_test(test_four_on_one),
		cmocka_unit_test(test_weights),
		cmocka_unit_test(test_user_share),
		cmocka_unit_test(test_rounding),
		cmocka_unit_test(test_node_full),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_many_nodes),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_scale),
		cmocka_unit_test(test_refill),
		cmocka_unit_test(test_past_caps),
		cmocka_unit_test(test_user_rows),
		cmocka_unit_test(test_bad_pack_input),
		cmocka_unit_test(test_held),
		cmocka_unit_test(test_jobw),
		cmocka_unit_test(test_node_weights),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
