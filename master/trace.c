/*
 * trace.c - record the nodes' slice edges to a CSV file.  See trace.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "log.h"
#include "timeutil.h"
#include "trace.h"

void
trace_init(struct trace_run *t, struct net *net, const struct nodes *nodes,
    struct out *out)
{
	memset(t, 0, sizeof(*t));
	t->net = net;
	t->nodes = nodes;
	t->out = out;
}

int
trace_begin(struct trace_run *t, const char *path, int64_t dur,
    int64_t now)
{
	struct proto_msg m = { .hdr.type = PROTO_STATUS_REQ };
	char b[32];

	if ((t->f = fopen(path, "w")) == NULL)
		return out_err(t->out, "trace: %s: %s", path,
		    strerror(errno));
	snprintf(t->path, sizeof(t->path), "%s", path);
	fprintf(t->f, "host,addr,phase,real_ns,late_ns,op_ns\n");
	/* nodes that have not spoken yet answer this and so become known */
	if (net_send(t->net, &m) < 0) {
		fclose(t->f);
		t->f = NULL;
		return out_err(t->out, "trace: no destination to ask (see "
		    "console.nodes, console.unicast)");
	}
	t->state = TRACE_RECORDING;
	t->since_real = now_real_ns();
	/* exact, however late we wake */
	t->end_real = t->since_real + dur;
	t->until = now + dur;
	t->edges = 0;
	out_say(t->out, "trace: recording the slice edges of every node "
	    "for %s into %s", duration_format(dur, b, sizeof(b)), path);
	return 0;
}

static void
ask(struct trace_run *t, int i)
{
	struct proto_msg m = { .hdr.type = PROTO_TRACE_REQ };

	m.u.trace_req.since_ns = t->node[i].cursor;
	(void)net_send_to(t->net, t->node[i].addr, &m);
}

/* The run is over with rc; returns 1 for the caller to pass on. */
static int
finish(struct trace_run *t, int rc)
{
	if (fclose(t->f) != 0 && rc == 0)
		rc = out_err(t->out, "trace: writing the file failed");
	t->f = NULL;
	t->state = TRACE_IDLE;
	if (rc == 0)
		out_say(t->out, "trace: %llu edges from %d node%s",
		    (unsigned long long)t->edges, t->n, t->n == 1 ? "" : "s");
	t->rc = rc;
	return 1;
}

/* Recording is over: ask every node heard since it began. */
static int
start_fetch(struct trace_run *t, int64_t now)
{
	t->n = 0;
	for (int i = 0; i < t->nodes->n && t->n < NODES_MAX; i++) {
		const struct node *nd = &t->nodes->v[i];
		t->node[t->n].addr = nd->addr;
		snprintf(t->node[t->n].name, sizeof(t->node[t->n].name), "%s",
		    nd->name[0] ? nd->name : inet_ntoa(nd->addr));
		t->node[t->n].cursor = (uint64_t)t->since_real;
		t->node[t->n].done = 0;
		t->n++;
	}
	if (t->n == 0)
		return finish(t, out_err(t->out, "trace: no node answered"));
	t->left = t->n;
	t->state = TRACE_FETCHING;
	t->deadline = now + TRACE_FETCH_WAIT;
	t->reask = now + TRACE_ASK_AGAIN;
	for (int i = 0; i < t->n; i++)
		ask(t, i);
	return 0;
}

int
trace_datagram(struct trace_run *t, const struct proto_trace *pt,
    struct in_addr from, int64_t now)
{
	int i;

	if (t->state != TRACE_FETCHING)
		return 0;
	for (i = 0; i < t->n && t->node[i].addr.s_addr != from.s_addr; i++)
		;
	if (i == t->n || t->node[i].done)
		return 0;
	for (uint32_t k = 0; k < pt->count; k++) {
		const struct proto_edge *e = &pt->edge[k];
		if (e->real_ns <= t->node[i].cursor)
			continue;	/* a duplicate answer */
		t->node[i].cursor = e->real_ns;
		if ((int64_t)e->real_ns > t->end_real)
			continue;
		fprintf(t->f, "%s,%s,%s,%llu,%u,%u\n", t->node[i].name,
		    inet_ntoa(from), proto_edge_name(e->phase),
		    (unsigned long long)e->real_ns, e->late_ns, e->op_ns);
		t->edges++;
	}
	if (pt->more && pt->count > 0 &&
	    (int64_t)t->node[i].cursor < t->end_real) {
		t->deadline = now + TRACE_FETCH_WAIT;
		t->reask = now + TRACE_ASK_AGAIN;
		ask(t, i);
		return 0;
	}
	t->node[i].done = 1;
	return --t->left == 0 ? finish(t, 0) : 0;
}

int
trace_timer(struct trace_run *t, int64_t now)
{
	if (t->state == TRACE_RECORDING && now >= t->until)
		return start_fetch(t, now);
	if (t->state == TRACE_FETCHING && now >= t->reask &&
	    now < t->deadline) {
		/* no answer yet: the ask or the answer was lost (a node's
		 * rate limit, a full socket buffer); ask again */
		for (int i = 0; i < t->n; i++)
			if (!t->node[i].done)
				ask(t, i);
		t->reask = now + TRACE_ASK_AGAIN;
	} else if (t->state == TRACE_FETCHING && now >= t->deadline)
		return finish(t, out_err(t->out, "trace: %d of %d nodes did "
		    "not answer (%llu edges written)", t->left, t->n,
		    (unsigned long long)t->edges));
	return 0;
}

int64_t
trace_deadline(const struct trace_run *t)
{
	if (t->state == TRACE_RECORDING)
		return t->until;
	if (t->state == TRACE_FETCHING)
		return t->reask < t->deadline ? t->reask : t->deadline;
	return 0;
}

int
trace_cancel(struct trace_run *t)
{
	if (t->state == TRACE_IDLE)
		return 0;
	if (fclose(t->f) != 0)
		log_warn("trace: %s", t->path);
	t->f = NULL;
	out_say(t->out, "trace: interrupted %s; %s keeps the %llu edges "
	    "written", t->state == TRACE_RECORDING ? "while recording" :
	    "while fetching", t->path, (unsigned long long)t->edges);
	t->state = TRACE_IDLE;
	return 1;
}
