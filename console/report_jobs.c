/*
 * report_jobs.c - the gang matrix as `jobs` prints it, in text and as
 * JSON.  See report.h.
 */
#include <arpa/inet.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

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
	if (mx->refused > 0)
		fprintf(f, "; %d job%s left out (a node's %d at most)",
		    mx->refused, mx->refused == 1 ? "" : "s", PROTO_JOBS_MAX);
	fputc('\n', f);
	fflush(f);
}

static void
set(json_t *o, const char *key, json_t *v)
{
	(void)json_object_set_new(o, key, v != NULL ? v : json_null());
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
	o = json_object();
	for (i = 0; i < s->jobw->n; i++)
		set(o, s->jobw->name[i], json_integer(s->jobw->w[i]));
	set(root, "weights", o);
	set(root, "left_out", json_integer(mx->refused));
	(void)json_dumpf(root, f, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
	json_decref(root);
	fputc('\n', f);
	fflush(f);
}
