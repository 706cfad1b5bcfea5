/*
 * cgroup.h - the gang as the members of one cgroup v2 directory, shared by
 * dts and dts-load.
 *
 * The gang is every process in the gang cgroup, wherever its process group
 * or session is: setsid() or daemon() does not leave it, and the PVM user
 * cannot move a process out (the directory and every file in it belong to
 * root).  These helpers read cgroup.procs / cgroup.threads and never touch
 * a process that is not listed there.
 */
#ifndef DTS_CGROUP_H
#define DTS_CGROUP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CG_PATH_MAX 256	/* a gang directory, NUL included */

/* Mount point of the cgroup v2 hierarchy into buf; 0 or -1. */
int  cg_mount(char *buf, size_t len);

/* A set of pids that grows (the members one sweep has signalled). */
struct pidset {
	pid_t	*pid;
	int	 n, max;
};

/* Add pid: 1 if it is new, 0 if it was there, -1 if out of memory. */
int  pidset_add(struct pidset *s, pid_t pid);

/* Call fn(pid, arg) for every process of cg.  Returns the count, -1. */
int  cg_foreach(const char *cg, const char *file,
		void (*fn)(pid_t pid, void *arg), void *arg);

/* Members of cg; *runnable (if not NULL) = those in state R. */
int  cg_count(const char *cg, int *runnable);

/* Every thread of cg to policy (SCHED_OTHER: prio 0).  Threads changed. */
int  cg_set_policy(const char *cg, int policy, int prio);

/*
 * Every thread of cg to policy, in passes of cgroup.threads until one
 * finds no new thread that is not at policy yet: a thread not yet changed
 * may have started one, which inherited its policy (a thread pool that
 * churns carries SCHED_RR through a switch to SCHED_IDLE that way).  If
 * a few passes do not end it, cg is frozen through freeze_fd (its open
 * cgroup.freeze; -1: never) for the rest, so that no thread clones
 * meanwhile, and thawed.  Threads changed.
 */
int  cg_set_policy_all(const char *cg, int policy, int prio, int freeze_fd);

/*
 * After cg_set_policy_all (and before a call for another policy): the
 * threads of cg that it and the rechecks since have not seen, to policy
 * if they are not at it, in passes as it makes them.  A clone that was
 * under way when its creator was changed ends with a child at the old
 * policy, listed only then: a creator moved to SCHED_IDLE beside a busy
 * CPU may take the rest of the LS to end it.  The threads seen are one
 * set for every cgroup: after another cgroup's cg_set_policy_all, the
 * first recheck of cg asks each of its threads for its policy once.
 * Threads changed.
 */
int  cg_policy_recheck(const char *cg, int policy, int prio);

/*
 * Is cg (under the cgroup2 mount mnt) in a CPU group of its own, which
 * SCHED_IDLE ranks only inside?  It is if cg or an ancestor below mnt has
 * the cpu controller (its parent's cgroup.subtree_control enables cpu),
 * or if a cgroup v1 hierarchy with the cpu controller has groups
 * (v1_root: where to look for one; NULL: /proc/self/mounts).  1 with the
 * group (or hierarchy) in where, else 0.
 */
int  cg_cpu_group(const char *mnt, const char *cg, const char *v1_root,
		  char *where, size_t len);

/*
 * Every thread of process pid, a member of cg (just moved there), to
 * policy; its threads are listed again until a pass finds no new one (a
 * thread not yet changed may start another).  Threads changed.
 */
int  cg_set_policy_pid(const char *cg, pid_t pid, int policy, int prio);
/*
 * Every thread of cg at SCHED_RR or SCHED_FIFO to SCHED_OTHER, one by
 * one (cgroup.threads), nothing kept between calls: safe beside the
 * other calls here on another thread.  Returns how many it changed.
 */
int  cg_rt_to_other(const char *cg);

/* sig to every process of cg, again until a pass finds no new member. */
int  cg_signal_all(const char *cg, int sig);
/*
 * SIGCONT to every process of cg that is stopped (state T), in passes as
 * cg_signal_all.  Not to the others: a program that catches SIGCONT acts
 * on it (Open MPI's mpirun forwards it to its job, and fails if that job
 * is still starting), and a release must not send what no stop caused.
 */
int  cg_cont_stopped(const char *cg);

/*
 * Every write to a cgroup file goes through these.  cg_open: cg/file,
 * close-on-exec, flags as open(2); the fd or -1 (errno set).  cg_write_fd:
 * text at offset 0 of an open file (kept open by a hot path); cg_write:
 * open, write, close.  0, or -1 (errno set: a partial write is EIO).
 */
int  cg_open(const char *cg, const char *file, int flags);
int  cg_write_fd(int fd, const char *text);
int  cg_write(const char *cg, const char *file, const char *text);

/* Read cg/file into buf, NUL terminated.  0, or -1 if it is gone/empty. */
int  cg_read(const char *cg, const char *file, char *buf, size_t len);

/*
 * CPU time cg's processes got, ns (cpu.stat usage_usec: every cgroup
 * has it, with or without the cpu controller).  0, or -1 if unreadable.
 */
int  cg_cpu_ns(const char *cg, uint64_t *ns);

/*
 * Up to ms milliseconds (every 200 us) for cg's cgroup.events to say
 * "frozen 1": 1 once it does, 0 if it did not, -1 if it cannot be read.
 */
int  cg_wait_frozen(const char *cg, int ms);

/*
 * Release the gang: freeze (no thread clones while it is changed), every
 * thread to SCHED_OTHER, thaw, SIGCONT for every process, twice
 * (continued members can fork).  Nothing is left stopped,
 * frozen, at real-time priority or at SCHED_IDLE.  Safe to repeat; ""
 * does nothing.
 */
void cg_release(const char *cg);

/*
 * The job cgroups of dts's subtree base: the subdirectories of base/jobs
 * (CG_JOBS, the parent of every gang, whose cgroup.freeze stops them all
 * at once) whose name begins with CG_JOB_PREFIX, then those of base
 * itself (the layout before base/jobs; not base/daemon, where dts itself
 * runs under systemd).  fn(path, name, arg) for each; the count, or -1
 * if base cannot be read.
 */
#define CG_JOBS       "jobs"
#define CG_JOB_PREFIX "job."
int  cg_foreach_job(const char *base, void (*fn)(const char *cg,
		    const char *name, void *arg), void *arg);

/*
 * cg_release of every job cgroup of base, while base/jobs is still as
 * it was (frozen: nothing runs, so nothing is left at RT), then
 * base/jobs thawed (dts-load's fail-safe).
 */
void cg_release_jobs(const char *base);

/*
 * Every process of from moved to to (a few rounds: one may fork
 * meanwhile).  The number left in from (0: all moved), or -1.
 */
int  cg_move_all(const char *from, const char *to);

/* Members of every job cgroup of base together; *runnable as cg_count. */
int  cg_count_jobs(const char *base, int *runnable);

/* Does cg hold a process, itself or below (cgroup.events populated)?
 * 1, 0, or -1 if it is gone. */
int  cg_populated(const char *cg);

/* Remove the (empty) cgroup directory cg.  0, or -1 (errno set). */
int  cg_remove(const char *cg);

#endif /* DTS_CGROUP_H */
