/*
 * matrix.c - the gang matrix.  See matrix.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "matrix.h"

void
matrix_init(struct matrix *m)
{
	memset(m, 0, sizeof(*m));
}

/* A name from STATUS: NUL within the field, not empty, printable. */
static int
name_ok(const char *job, char *err, size_t errlen)
{
	size_t	 i;

	for (i = 0; i < PROTO_JOB_LEN && job[i] != '\0'; i++)
		if (job[i] <= ' ' || job[i] > '~') {
			snprintf(err, errlen, "job name has a byte 0x%02x "
			    "that is not printable", (unsigned char)job[i]);
			return -1;
		}
	if (i == 0) {
		snprintf(err, errlen, "job name is empty");
		return -1;
	}
	if (i == PROTO_JOB_LEN) {
		snprintf(err, errlen, "job name \"%.20s...\" is too long (at "
		    "most %d bytes)", job, PROTO_JOB_LEN - 1);
		return -1;
	}
	return 0;
}

int
matrix_find(const struct matrix *m, const char *job)
{
	int	 i;

	for (i = 0; i < m->njobs; i++)
		if (strncmp(m->job[i].name, job, PROTO_JOB_LEN) == 0)
			return i;
	return -1;
}

static int
on_node(const struct matrix_job *j, int node)
{
	return (j->nodes[node / 64] >> (node % 64)) & 1;
}

int
matrix_add(struct matrix *m, int node, const char *job, char *err,
    size_t errlen)
{
	struct matrix_job	*j;
	int			 i;

	if (node < 0 || node >= MATRIX_NODES_MAX) {
		snprintf(err, errlen, "node %d is out of range [0, %d)", node,
		    MATRIX_NODES_MAX);
		goto refused;
	}
	if (name_ok(job, err, errlen) == -1)
		goto refused;
	if ((i = matrix_find(m, job)) >= 0 && on_node(&m->job[i], node))
		return 0;
	if (m->node_njobs[node] >= PROTO_JOBS_MAX) {
		snprintf(err, errlen, "job %s: its node has %d jobs already "
		    "(at most %d a node): left out", job, m->node_njobs[node],
		    PROTO_JOBS_MAX);
		goto refused;
	}
	if (i < 0) {
		if (m->njobs >= MATRIX_JOBS_MAX) {
			snprintf(err, errlen, "job %s: the cluster has %d jobs "
			    "already (at most %d): left out", job, m->njobs,
			    MATRIX_JOBS_MAX);
			goto refused;
		}
		i = m->njobs++;
		j = &m->job[i];
		memset(j, 0, sizeof(*j));
		memcpy(j->name, job, strlen(job));
		j->weight = MATRIX_WEIGHT_DEFAULT;
		j->row = -1;
	}
	j = &m->job[i];
	j->nodes[node / 64] |= (uint64_t)1 << (node % 64);
	j->nnodes++;
	m->node_job[node][m->node_njobs[node]++] = (int16_t)i;
	if (node >= m->nnodes)
		m->nnodes = node + 1;
	return 0;
refused:
	m->refused++;
	return -1;
}

int
matrix_set_weight(struct matrix *m, const char *job, int w)
{
	int	 i = matrix_find(m, job);

	if (i < 0 || w < 1 || w > MATRIX_WEIGHT_MAX)
		return -1;
	m->job[i].weight = w;
	return 0;
}

/* The packing order: more nodes first, then by name. */
static const struct matrix *sort_m;

static int
job_order(const void *a, const void *b)
{
	const struct matrix_job	*x = &sort_m->job[*(const int *)a];
	const struct matrix_job	*y = &sort_m->job[*(const int *)b];

	if (x->nnodes != y->nnodes)
		return x->nnodes > y->nnodes ? -1 : 1;
	return strncmp(x->name, y->name, PROTO_JOB_LEN);
}

_Static_assert(MATRIX_SHARE_UNIT % 840 == 0 && PROTO_JOBS_MAX <= 8,
    "every count of a user's jobs on a node divides MATRIX_SHARE_UNIT");

/*
 * Each job's share: its weight divided by the most jobs its user has on
 * one of its nodes (matrix.h).
 */
static void
shares(struct matrix *m)
{
	int	 user[MATRIX_JOBS_MAX], most[MATRIX_JOBS_MAX];
	int	 i, k, node, a, b, n;

	for (i = 0; i < m->njobs; i++) {
		for (k = 0; k < i && !job_same_user(m->job[i].name,
		    m->job[k].name); k++)
			;
		user[i] = k;
		most[i] = 1;
	}
	for (node = 0; node < m->nnodes; node++) {
		if (m->node_njobs[node] < 2)
			continue;
		for (a = 0; a < m->node_njobs[node]; a++) {
			i = m->node_job[node][a];
			for (b = 0, n = 0; b < m->node_njobs[node]; b++)
				n += user[m->node_job[node][b]] == user[i];
			if (n > most[i])
				most[i] = n;
		}
	}
	for (i = 0; i < m->njobs; i++)
		m->job[i].share = m->job[i].weight * MATRIX_SHARE_UNIT /
		    most[i];
}

const char *
matrix_share_format(int share, char *buf, size_t len)
{
	if (share % MATRIX_SHARE_UNIT == 0)
		snprintf(buf, len, "%d", share / MATRIX_SHARE_UNIT);
	else
		snprintf(buf, len, "%.2f", (double)share / MATRIX_SHARE_UNIT);
	return buf;
}

/* the words of a node set in use: nodes 0 .. nnodes - 1 */
#define WORDS(m)	(((m)->nnodes + 63) / 64)

static int
overlap(const uint64_t *a, const uint64_t *b, int words)
{
	int	 k;

	for (k = 0; k < words; k++)
		if (a[k] & b[k])
			return 1;
	return 0;
}

void
matrix_pack(struct matrix *m, uint32_t ps_us)
{
	/* (static: 128 KiB; only the words in use are cleared and read) */
	static uint64_t	 used[MATRIX_JOBS_MAX][MATRIX_NODES_MAX / 64];
	uint64_t	 sum = 0, before = 0;
	int		 order[MATRIX_JOBS_MAX], i, k, r;

	for (r = 0; r < m->njobs; r++)
		memset(used[r], 0, (size_t)WORDS(m) * sizeof(used[r][0]));
	memset(m->row, 0, sizeof(m->row));
	m->nrows = 0;
	m->ps_us = ps_us;
	shares(m);
	for (i = 0; i < m->njobs; i++)
		order[i] = i;
	sort_m = m;
	qsort(order, (size_t)m->njobs, sizeof(order[0]), job_order);
	for (i = 0; i < m->njobs; i++) {
		struct matrix_job *j = &m->job[order[i]];

		for (r = 0; r < m->nrows; r++)
			if (!overlap(used[r], j->nodes, WORDS(m)))
				break;
		if (r == m->nrows)
			m->nrows++;
		for (k = 0; k < WORDS(m); k++)
			used[r][k] |= j->nodes[k];
		j->row = r;
		m->row[r].njobs++;
		if (j->share > m->row[r].share)
			m->row[r].share = j->share;
	}
	for (r = 0; r < m->nrows; r++)
		sum += (uint64_t)m->row[r].share;
	/* start_k = PS * (shares before k) / sum: the last ends at PS */
	for (r = 0; r < m->nrows; r++) {
		uint64_t s = (uint64_t)ps_us * before / sum;

		before += (uint64_t)m->row[r].share;
		m->row[r].start_us = (uint32_t)s;
		m->row[r].len_us = (uint32_t)((uint64_t)ps_us * before / sum -
		    s);
	}
}

int
matrix_cell(const struct matrix *m, int r, int node)
{
	int	 i;

	if (node < 0 || node >= MATRIX_NODES_MAX)
		return -1;
	for (i = 0; i < m->node_njobs[node]; i++)
		if (m->job[m->node_job[node][i]].row == r)
			return m->node_job[node][i];
	return -1;
}

int
matrix_slots(const struct matrix *m, int node, struct proto_slot *slot,
    int cap)
{
	int	 n = 0, r, j;

	memset(slot, 0, (size_t)cap * sizeof(*slot));
	if (node < 0 || node >= MATRIX_NODES_MAX)
		return 0;
	for (r = 0; r < m->nrows && n < cap; r++) {
		if ((j = matrix_cell(m, r, node)) < 0 ||
		    m->row[r].len_us == 0)
			continue;
		memcpy(slot[n].job, m->job[j].name, sizeof(slot[n].job));
		slot[n].start_us = m->row[r].start_us;
		slot[n].len_us = m->row[r].len_us;
		n++;
	}
	return n;
}

int
jobw_parse(const char *s, int *w, char *err, size_t errlen)
{
	char	*end;
	long	 v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end != '\0' || errno != 0) {
		snprintf(err, errlen, "\"%s\" is not a whole number", s);
		return -1;
	}
	if (v < 1 || v > MATRIX_WEIGHT_MAX) {
		snprintf(err, errlen, "%s is out of range [1, %d]", s,
		    MATRIX_WEIGHT_MAX);
		return -1;
	}
	*w = (int)v;
	return 0;
}

static int
jobw_find(const struct jobw *t, const char *job)
{
	int	 i;

	for (i = 0; i < t->n; i++)
		if (strncmp(t->name[i], job, PROTO_JOB_LEN) == 0)
			return i;
	return -1;
}

int
jobw_set(struct jobw *t, const char *job, int w)
{
	int	 i = jobw_find(t, job);

	if (w == MATRIX_WEIGHT_DEFAULT) {
		if (i >= 0) {
			t->n--;
			memmove(t->name[i], t->name[i + 1], (size_t)(t->n - i) *
			    sizeof(t->name[0]));
			memmove(&t->w[i], &t->w[i + 1], (size_t)(t->n - i) *
			    sizeof(t->w[0]));
		}
		return 0;
	}
	if (i < 0) {
		if (t->n == JOBW_MAX)
			return -1;
		i = t->n++;
		memset(t->name[i], 0, sizeof(t->name[i]));
		snprintf(t->name[i], sizeof(t->name[i]), "%s", job);
	}
	t->w[i] = w;
	return 0;
}

int
jobw_get(const struct jobw *t, const char *job)
{
	int	 i = jobw_find(t, job);

	return i < 0 ? MATRIX_WEIGHT_DEFAULT : t->w[i];
}

void
jobw_apply(const struct jobw *t, struct matrix *m)
{
	int	 i;

	for (i = 0; i < t->n; i++)
		(void)matrix_set_weight(m, t->name[i], t->w[i]);
}
