/*
 * scheduler.h - the DTS Scheduler proper (thesis Algorithms 5 and 6).
 *
 * Holds the desired schedule (mode, PS, IP, SI, sync method) and runs it:
 * STATIC/BALANCED slice on absolute deadlines from a sync_point set by the
 * console's datagrams, DISTRIBUTED slices with PS from the local Load
 * agent, HPDT keeps the gangs at RT priority and never stops them, OFF
 * leaves them at normal priority.  Also the state behind a STATUS reply.
 *
 * Several jobs a node (the gang matrix): the scheduler keeps the job
 * table (a gang and a name each; the caller owns the gangs) and divides
 * each PS into slots, on absolute deadlines as the PS and LS edges: in a
 * slot one job runs at RT and every other job waits (stopped or frozen,
 * or at SCHED_IDLE under an idle LS); in LS every job waits.  Without a
 * slot table the PS is split equally among the jobs in place order; with
 * one (SCHEDULE nslots > 0) each slot is its job's, and time no present
 * job with members has runs every job (work-conserving).
 *
 * The edges run on a thread of their own (sched_start), at dts's FIFO
 * priority: it sleeps until an absolute CLOCK_MONOTONIC deadline (one
 * futex wait: no epoll, no timer to re-arm) and does the gang operation
 * when it times out.  Everything else (control commands, the Load agent,
 * adoption) runs on the main thread and changes the plan under
 * sched_lock(); sched_unlock() wakes the edge thread when its next
 * wake-up moved.
 *
 * Arrival sync: a PS starts ARRIVAL_DELAY after the datagram's kernel
 * receive stamp, on the edge thread, so the time a node takes to check and
 * handle the datagram does not move its edge.
 */
#ifndef DTS_SCHEDULER_H
#define DTS_SCHEDULER_H

#include <pthread.h>
#include <stdint.h>

#include "gang.h"
#include "hist.h"
#include "proto.h"
#include "rules.h"
#include "slice.h"
#include "strlist.h"
#include "timeutil.h"

/*
 * What the gang got, for METRICS and the state file (dts(8), "FILES"):
 * the time, CLOCK_MONOTONIC ns, spent in each phase while slicing and
 * stopped (or frozen) for any reason, up to acct_at; the edges' lateness
 * and gang operations; the fail-safe's releases.
 */
struct sched_stats {
	uint64_t		 ps_ns, ls_ns;	/* slicing, in PS / in LS */
	uint64_t		 stopped_ns;	/* the gang stopped or frozen */
	int64_t			 acct_at;	/* mono ns: counted up to here */
	struct hist		 late, op;	/* per edge the slice loop did */
	uint32_t		 failsafe;	/* dts-load released the gang */
};

/*
 * A job on this node: its gang (dts/gang.c, owned by the caller) and its
 * name "USER:LABEL" (common/job.h).  A place with gang NULL is free.
 * slot_ns: the time it was given in its slots (at RT, running) and
 * stopped_ns: stopped or frozen, CLOCK_MONOTONIC ns up to acct_at
 * (sched_job_stats brings them up to now).
 */
struct sched_job {
	struct gang		*gang;		/* NULL: a free place */
	char			 name[PROTO_JOB_LEN];
	int			 run;		/* at RT and running now */
	uint64_t		 slot_ns;	/* mono ns in its slots */
	uint64_t		 stopped_ns;	/* stopped or frozen */
	/* its memory at jobs.c's last look (main thread: JOB_MEM) */
	uint64_t		 mem_bytes, swap_bytes, oom_kills;
	uint64_t		 reclaimed_bytes;
	int			 weight;	/* jobs_set_weight; 0: none */
	/* the scheduler's own */
	int64_t			 acct_at;	/* counted up to here */
	int			 no_idle;	/* gang_can_idle said no */
};

/*
 * Slots: the PS as segments, each from off (ns after the PS start) to
 * the next one's off (the last to the LS edge), in which job `who` runs
 * at RT and every other job waits (stopped, or at SCHED_IDLE in an idle
 * LS).  SEG_ALL: every job of the node runs (no slot table, no job, a
 * gap, or a slot of a job that is not here or has no member: the time
 * goes to the others, work-conserving).
 */
#define SEG_ALL		(-1)
#define SEG_NONE	(-2)	/* nobody in a slot: LS */
#define SCHED_SEGS_MAX	(2 * PROTO_JOBS_MAX + 1)

struct sched_seg {
	int64_t			 off;
	int			 who;		/* a job's place, or SEG_ALL */
};

struct sched_layout {
	int			 n;		/* >= 1 */
	struct sched_seg	 seg[SCHED_SEGS_MAX];
	unsigned		 held;		/* bit i: place i is held (the
						   SCHEDULE's held jobs): it
						   waits in the PS as in LS */
};

#define SCHED_USERS_MAX		64	/* user weights (CONF_LIST_MAX) */

#define FREEZE_SAMPLES		8
#define FREEZE_PROBE_EVERY	4

struct sched {
	/* desired state; ps as set by the console or the config, in ns */
	int			 mode, sync, active;
	int64_t			 ps, ip, si;
	int			 ls_idle;	/* ls_policy idle in force */
	int			 idle_refused;	/* gang_can_idle said no */
	int			 dist_ls_pct;	/* Table 2.1 for the local Q */

	/* the jobs, in place order; max_jobs <= PROTO_JOBS_MAX */
	struct sched_job	 job[PROTO_JOBS_MAX];
	int			 max_jobs;
	/*
	 * Without a slot table (sched_set_share): the PS split among the
	 * users (share_job 0) or the jobs (1); user uw_user[k] weighs
	 * uw[k], a user not listed 1.
	 */
	int			 share_job;
	int			 nuw;
	char			 uw_user[SCHED_USERS_MAX][PROTO_JOB_LEN];
	int			 uw[SCHED_USERS_MAX];
	int			 njobs;		/* places in use */
	int			 nstopped;	/* of them, gangs stopped */
	/*
	 * Quantum zero (dts(8), MEMORY): the node is short of memory, and
	 * every job waits in every segment of the PS as in an LS, from the
	 * next edge until it is cleared.  Set under the lock (jobs.c).
	 */
	int			 mem_hold;
	/* the gangs' tasks (sched_set_tasks), which bound the freeze
	 * lead; -1: not known, half the PS alone bounds it */
	long			 tasks;
	/* every gang at once (gang_hold): the template of the gangs, or
	 * NULL; held: base/jobs frozen (an LS), each gang stopped whatever
	 * its own state */
	const struct gang	*hold;
	int			 held;

	/*
	 * The freeze lead (slice_lead): each LS edge freezes the gangs this
	 * long before its time.  frz: the last freeze times the edge thread
	 * measured (every FREEZE_PROBE_EVERY-th held LS: probe, from the LS
	 * edge's wake-up probe_from), nfrz of them, the next at frz_next.
	 */
	int64_t			 lead;
	int64_t			 frz[FREEZE_SAMPLES];
	int			 nfrz, frz_next;
	uint64_t		 held_ls;
	int			 probe;
	int64_t			 probe_from;

	/*
	 * The slots: lay for the PS that runs; next built (on the main
	 * thread, for a PS of next_ps) whenever the jobs or the slot table
	 * change, and taken at the next PS start (lay_dirty).  seg: lay's
	 * segment now, from the PS start ps_at (mono ns); cur: who runs in
	 * it (SEG_ALL also when not slicing: nobody is held back).
	 */
	struct sched_layout	 lay, next;
	int64_t			 next_ps;
	int			 lay_dirty;
	int			 seg, cur;
	int64_t			 ps_at;
	char			 unknown[PROTO_JOB_LEN]; /* logged last */

	/* running state */
	volatile struct agent_shared *shm;	/* may be NULL */
	int			 slicing;	/* phases alternate */
	int			 phase;		/* enum proto_phase */
	struct slice		 sl;

	/* counters for STATUS; last_ps_real: CLOCK_REALTIME ns of the last
	 * PS start; last_console: mono ns of the last console datagram */
	uint64_t		 slices;
	uint64_t		 overruns;
	int64_t			 last_ps_real;
	int64_t			 last_console;
	int64_t			 silence;	/* the dead-man's, for STATUS */
	int			 own;		/* on the configured schedule */
	uint32_t		 load_milli;

	struct rt_budget	 rt;		/* the kernel's RT budget */
	struct sched_stats	 st;

	/* called under the lock whenever st, the phase or the schedule
	 * changed; at a PS start before the gang runs (NULL: none) */
	void			(*on_phase)(void *arg, const struct sched *s);
	void			*on_phase_arg;

	/* no fail-safe (dts-load cannot run): gang released, schedule kept */
	int			 suspended;
	struct proto_schedule	 want;		/* the last schedule applied */

	/* arrival sync: a jump to a PS at jump_at (mono ns), 0 = none */
	int64_t			 jump_at, jump_ps;

	/* an idle LS: the gangs' threads born at SCHED_RR looked for again
	 * at recheck_at (mono ns; 0: not in such an LS), recheck_step apart
	 * (from the last look's cost; 0: none yet) */
	int64_t			 recheck_at, recheck_step;

	/* the edge thread; wake_at: its next wake-up (mono ns), 0 = none */
	pthread_mutex_t		 mu;
	pthread_t		 thread;
	/* the edge guard (sched_start): busy is when the edge thread woke
	 * for work it has not finished (mono ns; 0: asleep), rescued that
	 * the guard moved the gangs to SCHED_OTHER meanwhile */
	pthread_t		 guard;
	int64_t			 busy;
	int			 rescued;
	uint32_t		 guard_word;	/* futex: 1 to end it */
	int64_t			 wake_at;
	int			 kick;		/* wake_at moved: wake it */
	uint32_t		 plan;		/* futex word: bumped to wake */
	int			 running, quit;

	/* the clocks, CLOCK_MONOTONIC and CLOCK_REALTIME ns: now_mono_ns and
	 * now_real_ns from sched_init; unit tests set their own (a started
	 * edge thread sleeps on the real CLOCK_MONOTONIC) */
	int64_t			(*mono)(void);
	int64_t			(*real)(void);
};

/* A PS asked for by an arrival-sync datagram starts this long after the
 * kernel received it (above the usual time to check and handle one). */
#define ARRIVAL_DELAY (2 * NS_PER_MS)

/* No job yet; max_jobs PROTO_JOBS_MAX (the caller may lower it). */
void sched_init(struct sched *s, volatile struct agent_shared *shm,
    int64_t silence);

/*
 * Start the edge thread and the edge guard at SCHED_FIFO prio / stop and
 * join them.  0 or -1.
 *
 * The guard looks every SCHED_GUARD_STEP (SCHED_GUARD_IDLE while the
 * phases do not alternate) whether the edge thread has been busy (woken
 * for an edge and not done) for SCHED_GUARD_STUCK.  If so, it most
 * likely waits for a lock that a SCHED_OTHER thread holds, which the gang,
 * spinning at real-time priority on every CPU, keeps from running:
 * cgroup_mutex, which every cgroup.freeze write takes,
 * held by a kernel worker ending a removed cgroup (a few tenths of a
 * second after a job's end), or the scheduler's lock, held by a move that
 * waits for an RCU grace period (sched_lock_quiet).  The kernel lets
 * SCHED_OTHER run only when RT throttling does, after some 0.9 s: no edge
 * that long, and dts-load's fail-safe would release the gang first.  The guard
 * moves every gang thread at a real-time policy to SCHED_OTHER
 * (gang_demote_all: no lock of the scheduler's or of cgroup's), the
 * holder runs, the edge is made; then the edge thread puts every gang
 * back at its levels (gang_reapply).
 */
int sched_start(struct sched *s, int prio);
#define SCHED_GUARD_STEP	(10 * NS_PER_MS)
#define SCHED_GUARD_IDLE	(500 * NS_PER_MS)	/* not slicing */
#define SCHED_GUARD_STUCK	(20 * NS_PER_MS)
void sched_stop(struct sched *s);

/*
 * Every call below from another thread than the edge thread is made
 * between sched_lock() and sched_unlock().
 */
void sched_lock(struct sched *s);
void sched_unlock(struct sched *s);

/*
 * sched_lock() at a moment when no gang holds a CPU at real-time priority
 * (an LS, or every gang released), waiting for one at most max_ns; at
 * once if no edge will come (the edge thread is not running, or the
 * phases do not alternate: HPDT, OFF).  1 if the moment is quiet, 0 if
 * not (locked all the same).
 *
 * For a cgroup migration (a write to cgroup.procs).  The kernel makes it
 * holding cgroup_mutex, and first waits for an RCU grace period, which
 * needs the SCHED_OTHER kthread rcu_preempt to run.  In a PS whose gang
 * spins on every CPU that kthread does not run; the edge that would end
 * the PS writes cgroup.freeze, which waits for cgroup_mutex: the node
 * would make no edge until the kernel's RT throttling or dts-load's
 * fail-safe let the kthread run (a quarter of a second or more).  In an LS the gangs are frozen, the grace period takes a few
 * ms, and the PS that follows starts that much later.
 */
int sched_lock_quiet(struct sched *s, int64_t max_ns);
#define SCHED_QUIET_WAIT (100 * NS_PER_MS)	/* for a migration */

/*
 * Apply a schedule (from the console, or from the config at start-up).
 * arrival_mono/arrival_real: when the datagram arrived.  Returns 0, or
 * -1 with a reason (and nothing changed).
 */
int sched_apply(struct sched *s, const struct proto_schedule *p,
    int64_t arrival_mono, int64_t arrival_real, const char **err);

/* The edge thread woke at now (mono ns): an edge, or a jump, is due. */
void sched_timer(struct sched *s, int64_t now);

/*
 * The Load agent released the gang (dts missed its edges): the gang runs
 * at SCHED_OTHER.  Apply the schedule's priority and phase again.
 */
void sched_regain(struct sched *s);

/* A report from the Load agent. */
void sched_load(struct sched *s, uint32_t load_milli, uint32_t ls_pct);

/*
 * The counters of sched_stats brought up to now_mono (the time since the
 * last change counted in its phase) into *out; s is not changed.
 */
void sched_stats(const struct sched *s, int64_t now_mono,
    struct sched_stats *out);

/* Fill everything of a STATUS that the scheduler knows. */
void sched_status(const struct sched *s, struct proto_status *st,
    int64_t now_mono);

/*
 * No fail-safe: release the gang and stop slicing, but keep the schedule;
 * sched_resume() applies it again once dts-load runs.
 */
void sched_suspend(struct sched *s);
void sched_resume(struct sched *s);

/* Stop slicing and release every gang (continued, normal priority). */
void sched_release(struct sched *s);

/*
 * How the PS is split where no slot table says (dts.conf share,
 * user_weights; scheduler.c relayout): by_job 0, equally among the users
 * with jobs here (a job's user is its name up to the ':'), a user's part
 * in proportion to its weight, then equally among that user's jobs; by_job
 * 1, equally among the jobs.  weights: "USER:W" entries (users.h), or
 * NULL.  Entries beyond SCHED_USERS_MAX, or not well formed, are left out
 * (dts.conf's check refused them).  Before the first job or under the
 * lock; the slots change from the next PS.
 */
void sched_set_share(struct sched *s, int by_job,
    const struct conf_strlist *weights);

/*
 * The gangs' tasks (processes and threads) together, from the pids
 * controller (dts/job_limits.h), or -1 if not known: the freeze lead
 * is at most SCHED_LEAD_PER_TASK a task (and never under its floor), so
 * that a lead that grows with what is not the job's size (another RT
 * program on the CPU, which the tasks wait behind to freeze: the lead
 * then measures itself) cannot take the last slot's job's time.  Takes
 * the lock.
 */
#define SCHED_LEAD_PER_TASK	(10 * 1000)	/* ns */
void sched_set_tasks(struct sched *s, long tasks);

/*
 * Whole-node edges through t's base/jobs (gang_hold, freezer backend):
 * an LS of every job is one write, not one a gang.  Before the first job.
 */
void sched_set_hold(struct sched *s, const struct gang *t);

/*
 * The job table.  All under sched_lock().
 *
 * sched_job_add: the index of the place taken for g (named name, at most
 * PROTO_JOB_LEN - 1 bytes), or -1 if max_jobs are in use.  The gang is
 * put at once at the policy of now (RT and running if this is its slot
 * in a PS, else stopped, or SCHED_IDLE in an idle LS).
 * sched_job_remove: the gang is released (continued, SCHED_OTHER) and
 * the place freed; its slots go to the other jobs from the next edge.
 * sched_job_find: the index of the job named name, or -1.
 * sched_jobs: places in use.
 * sched_job_stats: job i's counters brought up to now_mono.
 */
int  sched_job_add(struct sched *s, struct gang *g, const char *name);
void sched_job_remove(struct sched *s, int i);
int  sched_job_find(const struct sched *s, const char *name);
int  sched_jobs(const struct sched *s);
void sched_job_stats(const struct sched *s, int i, int64_t now_mono,
    uint64_t *slot_ns, uint64_t *stopped_ns);

#endif /* DTS_SCHEDULER_H */
