/*
 * jobs.h - the jobs of this node: one gang (dts/gang.h) a job, each in a
 * cgroup of its own below dts's subtree (dts(8), JOBS).
 *
 * A job's name is "USER:LABEL" (common/job.h); its cgroup is
 * base/jobs/job.USER@LABEL (a ':' would confuse the readers of
 * /proc/PID/cgroup, whose fields ':' separates; a label has no '@', so
 * the last '@' splits the name again), and its state file, if dts keeps
 * one, is state_file.USER@LABEL.  The scheduler (scheduler.h) holds the
 * job table that the slices run (sched_job_add); this module makes and
 * ends the gangs, and knows whose each one is.
 *
 * Every function runs on dts's main thread; those that change what the
 * scheduler sees take its lock themselves (not held by the caller), and
 * the edge thread reads a job's state file map only under it.
 */
#ifndef DTS_JOBS_H
#define DTS_JOBS_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "conf.h"
#include "gang.h"
#include "job_limits.h"
#include "proto.h"
#include "state.h"

struct sched;

#define JOB_CG_SEP '@'		/* USER@LABEL in a cgroup's name */

struct job {
	int		 used;
	char		 name[PROTO_JOB_LEN];	/* USER:LABEL */
	uid_t		 uid;		/* whose it is (every member's) */
	struct gang	 gang;
	struct limits_job lim;		/* its memory and pids cgroups */
	uint64_t	 oom_kills;	/* as last seen */
	uint64_t	 reclaimed;	/* bytes dts reclaimed while parked */
	int64_t		 look_at;	/* mono ns of the last look (park) */
	uint64_t	 look_stopped;	/* its stopped_ns then */
	int64_t		 parked_ns;	/* stopped without a break since */
	int		 park_done;	/* reclaimed in this park */
	int		 oom_raised;	/* members' adj raised again */
	int		 oom_turn;	/* limits_oom_check's next start */
	struct state	 state;		/* map NULL: none */
	char		 state_path[CONF_STR_MAX + PROTO_JOB_LEN + 8];
	int64_t		 started;	/* mono ns */
	int		 weight;	/* its adoption's WEIGHT; 0: none */
};

/*
 * The reclaim of a parked job's pages (jobs_check_memory) runs on a
 * thread of its own, at SCHED_OTHER nice 19: the kernel's reclaim (zram
 * compression: seconds for a GiB) takes its CPU from nobody with a
 * higher claim, and dts's main thread, at SCHED_FIFO, answers on.  It is
 * made at the first reclaim (after the privilege drop: a thread gets its
 * maker's capabilities) and takes one job at a time; the main thread
 * reads its result at its next look.  It never takes the scheduler's
 * lock.  A job that ends meanwhile is ended after the reclaim (the
 * thread is interrupted by a signal, and the write stops).
 */
enum { RECLAIM_IDLE, RECLAIM_ASKED, RECLAIM_BUSY, RECLAIM_DONE };

struct jobs_reclaim {
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;
	pthread_t	 thread;
	int		 made;		/* the thread runs */
	int		 state;		/* RECLAIM_*, under mu */
	int		 stop;		/* dts exits */
	int		 cancel;	/* the job ends */
	int		 job;		/* its place in jobs.job */
	struct limits_job lj;		/* its cgroups, a copy */
	const struct limits *L;
	uint64_t	 got;		/* bytes (RECLAIM_DONE) */
	int64_t		 ns;		/* the reclaim's time */
};

struct jobs {
	struct gang	 tmpl;		/* the subtree, backend, priority */
	struct limits	 lim;		/* the memory contract, max_tasks */
	const struct dts_conf *conf;
	struct sched	*sched;
	struct job	 job[PROTO_JOBS_MAX];
	unsigned	 changes;	/* jobs started or ended, ever */
	int		 ino_fd;	/* inotify on the jobs' cgroup.events; -1 */
	int64_t		 reaped;	/* mono ns, the last jobs_event reap */
	int		 mem_hold;	/* quantum zero: the jobs stopped for
					   the node's memory pressure */
	int		 no_psi;	/* no PSI to read: said once */
	struct jobs_reclaim rc;		/* the reclaim thread */
};

/* The subtree (gang_setup) and pvmd's name.  0, or -1 with err. */
int  jobs_setup(struct jobs *J, const struct dts_conf *c, int rt_prio,
		char *err, size_t errlen);

/* The scheduler whose job table the jobs go into (before any job). */
void jobs_attach(struct jobs *J, struct sched *s);

/*
 * The jobs a dts before this one left with members: each taken over as a
 * job again (its name from its cgroup's, its user the one uid of its
 * members), and empty job cgroups removed.  Logs one line a job.
 */
void jobs_takeover(struct jobs *J);

/* Jobs in use. */
int  jobs_count(const struct jobs *J);

/* The job called name, or NULL. */
struct job *jobs_find(struct jobs *J, const char *name);

/*
 * j's weight (1..PROTO_WEIGHT_JOB_MAX, an adoption's WEIGHT; the last
 * one given holds), for its master in STATUS (sched_job.weight).
 */
void jobs_set_weight(struct jobs *J, struct job *j, int w);

/* The job whose cgroup pid is in, or NULL. */
struct job *jobs_of_pid(struct jobs *J, pid_t pid);

/* Is uid the user of a job here? */
int  jobs_has_uid(const struct jobs *J, uid_t uid);

/*
 * A new job name of uid: its cgroup made, its state file (if any) opened,
 * and put into the scheduler's table; then pid moved into its gang.  The
 * job, or NULL with a one-line err (max_jobs in use, a cgroup or state
 * file that cannot be made): then nothing of it is left.
 */
struct job *jobs_start(struct jobs *J, const char *name, uid_t uid,
		       pid_t pid, char *err, size_t errlen);

/* Move pid into job j's gang (under the scheduler's lock).  0, or -1
 * with errno. */
int  jobs_adopt(struct jobs *J, struct job *j, pid_t pid);

/*
 * Every job whose gang is empty ends: out of the scheduler's table, its
 * cgroup and state file removed, one log line.  Called every second.
 */
void jobs_reap(struct jobs *J);

/*
 * A job's end within milliseconds, not at the next second's scan: each
 * job's cgroup.events is watched (inotify; the kernel marks it modified
 * when the cgroup empties, and at every freeze and thaw), and the main
 * loop calls jobs_event when jobs_fd is readable: it reaps (jobs_reap) at
 * most every JOBS_REAP_GAP_NS, so the edges' freezes cost a read of the
 * events, not a scan each.  A change left by the gap is seen at the next
 * event or the second's scan.  jobs_fd is -1 without inotify (then the
 * scan alone).
 */
#define JOBS_REAP_GAP_NS	(50 * 1000 * 1000)
int  jobs_fd(const struct jobs *J);
void jobs_event(struct jobs *J);

/*
 * Every second: a job whose processes the kernel kills for its memory
 * limit gets one log line, at the first kill (its end counts them).
 */
void jobs_check_memory(struct jobs *J);

/* The pvmd priority fix (gang_prio_scan/apply) of every job. */
void jobs_fix_prios(struct jobs *J);

/* The on_phase hook's part for the jobs' state files (under the lock). */
void jobs_state_hook(struct jobs *J, const struct sched *s);

/* The comma-separated names of the jobs into buf. */
void jobs_names(const struct jobs *J, char *buf, size_t len);

/* dts exits: every job's state file closed; the gangs stay (released by
 * the scheduler) for a new dts to take over. */
void jobs_close(struct jobs *J);

/* name "USER:LABEL" to its cgroup's "job.USER@LABEL" and back.  0 or -1. */
int  jobs_cg_name(const char *name, char *out, size_t len);
int  jobs_name_of_cg(const char *cgname, char out[PROTO_JOB_LEN]);

#endif /* DTS_JOBS_H */
