/*
 * gang.c - backend-independent gang control.
 */
#include <sched.h>
#include <signal.h>
#include <string.h>

#include "conf.h"
#include "gang.h"
#include "log.h"
#include "proc.h"

int
gang_prepare(struct gang *g, int backend, int rt_prio)
{
	memset(g, 0, sizeof(*g));
	g->freeze_fd = -1;
	g->rt = 1;	/* pvmd is started at SCHED_RR */
	g->rt_prio = rt_prio;
	g->be = backend == BACKEND_FREEZER ? &gang_freezer_backend
	    : &gang_signal_backend;
	return g->be->prepare(g);
}

const char *
gang_join_dir(const struct gang *g)
{
	return g->cgroup[0] ? g->cgroup : NULL;
}

int
gang_attach(struct gang *g, pid_t pgid)
{
	if (pgid <= 1)
		return -1;
	g->pgid = pgid;
	return g->be->attach(g);
}

int
gang_stop(struct gang *g)
{
	if (g->be->stop(g) < 0)
		return -1;
	g->stopped = 1;
	return 0;
}

int
gang_cont(struct gang *g)
{
	if (g->be->cont(g) < 0)
		return -1;
	g->stopped = 0;
	return 0;
}

void
gang_set_rt(struct gang *g, int rt)
{
	int n;

	if (g->rt == rt)
		return;
	n = proc_pgid_set_policy(g->pgid, rt ? SCHED_RR : SCHED_OTHER,
	    rt ? g->rt_prio : 0);
	g->rt = rt;
	log_info("gang %d: %d members now at %s", (int)g->pgid, n,
	    rt ? "SCHED_RR" : "SCHED_OTHER");
}

void
gang_release(struct gang *g)
{
	if (g->pgid <= 1)
		return;
	if (g->be)
		g->be->detach(g);
	proc_gang_release(g->pgid);
	g->stopped = 0;
	g->rt = 0;
}

int
gang_members(const struct gang *g)
{
	return g->pgid > 1 ? proc_pgid_count(g->pgid, NULL) : 0;
}
