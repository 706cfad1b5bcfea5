/*
 * proc.h - the gang seen through /proc, shared by dts and dts-load.
 *
 * The gang is one process group (pvmd and every PVM task it spawned).
 * These helpers never touch a process outside that group.
 */
#ifndef DTS_PROC_H
#define DTS_PROC_H

#include <sys/types.h>

/* Call fn(pid, arg) for every process whose pgid is pgid; returns count. */
int proc_pgid_foreach(pid_t pgid, void (*fn)(pid_t pid, void *arg), void *arg);

/* Members of pgid; *runnable (if not NULL) = those in state R. */
int proc_pgid_count(pid_t pgid, int *runnable);

/* Set every member's policy (SCHED_OTHER: prio 0).  Returns members changed. */
int proc_pgid_set_policy(pid_t pgid, int policy, int prio);

/*
 * Release the gang: SIGCONT to the group and SCHED_OTHER for every member,
 * so nothing is left stopped or at real-time priority.  Safe to repeat.
 */
void proc_gang_release(pid_t pgid);

/* Thaw a cgroup v2 directory (write 0 to its cgroup.freeze). */
void proc_cgroup_thaw(const char *cgroup);

/* procs_running from /proc/stat, or -1. */
int proc_procs_running(void);

/* Online CPUs (at least 1). */
int proc_ncpu(void);

#endif /* DTS_PROC_H */
