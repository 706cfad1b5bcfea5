/*
 * master.c - SI broadcasts, BALANCED, status rounds.  See master.h.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "master.h"
#include "memsize.h"
#include "timeutil.h"

int64_t
master_node_timeout(const struct engine *c)
{
	int64_t	 t = c->conf.console.timeout_ns, min;

	min = 2 * c->sch.si + c->conf.console.status_wait_ns;
	return t > min ? t : min;
}

static int64_t
sb_node_timeout(const void *arg)
{
	return master_node_timeout(arg);
}

/* The standby takes over: the schedule it follows, as a TAKEOVER. */
static int
sb_take(void *arg, int64_t now)
{
	struct engine	*c = arg;
	int		 n;

	c->m.next_si = 0;
	if ((n = master_send_flags(c, SCHED_F_TAKEOVER, now)) >= 0)
		master_started(c, now);
	return n;
}

/* The standby follows its peer: no SI broadcast of ours. */
static void
sb_follow(void *arg)
{
	struct engine	*c = arg;

	c->m.next_si = 0;
	c->m.mx_pending = 0;
}

void
master_init(struct engine *c)
{
	struct standby	*sb = &c->sb;

	memset(&c->m, 0, sizeof(c->m));
	trace_init(&c->m.trace, &c->net, &c->nodes, &c->out);
	sb->conf = &c->conf;
	sb->sch = &c->sch;
	sb->net = &c->net;
	sb->nodes = &c->nodes;
	sb->weights = &c->weights;
	sb->jobw = &c->jobw;
	sb->out = &c->out;
	sb->arg = c;
	sb->node_timeout = sb_node_timeout;
	sb->take = sb_take;
	sb->follow = sb_follow;
}

/* An asynchronous command (status, load, trace) ended with rc. */
static void
master_finish(struct engine *c, int rc)
{
	c->m.async_rc = rc;
	c->m.async_done = 1;
}

int
master_done(struct engine *c, int *rc)
{
	if (!c->m.async_done)
		return 0;
	c->m.async_done = 0;
	*rc = c->m.async_rc;
	return 1;
}

int
master_send(struct engine *c, int64_t now)
{
	return master_send_flags(c, 0, now);
}

/* Slot tables go out in STATIC and BALANCED, while started. */
static int
slotted(const struct engine *c)
{
	return c->sch.started && (c->sch.mode == MODE_STATIC ||
	    c->sch.mode == MODE_BALANCED);
}

/* console.resume_reserve in bytes (checked when the config was read). */
static uint64_t
resume_reserve(const struct engine *c)
{
	uint64_t	 v;
	char		 why[128];

	if (memsize_parse(c->conf.console.resume_reserve, 0, &v, why,
	    sizeof(why)) == -1)
		return 256ULL << 20;
	return v;
}

/*
 * Hold each job that a node of it lacks room for (nodes_lacks, by its
 * JOB_MEM of the last timeout): in STATIC and BALANCED only, before the
 * packing.
 */
static void
hold_jobs(struct engine *c, int64_t now)
{
	struct matrix		*mx = &c->m.mx;
	const struct node	*n;
	const struct node_mem	*m;
	uint64_t		 reserve = resume_reserve(c);
	int			 i, k, j;

	for (i = 0; i < mx->nnodes && i < c->nodes.n; i++) {
		n = &c->nodes.v[i];
		for (k = 0; k < mx->node_njobs[i]; k++) {
			j = mx->node_job[i][k];
			m = nodes_mem_of(n, mx->job[j].name);
			if (m != NULL && m->lack && now - m->at <=
			    master_node_timeout(c))
				matrix_hold(mx, j, i, (uint64_t)n->st.mem_mib
				    << 20, m->swap_bytes + reserve);
		}
	}
}

/* Was job held at the last matrix?  Its index in c->m.held, or -1. */
static int
was_held(const struct engine *c, const char *job)
{
	int	 k;

	for (k = 0; k < c->m.nheld; k++)
		if (strncmp(c->m.held[k], job, PROTO_JOB_LEN) == 0)
			return k;
	return -1;
}

/* The holds said in the log once each way (info), then remembered. */
static void
hold_log(struct engine *c)
{
	const struct matrix	*mx = &c->m.mx;
	const struct matrix_job	*j;
	char			 fr[32], nd[32];
	int			 i, k, n = 0;

	for (k = 0; k < c->m.nheld; k++)
		if ((i = matrix_find(mx, c->m.held[k])) >= 0 &&
		    !mx->job[i].held)
			log_info("job %s resumed: every node of it has room "
			    "for it again", c->m.held[k]);
	for (i = 0; i < mx->njobs; i++) {
		j = &mx->job[i];
		if (!j->held || n == MASTER_HELD_MAX)
			continue;
		if (was_held(c, j->name) < 0)
			log_info("job %s held: node %s has %s free, under the "
			    "%s its swap there and console.resume_reserve "
			    "need: no slot, stopped on its nodes, until it "
			    "has room", j->name, c->nodes.v[j->held_node].name,
			    memsize_fmt(j->held_free, fr, sizeof(fr)),
			    memsize_fmt(j->held_need, nd, sizeof(nd)));
		memcpy(c->m.held[n++], j->name, PROTO_JOB_LEN);
	}
	c->m.nheld = n;
}

void
master_matrix(struct engine *c, int64_t now)
{
	struct matrix		*mx = &c->m.mx;
	const struct node	*n;
	int64_t			 timeout = master_node_timeout(c);
	char			 err[256];
	int			 i, k, nj;

	matrix_init(mx);
	for (i = 0; i < c->nodes.n && i < MATRIX_NODES_MAX; i++) {
		n = &c->nodes.v[i];
		if (!n->have_status || !nodes_live(n, now, timeout))
			continue;
		nj = n->st.njobs < PROTO_JOBS_MAX ? n->st.njobs :
		    PROTO_JOBS_MAX;
		for (k = 0; k < nj; k++) {
			if (n->st.job[k].members == 0)
				continue;
			if (matrix_add(mx, i, n->st.job[k].job, err,
			    sizeof(err)) == -1)
				log_debug("matrix: node %s: %s", n->name, err);
			else
				(void)matrix_node_weight(mx, n->st.job[k].job,
				    n->st.job[k].weight);
		}
	}
	jobw_apply(&c->jobw, mx);
	if (slotted(c))
		hold_jobs(c, now);
	matrix_pack(mx, (uint32_t)(sch_ps(&c->sch) / NS_PER_US));
	c->m.mx_tables = 0;
	for (i = 0; slotted(c) && i < c->nodes.n && i < MATRIX_NODES_MAX; i++)
		if (mx->node_njobs[i] >= 2)
			c->m.mx_tables = 1;
	for (i = 0; slotted(c) && i < mx->njobs && !c->m.mx_tables; i++)
		c->m.mx_tables = mx->job[i].held;
	hold_log(c);
}

int
master_table(const struct engine *c, int i,
    struct proto_slot slot[PROTO_JOBS_MAX])
{
	int	 n;

	if (!c->m.mx_tables) {
		memset(slot, 0, PROTO_JOBS_MAX * sizeof(slot[0]));
		return 0;
	}
	n = matrix_slots(&c->m.mx, i, slot, PROTO_JOBS_MAX);
	(void)matrix_held(&c->m.mx, i, slot + n, PROTO_JOBS_MAX - n);
	return n;
}

/* The held jobs master_table put after a table's nslots slots. */
static uint8_t
held_count(const struct proto_slot slot[PROTO_JOBS_MAX], int nslots)
{
	int	 k = nslots;

	while (k < PROTO_JOBS_MAX && slot[k].job[0] != '\0')
		k++;
	return (uint8_t)(k - nslots);
}

/* The index of the node at a in the node table, or -1. */
static int
node_index(const struct engine *c, struct in_addr a)
{
	return nodes_index(&c->nodes, a);
}

/*
 * Each destination its own SCHEDULE: base with its node's slot table.
 * Broadcast cannot address a node: every node heard gets its own, and a
 * STATUS_REQ goes to the broadcast addresses so that a node not heard
 * yet answers (its table goes out with the next SCHEDULE).
 */
static int
send_tables(struct engine *c, const struct proto_msg *base)
{
	struct in_addr		 dst[NET_DST_MAX];
	struct proto_msg	*msg, q = { .hdr.type = PROTO_STATUS_REQ };
	struct proto_schedule	*p;
	struct node		*n;
	int			 i, k, nd = 0, rc;

	if (c->net.how == NET_BROADCAST) {
		(void)net_send(&c->net, &q);
		for (i = 0; i < c->nodes.n && nd < NET_DST_MAX; i++)
			dst[nd++] = c->nodes.v[i].addr;
	} else
		nd = net_destinations(&c->net, dst, NET_DST_MAX);
	/* every entry is set below (not zeroed: 6 MB an SI at 10,000) */
	if (nd == 0 || (msg = malloc((size_t)nd * sizeof(*msg))) == NULL)
		return -1;
	for (i = 0; i < nd; i++) {
		msg[i] = *base;
		p = &msg[i].u.schedule;
		if ((k = node_index(c, dst[i])) < 0)
			continue;
		p->nslots = (uint8_t)master_table(c, k, p->slot);
		p->nheld = held_count(p->slot, p->nslots);
		n = &c->nodes.v[k];
		n->sent_nslots = p->nslots;
		memcpy(n->sent, p->slot, sizeof(n->sent));
	}
	rc = net_send_each(&c->net, dst, msg, nd);
	free(msg);
	return rc;
}

int
master_send_flags(struct engine *c, int flags, int64_t now)
{
	struct proto_msg	 m = { .hdr.type = PROTO_SCHEDULE };
	int			 i, n;

	if (net_keyless(&c->net, NULL, c->out.err,
	    sizeof(c->out.err)) == -1)
		return -1;
	/* the peer's schedule goes out */
	if (standby_following(&c->sb)) {
		c->m.next_si = 0;
		c->m.mx_pending = 0;
		return 0;
	}
	sch_message(&c->sch, (flags & MASTER_TABLES) ? 0 : SCHED_F_SYNC,
	    &m.u.schedule);
	m.u.schedule.flags |= (uint8_t)(flags & SCHED_F_TAKEOVER);
	/* on a grid: a late wake-up does not delay every later SI (with
	 * arrival sync each delay would move every node's slices) */
	if (!(flags & MASTER_TABLES)) {
		if (c->m.next_si != 0 && now >= c->m.next_si &&
		    now - c->m.next_si < c->sch.si)
			c->m.next_si += c->sch.si;
		else
			c->m.next_si = now + c->sch.si;
	}
	master_matrix(c, now);
	c->m.mx_pending = 0;
	c->m.last_send = now;
	/* the standby's copy first: its takeover is due 1.5 SI after it,
	 * and the nodes' silence runs from their own SCHEDULE, which at
	 * 10,000 nodes may leave a few hundred ms after the first */
	standby_forward(&c->sb, &m);
	if (c->m.mx_tables)
		n = send_tables(c, &m);
	else {
		for (i = 0; i < c->nodes.n; i++) {
			c->nodes.v[i].sent_nslots = 0;
			memset(c->nodes.v[i].sent, 0,
			    sizeof(c->nodes.v[i].sent));
		}
		/* console.group: one datagram for every node */
		n = !c->net.have_group ? net_send(&c->net, &m) :
		    net_send_to(&c->net, c->net.group, &m) == 0 ? 1 : -1;
	}
	if (n < 0)
		return out_err(&c->out, "no destination to send the schedule "
		    "to (see console.nodes, console.unicast)");
	return n;
}

/*
 * A STATUS came in while started: does a live node's table differ from
 * what it was last sent?
 */
static int
tables_changed(struct engine *c, int64_t now)
{
	struct proto_slot	 s[PROTO_JOBS_MAX];
	const struct node	*n;
	int			 i, k;

	master_matrix(c, now);
	for (i = 0; i < c->nodes.n && i < MATRIX_NODES_MAX; i++) {
		n = &c->nodes.v[i];
		if (!n->have_status || !nodes_live(n, now,
		    master_node_timeout(c)))
			continue;
		k = master_table(c, i, s);
		if (k != n->sent_nslots || memcmp(s, n->sent, sizeof(s)) != 0)
			return 1;
	}
	return 0;
}

/* Has the node at a answered the last SCHEDULE? */
static int
answered(const struct engine *c, struct in_addr a)
{
	int	 k = node_index(c, a);

	return k >= 0 && c->nodes.v[k].have_status &&
	    c->nodes.v[k].status_at >= c->m.last_send;
}

/*
 * The round of replies to the last SCHEDULE is in: every destination
 * (but broadcast addresses) and every live node answered it, or
 * console.status_wait is over.
 */
static int
round_in(const struct engine *c, int64_t now)
{
	struct in_addr		 dst[NET_DST_MAX];
	const struct node	*n;
	int			 i, nd;

	if (now >= c->m.last_send + c->conf.console.status_wait_ns)
		return 1;
	if (c->net.how != NET_BROADCAST) {
		nd = net_destinations(&c->net, dst, NET_DST_MAX);
		for (i = 0; i < nd; i++)
			if (!answered(c, dst[i]))
				return 0;
	}
	for (i = 0; i < c->nodes.n; i++) {
		n = &c->nodes.v[i];
		if (n->have_status &&
		    nodes_live(n, now, master_node_timeout(c)) &&
		    n->status_at < c->m.last_send)
			return 0;
	}
	return 1;
}

/*
 * A table changed: send it when the round is in, MASTER_TABLES_GAP_NS
 * after the last SCHEDULE at the soonest, without a SYNC.
 */
static void
tables_due(struct engine *c, int64_t now)
{
	if (!c->m.mx_pending || !c->sch.started || !round_in(c, now) ||
	    now < c->m.last_send + MASTER_TABLES_GAP_NS)
		return;
	if (master_send_flags(c, MASTER_TABLES, now) < 0)
		log_warnx("%s", c->out.err);
}

void
master_changed(struct engine *c, int rebase, int64_t now)
{
	if (rebase)
		sch_rebase(&c->sch, now_real_ns());
	if (c->sch.spoken && master_send(c, now) < 0)
		out_notice(&c->out, "%s", c->out.err);
}

/* The command of each round, for messages. */
static const char *const round_name[] = {
	[MASTER_STATUS] = "status", [MASTER_LOAD] = "load",
	[MASTER_METRICS] = "metrics", [MASTER_JOBS] = "jobs"
};

/*
 * `jobs` (signed): each job's memory with the round, JOB_MEM_REQ index 0
 * .. the most jobs a node had (all PROTO_JOBS_MAX before a matrix), one
 * datagram each for every destination; a node with fewer answers none.
 */
static void
jobs_mem_ask(struct engine *c)
{
	struct proto_msg	 q = { .hdr.type = PROTO_JOB_MEM_REQ };
	int			 k, most = c->m.mx.most > 0 ? c->m.mx.most :
	    PROTO_JOBS_MAX;

	for (k = 0; k < most && k < PROTO_JOBS_MAX; k++) {
		q.u.job_mem_req.index = (uint32_t)k;
		(void)net_send(&c->net, &q);
	}
}

int
master_status(struct engine *c, int what, int how, int64_t now)
{
	struct proto_msg	 m = { .hdr.type = what == MASTER_METRICS ?
	    PROTO_METRICS_REQ : PROTO_STATUS_REQ };
	int			 reader = 0;

	/* keyless: status and jobs as read requests (auth.h), nothing else */
	if ((what == MASTER_STATUS || what == MASTER_JOBS) &&
	    (reader = net_reader(&c->net, round_name[what], c->out.err,
	    sizeof(c->out.err))) == -1)
		return -1;
	if (!reader && net_keyless(&c->net, round_name[what], c->out.err,
	    sizeof(c->out.err)) == -1)
		return -1;
	if ((reader ? net_send_read(&c->net, &m) : net_send(&c->net, &m)) < 0)
		return out_err(&c->out, "%s: no destination to ask (see "
		    "console.nodes, console.unicast)", round_name[what]);
	if (what == MASTER_JOBS && !reader)
		jobs_mem_ask(c);
	c->m.status_what = what;
	c->m.status_since = now;
	c->m.status_until = now + c->conf.console.status_wait_ns;
	c->m.status_how = how;
	return 0;
}

int
master_metrics(struct engine *c, const char *path, int64_t now)
{
	if (path != NULL && metrics_open(&c->m.metrics, path, c->out.err,
	    sizeof(c->out.err)) == -1)
		return -1;
	if (master_status(c, MASTER_METRICS, 0, now) == -1) {
		metrics_abort(&c->m.metrics);
		return -1;
	}
	return 0;
}

int
master_trace(struct engine *c, const char *path, int64_t dur, int64_t now)
{
	if (net_keyless(&c->net, "trace", c->out.err,
	    sizeof(c->out.err)) == -1)
		return -1;
	return trace_begin(&c->m.trace, path, dur, now);
}

int
master_busy(const struct engine *c)
{
	return c->m.status_until != 0 || c->m.trace.state != TRACE_IDLE;
}

int
master_cancel(struct engine *c)
{
	int	 n = 0;

	if (c->m.status_until != 0) {
		c->m.status_until = 0;
		metrics_abort(&c->m.metrics);
		out_say(&c->out, "%s: interrupted; no %s",
		    round_name[c->m.status_what], c->m.status_what ==
		    MASTER_METRICS ? "file written" : "table");
		n++;
	}
	return n + trace_cancel(&c->m.trace);
}

/*
 * A node that followed this console now names another master: some
 * console took it over.  Say so once (the node refuses our schedules from
 * now on; `takeover` takes it back).
 */
static void
master_lost(struct engine *c, struct in_addr from,
    const struct proto_status *st)
{
	struct node	*n = nodes_get(&c->nodes, from);
	struct in_addr	 m = { .s_addr = htonl(st->master) };
	char		 a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN];

	if (n == NULL || !n->have_status || !(n->st.flags & STATUS_F_YOURS) ||
	    (st->flags & STATUS_F_YOURS) || st->master == 0)
		return;
	inet_ntop(AF_INET, &from, a, sizeof(a));
	inet_ntop(AF_INET, &m, b, sizeof(b));
	out_notice(&c->out, "node %s (%s) now follows the console at %s: this "
	    "console no longer commands it (takeover takes it back)",
	    n->name[0] != '\0' ? n->name : a, a, b);
}

/*
 * In a metrics round, a node that sent its METRICS is asked for its
 * jobs' counters one after the other: JOB_REQ index 0, 1, ... until its
 * count (nodes_job).
 */
static void
job_ask(struct engine *c, struct in_addr to, int index)
{
	struct proto_msg	 q = { .hdr.type = PROTO_JOB_REQ };

	if (c->m.status_until == 0 || c->m.status_what != MASTER_METRICS)
		return;
	q.u.job_req.index = (uint32_t)index;
	(void)net_send_to(&c->net, to, &q);
}

/* With each JOB of a metrics round, that job's memory: JOB_MEM_REQ. */
static void
job_mem_ask(struct engine *c, struct in_addr to, uint32_t index)
{
	struct proto_msg	 q = { .hdr.type = PROTO_JOB_MEM_REQ };

	if (c->m.status_until == 0 || c->m.status_what != MASTER_METRICS)
		return;
	q.u.job_mem_req.index = index;
	(void)net_send_to(&c->net, to, &q);
}

/*
 * Room (dts(8), MEMORY): a node whose STATUS says a job of it has pages
 * in swap (STATUS_F_SWAP) is asked for each of its jobs' memory, at most
 * once a MASTER_MEM_GAP_NS, while this console is the master; the JOB_MEM
 * replies say how much (nodes_mem_note).  A node without swap in use is
 * not asked (its jobs need no room: nodes_room), so a cluster that does
 * not swap costs no signature.
 */
static void
room_ask(struct engine *c, struct in_addr from, int64_t now)
{
	struct proto_msg	 q = { .hdr.type = PROTO_JOB_MEM_REQ };
	struct node		*n = nodes_find(&c->nodes, from);
	int			 k;

	if (n == NULL || !(n->st.flags & STATUS_F_SWAP) || !c->sch.started ||
	    c->net.keyless || standby_following(&c->sb) ||
	    (n->jm_asked != 0 && now - n->jm_asked < MASTER_MEM_GAP_NS))
		return;
	n->jm_asked = now;
	for (k = 0; k < n->st.njobs && k < PROTO_JOBS_MAX; k++)
		if (n->st.job[k].members > 0) {
			q.u.job_mem_req.index = (uint32_t)k;
			(void)net_send_to(&c->net, from, &q);
		}
}

/*
 * Does a STATUS from a live node list the jobs (with members or not) of
 * its last one?  Then the matrix cannot have changed by it, and the
 * reply costs no new matrix: at N nodes, rebuilding it at every reply
 * would make each SI cost N x the matrix (bench-scale).
 */
static int
same_jobs(const struct engine *c, struct in_addr from,
    const struct proto_status *st, int64_t now)
{
	const struct node	*n = nodes_find(&c->nodes, from);
	int			 k;

	if (n == NULL || !n->have_status || !nodes_live(n, now,
	    master_node_timeout(c)) || n->st.njobs != st->njobs ||
	    st->njobs > PROTO_JOBS_MAX)
		return 0;
	for (k = 0; k < st->njobs; k++)
		if ((n->st.job[k].members > 0) != (st->job[k].members > 0) ||
		    n->st.job[k].weight != st->job[k].weight ||
		    strncmp(n->st.job[k].job, st->job[k].job, PROTO_JOB_LEN)
		    != 0)
			return 0;
	return 1;
}

/*
 * Can a reply from the node at a have moved the RLA?  Only if the node
 * was not live, or has no Q, or its Q changed (was_q, was_live: before
 * the reply).  While a balanced round is held, every reply counts.
 */
static int
rla_moved(const struct engine *c, struct in_addr a, double was_q,
    int was_live)
{
	const struct node	*n = nodes_find(&c->nodes, a);

	return c->m.bal_until != 0 || n == NULL || !was_live || !n->have_q ||
	    n->q != was_q;
}

void
master_datagram(struct engine *c, const struct proto_msg *m,
    struct in_addr from, int64_t now)
{
	const struct node	*was = nodes_find(&c->nodes, from);
	struct node		*n;
	double			 was_q = was != NULL && was->have_q ? was->q :
	    -1;
	int			 i, same, was_live = was != NULL &&
	    nodes_live(was, now, master_node_timeout(c));

	switch (m->hdr.type) {
	case PROTO_STATUS:
		master_lost(c, from, &m->u.status);
		same = same_jobs(c, from, &m->u.status, now);
		if ((n = nodes_status(&c->nodes, from, &m->u.status, now)) !=
		    NULL && nodes_room(n, resume_reserve(c)))
			same = 0;	/* its room for a job changed */
		room_ask(c, from, now);
		if (c->sch.started && !c->m.mx_pending && !same &&
		    tables_changed(c, now))
			c->m.mx_pending = 1;
		tables_due(c, now);
		break;
	case PROTO_LOAD:
		nodes_load(&c->nodes, from, &m->u.load, now);
		break;
	case PROTO_METRICS:
		nodes_metrics(&c->nodes, from, &m->u.metrics, now);
		job_ask(c, from, 0);
		break;
	case PROTO_JOB:
		i = nodes_job(&c->nodes, from, &m->u.job, now);
		if (nodes_job_mem_due(&c->nodes, from, &m->u.job))
			job_mem_ask(c, from, m->u.job.index);
		if (i > 0)
			job_ask(c, from, i);
		return;
	case PROTO_JOB_MEM:
		(void)nodes_job_mem(&c->nodes, from, &m->u.job_mem, now);
		if (nodes_mem_note(&c->nodes, from, &m->u.job_mem,
		    resume_reserve(c), now) == 1 && c->sch.started &&
		    slotted(c))
			c->m.mx_pending = 1;	/* a hold may have changed */
		tables_due(c, now);
		return;
	case PROTO_TRACE:
		if (trace_datagram(&c->m.trace, &m->u.trace, from, now))
			master_finish(c, c->m.trace.rc);
		return;
	default:
		return;
	}
	/* master_balance scans the node table: at every one of N replies an
	 * SI it would cost O(N^2) (bench-scale); a reply that cannot move
	 * the RLA skips it (expiry and held rounds have their timers) */
	if (c->sch.mode == MODE_BALANCED && rla_moved(c, from, was_q,
	    was_live))
		master_balance(c, now);
}

int
master_input(struct engine *c, int64_t now)
{
	struct proto_msg	 m;
	struct sockaddr_in	 from;
	int			 i, rc;

	/* 256 at most, then the other fds; but never leave datagrams
	 * already read in net's batch: poll() does not see those */
	for (i = 0; i < 256 || net_pending(&c->net) > 0; i++) {
		rc = net_recv(&c->net, &m, &from);
		if (c->net.stepped_us != 0) {
			out_notice(&c->out, "the real-time clock was stepped "
			    "by %+.3f s: nodes already heard are not affected",
			    (double)c->net.stepped_us / 1e6);
			c->net.stepped_us = 0;
		}
		if (rc == 0)
			return i;
		if (rc == 1)
			master_datagram(c, &m, from.sin_addr, now);
	}
	return i;
}

/*
 * The schedule that makes the mode balanced, or starts it, went out at
 * now: every node answers it.  Had the first reply decided, its node's Q
 * alone would choose the cluster's PS; so the decision waits for the
 * round, console.status_wait, as `status` does.
 */
static void
balance_hold(struct engine *c, int64_t now)
{
	c->m.bal_since = now;
	c->m.bal_until = now + c->conf.console.status_wait_ns;
	c->m.bal_known = c->nodes.n;
}

/*
 * Is the decision still waiting at now?  The round ends when its time is
 * over, or earlier when every node known as it began has answered: nodes
 * never leave the table and a node new to it was heard in the round, so
 * that is every node in the table heard since.  With no node known, how
 * many will answer is unknown: the round lasts its whole time.
 */
static int
balance_held(struct engine *c, int64_t now)
{
	int	 i;

	if (c->m.bal_until == 0)
		return 0;
	if (now < c->m.bal_until) {
		if (c->m.bal_known == 0)
			return 1;
		for (i = 0; i < c->nodes.n; i++)
			if (c->nodes.v[i].heard < c->m.bal_since)
				return 1;
	}
	c->m.bal_until = 0;
	return 0;
}

void
master_balance(struct engine *c, int64_t now)
{
	char	 err[512], rla[32], ps[32];
	double	 x;
	int	 old = c->sch.bal_ls_pct, held;

	bal_rla(&c->nodes, &c->weights, &c->hosts, now,
	    master_node_timeout(c), &c->m.rla);
	c->m.expiry = nodes_next_expiry(&c->nodes, now, master_node_timeout(c));
	held = balance_held(c, now);
	if (c->sch.mode != MODE_BALANCED || held || c->m.rla.nlive == 0)
		return;
	x = c->conf.console.rla == RLA_MAX ? c->m.rla.max : c->m.rla.mean;
	if (!bal_step(&c->bal, x, &c->sch.table, c->conf.console.hysteresis))
		return;
	if (sch_set_balanced_ls(&c->sch, c->bal.ls_pct, err,
	    sizeof(err)) == -1) {
		/* cannot happen: the mode was checked */
		out_notice(&c->out, "%s", err);
		return;
	}
	if (old == c->sch.bal_ls_pct)
		return;
	snprintf(rla, sizeof(rla), "%.2f", x);
	out_notice(&c->out, "balanced: RLA %s over %d node%s: LS %d%%, PS %s",
	    rla, c->m.rla.nlive, c->m.rla.nlive == 1 ? "" : "s",
	    c->sch.bal_ls_pct, duration_format(sch_ps(&c->sch), ps,
	    sizeof(ps)));
	master_changed(c, 1, now);
}

void
master_mode_changed(struct engine *c, int64_t now)
{
	bal_reset(&c->bal);
	c->m.bal_until = 0;
	if (c->sch.mode == MODE_BALANCED) {
		balance_hold(c, now);
		master_balance(c, now);
	}
}

void
master_started(struct engine *c, int64_t now)
{
	if (c->sch.mode == MODE_BALANCED)
		balance_hold(c, now);
}

void
master_timer(struct engine *c, int64_t now)
{
	if (c->m.status_until != 0 && now >= c->m.status_until) {
		c->m.status_until = 0;
		master_finish(c, c->report != NULL ? c->report(c, now) : 0);
	}
	if (c->sch.spoken && c->m.next_si != 0 && now >= c->m.next_si &&
	    master_send(c, now) < 0)
		log_warnx("%s", c->out.err);
	tables_due(c, now);
	if ((c->m.expiry != 0 && now >= c->m.expiry) ||
	    (c->m.bal_until != 0 && now >= c->m.bal_until))
		master_balance(c, now);
	if (trace_timer(&c->m.trace, now))
		master_finish(c, c->m.trace.rc);
	standby_timer(&c->sb, now);
}

static int64_t
earliest(int64_t a, int64_t b)
{
	if (a == 0)
		return b;
	if (b == 0)
		return a;
	return a < b ? a : b;
}

int64_t
master_deadline(const struct engine *c)
{
	int64_t	 t = 0;

	if (c->sch.spoken)
		t = earliest(t, c->m.next_si);
	t = earliest(t, c->m.status_until);
	t = earliest(t, trace_deadline(&c->m.trace));
	t = earliest(t, c->m.bal_until);
	if (c->m.mx_pending && c->sch.started)
		t = earliest(t, c->m.last_send +
		    (c->conf.console.status_wait_ns > MASTER_TABLES_GAP_NS ?
		    c->conf.console.status_wait_ns : MASTER_TABLES_GAP_NS));
	t = earliest(t, standby_deadline(&c->sb));
	return earliest(t, c->m.expiry);
}
