/*
 * report.c - status, load and show tables.  See report.h.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "timeutil.h"

/* Rejection reasons: the counters are arrays of one per reason. */
#define NREJ(a)	((int)(sizeof(a) / sizeof((a)[0])))

const char *
report_ago(int64_t then, int64_t now, char *buf, size_t len)
{
	if (then == 0)
		snprintf(buf, len, "never");
	else
		snprintf(buf, len, "%.1fs ago", (double)(now - then) /
		    NS_PER_SEC);
	return buf;
}

uint64_t
report_rejected(const struct proto_status *st)
{
	uint64_t	 t = 0;
	int		 i;

	for (i = 0; i < NREJ(st->rejected); i++)
		t += st->rejected[i];
	return t;
}

int
report_skew(const struct node *n, const struct node *ref, double *us)
{
	int64_t	 ip;

	if (ref == NULL)
		return -1;
	ip = (int64_t)ref->st.ip_us * NS_PER_US;
	if (n->st.last_ps_ns == 0 || n->st.ip_us != ref->st.ip_us ||
	    !(n->st.flags & SCHED_F_ACTIVE) || ip == 0)
		return -1;
	*us = (double)nodes_skew((int64_t)n->st.last_ps_ns,
	    (int64_t)ref->st.last_ps_ns, ip) / NS_PER_US;
	return 0;
}

const char *
report_master(const struct proto_status *st, char *buf, size_t len)
{
	struct in_addr m = { .s_addr = htonl(st->master) };

	if (st->master == 0)
		return NULL;
	if (st->flags & STATUS_F_YOURS)
		snprintf(buf, len, "this");
	else
		inet_ntop(AF_INET, &m, buf, (socklen_t)len);
	return buf;
}

/* Skew of n's last PS start against ref, "-" if it has none. */
static const char *
skew_text(const struct node *n, const struct node *ref, char *buf,
    size_t len)
{
	double	 us;

	if (report_skew(n, ref, &us) == -1)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.1f", us);
	return buf;
}

/* The node's master: "this" (this console's host), an address, or "-". */
static const char *
master_text(const struct proto_status *st, char *buf, size_t len)
{
	if (report_master(st, buf, len) == NULL)
		snprintf(buf, len, "-");
	return buf;
}

static void
status_verbose(FILE *f, const struct node *n)
{
	const struct proto_status *st = &n->st;
	char	 ip[32], si[32];
	int	 i;

	fprintf(f, "    sync %s, IP %s, SI %s, gang %" PRIu32 " "
	    "process%s, %s\n    rejected:", proto_sync_name(st->sync),
	    duration_format((int64_t)st->ip_us * NS_PER_US, ip, sizeof(ip)),
	    duration_format((int64_t)st->si_us * NS_PER_US, si, sizeof(si)),
	    st->members, st->members == 1 ? "" : "es",
	    st->flags & STATUS_F_OWN ? "on its own configured schedule "
	    "(no command from a console within its silence)" :
	    "following a console");
	for (i = 0; i < NREJ(st->rejected); i++)
		fprintf(f, " %s %" PRIu32 "%s", proto_reject_name(
		    (unsigned)i), st->rejected[i],
		    i + 1 < NREJ(st->rejected) ? "," : "");
	fprintf(f, "; queue full %" PRIu32 "\n", st->queue_full);
}

const char *
report_job_name(const char job[PROTO_JOB_LEN], char out[PROTO_JOB_LEN])
{
	int	 i;

	for (i = 0; i < PROTO_JOB_LEN - 1 && job[i] != '\0'; i++)
		out[i] = job[i] > ' ' && job[i] <= '~' ? job[i] : '?';
	out[i] = '\0';
	return out;
}

/* "    jobs: alice:pvm (4), bob:mpi (2)" */
static void
status_jobs(FILE *f, const struct proto_status *st)
{
	char	 name[PROTO_JOB_LEN];
	int	 i, n = st->njobs < PROTO_JOBS_MAX ? st->njobs : PROTO_JOBS_MAX;

	if (n == 0)
		return;
	fprintf(f, "    jobs:");
	for (i = 0; i < n; i++)
		fprintf(f, "%s %s (%" PRIu32 ")", i > 0 ? "," : "",
		    report_job_name(st->job[i].job, name), st->job[i].members);
	fputc('\n', f);
}

static void
status_row(FILE *f, const struct node *n, const struct node *ref,
    int answered, int verbose, int64_t now)
{
	const struct proto_status *st = &n->st;
	char	 a[INET_ADDRSTRLEN], ago[32], sk[32], ma[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &n->addr, a, sizeof(a));
	report_ago(n->heard, now, ago, sizeof(ago));
	if (!answered || !n->have_status) {
		fprintf(f, "%-16s %-15s %-11s %s, last heard %s\n",
		    n->name[0] != '\0' ? n->name : "?", a, "-", "no reply",
		    ago);
		return;
	}
	fprintf(f, "%-16s %-15s %-11s %-7s %8" PRIu32 " %8" PRIu32
	    " %-5s %6.2f %9" PRIu64 " %8" PRIu64 " %8" PRIu64 " %9s %-15s %s\n",
	    n->name, a, proto_mode_name(st->mode), st->flags & SCHED_F_ACTIVE ?
	    "slicing" : "idle", st->ps_us, st->ip_us > st->ps_us ?
	    st->ip_us - st->ps_us : 0, proto_phase_name(st->phase),
	    st->load_milli / 1000.0, st->slices, st->overruns,
	    report_rejected(st), skew_text(n, ref, sk, sizeof(sk)),
	    master_text(st, ma, sizeof(ma)), ago);
	status_jobs(f, st);
	if (verbose)
		status_verbose(f, n);
}

int
report_status(FILE *f, const struct report_src *s, int64_t since,
    int verbose, int64_t now)
{
	const struct node	*ref = nodes_reference(s->nodes, since);
	char			 w[32];
	int			 i, answered = 0;

	fprintf(f, "%-16s %-15s %-11s %-7s %8s %8s %-5s %6s %9s %8s %8s "
	    "%9s %-15s %s\n", "HOST", "ADDRESS", "MODE", "STATE", "PS_US",
	    "LS_US", "PHASE", "Q", "SLICES", "OVERRUNS", "REJECTED", "SKEW_US",
	    "MASTER", "HEARD");
	for (i = 0; i < s->nodes->n; i++) {
		const struct node *n = &s->nodes->v[i];
		int ok = n->have_status && n->status_at >= since;

		answered += ok;
		status_row(f, n, ref, ok, verbose, now);
	}
	fprintf(f, "%d node%s answered within %s", answered,
	    answered == 1 ? "" : "s", duration_format(
	    s->conf->console.status_wait_ns, w, sizeof(w)));
	if (ref != NULL) {
		char a[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &ref->addr, a, sizeof(a));
		fprintf(f, "; skew against %s", a);
	}
	fprintf(f, "; console dropped %" PRIu64 " datagram%s",
	    net_dropped_total(s->net), net_dropped_total(s->net) == 1 ? "" :
	    "s");
	if (verbose)
		for (i = 0; i < NREJ(s->net->dropped); i++)
			fprintf(f, "%s%s %" PRIu64, i == 0 ? " (" : ", ",
			    proto_reject_name((unsigned)i), s->net->dropped[i]);
	fprintf(f, "%s\n", verbose ? ")" : "");
	fflush(f);
	return answered;
}

void
report_load(FILE *f, const struct report_src *s, const struct rla *r,
    int64_t now)
{
	const char	*src;
	char		 a[INET_ADDRSTRLEN], ago[32], ps[32];
	double		 w;
	int		 i, live;

	fprintf(f, "%-16s %-15s %7s %7s %-4s %7s %-4s %s\n", "HOST",
	    "ADDRESS", "Q", "W", "FROM", "Q/W", "LIVE", "HEARD");
	for (i = 0; i < s->nodes->n; i++) {
		const struct node *n = &s->nodes->v[i];

		inet_ntop(AF_INET, &n->addr, a, sizeof(a));
		w = bal_weight(s->weights, s->hosts, n, &src);
		live = nodes_live(n, now, s->node_timeout);
		fprintf(f, "%-16s %-15s %7.3f %7.3f %-4s %7.3f %-4s %s\n",
		    n->name[0] != '\0' ? n->name : "?", a, n->q, w, src,
		    n->q / w, live ? "yes" : "no",
		    report_ago(n->heard, now, ago, sizeof(ago)));
	}
	if (r->nlive == 0) {
		fprintf(f, "RLA: no live node with a load index\n");
		return;
	}
	fprintf(f, "RLA mean %.3f, max %.3f over %d live node%s", r->mean,
	    r->max, r->nlive, r->nlive == 1 ? "" : "s");
	if (s->sch->mode == MODE_BALANCED && s->sch->bal_ls_pct >= 0)
		fprintf(f, "; balanced uses the %s: LS %d%%, PS %s\n",
		    conf_rla_names[s->conf->console.rla],
		    s->sch->bal_ls_pct, duration_format(sch_ps(s->sch), ps,
		    sizeof(ps)));
	else
		fprintf(f, "; mode %s does not use it\n",
		    proto_mode_name((unsigned)s->sch->mode));
}

static void
show_weights(FILE *f, const struct weights *ws)
{
	int	 i;

	fprintf(f, "%-12s ", "weight");
	if (ws->n == 0)
		fprintf(f, "from the PVM host speed (or 1)");
	for (i = 0; i < ws->n; i++)
		fprintf(f, "%s%s %g", i > 0 ? ", " : "",
		    ws->v[i].host, ws->v[i].w);
	fprintf(f, "%s\n", ws->n > 0 ? "; others from the PVM "
	    "host speed" : "");
}

const char *
report_show_whose(const struct sch *s)
{
	if (s->started)
		return "this console's, sent to the nodes every SI";
	if (s->spoken)
		return "this console's; it told the nodes to stop";
	return "this console's (dts.conf, set), not sent: not what the "
	    "nodes run";
}

int
report_runs(const struct nodes *ns, struct report_run *r, int max)
{
	const struct proto_status	*st;
	int				 i, k, n = 0;

	for (i = 0; i < ns->n; i++) {
		if (!ns->v[i].have_status)
			continue;
		st = &ns->v[i].st;
		for (k = 0; k < n; k++)
			if (r[k].mode == st->mode && r[k].ps_us == st->ps_us &&
			    r[k].ip_us == st->ip_us && r[k].master ==
			    st->master && r[k].slicing == !!(st->flags &
			    SCHED_F_ACTIVE) && r[k].own == !!(st->flags &
			    STATUS_F_OWN))
				break;
		if (k == n) {
			if (n == max) {	/* counted in the last one */
				k = n - 1;
				r[k].others++;
				continue;
			}
			r[k] = (struct report_run){ .mode = st->mode,
			    .ps_us = st->ps_us, .ip_us = st->ip_us,
			    .master = st->master, .slicing = !!(st->flags &
			    SCHED_F_ACTIVE), .own = !!(st->flags &
			    STATUS_F_OWN) };
			n++;
		}
		r[k].nodes++;
	}
	return n;
}

/* "nodes run    static, PS 50ms of IP 100ms, slicing: 3 nodes, master
 * 10.0.0.1", one line per schedule, from the last STATUS of each node. */
static void
show_runs(FILE *f, const struct nodes *ns)
{
	struct report_run	 r[REPORT_RUNS_MAX];
	struct in_addr		 a;
	char			 ps[32], ip[32], m[INET_ADDRSTRLEN];
	int			 i, n = report_runs(ns, r, REPORT_RUNS_MAX);

	if (n == 0)
		fprintf(f, "%-12s not known: no status heard (status asks "
		    "them)\n", "nodes run");
	for (i = 0; i < n; i++) {
		a.s_addr = htonl(r[i].master);
		if (r[i].master == 0)
			snprintf(m, sizeof(m), "none");
		else
			inet_ntop(AF_INET, &a, m, sizeof(m));
		fprintf(f, "%-12s %s, PS %s of IP %s, %s%s: %d node%s, "
		    "master %s", i == 0 ? "nodes run" : "",
		    proto_mode_name(r[i].mode),
		    duration_format((int64_t)r[i].ps_us * NS_PER_US, ps,
		    sizeof(ps)),
		    duration_format((int64_t)r[i].ip_us * NS_PER_US, ip,
		    sizeof(ip)), r[i].slicing ? "slicing" : "not slicing",
		    r[i].own ? ", their own dts.conf's" : "", r[i].nodes,
		    r[i].nodes == 1 ? "" : "s", m);
		if (r[i].others > 0)
			fprintf(f, " (and %d node%s on other schedules)",
			    r[i].others, r[i].others == 1 ? "" : "s");
		fputc('\n', f);
	}
}

void
report_show(FILE *f, const struct report_src *src)
{
	const struct sch	*s = src->sch;
	const struct dts_conf	*conf = src->conf;
	char			 a[32], b[300];
	int			 i;

	fprintf(f, "%-12s %s\n", "values", report_show_whose(s));
	fprintf(f, "%-12s %s\n", "mode", proto_mode_name((unsigned)
	    s->mode));
	fprintf(f, "%-12s %s\n", "ip", duration_format(s->ip, a,
	    sizeof(a)));
	fprintf(f, "%-12s %s\n", "ps", sch_ps_text(s, b, sizeof(b)));
	fprintf(f, "%-12s %s\n", "ls", duration_format(s->ip -
	    sch_user_ps(s), a, sizeof(a)));
	if (s->mode == MODE_BALANCED)
		fprintf(f, "%-12s %s\n", "balanced", s->bal_ls_pct < 0 ?
		    "no RLA yet: ps applies" : (snprintf(b, sizeof(b),
		    "LS %d%% from the RLA, PS %s", s->bal_ls_pct,
		    duration_format(sch_ps(s), a, sizeof(a))), b));
	fprintf(f, "%-12s %s\n", "si", duration_format(s->si, a,
	    sizeof(a)));
	fprintf(f, "%-12s %s\n", "sync", proto_sync_name((unsigned)
	    s->sync));
	fprintf(f, "%-12s %s\n", "ls_policy",
	    conf_ls_policy_names[s->ls_idle ? LS_IDLE : LS_STOP]);
	fprintf(f, "%-12s %s\n", "rla", conf_rla_names[conf->console.rla]);
	fprintf(f, "%-12s %g\n", "hysteresis",
	    conf->console.hysteresis);
	fprintf(f, "%-12s %s", "timeout", duration_format(
	    conf->console.timeout_ns, a, sizeof(a)));
	if (src->node_timeout != conf->console.timeout_ns)
		fprintf(f, " (in force: %s, two SIs plus status_wait)",
		    duration_format(src->node_timeout, a, sizeof(a)));
	fputc('\n', f);
	fprintf(f, "%-12s %s\n", "status_wait", duration_format(
	    conf->console.status_wait_ns, a, sizeof(a)));
	show_weights(f, src->weights);
	fprintf(f, "%-12s ", "job weights");
	if (src->jobw->n == 0)
		fprintf(f, "none set: every job 1");
	for (i = 0; i < src->jobw->n; i++)
		fprintf(f, "%s%s %d", i > 0 ? ", " : "", src->jobw->name[i],
		    src->jobw->w[i]);
	fprintf(f, "%s\n", src->jobw->n > 0 ? "; others 1" : "");
	fprintf(f, "%-12s LS", "table");
	for (i = 0; i < s->table.n; i++)
		fprintf(f, "%s%d%%", i == 0 ? " " : ", ",
		    s->table.ls_pct[i]);
	fprintf(f, " per %g of load (load.table, show only)\n",
	    s->table.step);
	fprintf(f, "%-12s %s\n", "nodes", net_describe(src->net, b,
	    sizeof(b)));
	if (conf->insecure)
		fprintf(f, "%-12s none (insecure = true)\n", "key");
	else if (src->net->keyless)
		fprintf(f, "%-12s none (%s): sends no command\n", "key",
		    src->net->keyless_why);
	else
		fprintf(f, "%-12s signs with %s, checks replies under %s\n",
		    "key", conf->console.sign_key, conf->console.node_secret);
	fprintf(f, "%-12s %s\n", "state", s->started ? "started" :
	    s->spoken ? "stopped (nodes released)" : "not started");
	show_runs(f, src->nodes);
}
