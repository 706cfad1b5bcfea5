/*
 * console.c - the shared state of dts-console.  See console.h.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "console.h"
#include "timeutil.h"

/* The union's two views of the engine are one (console.h). */
_Static_assert(offsetof(struct console, report) ==
    offsetof(struct engine, report) && offsetof(struct console, sb) ==
    offsetof(struct engine, sb), "ENGINE_MEMBERS laid out twice");

/* The engine's lines of output, on the console's. */
static void
con_say(struct out *o, const char *line)
{
	if (o->f == NULL)
		return;
	fprintf(o->f, "%s\n", line);
	fflush(o->f);
}

void
con_init(struct console *c, const struct dts_conf *conf, FILE *out)
{
	memset(c, 0, sizeof(*c));
	c->conf = *conf;
	c->out.f = out;
	c->net.fd = -1;
	c->sb.fd = -1;
	c->out.say = con_say;
	c->report = con_report;
	sch_init(&c->sch, conf);
	bal_reset(&c->bal);
}

int64_t
con_node_timeout(const struct console *c)
{
	return master_node_timeout(&c->e);
}

void
con_report_src(const struct engine *c, struct report_src *s)
{
	s->conf = &c->conf;
	s->sch = &c->sch;
	s->nodes = &c->nodes;
	s->weights = &c->weights;
	s->hosts = &c->hosts;
	s->net = &c->net;
	s->node_timeout = master_node_timeout(c);
	s->mx = &c->m.mx;
	s->mx_tables = c->m.mx_tables;
	s->jobw = &c->jobw;
	s->own = c->own;
}

void
master_report_src(const struct console *c, struct report_src *s)
{
	con_report_src(&c->e, s);
}

/* The metrics round is over: the exposition, to the file or the output. */
static int
metrics_report(struct engine *c)
{
	struct report_src	 src;
	FILE			*f = c->m.metrics.f;
	char			 w[32];
	int			 n;

	con_report_src(c, &src);
	n = report_metrics(f != NULL ? f : c->out.f, &src, c->m.status_since);
	if (f != NULL && metrics_commit(&c->m.metrics, c->out.err,
	    sizeof(c->out.err)) == -1)
		return -1;
	fflush(c->out.f);
	if (n == 0)
		return out_err(&c->out, "metrics: no node answered within %s",
		    duration_format(c->conf.console.status_wait_ns, w,
		    sizeof(w)));
	return 0;
}

/* Nodes whose STATUS came since `since`. */
static int
nodes_answered(const struct engine *c, int64_t since)
{
	int	 i, n = 0;

	for (i = 0; i < c->nodes.n; i++)
		n += c->nodes.v[i].have_status &&
		    c->nodes.v[i].status_at >= since;
	return n;
}

/*
 * A keyless console's answers came under a read key, which every local
 * user of a cluster host can derive (auth.h): say so beside them, on the
 * output before a table, as a notice beside a JSON document.
 */
static void
read_only(struct engine *c)
{
	static const char	 line[] = "read-only: a keyless console's "
	    "answers are authenticated only by the read key, which any local "
	    "user of a cluster host can derive (and so could forge them)";

	if (!c->net.keyless)
		return;
	if (c->m.status_how & MASTER_JSON)
		out_notice(&c->out, "%s", line);
	else
		fprintf(c->out.f, "%s\n", line);
}

/* A status round is over: the status, load or jobs table. */
int
con_report(struct engine *c, int64_t now)
{
	struct report_src	 src;
	struct rla		 r;
	char			 w[32];

	if (c->m.status_what == MASTER_METRICS)
		return metrics_report(c);
	read_only(c);
	con_report_src(c, &src);
	if (c->m.status_what == MASTER_LOAD) {
		bal_rla(&c->nodes, &c->weights, &c->hosts, now,
		    master_node_timeout(c), &r);
		if (c->m.status_how & MASTER_JSON)
			report_load_json(c->out.f, &src, &r, now);
		else
			report_load(c->out.f, &src, &r, now);
		return 0;
	}
	if (c->m.status_what == MASTER_JOBS) {
		master_matrix(c, now);
		con_report_src(c, &src);
		if (c->m.status_how & MASTER_JSON)
			report_jobs_json(c->out.f, &src);
		else
			report_jobs(c->out.f, &src);
		if (nodes_answered(c, c->m.status_since) > 0)
			return 0;
		return out_err(&c->out, "jobs: no node answered within %s",
		    duration_format(c->conf.console.status_wait_ns, w,
		    sizeof(w)));
	}
	if (c->m.status_how & MASTER_JSON) {
		if (report_status_json(c->out.f, &src, c->m.status_since,
		    now) > 0)
			return 0;
	} else if (report_status(c->out.f, &src, c->m.status_since,
	    c->m.status_how & MASTER_VERBOSE, now) > 0)
		return 0;
	return out_err(&c->out, "status: no node answered within %s",
	    duration_format(c->conf.console.status_wait_ns, w, sizeof(w)));
}

