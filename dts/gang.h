/*
 * gang.h - the gang: every process in the gang cgroup.
 *
 * dts owns a cgroup v2 subtree (base): one cgroup a job,
 * base/jobs/job.USER@LABEL (dts/jobs.h), holds the job's adopted pvmd
 * (or another launcher's
 * daemon) and everything it starts.  Only root can
 * write there, so no member can leave, and setsid() changes nothing.
 * Stopping and continuing go through a small backend interface so the
 * slice loop does not care how: `signal` (SIGSTOP/SIGCONT to every member,
 * the thesis's mechanism) or `freezer` (cgroup.freeze).  Priority changes
 * walk cgroup.threads; nothing outside the cgroup is ever touched.
 */
#ifndef DTS_GANG_H
#define DTS_GANG_H

#include <stdint.h>
#include <sys/types.h>

#include "cgroup.h"

struct gang;

#define GANG_LIFTS 4	/* lifted processes a gang at once (gang_lift) */

struct gang_backend {
	const char *name;
	int  (*open)(struct gang *g);   /* the cgroup exists */
	int  (*stop)(struct gang *g);   /* hot path: no waiting */
	int  (*cont)(struct gang *g);   /* hot path */
	void (*close)(struct gang *g);  /* continue and let go */
	/* pid was moved into the stopped gang: stop it too (NULL: the
	 * backend needs nothing, as a frozen cgroup freezes newcomers) */
	void (*join)(struct gang *g, pid_t pid);
};

/*
 * Turns among the tasks (gang_rotate).  A freeze, or a stop, takes every
 * member off its run queue, and the thaw puts them back in the order of
 * cgroup.procs: at one RT priority, the first ones ran again at each PS
 * start, and a task late in the list (the last one spawned) waited for
 * the slice of the RR quantum that the first left over.  The scan
 * (main thread) notes which tasks waited on a run queue since the last
 * one; at a PS start, ncpu of them, in turn, go to the head.
 */
#define GANG_ROT_MAX	64		/* tasks: a gang of more takes none */
#define GANG_ROT_NS	(5 * 1000 * 1000)	/* a turn each 5 ms at most */
#define GANG_ROT_FULL	32		/* up to this many: every waiting
					   task to its place in the turn */
struct gang_rr {
	pid_t	 pid[GANG_ROT_MAX];	/* the waiting tasks (scheduler's
					   lock) */
	int	 n, next;
	int64_t	 at;			/* the last turn (mono ns); 0 */
	/* the scan's own (main thread): each task's run_delay then, and
	 * the waiters it found, published by gang_prio_apply */
	pid_t	 seen[GANG_ROT_MAX];
	uint64_t delay[GANG_ROT_MAX];
	int	 nseen;
	pid_t	 wait[GANG_ROT_MAX];
	int	 nwait;
};

struct gang {
	char  base[CG_PATH_MAX];  /* dts's subtree */
	char  jobs[CG_PATH_MAX];  /* base/jobs (CG_JOBS), every gang's parent */
	char  cg[CG_PATH_MAX];    /* base/jobs/job.USER@LABEL; "" in a
	                             template */
	char  rel[CG_PATH_MAX];   /* cg below the cgroup2 mount, as in
	                             /proc/PID/cgroup */
	int   stopped;
	int   rt;                 /* members at SCHED_RR rt_prio */
	int   idle;               /* members at SCHED_IDLE (an idle LS) */
	int   fill;               /* at RR, all members one level below
	                             every gang's tasks: another job's slot,
	                             which they fill while its members sleep
	                             (gang_set_fill) */
	pid_t unidle;             /* a member adopted with RLIMIT_NICE > 0,
	                             which could leave SCHED_IDLE: an idle
	                             LS stops the gang; 0 */
	int   rt_prio;            /* pvmd's; its tasks run one below */
	pid_t pvmd_pid;           /* pvmd, as the last scan found it; 0 */
	int   scan_next;          /* gang_prio_scan's next member (its place
	                             in cgroup.procs) */
	int   count;              /* gang_members's, read at count_at (mono
	                             ns; 0: never) */
	int64_t count_at;
	pid_t lifted[GANG_LIFTS]; /* members lifted to pvmd's level for a
	                             command (gang_lift); 0: free */
	char  pvmd_comm[16];      /* the real pvmd's name (/proc/PID/comm);
	                             "" if unknown: all at rt_prio - 1 */
	int   freeze_fd;          /* freezer: open cgroup.freeze */
	int   procs_fd;           /* signal: open cgroup.procs */
	struct pidset sig_stopped; /* signal: the members its last stop
	                             found (each gang its own: a node has
	                             several jobs) */
	int   hold_fd;            /* a template's, freezer: base/jobs's open
	                             cgroup.freeze (gang_hold); else -1 */
	int   held_fd;            /* a template's, with hold_fd: base/jobs's
	                             open cgroup.events (gang_held); else -1 */
	int   thaw_fd;            /* open cgroup.freeze: a switch away from
	                             SCHED_RR freezes a gang that clones
	                             faster than it is swept */
	int   ncpu;               /* online CPUs (gang_setup) */
	struct gang_rr rr;        /* the tasks' turns (gang_rotate) */
	const struct gang_backend *be;
};

extern const struct gang_backend gang_signal_backend;
extern const struct gang_backend gang_freezer_backend;

/*
 * Create (or take over) the subtree: where is "auto" (systemd's delegated
 * cgroup of the service if started by systemd, else <cgroup2>/dts) or a
 * path under the cgroup2 mount.  backend is enum conf_backend.  g is then
 * a template (base, backend, priority, pvmd's name; no cgroup of its own)
 * for gang_open.  0, or -1 with err.
 */
int  gang_setup(struct gang *g, const char *where, int backend, int rt_prio,
		char *err, size_t errlen);

/*
 * Every gang at once (template t, freezer backend): base/jobs frozen (on)
 * or thawed, one write whatever the number of jobs: an LS of every job,
 * and its end.  A gang's own stop (gang_stop) and this one add up: it
 * runs only if neither holds it.  0, or -1 (errno; EOPNOTSUPP: no such
 * write with the signal backend, whose gangs stop one by one).
 */
int  gang_hold(const struct gang *t, int on);
/*
 * Has every gang frozen since gang_hold(t, 1)?  The kernel freezes each
 * task when it next runs, so a gang of many spinning tasks takes a while
 * (the edge thread's freeze lead, dts/scheduler.c).  1, 0, or -1 (no
 * cgroup.events, or it cannot be read).
 */
int  gang_held(const struct gang *t);
/*
 * Every thread at a real-time policy in every gang under template t's
 * base/jobs to SCHED_OTHER, found by walking the directories: no gang
 * struct, no scheduler lock (the edge guard, dts/scheduler.h).  The
 * gangs keep their rt flag: gang_reapply puts each back.  How many.
 */
int  gang_demote_all(const struct gang *t);

/*
 * The gang of template t in the cgroup base/jobs/name: made (root's, 0755) if
 * missing, or taken over with its members.  0, or -1 with err (nothing
 * left open).
 */
int  gang_open(struct gang *g, const struct gang *t, const char *name,
		char *err, size_t errlen);
/* The same under the cgroup2 mount mnt (NULL: none is mounted): a
 * unit test's tree of plain files. */
int  gang_open_at(struct gang *g, const struct gang *t, const char *name,
		const char *mnt, char *err, size_t errlen);

/*
 * Released (gang_release), its files closed, and its cgroup removed if
 * it is empty.  0, or -1 if the removal failed.  Safe to repeat.
 */
int  gang_close(struct gang *g);

/*
 * pvmd runs one RT priority above its tasks, so that it answers the
 * console (halt, add, delete, spawn) while they spin: path is the real
 * pvmd that dts hands out; a member of that name (/proc/PID/comm) is
 * pvmd.  A task pvmd starts inherits its priority, so every GANG_FIX_NS
 * dts scans the gang without the scheduler lock (gang_prio_scan: the
 * members at RR at a priority not their own, and pvmd's pid) and, only
 * if one is wrong or pvmd changed, applies that under the lock
 * (gang_prio_apply: nothing if the gang is no longer at RR).
 */
/* a scan costs about 140 us of dts's main thread (a wake-up of an idle
 * vCPU most of it): every 100 ms that would add 12% to what dts's edges
 * cost at IP 10 ms, every second about 1%.  A scan looks at GANG_SCAN_MAX
 * members, the next ones next time, and reads a name (/proc/PID/comm)
 * only while pvmd is unknown or gone: a job's size does not make dts's
 * scans longer. */
#define GANG_FIX_NS	(1000 * 1000 * 1000)	/* 1 s */
#define GANG_FIX_MAX	256		/* per scan; the rest next time */
#define GANG_SCAN_MAX	256		/* members a scan looks at */
struct gang_fix {
	pid_t	 pid;
	int	 pvmd;		/* it is pvmd: apply picks its level (fill may
				   have moved since the scan) without a read */
};
void gang_set_pvmd(struct gang *g, const char *path);
int  gang_prio_scan(struct gang *g, pid_t *pvmd, struct gang_fix *fix,
		    int max);
int  gang_prio_apply(struct gang *g, pid_t pvmd, const struct gang_fix *fix,
		     int n);
/* Did the last scan find other waiting tasks than gang_prio_apply last
 * published?  (Then apply is due, even with nothing to fix.) */
int  gang_rr_changed(const struct gang *g);
/*
 * At a PS start (the gang just continued, at its own RT levels), if
 * GANG_ROT_NS passed since the last turn and more than one task waited:
 * a turn.  The waiting tasks (still members), in a rotated order that
 * starts ncpu further each turn, are each lowered one level and raised
 * back, which puts it at the tail of its level's run queue: the queue
 * is then in that order.  Of more than GANG_ROT_FULL waiting tasks, only
 * the next ncpu: each raised to pvmd's level and lowered back, to the
 * head of its queue.  A read of cgroup.procs and two sched_setscheduler
 * calls a task moved.  Under the scheduler's lock.  Tasks moved.
 */
int  gang_rotate(struct gang *g, int64_t now);


/*
 * Move pid into the gang, at the gang's current policy (every thread of
 * it), and stopped if the gang is (an LS).  A newcomer whose hard
 * RLIMIT_NICE is above 0 could leave SCHED_IDLE by itself: from then on
 * (until gang_release) an idle LS stops the gang instead.  0 or -1.
 */
int  gang_adopt(struct gang *g, pid_t pid);

/*
 * A lift (dts(8), LIFTS): pid, moved into the gang for one command of
 * its user's console, runs at pvmd's level like pvmd (on 1: noted, before
 * gang_adopt), or no longer (on 0).  Under the scheduler's lock.  0, or
 * -1 if GANG_LIFTS are lifted already.
 */
int  gang_lift(struct gang *g, pid_t pid, int on);

/* Is pid a member (its /proc/PID/cgroup)?  1, or 0 (also if it is gone). */
int  gang_has(const struct gang *g, pid_t pid);

int  gang_stop(struct gang *g);
int  gang_cont(struct gang *g);
/* Every thread of the gang to SCHED_RR rt_prio or SCHED_OTHER; during
 * an idle LS only remembered, for when it ends. */
void gang_set_rt(struct gang *g, int rt);
/* Every thread to the gang's policy again, if that is SCHED_RR (after
 * gang_demote_all). */
void gang_reapply(struct gang *g);
/*
 * Another job's slot (fill 1): every thread, pvmd too, to SCHED_RR one
 * level below every gang's tasks (GANG_FILL_PRIO), so that the gang runs
 * only while the slot's job has no runnable member, and is preempted the
 * moment one wakes; or back to its own levels (0).  Remembered while the
 * gang is stopped, idle or not at RR.  Hot path: one read of
 * cgroup.threads and one sched_setscheduler a thread, as gang_set_idle.
 */
#define GANG_FILL_PRIO(g)	((g)->rt_prio > 2 ? (g)->rt_prio - 2 : 1)
void gang_set_fill(struct gang *g, int fill);
/*
 * An idle LS (ls_policy idle): every thread to SCHED_IDLE, so that any
 * other task preempts it, or back to the policy of gang_set_rt.  Hot
 * path: a read of cgroup.threads and one sched_setscheduler a thread,
 * then reads until one finds no thread born meanwhile at its creator's
 * old policy (cg_set_policy_all: 2 reads for a gang whose running
 * threads churn, which the first switches; a gang frozen only if 4 do
 * not end it).
 */
void gang_set_idle(struct gang *g, int idle);
/*
 * In an idle LS, now and then: the threads born since gang_set_idle at
 * the policy their creators had when they began to clone (SCHED_RR) to
 * SCHED_IDLE (cg_policy_recheck: a read of cgroup.threads, and a
 * sched_setscheduler for each such thread).  Nothing for a gang not idle
 * or stopped.  Threads changed.
 */
int  gang_recheck_idle(struct gang *g);
/*
 * Would SCHED_IDLE make the gang yield to every local task?  Only if the
 * gang and the local users share one CPU group: not with autogroups
 * (kernel.sched_autogroup_enabled = 1: each session is a group, and
 * SCHED_IDLE ranks a thread only inside its own) nor with the gang's
 * cgroup or any of its ancestors in the cpu controller (under systemd's
 * Delegate=yes, dts.service or system.slice), nor with a cgroup v1 cpu
 * hierarchy that has groups.  1, or 0 with the reason in why.
 */
int  gang_can_idle(const struct gang *g, char *why, size_t len);
/* Continue, normal priority: nothing left stopped or RT.  Stays set up. */
void gang_release(struct gang *g);
/* The fail-safe released the gang behind our back: forget our state. */
void gang_forget(struct gang *g);
/*
 * Members (processes), read from cgroup.procs at most every
 * GANG_COUNT_NS: a read of thousands of members costs dts milliseconds,
 * under the scheduler's lock (STATUS, a slot table), and read requests must
 * not make dts pay for a job's size.  On the main thread only.
 */
#define GANG_COUNT_NS	(100 * 1000 * 1000)
int  gang_members(const struct gang *g);

#endif /* DTS_GANG_H */
