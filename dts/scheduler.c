/*
 * scheduler.c - PS/LS loop and mode changes.  See scheduler.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/syscall.h>

#include "conf.h"
#include "job.h"
#include "log.h"
#include "priv.h"
#include "rules.h"
#include "scheduler.h"
#include "timeutil.h"
#include "trace.h"
#include "users.h"
#include "wire.h"

void
sched_init(struct sched *s, volatile struct agent_shared *shm, int64_t silence)
{
	pthread_mutexattr_t	 ma;

	memset(s, 0, sizeof(*s));
	s->max_jobs = PROTO_JOBS_MAX;
	s->tasks = -1;		/* not known: no bound on the lead but half the PS */
	s->cur = SEG_ALL;
	s->lay.n = s->next.n = 1;
	s->lay.seg[0].who = s->next.seg[0].who = SEG_ALL;
	s->shm = shm;
	s->silence = silence;
	s->mode = -1;
	s->dist_ls_pct = 10;
	s->mono = now_mono_ns;
	s->real = now_real_ns;
	rules_rt_budget(&s->rt);
	/*
	 * Priority inheritance: while the edge thread (FIFO max) waits for
	 * the lock, its holder (the main thread, max-1) runs at max, above
	 * the intake thread and dts-load at max-1 on its CPU.  A system call
	 * only when contended (FUTEX_LOCK_PI/UNLOCK_PI); uncontended, it is
	 * a compare-and-swap as before.  It bounds a wait for a holder that
	 * runs, not for one that sleeps: nothing under the lock may wait
	 * for I/O (log.h: the log queues).
	 */
	pthread_mutexattr_init(&ma);
	if (pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT) != 0 ||
	    pthread_mutex_init(&s->mu, &ma) != 0)
		pthread_mutex_init(&s->mu, NULL);
	pthread_mutexattr_destroy(&ma);
}

/*
 * An idle LS: a thread that was cloning when gang_set_idle changed its
 * creator is listed only when the clone ends, at SCHED_RR, and a creator
 * at SCHED_IDLE beside a busy CPU may end it at any time in the LS (and
 * a chain of short-lived threads carries SCHED_RR through the rest of
 * it: tests/system/t94-idle-churn.sh).  Such threads are looked for
 * every RECHECK_MIN, or 20 times as long as the last look took (a
 * read of cgroup.threads: tens to hundreds of us for 1000 threads), so
 * at most a twentieth of the LS (bench-idle counts dts's CPU time with
 * and without the looks).  None
 * that would start within half a step of the PS edge: a look that takes
 * longer than the last must not make that edge late, and the PS edge
 * moves every thread to SCHED_RR anyway.
 */
#define RECHECK_MIN	(2 * NS_PER_MS)
#define RECHECK_SHARE	20

/*
 * The edge thread's next wake-up: the next edge (a slot edge in a PS
 * before its LS edge), a pending jump, or an idle LS's recheck.
 */
static int64_t edge_due(const struct sched *s);

static void
replan(struct sched *s)
{
	int64_t	 w = s->slicing ? edge_due(s) : 0, slot;

	if (s->slicing && s->phase == PHASE_PS && s->seg + 1 < s->lay.n &&
	    (slot = s->ps_at + s->lay.seg[s->seg + 1].off) < w)
		w = slot;

	if (s->jump_at != 0 && (w == 0 || s->jump_at < w))
		w = s->jump_at;
	if (s->slicing && s->phase == PHASE_LS && s->recheck_at != 0 &&
	    (w == 0 || s->recheck_at < w))
		w = s->recheck_at;
	if (w != s->wake_at)
		s->kick = 1;
	s->wake_at = w;
}

/* An idle LS's next look, a step after at, or 0: none before its end. */
static int64_t
next_look(const struct sched *s, int64_t at)
{
	int64_t	 step = s->recheck_step > RECHECK_MIN ? s->recheck_step :
	    RECHECK_MIN;

	return at + step + step / 2 <= edge_due(s) ? at + step : 0;
}

/*
 * The fail-safe releases the gang if no edge comes for this long.  dts-load
 * wakes once per limit to look: 200 ms keeps that at 5 wake-ups a second
 * (at 50 ms the watch cost a tenth of what the edges cost at IP 10 ms).
 */
#define BEAT_LIMIT_MIN (200 * NS_PER_MS)

static void
publish(struct sched *s)
{
	if (s->shm) {
		s->shm->beat_ns = s->mono();
		s->shm->limit_ns = 2 * s->ip > BEAT_LIMIT_MIN ? 2 * s->ip :
		    BEAT_LIMIT_MIN;
		s->shm->phase = (uint32_t)s->phase;
		s->shm->mode = (uint32_t)s->mode;
		s->shm->active = (uint32_t)s->slicing;
		s->shm->ls_idle = (uint32_t)s->ls_idle;
	}
}

/*
 * Count the time since st->acct_at in the state that held since: phase
 * and whether the gang was stopped.  Called before either changes.
 */
static void
count_time(struct sched_stats *st, int phase, int stopped, int64_t now)
{
	int64_t	 d = now - st->acct_at;

	if (st->acct_at != 0 && d > 0) {
		if (phase == PHASE_PS)
			st->ps_ns += (uint64_t)d;
		else if (phase == PHASE_LS)
			st->ls_ns += (uint64_t)d;
		if (stopped)
			st->stopped_ns += (uint64_t)d;
	}
	if (d > 0 || st->acct_at == 0)
		st->acct_at = now;
}

/* The node counts as stopped while it has jobs and every one is. */
static int
all_stopped(const struct sched *s)
{
	return s->njobs > 0 && (s->held || s->nstopped == s->njobs);
}

/*
 * A job's counters up to now, in the state that held since its acct_at:
 * in its slot (running at RT in a PS), stopped.  Called before either
 * or the phase changes for it.
 */
static void
job_count(const struct sched *s, struct sched_job *j, int64_t now)
{
	int64_t	 d = now - j->acct_at;

	if (j->acct_at != 0 && d > 0) {
		if (j->run && s->phase == PHASE_PS)
			j->slot_ns += (uint64_t)d;
		if (j->gang->stopped || s->held)
			j->stopped_ns += (uint64_t)d;
	}
	if (d > 0 || j->acct_at == 0)
		j->acct_at = now;
}

/* The node's counters up to now (the jobs': each as its state changes). */
static void
account(struct sched *s, int64_t now)
{
	count_time(&s->st, s->phase, all_stopped(s), now);
}

/* The node's and every job's counters up to now (off the hot path). */
static void
account_all(struct sched *s, int64_t now)
{
	struct sched_job	*j;

	account(s, now);
	for (j = s->job; j < s->job + PROTO_JOBS_MAX; j++)
		if (j->gang != NULL)
			job_count(s, j, now);
}

/* nstopped from the gangs (after a change behind the hot path's back). */
static void
recount(struct sched *s)
{
	struct sched_job	*j;

	s->njobs = s->nstopped = 0;
	for (j = s->job; j < s->job + PROTO_JOBS_MAX; j++) {
		if (j->gang == NULL)
			continue;
		s->njobs++;
		s->nstopped += !!j->gang->stopped;
	}
}

/* Job j runs: continued, out of SCHED_IDLE, at its own RT levels (at
 * the policy of gang_set_rt). */
static void
job_run(struct sched *s, struct sched_job *j, int64_t now)
{
	struct gang	*g = j->gang;
	int		 was = !!g->stopped;

	job_count(s, j, now);
	gang_set_fill(g, 0);
	if (g->stopped && gang_cont(g) == -1)
		log_warn("continue gang of %s", j->name);
	gang_set_idle(g, 0);
	j->run = g->rt && !g->stopped;
	s->nstopped += !!g->stopped - was;
}

/*
 * Job j fills another job's slot: continued, one RT level below every
 * gang's tasks (gang_set_fill), so it runs only while the slot's job has
 * no runnable member here.  Lowered before it is continued: it never
 * runs at its own levels in another job's slot.  Not its slot's time.
 */
static void
job_fill(struct sched *s, struct sched_job *j, int64_t now)
{
	struct gang	*g = j->gang;
	int		 was = !!g->stopped;

	job_count(s, j, now);
	j->run = 0;
	gang_set_fill(g, 1);
	if (g->stopped && gang_cont(g) == -1)
		log_warn("continue gang of %s", j->name);
	if (g->idle)
		gang_set_idle(g, 0);
	s->nstopped += !!g->stopped - was;
}

/* Job j waits: at SCHED_IDLE under an idle LS it can have, else stopped. */
static void
job_wait(struct sched *s, struct sched_job *j, int64_t now)
{
	struct gang	*g = j->gang;
	int		 was = !!g->stopped;

	job_count(s, j, now);
	if (s->ls_idle && !j->no_idle)
		gang_set_idle(g, 1);	/* stops a gang that could leave it */
	else if (!g->stopped && gang_stop(g) == -1)
		log_warn("stop gang of %s", j->name);
	j->run = 0;
	s->nstopped += !!g->stopped - was;
}

/* Place i is held by the master (the layout in force): it waits in
 * every segment, stopped even under an idle LS. */
static int
is_held(const struct sched *s, int i)
{
	return i >= 0 && (s->lay.held >> i) & 1u;
}

static void
job_held(struct sched *s, struct sched_job *j, int64_t now)
{
	struct gang	*g = j->gang;
	int		 was = !!g->stopped;

	job_count(s, j, now);
	if (!g->stopped && gang_stop(g) == -1)
		log_warn("stop gang of %s", j->name);
	j->run = 0;
	s->nstopped += !!g->stopped - was;
}

static void
all_rt(struct sched *s, int rt)
{
	struct sched_job	*j;

	for (j = s->job; j < s->job + PROTO_JOBS_MAX; j++)
		if (j->gang != NULL)
			gang_set_rt(j->gang, rt);
}

static void
notify(struct sched *s)
{
	if (s->on_phase)
		s->on_phase(s->on_phase_arg, s);
}

/*
 * Every gang at once (gang_hold: an LS of a node under the freezer
 * backend, not an idle one): on, or -1 (logged; the caller stops them
 * one by one instead).
 */
static int
can_hold(const struct sched *s)
{
	return s->hold != NULL && s->hold->hold_fd != -1 && !s->ls_idle;
}

static int
hold(struct sched *s, int on)
{
	if (s->hold == NULL || s->hold->hold_fd == -1 || (on && !can_hold(s)))
		return -1;
	if (gang_hold(s->hold, on) == -1) {
		log_warn("%s %s", on ? "freeze" : "thaw", s->hold->jobs);
		return -1;
	}
	s->held = on;
	return 0;
}

/*
 * The freeze lead in force: only where an LS is one write that freezes
 * every gang (hold), whose end the edge thread can watch.
 */
static int64_t
lead_now(const struct sched *s)
{
	return can_hold(s) ? s->lead : 0;
}

/* When the edge thread does the next edge: an LS edge lead_now early. */
static int64_t
edge_due(const struct sched *s)
{
	return s->sl.deadline - ((s->sl.edge & 1) ? lead_now(s) : 0);
}

/*
 * A freeze time measured: the lead from the last FREEZE_SAMPLES, said
 * in the log when it comes or goes (a move by a quarter at debug level).
 */
/* The freeze lead for a PS of ps in an IP of ip: slice_lead, at most
 * SCHED_LEAD_PER_TASK a task where the tasks are known (never under the
 * lead's floor). */
static int64_t
lead_of(const struct sched *s, int64_t ps, int64_t ip)
{
	int64_t	 lead = slice_lead(s->frz, s->nfrz, ps, ip), cap;

	if (s->tasks < 0)
		return lead;
	cap = (int64_t)s->tasks * SCHED_LEAD_PER_TASK;
	if (cap < ip / SLICE_LEAD_FLOOR)
		cap = ip / SLICE_LEAD_FLOOR;
	return lead > cap ? cap : lead;
}

void
sched_set_tasks(struct sched *s, long tasks)
{
	sched_lock(s);
	s->tasks = tasks < 0 ? -1 : tasks;
	sched_unlock(s);
}

static void
freeze_sample(struct sched *s, int64_t took)
{
	int64_t	 was = s->lead;

	s->frz[s->frz_next] = took;
	s->frz_next = (s->frz_next + 1) % FREEZE_SAMPLES;
	if (s->nfrz < FREEZE_SAMPLES)
		s->nfrz++;
	s->lead = lead_of(s, s->sl.ps, s->sl.ip);
	if (s->lead == 0 && was != 0)
		log_info("the gangs freeze within half a point of the IP "
		    "again: each LS starts on time");
	else if (s->lead != 0 && was == 0)
		log_info("the gangs take more than half a point of the IP "
		    "(%.0f us) to freeze: each LS freezes them %.0f us early, "
		    "in the PS (at most half of it)",
		    (double)s->sl.ip / SLICE_LEAD_FLOOR / NS_PER_US,
		    (double)s->lead / NS_PER_US);
	else if (llabs(s->lead - was) > was / 4)
		log_debug("freeze lead %.0f us (was %.0f)",
		    (double)s->lead / NS_PER_US, (double)was / NS_PER_US);
}

/*
 * An LS under hold: each job at the RT level of the next PS's first
 * slot, while nothing runs, so that the PS start is one write however
 * many jobs there are.  Not part of the LS edge's time (the gangs are
 * frozen before it begins); a slot table that arrives later is set at
 * the PS start.
 */
static void
ready_ps(struct sched *s)
{
	const struct sched_layout	*l = s->lay_dirty ? &s->next : &s->lay;
	int				 who = l->seg[0].who, i;

	for (i = 0; i < PROTO_JOBS_MAX; i++)
		if (s->job[i].gang != NULL)
			gang_set_fill(s->job[i].gang, who != SEG_ALL &&
			    who != i && who >= 0 && s->job[who].gang != NULL);
}

/*
 * Who runs in a slot: from cur to who (a job's place, SEG_ALL or
 * SEG_NONE).  In a job's slot it runs and every other job fills
 * (job_fill: work-conserving, below it); in SEG_ALL all run; in SEG_NONE
 * (LS) all wait.  The jobs that no longer run wait or fill first, then
 * (tell) the on_phase hook hears of it with the counters of those about
 * to run up to now, then they run.  A slot edge from one job to another
 * is two priority sweeps (one down, one up), no stop.  force: set every
 * job even if it seems set (a PS start: whatever the fail-safe or a late
 * wake-up left).
 */
static void
set_cur(struct sched *s, int who, int64_t now, int force, int tell)
{
	struct sched_job	*j;
	int			 i;

	if (s->mem_hold)	/* quantum zero: nobody runs */
		who = SEG_NONE;
	if (s->cur == who && !force)
		return;
	if (who == SEG_NONE && !s->held && can_hold(s)) {
		for (j = s->job; j < s->job + PROTO_JOBS_MAX; j++)
			if (j->gang != NULL)
				job_count(s, j, now);
		if (hold(s, 1) == 0) {
			for (j = s->job; j < s->job + PROTO_JOBS_MAX; j++)
				j->run = 0;
			s->cur = who;
			return;
		}
	}
	if (is_held(s, who))
		who = SEG_ALL;	/* not in a slot table: a stale layout */
	for (i = 0; i < PROTO_JOBS_MAX; i++) {
		j = &s->job[i];
		if (j->gang == NULL)
			continue;
		if (who != SEG_NONE && is_held(s, i))
			job_held(s, j, now);
		else if (who == SEG_ALL || i == who)
			continue;
		else if (who == SEG_NONE)
			job_wait(s, j, now);
		else
			job_fill(s, j, now);
	}
	s->cur = who;
	if (tell) {
		if (who >= 0 && s->job[who].gang != NULL)
			job_count(s, &s->job[who], now);
		else if (who == SEG_ALL)
			for (j = s->job; j < s->job + PROTO_JOBS_MAX; j++)
				if (j->gang != NULL)
					job_count(s, j, now);
		notify(s);
	}
	if (who == SEG_ALL) {
		for (j = s->job; j < s->job + PROTO_JOBS_MAX; j++)
			if (j->gang != NULL && !is_held(s, (int)(j - s->job)) &&
			    (force || !j->run || j->gang->stopped ||
			    j->gang->fill))
				job_run(s, j, now);
	} else if (who >= 0 && s->job[who].gang != NULL)
		job_run(s, &s->job[who], now);
	if (s->held && who != SEG_NONE)	/* each at its level, now all go */
		(void)hold(s, 0);
}

/*
 * The tasks' turns on their run queues (gang_rotate: each GANG_ROT_NS at
 * most), of every job that runs: after the edge and its record, since
 * the gangs run already, and a turn delays none.
 */
static void
turns(struct sched *s, int64_t now)
{
	struct sched_job	*j;

	for (j = s->job; j < s->job + PROTO_JOBS_MAX; j++)
		if (j->gang != NULL && j->run)
			(void)gang_rotate(j->gang, now);
}

/* The segment of lay at off ns after the PS start. */
static int
find_seg(const struct sched_layout *l, int64_t off)
{
	int	 k = 0;

	while (k + 1 < l->n && l->seg[k + 1].off <= off)
		k++;
	return k;
}

/* Append (off, who) to l, merged with a segment of the same job. */
static void
seg_add(struct sched_layout *l, int64_t off, int who)
{
	if (l->n > 0 && l->seg[l->n - 1].who == who)
		return;
	if (l->n > 0 && l->seg[l->n - 1].off >= off) {
		l->n--;		/* an empty one before */
		if (l->n > 0 && l->seg[l->n - 1].who == who)
			return;
	}
	if (l->n < SCHED_SEGS_MAX) {
		l->seg[l->n].off = l->n == 0 ? 0 : off;
		l->seg[l->n].who = who;
		l->n++;
	}
}

/*
 * A slot's job here: its place, or SEG_ALL if this node does not have it
 * (logged once: it may just have ended) or it has no member.
 */
static int
slot_who(struct sched *s, const char *name)
{
	static struct log_limit	 lim = LOG_LIMIT_INIT;
	int			 i = sched_job_find(s, name);

	if (i < 0) {
		if (strncmp(s->unknown, name, PROTO_JOB_LEN) != 0) {
			memcpy(s->unknown, name, PROTO_JOB_LEN);
			log_limited(&lim, LOG_LVL_INFO, "schedule: a slot of "
			    "job %.*s, which this node does not have: its "
			    "time goes to the others", PROTO_JOB_LEN - 1,
			    name);
		}
		return SEG_ALL;
	}
	return gang_members(s->job[i].gang) > 0 ? i : SEG_ALL;
}

/* The weight of the user of job name: user_weights', or 1. */
static int
user_weight(const struct sched *s, const char *name)
{
	size_t	 n;

	for (int k = 0; k < s->nuw; k++) {
		n = strlen(s->uw_user[k]);
		if (strncmp(s->uw_user[k], name, n) == 0 && name[n] == ':')
			return s->uw[k];
	}
	return 1;
}

/*
 * Each job's part of the PS, into part[] (0: a free place); the sum.
 * share "user": a user's weight in SHARE_UNITs, divided among that
 * user's jobs here, exactly (SHARE_UNIT is a multiple of every count up
 * to PROTO_JOBS_MAX), so each user's jobs together get its part.  share
 * "job": 1 each.
 */
#define SHARE_UNIT	840	/* lcm(1, ..., 8) */
_Static_assert(PROTO_JOBS_MAX <= 8, "SHARE_UNIT divides by every count");

static int64_t
job_parts(const struct sched *s, int64_t part[PROTO_JOBS_MAX])
{
	int64_t	 sum = 0;
	int	 i, k, n;

	for (i = 0; i < PROTO_JOBS_MAX; i++) {
		part[i] = 0;
		if (s->job[i].gang == NULL)
			continue;
		for (k = 0, n = 0; k < PROTO_JOBS_MAX && !s->share_job; k++)
			n += s->job[k].gang != NULL &&
			    job_same_user(s->job[i].name, s->job[k].name);
		part[i] = s->share_job ? 1 :
		    (int64_t)user_weight(s, s->job[i].name) * SHARE_UNIT / n;
		sum += part[i];
	}
	return sum;
}

/* The places of the SCHEDULE's held jobs that this node has, as bits. */
static unsigned
held_places(struct sched *s)
{
	unsigned	 held = 0, k, n;
	int		 i;

	n = s->want.nslots + s->want.nheld;
	for (k = s->want.nslots; k < n && k < PROTO_JOBS_MAX; k++)
		if ((i = sched_job_find(s, s->want.slot[k].job)) >= 0)
			held |= 1u << i;
	return held;
}

/*
 * The slots of a PS of ps ns, into s->next: the SCHEDULE's slot table if
 * it has one (not in DISTRIBUTED, which slices on its own), else the PS
 * split by job_parts (share), one segment a job in place order.  On the
 * main thread: a slot table reads the gangs' member counts.
 */
static void
relayout(struct sched *s, int64_t ps)
{
	struct sched_layout	*l = &s->next;
	struct proto_slot	 sl[PROTO_JOBS_MAX], t;
	int64_t			 at = 0, start, end, part[PROTO_JOBS_MAX];
	int64_t			 sum;
	int			 i, k, n;

	l->n = 0;
	l->held = s->mode == MODE_DISTRIBUTED ? 0 : held_places(s);
	if (s->want.nslots == 0 || s->mode == MODE_DISTRIBUTED) {
		sum = job_parts(s, part);
		for (i = 0; i < PROTO_JOBS_MAX; i++)
			if ((l->held >> i) & 1u) {
				sum -= part[i];
				part[i] = 0;
			}
		for (i = 0; i < PROTO_JOBS_MAX && sum > 0; i++)
			if (part[i] > 0) {
				seg_add(l, ps * at / sum, i);
				at += part[i];
			}
	} else {
		n = s->want.nslots > PROTO_JOBS_MAX ? PROTO_JOBS_MAX :
		    s->want.nslots;
		memcpy(sl, s->want.slot, sizeof(sl));
		for (i = 1; i < n; i++)		/* by start */
			for (k = i; k > 0 &&
			    sl[k - 1].start_us > sl[k].start_us; k--) {
				t = sl[k];
				sl[k] = sl[k - 1];
				sl[k - 1] = t;
			}
		for (i = 0; i < n; i++) {
			start = (int64_t)sl[i].start_us * NS_PER_US;
			end = start + (int64_t)sl[i].len_us * NS_PER_US;
			if (start >= ps || sl[i].len_us == 0)
				continue;
			if (start > at)
				seg_add(l, at, SEG_ALL);	/* a gap */
			seg_add(l, start, slot_who(s, sl[i].job));
			at = end;
		}
		if (at < ps)
			seg_add(l, at, SEG_ALL);
	}
	if (l->n == 0)
		seg_add(l, 0, SEG_ALL);
	s->next_ps = ps;
	s->lay_dirty = 1;
}

/* The PS the slots are for now (0: none). */
static int64_t
ps_now(const struct sched *s)
{
	if (s->jump_at != 0)
		return s->jump_ps;
	if (s->slicing)
		return s->sl.ps;
	return s->mode == MODE_DISTRIBUTED ?
	    loadtab_ps(s->ip, s->dist_ls_pct) : s->ps;
}

/*
 * An edge's gang operation is done: in the trace (phase: PHASE_PS,
 * PHASE_LS or TRACE_SLOT) and the histograms.  Returns the realtime
 * clock it was done at.
 */
static int64_t
edge_record(struct sched *s, int phase, int64_t deadline, int64_t wake)
{
	int64_t	 real = s->real(), done = s->mono();

	trace_record(phase, deadline, wake, done, real);
	hist_add(&s->st.late, wake - deadline);
	hist_add(&s->st.op, done - wake);
	return real;
}

/*
 * The hot path: one gang operation (a slot's job), two clock reads, a
 * few stores.  deadline and wake (monotonic) go into the trace and the
 * histograms.  The time up to wake counts in the phase before, and a PS
 * is published (notify) before the gang runs, so a member never reads a
 * stopped time without the LS it just came out of.  A PS starts with the
 * slots built last (lay_dirty) in the segment of wake.
 */
static void
enter_phase(struct sched *s, int phase, int64_t deadline, int64_t wake)
{
	int64_t	 real;

	account(s, wake);
	if (s->phase == PHASE_PS && s->cur >= 0)	/* before PS ends */
		job_count(s, &s->job[s->cur], wake);
	else if (s->phase == PHASE_PS && s->cur == SEG_ALL)
		account_all(s, wake);
	s->phase = phase;
	if (phase == PHASE_PS) {
		if (s->lay_dirty) {
			s->lay = s->next;
			s->lay_dirty = 0;
		}
		s->ps_at = slice_edge_time(s->sl.t0, s->sl.ps, s->sl.ip,
		    s->sl.edge - 1);
		s->seg = find_seg(&s->lay, wake - s->ps_at);
		set_cur(s, s->lay.seg[s->seg].who, wake, 1, 1);
	} else if (phase == PHASE_LS)
		set_cur(s, SEG_NONE, wake, 0, 0);
	s->recheck_at = phase == PHASE_LS && s->ls_idle ? next_look(s, wake) :
	    0;
	real = edge_record(s, phase, deadline, wake);
	if (phase == PHASE_PS) {
		s->slices++;
		s->last_ps_real = real;
		turns(s, wake);
	} else {
		if (s->held) {
			ready_ps(s);
			/* how long the freeze takes, now and then */
			if (s->njobs > 0 && s->held_ls++ % FREEZE_PROBE_EVERY == 0) {
				s->probe = 1;
				s->probe_from = wake;
			}
		}
		notify(s);
	}
	if (s->shm)
		s->shm->phase = (uint32_t)phase;
}

/*
 * A slot edge at wake (due at deadline): the segment of wake runs; the
 * edges a late wake-up passed are skipped, counted as overruns.  In the
 * trace as TRACE_SLOT, and in the histograms.
 */
static void
slot_edge(struct sched *s, int64_t deadline, int64_t wake)
{
	int	 k = find_seg(&s->lay, wake - s->ps_at);

	account(s, wake);
	s->sl.overruns += (uint64_t)(k - s->seg - 1);
	s->seg = k;
	set_cur(s, s->lay.seg[k].who, wake, 0, 1);
	(void)edge_record(s, TRACE_SLOT, deadline, wake);
	turns(s, wake);
}

static void
stop_slicing(struct sched *s, int rt)
{
	struct sched_job	*j;
	int64_t			 now = s->mono();

	account_all(s, now);
	s->slicing = 0;
	s->jump_at = 0;
	s->recheck_at = 0;
	replan(s);
	s->phase = PHASE_NONE;
	if (s->held)
		(void)hold(s, 0);
	for (j = s->job; j < s->job + PROTO_JOBS_MAX; j++) {
		if (j->gang == NULL)
			continue;
		if (j->gang->stopped && gang_cont(j->gang) == -1)
			log_warn("continue gang of %s", j->name);
		gang_set_rt(j->gang, rt);
		gang_set_fill(j->gang, 0);
		gang_set_idle(j->gang, 0);
		j->run = rt;
	}
	recount(s);
	s->cur = SEG_ALL;
	publish(s);
	notify(s);
}

/*
 * A new origin in the middle of a PS: the gang runs on, and the PS start
 * of the new origin, at (mono), is recorded as if it had been an edge
 * (STATUS's last PS start, the trace), not one IP later.  An origin
 * moved back puts it before the edge recorded last; trace_since() skips
 * by time, so a reader asking after either still gets each once.
 */
static void
note_ps_start(struct sched *s, int64_t at, int64_t now)
{
	int64_t	 real = s->real() - (now - at);

	trace_record(PHASE_PS, at, at, at, real);
	s->slices++;
	s->last_ps_real = real;
}

/*
 * sync_point: restart the loop at origin t0.  jump: a PS starts at t0 even
 * if one is running (arrival sync), and the trace counts it late from t0;
 * otherwise only a change of phase acts, or a PS start that moved.
 */
static void
start_slicing(struct sched *s, int64_t t0, int64_t ps, int64_t now, int jump)
{
	int64_t	 ps_was = -1, ps_at;
	int	 phase;

	if (s->slicing && s->phase == PHASE_PS && s->sl.edge > 0)
		ps_was = slice_edge_time(s->sl.t0, s->sl.ps, s->sl.ip,
		    s->sl.edge - 1);
	if (!s->slicing)
		account_all(s, now);	/* HPDT's or OFF's time */
	all_rt(s, 1);
	s->overruns += s->sl.overruns;
	memset(&s->sl, 0, sizeof(s->sl));
	phase = slice_sync(&s->sl, t0, ps, s->ip, now);
	s->lead = lead_of(s, ps, s->ip);	/* for this PS */
	s->slicing = 1;
	s->jump_at = 0;
	if (s->next_ps != ps)		/* (an arrival jump to a new PS) */
		relayout(s, ps);
	s->lay = s->next;		/* the slots of the new PS at once */
	s->lay_dirty = 0;
	if (phase != s->phase || (jump && phase == PHASE_PS))
		enter_phase(s, phase, jump && t0 <= now ? t0 : now, now);
	else if (phase == PHASE_PS) {
		ps_at = slice_edge_time(t0, ps, s->ip, s->sl.edge - 1);
		if (ps_was != -1 && (ps_at > ps_was + NS_PER_US ||
		    ps_at < ps_was - NS_PER_US))
			note_ps_start(s, ps_at, now);
		s->ps_at = ps_at;	/* the slot of now in the new PS */
		s->seg = find_seg(&s->lay, now - ps_at);
		account(s, now);
		set_cur(s, s->lay.seg[s->seg].who, now, 0, 0);
	}
	replan(s);
	publish(s);
	notify(s);
}

/*
 * Arrival sync: the datagram arrived at arrival (mono, the kernel's stamp);
 * its PS starts ARRIVAL_DELAY later.  Until then the slices go on as they
 * were; the edge thread jumps at that deadline.  Already past (the
 * datagram was handled late): jump now, from that origin.
 */
static void
arrival_sync(struct sched *s, int64_t arrival, int64_t ps, int64_t now)
{
	int64_t	 t0 = arrival + ARRIVAL_DELAY;

	if (t0 > now + ARRIVAL_DELAY)	/* a stamp from the future */
		t0 = now + ARRIVAL_DELAY;
	if (t0 <= now) {
		start_slicing(s, t0, ps, now, 1);
		return;
	}
	s->jump_at = t0;
	s->jump_ps = ps;
	replan(s);
}

static int64_t
dist_ps(const struct sched *s)
{
	return loadtab_ps(s->ip, s->dist_ls_pct);
}

/*
 * The rules of common/rules.h for what this node would run: in
 * DISTRIBUTED its own PS (Table 2.1 for its load), else the PS it was
 * sent.  0, or -1 with *err.
 */
static int
check_rules(const struct sched *s, int mode, int64_t ps, int64_t ip,
    int64_t si, int dist_ls_pct, const char **err)
{
	static char		 buf[512];
	struct rules_sched	 r = { .mode = mode, .ps = ps, .ip = ip,
	    .si = si };

	if (mode == MODE_DISTRIBUTED) {
		r.mode = MODE_STATIC;
		r.ps = loadtab_ps(ip, dist_ls_pct);
	}
	if (rules_check(&r, &s->rt, buf, sizeof(buf)) == -1) {
		*err = buf;
		return -1;
	}
	return 0;
}

/*
 * May job j wait at SCHED_IDLE?  Where SCHED_IDLE would not yield to
 * every local task, it is stopped instead (the owner's promise first),
 * said once per request and job.  1 if it may.
 */
static int
job_idle_possible(struct sched_job *j)
{
	char	 why[160];

	if (gang_can_idle(j->gang, why, sizeof(why))) {
		j->no_idle = 0;
		return 1;
	}
	if (!j->no_idle)
		log_warnx("ls_policy idle cannot hold here: %s, in which "
		    "SCHED_IDLE yields only to its own members; LS stops the "
		    "gang instead (job %s)", why, j->name);
	j->no_idle = 1;
	return 0;
}

/*
 * ls_policy idle where p asks for it and SCHED_IDLE would really yield to
 * every local task for some job (or no job is there to say no); a job for
 * which it would not is stopped instead.
 */
static int
ls_idle_possible(struct sched *s, const struct proto_schedule *p)
{
	struct sched_job	*j;
	int			 can = 0, n = 0;

	if (!(p->flags & SCHED_F_LS_IDLE)) {
		s->idle_refused = 0;
		for (j = s->job; j < s->job + PROTO_JOBS_MAX; j++)
			j->no_idle = 0;
		return 0;
	}
	for (j = s->job; j < s->job + PROTO_JOBS_MAX; j++) {
		if (j->gang == NULL)
			continue;
		n++;
		can += job_idle_possible(j);
	}
	s->idle_refused = can < n;
	return n == 0 || can > 0;
}

/*
 * Take p's schedule (ps, ip and si in ns) as the desired state.  1 if it
 * differs from the one before, else 0.
 */
static int
take(struct sched *s, const struct proto_schedule *p, int64_t ps,
    int64_t ip, int64_t si)
{
	int	 active = !!(p->flags & SCHED_F_ACTIVE);
	int	 ls_idle = ls_idle_possible(s, p);
	int	 changed;

	changed = s->mode != p->mode || s->ps != ps || s->ip != ip ||
	    s->sync != p->sync || s->active != active ||
	    s->ls_idle != ls_idle;
	s->mode = p->mode;
	s->ls_idle = ls_idle;
	s->sync = p->sync;
	s->active = active;
	s->ps = ps;
	s->ip = ip;
	s->si = si;
	if (changed)
		log_info("schedule: mode %s, PS %lld us of IP %lld us, sync "
		    "%s, LS %s, %s", proto_mode_name(s->mode),
		    (long long)p->ps_us, (long long)p->ip_us,
		    proto_sync_name(s->sync),
		    conf_ls_policy_names[s->ls_idle ? LS_IDLE : LS_STOP],
		    s->active ? "active" : "stopped");
	return changed;
}

/*
 * Clock sync: p's origin (CLOCK_REALTIME) on the monotonic clock, by the
 * two stamps of the datagram's arrival.  More than an IP ahead (a clock
 * that is wrong): now.
 */
static int64_t
clock_origin(const struct sched *s, const struct proto_schedule *p,
    int64_t arrival_mono, int64_t arrival_real, int64_t now)
{
	int64_t	 t0 = (int64_t)p->origin_ns - (arrival_real - arrival_mono);

	return t0 > now + s->ip ? now : t0;
}

int
sched_apply(struct sched *s, const struct proto_schedule *p,
    int64_t arrival_mono, int64_t arrival_real, const char **err)
{
	int64_t	 ps = (int64_t)p->ps_us * NS_PER_US;
	int64_t	 ip = (int64_t)p->ip_us * NS_PER_US;
	int64_t	 si = (int64_t)p->si_us * NS_PER_US;
	int64_t	 now = s->mono();
	int	 changed;
	int	 was_dist = s->mode == MODE_DISTRIBUTED && s->slicing;

	if (proto_check_schedule(p, err) == -1 ||
	    check_rules(s, p->mode, ps, ip, si, s->dist_ls_pct, err) == -1)
		return -1;
	s->want = *p;
	s->want.flags &= (uint8_t)~SCHED_F_SYNC;
	if (s->suspended)
		return 0;
	changed = take(s, p, ps, ip, si);
	relayout(s, s->mode == MODE_DISTRIBUTED ? dist_ps(s) : ps);
	if (!s->active || s->mode == MODE_OFF)
		stop_slicing(s, 0);
	else if (s->mode == MODE_HPDT)
		stop_slicing(s, 1);
	else if (s->mode == MODE_DISTRIBUTED) {
		/* not synchronized: keep the local origin */
		if (!was_dist || changed)
			start_slicing(s, was_dist ? s->sl.t0 : now,
			    dist_ps(s), now, 0);
	} else if (changed || (p->flags & SCHED_F_SYNC) || !s->slicing) {
		if (s->sync == SYNC_ARRIVAL)
			arrival_sync(s, arrival_mono, ps, now);
		else
			start_slicing(s, clock_origin(s, p, arrival_mono,
			    arrival_real, now), ps, now, 0);
	}
	publish(s);
	return 0;
}

static void
recheck_idle(struct sched *s, int64_t wake)
{
	struct sched_job	*j;
	int64_t			 took;
	int			 idle = 0;

	for (j = s->job; j < s->job + PROTO_JOBS_MAX; j++)
		if (j->gang != NULL && j->gang->idle) {
			(void)gang_recheck_idle(j->gang);
			idle = 1;
		}
	took = s->mono() - wake;
	s->recheck_step = RECHECK_SHARE * took;
	s->recheck_at = idle ? next_look(s, wake) : 0;
}

void
sched_timer(struct sched *s, int64_t wake)
{
	int64_t	 deadline = s->sl.deadline, due = edge_due(s), slot = 0;
	int	 crossed, phase, left = 0, k;

	if (s->jump_at != 0 && wake >= s->jump_at) {
		start_slicing(s, s->jump_at, s->jump_ps, wake, 1);
		return;
	}
	if (s->slicing && s->phase == PHASE_LS && s->recheck_at != 0 &&
	    wake >= s->recheck_at && wake < due)
		recheck_idle(s, wake);
	if (s->slicing && s->phase == PHASE_PS && s->seg + 1 < s->lay.n) {
		slot = s->ps_at + s->lay.seg[s->seg + 1].off;
		/* slot edges to come before the (early) LS edge */
		for (k = s->seg + 1; k < s->lay.n &&
		    s->ps_at + s->lay.seg[k].off < due; k++)
			left++;
		if (slot >= due)
			slot = 0;
	}
	if (!s->slicing || (wake < due && (slot == 0 || wake < slot))) {
		replan(s);			/* nothing due */
		return;
	}
	if (s->shm)
		s->shm->beat_ns = wake;	/* liveness, for the fail-safe */
	if (wake < due) {
		slot_edge(s, slot, wake);
		replan(s);
		return;
	}
	/* an LS edge done early (the lead) is the edge at its deadline */
	phase = slice_advance(&s->sl, wake < deadline ? deadline : wake,
	    &crossed);
	if (crossed > 0 && (phase != s->phase || crossed > 1)) {
		enter_phase(s, phase, due, wake);
		/* slot edges passed: the PS's left, the new PS's up to wake */
		s->sl.overruns += (uint64_t)left;
		if (phase == PHASE_PS)
			s->sl.overruns += (uint64_t)s->seg;
	}
	replan(s);
}

/*
 * Sleep until deadline (absolute CLOCK_MONOTONIC ns; 0: no deadline), or
 * until *word is no longer seen: a futex wait, which returns at once if
 * the main thread moved the plan since the edge thread read it.  Not a
 * condition variable: glibc's marks the mutex contended after a wait, and
 * its unlock then costs a FUTEX_WAKE per edge.
 */
static void
wait_until(uint32_t *word, uint32_t seen, int64_t deadline)
{
	struct timespec	 ts = ns_to_ts(deadline);

	(void)syscall(SYS_futex, word, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG,
	    seen, deadline != 0 ? &ts : NULL, NULL, FUTEX_BITSET_MATCH_ANY);
}

/* The plan moved (under the lock): wake the edge thread. */
static void
plan_moved(struct sched *s)
{
	__atomic_add_fetch(&s->plan, 1, __ATOMIC_RELEASE);
}

static void
wake_edge_thread(struct sched *s)
{
	(void)syscall(SYS_futex, &s->plan, FUTEX_WAKE | FUTEX_PRIVATE_FLAG,
	    1, NULL, NULL, 0);
}

/*
 * After an LS edge that froze every gang (hold): how long until they are
 * frozen, re-reading base/jobs's cgroup.events FREEZE_PROBE_STEP, then a
 * quarter longer each time, apart (its poll notice is rate limited to one
 * per 10 ms or so, shared/reference/limits.md section 2).  Without the
 * lock, never past the next edge (a freeze not done by then counts as
 * taking the whole LS), and asleep as the edge thread sleeps: a plan the
 * main thread moves (a new schedule, a jump, dts ending) ends the probe
 * at once, with no sample.  Called with the lock held; returns with it.
 */
#define FREEZE_PROBE_STEP	(5 * NS_PER_US)
#define FREEZE_PROBE_STEP_MAX	(500 * NS_PER_US)

static void
probe_freeze(struct sched *s)
{
	const struct gang	*t = s->hold;
	int64_t			 from = s->probe_from, until = s->wake_at, at;
	int64_t			 step = FREEZE_PROBE_STEP;
	uint32_t		 seen = __atomic_load_n(&s->plan, __ATOMIC_ACQUIRE);
	int			 frozen;

	s->probe = 0;
	pthread_mutex_unlock(&s->mu);
	for (;;) {
		frozen = gang_held(t);
		at = s->mono();
		if (frozen != 0 || (until != 0 && at + step >= until))
			break;
		wait_until(&s->plan, seen, at + step);
		if (__atomic_load_n(&s->plan, __ATOMIC_ACQUIRE) != seen) {
			frozen = -1;	/* moved: no sample */
			break;
		}
		/* a quarter longer each time: the tasks on this CPU need it
		 * to freeze, and the time is known to a quarter */
		if (step < FREEZE_PROBE_STEP_MAX)
			step += step / 4;
	}
	pthread_mutex_lock(&s->mu);
	/* unreadable, moved, or thawed meanwhile: no sample */
	if (frozen != -1 && s->held && s->phase == PHASE_LS)
		freeze_sample(s, at - from);
}

/* For the edge guard: busy since (mono ns), or 0: asleep. */
static void
set_busy(struct sched *s, int64_t since)
{
	__atomic_store_n(&s->busy, since, __ATOMIC_RELEASE);
}

/* After the guard's rescue, with the lock: every gang at its levels. */
static void
rescue_end(struct sched *s)
{
	static struct log_limit	 lim = LOG_LIMIT_INIT;	/* the edge thread's */
	struct sched_job	*j;

	if (!__atomic_exchange_n(&s->rescued, 0, __ATOMIC_ACQ_REL))
		return;
	for (j = s->job; j < s->job + PROTO_JOBS_MAX; j++)
		if (j->gang != NULL)
			gang_reapply(j->gang);
	log_limited(&lim, LOG_LVL_INFO, "the edge is made: every gang at its "
	    "own levels again");
}

/*
 * The edge thread: sleep until wake_at, or until the main thread moves
 * it; then do what is due.  Holds the lock except while asleep.
 */
static void *
edge_thread(void *arg)
{
	struct sched	*s = arg;
	uint32_t	 seen;
	int64_t		 now, until;

	pthread_mutex_lock(&s->mu);
	while (!s->quit) {
		s->kick = 0;
		seen = __atomic_load_n(&s->plan, __ATOMIC_ACQUIRE);
		until = s->wake_at;
		set_busy(s, 0);
		pthread_mutex_unlock(&s->mu);
		wait_until(&s->plan, seen, until);
		set_busy(s, s->mono());	/* the lock too may keep it */
		pthread_mutex_lock(&s->mu);
		now = s->mono();
		if (!s->quit && s->wake_at != 0 && now >= s->wake_at)
			sched_timer(s, now);
		rescue_end(s);
		if (s->probe) {
			set_busy(s, 0);		/* asleep in it */
			probe_freeze(s);
		}
	}
	set_busy(s, 0);
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/*
 * The edge guard (sched_start).  Reads only what the edge thread
 * publishes atomically (busy; quit, slicing) and base/jobs's
 * directories.
 */
static void *
guard_thread(void *arg)
{
	static struct log_limit	 lim = LOG_LIMIT_INIT;	/* churned jobs */
	struct sched	*s = arg;
	int64_t		 at = s->mono(), since, now, done = 0;
	int		 n;

	(void)pthread_setname_np(pthread_self(), "dts-guard");
	while (!__atomic_load_n(&s->quit, __ATOMIC_ACQUIRE)) {
		/* not slicing: no edge to wait for, a look now and then */
		at += __atomic_load_n(&s->slicing, __ATOMIC_RELAXED) ?
		    SCHED_GUARD_STEP : SCHED_GUARD_IDLE;
		wait_until(&s->guard_word, 0, at);	/* sched_stop wakes it */
		now = s->mono();
		if (at < now)
			at = now;	/* no catching up after a stop */
		/* whatever the phase says: an LS edge is LS before its
		 * freeze is written, and that write is what waits */
		since = __atomic_load_n(&s->busy, __ATOMIC_ACQUIRE);
		if (since == 0 || since == done ||
		    now - since < SCHED_GUARD_STUCK)
			continue;
		done = since;
		n = gang_demote_all(s->hold);
		__atomic_store_n(&s->rescued, 1, __ATOMIC_RELEASE);
		log_limited(&lim, LOG_LVL_WARN, "the edge thread has waited "
		    "%.1f ms (for the kernel's cgroup lock, or for the "
		    "scheduler's): %d gang thread(s) at SCHED_OTHER until it "
		    "is done", (double)(now - since) / 1e6, n);
	}
	return NULL;
}

/* The edge thread told to end, and joined. */
static void
sched_stop_thread(struct sched *s)
{
	pthread_mutex_lock(&s->mu);
	__atomic_store_n(&s->quit, 1, __ATOMIC_RELEASE);
	plan_moved(s);
	pthread_mutex_unlock(&s->mu);
	wake_edge_thread(s);
	pthread_join(s->thread, NULL);
}

int
sched_start(struct sched *s, int prio)
{
	s->quit = 0;
	s->busy = 0;
	s->rescued = 0;
	s->guard_word = 0;
	if (priv_rt_thread(&s->thread, prio, edge_thread, s) == -1)
		return -1;
	if (priv_rt_thread(&s->guard, prio, guard_thread, s) == -1) {
		sched_stop_thread(s);
		return -1;
	}
	s->running = 1;
	return 0;
}

void
sched_stop(struct sched *s)
{
	if (!s->running)
		return;
	sched_stop_thread(s);
	__atomic_store_n(&s->guard_word, 1, __ATOMIC_RELEASE);
	(void)syscall(SYS_futex, &s->guard_word, FUTEX_WAKE |
	    FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
	pthread_join(s->guard, NULL);
	s->running = 0;
}

#define QUIET_POLL_NS		(NS_PER_MS)
#define QUIET_LATE_NS		(100 * 1000)
#define QUIET_AFTER_EDGE_NS	(50 * 1000)

void
sched_lock(struct sched *s)
{
	pthread_mutex_lock(&s->mu);
}

/* Does a gang hold a CPU at real-time priority now (a PS, HPDT)? */
static int
gang_runs_rt(const struct sched *s)
{
	for (int i = 0; i < s->max_jobs; i++)
		if (s->job[i].gang != NULL && s->job[i].run)
			return 1;
	return 0;
}

int
sched_lock_quiet(struct sched *s, int64_t max_ns)
{
	int64_t			 end = s->mono() + max_ns, at, now;
	struct timespec		 ts;

	for (;;) {
		pthread_mutex_lock(&s->mu);
		if (!gang_runs_rt(s))
			return 1;
		now = s->mono();
		/* no edge comes: no LS to wait for */
		if (!s->running || !s->slicing || now >= end)
			return 0;
		/* just after the next edge (the edge thread takes the lock
		 * at it); if it is due already (the edge thread is late), a
		 * short poll: never a busy loop at this priority */
		at = s->wake_at > now ? s->wake_at + QUIET_AFTER_EDGE_NS :
		    now + (s->wake_at > 0 ? QUIET_LATE_NS : QUIET_POLL_NS);
		pthread_mutex_unlock(&s->mu);
		ts = ns_to_ts(at < end ? at : end);
		(void)clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
}

void
sched_unlock(struct sched *s)
{
	int	 kick = s->kick;

	if (kick) {
		s->kick = 0;
		plan_moved(s);
	}
	pthread_mutex_unlock(&s->mu);
	if (kick)
		wake_edge_thread(s);
}

void
sched_regain(struct sched *s)
{
	struct sched_job	*j;
	int64_t			 now = s->mono();
	int			 rt = s->active && s->mode == MODE_HPDT, i;

	account_all(s, now);
	s->st.failsafe++;
	s->held = 0;		/* the fail-safe thawed base/jobs too */
	for (i = 0; i < PROTO_JOBS_MAX; i++) {
		j = &s->job[i];
		if (j->gang == NULL)
			continue;
		gang_forget(j->gang);	/* continued, SCHED_OTHER */
		j->run = 0;
		if (!s->slicing) {
			gang_set_rt(j->gang, rt);
			j->run = rt;
			continue;
		}
		gang_set_rt(j->gang, 1);
		if (s->phase == PHASE_PS && is_held(s, i))
			job_held(s, j, now);
		else if (s->phase == PHASE_PS && (s->cur == SEG_ALL ||
		    s->cur == i))
			j->run = 1;	/* its slot */
		else if (s->phase == PHASE_PS && s->cur >= 0)
			job_fill(s, j, now);	/* another's slot */
		else
			job_wait(s, j, now);
	}
	recount(s);
	if (s->slicing)
		publish(s);
}

void
sched_load(struct sched *s, uint32_t load_milli, uint32_t ls_pct)
{
	const char	*err;

	s->load_milli = load_milli;
	if (ls_pct < 1 || ls_pct > 99 || (int)ls_pct == s->dist_ls_pct)
		return;
	if (s->mode == MODE_DISTRIBUTED && check_rules(s, s->mode, 0, s->ip,
	    s->si, (int)ls_pct, &err) == -1) {
		log_warnx("distributed: LS %u%% of IP not applied: %s", ls_pct,
		    err);
		return;
	}
	s->dist_ls_pct = (int)ls_pct;
	if (s->mode == MODE_DISTRIBUTED && s->slicing && s->active) {
		log_info("distributed: load %.2f, LS %u%% of IP",
		    load_milli / 1000.0, ls_pct);
		start_slicing(s, s->sl.t0, dist_ps(s), s->mono(), 0);
	}
}

void
sched_stats(const struct sched *s, int64_t now_mono, struct sched_stats *out)
{
	*out = s->st;
	count_time(out, s->phase, all_stopped(s), now_mono);
}

void
sched_status(const struct sched *s, struct proto_status *st,
    int64_t now_mono)
{
	int64_t	 ps = s->mode == MODE_DISTRIBUTED ? dist_ps(s) : s->ps;
	int	 i, n;

	st->mode = (uint8_t)(s->mode < 0 ? 0 : s->mode);
	st->sync = (uint8_t)s->sync;
	st->flags = 0;
	if (s->slicing)
		st->flags |= SCHED_F_ACTIVE;
	if (s->last_console && now_mono - s->last_console <= s->silence)
		st->flags |= STATUS_F_HEARD;
	if (s->own)
		st->flags |= STATUS_F_OWN;
	if (s->ls_idle)
		st->flags |= STATUS_F_LS_IDLE;
	st->phase = (uint8_t)s->phase;
	st->ps_us = (uint32_t)(ps / NS_PER_US);
	st->ip_us = (uint32_t)(s->ip / NS_PER_US);
	st->si_us = (uint32_t)(s->si / NS_PER_US);
	st->load_milli = s->load_milli;
	st->members = 0;
	st->njobs = 0;
	memset(st->job, 0, sizeof(st->job));
	for (i = 0; i < PROTO_JOBS_MAX; i++) {
		if (s->job[i].gang == NULL)
			continue;
		n = gang_members(s->job[i].gang);
		if (n < 0)
			n = 0;
		memcpy(st->job[st->njobs].job, s->job[i].name, PROTO_JOB_LEN);
		st->job[st->njobs].members = (uint32_t)n < PROTO_MEMBERS_MAX ?
		    (uint32_t)n : PROTO_MEMBERS_MAX;
		st->job[st->njobs].weight = (uint8_t)__atomic_load_n(
		    &s->job[i].weight, __ATOMIC_RELAXED);
		st->members += (uint32_t)n;
		st->njobs++;
	}
	st->slices = s->slices;
	st->overruns = s->overruns + s->sl.overruns;
	st->last_ps_ns = (uint64_t)s->last_ps_real;
}

void
sched_suspend(struct sched *s)
{
	s->suspended = 1;
	sched_release(s);
}

void
sched_resume(struct sched *s)
{
	const char	*err;

	if (!s->suspended)
		return;
	s->suspended = 0;
	s->mode = -1;	/* everything counts as changed */
	if (sched_apply(s, &s->want, s->mono(), s->real(), &err) == -1)
		log_warnx("schedule: %s", err);
}

void
sched_release(struct sched *s)
{
	struct sched_job	*j;

	account_all(s, s->mono());
	s->slicing = 0;
	s->jump_at = 0;
	s->recheck_at = 0;
	replan(s);
	s->phase = PHASE_NONE;
	publish(s);
	for (j = s->job; j < s->job + PROTO_JOBS_MAX; j++) {
		if (j->gang == NULL)
			continue;
		gang_release(j->gang);
		j->run = 0;
	}
	if (s->held)	/* each released while frozen: then all thawed */
		(void)hold(s, 0);
	recount(s);
	s->cur = SEG_ALL;
	notify(s);
}

int
sched_job_find(const struct sched *s, const char *name)
{
	int	 i;

	for (i = 0; i < PROTO_JOBS_MAX; i++)
		if (s->job[i].gang != NULL &&
		    strncmp(s->job[i].name, name, PROTO_JOB_LEN) == 0)
			return i;
	return -1;
}

int
sched_jobs(const struct sched *s)
{
	return s->njobs;
}

/*
 * The jobs changed under an idle LS asked for: idle in force if some job
 * can have it (or there is none), each job that cannot stopped instead.
 */
static void
idle_update(struct sched *s)
{
	struct sched_job	*j;
	int			 can = 0, ls_idle;

	if (!(s->want.flags & SCHED_F_LS_IDLE) || s->suspended ||
	    s->mode < 0)
		return;
	for (j = s->job; j < s->job + PROTO_JOBS_MAX; j++)
		if (j->gang != NULL && !j->no_idle)
			can++;
	ls_idle = s->njobs == 0 || can > 0;
	s->idle_refused = can < s->njobs;
	if (ls_idle != s->ls_idle) {
		s->ls_idle = ls_idle;
		publish(s);
	}
}

void
sched_set_hold(struct sched *s, const struct gang *t)
{
	s->hold = t;
}

void
sched_set_share(struct sched *s, int by_job, const struct conf_strlist *w)
{
	char	 why[256];
	int	 k;

	s->share_job = by_job;
	s->nuw = 0;
	for (k = 0; w != NULL && k < w->n && s->nuw < SCHED_USERS_MAX; k++)
		if (users_weight_parse(w->s[k], s->uw_user[s->nuw],
		    sizeof(s->uw_user[0]), &s->uw[s->nuw], why,
		    sizeof(why)) == 0)
			s->nuw++;
	relayout(s, ps_now(s));
}

int
sched_job_add(struct sched *s, struct gang *g, const char *name)
{
	struct sched_job	*j;
	int64_t			 now = s->mono();
	int			 i, max = s->max_jobs;
	int			 rt = s->active && s->mode == MODE_HPDT;

	if (max > PROTO_JOBS_MAX)
		max = PROTO_JOBS_MAX;
	if (g == NULL || s->njobs >= max)
		return -1;
	for (i = 0; i < PROTO_JOBS_MAX && s->job[i].gang != NULL; i++)
		;
	if (i == PROTO_JOBS_MAX)
		return -1;
	/* nothing counted yet (before the first schedule): nothing to count */
	if (s->st.acct_at != 0)
		account_all(s, now);
	j = &s->job[i];
	memset(j, 0, sizeof(*j));
	j->gang = g;
	snprintf(j->name, sizeof(j->name), "%s", name);
	j->acct_at = s->st.acct_at;
	s->njobs++;
	s->nstopped += !!g->stopped;
	if ((s->want.flags & SCHED_F_LS_IDLE) && !s->suspended)
		(void)job_idle_possible(j);
	idle_update(s);
	if (s->suspended)
		;	/* released, as the others */
	else if (!s->slicing) {
		if (g->rt != rt)
			gang_set_rt(g, rt);
		j->run = rt && !g->stopped;
	} else {
		gang_set_rt(g, 1);
		if (s->phase == PHASE_PS && s->cur == SEG_ALL)
			job_run(s, j, now);	/* a vacant slot: with all */
		else if (s->phase == PHASE_PS && s->cur >= 0)
			job_fill(s, j, now);	/* its slots from next PS */
		else
			job_wait(s, j, now);
	}
	relayout(s, ps_now(s));
	notify(s);
	return i;
}

void
sched_job_remove(struct sched *s, int i)
{
	struct sched_job	*j;
	int64_t			 now = s->mono();
	int			 k;

	if (i < 0 || i >= PROTO_JOBS_MAX || s->job[i].gang == NULL)
		return;
	j = &s->job[i];
	account_all(s, now);
	/* its time in this PS goes to the others (the place may be reused) */
	for (k = 0; k < s->lay.n; k++)
		if (s->lay.seg[k].who == i)
			s->lay.seg[k].who = SEG_ALL;
	if (s->cur == i)	/* in its slot: the others run from now */
		set_cur(s, SEG_ALL, now, 0, 0);
	s->lay.held &= ~(1u << i);	/* the place may be reused */
	gang_release(j->gang);
	memset(j, 0, sizeof(*j));
	recount(s);
	idle_update(s);
	relayout(s, ps_now(s));
	notify(s);
}

void
sched_job_stats(const struct sched *s, int i, int64_t now_mono,
    uint64_t *slot_ns, uint64_t *stopped_ns)
{
	struct sched_job	 j;

	*slot_ns = *stopped_ns = 0;
	if (i < 0 || i >= PROTO_JOBS_MAX || s->job[i].gang == NULL)
		return;
	j = s->job[i];
	job_count(s, &j, now_mono);
	*slot_ns = j.slot_ns;
	*stopped_ns = j.stopped_ns;
}
