/*
 * job_limits.h - what each job may hold on this node: its memory and its
 * tasks (dts(8), MEMORY; dts.conf(5): memory, job_memory, max_tasks).
 *
 * Every job has a memory cgroup and a pids cgroup beside its gang.  With
 * cgroup v2's memory (or pids) controller, offered to dts's subtree, they
 * are the gang's own cgroup: the controller is enabled down to base/jobs,
 * and the limits are its memory.max, memory.high, memory.swap.max and
 * pids.max.  On a hybrid host, whose v1 hierarchy holds the controller,
 * they mirror the gang under it: MNT/REL/jobs/job.USER@LABEL, where REL
 * is dts's subtree below the cgroup2 mount, and every adopted process is
 * moved there before its gang, so that its children are born inside.
 * The parent, jobs, holds the node's contract (memory): every job
 * together.
 *
 * A job gives way, never the owner: each member gets oom_score_adj 1000
 * from a small helper (dts-oom, the only process that keeps the two
 * capabilities this needs), which the kernel then keeps as the member's
 * floor, so its user cannot lower it (without CAP_SYS_RESOURCE in the
 * bounding set, as in some containers, dts raises a lowered one again
 * each second); reclaim starts at 90% of a job's limit (memory.high, v1
 * soft_limit_in_bytes).
 *
 * Everything runs on dts's main thread, but limits_reclaim, which runs on
 * the reclaim thread (jobs.h) and reads only L's mem_v2 and job_max.
 */
#ifndef DTS_JOB_LIMITS_H
#define DTS_JOB_LIMITS_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup.h"
#include "conf.h"

#define LIMITS_HIGH_PCT   90	/* memory.high / soft limit: % of the limit */
#define LIMITS_FULL_PCT   90	/* a new job is refused at this % in use */

struct limits {
	char	 mem[CG_PATH_MAX];	/* every job's memory cgroup: v1
					   MNT/REL/jobs, or v2 base/jobs;
					   "" none */
	char	 pids[CG_PATH_MAX];	/* the same for pids; "" none */
	int	 mem_v2, pids_v2;	/* in the gang's cgroup (v2) */
	uint64_t ram;			/* bytes */
	uint64_t contract;		/* memory: every job together */
	uint64_t job_max;		/* job_memory: each job */
	int	 max_tasks;
	int	 oom_fd;		/* dts-oom's socket; -1: none */
	int	 oom_floor;		/* the kernel keeps 1000 (dts-oom has
					   CAP_SYS_RESOURCE) */
	pid_t	 oom_pid;
};

struct limits_job {
	char	 mem[CG_PATH_MAX];	/* the job's memory cgroup; "" none */
	char	 pids[CG_PATH_MAX];	/* its pids cgroup; "" none */
};

/* What a job (or every job) holds now. */
struct limits_use {
	uint64_t mem;			/* bytes, page cache included */
	uint64_t peak;			/* the most mem was (0: unknown) */
	uint64_t swap;			/* bytes */
	uint64_t oom_kills;		/* by the cgroup's own limit */
	int	 known;			/* 0: no memory cgroup */
};

/*
 * The node's limits from c for dts's subtree base (below the cgroup2
 * mount mnt): the controllers found (mounts: a file as /proc/self/mounts,
 * NULL for that one), the jobs' parents made and bounded.  A node without
 * a memory or pids controller gets one log line and no bound.  0, or -1
 * with err (a contract that does not parse).
 */
int  limits_setup(struct limits *L, const struct dts_conf *c, const char *mnt,
		  const char *base, const char *mounts, char *err,
		  size_t errlen);

/*
 * The helper that sets oom_score_adj (forked before dts drops its
 * capabilities; its SCHED_FIFO priority prio).  0, or -1 (logged: the
 * members keep the adj they had).
 */
int  limits_oom_start(struct limits *L, int prio);

/*
 * Job cgname's limits: its cgroups made (or found again, a takeover), the
 * gang's cgroup gang_cg (v2) bounded.  0, or -1 with err (nothing left).
 */
int  limits_open(const struct limits *L, struct limits_job *lj,
		 const char *cgname, const char *gang_cg, char *err,
		 size_t errlen);

/*
 * pid into the job's cgroups (v1; before its move into the gang), and to
 * oom_score_adj 1000.  0, or -1 (errno) if it could not be moved.
 */
int  limits_adopt(const struct limits *L, const struct limits_job *lj,
		  pid_t pid);

/*
 * Where the kernel does not keep 1000 as the floor (no CAP_SYS_RESOURCE
 * in the bounding set): the members of gang_cg below 1000 raised again,
 * LIMITS_OOM_LOOKS of them a call in turn (*turn: where the next call
 * starts; 0 at first), so that dts's work does not grow with a job's
 * size.  How many.
 */
#define LIMITS_OOM_LOOKS	256
int  limits_oom_check(const struct limits *L, const char *gang_cg,
		      int *turn);

/* Every process of the gang gang_cg into the job's cgroups (a takeover). */
void limits_adopt_all(const struct limits *L, const struct limits_job *lj,
		      const char *gang_cg);

/* What the job holds (lj NULL: every job together). */
void limits_use(const struct limits *L, const struct limits_job *lj,
		const char *gang_cg, struct limits_use *u);

/*
 * Is there room for a new job?  0, or -1 with a one-line err naming the
 * key (dts.conf: memory).
 */
int  limits_room(const struct limits *L, char *err, size_t errlen);

/*
 * Swap free on the node (/proc/meminfo SwapFree, meminfo: a file as it,
 * NULL for that one), bytes; 0 without swap.
 */
uint64_t limits_swap_free(const char *meminfo);

/*
 * A parked job gives its memory back: its pages reclaimed (v2
 * memory.reclaim of all it holds; v1 memory.limit_in_bytes lowered to 0
 * for the time of the write, which reclaims until it can do no more, and
 * set back), on two threads at once: the caller's and one it makes for
 * the call, which inherits its policy and nice (v2 half of it each; v1
 * memory.force_empty beside the pulse; the caller alone if the thread
 * cannot be made).  Blocks while the kernel reclaims; LIMITS_RECLAIM_SIG
 * to the caller (with a handler: the kernel's reclaim returns EINTR
 * even under SA_RESTART) interrupts both writes.  The bytes its use fell by, or 0
 * (no memory cgroup, nothing reclaimed).
 */
#define LIMITS_RECLAIM_SIG	SIGUSR2
uint64_t limits_reclaim(const struct limits *L, const struct limits_job *lj);

/*
 * Every job's tasks (processes and threads) together: the jobs' pids
 * cgroup's pids.current, one read.  -1 without a pids controller.
 */
long limits_tasks(const struct limits *L);

/* The job ends: its v1 cgroups removed (empty).  Safe to repeat. */
void limits_close(struct limits_job *lj);

/* The v1 job cgroups that no running job has (is_job(name, arg) 0) and
 * that are empty: removed (after a takeover). */
void limits_sweep(const struct limits *L, int (*is_job)(const char *name,
		  void *arg), void *arg);

/*
 * "some avg10" of a PSI file (/proc/pressure/memory, a cgroup's
 * memory.pressure): the share of the last 10 s in which some task
 * stalled on memory, % into *pct.  0, or -1 (no PSI).
 */
#define LIMITS_PSI_FILE	"/proc/pressure/memory"
int  limits_psi(const char *path, double *pct);

/* dts-oom ends. */
void limits_fini(struct limits *L);

#endif /* DTS_JOB_LIMITS_H */
