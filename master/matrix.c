/*
 * matrix.c - the gang matrix.  See matrix.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "matrix.h"

/* the hash of a job name (FNV-1a), up to its NUL */
static uint32_t
name_hash(const char *job)
{
	uint32_t	 h = 2166136261u;
	size_t		 i;

	for (i = 0; i < PROTO_JOB_LEN && job[i] != '\0'; i++)
		h = (h ^ (uint8_t)job[i]) * 16777619u;
	return h;
}

void
matrix_init(struct matrix *m)
{
	int	 i;

	for (i = 0; i < m->nnodes; i++)
		m->node_njobs[i] = 0;
	if (m->hashcap > 0)
		memset(m->hash, 0, (size_t)m->hashcap * sizeof(m->hash[0]));
	m->ps_us = 0;
	m->njobs = 0;
	m->nrows = 0;
	m->nnodes = 0;
	m->most = 0;
	m->refused = 0;
	m->npairs = 0;
}

void
matrix_free(struct matrix *m)
{
	free(m->job);
	free(m->row);
	free(m->order);
	free(m->pair);
	free(m->hash);
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

/* The slot of job's index in the hash: where it is, or the free one. */
static int
hash_slot(const struct matrix *m, const char *job)
{
	int	 h = (int)(name_hash(job) & (uint32_t)(m->hashcap - 1));

	while (m->hash[h] != 0 && strncmp(m->job[m->hash[h] - 1].name, job,
	    PROTO_JOB_LEN) != 0)
		h = (h + 1) & (m->hashcap - 1);
	return h;
}

int
matrix_find(const struct matrix *m, const char *job)
{
	return m->hashcap == 0 ? -1 : m->hash[hash_slot(m, job)] - 1;
}

/* realloc *p to n elements of size: 0, or -1 (*p as it was) */
static int
grow(void *p, int n, size_t size)
{
	void	*q = realloc(*(void **)p, (size_t)n * size);

	if (q == NULL)
		return -1;
	*(void **)p = q;
	return 0;
}

/* Room for one more job: 0, or -1 (nothing changed). */
static int
job_room(struct matrix *m)
{
	int	 cap, i;

	if (m->njobs < m->cap)
		return 0;
	cap = m->cap == 0 ? 64 : m->cap * 2;
	if (grow(&m->job, cap, sizeof(m->job[0])) == -1 ||
	    grow(&m->row, cap, sizeof(m->row[0])) == -1 ||
	    grow(&m->order, cap, sizeof(m->order[0])) == -1)
		return -1;
	if (cap * 2 > m->hashcap) {
		if (grow(&m->hash, cap * 2, sizeof(m->hash[0])) == -1)
			return -1;
		m->hashcap = cap * 2;
		memset(m->hash, 0, (size_t)m->hashcap * sizeof(m->hash[0]));
		for (i = 0; i < m->njobs; i++)
			m->hash[hash_slot(m, m->job[i].name)] = i + 1;
	}
	m->cap = cap;
	return 0;
}

/* Room for one more (node, job) pair: 0, or -1 (nothing changed). */
static int
pair_room(struct matrix *m)
{
	int	 cap = m->paircap == 0 ? 256 : m->paircap * 2;

	if (m->npairs < m->paircap)
		return 0;
	if (grow(&m->pair, cap, sizeof(m->pair[0])) == -1)
		return -1;
	m->paircap = cap;
	return 0;
}

int
matrix_add(struct matrix *m, int node, const char *job, char *err,
    size_t errlen)
{
	struct matrix_job	*j;
	int			 i, k, h;

	if (node < 0 || node >= MATRIX_NODES_MAX) {
		snprintf(err, errlen, "node %d is out of range [0, %d)", node,
		    MATRIX_NODES_MAX);
		goto refused;
	}
	if (name_ok(job, err, errlen) == -1)
		goto refused;
	if ((i = matrix_find(m, job)) >= 0)
		for (k = 0; node < m->nnodes && k < m->node_njobs[node]; k++)
			if (m->node_job[node][k] == i)
				return 0;
	if (m->node_njobs[node] >= PROTO_JOBS_MAX) {
		snprintf(err, errlen, "job %s: its node has %d jobs already "
		    "(at most %d a node): left out", job, m->node_njobs[node],
		    PROTO_JOBS_MAX);
		goto refused;
	}
	if ((i < 0 && job_room(m) == -1) || pair_room(m) == -1) {
		snprintf(err, errlen, "job %s: out of memory: left out", job);
		goto refused;
	}
	if (i < 0) {
		h = hash_slot(m, job);
		i = m->njobs++;
		j = &m->job[i];
		memset(j, 0, sizeof(*j));
		memcpy(j->name, job, strlen(job));
		j->weight = MATRIX_WEIGHT_DEFAULT;
		j->row = -1;
		m->hash[h] = i + 1;
	}
	m->job[i].nnodes++;
	m->npairs++;
	if (node >= m->nnodes)		/* (node_njobs is 0 from there) */
		m->nnodes = node + 1;
	m->node_job[node][m->node_njobs[node]++] = i;
	if (m->node_njobs[node] > m->most)
		m->most = m->node_njobs[node];
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
	m->job[i].wsrc = MATRIX_WSRC_SET;
	return 0;
}

int
matrix_node_weight(struct matrix *m, const char *job, int w)
{
	int	 i = matrix_find(m, job);

	if (i < 0 || w < 0 || w > MATRIX_WEIGHT_MAX)
		return -1;
	if (w == 0 || m->job[i].wsrc == MATRIX_WSRC_SET ||
	    (m->job[i].wsrc == MATRIX_WSRC_NODE && m->job[i].weight >= w))
		return 0;
	m->job[i].weight = w;
	m->job[i].wsrc = MATRIX_WSRC_NODE;
	return 0;
}

/* The sorts' matrix (qsort has no argument for it). */
static const struct matrix *sort_m;

/* The packing order: more nodes first, then by name. */
static int
job_order(const void *a, const void *b)
{
	const struct matrix_job	*x = &sort_m->job[*(const int *)a];
	const struct matrix_job	*y = &sort_m->job[*(const int *)b];

	if (x->nnodes != y->nnodes)
		return x->nnodes > y->nnodes ? -1 : 1;
	return strncmp(x->name, y->name, PROTO_JOB_LEN);
}

/* A name's user: the bytes up to its ':' or NUL (job_same_user). */
static size_t
user_len(const char *name)
{
	size_t	 k;

	for (k = 0; k < PROTO_JOB_LEN && name[k] != ':' && name[k] != '\0';
	    k++)
		;
	return k;
}

/* By user (job_same_user's: the user and the byte that ends it), then
 * by index, so that a user's first job comes first. */
static int
user_order(const void *a, const void *b)
{
	int		 i = *(const int *)a, k = *(const int *)b;
	const char	*x = sort_m->job[i].name, *y = sort_m->job[k].name;
	size_t		 n = user_len(x), o = user_len(y);
	int		 c;

	if (n != o)
		return n < o ? -1 : 1;
	if ((c = memcmp(x, y, n)) != 0)
		return c;
	if (n < PROTO_JOB_LEN && x[n] != y[n])
		return x[n] < y[n] ? -1 : 1;
	return i < k ? -1 : i > k;
}

_Static_assert(MATRIX_SHARE_UNIT % 840 == 0 && PROTO_JOBS_MAX <= 8,
    "every count of a user's jobs on a node divides MATRIX_SHARE_UNIT");

/*
 * Each job's share: its weight divided by the most jobs its user has on
 * one of its nodes (matrix.h).  Users by one sort of the jobs, then
 * PROTO_JOBS_MAX^2 a node.
 */
static void
shares(struct matrix *m)
{
	int	 i, k, a, b, n, node, u = -1;
	int	*ix = m->order;

	for (i = 0; i < m->njobs; i++)
		ix[i] = i;
	sort_m = m;
	if (m->njobs > 0)	/* no array yet before the first job */
		qsort(ix, (size_t)m->njobs, sizeof(ix[0]), user_order);
	for (i = 0; i < m->njobs; i++) {
		if (i == 0 || !job_same_user(m->job[ix[i]].name,
		    m->job[ix[i - 1]].name))
			u = ix[i];
		m->job[ix[i]].user = u;
		m->job[ix[i]].most = 1;
	}
	for (node = 0; node < m->nnodes; node++) {
		if (m->node_njobs[node] < 2)
			continue;
		for (a = 0; a < m->node_njobs[node]; a++) {
			i = m->node_job[node][a];
			for (b = 0, n = 0; b < m->node_njobs[node]; b++) {
				k = m->node_job[node][b];
				n += m->job[k].user == m->job[i].user &&
				    !m->job[k].held;
			}
			if (n > m->job[i].most)
				m->job[i].most = n;
		}
	}
	for (i = 0; i < m->njobs; i++)
		m->job[i].share = m->job[i].weight * MATRIX_SHARE_UNIT /
		    m->job[i].most;
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

/* Each job's nodes, in pair[] by job (first, nnodes): O(pairs). */
static void
job_nodes(struct matrix *m)
{
	int	 i, k, node, at = 0;

	for (i = 0; i < m->njobs; i++) {
		m->job[i].first = at;
		at += m->job[i].nnodes;
		m->order[i] = 0;	/* filled so far */
	}
	for (node = 0; node < m->nnodes; node++)
		for (k = 0; k < m->node_njobs[node]; k++) {
			i = m->node_job[node][k];
			m->pair[m->job[i].first + m->order[i]++] = node;
		}
}

/*
 * Job i's row, first fit: the lowest row that none of its nodes has a
 * job in.  Only the rows taken on its own nodes are looked at (marked
 * with stamp), so a job costs its pairs, not the rows.
 */
static int
first_fit(struct matrix *m, int i, int stamp)
{
	const struct matrix_job	*j = &m->job[i];
	int			 a, k, node, r;

	for (a = 0; a < j->nnodes; a++) {
		node = m->pair[j->first + a];
		for (k = 0; k < m->node_njobs[node]; k++)
			if ((r = m->job[m->node_job[node][k]].row) >= 0)
				m->row[r].mark = stamp;
	}
	for (r = 0; r < m->nrows && m->row[r].mark == stamp; r++)
		;
	return r;
}

void
matrix_pack(struct matrix *m, uint32_t ps_us)
{
	uint64_t	 sum = 0, before = 0;
	int		 i, r;

	m->nrows = 0;
	m->ps_us = ps_us;
	shares(m);
	job_nodes(m);
	for (i = 0; i < m->njobs; i++) {
		m->order[i] = i;
		m->job[i].row = -1;
		memset(&m->row[i], 0, sizeof(m->row[i]));
	}
	sort_m = m;
	if (m->njobs > 0)
		qsort(m->order, (size_t)m->njobs, sizeof(m->order[0]),
		    job_order);
	for (i = 0; i < m->njobs; i++) {
		struct matrix_job *j = &m->job[m->order[i]];

		if (j->held)
			continue;	/* no row */
		r = first_fit(m, m->order[i], i + 1);
		if (r == m->nrows)
			m->nrows++;
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

void
matrix_hold(struct matrix *m, int i, int node, uint64_t free, uint64_t need)
{
	if (i < 0 || i >= m->njobs || m->job[i].held)
		return;
	m->job[i].held = 1;
	m->job[i].held_node = node;
	m->job[i].held_free = free;
	m->job[i].held_need = need;
}

int
matrix_held(const struct matrix *m, int node, struct proto_slot *slot,
    int cap)
{
	int	 i, t, n = 0;

	if (node < 0 || node >= m->nnodes)
		return 0;
	for (i = 0; i < m->node_njobs[node] && n < cap; i++) {
		t = m->node_job[node][i];
		if (!m->job[t].held)
			continue;
		memset(&slot[n], 0, sizeof(slot[n]));
		memcpy(slot[n].job, m->job[t].name, sizeof(slot[n].job));
		n++;
	}
	return n;
}

int
matrix_cell(const struct matrix *m, int r, int node)
{
	int	 i;

	if (node < 0 || node >= m->nnodes)
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
	int	 job[PROTO_JOBS_MAX], n = 0, i, k, t;

	memset(slot, 0, (size_t)cap * sizeof(*slot));
	if (node < 0 || node >= m->nnodes)
		return 0;
	for (i = 0; i < m->node_njobs[node]; i++) {
		t = m->node_job[node][i];
		if (m->job[t].row < 0 || m->row[m->job[t].row].len_us == 0)
			continue;
		/* by row, which is by start */
		for (k = n++; k > 0 && m->job[job[k - 1]].row >
		    m->job[t].row; k--)
			job[k] = job[k - 1];
		job[k] = t;
	}
	if (n > cap)
		n = cap;
	for (i = 0; i < n; i++) {
		t = job[i];
		memcpy(slot[i].job, m->job[t].name, sizeof(slot[i].job));
		slot[i].start_us = m->row[m->job[t].row].start_us;
		slot[i].len_us = m->row[m->job[t].row].len_us;
	}
	return n;
}

int
jobw_parse(const char *s, int *w, char *err, size_t errlen)
{
	char	*end;
	long	 v;

	if (strcmp(s, "auto") == 0) {
		*w = JOBW_AUTO;
		return 0;
	}
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

	if (w == JOBW_AUTO) {
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

int
jobw_has(const struct jobw *t, const char *job)
{
	return jobw_find(t, job) >= 0;
}

void
jobw_apply(const struct jobw *t, struct matrix *m)
{
	int	 i;

	for (i = 0; i < t->n; i++)
		(void)matrix_set_weight(m, t->name[i], t->w[i]);
}
