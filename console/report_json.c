/*
 * report_json.c - status, load and show as one JSON document each, for
 * scripts (`status --json` and so on).  The same const data as the
 * tables (report.c); the schema is in dts-console(1), JSON OUTPUT.
 *
 * Built with jansson, Debian's libjansson: it escapes strings, writes
 * numbers JSON can read back and keeps the keys in the order they are
 * set, which a hand-written printf writer would each have to get right.
 * Durations are whole microseconds (_us) or nanoseconds (_ns); times
 * since an event are seconds (_s); absent values are null.
 *
 * Reals are printed with 15 significant digits (JSON_REAL_PRECISION), not
 * jansson's default 17: a double holds any 15-digit decimal exactly, so a
 * time since an event, whole nanoseconds divided by 1e9, prints as those
 * nanoseconds ("0.299656501", not "0.29965650100000002") up to 11 days,
 * and a load index (thousandths) as its thousandths.
 */
#include <arpa/inet.h>
#include <jansson.h>
#include <stdio.h>

#include "report.h"
#include "timeutil.h"

#define NREJ(a)	((int)(sizeof(a) / sizeof((a)[0])))

/* json_dumpf's flags for every document of the console */
#define JSON_FLAGS	(JSON_INDENT(2) | JSON_REAL_PRECISION(15))

static void
set(json_t *o, const char *key, json_t *v)
{
	(void)json_object_set_new(o, key, v != NULL ? v : json_null());
}

static json_t *
addr_json(struct in_addr a)
{
	char	 buf[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &a, buf, sizeof(buf));
	return json_string(buf);
}

static json_t *
ago_json(int64_t then, int64_t now)
{
	return then == 0 ? json_null() :
	    json_real((double)(now - then) / NS_PER_SEC);
}

/* {"reason": count, ...} over the rejection reasons */
static json_t *
reasons_json(const uint32_t *v32, const uint64_t *v64, int n)
{
	json_t	*o = json_object();
	int	 i;

	for (i = 0; i < n; i++)
		set(o, proto_reject_name((unsigned)i), json_integer(
		    v32 != NULL ? (json_int_t)v32[i] : (json_int_t)v64[i]));
	return o;
}

static json_t *
master_json(const struct proto_status *st)
{
	char	 buf[INET_ADDRSTRLEN];

	return report_master(st, buf, sizeof(buf)) != NULL ?
	    json_string(buf) : NULL;
}

static json_t *
skew_json(const struct node *n, const struct node *ref)
{
	double	 us;

	return report_skew(n, ref, &us) == 0 ? json_real(us) : NULL;
}

/* [{"job": "alice:pvm", "members": 4}, ...] */
static json_t *
jobs_json(const struct proto_status *st)
{
	json_t	*a = json_array(), *o;
	char	 name[PROTO_JOB_LEN];
	int	 i, n = st->njobs < PROTO_JOBS_MAX ? st->njobs : PROTO_JOBS_MAX;

	for (i = 0; i < n; i++) {
		o = json_object();
		set(o, "job", json_string(report_job_name(st->job[i].job,
		    name)));
		set(o, "members", json_integer(st->job[i].members));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *
node_status_json(const struct node *n, const struct node *ref, int answered,
    int64_t now)
{
	const struct proto_status	*st = &n->st;
	json_t				*o = json_object();

	set(o, "host", n->name[0] != '\0' ? json_string(n->name) : NULL);
	set(o, "address", addr_json(n->addr));
	set(o, "answered", json_boolean(answered));
	set(o, "heard_s", ago_json(n->heard, now));
	if (!answered)
		return o;
	set(o, "mode", json_string(proto_mode_name(st->mode)));
	set(o, "slicing", json_boolean(st->flags & SCHED_F_ACTIVE));
	set(o, "own_schedule", json_boolean(st->flags & STATUS_F_OWN));
	set(o, "sync", json_string(proto_sync_name(st->sync)));
	set(o, "ls_policy", json_string(conf_ls_policy_names[
	    st->flags & STATUS_F_LS_IDLE ? LS_IDLE : LS_STOP]));
	set(o, "phase", json_string(proto_phase_name(st->phase)));
	set(o, "ps_us", json_integer(st->ps_us));
	set(o, "ls_us", json_integer(st->ip_us > st->ps_us ?
	    st->ip_us - st->ps_us : 0));
	set(o, "ip_us", json_integer(st->ip_us));
	set(o, "si_us", json_integer(st->si_us));
	set(o, "q", json_real(st->load_milli / 1000.0));
	set(o, "members", json_integer(st->members));
	set(o, "slices", json_integer((json_int_t)st->slices));
	set(o, "overruns", json_integer((json_int_t)st->overruns));
	set(o, "rejected_total", json_integer((json_int_t)report_rejected(st)));
	set(o, "rejected", reasons_json(st->rejected, NULL,
	    NREJ(st->rejected)));
	set(o, "queue_full", json_integer(st->queue_full));
	set(o, "skew_us", skew_json(n, ref));
	set(o, "master", master_json(st));
	set(o, "jobs", jobs_json(st));
	return o;
}

static int
dump(FILE *f, json_t *root)
{
	int	 rc;

	rc = json_dumpf(root, f, JSON_FLAGS);
	json_decref(root);
	fputc('\n', f);
	fflush(f);
	return rc;
}

int
report_status_json(FILE *f, const struct report_src *s, int64_t since,
    int64_t now)
{
	const struct node	*ref = nodes_reference(s->nodes, since);
	json_t			*root = json_object(), *a = json_array();
	int			 i, answered = 0;

	for (i = 0; i < s->nodes->n; i++) {
		const struct node *n = &s->nodes->v[i];
		int ok = n->have_status && n->status_at >= since;

		answered += ok;
		json_array_append_new(a, node_status_json(n, ref, ok, now));
	}
	set(root, "nodes", a);
	set(root, "answered", json_integer(answered));
	set(root, "status_wait_ns",
	    json_integer(s->conf->console.status_wait_ns));
	set(root, "skew_reference", ref != NULL ? addr_json(ref->addr) : NULL);
	set(root, "console_dropped_total",
	    json_integer((json_int_t)net_dropped_total(s->net)));
	set(root, "console_dropped", reasons_json(NULL, s->net->dropped,
	    NREJ(s->net->dropped)));
	dump(f, root);
	return answered;
}

void
report_load_json(FILE *f, const struct report_src *s, const struct rla *r,
    int64_t now)
{
	json_t		*root = json_object(), *a = json_array(), *o, *b;
	const char	*src;
	double		 w;
	int		 i;

	for (i = 0; i < s->nodes->n; i++) {
		const struct node *n = &s->nodes->v[i];

		w = bal_weight(s->weights, s->hosts, n, &src);
		o = json_object();
		set(o, "host", n->name[0] != '\0' ? json_string(n->name) :
		    NULL);
		set(o, "address", addr_json(n->addr));
		set(o, "q", n->have_q ? json_real(n->q) : NULL);
		set(o, "w", json_real(w));
		set(o, "w_from", json_string(src));
		set(o, "q_per_w", n->have_q ? json_real(n->q / w) : NULL);
		set(o, "live", json_boolean(nodes_live(n, now,
		    s->node_timeout)));
		set(o, "heard_s", ago_json(n->heard, now));
		json_array_append_new(a, o);
	}
	set(root, "nodes", a);
	set(root, "mode", json_string(proto_mode_name(
	    (unsigned)s->sch->mode)));
	o = NULL;
	if (r->nlive > 0) {
		o = json_object();
		set(o, "mean", json_real(r->mean));
		set(o, "max", json_real(r->max));
		set(o, "live_nodes", json_integer(r->nlive));
	}
	set(root, "rla", o);
	b = NULL;
	if (s->sch->mode == MODE_BALANCED && s->sch->bal_ls_pct >= 0) {
		b = json_object();
		set(b, "uses", json_string(
		    conf_rla_names[s->conf->console.rla]));
		set(b, "ls_pct", json_integer(s->sch->bal_ls_pct));
		set(b, "ps_us", json_integer(sch_ps(s->sch) / NS_PER_US));
	}
	set(root, "balanced", b);
	dump(f, root);
}

/* What the nodes heard from run: report_runs's groups. */
static json_t *
runs_json(const struct nodes *ns)
{
	struct report_run	 r[REPORT_RUNS_MAX];
	struct in_addr		 m;
	json_t			*a = json_array(), *o;
	int			 i, n = report_runs(ns, r, REPORT_RUNS_MAX);

	for (i = 0; i < n; i++) {
		o = json_object();
		set(o, "mode", json_string(proto_mode_name(r[i].mode)));
		set(o, "ps_us", json_integer(r[i].ps_us));
		set(o, "ip_us", json_integer(r[i].ip_us));
		set(o, "slicing", json_boolean(r[i].slicing));
		set(o, "own_schedule", json_boolean(r[i].own));
		m.s_addr = htonl(r[i].master);
		set(o, "master", r[i].master != 0 ? addr_json(m) : NULL);
		set(o, "nodes", json_integer(r[i].nodes));
		set(o, "others", json_integer(r[i].others));
		json_array_append_new(a, o);
	}
	return a;
}

/* show's key, as its text says it: null without one (insecure, or a
 * keyless console), else the files it signs with and checks under. */
static json_t *
key_json(const struct dts_conf *conf, const struct net *net)
{
	json_t	*o;

	if (conf->insecure || net->keyless)
		return NULL;
	o = json_object();
	set(o, "sign_key", json_string(conf->console.sign_key));
	set(o, "node_secret", json_string(conf->console.node_secret));
	return o;
}

void
report_show_json(FILE *f, const struct report_src *src)
{
	const struct sch	*s = src->sch;
	const struct dts_conf	*conf = src->conf;
	json_t			*root = json_object(), *o, *a;
	char			 b[300];
	int			 i;

	set(root, "mode", json_string(proto_mode_name((unsigned)s->mode)));
	set(root, "ip_us", json_integer(s->ip / NS_PER_US));
	set(root, "ps_us", json_integer(sch_user_ps(s) / NS_PER_US));
	set(root, "ps", json_string(sch_ps_text(s, b, sizeof(b))));
	set(root, "ls_us", json_integer((s->ip - sch_user_ps(s)) /
	    NS_PER_US));
	set(root, "balanced_ls_pct", s->mode == MODE_BALANCED &&
	    s->bal_ls_pct >= 0 ? json_integer(s->bal_ls_pct) : NULL);
	set(root, "si_us", json_integer(s->si / NS_PER_US));
	set(root, "sync", json_string(proto_sync_name((unsigned)s->sync)));
	set(root, "ls_policy", json_string(conf_ls_policy_names[
	    s->ls_idle ? LS_IDLE : LS_STOP]));
	set(root, "rla", json_string(conf_rla_names[conf->console.rla]));
	set(root, "hysteresis", json_real(conf->console.hysteresis));
	set(root, "timeout_ns", json_integer(conf->console.timeout_ns));
	set(root, "timeout_in_force_ns", json_integer(src->node_timeout));
	set(root, "status_wait_ns",
	    json_integer(conf->console.status_wait_ns));
	o = json_object();
	for (i = 0; i < src->weights->n; i++)
		set(o, src->weights->v[i].host,
		    json_real(src->weights->v[i].w));
	set(root, "weights", o);
	o = json_object();
	for (i = 0; i < src->jobw->n; i++)
		set(o, src->jobw->name[i], json_integer(src->jobw->w[i]));
	set(root, "job_weights", o);
	a = json_array();
	for (i = 0; i < s->table.n; i++)
		json_array_append_new(a, json_integer(s->table.ls_pct[i]));
	o = json_object();
	set(o, "ls_pct", a);
	set(o, "step", json_real(s->table.step));
	set(root, "table", o);
	set(root, "nodes", json_string(net_describe(src->net, b,
	    sizeof(b))));
	set(root, "key", key_json(conf, src->net));
	set(root, "state", json_string(s->started ? "started" : s->spoken ?
	    "stopped" : "not started"));
	set(root, "values", json_string(report_show_whose(s)));
	set(root, "sent", json_boolean(s->spoken));
	set(root, "nodes_run", runs_json(src->nodes));
	dump(f, root);
}
