/*
 * cmds.c - the command table and the scheduling commands.  The PVM
 * commands are in pvmcmd.c; `set` parses and checks its keys in setkeys.c
 * (through the dts.conf schema) and applies them here.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "console.h"
#include "job.h"
#include "mctl.h"
#include "pvmcmd.h"
#include "report.h"
#include "rules.h"
#include "setkeys.h"
#include "timeutil.h"
#include "trace.h"

static void
intervals(struct console *c)
{
	char	 ip[32], ps[64], ls[32], si[32];

	fprintf(c->out.f, "ip %s, ps %s, ls %s, si %s%s%s\n",
	    duration_format(c->sch.ip, ip, sizeof(ip)),
	    sch_ps_text(&c->sch, ps, sizeof(ps)),
	    duration_format(c->sch.ip - sch_user_ps(&c->sch), ls, sizeof(ls)),
	    duration_format(c->sch.si, si, sizeof(si)),
	    c->sch.spoken ? " (sent)" : "", c->own ? " (console's own)" : "");
}

/* Set an interval with fn, or show it. */
static int
interval(struct console *c, int argc, char **argv,
    int (*fn)(struct sch *, const char *, char *, size_t), int rebase)
{
	if (argc == 1) {
		char	 b[64];

		if (strcmp(argv[0], "ip") == 0)
			duration_format(c->sch.ip, b, sizeof(b));
		else if (strcmp(argv[0], "ps") == 0)
			sch_ps_text(&c->sch, b, sizeof(b));
		else if (strcmp(argv[0], "ls") == 0)
			duration_format(c->sch.ip - sch_user_ps(&c->sch), b,
			    sizeof(b));
		else
			duration_format(c->sch.si, b, sizeof(b));
		fprintf(c->out.f, "%s %s%s\n", argv[0], b, c->own ?
		    " (console's own)" : "");
		if (c->sch.mode == MODE_BALANCED && c->sch.bal_ls_pct >= 0 &&
		    strcmp(argv[0], "si") != 0)
			fprintf(c->out.f, "(balanced: PS is %s now, LS %d%% "
			    "from the RLA)\n", duration_format(sch_ps(&c->sch),
			    b, sizeof(b)), c->sch.bal_ls_pct);
		return 0;
	}
	if (fn(&c->sch, argv[1], c->out.err, sizeof(c->out.err)) == -1)
		return -1;
	master_changed(&c->e, rebase, now_mono_ns());
	intervals(c);
	return 0;
}

static int
cmd_ip(struct console *c, int argc, char **argv)
{
	return interval(c, argc, argv, sch_set_ip, 1);
}

static int
cmd_ps(struct console *c, int argc, char **argv)
{
	return interval(c, argc, argv, sch_set_ps, 1);
}

static int
cmd_ls(struct console *c, int argc, char **argv)
{
	return interval(c, argc, argv, sch_set_ls, 1);
}

static int
cmd_si(struct console *c, int argc, char **argv)
{
	return interval(c, argc, argv, sch_set_si, 0);
}

static int
cmd_mode(struct console *c, int argc, char **argv)
{
	int	 old = c->sch.mode;

	if (argc == 2) {
		if (sch_set_mode(&c->sch, argv[1], c->out.err,
		    sizeof(c->out.err)) == -1)
			return -1;
		if (c->sch.mode != old) {
			master_mode_changed(&c->e, now_mono_ns());
			master_changed(&c->e, 1, now_mono_ns());
		}
	}
	fprintf(c->out.f, "mode %s%s%s\n", proto_mode_name((unsigned)
	    c->sch.mode), argc == 2 && c->sch.spoken ? " (sent)" : "",
	    c->own ? " (console's own)" : "");
	return 0;
}

static int
start_flags(struct console *c, const char *what, int flags)
{
	struct sch	 old = c->sch;
	char		 ps[32], ip[32], si[32];
	int		 n;

	if (sch_check(&c->sch, what, c->out.err, sizeof(c->out.err)) == -1)
		return -1;
	sch_start(&c->sch, now_real_ns());
	if ((n = master_send_flags(&c->e, flags, now_mono_ns())) < 0) {
		c->sch = old;
		return out_prefix(&c->out, what);
	}
	master_started(&c->e, now_mono_ns());
	fprintf(c->out.f, "%s: mode %s, PS %s of IP %s, SI %s, sync %s; "
	    "sent to %d destination%s\n", flags & SCHED_F_TAKEOVER ?
	    "taken over" : "started", proto_mode_name((unsigned)
	    c->sch.mode), duration_format(sch_ps(&c->sch), ps, sizeof(ps)),
	    duration_format(c->sch.ip, ip, sizeof(ip)),
	    duration_format(c->sch.si, si, sizeof(si)),
	    proto_sync_name((unsigned)c->sch.sync), n, n == 1 ? "" : "s");
	if (standby_following(&c->sb))
		fprintf(c->out.f, "standby: this console follows its peer's "
		    "schedule and sends none (takeover takes over)\n");
	return 0;
}

static int
cmd_start(struct console *c, int argc, char **argv)
{
	return start_flags(c, "start", 0);
}

static int
cmd_takeover(struct console *c, int argc, char **argv)
{
	if (standby_following(&c->sb))	/* the followed schedule, as it is */
		return standby_take(&c->sb, "takeover", now_mono_ns()) < 0 ?
		    -1 : 0;
	return start_flags(c, "takeover", SCHED_F_TAKEOVER);
}

static int
cmd_stop(struct console *c, int argc, char **argv)
{
	struct sch	 old = c->sch;
	int		 n;

	sch_stop(&c->sch);
	if ((n = master_send(&c->e, now_mono_ns())) < 0) {
		c->sch = old;
		return out_prefix(&c->out, "stop");
	}
	fprintf(c->out.f, "stopped: the nodes release their gangs (continued, "
	    "normal priority); sent to %d destination%s\n", n,
	    n == 1 ? "" : "s");
	return 0;
}

static int
cmd_sync(struct console *c, int argc, char **argv)
{
	int	 n;

	if (!c->sch.started)
		return out_err(&c->out, "sync: not started (start first)");
	if ((n = master_send(&c->e, now_mono_ns())) < 0)
		return out_prefix(&c->out, "sync");
	fprintf(c->out.f, "sync sent to %d destination%s\n", n,
	    n == 1 ? "" : "s");
	return 0;
}

/*
 * The options of status, load, show and conf: -v (where verbose is
 * allowed) and --json.  Their MASTER_* bits, or -1 after one error line.
 */
static int
report_opts(struct console *c, int argc, char **argv, int verbose_ok)
{
	int	 how = 0, i;

	for (i = 1; i < argc; i++) {
		if (verbose_ok && strcmp(argv[i], "-v") == 0)
			how |= MASTER_VERBOSE;
		else if (strcmp(argv[i], "--json") == 0)
			how |= MASTER_JSON;
		else
			return out_err(&c->out, "%s: unknown option \"%s\" "
			    "(usage: %s %s)", argv[0], argv[i], argv[0],
			    verbose_ok ? "[-v] [--json]" : "[--json]");
	}
	if ((how & MASTER_VERBOSE) && (how & MASTER_JSON))
		return out_err(&c->out, "%s: -v and --json: the JSON document "
		    "has every field already", argv[0]);
	return how;
}

static int
cmd_status(struct console *c, int argc, char **argv)
{
	int	 how;

	if ((how = report_opts(c, argc, argv, 1)) == -1)
		return -1;
	return master_status(&c->e, MASTER_STATUS, how, now_mono_ns());
}

static int
cmd_load(struct console *c, int argc, char **argv)
{
	int	 how;

	if ((how = report_opts(c, argc, argv, 0)) == -1)
		return -1;
	return master_status(&c->e, MASTER_LOAD, how, now_mono_ns());
}

static int
cmd_jobs(struct console *c, int argc, char **argv)
{
	int	 how;

	if ((how = report_opts(c, argc, argv, 0)) == -1)
		return -1;
	return master_status(&c->e, MASTER_JOBS, how, now_mono_ns());
}

static int
cmd_metrics(struct console *c, int argc, char **argv)
{
	return master_metrics(&c->e, argc > 1 ? argv[1] : NULL, now_mono_ns());
}

static int
cmd_trace(struct console *c, int argc, char **argv)
{
	int64_t	 dur = TRACE_DUR_DEFAULT;
	char	 err[256], b[32], m[32];

	if (argc > 2 && duration_parse(argv[2], &dur, err, sizeof(err)) < 0)
		return out_err(&c->out, "trace: %s", err);
	if (dur <= 0 || dur > TRACE_DUR_MAX)
		return out_err(&c->out, "trace: %s is out of range (0, %s]",
		    duration_format(dur, b, sizeof(b)),
		    duration_format(TRACE_DUR_MAX, m, sizeof(m)));
	return master_trace(&c->e, argv[1], dur, now_mono_ns());
}

static int
cmd_show(struct console *c, int argc, char **argv)
{
	struct report_src	 src;
	int			 how;

	if ((how = report_opts(c, argc, argv, 0)) == -1)
		return -1;
	master_report_src(c, &src);
	if (how & MASTER_JSON)
		report_show_json(c->out.f, &src);
	else
		report_show(c->out.f, &src);
	return 0;
}

/* What a key that `set` changed means for the schedule and the master. */
static void
set_apply(struct console *c, enum setkey id)
{
	int64_t	 now = now_mono_ns();

	switch (id) {
	case SETKEY_SYNC:
		sch_set_policy(&c->sch, &c->conf);
		master_changed(&c->e, 1, now);
		break;
	case SETKEY_LS_POLICY:
		sch_set_policy(&c->sch, &c->conf);
		master_changed(&c->e, 0, now);
		break;
	case SETKEY_RLA:
		bal_reset(&c->bal);
		master_balance(&c->e, now);
		break;
	case SETKEY_TIMEOUT:
		master_balance(&c->e, now);
		break;
	case SETKEY_HYSTERESIS:
	case SETKEY_STATUS_WAIT:
	case SETKEY_WEIGHT:	/* set_weight() */
		break;
	}
}

/*
 * set weight JOB W: a job name (USER:LABEL; a host name has no ':').  The
 * weight stays with the name while the console runs: a job that ends and
 * comes back keeps it, and a job no node runs yet gets it when it starts
 * (so a --daemon master can be given weights by -c at start-up); it
 * wins over the weight the job's nodes give (the SPANK plugin's); W auto
 * forgets it.
 */
static int
set_job_weight(struct console *c, const char *job, const char *ws)
{
	int64_t	 now = now_mono_ns();
	char	 err[256], name[PROTO_JOB_LEN] = { 0 };
	int	 w, seen;

	if (jobw_parse(ws, &w, err, sizeof(err)) == -1)
		return out_err(&c->out, "set weight: %s", err);
	if (strlen(job) >= sizeof(name))
		return out_err(&c->out, "set weight: job name \"%.40s...\" is "
		    "too long (at most %d bytes)", job, PROTO_JOB_LEN - 1);
	memcpy(name, job, strlen(job));
	if (job_name_check(name, err, sizeof(err)) == -1)
		return out_err(&c->out, "set weight: %s", err);
	master_matrix(&c->e, now);
	seen = matrix_find(&c->m.mx, job) >= 0;
	if (jobw_set(&c->jobw, job, w) == -1)
		return out_err(&c->out, "set weight: at most %d job weights "
		    "(set weight JOB auto forgets one)", JOBW_MAX);
	standby_weights_changed(&c->sb, now);
	master_changed(&c->e, 0, now);
	if (w == JOBW_AUTO)
		fprintf(c->out.f, "weight %s auto (its nodes' if they give "
		    "one, else %d)%s\n", job, MATRIX_WEIGHT_DEFAULT,
		    seen && c->sch.spoken ? " (sent)" : "");
	else
		fprintf(c->out.f, "weight %s %d%s\n", job, w, !seen ?
	    " (no node runs it yet: kept for when one does)" :
	    c->sch.spoken ? " (sent)" : "");
	return 0;
}

static int
set_weight(struct console *c, const char *host, const char *ws)
{
	double	 w;

	if (setkeys_weight(host, ws, &w, c->out.err,
	    sizeof(c->out.err)) == -1)
		return -1;
	if (bal_weight_set(&c->weights, host, w) == -1)
		return out_err(&c->out, "set weight: at most %d weights",
		    WEIGHTS_MAX);
	standby_weights_changed(&c->sb, now_mono_ns());
	master_balance(&c->e, now_mono_ns());
	if (w > 0)
		fprintf(c->out.f, "weight %s %g\n", host, w);
	else
		fprintf(c->out.f, "weight %s from the PVM host speed\n", host);
	return 0;
}

/* set KEY VALUE | set weight HOST W */
static int
cmd_set(struct console *c, int argc, char **argv)
{
	char	 v[64], u[64];
	int	 n, id;

	if ((n = setkeys_nargs(argv[1], c->out.err,
	    sizeof(c->out.err))) == -1)
		return -1;
	if (argc - 2 != n)
		return out_err(&c->out, "set %s: %s arguments (usage: set %s "
		    "%s)", argv[1], argc - 2 < n ? "missing" : "too many",
		    argv[1], setkeys_usage(argv[1], u, sizeof(u)));
	/* the master's snapshot would replace it: the weights are set
	 * there (standby.h) */
	if (n == 2 && standby_following(&c->sb))
		return out_err(&c->out, "set weight: this console is standby: "
		    "it takes its master's weights (set them there)");
	if (n == 2 && strchr(argv[2], ':') != NULL)
		return set_job_weight(c, argv[2], argv[3]);
	if (n == 2)
		return set_weight(c, argv[2], argv[3]);
	if ((id = setkeys_conf(&c->conf, argv[1], argv[2], c->out.err,
	    sizeof(c->out.err))) == -1)
		return -1;
	set_apply(c, (enum setkey)id);
	fprintf(c->out.f, "%s %s%s\n", setkeys_name((enum setkey)id),
	    setkeys_value(&c->conf, (enum setkey)id, v, sizeof(v)),
	    (id == SETKEY_SYNC || id == SETKEY_LS_POLICY) && c->sch.spoken ?
	    " (sent)" : "");
	return 0;
}

static void
hosts_table(struct console *c)
{
	const struct hostfile	*hf = &c->hostfile;
	char			 a[INET_ADDRSTRLEN];
	int			 i;

	fprintf(c->out.f, "%-24s %-15s %s\n", "HOST", "ADDRESS", "SLOTS");
	for (i = 0; i < hf->n; i++) {
		inet_ntop(AF_INET, &hf->v[i].addr, a, sizeof(a));
		if (hf->v[i].slots > 0)
			fprintf(c->out.f, "%-24s %-15s %d\n", hf->v[i].name, a,
			    hf->v[i].slots);
		else
			fprintf(c->out.f, "%-24s %-15s -\n", hf->v[i].name, a);
	}
}

/*
 * hosts [FILE]: the nodes of an MPI job from its host file; they replace
 * every other destination.  Each becomes a known node (status lists it
 * as "no reply" until it answers); a running schedule goes to them now.
 */
static int
cmd_hosts(struct console *c, int argc, char **argv)
{
	struct in_addr	 a[NODES_MAX];
	struct hostfile	*hf;
	char		 err[CMD_ERR_MAX], where[CMD_ERR_MAX];
	int		 i;

	if (argc == 1) {
		if (c->hostfile.n == 0) {
			fprintf(c->out.f, "no host file read; the console "
			    "sends to %s\n", net_describe(&c->net, where,
			    sizeof(where)));
			return 0;
		}
		fprintf(c->out.f, "%d host%s from %s\n", c->hostfile.n,
		    c->hostfile.n == 1 ? "" : "s", c->hostfile.path);
		hosts_table(c);
		return 0;
	}
	if ((hf = malloc(sizeof(*hf))) == NULL)
		return out_err(&c->out, "hosts: out of memory");
	if (hostfile_load(argv[1], hostfile_resolve, hf, err,
	    sizeof(err)) == -1) {
		free(hf);
		return out_err(&c->out, "hosts: %s", err);
	}
	c->hostfile = *hf;
	free(hf);
	for (i = 0; i < c->hostfile.n; i++) {
		struct node *n = nodes_get(&c->nodes, c->hostfile.v[i].addr);

		a[i] = c->hostfile.v[i].addr;
		if (n != NULL && n->name[0] == '\0')
			snprintf(n->name, sizeof(n->name), "%s",
			    c->hostfile.v[i].name);
	}
	net_set_list(&c->net, a, c->hostfile.n, c->hostfile.path);
	fprintf(c->out.f, "%d host%s from %s: the console drives them from now "
	    "on%s\n", c->hostfile.n, c->hostfile.n == 1 ? "" : "s",
	    c->hostfile.path, c->sch.spoken ? " (schedule sent)" : "");
	hosts_table(c);
	master_changed(&c->e, 0, now_mono_ns());
	return 0;
}

/* The PVM commands (pvmcmd.c) work on the console's PVM side. */
static int
cmd_conf(struct console *c, int argc, char **argv)
{
	if (report_opts(c, argc, argv, 0) == -1)
		return -1;
	return cpvm_cmd_conf(&c->pvm, argc, argv);
}

static int
cmd_add(struct console *c, int argc, char **argv)
{
	return cpvm_cmd_add(&c->pvm, argc, argv);
}

static int
cmd_delete(struct console *c, int argc, char **argv)
{
	return cpvm_cmd_delete(&c->pvm, argc, argv);
}

static int
cmd_tasks(struct console *c, int argc, char **argv)
{
	return cpvm_cmd_tasks(&c->pvm, argc, argv);
}

static int
cmd_spawn(struct console *c, int argc, char **argv)
{
	return cpvm_cmd_spawn(&c->pvm, argc, argv);
}

static int
cmd_halt(struct console *c, int argc, char **argv)
{
	/* the VM ends, not the schedule: every node's dts, and the
	 * nodes' other jobs, outlive it */
	return cpvm_cmd_halt(&c->pvm, argc, argv);
}

static int
cmd_help(struct console *c, int argc, char **argv)
{
	return cmd_help_print(&cmds_table, c->out.f, argc > 1 ? argv[1] : NULL,
	    c->out.err, sizeof(c->out.err));
}

static int
cmd_quit(struct console *c, int argc, char **argv)
{
	c->quit = 1;
	return 0;
}

#define DUR "DUR is a duration: 800ms, 1s, 2.5s, 250us (a plain number " \
	"is seconds).\n"

static const struct cmd_entry table[] = {
	{ "help", "[CMD]", 0, 1, CMD_C_COMMAND, cmd_help,
	  "list the commands, or explain one", NULL },
	{ "mode", "[off|static|balanced|distributed|hpdt]", 0, 1, CMD_C_MODE,
	  cmd_mode, "show or set the scheduling mode",
	  "  static: fixed PS/LS, synchronized every SI; balanced: PS/LS from "
	  "the\n  cluster's RLA through Table 2.1; distributed: each node "
	  "from its own\n  load; hpdt: PVM tasks always at RT priority; off: "
	  "plain Linux.\n" },
	{ "ip", "[DUR]", 0, 1, CMD_C_NONE, cmd_ip,
	  "show or set the iteration period IP = PS + LS",
	  "  IP within " RULE_IP_RANGE " and at most SI.  A PS given as a share "
	  "follows IP.\n" DUR },
	{ "ps", "[DUR|PCT]", 0, 1, CMD_C_NONE, cmd_ps,
	  "show or set the parallel slice",
	  "  0 < PS < IP, inside the kernel's real-time budget.  \"ps 80%\" "
	  "keeps PS\n  at 80% of IP when IP changes later.\n" DUR },
	{ "ls", "[DUR|PCT]", 0, 1, CMD_C_NONE, cmd_ls,
	  "show or set the local slice (PS = IP - LS)",
	  "  \"ls 20ms\" sets PS = IP - 20ms; \"ls 20%\" sets PS to 80% of "
	  "IP.\n" DUR },
	{ "si", "[DUR]", 0, 1, CMD_C_NONE, cmd_si,
	  "show or set the synchronization interval",
	  "  SI within " RULE_SI_RANGE " and at least IP.  The schedule goes to "
	  "the nodes\n  every SI once started, and at once when it changes.\n"
	  DUR },
	{ "start", "", 0, 0, CMD_C_NONE, cmd_start,
	  "begin coscheduling on every node", NULL },
	{ "stop", "", 0, 0, CMD_C_NONE, cmd_stop,
	  "stop slicing: every node continues its gang at normal priority",
	  NULL },
	{ "sync", "", 0, 0, CMD_C_NONE, cmd_sync,
	  "send a synchronization now", NULL },
	{ "takeover", "", 0, 0, CMD_C_NONE, cmd_takeover,
	  "start, and make this console the master of every node",
	  "  A node follows one console, its master, and refuses (and "
	  "counts) the\n  schedules of any other.  takeover is start with "
	  "the TAKEOVER flag:\n  every node that hears it follows this "
	  "console from then on.  A node\n  whose master fell silent for "
	  "its silence follows the next console\n  without it.  status "
	  "shows each node's master.  In a standby console\n  (--standby): "
	  "take over, with the schedule it follows, from the master\n  "
	  "(which becomes standby).\n" },
	{ "status", "[-v] [--json]", 0, 2, CMD_C_NONE, cmd_status,
	  "one row per node: mode, PS/LS, phase, Q, slices, skew, ...",
	  "  Asks every node and prints the replies that arrive within\n"
	  "  console.status_wait.  Skew: the node's last PS start against "
	  "the node\n  with the lowest address, modulo IP.  -v adds the "
	  "rejected datagrams by\n  reason and more.\n" },
	{ "jobs", "[--json]", 0, 1, CMD_C_NONE, cmd_jobs,
	  "the gang matrix: rows of jobs x nodes, each row's slot of PS",
	  "  Asks every node for its jobs (as status does), packs them into "
	  "rows\n  (jobs whose nodes do not overlap share a row) and prints "
	  "the rows:\n  each row's slot start and length in ms, its share "
	  "of PS and weight,\n  and on each node the job of that row (- "
	  "none: the node runs its other\n  jobs then).  This is the table "
	  "the SCHEDULEs carry (set weight JOB W).\n" },
	{ "load", "[--json]", 0, 1, CMD_C_NONE, cmd_load,
	  "per node Q, weight W and Q/W; the RLA (mean and max)", NULL },
	{ "metrics", "[FILE]", 0, 1, CMD_C_NONE, cmd_metrics,
	  "every node's counters in Prometheus's text format",
	  "  Asks every node and writes the replies that arrive within\n"
	  "  console.status_wait, with dts_node_up 0 for a known node that "
	  "did not\n  answer: to the output, or to FILE, replaced as a "
	  "whole (FILE.tmp, then\n  renamed) for node_exporter's textfile "
	  "collector.\n" },
	{ "trace", "FILE [DUR]", 1, 2, CMD_C_NONE, cmd_trace,
	  "record every node's slice edges for DUR (5s) into FILE (CSV)",
	  "  Each node keeps its last 4096 edges; afterwards the console "
	  "asks each\n  for those of the window and writes "
	  "host,addr,phase,real_ns,late_ns,op_ns:\n  real_ns is "
	  "CLOCK_REALTIME when the gang was continued (PS) or stopped\n"
	  "  (LS), late_ns the wake-up after the deadline, op_ns the gang "
	  "operation.\n  tests/bench/svg.py gantt FILE OUT.svg draws the "
	  "Gantt chart.\n" },
	{ "hosts", "[FILE]", 0, 1, CMD_C_NONE, cmd_hosts,
	  "drive the hosts of an MPI host file, or list them",
	  "  FILE is an Open MPI (host slots=N) or MPICH (host:N) host file; "
	  "# starts\n  a comment.  Its hosts replace every other destination "
	  "(console.nodes,\n  unicast, broadcast) from now on; a running "
	  "schedule goes to them at once.\n  A bad line names the file and "
	  "the line and changes nothing.\n" },
	{ "set", "KEY VALUE | weight HOST|JOB W", 2, 3, CMD_C_SETKEY, cmd_set,
	  "set a tunable (see show; help set lists them)", SETKEYS_HELP },
	{ "show", "[--json]", 0, 1, CMD_C_NONE, cmd_show,
	  "show every tunable and where the datagrams go", NULL },
	{ "conf", "[--json]", 0, 1, CMD_C_NONE, cmd_conf,
	  "list the hosts of the PVM virtual machine", NULL },
	{ "add", "HOST...", 1, -1, CMD_C_HOST, cmd_add,
	  "add hosts to the VM; their pvmd starts under dts (dx=)", NULL },
	{ "delete", "HOST...", 1, -1, CMD_C_HOST, cmd_delete,
	  "delete hosts from the VM", NULL },
	{ "tasks", "", 0, 0, CMD_C_NONE, cmd_tasks,
	  "list the PVM tasks", NULL },
	{ "spawn", "[-n N] [-w HOST] PROG [ARG...]", 1, -1, CMD_C_HOST,
	  cmd_spawn, "start N (1) copies of a PVM program",
	  "  -w HOST starts them there; otherwise PVM chooses.\n" },
	{ "halt", "", 0, 0, CMD_C_NONE, cmd_halt,
	  "halt the VM: every pvmd and task ends; the dts services stay",
	  NULL },
	{ "quit", "", 0, 0, CMD_C_NONE, cmd_quit,
	  "leave the console; the nodes follow its schedule for their "
	  "silence",
	  "  A node that hears no schedule for its silence (dts.conf, 3 SI "
	  "by default)\n  goes back to the schedule of its own dts.conf.  "
	  "A schedule that lasts\n  needs a console that stays: "
	  "dts-console --daemon -c \"...; start\".\n" },
};

const struct cmd_table cmds_table = { table, sizeof(table) /
    sizeof(table[0]) };

/* The master takes this command (mctl.h): its kind, else -1. */
static int
mctl_kind_argv(int argc, char **argv)
{
	char	 line[MCTL_REQ_MAX], err[CMD_ERR_MAX];
	size_t	 n = 0;

	for (int i = 0; i < argc && n < sizeof(line); i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s",
		    i > 0 ? " " : "", argv[i]);
	return n >= sizeof(line) ? -1 : mctl_kind(line, err, sizeof(err));
}

/*
 * Run the command on the master (dts-master's socket): its output here;
 * a master that no longer answers is a failure, never a second master.
 */
static int
to_master(struct console *c, int argc, char **argv)
{
	char	 line[MCTL_REQ_MAX];
	size_t	 n = 0;
	int	 rc, ms = (int)(c->conf.console.status_wait_ns / 1000000) +
	    30000;

	for (int i = 0; i < argc && n < sizeof(line); i++) {
		if (strpbrk(argv[i], " \t\"'\\;") != NULL)
			return out_err(&c->out, "%s: \"%s\": a word the master's "
			    "protocol does not carry", argv[0], argv[i]);
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s",
		    i > 0 ? " " : "", argv[i]);
	}
	fflush(c->out.f);
	rc = mctl_call(c->conf.console.master_socket, line, c->out.f,
	    c->out.err, sizeof(c->out.err), ms);
	fflush(c->out.f);
	return rc == 0 ? 0 : -1;
}

int
cmds_exec(struct console *c, const char *line)
{
	const struct cmd_entry	*e;
	char			*buf, *argv[CMD_ARGS_MAX + 1];
	int			 argc, rc = -1;

	c->out.err[0] = '\0';
	if ((buf = strdup(line)) == NULL)
		return out_err(&c->out, "out of memory");
	if ((argc = cmd_split(buf, argv, CMD_ARGS_MAX, c->out.err,
	    sizeof(c->out.err))) == -1)
		goto out;
	argv[argc] = NULL;	/* spawn hands argv to pvm_spawn */
	rc = 0;
	if (argc == 0)
		goto out;
	rc = -1;
	if ((e = cmd_find(&cmds_table, argv[0], c->out.err,
	    sizeof(c->out.err))) == NULL ||
	    cmd_check_args(e, argc, c->out.err, sizeof(c->out.err)) == -1)
		goto out;
	argv[0] = (char *)e->name;
	if (c->remote && mctl_kind_argv(argc, argv) > 0)
		rc = to_master(c, argc, argv);
	else
		rc = e->fn(c, argc, argv);
out:
	free(buf);
	return rc;
}

const char *
cmds_error(const struct console *c)
{
	return c->out.err;
}

int
cmds_quitting(const struct console *c)
{
	return c->quit;
}

int
cmds_busy(const struct console *c)
{
	return master_busy(&c->e);
}

void
cmds_quit(struct console *c)
{
	c->quit = 1;
}

FILE *
cmds_output(struct console *c)
{
	return c->out.f;
}

void
cmds_notices(struct console *c, void (*fn)(const char *))
{
	c->out.notice = fn;
}

const char *
cmds_history(const struct console *c)
{
	return c->conf.console.history;
}

static const char *
nth(const char *const *names, const char *text, int i)
{
	size_t	 len = strlen(text);

	for (; *names != NULL; names++)
		if (strncmp(*names, text, len) == 0 && i-- == 0)
			return *names;
	return NULL;
}

static const char *
host_nth(struct console *c, const char *text, int i)
{
	size_t	 len = strlen(text);
	int	 k;

	for (k = 0; k < c->hosts.n; k++)
		if (strncmp(c->hosts.v[k].name, text, len) == 0 && i-- == 0)
			return c->hosts.v[k].name;
	for (k = 0; k < c->hostfile.n; k++)
		if (strncmp(c->hostfile.v[k].name, text, len) == 0 && i-- == 0)
			return c->hostfile.v[k].name;
	return NULL;
}

const char *
cmds_complete(struct console *c, const char *line, int start,
    const char *text, int i)
{
	const struct cmd_entry	*e;
	char			 first[64], err[CMD_ERR_MAX];
	int			 nwords = 0, k = 0, inword = 0;

	for (k = 0; k < start; k++) {
		if (line[k] != ' ' && line[k] != '\t' && !inword)
			nwords++;
		inword = line[k] != ' ' && line[k] != '\t';
	}
	if (nwords == 0)
		return cmd_complete_name(&cmds_table, text, i);
	k = (int)strspn(line, " \t");
	snprintf(first, sizeof(first), "%.*s", (int)strcspn(line + k, " \t"),
	    line + k);
	if ((e = cmd_find(&cmds_table, first, err, sizeof(err))) == NULL)
		return NULL;
	switch (e->complete) {
	case CMD_C_COMMAND:
		return nwords == 1 ? cmd_complete_name(&cmds_table, text, i) :
		    NULL;
	case CMD_C_MODE:
		return nwords == 1 ? nth(proto_mode_names, text, i) : NULL;
	case CMD_C_HOST:
		return host_nth(c, text, i);
	case CMD_C_SETKEY:
		return setkeys_complete(line + k, nwords, text, i,
		    &c->hosts);
	case CMD_C_NONE:
		break;
	}
	return NULL;
}
