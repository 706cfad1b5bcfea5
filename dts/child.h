/*
 * child.h - dts-load, the one process dts starts.
 *
 * Started by spawn() (spawn.h); before the exec the child sets its RT
 * policy and raises CAP_SYS_NICE and CAP_KILL in its ambient set.  A
 * child that cannot exec tells dts why, so the log says "cannot run
 * /path: exec: Permission denied", not an exit status.
 */
#ifndef DTS_CHILD_H
#define DTS_CHILD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct dts_agent {
	pid_t			 pid;
	int			 sock;	/* our end of the socketpair, or -1 */
	int			 shm_fd; /* memfd with struct agent_shared */
	struct agent_shared	*shm;
	int64_t			 started; /* mono ns of the last start */
	unsigned		 restarts; /* in a row, for the back-off */
};

/* Create the shared page.  0 or -1. */
int	agent_shm_create(struct dts_agent *a);

/*
 * Start path -f conf_file at SCHED_FIFO prio.  0, or -1 with a one-line
 * reason in err (nothing left running).
 */
int	agent_spawn(struct dts_agent *a, const char *path,
	    const char *conf_file, int prio, char *err, size_t errlen);

/* Close our end (the agent releases the gang and exits) and reap it. */
void	agent_stop(struct dts_agent *a);

#endif /* DTS_CHILD_H */
