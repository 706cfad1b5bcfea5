/*
 * report.h - the console's tables: status (one row per node), load
 * (Q, W, Q/W and the RLA), show (every tunable) and the nodes' metrics
 * for Prometheus.  Each writes to a FILE from const data: a report
 * changes nothing, and computes nothing the master keeps (the RLA comes
 * from the caller).
 */
#ifndef DTS_CONSOLE_REPORT_H
#define DTS_CONSOLE_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "balance.h"
#include "conf.h"
#include "matrix.h"
#include "net.h"
#include "nodes.h"
#include "schedule.h"

/* What the tables read; master_report_src() fills it from the console. */
struct report_src {
	const struct dts_conf	*conf;
	const struct sch	*sch;
	const struct nodes	*nodes;
	const struct weights	*weights;
	const struct vm_hosts	*hosts;
	const struct net	*net;
	int64_t			 node_timeout;	/* con_node_timeout() */
	const struct matrix	*mx;		/* the gang matrix (jobs) */
	int			 mx_tables;	/* ... sent as slot tables */
	const struct jobw	*jobw;		/* the jobs' weights */
	int			 own;		/* label the console's own
						   schedule ("(console's own)") */
};

/*
 * The nodes that answered since `since` (and, marked, the others known).
 * Returns how many answered.
 */
int report_status(FILE *f, const struct report_src *s, int64_t since,
    int verbose, int64_t now);

/* Per node Q_j, W_j, Q_j/W_j and liveness; the RLA r, mean and max. */
void report_load(FILE *f, const struct report_src *s, const struct rla *r,
    int64_t now);

/* Every tunable and where the datagrams go. */
void report_show(FILE *f, const struct report_src *s);

/*
 * The same three as one JSON document each (report_json.c), for
 * `status --json`, `load --json` and `show --json`; the schema is in
 * dts-console(1).
 */
int  report_status_json(FILE *f, const struct report_src *s, int64_t since,
    int64_t now);
void report_load_json(FILE *f, const struct report_src *s,
    const struct rla *r, int64_t now);
void report_show_json(FILE *f, const struct report_src *src);

/*
 * The METRICS of the nodes that answered since `since`, in Prometheus's
 * text exposition format 0.0.4 (report_prom.c); every node known (the
 * node table, and the destinations but broadcast addresses) has
 * dts_node_up, 0 if it did not answer.  Returns how many answered.
 */
int  report_metrics(FILE *f, const struct report_src *s, int64_t since);

/*
 * The gang matrix (report_jobs.c), `jobs` and `jobs --json`: one row per
 * matrix row, one column per live node (node i of s->mx is
 * s->nodes->v[i]), each cell the job of that row on that node, and each
 * row's slot (start and length in ms) and share of PS.
 */
void report_jobs(FILE *f, const struct report_src *s);
void report_jobs_json(FILE *f, const struct report_src *s);

/* A job's name from a STATUS field (maybe not NUL terminated): printable
 * bytes as they are, any other as '?'. */
const char *report_job_name(const char job[PROTO_JOB_LEN],
		char out[PROTO_JOB_LEN]);

/* What both forms print: the sum of a node's rejected datagrams; its
 * skew against ref in µs (0, or -1 if not comparable); its master,
 * "this" or an address (NULL: none). */
uint64_t    report_rejected(const struct proto_status *st);
int         report_skew(const struct node *n, const struct node *ref,
		double *us);
const char *report_master(const struct proto_status *st, char *buf,
		size_t len);

/*
 * Whose values show prints: this console's, and whether it sent them.
 * The nodes' own come from their STATUS: report_runs groups the nodes
 * heard from by what they run (mode, PS, IP, slicing, on their own
 * dts.conf's schedule, master) into at most max groups, the nodes beyond
 * counted in the last group's others.  Returns the number of groups.
 */
#define REPORT_RUNS_MAX 4
struct report_run {
	unsigned	 mode;
	uint32_t	 ps_us, ip_us, master;
	int		 slicing, own;
	int		 nodes, others;
};
const char *report_show_whose(const struct sch *s);
int         report_runs(const struct nodes *ns, struct report_run *r,
		int max);

/* "1.5s ago", "never" */
const char *report_ago(int64_t then, int64_t now, char *buf, size_t len);

#endif /* DTS_CONSOLE_REPORT_H */
