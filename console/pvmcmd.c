/*
 * pvmcmd.c - conf, add, delete, tasks, spawn, halt.  See pvmcmd.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <pvm3.h>

#include "job.h"
#include "placed.h"
#include "../place/layer.h"	/* not -I place: its poll.h */
#include "../place/plan.h"
#include "pvm.h"
#include "pvmcmd.h"
#include "pvmerr.h"
#include "timeutil.h"

#define SPAWN_MAX 1024
#define HALT_WAIT (10 * NS_PER_SEC)	/* for the dts we started to end */

/*
 * Lifted (cpvm_lift; the command's caller lets go: lifted() below),
 * connected (starting dts if need be), the host table refreshed.
 */
static int
ready(struct cpvm *p, const char *cmd)
{
	cpvm_lift(p);
	if (cpvm_connect(p, 1) == -1 || (p->connected &&
	    cpvm_refresh(p) == -1))
		return out_prefix(p->out, cmd);
	return 0;
}

static const char *
host_of(const struct cpvm *p, int dtid)
{
	int	 i;

	for (i = 0; i < p->hosts->n; i++)
		if (p->hosts->v[i].tid == dtid)
			return p->hosts->v[i].name;
	return "?";
}

/* The hosts of the VM as one JSON document (dts-console(1), JSON OUTPUT). */
static int
conf_json(struct cpvm *p)
{
	json_t	*root = json_object(), *a = json_array(), *h;
	char	 buf[INET_ADDRSTRLEN];
	int	 i;

	for (i = 0; i < p->hosts->n; i++) {
		const struct vm_host *v = &p->hosts->v[i];

		h = json_object();
		json_object_set_new(h, "host", json_string(v->name));
		json_object_set_new(h, "dtid", json_integer(v->tid));
		json_object_set_new(h, "arch", json_string(v->arch));
		json_object_set_new(h, "speed", json_integer(v->speed));
		json_object_set_new(h, "address", v->have_addr ?
		    json_string(inet_ntop(AF_INET, &v->addr, buf,
		    sizeof(buf))) : json_null());
		json_array_append_new(a, h);
	}
	json_object_set_new(root, "hosts", a);
	json_object_set_new(root, "pvm_tmp", json_string(p->tmp));
	json_dumpf(root, p->out->f, JSON_INDENT(2));
	json_decref(root);
	fputc('\n', p->out->f);
	return 0;
}

static int
cmd_conf(struct cpvm *p, int argc, char **argv)
{
	char	 a[INET_ADDRSTRLEN];
	int	 i;

	if (ready(p, "conf") == -1)
		return -1;
	if (argc > 1)	/* --json, checked by the command table's caller */
		return conf_json(p);
	fprintf(p->out->f, "%d host%s (PVM_TMP %s)\n", p->hosts->n,
	    p->hosts->n == 1 ? "" : "s", p->tmp);
	fprintf(p->out->f, "%-24s %8s %-10s %6s %s\n", "HOST", "DTID", "ARCH",
	    "SPEED", "ADDRESS");
	for (i = 0; i < p->hosts->n; i++) {
		const struct vm_host *h = &p->hosts->v[i];

		if (h->have_addr)
			inet_ntop(AF_INET, &h->addr, a, sizeof(a));
		fprintf(p->out->f, "%-24s %8x %-10s %6d %s\n", h->name, h->tid,
		    h->arch, h->speed, h->have_addr ? a : "?");
	}
	return 0;
}

/* pvm_addhosts / pvm_delhosts over argv[1..], one line per host. */
static int
hosts_op(struct cpvm *p, int argc, char **argv, int add)
{
	char	**names;
	int	 *info, i, rc, failed = 0;
	size_t	  len;

	if (ready(p, argv[0]) == -1)
		return -1;
	names = calloc((size_t)argc, sizeof(*names));
	info = calloc((size_t)argc, sizeof(*info));
	for (i = 1; names != NULL && info != NULL && i < argc; i++) {
		len = strlen(argv[i]) + strlen(p->conf->console.launcher) + 8;
		if (!add)
			names[i - 1] = strdup(argv[i]);
		else if ((names[i - 1] = malloc(len)) != NULL)
			snprintf(names[i - 1], len, "%s dx=%s", argv[i],
			    p->conf->console.launcher);
		if (names[i - 1] == NULL)
			break;
	}
	if (names == NULL || info == NULL || i < argc)
		rc = PvmNoMem;
	else if (add)
		rc = pvm_addhosts(names, argc - 1, info);
	else
		rc = pvm_delhosts(names, argc - 1, info);
	for (i = 1; rc >= 0 && i < argc; i++) {
		if (info[i - 1] < 0) {
			failed++;
			fprintf(p->out->f, "%s: %s\n", argv[i],
			    pvmerr_msg(info[i - 1]));
		} else
			fprintf(p->out->f, "%s: %s\n", argv[i], add ? "added" :
			    "deleted");
	}
	for (i = 0; names != NULL && i < argc - 1; i++)
		free(names[i]);
	free(names);
	free(info);
	cpvm_refresh(p);
	if (rc < 0)
		return out_err(p->out, "%s: %s", argv[0], pvmerr_msg(rc));
	if (failed > 0)
		return out_err(p->out, "%s: %d of %d host%s failed", argv[0],
		    failed, argc - 1, argc == 2 ? "" : "s");
	return 0;
}

static int
cmd_add(struct cpvm *p, int argc, char **argv)
{
	return hosts_op(p, argc, argv, 1);
}

static int
cmd_delete(struct cpvm *p, int argc, char **argv)
{
	return hosts_op(p, argc, argv, 0);
}

/*
 * The VM's user's placement record (dts-place(1)) into t: missing, it is
 * empty and nothing is said; unreadable, one line says so.
 */
static void
tasks_placed(struct cpvm *p, struct placed_tab *t)
{
	char	 path[CONF_STR_MAX + 32];

	placed_path(path, sizeof(path), p->conf->place.record, p->tmp,
	    getuid());
	if (placed_load(t, path, PLACED_READ_MAX) == -1 && errno != ENOENT)
		fprintf(p->out->f, "(placement record %s: %s)\n", path,
		    strerror(errno));
}

static int
cmd_tasks(struct cpvm *p, int argc, char **argv)
{
	static struct placed_tab	 t;
	const struct placed_ent		*e;
	struct pvmtaskinfo		*ti;
	char				 pl[48];
	int				 i, rc, n;

	if (ready(p, "tasks") == -1)
		return -1;
	if ((rc = pvm_tasks(0, &n, &ti)) < 0)
		return out_err(p->out, "tasks: %s", pvmerr_msg(rc));
	tasks_placed(p, &t);
	fprintf(p->out->f, "%d task%s\n%-24s %8s %8s %8s %6s %-16s %s\n", n,
	    n == 1 ? "" : "s", "HOST", "TID", "PTID", "PID", "FLAG",
	    "COMMAND", "PLACED");
	for (i = 0; i < n; i++) {
		if ((e = placed_find(&t, ti[i].ti_tid)) != NULL)
			snprintf(pl, sizeof(pl), "%.3f %s", e->good, e->cls);
		else
			snprintf(pl, sizeof(pl), "-");
		fprintf(p->out->f, "%-24s %8x %8x %8d %6x %-16s %s\n",
		    host_of(p, ti[i].ti_host), ti[i].ti_tid, ti[i].ti_ptid,
		    ti[i].ti_pid, ti[i].ti_flag, ti[i].ti_a_out[0] != '\0' ?
		    ti[i].ti_a_out : "-", pl);
	}
	return 0;
}

/* -n N and -w HOST before PROG; returns the index of PROG or -1. */
static int
spawn_opts(struct cpvm *p, int argc, char **argv, int *n, char **where)
{
	char	*end;
	long	 v;
	int	 i;

	for (i = 1; i < argc && argv[i][0] == '-'; i += 2) {
		if (strcmp(argv[i], "--") == 0)
			return i + 1 < argc ? i + 1 : out_err(p->out, "spawn: "
			    "PROG missing (usage: spawn [-n N] [-w HOST] "
			    "PROG [ARG...])");
		if (strcmp(argv[i], "-n") != 0 && strcmp(argv[i], "-w") != 0)
			return out_err(p->out, "spawn: unknown option \"%s\" "
			    "(usage: spawn [-n N] [-w HOST] PROG [ARG...])",
			    argv[i]);
		if (i + 1 >= argc)
			return out_err(p->out, "spawn: %s needs a value",
			    argv[i]);
		if (argv[i][1] == 'w') {
			*where = argv[i + 1];
			continue;
		}
		errno = 0;
		v = strtol(argv[i + 1], &end, 10);
		if (end == argv[i + 1] || *end != '\0' || errno != 0 ||
		    v < 1 || v > SPAWN_MAX)
			return out_err(p->out, "spawn: -n \"%s\" is not a "
			    "count from 1 to %d", argv[i + 1], SPAWN_MAX);
		*n = (int)v;
	}
	if (i >= argc)
		return out_err(p->out, "spawn: PROG missing (usage: spawn "
		    "[-n N] [-w HOST] PROG [ARG...])");
	return i;
}

/*
 * The console's placement (dts-place(1)): built at its first spawn with
 * no host named, its record where tasks reads it, its hosts asked for
 * fresh reports at each spawn (no loop polls them between commands).
 * NULL, said once, if it cannot be built: PVM's circle places.
 */
static struct placer *
placer_get(struct cpvm *p)
{
	static struct placer	 pl;
	static int		 state;	/* 0 not yet, 1 built, -1 cannot */
	char			 path[CONF_STR_MAX + 32], err[512];
	char			 job[PROTO_JOB_LEN];
	struct passwd		*pw;

	if (state != 0)
		return state == 1 ? &pl : NULL;
	state = -1;
	placed_path(path, sizeof(path), p->conf->place.record, p->tmp,
	    getuid());
	if ((pw = getpwuid(getuid())) == NULL)
		snprintf(err, sizeof(err), "who am I?");
	else if (job_name_make(job, pw->pw_name, job_label_pick(NULL), err,
	    sizeof(err)) == 0 && placer_init(&pl, p->conf, job, path,
	    getpid(), err, sizeof(err)) == 0) {
		pl.fresh = 1;
		state = 1;
		return &pl;
	}
	fprintf(p->out->f, "spawn: PVM's circle places the tasks: %s (said "
	    "once)\n", err);
	return NULL;
}

/*
 * pvm_spawn of n copies of file with no host named, placed as dts-place
 * places a program's (dts-place(1)): by the plan, one PvmTaskHost spawn
 * a host, or PVM's circle in one call where it spawns the same; the
 * tids each host got into the record.  Returns as pvm_spawn.
 */
static int
spawn_placed(struct cpvm *p, char *file, char **args, int n, int *tids)
{
	static char		 req[PLACE_MSG_MAX], rep[PLACE_MSG_MAX];
	static char		 msg[PLACE_MSG_MAX];
	struct placer		*pl = placer_get(p);
	struct pvmhostinfo	*hi;
	size_t			 mlen;
	int			 nhost, narch, len, said, rc, i;

	if (pl == NULL || pvm_config(&nhost, &narch, &hi) < 0 ||
	    (len = place_request(req, sizeof(req), file, n, hi, nhost)) == -1)
		return pvm_spawn(file, args, PvmTaskDefault, NULL, n, tids);
	/* lifted, this console is a member of our job's gang on its host */
	pl->t.self_extra = 0;
	for (i = 0; p->lift_fd != -1 && i < nhost; i++)
		if (hi[i].hi_tid == pvm_tidtohost(pvm_mytid())) {
			snprintf(pl->t.self, sizeof(pl->t.self), "%s",
			    hi[i].hi_name);
			pl->t.self_extra = 1;
		}
	said = pl->circle_said;
	len = placer_decide(pl, req, rep, sizeof(rep));
	if (len <= 0 || (size_t)len >= sizeof(rep) ||
	    (strncmp(rep, "PLAN\n", 5) != 0 && strncmp(rep, "SAME", 4) != 0)) {
		if (!said && pl->circle_said)
			fprintf(p->out->f, "spawn: PVM's circle places the "
			    "tasks: %s (said once)\n", pl->circle_why);
		return pvm_spawn(file, args, PvmTaskDefault, NULL, n, tids);
	}
	rc = place_by_reply(pvm_spawn, pvm_tidtohost, rep, hi, nhost, file,
	    args, PvmTaskDefault, n, tids, msg, sizeof(msg), &mlen);
	placer_flush(pl, msg[4] != '\0' ? msg + 5 : NULL);
	return rc;
}

static int
cmd_spawn(struct cpvm *p, int argc, char **argv)
{
	char	*where = NULL;
	int	*tids, i, n = 1, prog, rc;

	if ((prog = spawn_opts(p, argc, argv, &n, &where)) == -1 ||
	    ready(p, "spawn") == -1)
		return -1;
	if ((tids = calloc((size_t)n, sizeof(*tids))) == NULL)
		return out_err(p->out, "spawn: out of memory");
	if (where != NULL)
		rc = pvm_spawn(argv[prog], prog + 1 < argc ? argv + prog + 1 :
		    NULL, PvmTaskHost, where, n, tids);
	else
		rc = spawn_placed(p, argv[prog], prog + 1 < argc ?
		    argv + prog + 1 : NULL, n, tids);
	if (rc < 0) {
		free(tids);
		return out_err(p->out, "spawn: %s", pvmerr_msg(rc));
	}
	fprintf(p->out->f, "spawned %d of %d:", rc, n);
	for (i = 0; i < rc; i++)
		fprintf(p->out->f, " t%x", tids[i]);
	fprintf(p->out->f, "\n");
	rc = n - rc;
	if (rc > 0)
		out_err(p->out, "spawn: %d of %d failed: %s", rc, n,
		    pvmerr_msg(tids[n - 1]));
	free(tids);
	return rc > 0 ? -1 : 0;
}

static int
cmd_halt(struct cpvm *p, int argc, char **argv)
{
	char	 why[OUT_ERR_MAX];
	int	 rc;

	if (p->off)
		return out_err(p->out, "halt: a PVM command, and PVM is off "
		    "(dts-console -n): stop releases the gangs, an MPI job "
		    "ends with its mpirun");
	cpvm_lift(p);
	if (cpvm_connect(p, 0) == -1) {
		snprintf(why, sizeof(why), "%s", p->out->err);
		return out_err(p->out, "halt: no virtual machine to halt (%s)",
		    why);
	}
	p->halt_at = now_mono_ns();	/* pvmd will SIGTERM us too */
	rc = pvm_halt();
	cpvm_unlift(p);		/* before the wait: the job ends */
	cpvm_drop(p);
	if (rc < 0 && rc != PvmSysErr)
		return out_err(p->out, "halt: %s", pvmerr_msg(rc));
	cpvm_wait_master(p, HALT_WAIT);
	fprintf(p->out->f, "halted the virtual machine: every pvmd and its "
	    "tasks end and every gang empties; the dts services keep "
	    "running, waiting for the next pvmd\n");
	return 0;
}

/*
 * Each command lifted for its length (ready, cmd_halt), its answer
 * written out included (a pipe's stdio buffer would otherwise be written
 * after, at SCHED_OTHER), and no longer.
 */
#define LIFTED(name)							\
int									\
cpvm_cmd_##name(struct cpvm *p, int argc, char **argv)			\
{									\
	int	 rc = cmd_##name(p, argc, argv);			\
									\
	fflush(p->out->f);						\
	cpvm_unlift(p);							\
	return rc;							\
}
LIFTED(conf)
LIFTED(add)
LIFTED(delete)
LIFTED(tasks)
LIFTED(spawn)
LIFTED(halt)
