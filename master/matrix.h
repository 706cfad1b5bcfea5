/*
 * matrix.h - the gang matrix (Ousterhout's): the cluster's jobs packed
 * into rows, and each node's slot table from it.
 *
 * Input: for each node (an index, the console's node table order) the
 * jobs its STATUS listed with members, and a weight per job (1..100,
 * default 1).  Jobs whose node sets do not overlap share a row, so a job
 * alone on its hosts gets the whole PS there.  The packing is first fit,
 * in a fixed order (more nodes first, then the name), so the same input
 * always gives the same rows whatever order it came in.
 *
 * Fair share per user, as a node's own split (dts.conf share): a job's
 * share is its weight divided by n, the most jobs its user (the name up
 * to the ':') has on any one of its nodes; so where a user's jobs share
 * a node, they share that user's part: user A's 3 jobs and B's 1 on one
 * node get PS/2 in all each, and where each user has one job a node,
 * shares are the weights.  A row's share is the largest
 * share of its jobs; row k gets PS * s_k / sum(s), rows in order from 0,
 * contiguous, rounded so that the last ends exactly at PS.  Shares are
 * whole numbers of MATRIX_SHARE_UNIT a weight, exact for every n up to
 * PROTO_JOBS_MAX.  A node's slot table is, for each of its jobs, its
 * row's slot: its jobs are in different rows, so the slots never overlap.  Where a row
 * has no job of a node, the node runs its other jobs (work-conserving is
 * the node's part, dts(8)); the console sends each node its own jobs only.
 *
 * Scale: a node holds at most PROTO_JOBS_MAX jobs, so the cluster's jobs
 * are bounded by the nodes (PROTO_JOBS_MAX x nodes), not by a table of
 * their own: jobs and rows are arrays that grow.  Every node of the
 * console's table (MATRIX_NODES_MAX, its bound) has its slot table.
 * matrix_pack costs O(P + J log J) for P (node, job) pairs and J jobs:
 * a job's first fit looks at the rows taken on its own nodes only (at
 * most PROTO_JOBS_MAX - 1 a node), never at other rows' node sets;
 * matrix_add and matrix_find are O(1) (a hash of the names), and
 * matrix_slots O(PROTO_JOBS_MAX).
 *
 * A held job (matrix_hold: a node of it lacks room for it) gets no row
 * and counts in no share; each of its nodes gets its name as held.
 *
 * Pure code: no I/O, no clock.  Memory: malloc'd, kept from one
 * matrix_init to the next (a master refills the same matrix every SI).
 */
#ifndef DTS_MASTER_MATRIX_H
#define DTS_MASTER_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

#define MATRIX_NODES_MAX	16384	/* NODES_TABLE_MAX: console.nodes */
#define MATRIX_WEIGHT_MAX	100
#define MATRIX_WEIGHT_DEFAULT	1
#define MATRIX_SHARE_UNIT	840	/* lcm(1, ..., PROTO_JOBS_MAX) */

/* Where a job's weight came from. */
enum matrix_wsrc {
	MATRIX_WSRC_DEFAULT = 0,	/* MATRIX_WEIGHT_DEFAULT */
	MATRIX_WSRC_NODE,		/* its nodes' STATUS (its adoption's
					   WEIGHT: the SPANK plugin's) */
	MATRIX_WSRC_SET			/* the operator's `set weight` */
};

struct matrix_job {
	char		 name[PROTO_JOB_LEN];
	int		 weight;	/* 1..MATRIX_WEIGHT_MAX */
	int		 wsrc;		/* enum matrix_wsrc */
	int		 share;		/* after matrix_pack: weight *
					   MATRIX_SHARE_UNIT / n */
	int		 row;		/* after matrix_pack */
	int		 nnodes;
	/* held (matrix_hold): no row; the first node that lacks room for
	 * it, that node's free RAM and what the job needs there, bytes */
	int		 held;
	int		 held_node;
	uint64_t	 held_free, held_need;
	/* matrix_pack's own */
	int		 user;		/* the index of its user's first job */
	int		 most;		/* n: its user's most jobs on a node */
	int		 first;		/* its nodes: pair[first .. +nnodes) */
};

struct matrix_row {
	int		 share;		/* the largest of its jobs' */
	uint32_t	 start_us;	/* from the PS start */
	uint32_t	 len_us;
	int		 njobs;
	int		 mark;		/* matrix_pack's own */
};

struct matrix {
	uint32_t	 ps_us;
	int		 njobs;
	struct matrix_job *job;		/* [njobs] */
	int		 nrows;
	struct matrix_row *row;		/* [nrows] */
	int		 nnodes;	/* one past the highest node index */
	int		 most;		/* the most jobs on one node */
	uint8_t		 node_njobs[MATRIX_NODES_MAX];
	int32_t		 node_job[MATRIX_NODES_MAX][PROTO_JOBS_MAX];
	int		 refused;	/* matrix_add()s refused */
	/* storage (matrix_init keeps it) */
	int		 cap;		/* of job, row, order */
	int		 npairs, paircap;
	int		*pair;		/* each job's nodes, by job */
	int		*order;
	int		 hashcap;	/* a power of 2, >= 2 cap; 0: none */
	int		*hash;		/* job index + 1, 0: free */
};

/*
 * Empty: no job, no row.  m is zeroed (static, calloc, memset) before
 * its first matrix_init; later ones keep its storage.
 */
void matrix_init(struct matrix *m);

/* Give back m's storage (m is zeroed: matrix_init can take it again). */
void matrix_free(struct matrix *m);

/*
 * Job (a name as STATUS gives it: PROTO_JOB_LEN bytes, NUL terminated
 * within them, printable, no space) runs on node.  Twice the same on a
 * node is once.  0, or -1 with a one-line err, nothing changed (and
 * refused counted): a bad name, node out of range, the node has
 * PROTO_JOBS_MAX jobs already, no memory.
 */
int matrix_add(struct matrix *m, int node, const char *job, char *err,
    size_t errlen);

/* The index of job, or -1. */
int matrix_find(const struct matrix *m, const char *job);

/* Set job's weight (1..MATRIX_WEIGHT_MAX), the operator's: 0, or -1 if
 * unknown or out of range. */
int matrix_set_weight(struct matrix *m, const char *job, int w);

/*
 * The weight a node gave job in its STATUS (1..MATRIX_WEIGHT_MAX; 0:
 * none): kept unless the operator's is set; where its nodes differ, the
 * largest holds.  Before jobw_apply.  0, or -1 if unknown or out of
 * range.
 */
int matrix_node_weight(struct matrix *m, const char *job, int w);

/*
 * Hold job i (dts(8), MEMORY): node (its free RAM free, the job's need
 * there need, bytes) lacks room for it.  Before matrix_pack, which gives
 * a held job no row and no share; the first node given is kept.
 */
void matrix_hold(struct matrix *m, int i, int node, uint64_t free,
    uint64_t need);

/*
 * Node's held jobs (after matrix_pack) into slot[0..cap) as a
 * SCHEDULE's held entries (a name, start and length 0): how many.
 */
int matrix_held(const struct matrix *m, int node, struct proto_slot *slot,
    int cap);

/* Pack the jobs into rows and give each row its slot of ps_us. */
void matrix_pack(struct matrix *m, uint32_t ps_us);

/* A share as a weight ("1", "0.33", "2.5") into buf, which it returns. */
const char *matrix_share_format(int share, char *buf, size_t len);

/*
 * Node's slot table (after matrix_pack): one slot per job of the node
 * whose row's slot is not empty, by start; at most cap (PROTO_JOBS_MAX).
 * Returns how many; the rest of slot[0..cap) is zeroed.
 */
int matrix_slots(const struct matrix *m, int node, struct proto_slot *slot,
    int cap);

/* The job of row r on node, or -1. */
int matrix_cell(const struct matrix *m, int r, int node);

/*
 * The weights `set weight JOB W` gave, kept by name for as long as the
 * console runs: a job that ends and comes back keeps its weight.
 */
#define JOBW_MAX 64

struct jobw {
	int		 n;
	char		 name[JOBW_MAX][PROTO_JOB_LEN];
	int		 w[JOBW_MAX];
};

/* W: an integer 1..MATRIX_WEIGHT_MAX, or "auto" (*w JOBW_AUTO).  0, or
 * -1 with err. */
#define JOBW_AUTO	0
int jobw_parse(const char *s, int *w, char *err, size_t errlen);

/* Set job's weight (1 too: the operator's 1 wins over a node's weight);
 * w == JOBW_AUTO forgets it.  0, or -1 if the table is full. */
int jobw_set(struct jobw *t, const char *job, int w);

/* Job's weight: its own, or MATRIX_WEIGHT_DEFAULT. */
int jobw_get(const struct jobw *t, const char *job);

/* Has the operator set job's weight?  1 or 0. */
int jobw_has(const struct jobw *t, const char *job);

/* Every weight of t onto the jobs of m it names (before matrix_pack). */
void jobw_apply(const struct jobw *t, struct matrix *m);

#endif /* DTS_MASTER_MATRIX_H */
