/*
 * trace.c - record the nodes' slice edges to a CSV file.  See trace.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "console.h"
#include "timeutil.h"
#include "trace.h"

int
trace_cmd(struct console *c, int argc, char **argv)
{
	struct trace_run *t = &c->m.trace;
	struct proto_msg m = { .hdr.type = PROTO_STATUS_REQ };
	int64_t dur = TRACE_DUR_DEFAULT, now = now_mono_ns();
	char err[256], b[32];

	if (argc > 2 && duration_parse(argv[2], &dur, err, sizeof(err)) < 0)
		return con_err(c, "trace: %s", err);
	if (dur <= 0 || dur > TRACE_DUR_MAX)
		return con_err(c, "trace: %s is out of range (0, 60s]",
		    duration_format(dur, b, sizeof(b)));
	if ((t->f = fopen(argv[1], "w")) == NULL)
		return con_err(c, "trace: %s: %s", argv[1], strerror(errno));
	fprintf(t->f, "host,addr,phase,real_ns,late_ns,op_ns\n");
	/* nodes that have not spoken yet answer this and so become known */
	if (net_send(&c->net, &m) < 0) {
		fclose(t->f);
		t->f = NULL;
		return con_err(c, "trace: no destination to ask (see "
		    "console.nodes, console.unicast)");
	}
	t->state = TRACE_RECORDING;
	t->since_real = now_real_ns();
	t->end_real = t->since_real + dur;	/* exact, however late we wake */
	t->until = now + dur;
	t->edges = 0;
	fprintf(c->out, "trace: recording the slice edges of every node for "
	    "%s into %s\n", duration_format(dur, b, sizeof(b)), argv[1]);
	return 0;
}

static void
ask(struct console *c, int i)
{
	struct trace_run *t = &c->m.trace;
	struct proto_msg m = { .hdr.type = PROTO_TRACE_REQ };

	m.u.trace_req.since_ns = t->node[i].cursor;
	(void)net_send_to(&c->net, t->node[i].addr, &m);
}

static void
finish(struct console *c, int rc)
{
	struct trace_run *t = &c->m.trace;

	if (fclose(t->f) != 0 && rc == 0)
		rc = con_err(c, "trace: writing the file failed");
	t->f = NULL;
	t->state = TRACE_IDLE;
	if (rc == 0)
		fprintf(c->out, "trace: %llu edges from %d node%s\n",
		    (unsigned long long)t->edges, t->n, t->n == 1 ? "" : "s");
	c->m.async_rc = rc;
	c->m.async_done = 1;
}

/* Recording is over: ask every node heard since it began. */
static void
start_fetch(struct console *c, int64_t now)
{
	struct trace_run *t = &c->m.trace;

	t->n = 0;
	for (int i = 0; i < c->nodes.n && t->n < NODES_MAX; i++) {
		const struct node *nd = &c->nodes.v[i];
		t->node[t->n].addr = nd->addr;
		snprintf(t->node[t->n].name, sizeof(t->node[t->n].name), "%s",
		    nd->name[0] ? nd->name : inet_ntoa(nd->addr));
		t->node[t->n].cursor = (uint64_t)t->since_real;
		t->node[t->n].done = 0;
		t->n++;
	}
	if (t->n == 0) {
		finish(c, con_err(c, "trace: no node answered"));
		return;
	}
	t->left = t->n;
	t->state = TRACE_FETCHING;
	t->deadline = now + TRACE_FETCH_WAIT;
	t->reask = now + TRACE_ASK_AGAIN;
	for (int i = 0; i < t->n; i++)
		ask(c, i);
}

void
trace_datagram(struct console *c, const struct proto_trace *pt,
    struct in_addr from, int64_t now)
{
	struct trace_run *t = &c->m.trace;
	int i;

	if (t->state != TRACE_FETCHING)
		return;
	for (i = 0; i < t->n && t->node[i].addr.s_addr != from.s_addr; i++)
		;
	if (i == t->n || t->node[i].done)
		return;
	for (uint32_t k = 0; k < pt->count; k++) {
		const struct proto_edge *e = &pt->edge[k];
		if (e->real_ns <= t->node[i].cursor)
			continue;	/* a duplicate answer */
		t->node[i].cursor = e->real_ns;
		if ((int64_t)e->real_ns > t->end_real)
			continue;
		fprintf(t->f, "%s,%s,%s,%llu,%u,%u\n", t->node[i].name,
		    inet_ntoa(from), proto_phase_name(e->phase),
		    (unsigned long long)e->real_ns, e->late_ns, e->op_ns);
		t->edges++;
	}
	if (pt->more && pt->count > 0 && (int64_t)t->node[i].cursor < t->end_real) {
		t->deadline = now + TRACE_FETCH_WAIT;
		t->reask = now + TRACE_ASK_AGAIN;
		ask(c, i);
		return;
	}
	t->node[i].done = 1;
	if (--t->left == 0)
		finish(c, 0);
}

void
trace_timer(struct console *c, int64_t now)
{
	struct trace_run *t = &c->m.trace;

	if (t->state == TRACE_RECORDING && now >= t->until) {
		start_fetch(c, now);
	} else if (t->state == TRACE_FETCHING && now >= t->reask &&
	    now < t->deadline) {
		/* no answer yet: the ask or the answer was lost (a node's
		 * rate limit, a full socket buffer); ask again */
		for (int i = 0; i < t->n; i++)
			if (!t->node[i].done)
				ask(c, i);
		t->reask = now + TRACE_ASK_AGAIN;
	} else if (t->state == TRACE_FETCHING && now >= t->deadline)
		finish(c, con_err(c, "trace: %d of %d nodes did not answer "
		    "(%llu edges written)", t->left, t->n,
		    (unsigned long long)t->edges));
}

int64_t
trace_deadline(const struct console *c)
{
	const struct trace_run *t = &c->m.trace;

	if (t->state == TRACE_RECORDING)
		return t->until;
	if (t->state == TRACE_FETCHING)
		return t->reask < t->deadline ? t->reask : t->deadline;
	return 0;
}
