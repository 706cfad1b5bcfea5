/*
 * nodes.c - the console's node table.  See nodes.h.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "nodes.h"

/* The index of addr in ns->v, or where it would go (-1 - that). */
static int
search(const struct nodes *ns, uint32_t a)
{
	int	 lo = 0, hi = ns->n;

	while (lo < hi) {
		int	 mid = lo + (hi - lo) / 2;
		uint32_t b = ntohl(ns->v[mid].addr.s_addr);

		if (b == a)
			return mid;
		if (b < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1 - lo;
}

int
nodes_index(const struct nodes *ns, struct in_addr addr)
{
	int	 i = search(ns, ntohl(addr.s_addr));

	return i >= 0 ? i : -1;
}

struct node *
nodes_find(const struct nodes *ns, struct in_addr addr)
{
	int	 i = nodes_index(ns, addr);

	return i >= 0 ? &ns->v[i] : NULL;
}

struct node *
nodes_get(struct nodes *ns, struct in_addr addr)
{
	struct node	*v;
	int		 i = search(ns, ntohl(addr.s_addr)), cap;

	if (i >= 0)
		return &ns->v[i];
	i = -1 - i;
	if (ns->n == NODES_TABLE_MAX)
		return NULL;
	if (ns->n == ns->cap) {
		cap = ns->cap == 0 ? 16 : 2 * ns->cap;
		if (cap > NODES_TABLE_MAX)
			cap = NODES_TABLE_MAX;
		if ((v = realloc(ns->v, (size_t)cap * sizeof(*v))) == NULL)
			return NULL;
		ns->v = v;
		ns->cap = cap;
	}
	memmove(&ns->v[i + 1], &ns->v[i], (size_t)(ns->n - i) *
	    sizeof(ns->v[0]));
	ns->n++;
	memset(&ns->v[i], 0, sizeof(ns->v[i]));
	ns->v[i].addr = addr;
	return &ns->v[i];
}

void
nodes_free(struct nodes *ns)
{
	free(ns->v);
	memset(ns, 0, sizeof(*ns));
}

/* What every reply says: the node's name (NULL: none), its Q, now. */
static void
heard(struct node *n, const char *name, uint32_t load_milli, int64_t now)
{
	if (name != NULL)
		memcpy(n->name, name, sizeof(n->name));
	n->q = load_milli / 1000.0;
	n->have_q = 1;
	n->heard = now;
}

struct node *
nodes_status(struct nodes *ns, struct in_addr addr,
    const struct proto_status *st, int64_t now)
{
	struct node	*n = nodes_get(ns, addr);

	if (n == NULL)
		return NULL;
	n->st = *st;
	n->st.name[PROTO_NAME_LEN - 1] = '\0';
	heard(n, n->st.name, st->load_milli, now);
	n->have_status = 1;
	n->status_at = now;
	return n;
}

struct node *
nodes_load(struct nodes *ns, struct in_addr addr, const struct proto_load *l,
    int64_t now)
{
	struct node	*n = nodes_get(ns, addr);

	if (n == NULL)
		return NULL;
	heard(n, NULL, l->load_milli, now);
	return n;
}

struct node *
nodes_metrics(struct nodes *ns, struct in_addr addr,
    const struct proto_metrics *m, int64_t now)
{
	struct node	*n = nodes_get(ns, addr);

	if (n == NULL)
		return NULL;
	n->met = *m;
	n->met.name[PROTO_NAME_LEN - 1] = '\0';
	heard(n, n->met.name, m->load_milli, now);
	n->metrics_at = now;
	n->njobs = 0;		/* its JOB replies follow */
	n->jobs_at = now;
	n->mem_ok = 0;		/* and their JOB_MEM */
	n->mem_asked = 0;
	return n;
}

int
nodes_job_mem_due(struct nodes *ns, struct in_addr addr,
    const struct proto_job *j)
{
	struct node	*n = nodes_get(ns, addr);
	uint32_t	 i = j->index;

	if (n == NULL || n->jobs_at == 0 || i >= j->count ||
	    i >= PROTO_JOBS_MAX || (int)i >= n->njobs ||
	    (n->mem_asked & (1u << i)) ||
	    strncmp(n->jobs[i].job, j->job, PROTO_JOB_LEN) != 0)
		return 0;
	n->mem_asked |= 1u << i;
	return 1;
}

int
nodes_job_mem(struct nodes *ns, struct in_addr addr,
    const struct proto_job_mem *j, int64_t now)
{
	struct node	*n = nodes_get(ns, addr);
	uint32_t	 i = j->index;

	if (n == NULL || n->jobs_at == 0 || i >= j->count ||
	    i >= PROTO_JOBS_MAX || (int)i >= n->njobs ||
	    strncmp(n->jobs[i].job, j->job, PROTO_JOB_LEN) != 0)
		return -1;
	n->mem[i] = *j;
	n->mem[i].job[PROTO_JOB_LEN - 1] = '\0';
	n->mem_ok |= 1u << i;
	n->heard = now;
	return 0;
}

int
nodes_lacks(const struct node *n, const struct node_mem *m, uint64_t reserve)
{
	uint64_t	 free = (uint64_t)n->st.mem_mib << 20;

	return n->have_status && n->st.mem_mib != 0 && m->job[0] != '\0' &&
	    m->swap_bytes > 0 && free < m->swap_bytes + reserve;
}

const struct node_mem *
nodes_mem_of(const struct node *n, const char *job)
{
	int	 k;

	for (k = 0; k < PROTO_JOBS_MAX; k++)
		if (n->jm[k].job[0] != '\0' && strncmp(n->jm[k].job, job,
		    PROTO_JOB_LEN) == 0)
			return &n->jm[k];
	return NULL;
}

int
nodes_mem_note(struct nodes *ns, struct in_addr addr,
    const struct proto_job_mem *j, uint64_t reserve, int64_t now)
{
	struct node	*n = nodes_get(ns, addr);
	struct node_mem	*m;
	int		 k, at = 0, was;

	if (n == NULL || j->job[0] == '\0' || memchr(j->job, '\0',
	    PROTO_JOB_LEN) == NULL)
		return -1;
	for (k = 0; k < PROTO_JOBS_MAX; k++) {
		if (strncmp(n->jm[k].job, j->job, PROTO_JOB_LEN) == 0) {
			at = k;
			break;
		}
		if (n->jm[k].at < n->jm[at].at)
			at = k;		/* a free one is the oldest: 0 */
	}
	m = &n->jm[at];
	was = strncmp(m->job, j->job, PROTO_JOB_LEN) == 0 ? m->lack : 0;
	memcpy(m->job, j->job, PROTO_JOB_LEN);
	m->mem_bytes = j->mem_bytes;
	m->swap_bytes = j->swap_bytes;
	m->at = now;
	m->lack = nodes_lacks(n, m, reserve);
	n->heard = now;
	return m->lack != was;
}

int
nodes_room(struct node *n, uint64_t reserve)
{
	int	 k, lack, moved = 0;

	for (k = 0; k < PROTO_JOBS_MAX; k++) {
		if (n->jm[k].job[0] == '\0')
			continue;
		if (!(n->st.flags & STATUS_F_SWAP))
			n->jm[k].swap_bytes = 0;
		lack = nodes_lacks(n, &n->jm[k], reserve);
		moved |= lack != n->jm[k].lack;
		n->jm[k].lack = lack;
	}
	return moved;
}

int
nodes_job(struct nodes *ns, struct in_addr addr, const struct proto_job *j,
    int64_t now)
{
	struct node	*n = nodes_get(ns, addr);
	uint32_t	 i = j->index;

	if (n == NULL || n->jobs_at == 0 || i >= j->count ||
	    i >= PROTO_JOBS_MAX || (int)i != n->njobs)
		return -1;
	n->jobs[i] = *j;
	n->jobs[i].job[PROTO_JOB_LEN - 1] = '\0';
	n->njobs = (int)i + 1;
	n->heard = now;
	return i + 1 < j->count && i + 1 < PROTO_JOBS_MAX ? (int)i + 1 : -1;
}

int
nodes_live(const struct node *n, int64_t now, int64_t timeout)
{
	return n->heard != 0 && now - n->heard <= timeout;
}

int64_t
nodes_next_expiry(const struct nodes *ns, int64_t now, int64_t timeout)
{
	int64_t	 t, best = 0;
	int	 i;

	for (i = 0; i < ns->n; i++) {
		if (!nodes_live(&ns->v[i], now, timeout))
			continue;
		t = ns->v[i].heard + timeout + 1;
		if (best == 0 || t < best)
			best = t;
	}
	return best;
}

int64_t
nodes_skew(int64_t t, int64_t ref, int64_t ip)
{
	int64_t	 d;

	if (ip <= 0)
		return 0;
	d = (t - ref) % ip;
	if (d < 0)
		d += ip;
	if (2 * d > ip)
		d -= ip;
	return d;
}

const struct node *
nodes_reference(const struct nodes *ns, int64_t since)
{
	int	 i;

	for (i = 0; i < ns->n; i++)
		if (ns->v[i].have_status && ns->v[i].status_at >= since &&
		    ns->v[i].st.last_ps_ns != 0)
			return &ns->v[i];
	return NULL;
}

int
nodes_name_match(const char *a, const char *b)
{
	size_t	 la = strcspn(a, "."), lb = strcspn(b, ".");

	if (a[0] == '\0' || b[0] == '\0')
		return 0;
	if (strcmp(a, b) == 0)
		return 1;
	/* numeric addresses are not names: 10.0.0.1 is not 10.0.0.2 */
	if (a[0] >= '0' && a[0] <= '9')
		return 0;
	return la == lb && strncmp(a, b, la) == 0 &&
	    (a[la] == '\0' || b[lb] == '\0');
}

int
nodes_host_match(const struct node *n, const struct vm_host *h)
{
	if (h->have_addr && h->addr.s_addr == n->addr.s_addr)
		return 1;
	return nodes_name_match(n->name, h->name);
}
