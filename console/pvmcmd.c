/*
 * pvmcmd.c - conf, add, delete, tasks, spawn, halt.  See pvmcmd.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pvm3.h>

#include "console.h"
#include "pvmcmd.h"
#include "pvmerr.h"
#include "timeutil.h"

#define SPAWN_MAX 1024
#define HALT_WAIT (10 * NS_PER_SEC)	/* for the dts we started to end */

/* Connect (starting dts if need be) and refresh the host table. */
static int
ready(struct console *c, const char *cmd)
{
	if (cpvm_connect(&c->pvm, 1) == -1 || (c->pvm.connected &&
	    cpvm_refresh(&c->pvm) == -1))
		return out_prefix(&c->out, cmd);
	return 0;
}

static const char *
host_of(const struct console *c, int dtid)
{
	int	 i;

	for (i = 0; i < c->hosts.n; i++)
		if (c->hosts.v[i].tid == dtid)
			return c->hosts.v[i].name;
	return "?";
}

int
cpvm_cmd_conf(struct console *c, int argc, char **argv)
{
	char	 a[INET_ADDRSTRLEN];
	int	 i;

	if (ready(c, "conf") == -1)
		return -1;
	fprintf(c->out.f, "%d host%s (PVM_TMP %s)\n", c->hosts.n,
	    c->hosts.n == 1 ? "" : "s", c->pvm.tmp);
	fprintf(c->out.f, "%-24s %8s %-10s %6s %s\n", "HOST", "DTID", "ARCH",
	    "SPEED", "ADDRESS");
	for (i = 0; i < c->hosts.n; i++) {
		const struct vm_host *h = &c->hosts.v[i];

		if (h->have_addr)
			inet_ntop(AF_INET, &h->addr, a, sizeof(a));
		fprintf(c->out.f, "%-24s %8x %-10s %6d %s\n", h->name, h->tid,
		    h->arch, h->speed, h->have_addr ? a : "?");
	}
	return 0;
}

/* pvm_addhosts / pvm_delhosts over argv[1..], one line per host. */
static int
hosts_op(struct console *c, int argc, char **argv, int add)
{
	char	**names;
	int	 *info, i, rc, failed = 0;
	size_t	  len;

	if (ready(c, argv[0]) == -1)
		return -1;
	names = calloc((size_t)argc, sizeof(*names));
	info = calloc((size_t)argc, sizeof(*info));
	for (i = 1; names != NULL && info != NULL && i < argc; i++) {
		len = strlen(argv[i]) + strlen(c->conf.console.launcher) + 8;
		if (!add)
			names[i - 1] = strdup(argv[i]);
		else if ((names[i - 1] = malloc(len)) != NULL)
			snprintf(names[i - 1], len, "%s dx=%s", argv[i],
			    c->conf.console.launcher);
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
			fprintf(c->out.f, "%s: %s\n", argv[i],
			    pvmerr_msg(info[i - 1]));
		} else
			fprintf(c->out.f, "%s: %s\n", argv[i], add ? "added" :
			    "deleted");
	}
	for (i = 0; names != NULL && i < argc - 1; i++)
		free(names[i]);
	free(names);
	free(info);
	cpvm_refresh(&c->pvm);
	if (rc < 0)
		return out_err(&c->out, "%s: %s", argv[0], pvmerr_msg(rc));
	if (failed > 0)
		return out_err(&c->out, "%s: %d of %d host%s failed", argv[0],
		    failed, argc - 1, argc == 2 ? "" : "s");
	return 0;
}

int
cpvm_cmd_add(struct console *c, int argc, char **argv)
{
	return hosts_op(c, argc, argv, 1);
}

int
cpvm_cmd_delete(struct console *c, int argc, char **argv)
{
	return hosts_op(c, argc, argv, 0);
}

int
cpvm_cmd_tasks(struct console *c, int argc, char **argv)
{
	struct pvmtaskinfo	*ti;
	int			 i, rc, n;

	if (ready(c, "tasks") == -1)
		return -1;
	if ((rc = pvm_tasks(0, &n, &ti)) < 0)
		return out_err(&c->out, "tasks: %s", pvmerr_msg(rc));
	fprintf(c->out.f, "%d task%s\n%-24s %8s %8s %8s %6s %s\n", n,
	    n == 1 ? "" : "s", "HOST", "TID", "PTID", "PID", "FLAG",
	    "COMMAND");
	for (i = 0; i < n; i++)
		fprintf(c->out.f, "%-24s %8x %8x %8d %6x %s\n",
		    host_of(c, ti[i].ti_host), ti[i].ti_tid, ti[i].ti_ptid,
		    ti[i].ti_pid, ti[i].ti_flag, ti[i].ti_a_out[0] != '\0' ?
		    ti[i].ti_a_out : "-");
	return 0;
}

/* -n N and -w HOST before PROG; returns the index of PROG or -1. */
static int
spawn_opts(struct console *c, int argc, char **argv, int *n, char **where)
{
	char	*end;
	long	 v;
	int	 i;

	for (i = 1; i < argc && argv[i][0] == '-'; i += 2) {
		if (strcmp(argv[i], "--") == 0)
			return i + 1 < argc ? i + 1 : out_err(&c->out, "spawn: "
			    "PROG missing (usage: spawn [-n N] [-w HOST] "
			    "PROG [ARG...])");
		if (strcmp(argv[i], "-n") != 0 && strcmp(argv[i], "-w") != 0)
			return out_err(&c->out, "spawn: unknown option \"%s\" "
			    "(usage: spawn [-n N] [-w HOST] PROG [ARG...])",
			    argv[i]);
		if (i + 1 >= argc)
			return out_err(&c->out, "spawn: %s needs a value",
			    argv[i]);
		if (argv[i][1] == 'w') {
			*where = argv[i + 1];
			continue;
		}
		errno = 0;
		v = strtol(argv[i + 1], &end, 10);
		if (end == argv[i + 1] || *end != '\0' || errno != 0 ||
		    v < 1 || v > SPAWN_MAX)
			return out_err(&c->out, "spawn: -n \"%s\" is not a "
			    "count from 1 to %d", argv[i + 1], SPAWN_MAX);
		*n = (int)v;
	}
	if (i >= argc)
		return out_err(&c->out, "spawn: PROG missing (usage: spawn "
		    "[-n N] [-w HOST] PROG [ARG...])");
	return i;
}

int
cpvm_cmd_spawn(struct console *c, int argc, char **argv)
{
	char	*where = NULL;
	int	*tids, i, n = 1, prog, rc;

	if ((prog = spawn_opts(c, argc, argv, &n, &where)) == -1 ||
	    ready(c, "spawn") == -1)
		return -1;
	if ((tids = calloc((size_t)n, sizeof(*tids))) == NULL)
		return out_err(&c->out, "spawn: out of memory");
	rc = pvm_spawn(argv[prog], prog + 1 < argc ? argv + prog + 1 : NULL,
	    where != NULL ? PvmTaskHost : PvmTaskDefault, where, n, tids);
	if (rc < 0) {
		free(tids);
		return out_err(&c->out, "spawn: %s", pvmerr_msg(rc));
	}
	fprintf(c->out.f, "spawned %d of %d:", rc, n);
	for (i = 0; i < rc; i++)
		fprintf(c->out.f, " t%x", tids[i]);
	fprintf(c->out.f, "\n");
	rc = n - rc;
	if (rc > 0)
		out_err(&c->out, "spawn: %d of %d failed: %s", rc, n,
		    pvmerr_msg(tids[n - 1]));
	free(tids);
	return rc > 0 ? -1 : 0;
}

int
cpvm_cmd_halt(struct console *c, int argc, char **argv)
{
	char	 why[CMD_ERR_MAX];
	int	 rc;

	if (c->pvm.off)
		return out_err(&c->out, "halt: a PVM command, and PVM is off "
		    "(dts-console -n): stop releases the gangs, an MPI job "
		    "ends with its mpirun");
	if (cpvm_connect(&c->pvm, 0) == -1) {
		snprintf(why, sizeof(why), "%s", c->out.err);
		return out_err(&c->out, "halt: no virtual machine to halt (%s)",
		    why);
	}
	c->pvm.halt_at = now_mono_ns();	/* pvmd will SIGTERM us too */
	rc = pvm_halt();
	cpvm_drop(&c->pvm);
	if (rc < 0 && rc != PvmSysErr)
		return out_err(&c->out, "halt: %s", pvmerr_msg(rc));
	cpvm_wait_master(&c->pvm, HALT_WAIT);
	c->sch.started = 0;	/* every node is gone with its pvmd */
	c->sch.spoken = 0;
	fprintf(c->out.f, "halted the virtual machine: every pvmd ends, and "
	    "the dts running it releases its gang and exits\n");
	return 0;
}
