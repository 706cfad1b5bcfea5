/*
 * jobs.c - the jobs of this node.  See jobs.h.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "cgroup.h"
#include "conf.h"
#include "job.h"
#include "jobs.h"
#include "job_limits.h"
#include "log.h"
#include "memsize.h"
#include "priv.h"
#include "proc.h"
#include "scheduler.h"
#include "timeutil.h"

int
jobs_cg_name(const char *name, char *out, size_t len)
{
	const char	*colon = strchr(name, ':');

	if (colon == NULL || colon == name || colon[1] == '\0' ||
	    strchr(name, '/') != NULL ||
	    (size_t)snprintf(out, len, "%s%.*s%c%s", CG_JOB_PREFIX,
	    (int)(colon - name), name, JOB_CG_SEP, colon + 1) >= len)
		return -1;
	return 0;
}

int
jobs_name_of_cg(const char *cgname, char out[PROTO_JOB_LEN])
{
	const char	*p = cgname + strlen(CG_JOB_PREFIX), *at;
	char		 user[PROTO_JOB_LEN], err[128];

	if (strncmp(cgname, CG_JOB_PREFIX, strlen(CG_JOB_PREFIX)) != 0 ||
	    (at = strrchr(p, JOB_CG_SEP)) == NULL || at == p ||
	    (size_t)(at - p) >= sizeof(user))
		return -1;
	snprintf(user, sizeof(user), "%.*s", (int)(at - p), p);
	return job_name_make(out, user, at + 1, err, sizeof(err));
}

/* The signal that stops a reclaim under way (its write returns EINTR). */
#define RECLAIM_SIG	LIMITS_RECLAIM_SIG

static void
reclaim_wake(int sig)
{
	(void)sig;
}

static int
reclaim_init(struct jobs_reclaim *R)
{
	pthread_mutexattr_t	 ma;
	int			 rc;

	/* the main thread at FIFO waits on it: the holder inherits that */
	pthread_mutexattr_init(&ma);
	rc = pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	if (rc == 0)
		rc = pthread_mutex_init(&R->mu, &ma);
	pthread_mutexattr_destroy(&ma);
	if (rc == 0 && (rc = pthread_cond_init(&R->cv, NULL)) != 0)
		pthread_mutex_destroy(&R->mu);
	errno = rc;
	return rc == 0 ? 0 : -1;
}

/*
 * The reclaim thread: SCHED_OTHER (its attributes) and nice 19 on its
 * own tid before any work; then one job's reclaim at a time.
 */
static void *
reclaimer(void *arg)
{
	struct jobs_reclaim	*R = arg;
	struct limits_job	 lj;
	sigset_t		 wake;
	uint64_t		 got;
	int64_t			 t0;

	if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19) == -1)
		log_warn("reclaim thread: nice 19");
	sigemptyset(&wake);
	sigaddset(&wake, RECLAIM_SIG);
	pthread_sigmask(SIG_UNBLOCK, &wake, NULL);
	pthread_mutex_lock(&R->mu);
	for (;;) {
		while (R->state != RECLAIM_ASKED && !R->stop)
			pthread_cond_wait(&R->cv, &R->mu);
		if (R->stop)
			break;
		R->state = RECLAIM_BUSY;
		lj = R->lj;
		pthread_mutex_unlock(&R->mu);
		t0 = now_mono_ns();
		got = limits_reclaim(R->L, &lj);
		pthread_mutex_lock(&R->mu);
		R->got = got;
		R->ns = now_mono_ns() - t0;
		R->state = RECLAIM_DONE;
	}
	pthread_mutex_unlock(&R->mu);
	return NULL;
}

/* The thread made (once; after the privilege drop).  0, or -1 (logged
 * once: no parked job's memory is reclaimed). */
static int
reclaim_start(struct jobs *J)
{
	struct jobs_reclaim	*R = &J->rc;
	struct sigaction	 sa;
	struct sched_param	 sp = { .sched_priority = 0 };
	pthread_attr_t		 a;
	sigset_t		 all, old;
	int			 rc;

	if (R->made)
		return R->made == 1 ? 0 : -1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = reclaim_wake;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	(void)sigaction(RECLAIM_SIG, &sa, NULL);
	R->L = &J->lim;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, PRIV_THREAD_STACK);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_OTHER);
	pthread_attr_setschedparam(&a, &sp);
	sigfillset(&all);	/* the signals are the main thread's */
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&R->thread, &a, reclaimer, R);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&a);
	if (rc != 0) {
		errno = rc;
		log_warn("reclaim thread: parked jobs keep their memory "
		    "(dts.conf: memory_reclaim_after)");
		R->made = -1;
		return -1;
	}
	(void)pthread_setname_np(R->thread, "dts-reclaim");
	R->made = 1;
	return 0;
}

/* Job k's reclaim to the thread.  0, or -1 (it reclaims another's). */
static int
reclaim_ask(struct jobs *J, int k)
{
	struct jobs_reclaim	*R = &J->rc;
	int			 rc = -1;

	if (reclaim_start(J) == -1)
		return -1;
	pthread_mutex_lock(&R->mu);
	if (R->state == RECLAIM_IDLE) {
		R->job = k;
		R->lj = J->job[k].lim;
		R->state = RECLAIM_ASKED;
		pthread_cond_signal(&R->cv);
		rc = 0;
	}
	pthread_mutex_unlock(&R->mu);
	return rc;
}

/* A reclaim that ended: counted, and its line. */
static void
reclaim_collect(struct jobs *J)
{
	struct jobs_reclaim	*R = &J->rc;
	struct job		*j;
	uint64_t		 got = 0;
	int64_t			 ns = 0;
	int			 k = -1;
	char			 a[32];

	if (R->made != 1)
		return;
	pthread_mutex_lock(&R->mu);
	if (R->state == RECLAIM_DONE) {
		k = R->job;
		got = R->got;
		ns = R->ns;
		R->state = RECLAIM_IDLE;
	}
	pthread_mutex_unlock(&R->mu);
	if (k < 0 || !(j = &J->job[k])->used)
		return;
	j->reclaimed += got;
	log_info("job %s: parked %.1f s: %s of its memory reclaimed to swap in "
	    "%.0f ms (dts.conf: memory_reclaim_after)", j->name,
	    (double)j->parked_ns / 1e9, memsize_fmt(got, a, sizeof(a)),
	    (double)ns / 1e6);
}

/*
 * May job k end now?  Not while its reclaim runs: its cgroup could not
 * be removed (v1: EBUSY); the write is interrupted (again at each try,
 * should the signal have come before it) and the job ends at the next
 * look after it.  1 or 0.
 */
static int
reclaim_let_end(struct jobs *J, int k)
{
	struct jobs_reclaim	*R = &J->rc;
	int			 ok = 1, done = 0;

	if (R->made != 1)
		return 1;
	pthread_mutex_lock(&R->mu);
	if (R->job == k) {
		if (R->state == RECLAIM_ASKED)
			R->state = RECLAIM_IDLE;
		else if (R->state == RECLAIM_BUSY) {
			(void)pthread_kill(R->thread, RECLAIM_SIG);
			ok = 0;
		} else if (R->state == RECLAIM_DONE)
			done = 1;
	}
	pthread_mutex_unlock(&R->mu);
	if (done)
		reclaim_collect(J);
	return ok;
}

/* dts exits: the thread stopped (a reclaim under way interrupted). */
static void
reclaim_stop(struct jobs_reclaim *R)
{
	struct timespec	 gap = { 0, 20 * 1000 * 1000 };

	if (R->made != 1)
		return;
	pthread_mutex_lock(&R->mu);
	R->stop = 1;
	pthread_cond_signal(&R->cv);
	pthread_mutex_unlock(&R->mu);
	while (pthread_tryjoin_np(R->thread, NULL) == EBUSY) {
		(void)pthread_kill(R->thread, RECLAIM_SIG);
		nanosleep(&gap, NULL);
	}
	R->made = 0;
}

int
jobs_setup(struct jobs *J, const struct dts_conf *c, int rt_prio, char *err,
    size_t errlen)
{
	char	 mnt[CG_PATH_MAX];

	memset(J, 0, sizeof(*J));
	J->conf = c;
	if (reclaim_init(&J->rc) == -1) {
		snprintf(err, errlen, "reclaim thread's lock: %s",
		    strerror(errno));
		return -1;
	}
	if ((J->ino_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) == -1)
		log_warn("inotify: a job's end is seen by the 1 s scan only");
	if (gang_setup(&J->tmpl, c->cgroup, c->backend, rt_prio, err,
	    errlen) == -1)
		return -1;
	if (cg_mount(mnt, sizeof(mnt)) == -1) {
		snprintf(err, errlen, "no cgroup v2 hierarchy is mounted");
		return -1;
	}
	if (limits_setup(&J->lim, c, mnt, J->tmpl.base, NULL, err,
	    errlen) == -1)
		return -1;
	(void)limits_oom_start(&J->lim, rt_prio + 1);
	gang_set_pvmd(&J->tmpl, conf_pvmd(c));
	return 0;
}

void
jobs_attach(struct jobs *J, struct sched *s)
{
	J->sched = s;
	sched_set_hold(s, &J->tmpl);
}

int
jobs_count(const struct jobs *J)
{
	int	 n = 0;

	for (int k = 0; k < PROTO_JOBS_MAX; k++)
		n += J->job[k].used;
	return n;
}

struct job *
jobs_find(struct jobs *J, const char *name)
{
	for (int k = 0; k < PROTO_JOBS_MAX; k++)
		if (J->job[k].used && strcmp(J->job[k].name, name) == 0)
			return &J->job[k];
	return NULL;
}

struct job *
jobs_of_pid(struct jobs *J, pid_t pid)
{
	char	 cg[CG_PATH_MAX];

	if (proc_pid_cgroup(pid, cg, sizeof(cg)) == -1)
		return NULL;
	for (int k = 0; k < PROTO_JOBS_MAX; k++)
		if (J->job[k].used && strcmp(cg, J->job[k].gang.rel) == 0)
			return &J->job[k];
	return NULL;
}

int
jobs_has_uid(const struct jobs *J, uid_t uid)
{
	for (int k = 0; k < PROTO_JOBS_MAX; k++)
		if (J->job[k].used && J->job[k].uid == uid)
			return 1;
	return 0;
}

void
jobs_names(const struct jobs *J, char *buf, size_t len)
{
	size_t	 n = 0;

	buf[0] = '\0';
	for (int k = 0; k < PROTO_JOBS_MAX && n < len; k++)
		if (J->job[k].used)
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
			    n ? ", " : "", J->job[k].name);
}

/* The scheduler's place of j, or -1 (under its lock). */
static int
place_of(const struct jobs *J, const struct job *j)
{
	for (int i = 0; i < PROTO_JOBS_MAX; i++)
		if (J->sched->job[i].gang == &j->gang)
			return i;
	return -1;
}

/* j's gang and state file: closed, the cgroup and the file removed. */
static void
job_free(struct job *j, int unlink_state)
{
	if (gang_close(&j->gang) == -1)
		log_warn("job %s: cgroup not removed", j->name);
	limits_close(&j->lim);
	if (j->state.map != NULL) {
		char	 lock[sizeof(j->state_path) + 8];

		state_close(&j->state);
		if (unlink_state) {
			snprintf(lock, sizeof(lock), "%s.lock", j->state_path);
			(void)unlink(j->state_path);
			(void)unlink(lock);
		}
	}
	j->used = 0;
}

/* j's cgroup.events to the inotify watch (gone with the cgroup). */
static void
watch(struct jobs *J, const struct job *j)
{
	char	 path[CG_PATH_MAX + 16];

	if (J->ino_fd == -1)
		return;
	snprintf(path, sizeof(path), "%s/cgroup.events", j->gang.cg);
	if (inotify_add_watch(J->ino_fd, path, IN_MODIFY) == -1)
		log_warn("inotify %s: the job's end is seen by the 1 s scan "
		    "only", path);
}

/*
 * The part of a start that needs no lock: a free place, the cgroup and
 * the state file.  0, or -1 with err.
 */
static int
job_make(struct jobs *J, struct job *j, const char *name, uid_t uid,
    char *err, size_t errlen)
{
	char	 cgname[PROTO_JOB_LEN + 8];

	memset(j, 0, sizeof(*j));
	snprintf(j->name, sizeof(j->name), "%s", name);
	j->uid = uid;
	j->started = now_mono_ns();
	if (jobs_cg_name(name, cgname, sizeof(cgname)) == -1) {
		snprintf(err, errlen, "job %s: not a name for a cgroup", name);
		return -1;
	}
	if (gang_open(&j->gang, &J->tmpl, cgname, err, errlen) == -1)
		return -1;
	if (limits_open(&J->lim, &j->lim, cgname, j->gang.cg, err,
	    errlen) == -1) {
		job_free(j, 0);
		return -1;
	}
	watch(J, j);
	if (J->conf->state_file[0] != '\0') {
		snprintf(j->state_path, sizeof(j->state_path), "%s.%s",
		    J->conf->state_file, cgname + strlen(CG_JOB_PREFIX));
		if (state_open(&j->state, j->state_path, err, errlen) == -1) {
			j->state.map = NULL;
			job_free(j, 0);
			return -1;
		}
	}
	return 0;
}

static struct job *
free_place(struct jobs *J)
{
	for (int k = 0; k < PROTO_JOBS_MAX; k++)
		if (!J->job[k].used)
			return &J->job[k];
	return NULL;
}

static void
say_full(const struct jobs *J, char *err, size_t errlen)
{
	char	 names[PROTO_JOBS_MAX * (PROTO_JOB_LEN + 2)];

	jobs_names(J, names, sizeof(names));
	snprintf(err, errlen, "this node runs max_jobs = %d jobs already: %s "
	    "(dts.conf: max_jobs)", J->conf->max_jobs, names);
}

/* The jobs of uid here, and their names (comma-separated) into buf. */
static int
user_jobs(const struct jobs *J, uid_t uid, char *buf, size_t len)
{
	size_t	 n = 0;
	int	 count = 0;

	if (len > 0)
		buf[0] = '\0';
	for (int k = 0; k < PROTO_JOBS_MAX; k++)
		if (J->job[k].used && J->job[k].uid == uid) {
			count++;
			if (n < len)
				n += (size_t)snprintf(buf + n, len - n, "%s%s",
				    n ? ", " : "", J->job[k].name);
		}
	return count;
}

/* name's user runs max_jobs_user jobs here: the refusal, one line. */
static void
say_user_full(const struct jobs *J, const char *name, uid_t uid, char *err,
    size_t errlen)
{
	char	 names[PROTO_JOBS_MAX * (PROTO_JOB_LEN + 2)], more[48] = "";
	int	 n = user_jobs(J, uid, names, sizeof(names));
	int	 max = conf_jobs_user(J->conf);

	if (n > max)	/* taken over from a dts before */
		snprintf(more, sizeof(more), " (%d of them)", n);
	snprintf(err, errlen, "user %.*s runs max_jobs_user = %d jobs on this "
	    "node already%s: %s (dts.conf: max_jobs_user)",
	    (int)strcspn(name, ":"), name, max, more, names);
}

struct job *
jobs_start(struct jobs *J, const char *name, uid_t uid, pid_t pid, char *err,
    size_t errlen)
{
	struct job	*j;
	int		 i, rc = 0, e = 0;

	if (jobs_count(J) >= J->conf->max_jobs || (j = free_place(J)) == NULL) {
		say_full(J, err, errlen);
		return NULL;
	}
	if (user_jobs(J, uid, NULL, 0) >= conf_jobs_user(J->conf)) {
		say_user_full(J, name, uid, err, errlen);
		return NULL;
	}
	if (limits_room(&J->lim, err, errlen) == -1 ||
	    job_make(J, j, name, uid, err, errlen) == -1)
		return NULL;
	/* into its memory and pids cgroups first: its children are born
	 * there */
	if (limits_adopt(&J->lim, &j->lim, pid) == -1) {
		snprintf(err, errlen, "cannot move pid %d into the job's "
		    "memory and pids cgroups %s: %s", (int)pid, j->lim.mem,
		    strerror(errno));
		job_free(j, 1);
		return NULL;
	}
	(void)sched_lock_quiet(J->sched, SCHED_QUIET_WAIT);
	if ((i = sched_job_add(J->sched, &j->gang, name)) != -1) {
		j->used = 1;
		/* its state file filled before the process runs (the hook
		 * that sched_job_add called did not look at it yet): else a
		 * member that reads it at once may find at_ns 0 */
		jobs_state_hook(J, J->sched);
		rc = gang_adopt(&j->gang, pid);
		e = errno;
		if (rc == -1) {
			sched_job_remove(J->sched, i);
			j->used = 0;
		}
	}
	sched_unlock(J->sched);
	if (i == -1 || rc == -1) {
		if (i == -1)
			say_full(J, err, errlen);
		else
			snprintf(err, errlen, "cannot move pid %d into %s: %s",
			    (int)pid, j->gang.cg, strerror(e));
		job_free(j, 1);
		return NULL;
	}
	J->changes++;
	log_info("job %s started: uid %d, cgroup %s%s%s (%d job(s) on this "
	    "node)", name, (int)uid, j->gang.cg, j->state.map ? ", state "
	    "file " : "", j->state.map ? j->state_path : "", jobs_count(J));
	return j;
}

int
jobs_adopt(struct jobs *J, struct job *j, pid_t pid)
{
	int	 rc, e;

	if (limits_adopt(&J->lim, &j->lim, pid) == -1)
		return -1;
	(void)sched_lock_quiet(J->sched, SCHED_QUIET_WAIT);
	rc = gang_adopt(&j->gang, pid);
	e = errno;
	sched_unlock(J->sched);
	errno = e;
	return rc;
}

static void oom_kills(const struct jobs *, struct job *,
    const struct limits_use *);

/* ", memory at most M, swap S, K killed for memory", or "" (and the
 * first kill's line, if the job ends before the second's look). */
static void
memory_line(const struct jobs *J, struct job *j, char *buf, size_t len)
{
	struct limits_use	 u;
	char			 a[32], b[32];

	limits_use(&J->lim, &j->lim, j->gang.cg, &u);
	oom_kills(J, j, &u);
	if (!u.known) {
		buf[0] = '\0';
		return;
	}
	snprintf(buf, len, "; memory at most %s, swap %s, %llu process(es) "
	    "killed for memory", memsize_fmt(u.peak, a, sizeof(a)),
	    memsize_fmt(u.swap, b, sizeof(b)), (unsigned long long)u.oom_kills);
}

/* j's first OOM kill: one line (then, or at its end if sooner). */
static void
oom_kills(const struct jobs *J, struct job *j, const struct limits_use *u)
{
	char	 a[32];

	if (u->oom_kills > 0 && j->oom_kills == 0)
		log_warnx("job %s: the kernel kills its processes for memory: "
		    "it reached its limit of %s (dts.conf: job_memory, "
		    "memory); its end says how many", j->name,
		    memsize_fmt(J->lim.job_max, a, sizeof(a)));
	j->oom_kills = u->oom_kills;
}

/*
 * Quantum zero: over memory_pressure (PSI some avg10 of the node), every
 * job stops at the next edge (sched mem_hold) until the pressure falls
 * under half of it; one line at each change.
 */
static void
pressure(struct jobs *J)
{
	double	 pct, thr = J->conf->memory_pressure;
	int	 hold;

	if (thr <= 0 || J->no_psi)
		return;
	if (limits_psi(LIMITS_PSI_FILE, &pct) == -1) {
		log_warnx("memory: no pressure stall information (%s): jobs "
		    "are not stopped for memory pressure (dts.conf: "
		    "memory_pressure)", LIMITS_PSI_FILE);
		J->no_psi = 1;
		return;
	}
	hold = J->mem_hold ? pct >= thr / 2 : pct > thr;
	if (hold == J->mem_hold)
		return;
	J->mem_hold = hold;
	sched_lock(J->sched);
	J->sched->mem_hold = hold;
	sched_unlock(J->sched);
	if (hold)
		log_warnx("memory: the node is short of memory (pressure %.1f%% "
		    "> %.1f%%, dts.conf: memory_pressure): every job stops "
		    "until it falls under %.1f%%", pct, thr, thr / 2);
	else
		log_info("memory: pressure %.1f%% < %.1f%%: the jobs run again",
		    pct, thr / 2);
}

void
jobs_set_weight(struct jobs *J, struct job *j, int w)
{
	j->weight = w;
	for (int i = 0; i < PROTO_JOBS_MAX; i++)
		if (J->sched->job[i].gang == &j->gang)
			__atomic_store_n(&J->sched->job[i].weight, w,
			    __ATOMIC_RELAXED);
}

/*
 * j's memory into its place in the scheduler's table, for JOB_MEM (ctl.c
 * reads it on this thread) and the state files (the edge thread's hook
 * reads memory and swap without the lock: atomic words).
 */
static void
publish(struct jobs *J, const struct job *j, const struct limits_use *u)
{
	for (int i = 0; i < PROTO_JOBS_MAX; i++) {
		struct sched_job *sj = &J->sched->job[i];

		if (sj->gang != &j->gang)
			continue;
		__atomic_store_n(&sj->mem_bytes, u->known ? u->mem : 0,
		    __ATOMIC_RELAXED);
		__atomic_store_n(&sj->swap_bytes, u->known ? u->swap : 0,
		    __ATOMIC_RELAXED);
		sj->oom_kills = u->known ? u->oom_kills : 0;
		sj->reclaimed_bytes = j->reclaimed;
		return;
	}
}

/*
 * Parked jobs give memory back: a job whose stopped time grew by all the
 * time between two looks was stopped without a break (a look a second
 * cannot tell that from its state, which an LS of a short IP has at any
 * moment); once it has been for memory_reclaim_after, its pages go to
 * swap, once a park, where the node has swap.
 */
static void
park(struct jobs *J, int64_t now)
{
	int64_t		 after = J->conf->memory_reclaim_ns;
	uint64_t	 stopped[PROTO_JOBS_MAX] = { 0 }, slot;
	int		 place[PROTO_JOBS_MAX];

	if (after <= 0 || J->sched == NULL || jobs_count(J) == 0 ||
	    limits_swap_free(NULL) == 0)
		return;		/* no lock taken: nothing to reclaim to */
	sched_lock(J->sched);
	for (int k = 0; k < PROTO_JOBS_MAX; k++) {
		place[k] = -1;
		for (int i = 0; J->job[k].used && i < PROTO_JOBS_MAX; i++)
			if (J->sched->job[i].gang == &J->job[k].gang) {
				place[k] = i;
				sched_job_stats(J->sched, i, now, &slot,
				    &stopped[k]);
				break;
			}
	}
	sched_unlock(J->sched);
	for (int k = 0; k < PROTO_JOBS_MAX; k++) {
		struct job *j = &J->job[k];
		int64_t	    dt = now - j->look_at;

		if (!j->used || place[k] < 0)
			continue;
		/* stopped all along, but for 2 ms of accounting */
		if (j->look_at != 0 && stopped[k] >= j->look_stopped &&
		    (int64_t)(stopped[k] - j->look_stopped) + 2 * NS_PER_MS >=
		    dt)
			j->parked_ns += dt;
		else {
			j->parked_ns = 0;
			j->park_done = 0;
		}
		j->look_at = now;
		j->look_stopped = stopped[k];
		if (j->park_done || j->parked_ns < after)
			continue;
		/* on the reclaim thread; busy with another: the next look */
		if (reclaim_ask(J, k) == 0)
			j->park_done = 1;
	}
}

void
jobs_check_memory(struct jobs *J)
{
	struct limits_use	 u;
	int			 n;

	pressure(J);
	sched_set_tasks(J->sched, limits_tasks(&J->lim));
	reclaim_collect(J);
	park(J, now_mono_ns());

	for (int k = 0; k < PROTO_JOBS_MAX; k++) {
		struct job *j = &J->job[k];

		if (!j->used)
			continue;
		if ((n = limits_oom_check(&J->lim, j->gang.cg,
		    &j->oom_turn)) > 0 &&
		    !j->oom_raised++)
			log_warnx("job %s: %d member(s) lowered their "
			    "oom_score_adj: back to 1000 (logged once)",
			    j->name, n);
		limits_use(&J->lim, &j->lim, j->gang.cg, &u);
		oom_kills(J, j, &u);
		publish(J, j, &u);
	}
}

/*
 * j ends: out of the scheduler's table (released), then its files.  The
 * cgroup's removal too is made in an LS, as a move is (sched_lock_quiet).
 * The kernel worker that ends the removal some 0.1 s after it may be
 * starved with cgroup_mutex held: the edge guard handles that
 * (dts/scheduler.h).
 * Under the lock this also unlinks the job's state file (tmpfs) and
 * releases its empty cgroup (frozen at once): no wait on a disk or a
 * member.
 */
static void
job_end(struct jobs *J, struct job *j, const char *why)
{
	char		 rel[CG_PATH_MAX], mem[160];
	int		 i;

	memory_line(J, j, mem, sizeof(mem));
	snprintf(rel, sizeof(rel), "%s", j->gang.rel);
	(void)sched_lock_quiet(J->sched, SCHED_QUIET_WAIT);
	if ((i = place_of(J, j)) != -1)
		sched_job_remove(J->sched, i);
	j->used = 0;		/* the state hook no longer looks at it */
	job_free(j, 1);
	sched_unlock(J->sched);
	J->changes++;
	log_info("job %s ended (%s) after %.1f s: cgroup %s removed (%d "
	    "job(s) on this node)%s", j->name, why, (double)(now_mono_ns() -
	    j->started) / 1e9, rel, jobs_count(J), mem);
}

void
jobs_reap(struct jobs *J)
{
	for (int k = 0; k < PROTO_JOBS_MAX; k++) {
		struct job *j = &J->job[k];

		if (j->used && cg_populated(j->gang.cg) == 0 &&
		    cg_count(j->gang.cg, NULL) == 0 && reclaim_let_end(J, k))
			job_end(J, j, "its gang is empty");
	}
}

int
jobs_fd(const struct jobs *J)
{
	return J->ino_fd;
}

void
jobs_event(struct jobs *J)
{
	char	 buf[4096] __attribute__((aligned(__alignof__(struct
		    inotify_event))));
	int64_t	 now = now_mono_ns();

	while (read(J->ino_fd, buf, sizeof(buf)) > 0)
		;
	if (now - J->reaped < JOBS_REAP_GAP_NS)
		return;
	J->reaped = now;
	jobs_reap(J);
}

void
jobs_fix_prios(struct jobs *J)
{
	static struct gang_fix	 fix[GANG_FIX_MAX];
	pid_t			 pvmd;
	int			 n, fixed;

	for (int k = 0; k < PROTO_JOBS_MAX; k++) {
		struct job *j = &J->job[k];

		if (!j->used)
			continue;
		n = gang_prio_scan(&j->gang, &pvmd, fix, GANG_FIX_MAX);
		if (n == 0 && pvmd == j->gang.pvmd_pid &&	/* only we write */
		    !gang_rr_changed(&j->gang))
			continue;
		sched_lock(J->sched);
		fixed = gang_prio_apply(&j->gang, pvmd, fix, n);
		sched_unlock(J->sched);
		if (fixed > 0)
			log_debug("job %s: %d member(s) to their RT priority",
			    j->name, fixed);
	}
}

/*
 * The state file of job i of s: phase PS only while its slot runs (the
 * scheduler's segment now: cur is i, or SEG_ALL, every job), else LS;
 * ps_ns its slot time and stopped_ns its stopped time (sched_job_stats);
 * ls_ns the node's.  (cur, not run: the scheduler publishes a PS or a
 * slot before the gang runs, so that no member reads a stopped time
 * without its LS.)  On the edge thread, no system call (state_put).
 */
static void
state_job_hook(struct state *st, const struct sched *s, int i)
{
	uint64_t	 slot = 0, stopped = 0;

	sched_job_stats(s, i, s->st.acct_at, &slot, &stopped);
	state_put_sched(st, s, s->phase == PHASE_PS && s->cur != i &&
	    s->cur != SEG_ALL ? PHASE_LS : s->phase, stopped, slot,
	    __atomic_load_n(&s->job[i].mem_bytes, __ATOMIC_RELAXED),
	    __atomic_load_n(&s->job[i].swap_bytes, __ATOMIC_RELAXED));
}

void
jobs_state_hook(struct jobs *J, const struct sched *s)
{
	for (int k = 0; k < PROTO_JOBS_MAX; k++) {
		struct job	*j = &J->job[k];
		int		 i;

		if (!j->used || j->state.map == NULL)
			continue;
		for (i = 0; i < PROTO_JOBS_MAX; i++)
			if (s->job[i].gang == &j->gang)
				break;
		if (i < PROTO_JOBS_MAX)
			state_job_hook(&j->state, s, i);
	}
}

/* The one uid of a cgroup's members, for a takeover. */
struct owner {
	uid_t	 uid;
	int	 n, mixed;
};

static void
owner_one(pid_t pid, void *arg)
{
	struct owner	*o = arg;
	uid_t		 ids[4];

	if (proc_pid_uids(pid, ids) == -1)
		return;
	if (o->n++ == 0)
		o->uid = ids[0];
	else if (ids[0] != o->uid)
		o->mixed = 1;
}

/*
 * A job cgroup dts will not run: released, and if it is under base/jobs,
 * its members moved to base/left (whose freeze no LS writes).
 */
static void
let_go(const struct jobs *J, const char *cg, const char *why)
{
	char	 left[CG_PATH_MAX + 8], err[256];
	size_t	 n = strlen(J->tmpl.jobs);

	cg_release(cg);
	if (strncmp(cg, J->tmpl.jobs, n) != 0 || cg[n] != '/') {
		log_warnx("cgroup %s: %s: released, not taken over", cg, why);
		return;
	}
	snprintf(left, sizeof(left), "%s/left", J->tmpl.base);
	if (conf_dir_make_trusted(left, "cgroup", err, sizeof(err)) == -1 ||
	    cg_move_all(cg, left) != 0)
		log_warnx("cgroup %s: %s: released, not taken over (its "
		    "members not all moved to %s)", cg, why, left);
	else {
		(void)cg_remove(cg);
		log_warnx("cgroup %s: %s: released, not taken over: its "
		    "members are in %s now", cg, why, left);
	}
}

/*
 * A job cgroup of the layout before base/jobs (base/job.NAME), taken
 * over as j: released, its members moved into j's gang, and removed.
 */
static void
move_old(const char *cg, struct job *j)
{
	cg_release(cg);
	if (cg_move_all(cg, j->gang.cg) != 0)
		log_warnx("cgroup %s: not every member moved to %s", cg,
		    j->gang.cg);
	else if (cg_remove(cg) == -1)
		log_warn("cgroup %s (emptied) not removed", cg);
}

static void
takeover_one(const char *cg, const char *cgname, void *arg)
{
	struct jobs	*J = arg;
	struct owner	 o = { 0, 0, 0 };
	struct job	*j;
	char		 name[PROTO_JOB_LEN], err[256];
	int		 i;

	(void)cg_foreach(cg, "cgroup.procs", owner_one, &o);
	if (o.n == 0 && cg_populated(cg) == 0) {
		/* a job that ended while no dts ran: its files go too */
		if (cg_remove(cg) == -1)
			log_warn("cgroup %s (empty) not removed", cg);
		else
			log_info("job cgroup %s (empty) removed", cg);
		if (J->conf->state_file[0] != '\0') {
			char	 path[sizeof(J->job[0].state_path) + 8];

			snprintf(path, sizeof(path), "%s.%.*s",
			    J->conf->state_file, PROTO_JOB_LEN + 8,
			    cgname + strlen(CG_JOB_PREFIX));
			(void)unlink(path);
			strcat(path, ".lock");
			(void)unlink(path);
		}
		return;
	}
	if (jobs_name_of_cg(cgname, name) == -1) {
		let_go(J, cg, "not a job's name");
		return;
	}
	if (o.mixed || (j = free_place(J)) == NULL ||
	    jobs_count(J) >= J->conf->max_jobs) {
		let_go(J, cg, o.mixed ? "its members run as different users" :
		    "max_jobs jobs taken over already");
		return;
	}
	if (jobs_find(J, name) != NULL) {	/* in both layouts */
		let_go(J, cg, "its job is taken over already");
		return;
	}
	if (job_make(J, j, name, o.uid, err, sizeof(err)) == -1) {
		let_go(J, cg, err);
		return;
	}
	if (strcmp(cg, j->gang.cg) != 0)	/* base/job.NAME */
		move_old(cg, j);
	limits_adopt_all(&J->lim, &j->lim, j->gang.cg);
	sched_lock(J->sched);
	if ((i = sched_job_add(J->sched, &j->gang, name)) != -1)
		j->used = 1;
	sched_unlock(J->sched);
	if (i == -1) {
		char	 mine[CG_PATH_MAX];

		snprintf(mine, sizeof(mine), "%s", j->gang.cg);
		job_free(j, 1);	/* released; the cgroup stays with them */
		let_go(J, mine, "the scheduler has no place");
		return;
	}
	log_info("taking over the gang in %s (%d processes): job %s, uid %d",
	    cg, o.n, name, (int)o.uid);
	if ((i = user_jobs(J, o.uid, NULL, 0)) > conf_jobs_user(J->conf))
		log_warnx("job %s taken over: its user runs %d jobs here, above "
		    "max_jobs_user = %d; no new job of theirs starts until "
		    "fewer run", name, i, conf_jobs_user(J->conf));
}

/* Is cgname a running job's cgroup? */
static int
is_job(const char *cgname, void *arg)
{
	struct jobs	*J = arg;
	char		 name[PROTO_JOB_LEN];

	return jobs_name_of_cg(cgname, name) == 0 && jobs_find(J, name);
}

void
jobs_takeover(struct jobs *J)
{
	(void)cg_foreach_job(J->tmpl.base, takeover_one, J);
	limits_sweep(&J->lim, is_job, J);
}

void
jobs_close(struct jobs *J)
{
	reclaim_stop(&J->rc);
	for (int k = 0; k < PROTO_JOBS_MAX; k++)
		if (J->job[k].state.map != NULL)
			state_close(&J->job[k].state);
	if (J->ino_fd != -1)
		close(J->ino_fd);
	J->ino_fd = -1;
	limits_fini(&J->lim);
}
