/*
 * report_prom.c - the nodes' METRICS in Prometheus's text exposition
 * format, version 0.0.4, for `metrics [FILE]`: node_exporter's textfile
 * collector reads the file, or a static file server serves it to a
 * scrape.  The same const data as the tables (report.c); every family is
 * listed in dts-console(1), METRICS OUTPUT.
 *
 * One family at a time (# HELP, # TYPE, then its samples: a family is
 * contiguous and appears once), within it one node after the other, by
 * address.  Every sample has the labels node (the host's name as the
 * node gives it, or its address until it has answered once) and addr.
 * Time is in seconds, written as an exact decimal of the nanoseconds the
 * node sent (never through a double); counters end in _total.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* A node of the exposition; m is NULL if it did not answer. */
struct row {
	struct in_addr			 addr;
	const char			*name;	/* "": not answered */
	const struct proto_metrics	*m;
	const struct proto_job		*jobs;	/* its jobs' JOB replies */
	int				 njobs;
	const struct proto_job_mem	*mem;	/* their JOB_MEM replies */
	unsigned			 mem_ok; /* bit i: mem[i] came */
};

struct family;
typedef void sample_fn(FILE *, const struct family *, const struct row *);

struct family {
	const char	*name;
	const char	*type;		/* counter, gauge, histogram */
	const char	*help;
	sample_fn	*fn;
	size_t		 off;		/* the field fn reads */
	size_t		 size;		/* num_sample: 4 or 8 */
	int		 digits;	/* units of 10^-digits */
};

#define VALUE_MAX	48	/* "18446744073709551615.999999999" */

static const char *
uint_text(uint64_t v, char *b)
{
	snprintf(b, VALUE_MAX, "%" PRIu64, v);
	return b;
}

/* v / 10^digits, exactly: "0.000005", "1.5", "3". */
static const char *
decimal(uint64_t v, int digits, char *b)
{
	uint64_t	 scale = 1;
	int		 i, n;

	for (i = 0; i < digits; i++)
		scale *= 10;
	n = snprintf(b, VALUE_MAX, "%" PRIu64 ".%0*" PRIu64, v / scale,
	    digits, v % scale);
	while (n > 0 && b[n - 1] == '0')
		b[--n] = '\0';
	if (n > 0 && b[n - 1] == '.')
		b[--n] = '\0';
	return b;
}

/* A label value: backslash, double quote and newline escaped. */
static void
escaped(FILE *fp, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(fp, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", fp);
		else
			fputc(*s, fp);
	}
}

/* name{node="...",addr="..."[,key="val"]} value */
static void
sample(FILE *fp, const char *name, const char *suffix, const struct row *r,
    const char *key, const char *val, const char *value)
{
	char	 a[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &r->addr, a, sizeof(a));
	fprintf(fp, "%s%s{node=\"", name, suffix);
	escaped(fp, r->name[0] != '\0' ? r->name : a);
	fprintf(fp, "\",addr=\"%s\"", a);
	if (key != NULL) {
		fprintf(fp, ",%s=\"", key);
		escaped(fp, val);
		fputc('"', fp);
	}
	fprintf(fp, "} %s\n", value);
}

static const void *
field(const struct family *f, const struct row *r)
{
	return (const char *)r->m + f->off;
}

static void
up_sample(FILE *fp, const struct family *f, const struct row *r)
{
	sample(fp, f->name, "", r, NULL, NULL, r->m != NULL ? "1" : "0");
}

/* An unsigned field of f->size bytes, in units of 10^-f->digits: a count
 * (0), the load (milli, 3), IP (us, 6), a time (ns, 9). */
static void
num_sample(FILE *fp, const struct family *f, const struct row *r)
{
	uint64_t	 v;
	uint32_t	 v32;
	char		 b[VALUE_MAX];

	if (f->size == sizeof(v32)) {
		memcpy(&v32, field(f, r), sizeof(v32));
		v = v32;
	} else
		memcpy(&v, field(f, r), sizeof(v));
	sample(fp, f->name, "", r, NULL, NULL, f->digits == 0 ?
	    uint_text(v, b) : decimal(v, f->digits, b));
}

/* PS/IP: the share of each period the gang is given. */
static void
share_sample(FILE *fp, const struct family *f, const struct row *r)
{
	char	 b[VALUE_MAX];

	snprintf(b, sizeof(b), "%.9g", r->m->ip_us == 0 ? 0.0 :
	    (double)r->m->ps_us / r->m->ip_us);
	sample(fp, f->name, "", r, NULL, NULL, b);
}

static void
slicing_sample(FILE *fp, const struct family *f, const struct row *r)
{
	sample(fp, f->name, "", r, NULL, NULL,
	    r->m->flags & SCHED_F_ACTIVE ? "1" : "0");
}

/* One sample per name of the table, 1 for the node's value. */
static void
state_samples(FILE *fp, const struct family *f, const struct row *r,
    const char *key, const char *const *names, unsigned value)
{
	unsigned	 i;

	for (i = 0; names[i] != NULL; i++)
		sample(fp, f->name, "", r, key, names[i], i == value ?
		    "1" : "0");
}

static void
mode_sample(FILE *fp, const struct family *f, const struct row *r)
{
	state_samples(fp, f, r, "mode", proto_mode_names, r->m->mode);
}

static void
phase_sample(FILE *fp, const struct family *f, const struct row *r)
{
	state_samples(fp, f, r, "phase", proto_phase_names, r->m->phase);
}

static void
rejected_sample(FILE *fp, const struct family *f, const struct row *r)
{
	char	 b[VALUE_MAX];
	int	 i;

	for (i = 0; i < REJ_COUNT; i++)
		sample(fp, f->name, "", r, "reason", proto_reject_names[i],
		    uint_text(r->m->rejected[i], b));
}

/* Buckets with le from hist_le_ns (cumulative), then _sum and _count. */
static void
hist_sample(FILE *fp, const struct family *f, const struct row *r)
{
	const struct hist	*h = field(f, r);
	uint64_t		 c = 0;
	char			 le[VALUE_MAX], b[VALUE_MAX];
	int			 i;

	for (i = 0; i < HIST_BUCKETS; i++) {
		c += h->n[i];
		if (i < HIST_BUCKETS - 1)
			decimal(hist_le_ns[i], 9, le);
		else
			snprintf(le, sizeof(le), "+Inf");
		sample(fp, f->name, "_bucket", r, "le", le, uint_text(c, b));
	}
	sample(fp, f->name, "_sum", r, NULL, NULL, decimal(h->sum_ns, 9, b));
	sample(fp, f->name, "_count", r, NULL, NULL, uint_text(c, b));
}

/* One sample per job of the node, label job: a field of struct
 * proto_job as num_sample reads one of struct proto_metrics. */
static void
job_sample(FILE *fp, const struct family *f, const struct row *r)
{
	uint64_t	 v;
	uint32_t	 v32;
	char		 b[VALUE_MAX];
	int		 i;

	for (i = 0; i < r->njobs; i++) {
		const char *p = (const char *)&r->jobs[i] + f->off;

		if (f->size == sizeof(v32)) {
			memcpy(&v32, p, sizeof(v32));
			v = v32;
		} else
			memcpy(&v, p, sizeof(v));
		sample(fp, f->name, "", r, "job", r->jobs[i].job,
		    f->digits == 0 ? uint_text(v, b) : decimal(v, f->digits,
		    b));
	}
}

/* One sample per job whose JOB_MEM came (a node before JOB_MEM sends
 * none): a u64 field of struct proto_job_mem. */
static void
job_mem_sample(FILE *fp, const struct family *f, const struct row *r)
{
	uint64_t	 v;
	char		 b[VALUE_MAX];
	int		 i;

	for (i = 0; i < r->njobs && i < PROTO_JOBS_MAX; i++) {
		if (r->mem == NULL || !(r->mem_ok & (1u << i)))
			continue;
		memcpy(&v, (const char *)&r->mem[i] + f->off, sizeof(v));
		sample(fp, f->name, "", r, "job", r->mem[i].job,
		    uint_text(v, b));
	}
}

#define M(field)	offsetof(struct proto_metrics, field)
/* job_sample of a field of struct proto_job */
#define JOB(field, digits) job_sample, offsetof(struct proto_job, field), \
	sizeof(((struct proto_job *)0)->field), (digits)
/* the other samplers read the whole row, or the field at off */
#define FN(fn, off)	fn, (off), 0, 0
/* job_mem_sample of a field of struct proto_job_mem */
#define JMEM(field)	job_mem_sample, offsetof(struct proto_job_mem, field), \
	sizeof(uint64_t), 0
/* num_sample of a field in units of 10^-digits */
#define NUM(field, digits) num_sample, M(field), \
	sizeof(((struct proto_metrics *)0)->field), (digits)

static const struct family families[] = {
	{ "dts_node_up", "gauge", "1 if the node answered this metrics "
	  "round, 0 if not (its other families are left out)",
	  FN(up_sample, 0) },
	{ "dts_uptime_seconds", "gauge", "Time since dts started on the "
	  "node", NUM(uptime_ns, 9) },
	{ "dts_slicing", "gauge", "1 while the node slices (alternates PS "
	  "and LS), else 0", FN(slicing_sample, 0) },
	{ "dts_mode", "gauge", "The node's scheduling mode: 1 for the mode "
	  "in force, 0 for the others", FN(mode_sample, 0) },
	{ "dts_phase", "gauge", "The node's phase when it answered: 1 for "
	  "the phase, 0 for the others", FN(phase_sample, 0) },
	{ "dts_share_configured", "gauge", "PS/IP in force: the share of "
	  "each iteration period given to the gang (0 to 1)",
	  FN(share_sample, 0) },
	{ "dts_iteration_period_seconds", "gauge", "The iteration period IP "
	  "in force", NUM(ip_us, 6) },
	{ "dts_load_index", "gauge", "The node's smoothed load index Q",
	  NUM(load_milli, 3) },
	{ "dts_gang_members", "gauge", "Processes in the gang cgroup",
	  NUM(members, 0) },
	{ "dts_slices_total", "counter", "Parallel slices begun since dts "
	  "started", NUM(slices, 0) },
	{ "dts_overruns_total", "counter", "Slice edges skipped because "
	  "dts woke up too late", NUM(overruns, 0) },
	{ "dts_gang_ps_seconds_total", "counter", "Time spent slicing in "
	  "the parallel slice", NUM(ps_ns, 9) },
	{ "dts_gang_ls_seconds_total", "counter", "Time spent slicing in "
	  "the local slice", NUM(ls_ns, 9) },
	{ "dts_gang_stopped_seconds_total", "counter", "Time the gang was "
	  "stopped or frozen, for any reason", NUM(stopped_ns, 9) },
	{ "dts_gang_cpu_seconds_total", "counter", "CPU time the gang's "
	  "processes got (cgroup cpu.stat; 0 if unreadable)",
	  NUM(gang_cpu_ns, 9) },
	{ "dts_job_members", "gauge", "Processes in the job's gang "
	  "(label job: USER:LABEL)", JOB(members, 0) },
	{ "dts_job_running", "gauge", "1 while the job runs at real-time "
	  "priority (in its slot), else 0", JOB(running, 0) },
	{ "dts_job_slot_seconds_total", "counter", "PS time given to the "
	  "job: its slots, since its gang was made", JOB(slot_ns, 9) },
	{ "dts_job_stopped_seconds_total", "counter", "Time the job's gang "
	  "was stopped or frozen", JOB(stopped_ns, 9) },
	{ "dts_job_cpu_seconds_total", "counter", "CPU time the job's "
	  "processes got (its cgroup's cpu.stat; 0 if unreadable)",
	  JOB(cpu_ns, 9) },
	{ "dts_job_memory_bytes", "gauge", "Memory the job's memory cgroup "
	  "holds, page cache included (0 without a memory controller)",
	  JMEM(mem_bytes) },
	{ "dts_job_swap_bytes", "gauge", "The job's memory in swap",
	  JMEM(swap_bytes) },
	{ "dts_job_oom_kills_total", "counter", "Processes of the job the "
	  "kernel killed at its memory limit", JMEM(oom_kills) },
	{ "dts_job_reclaimed_bytes_total", "counter", "Bytes dts reclaimed "
	  "from the job while it was parked", JMEM(reclaimed_bytes) },
	{ "dts_failsafe_releases_total", "counter", "Times dts-load "
	  "released the gang because dts missed its slice edges",
	  NUM(failsafe, 0) },
	{ "dts_master_changes_total", "counter", "Times a console became "
	  "the node's master", NUM(master_changes, 0) },
	{ "dts_queue_full_total", "counter", "Checked datagrams dropped "
	  "because a queue between dts's threads was full",
	  NUM(queue_full, 0) },
	{ "dts_rejected_datagrams_total", "counter", "Datagrams the node "
	  "dropped, by reason", FN(rejected_sample, 0) },
	{ "dts_edge_lateness_seconds", "histogram", "Slice edges: wake-up "
	  "after the deadline", FN(hist_sample, M(late)) },
	{ "dts_edge_op_seconds", "histogram", "Slice edges: the gang "
	  "operation (stop, continue, freeze, thaw)", FN(hist_sample, M(op)) },
};

#define NFAMILIES	((int)(sizeof(families) / sizeof(families[0])))

static int
row_cmp(const void *a, const void *b)
{
	uint32_t	 x = ntohl(((const struct row *)a)->addr.s_addr);
	uint32_t	 y = ntohl(((const struct row *)b)->addr.s_addr);

	return x < y ? -1 : x > y;
}

static int
row_find(const struct row *v, int n, struct in_addr a)
{
	int	 i;

	for (i = 0; i < n; i++)
		if (v[i].addr.s_addr == a.s_addr)
			return i;
	return -1;
}

/*
 * Every node known: the node table's, answered since `since` or not,
 * and the destinations the request went to (but broadcast addresses)
 * that are not in it yet.  By address; returns how many.
 */
static int
rows(const struct report_src *s, int64_t since, struct row *v)
{
	const struct node	*nd;
	int			 i, n = 0;

	for (i = 0; i < s->nodes->n; i++) {
		nd = &s->nodes->v[i];
		v[n].addr = nd->addr;
		v[n].name = nd->name;
		v[n].m = nd->metrics_at != 0 && nd->metrics_at >= since ?
		    &nd->met : NULL;
		v[n].jobs = nd->jobs;
		v[n].njobs = v[n].m != NULL ? nd->njobs : 0;
		v[n].mem = nd->mem;
		v[n].mem_ok = nd->mem_ok;
		n++;
	}
	for (i = 0; s->net->how != NET_BROADCAST && i < s->net->nlist; i++) {
		if (row_find(v, n, s->net->list[i]) != -1)
			continue;
		v[n].addr = s->net->list[i];
		v[n].name = "";
		v[n].m = NULL;
		v[n].jobs = NULL;
		v[n].mem = NULL;
		v[n].mem_ok = 0;
		v[n++].njobs = 0;
	}
	qsort(v, (size_t)n, sizeof(*v), row_cmp);
	return n;
}

int
report_metrics(FILE *fp, const struct report_src *s, int64_t since)
{
	struct row	*v;
	int		 i, k, n, answered = 0;

	/* every node known and every destination: allocated, thousands */
	v = calloc((size_t)s->nodes->n + (size_t)s->net->nlist + 1,
	    sizeof(*v));
	if (v == NULL)
		return -1;
	n = rows(s, since, v);
	for (k = 0; k < NFAMILIES; k++) {
		const struct family *f = &families[k];

		fprintf(fp, "# HELP %s %s\n# TYPE %s %s\n", f->name, f->help,
		    f->name, f->type);
		for (i = 0; i < n; i++)
			if (v[i].m != NULL || f->fn == up_sample)
				f->fn(fp, f, &v[i]);
	}
	for (i = 0; i < n; i++)
		answered += v[i].m != NULL;
	free(v);
	return answered;
}
