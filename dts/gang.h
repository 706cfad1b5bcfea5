/*
 * gang.h - the gang: pvmd and every PVM task, one process group.
 *
 * Stopping and continuing go through a small backend interface so the
 * slice loop does not care how: `signal` (killpg SIGSTOP/SIGCONT, the
 * thesis) or `freezer` (cgroup v2 cgroup.freeze).  Priority changes walk
 * the members in /proc; nothing outside the group is ever touched.
 */
#ifndef DTS_GANG_H
#define DTS_GANG_H

#include <sys/types.h>

struct gang;

struct gang_backend {
	const char *name;
	int  (*prepare)(struct gang *g); /* before pvmd is forked */
	int  (*attach)(struct gang *g);  /* pvmd started: take the group in */
	int  (*stop)(struct gang *g);    /* hot path: no waiting */
	int  (*cont)(struct gang *g);    /* hot path */
	void (*detach)(struct gang *g);  /* thaw and let go */
};

struct gang {
	pid_t pgid;
	int   stopped;
	int   rt;              /* members at SCHED_RR rt_prio */
	int   rt_prio;
	const struct gang_backend *be;
	char  cgroup[192];     /* freezer: the gang's cgroup directory */
	int   freeze_fd;       /* freezer: open cgroup.freeze */
};

extern const struct gang_backend gang_signal_backend;
extern const struct gang_backend gang_freezer_backend;

/*
 * Before pvmd is forked: the backend (conf enum) and the gang's RR
 * priority.  The freezer backend creates the gang's cgroup here, and the
 * pvmd child enters it itself (gang_join_dir) before it execs, so nothing
 * pvmd forks can be born outside it.
 */
int  gang_prepare(struct gang *g, int backend, int rt_prio);
const char *gang_join_dir(const struct gang *g);	/* NULL: nothing to join */
/* pvmd runs: its process group is the gang.  Again after a slave forks. */
int  gang_attach(struct gang *g, pid_t pgid);
int  gang_stop(struct gang *g);
int  gang_cont(struct gang *g);
/* Members (and so every task spawned later) to SCHED_RR or SCHED_OTHER. */
void gang_set_rt(struct gang *g, int rt);
/* Continue, normal priority, leave the backend: nothing left stopped. */
void gang_release(struct gang *g);
int  gang_members(const struct gang *g);

#endif /* DTS_GANG_H */
