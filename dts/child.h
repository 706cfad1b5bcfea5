/*
 * child.h - the processes dts starts: the Load agent and pvmd.
 *
 * Both are fork+exec'd with signals blocked around the fork; each child
 * sets its own RT policy, becomes the pvmd user without capabilities and
 * execs.  pvmd leads a new process group (the gang).  dts is a child
 * subreaper, so a slave pvmd that forks and lets its first process exit is
 * reparented to dts and still tracked.
 */
#ifndef DTS_CHILD_H
#define DTS_CHILD_H

#include <sys/types.h>

#include "priv.h"

struct agent {
	pid_t pid;
	int   sock;        /* our end of the socketpair, -1 if none */
	int   shm_fd;      /* memfd with struct agent_shared */
	struct agent_shared *shm;
	int64_t started;   /* mono ns of the last start, for restart backoff */
	unsigned restarts;
};

/* Create the shared page.  0 or -1. */
int   agent_shm_create(struct agent *a);

/* fork+exec path -f conf at SCHED_FIFO prio as u.  0 or -1. */
int   agent_spawn(struct agent *a, const char *path, const char *conf_file,
		  const struct priv_user *u, int prio);

/* Close our end (the agent releases the gang and exits) and reap it. */
void  agent_stop(struct agent *a);

/*
 * fork+exec pvmd with argv (argv[0] = path) as leader of a new process
 * group at SCHED_RR prio, as u, inside the cgroup directory join if not
 * NULL.  Returns the pid (= pgid) or -1.
 */
pid_t pvmd_spawn(const char *path, char *const argv[], const struct priv_user *u,
		 int prio, const char *join);

/*
 * After reaping the slave pvmd process we started (status 0): the daemon
 * it forked, now our child through the subreaper, in process group pgid
 * and running the pvmd program exe; or 0 if there is none.
 */
pid_t pvmd_find_daemon(pid_t pgid, const char *exe);

#endif /* DTS_CHILD_H */
