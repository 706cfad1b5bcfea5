/*
 * report_jobs.c - the gang matrix as `jobs` prints it, in text and as
 * JSON.  See report.h.
 */
#include <arpa/inet.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memsize.h"
#include "report.h"
#include "timeutil.h"

/* What the nodes get, in one line. */
static const char *
jobs_sent(const struct report_src *s)
{
	const struct sch	*sch = s->sch;

	if (!sch->started)
		return "not started: no slot table sent";
	if (sch->mode != MODE_STATIC && sch->mode != MODE_BALANCED)
		return "no slot table in this mode: each node splits its own "
		    "PS among its jobs";
	if (!s->mx_tables)
		return "no node runs two jobs: no slot table (each job has "
		    "the whole PS on its nodes)";
	return "each node gets its own slot table";
}

/* A node's column title: its name, or its address. */
static const char *
node_title(const struct node *n, char *buf, size_t len)
{
	if (n->name[0] != '\0')
		snprintf(buf, len, "%s", n->name);
	else
		inet_ntop(AF_INET, &n->addr, buf, (socklen_t)len);
	return buf;
}

/* A job's memory over its nodes, from their JOB_MEM replies. */
struct job_mem {
	uint64_t	 mem, swap;
	int		 missing;	/* nodes without one yet */
};

/* Each job's (jm[njobs], calloc'd: free it), or NULL. */
static struct job_mem *
jobs_mem(const struct report_src *s)
{
	const struct matrix	*mx = s->mx;
	const struct node_mem	*m;
	struct job_mem		*jm;
	int			 i, k, j;

	if ((jm = calloc((size_t)mx->njobs + 1, sizeof(*jm))) == NULL)
		return NULL;
	for (i = 0; i < mx->nnodes && i < s->nodes->n; i++)
		for (k = 0; k < mx->node_njobs[i]; k++) {
			j = mx->node_job[i][k];
			if ((m = nodes_mem_of(&s->nodes->v[i],
			    mx->job[j].name)) == NULL) {
				jm[j].missing++;
				continue;
			}
			jm[j].mem += m->mem_bytes;
			jm[j].swap += m->swap_bytes;
		}
	return jm;
}

/* Each job's memory and swap on its nodes together ("-" until every
 * node of it answered a JOB_MEM), and whether it is held and why. */
static void
report_jobs_mem(FILE *f, const struct report_src *s)
{
	const struct matrix	*mx = s->mx;
	const struct matrix_job	*j;
	struct job_mem		*jm = jobs_mem(s);
	char			 a[32], b[32], t[64];
	int			 i, w = 3;

	if (jm == NULL)
		return;
	for (i = 0; i < mx->njobs; i++)
		if ((int)strlen(mx->job[i].name) > w)
			w = (int)strlen(mx->job[i].name);
	fprintf(f, "%-*s %5s %11s %11s  %s\n", w, "JOB", "NODES", "MEM",
	    "SWAP", "STATE");
	for (i = 0; i < mx->njobs; i++) {
		j = &mx->job[i];
		fprintf(f, "%-*s %5d %11s %11s  ", w, j->name, j->nnodes,
		    jm[i].missing ? "-" : memsize_fmt(jm[i].mem, a, sizeof(a)),
		    jm[i].missing ? "-" : memsize_fmt(jm[i].swap, b,
		    sizeof(b)));
		if (!j->held) {
			fprintf(f, "%s\n", j->row >= 0 ? "slotted" : "-");
			continue;
		}
		fprintf(f, "held: %s has %s free, ",
		    node_title(&s->nodes->v[j->held_node], t, sizeof(t)),
		    memsize_fmt(j->held_free, a, sizeof(a)));
		fprintf(f, "needs %s (its swap there + "
		    "console.resume_reserve)\n", memsize_fmt(j->held_need, b,
		    sizeof(b)));
	}
	free(jm);
}

static double
share(const struct matrix *mx, int r)
{
	return mx->ps_us == 0 ? 0 : 100.0 * mx->row[r].len_us / mx->ps_us;
}

void
report_jobs(FILE *f, const struct report_src *s)
{
	const struct matrix	*mx = s->mx;
	char			 t[64], ps[32], sw[32];
	int			 i, r, j, w, nodes = 0;
	int			 width[MATRIX_NODES_MAX];

	fprintf(f, "mode %s, PS %s: %s%s\n", proto_mode_name((unsigned)
	    s->sch->mode), duration_format((int64_t)mx->ps_us * NS_PER_US,
	    ps, sizeof(ps)), jobs_sent(s), s->own ? " (console's own)" : "");
	if (mx->njobs == 0) {
		fprintf(f, "no job on any live node\n");
		fflush(f);
		return;
	}
	for (i = 0; i < s->nodes->n && i < MATRIX_NODES_MAX; i++) {
		width[i] = (int)strlen(node_title(&s->nodes->v[i], t,
		    sizeof(t)));
		for (j = 0; j < mx->node_njobs[i]; j++) {
			w = (int)strlen(mx->job[mx->node_job[i][j]].name);
			if (w > width[i])
				width[i] = w;
		}
	}
	fprintf(f, "%-3s %9s %9s %6s %6s", "ROW", "START_MS", "LEN_MS",
	    "SHARE", "WEIGHT");
	for (i = 0; i < s->nodes->n && i < MATRIX_NODES_MAX; i++)
		if (mx->node_njobs[i] > 0) {
			fprintf(f, "  %-*s", width[i], node_title(
			    &s->nodes->v[i], t, sizeof(t)));
			nodes++;
		}
	fputc('\n', f);
	for (r = 0; r < mx->nrows; r++) {
		fprintf(f, "%-3d %9.3f %9.3f %5.1f%% %6s", r,
		    mx->row[r].start_us / 1000.0, mx->row[r].len_us / 1000.0,
		    share(mx, r), matrix_share_format(mx->row[r].share, sw,
		    sizeof(sw)));
		for (i = 0; i < s->nodes->n && i < MATRIX_NODES_MAX; i++)
			if (mx->node_njobs[i] > 0) {
				j = matrix_cell(mx, r, i);
				fprintf(f, "  %-*s", width[i], j < 0 ? "-" :
				    mx->job[j].name);
			}
		fputc('\n', f);
	}
	fprintf(f, "%d row%s, %d job%s on %d node%s", mx->nrows,
	    mx->nrows == 1 ? "" : "s", mx->njobs, mx->njobs == 1 ? "" : "s",
	    nodes, nodes == 1 ? "" : "s");
	for (i = 0; i < s->jobw->n; i++)
		fprintf(f, "%s%s %d", i == 0 ? "; weights: " : ", ",
		    s->jobw->name[i], s->jobw->w[i]);
	for (j = 0, i = s->jobw->n; j < mx->njobs; j++)
		if (mx->job[j].wsrc == MATRIX_WSRC_NODE)
			fprintf(f, "%s%s %d (slurm)", i++ == 0 ? "; weights: " :
			    ", ", mx->job[j].name, mx->job[j].weight);
	if (mx->refused > 0)
		fprintf(f, "; %d job%s left out (a node's %d at most)",
		    mx->refused, mx->refused == 1 ? "" : "s", PROTO_JOBS_MAX);
	fputc('\n', f);
	report_jobs_mem(f, s);
	fflush(f);
}

static void
set(json_t *o, const char *key, json_t *v)
{
	(void)json_object_set_new(o, key, v != NULL ? v : json_null());
}

/* report_jobs_mem's table: one object a job (null: not known yet). */
static json_t *
jobs_mem_json(const struct report_src *s)
{
	const struct matrix	*mx = s->mx;
	const struct matrix_job	*j;
	struct job_mem		*jm = jobs_mem(s);
	json_t			*a = json_array(), *o, *h;
	char			 t[64];
	int			 i;

	for (i = 0; jm != NULL && i < mx->njobs; i++) {
		j = &mx->job[i];
		o = json_object();
		set(o, "job", json_string(j->name));
		set(o, "nodes", json_integer(j->nnodes));
		set(o, "memory_bytes", jm[i].missing ? NULL :
		    json_integer((json_int_t)jm[i].mem));
		set(o, "swap_bytes", jm[i].missing ? NULL :
		    json_integer((json_int_t)jm[i].swap));
		set(o, "held", json_boolean(j->held));
		h = NULL;
		if (j->held) {
			h = json_object();
			set(h, "node", json_string(node_title(
			    &s->nodes->v[j->held_node], t, sizeof(t))));
			set(h, "free_bytes", json_integer((json_int_t)
			    j->held_free));
			set(h, "need_bytes", json_integer((json_int_t)
			    j->held_need));
		}
		set(o, "held_by", h);
		json_array_append_new(a, o);
	}
	free(jm);
	return a;
}

void
report_jobs_json(FILE *f, const struct report_src *s)
{
	const struct matrix	*mx = s->mx;
	json_t			*root = json_object(), *rows = json_array();
	json_t			*nodes = json_array(), *o, *a, *w;
	char			 addr[INET_ADDRSTRLEN];
	int			 i, r, j;

	set(root, "mode", json_string(proto_mode_name((unsigned)
	    s->sch->mode)));
	set(root, "ps_us", json_integer(mx->ps_us));
	set(root, "started", json_boolean(s->sch->started));
	set(root, "slot_tables", json_boolean(s->mx_tables));
	for (r = 0; r < mx->nrows; r++) {
		o = json_object();
		set(o, "row", json_integer(r));
		set(o, "start_us", json_integer(mx->row[r].start_us));
		set(o, "len_us", json_integer(mx->row[r].len_us));
		set(o, "share", json_real(share(mx, r) / 100.0));
		set(o, "weight", mx->row[r].share % MATRIX_SHARE_UNIT == 0 ?
		    json_integer(mx->row[r].share / MATRIX_SHARE_UNIT) :
		    json_real((double)mx->row[r].share / MATRIX_SHARE_UNIT));
		a = json_array();
		for (j = 0; j < mx->njobs; j++)
			if (mx->job[j].row == r)
				json_array_append_new(a,
				    json_string(mx->job[j].name));
		set(o, "jobs", a);
		json_array_append_new(rows, o);
	}
	set(root, "rows", rows);
	for (i = 0; i < s->nodes->n && i < MATRIX_NODES_MAX; i++) {
		if (mx->node_njobs[i] == 0)
			continue;
		o = json_object();
		set(o, "host", s->nodes->v[i].name[0] != '\0' ?
		    json_string(s->nodes->v[i].name) : NULL);
		inet_ntop(AF_INET, &s->nodes->v[i].addr, addr, sizeof(addr));
		set(o, "address", json_string(addr));
		a = json_array();
		for (r = 0; r < mx->nrows; r++) {
			if ((j = matrix_cell(mx, r, i)) < 0)
				continue;
			w = json_object();
			set(w, "job", json_string(mx->job[j].name));
			set(w, "row", json_integer(r));
			set(w, "start_us", json_integer(mx->row[r].start_us));
			set(w, "len_us", json_integer(mx->row[r].len_us));
			json_array_append_new(a, w);
		}
		set(o, "jobs", a);
		json_array_append_new(nodes, o);
	}
	set(root, "nodes", nodes);
	set(root, "jobs", jobs_mem_json(s));
	o = json_object();
	for (i = 0; i < s->jobw->n; i++)
		set(o, s->jobw->name[i], json_integer(s->jobw->w[i]));
	set(root, "weights", o);
	o = json_object();
	for (j = 0; j < mx->njobs; j++)
		if (mx->job[j].wsrc == MATRIX_WSRC_NODE)
			set(o, mx->job[j].name, json_integer(
			    mx->job[j].weight));
	set(root, "node_weights", o);
	set(root, "left_out", json_integer(mx->refused));
	(void)json_dumpf(root, f, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
	json_decref(root);
	fputc('\n', f);
	fflush(f);
}
