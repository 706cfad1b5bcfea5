/*
 * test_console_metrics.c - `metrics`: the exposition of known node data,
 * read back by a strict parser of Prometheus's text format of our own
 * (tests/tools/promparse.h: every line, every family, every histogram's
 * rules) and checked value by value against the input; the parser
 * itself refuses each kind of mistake; and the command's round: the file
 * replaced as a whole, a bad path refused at once, the output without
 * FILE, no answer, Ctrl-C.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmds.h"
#include "console_fixture.h"
#include "promparse.h"
#include "report.h"
#include "timeutil.h"
#include "unit_util.h"

/* Node data with a value in every field, distinct per node (k). */
static struct proto_metrics
sample_metrics(const char *name, int k)
{
	struct proto_metrics	 m;
	int			 i;

	memset(&m, 0, sizeof(m));
	m.uptime_ns = 3600500000000ull + (uint64_t)k;
	m.slices = 36000 + (uint64_t)k;
	m.overruns = 7;
	m.ps_ns = 1800000000001ull;
	m.ls_ns = 1799000000000ull;
	m.stopped_ns = 1234567890123ull;
	m.gang_cpu_ns = 987654321;
	m.mode = k == 0 ? MODE_STATIC : MODE_DISTRIBUTED;
	m.phase = PHASE_LS;
	m.flags = SCHED_F_ACTIVE | STATUS_F_HEARD;
	m.ps_us = 50000;
	m.ip_us = 100000;
	m.load_milli = 1250;
	m.members = 3;
	m.failsafe = 1;
	m.master_changes = 2;
	m.queue_full = 4;
	for (i = 0; i < REJ_COUNT; i++)
		m.rejected[i] = (uint32_t)(3 * i);
	for (i = 0; i < HIST_BUCKETS; i++)
		m.late.n[i] = (uint32_t)(i + 1);
	m.late.sum_ns = 123456789;
	m.op.n[0] = 5;
	m.op.n[HIST_BUCKETS - 1] = 2;
	m.op.sum_ns = 40000000000ull;
	snprintf(m.name, sizeof(m.name), "%s", name);
	return m;
}

struct data {
	struct nodes	 nodes;
	struct net	 net;
	struct in_addr	 list[4];	/* net.list */
	struct proto_metrics a, b;
};

/*
 * 10.0.0.1 "a" and 10.0.0.3 (a name to escape) answered; 10.0.0.2 is
 * known from an earlier round only; 10.0.0.9 is a destination never
 * heard; 10.0.0.1 is a destination too.
 */
static struct data *
data_new(int64_t since)
{
	struct data	*d = calloc(1, sizeof(*d));

	assert_non_null(d);
	d->a = sample_metrics("a", 0);
	d->b = sample_metrics("b\"\\x", 1);
	nodes_metrics(&d->nodes, ip4("10.0.0.3"), &d->b, since + 2);
	nodes_metrics(&d->nodes, ip4("10.0.0.1"), &d->a, since + 1);
	nodes_metrics(&d->nodes, ip4("10.0.0.2"), &d->a, since - 1);
	d->net.how = NET_LIST;
	d->net.list = d->list;
	d->net.list[d->net.nlist++] = ip4("10.0.0.9");
	d->net.list[d->net.nlist++] = ip4("10.0.0.2");
	d->net.list[d->net.nlist++] = ip4("10.0.0.1");
	return d;
}

/* report_metrics into a string (freed by the caller); answered in *n. */
static char *
render(const struct data *d, int64_t since, int *n)
{
	struct report_src	 src = { .nodes = &d->nodes, .net = &d->net };
	char			*buf = NULL;
	size_t			 len = 0;
	FILE			*f = open_memstream(&buf, &len);

	assert_non_null(f);
	*n = report_metrics(f, &src, since);
	fclose(f);
	return buf;
}

static struct prom_doc
parsed(const char *text)
{
	struct prom_doc	 doc;

	if (prom_parse(text, &doc) == -1)
		fail_msg("not in Prometheus's format: %s\n%s", doc.err, text);
	return doc;
}

static const struct prom_sample *
sample_of(const struct prom_doc *doc, const char *name, const char *labels)
{
	const struct prom_sample *s = prom_find(doc, name, labels);

	if (s == NULL)
		fail_msg("no sample %s{%s}", name, labels);
	return s;
}

/* The value of name{labels}, as written and as a number. */
static const char *
text_of(const struct prom_doc *doc, const char *name, const char *labels)
{
	return sample_of(doc, name, labels)->text;
}

static double
value_of(const struct prom_doc *doc, const char *name, const char *labels)
{
	return sample_of(doc, name, labels)->value;
}

#define A	"addr=\"10.0.0.1\",node=\"a\""
#define B	"addr=\"10.0.0.3\",node=\"b\\\"\\\\x\""

/* Every node has dts_node_up, by address; nothing else for the silent. */
static void
check_up(const struct prom_doc *doc)
{
	static const char *const want[] = {
		A, "addr=\"10.0.0.2\",node=\"a\"", B,
		"addr=\"10.0.0.9\",node=\"10.0.0.9\"" };
	int	 i, k = 0;

	for (i = 0; i < doc->n; i++) {
		if (strcmp(doc->s[i].name, "dts_node_up") == 0) {
			assert_true(k < 4);
			assert_string_equal(doc->s[i].labels, want[k]);
			assert_string_equal(doc->s[i].text, k == 0 || k == 2 ?
			    "1" : "0");
			k++;
		} else {
			assert_null(strstr(doc->s[i].labels, "10.0.0.2"));
			assert_null(strstr(doc->s[i].labels, "10.0.0.9"));
		}
	}
	assert_int_equal(k, 4);
}

/* A histogram's series against the hist it came from. */
static void
check_hist(const struct prom_doc *doc, const char *name, const struct hist *h)
{
	const struct prom_sample *s;
	char		 n[128];
	uint64_t	 c = 0;
	double		 le;
	int		 i, k = 0;

	snprintf(n, sizeof(n), "%s_bucket", name);
	for (i = 0; i < doc->n; i++) {
		s = &doc->s[i];
		if (strcmp(s->name, n) != 0 || strcmp(s->base, A) != 0)
			continue;
		c += h->n[k];
		assert_true(s->value == (double)c);
		le = strtod(s->le, NULL);
		if (k < HIST_BUCKETS - 1)
			assert_true(fabs(le - hist_le_ns[k] / 1e9) < 1e-15);
		else
			assert_string_equal(s->le, "+Inf");
		k++;
	}
	assert_int_equal(k, HIST_BUCKETS);
	snprintf(n, sizeof(n), "%s_count", name);
	assert_true(value_of(doc, n, A) == (double)hist_count(h));
	snprintf(n, sizeof(n), "%s_sum", name);
	assert_true(fabs(value_of(doc, n, A) - h->sum_ns / 1e9) < 1e-12);
}

static void
test_exposition(void **state)
{
	struct data	*d = data_new(100 * SEC);
	struct prom_doc	 doc;
	char		*text, l[256];
	int		 n, i;

	(void)state;
	text = render(d, 100 * SEC, &n);
	assert_int_equal(n, 2);
	doc = parsed(text);
	check_up(&doc);
	assert_string_equal(text_of(&doc, "dts_gang_stopped_seconds_total", A),
	    "1234.567890123");
	assert_string_equal(text_of(&doc, "dts_gang_ps_seconds_total", A),
	    "1800.000000001");
	assert_string_equal(text_of(&doc, "dts_gang_ls_seconds_total", A),
	    "1799");
	assert_string_equal(text_of(&doc, "dts_gang_cpu_seconds_total", A),
	    "0.987654321");
	assert_string_equal(text_of(&doc, "dts_uptime_seconds", A), "3600.5");
	assert_string_equal(text_of(&doc, "dts_uptime_seconds", B),
	    "3600.500000001");
	assert_string_equal(text_of(&doc, "dts_slices_total", A), "36000");
	assert_string_equal(text_of(&doc, "dts_overruns_total", A), "7");
	assert_true(value_of(&doc, "dts_share_configured", A) == 0.5);
	assert_string_equal(text_of(&doc, "dts_iteration_period_seconds", A),
	    "0.1");
	assert_string_equal(text_of(&doc, "dts_load_index", A), "1.25");
	assert_string_equal(text_of(&doc, "dts_gang_members", A), "3");
	assert_string_equal(text_of(&doc, "dts_slicing", A), "1");
	assert_string_equal(text_of(&doc, "dts_failsafe_releases_total", A),
	    "1");
	assert_string_equal(text_of(&doc, "dts_master_changes_total", A), "2");
	assert_string_equal(text_of(&doc, "dts_queue_full_total", A), "4");
	for (i = 0; i < MODE_COUNT; i++) {
		snprintf(l, sizeof(l), "addr=\"10.0.0.3\",mode=\"%s\",node="
		    "\"b\\\"\\\\x\"", proto_mode_names[i]);
		assert_true(value_of(&doc, "dts_mode", l) ==
		    (i == MODE_DISTRIBUTED));
	}
	for (i = 0; i < PHASE_COUNT; i++) {
		snprintf(l, sizeof(l), "%s,phase=\"%s\"", A,
		    proto_phase_names[i]);
		assert_true(value_of(&doc, "dts_phase", l) == (i == PHASE_LS));
	}
	for (i = 0; i < REJ_COUNT; i++) {
		snprintf(l, sizeof(l), "%s,reason=\"%s\"", A,
		    proto_reject_names[i]);
		assert_true(value_of(&doc, "dts_rejected_datagrams_total", l) ==
		    3 * i);
	}
	check_hist(&doc, "dts_edge_lateness_seconds", &d->a.late);
	check_hist(&doc, "dts_edge_op_seconds", &d->a.op);
	prom_free(&doc);
	free(text);
	nodes_free(&d->nodes);
	free(d);
}

/* Broadcast addresses are not nodes; nobody answered: only the table. */
static void
test_broadcast_silent(void **state)
{
	struct data	*d = data_new(100 * SEC);
	struct prom_doc	 doc;
	char		*text;
	int		 n, i, up = 0;

	(void)state;
	d->net.how = NET_BROADCAST;
	text = render(d, 200 * SEC, &n);
	assert_int_equal(n, 0);
	doc = parsed(text);
	for (i = 0; i < doc.n; i++) {
		assert_string_equal(doc.s[i].name, "dts_node_up");
		assert_string_equal(doc.s[i].text, "0");
		up++;
	}
	assert_int_equal(up, 3);	/* the table's, not 10.0.0.9 */
	assert_true(doc.families > 10);	/* HELP and TYPE all the same */
	prom_free(&doc);
	free(text);
	nodes_free(&d->nodes);
	free(d);
}

#define GOOD \
	"# HELP x_total Help.\n# TYPE x_total counter\nx_total{a=\"1\"} 3\n" \
	"# HELP h Help.\n# TYPE h histogram\nh_bucket{le=\"0.1\"} 1\n" \
	"h_bucket{le=\"+Inf\"} 2\nh_sum 0.3\nh_count 2\n"

/* The parser is strict: each mistake is refused, with its reason. */
static void
test_parser_strict(void **state)
{
	static const struct {
		const char	*text, *why;
	} bad[] = {
		{ "# HELP x_total Help.\n# TYPE x_total counter\nx_total 1",
		  "no newline" },
		{ GOOD "\n", "blank line" },
		{ GOOD "# a comment\n", "other than HELP or TYPE" },
		{ "# HELP x Help.\n# TYPE x counter\nx 1\n", "_total" },
		{ "# HELP x Help.\n# TYPE x summary\nx 1\n", "unknown type" },
		{ "# TYPE x gauge\nx 1\n", "not right after its HELP" },
		{ "# HELP x Help.\nx 1\n", "before its family's TYPE" },
		{ "# HELP x Help.\n# TYPE x gauge\n", NULL },	/* good */
		{ "# HELP x Help.\n", "without HELP and TYPE" },
		{ GOOD "x_total{a=\"2\"} 1\n", "not a sample of histogram" },
		{ GOOD "# HELP x_total H.\n# TYPE x_total counter\n",
		  "again" },
		{ "# HELP x Help.\n# TYPE x gauge\nx 1\nx 2\n", "twice" },
		{ "# HELP x Help.\n# TYPE x gauge\nx{a=\"1\",b=\"2\"} 1\n"
		  "x{b=\"2\",a=\"1\"} 1\n", "twice" },
		{ "# HELP x Help.\n# TYPE x gauge\nx{a=\"1\",a=\"2\"} 1\n",
		  "label a twice" },
		{ "# HELP x Help.\n# TYPE x gauge\nx{a=\"\\t\"} 1\n",
		  "bad escape" },
		{ "# HELP x Help\\t.\n# TYPE x gauge\nx 1\n", "bad escape" },
		{ "# HELP x Help.\n# TYPE x gauge\nx{a=\"1\",} 1\n",
		  "expected , or }" },
		{ "# HELP x Help.\n# TYPE x gauge\nx{a-b=\"1\"} 1\n",
		  "no =\"" },
		{ "# HELP x Help.\n# TYPE x gauge\nx{__a=\"1\"} 1\n",
		  "reserved" },
		{ "# HELP 1x Help.\n", "bad metric name" },
		{ "# HELP x Help.\n# TYPE x gauge\nx 1,5\n", "bad value" },
		{ "# HELP x Help.\n# TYPE x gauge\nx 0x10\n", "bad value" },
		{ "# HELP x Help.\n# TYPE x gauge\nx inf\n", "bad value" },
		{ "# HELP x Help.\n# TYPE x gauge\nx 1 1700000000\n",
		  "bad value" },
		{ "# HELP x Help.\n# TYPE x gauge\nx  1\n", "bad value" },
		{ "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"0.2\"} 1\n"
		  "h_bucket{le=\"0.1\"} 1\nh_bucket{le=\"+Inf\"} 1\nh_sum 0\n"
		  "h_count 1\n", "not ascending" },
		{ "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"0.1\"} 2\n"
		  "h_bucket{le=\"+Inf\"} 1\nh_sum 0\nh_count 1\n",
		  "not cumulative" },
		{ "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"0.1\"} 2\n"
		  "h_sum 0\nh_count 2\n", "no +Inf bucket" },
		{ "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\n"
		  "h_sum 0\nh_count 3\n", "_count 3, +Inf bucket 2" },
		{ "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\n"
		  "h_count 2\n", "no _sum" },
		{ "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\n"
		  "h_sum{le=\"1\"} 0\nh_count 2\n", "le on a bucket" },
		{ "# HELP h H.\n# TYPE h histogram\nh_bucket 2\nh_sum 0\n"
		  "h_count 2\n", "le on a bucket" },
		{ "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"x\"} 2\n"
		  "h_sum 0\nh_count 2\n", "not a number" },
	};
	struct prom_doc	 doc;
	size_t		 i;

	(void)state;
	assert_int_equal(prom_parse(GOOD, &doc), 0);
	assert_int_equal(doc.n, 5);
	assert_int_equal(doc.families, 2);
	assert_string_equal(prom_find(&doc, "h_bucket", "le=\"0.1\"")->text,
	    "1");
	prom_free(&doc);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = prom_parse(bad[i].text, &doc);

		if (bad[i].why == NULL)
			assert_int_equal(rc, 0);
		else if (rc != -1 || strstr(doc.err, bad[i].why) == NULL)
			fail_msg("case %zu: want \"%s\", got %d \"%s\"", i,
			    bad[i].why, rc, rc == -1 ? doc.err : "");
		prom_free(&doc);
	}
}

/* A METRICS from addr, as the master takes it. */
static void
metrics_from(struct fixture *f, const char *addr, const char *name,
    int64_t now)
{
	struct proto_msg	 m = { .hdr.type = PROTO_METRICS };

	m.u.metrics = sample_metrics(name, 0);
	master_datagram(&f->c.e, &m, ip4(addr), now);
}

static int
exists(const char *path)
{
	struct stat	 st;

	return stat(path, &st) == 0;
}

/* metrics FILE: asked, collected for status_wait, FILE replaced whole. */
static void
test_command_file(void **state)
{
	struct fixture	*f = *state;
	struct prom_doc	 doc;
	char		 dir[] = "/tmp/dts-test-metrics.XXXXXX", path[128];
	char		 tmp[160], cmd[200], *text;
	int		 rc;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/dts.prom", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	snprintf(cmd, sizeof(cmd), "metrics %s", path);
	assert_int_equal(cmds_exec(&f->c, cmd), 0);
	assert_true(master_busy(&f->c.e));
	assert_int_equal(f->c.net.sent, 1);
	assert_true(exists(tmp) && !exists(path));
	metrics_from(f, "127.0.0.1", "n1", now_mono_ns());
	master_timer(&f->c.e, now_mono_ns() + SEC);
	assert_true(master_done(&f->c.e, &rc));
	assert_int_equal(rc, 0);
	assert_false(exists(tmp));
	assert_string_equal(fixture_output(f), "");
	assert_non_null(text = tu_slurp(path, NULL));
	doc = parsed(text);
	assert_string_equal(text_of(&doc, "dts_node_up",
	    "addr=\"127.0.0.1\",node=\"n1\""), "1");
	assert_string_equal(text_of(&doc, "dts_gang_stopped_seconds_total",
	    "addr=\"127.0.0.1\",node=\"n1\""), "1234.567890123");
	prom_free(&doc);
	free(text);

	/* nobody answers: a failure, but the file says so (up 0) */
	assert_int_equal(cmds_exec(&f->c, cmd), 0);
	master_timer(&f->c.e, now_mono_ns() + SEC);
	assert_true(master_done(&f->c.e, &rc));
	assert_int_equal(rc, -1);
	assert_string_equal(f->c.out.err, "metrics: no node answered within "
	    "300ms");
	assert_non_null(text = tu_slurp(path, NULL));
	doc = parsed(text);
	assert_int_equal(doc.n, 1);
	assert_string_equal(text_of(&doc, "dts_node_up",
	    "addr=\"127.0.0.1\",node=\"n1\""), "0");
	prom_free(&doc);
	free(text);

	/* Ctrl-C: no file written, the old one stays, no FILE.tmp */
	assert_int_equal(cmds_exec(&f->c, cmd), 0);
	assert_int_equal(master_cancel(&f->c.e), 1);
	assert_string_equal(fixture_output(f), "metrics: interrupted; no file "
	    "written\n");
	assert_false(exists(tmp));
	assert_true(exists(path));
	master_timer(&f->c.e, now_mono_ns() + SEC);
	assert_false(master_done(&f->c.e, &rc));
	unlink(path);
	rmdir(dir);
}

/* metrics: the output; a path that cannot be written fails at once. */
static void
test_command_output(void **state)
{
	struct fixture	*f = *state;
	struct prom_doc	 doc;
	int		 rc;

	assert_int_equal(cmds_exec(&f->c, "metrics /nonexistent/dir/x.prom"),
	    -1);
	assert_string_equal(f->c.out.err, "metrics: /nonexistent/dir/"
	    "x.prom.tmp: No such file or directory");
	assert_false(master_busy(&f->c.e));
	assert_int_equal(f->c.net.sent, 0);
	assert_int_equal(cmds_exec(&f->c, "metrics a b"), -1);

	assert_int_equal(cmds_exec(&f->c, "metrics"), 0);
	metrics_from(f, "127.0.0.1", "n1", now_mono_ns());
	master_timer(&f->c.e, now_mono_ns() + SEC);
	assert_true(master_done(&f->c.e, &rc));
	assert_int_equal(rc, 0);
	doc = parsed(fixture_output(f));
	assert_string_equal(text_of(&doc, "dts_slices_total",
	    "addr=\"127.0.0.1\",node=\"n1\""), "36000");
	/* a METRICS counts as a STATUS for the node's name and Q */
	assert_string_equal(f->c.nodes.v[0].name, "n1");
	assert_true(f->c.nodes.v[0].q == 1.25);
	prom_free(&doc);
}

/* The JOB_REQs the console sent, by index; -1 past the last; and the
 * JOB_MEM_REQs. */
static int job_req[16], njob_req, mem_req[16], nmem_req;

static void
job_tap(void *arg, struct in_addr dst, const struct proto_msg *m)
{
	(void)arg;
	(void)dst;
	if (m->hdr.type == PROTO_JOB_REQ && njob_req < 16)
		job_req[njob_req++] = (int)m->u.job_req.index;
	if (m->hdr.type == PROTO_JOB_MEM_REQ && nmem_req < 16)
		mem_req[nmem_req++] = (int)m->u.job_mem_req.index;
}

static void
job_mem_from(struct fixture *f, uint32_t index, uint32_t count,
    const char *job, int64_t now)
{
	struct proto_msg	 m = { .hdr.type = PROTO_JOB_MEM };

	m.u.job_mem.index = index;
	m.u.job_mem.count = count;
	snprintf(m.u.job_mem.job, sizeof(m.u.job_mem.job), "%s", job);
	m.u.job_mem.mem_bytes = 1073741824ULL + index;
	m.u.job_mem.swap_bytes = 4096;
	m.u.job_mem.oom_kills = 2;
	m.u.job_mem.reclaimed_bytes = 966365184ULL;
	master_datagram(&f->c.e, &m, ip4("127.0.0.1"), now);
}

static void
job_from(struct fixture *f, uint32_t index, uint32_t count, const char *job,
    int64_t now)
{
	struct proto_msg	 m = { .hdr.type = PROTO_JOB };

	m.u.job.index = index;
	m.u.job.count = count;
	snprintf(m.u.job.job, sizeof(m.u.job.job), "%s", job);
	m.u.job.slot_ns = 40ULL * NS_PER_SEC + 5;
	m.u.job.stopped_ns = 60ULL * NS_PER_SEC;
	m.u.job.cpu_ns = 39ULL * NS_PER_SEC;
	m.u.job.members = 4 + index;
	m.u.job.running = index == 0;
	master_datagram(&f->c.e, &m, ip4("127.0.0.1"), now);
}

/* Each node's jobs: JOB_REQ 0, 1, ... after its METRICS; label job. */
static void
test_job_metrics(void **state)
{
	struct fixture	*f = *state;
	struct prom_doc	 doc;
	int64_t		 t;
	int		 rc;

	f->c.net.tap = job_tap;
	njob_req = 0;
	nmem_req = 0;
	job_from(f, 0, 2, "alice:pvm", now_mono_ns());	/* no round: no ask */
	assert_int_equal(njob_req, 0);
	assert_int_equal(cmds_exec(&f->c, "metrics"), 0);
	t = now_mono_ns();
	metrics_from(f, "127.0.0.1", "n1", t);
	assert_int_equal(njob_req, 1);
	assert_int_equal(job_req[0], 0);
	job_from(f, 1, 2, "bob:mpi", t);	/* out of order: ignored */
	assert_int_equal(njob_req, 1);
	job_from(f, 0, 2, "alice:pvm", t);
	assert_int_equal(njob_req, 2);
	assert_int_equal(job_req[1], 1);
	job_from(f, 1, 2, "bob:mpi", t);
	assert_int_equal(njob_req, 2);		/* the last: no more */
	job_from(f, 1, 2, "bob:mpi", t);	/* twice: once */
	assert_int_equal(f->c.nodes.v[0].njobs, 2);
	/* each JOB's memory asked; alice's answered, bob's node is silent
	 * (a node before JOB_MEM); a JOB_MEM of another name is dropped */
	assert_int_equal(nmem_req, 2);
	assert_int_equal(mem_req[0], 0);
	assert_int_equal(mem_req[1], 1);
	job_mem_from(f, 1, 2, "carol:x", t);
	job_mem_from(f, 0, 2, "alice:pvm", t);
	assert_int_equal(f->c.nodes.v[0].mem_ok, 1);
	master_timer(&f->c.e, t + SEC);
	assert_true(master_done(&f->c.e, &rc));
	assert_int_equal(rc, 0);
	doc = parsed(fixture_output(f));
	assert_string_equal(text_of(&doc, "dts_job_slot_seconds_total",
	    "addr=\"127.0.0.1\",job=\"alice:pvm\",node=\"n1\""),
	    "40.000000005");
	assert_string_equal(text_of(&doc, "dts_job_stopped_seconds_total",
	    "addr=\"127.0.0.1\",job=\"bob:mpi\",node=\"n1\""), "60");
	assert_string_equal(text_of(&doc, "dts_job_cpu_seconds_total",
	    "addr=\"127.0.0.1\",job=\"bob:mpi\",node=\"n1\""), "39");
	assert_string_equal(text_of(&doc, "dts_job_members",
	    "addr=\"127.0.0.1\",job=\"bob:mpi\",node=\"n1\""), "5");
	assert_string_equal(text_of(&doc, "dts_job_running",
	    "addr=\"127.0.0.1\",job=\"alice:pvm\",node=\"n1\""), "1");
	assert_string_equal(text_of(&doc, "dts_job_memory_bytes",
	    "addr=\"127.0.0.1\",job=\"alice:pvm\",node=\"n1\""),
	    "1073741824");
	assert_string_equal(text_of(&doc, "dts_job_swap_bytes",
	    "addr=\"127.0.0.1\",job=\"alice:pvm\",node=\"n1\""), "4096");
	assert_string_equal(text_of(&doc, "dts_job_oom_kills_total",
	    "addr=\"127.0.0.1\",job=\"alice:pvm\",node=\"n1\""), "2");
	assert_string_equal(text_of(&doc, "dts_job_reclaimed_bytes_total",
	    "addr=\"127.0.0.1\",job=\"alice:pvm\",node=\"n1\""),
	    "966365184");
	assert_null(prom_find(&doc, "dts_job_memory_bytes",
	    "addr=\"127.0.0.1\",job=\"bob:mpi\",node=\"n1\""));
	assert_null(prom_find(&doc, "dts_job_memory_bytes",
	    "addr=\"127.0.0.1\",job=\"carol:x\",node=\"n1\""));
	prom_free(&doc);
	/* the next round without jobs: none listed */
	assert_int_equal(cmds_exec(&f->c, "metrics"), 0);
	t = now_mono_ns();
	metrics_from(f, "127.0.0.1", "n1", t);
	job_from(f, 0, 0, "", t);
	master_timer(&f->c.e, t + SEC);
	assert_true(master_done(&f->c.e, &rc));
	doc = parsed(fixture_output(f));
	assert_null(prom_find(&doc, "dts_job_members",
	    "addr=\"127.0.0.1\",job=\"alice:pvm\",node=\"n1\""));
	prom_free(&doc);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exposition),
		cmocka_unit_test(test_broadcast_silent),
		cmocka_unit_test(test_parser_strict),
		cmocka_unit_test_setup_teardown(test_command_file,
		    fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_command_output,
		    fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_job_metrics,
		    fixture_setup, fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
