/*
 * cgroup.c - the gang as the members of a cgroup v2 directory.  See
 * cgroup.h.
 *
 * Members come and go while a file is read: a pid that is gone is skipped,
 * never an error.  Nothing here acts on a pid that the cgroup's own files
 * did not list.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "log.h"
#include "proc.h"

#define CG_SWEEPS 64	/* cg_signal_all: passes before giving up */
#define CG_SWEEPS_FREE 4	/* cg_set_policy_all: passes before a freeze */
#define CG_FROZEN_MS 20	/* cg_release: the longest wait for a freeze */

int
cg_mount(char *buf, size_t len)
{
	char	 dev[256], dir[PATH_MAX], type[64];
	FILE	*f = fopen("/proc/self/mounts", "re");
	int	 found = -1;

	if (f == NULL)
		return -1;
	while (fscanf(f, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3) {
		if (strcmp(type, "cgroup2") == 0) {
			if ((size_t)snprintf(buf, len, "%s", dir) < len)
				found = 0;
			break;
		}
	}
	fclose(f);
	return found;
}

/* cg/file into path; -1 (ENAMETOOLONG) if it does not fit. */
static int
cg_path(char *path, size_t len, const char *cg, const char *file)
{
	if ((size_t)snprintf(path, len, "%s/%s", cg, file) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int
cg_foreach(const char *cg, const char *file, void (*fn)(pid_t, void *),
    void *arg)
{
	char	 path[CG_PATH_MAX + 32];
	FILE	*f;
	int	 pid, n = 0;

	if (cg == NULL || cg[0] != '/' ||
	    cg_path(path, sizeof(path), cg, file) == -1)
		return -1;
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	while (fscanf(f, "%d", &pid) == 1) {
		if (pid <= 0)
			continue;
		n++;
		if (fn != NULL)
			fn((pid_t)pid, arg);
	}
	fclose(f);
	return n;
}

static void
count_runnable(pid_t pid, void *arg)
{
	char	 state;

	if (proc_pid_stat(pid, &state, NULL, NULL) == 0 && state == 'R')
		(*(int *)arg)++;
}

int
cg_count(const char *cg, int *runnable)
{
	int	 r = 0, n;

	n = cg_foreach(cg, "cgroup.procs", runnable ? count_runnable : NULL,
	    &r);
	if (runnable != NULL)
		*runnable = r;
	return n == -1 ? 0 : n;
}

/*
 * A set of thread ids, by open addressing (a 0 slot is empty): a sweep of
 * 1000 threads looks each one up at every pass.  Its memory is kept.
 */
struct tidset {
	pid_t	*slot;
	size_t	 cap, n;	/* cap: 0 or a power of 2 */
};

static void
tidset_clear(struct tidset *s)
{
	if (s->slot != NULL)
		memset(s->slot, 0, s->cap * sizeof(*s->slot));
	s->n = 0;
}

static size_t
tid_hash(pid_t tid, size_t cap)
{
	return ((uint32_t)tid * 2654435761u) & (cap - 1);
}

/* 1 if tid is new, 0 if it was there, -1 out of memory (not added) */
static int
tidset_add(struct tidset *s, pid_t tid)
{
	size_t	 i;

	if (2 * (s->n + 1) > s->cap) {
		size_t	 cap = s->cap ? 2 * s->cap : 1024;
		pid_t	*old = s->slot, *slot = calloc(cap, sizeof(*slot));

		if (slot == NULL)
			return -1;
		s->slot = slot;
		for (size_t j = 0; j < s->cap; j++)
			if (old[j] != 0) {
				for (i = tid_hash(old[j], cap); slot[i] != 0;
				    i = (i + 1) & (cap - 1))
					;
				slot[i] = old[j];
			}
		free(old);
		s->cap = cap;
	}
	for (i = tid_hash(tid, s->cap); s->slot[i] != 0;
	    i = (i + 1) & (s->cap - 1))
		if (s->slot[i] == tid)
			return 0;
	s->slot[i] = tid;
	s->n++;
	return 1;
}

struct policy_arg {
	int		 policy, prio, changed, failed, first_errno, fresh;
	struct tidset	*seen;	/* NULL: every thread listed */
	int		 later;	/* a pass after the first */
};

static void
set_policy_one(pid_t tid, void *arg)
{
	struct policy_arg	*pa = arg;
	struct sched_param	 sp = { .sched_priority = pa->prio };

	if (pa->seen != NULL) {
		if (tidset_add(pa->seen, tid) == 0)
			return;
		/* a later pass: a thread born at the new policy (its
		 * creator was changed first) needs nothing */
		if (pa->later && sched_getscheduler(tid) == pa->policy)
			return;
	}
	pa->fresh++;
	if (sched_setscheduler(tid, pa->policy, &sp) == 0) {
		pa->changed++;
		return;
	}
	if (errno != ESRCH && pa->failed++ == 0)
		pa->first_errno = errno;
}

/* The threads of cg, as cgroup.threads lists them (oldest first). */
struct tidlist {
	pid_t	*tid;
	size_t	 n, max;
	char	*buf;
	size_t	 buflen;
};

/*
 * cgroup.threads files kept open for the sweeps (an edge's sweep reads
 * its gang's list twice: with an open file that is one pread each for
 * a small gang, not an open, two reads and a close), by path, the oldest one closed for a
 * new one.  A file of a removed cgroup fails to read: opened again.
 */
#define THREADS_FDS	(2 * 32)
static struct {
	char	 path[CG_PATH_MAX + 32];
	int	 fd;
	unsigned used;
} tfd[THREADS_FDS];
static unsigned tfd_clock;

static int
threads_fd(const char *path, int fresh)
{
	int	 k, old = 0;

	for (k = 0; k < THREADS_FDS; k++) {
		if (tfd[k].path[0] != '\0' && strcmp(tfd[k].path, path) == 0)
			break;
		if (tfd[k].used < tfd[old].used)
			old = k;
	}
	if (k == THREADS_FDS || fresh) {
		if (k == THREADS_FDS)
			k = old;
		if (tfd[k].path[0] != '\0')
			close(tfd[k].fd);
		tfd[k].path[0] = '\0';
		if ((tfd[k].fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			return -1;
		snprintf(tfd[k].path, sizeof(tfd[k].path), "%s", path);
	}
	tfd[k].used = ++tfd_clock;
	return tfd[k].fd;
}

/*
 * The file at path into l->buf, from its start: 0, or -1.  Read to its
 * end: a seq_file, as cgroup.threads is, gives at most a page a read
 * (its buffer, at least 4096 bytes), and fills it but for the last
 * record's room (a tid and a newline, THREADS_REC) unless the list
 * ends: a read shorter than that is the end, with no read more.
 */
#define THREADS_REC	16
static int
read_threads(const char *path, struct tidlist *l, size_t *len)
{
	ssize_t	 r;
	int	 fd, again = 1;

	if ((fd = threads_fd(path, 0)) == -1)
		return -1;
	for (*len = 0;;) {
		if (l->buflen - *len < 4096) {
			size_t	 n = l->buflen ? 2 * l->buflen : 16384;
			char	*b = realloc(l->buf, n);

			if (b == NULL)
				return -1;
			l->buf = b;
			l->buflen = n;
		}
		r = pread(fd, l->buf + *len, l->buflen - *len - 1,
		    (off_t)*len);
		if (r == -1 && *len == 0 && again--) {
			/* a cgroup removed and made again: its new file */
			if ((fd = threads_fd(path, 1)) == -1)
				return -1;
			continue;
		}
		if (r <= 0)
			return r == 0 ? 0 : -1;
		*len += (size_t)r;
		if ((size_t)r + THREADS_REC < 4096 &&
		    l->buflen - (*len - (size_t)r) - 1 >= 4096)
			return 0;
	}
}

/* cg's cgroup.threads into l: 0, or -1 if it cannot be read. */
static int
read_tids(const char *cg, struct tidlist *l)
{
	char	 path[CG_PATH_MAX + 32], *p, *end;
	size_t	 len = 0;

	if (cg_path(path, sizeof(path), cg, "cgroup.threads") == -1 ||
	    read_threads(path, l, &len) == -1 || l->buf == NULL)
		return -1;
	l->buf[len] = '\0';
	l->n = 0;
	for (p = l->buf; *p != '\0'; p = end) {
		long tid = strtol(p, &end, 10);

		if (end == p)
			break;
		if (tid <= 0)
			continue;
		if (l->n == l->max) {
			size_t	 n = l->max ? 2 * l->max : 1024;
			pid_t	*t = realloc(l->tid, n * sizeof(*t));

			if (t == NULL)
				break;
			l->tid = t;
			l->max = n;
		}
		l->tid[l->n++] = (pid_t)tid;
	}
	return 0;
}

/* The list of the sweeps (kept: no allocation on the edge path once it
 * has grown). */
static struct tidlist sweep_list;

/*
 * Passes of cgroup.threads, each changing the threads that the ones
 * before did not list, until one changes none or max passes were made.
 * Newest first: the threads of a churning pool are the last listed, and
 * a switch to SCHED_IDLE that takes its time over 1000 older sleeping
 * threads first would leave them at SCHED_RR that long.  The passes
 * made, or -1 if cgroup.threads cannot be read.
 */
static int
policy_sweep(const char *cg, struct policy_arg *pa, int max)
{
	int	 pass;

	for (pass = 1; pass <= max; pass++) {
		pa->fresh = 0;
		if (read_tids(cg, &sweep_list) == -1)
			return -1;
		for (size_t i = sweep_list.n; i-- > 0;)
			set_policy_one(sweep_list.tid[i], pa);
		pa->later = 1;
		if (pa->fresh == 0)
			break;
	}
	return pass;
}

static void
policy_warn(const char *cg, const struct policy_arg *pa)
{
	if (pa->failed == 0)
		return;
	errno = pa->first_errno;
	log_warn("%s: policy %d for %d thread(s)", cg, pa->policy, pa->failed);
}

int
cg_set_policy(const char *cg, int policy, int prio)
{
	struct policy_arg	 pa = { policy, prio, 0, 0, 0, 0, NULL, 0 };

	cg_foreach(cg, "cgroup.threads", set_policy_one, &pa);
	policy_warn(cg, &pa);
	return pa.changed;
}

/* The threads cg_set_policy_all has changed (kept between calls: no
 * allocation on the edge path once it has grown). */
static struct tidset swept;

/*
 * A thread clones in two steps: the child takes its creator's policy
 * first, and is listed in cgroup.threads only at the end.  So a pass
 * after the first changes the new threads that are not at the policy
 * yet, until one finds none: a churning pool, whose threads each start
 * the next, stops carrying the old policy as soon as its running threads
 * are changed.  Only a gang that clones on another CPU faster than the
 * passes go is frozen (after CG_SWEEPS_FREE passes, if freeze_fd is
 * there): a freeze undoes a clone that has not reached its end (it is
 * restarted after the thaw, at the new policy), and a thread listed
 * after it is frozen too.  Not at once: a freeze wakes every sleeping
 * thread of the gang, twice, and with many threads that costs more of an
 * idle LS than the passes alone.
 */
int
cg_set_policy_all(const char *cg, int policy, int prio, int freeze_fd)
{
	struct policy_arg	 pa = { policy, prio, 0, 0, 0, 0, &swept, 0 };
	int			 passes;

	tidset_clear(&swept);
	passes = policy_sweep(cg, &pa, CG_SWEEPS_FREE);
	if (passes > CG_SWEEPS_FREE && freeze_fd != -1 &&
	    cg_write_fd(freeze_fd, "1") == 0) {
		(void)policy_sweep(cg, &pa, CG_SWEEPS);
		if (cg_write_fd(freeze_fd, "0") == -1)
			log_warn("%s: thaw after a change of policy", cg);
	} else if (passes > CG_SWEEPS_FREE && policy != SCHED_RR)
		/* to SCHED_RR, a thread left behind costs only the gang, until
		 * the next switch: no more passes on the edge path for it */
		(void)policy_sweep(cg, &pa, CG_SWEEPS);
	policy_warn(cg, &pa);
	return pa.changed;
}

int
cg_policy_recheck(const char *cg, int policy, int prio)
{
	struct policy_arg	 pa = { policy, prio, 0, 0, 0, 0, &swept, 1 };

	(void)policy_sweep(cg, &pa, CG_SWEEPS_FREE);
	policy_warn(cg, &pa);
	return pa.changed;
}

/* The threads of pid not in done: policy for each.  New ones, or -1. */
static int
policy_pass(pid_t pid, struct pidset *done, struct policy_arg *pa)
{
	char		 path[64];
	struct dirent	*e;
	DIR		*d;
	int		 fresh = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if ((d = opendir(path)) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		char *end;
		long tid = strtol(e->d_name, &end, 10);

		if (tid <= 0 || *end != '\0' ||
		    pidset_add(done, (pid_t)tid) != 1)
			continue;
		fresh++;
		set_policy_one((pid_t)tid, pa);
	}
	closedir(d);
	return fresh;
}

int
cg_set_policy_pid(const char *cg, pid_t pid, int policy, int prio)
{
	struct policy_arg	 pa = { policy, prio, 0, 0, 0, 0, NULL, 0 };
	struct pidset		 done = { NULL, 0, 0 };

	for (int pass = 0; pass < CG_SWEEPS; pass++)
		if (policy_pass(pid, &done, &pa) <= 0)
			break;
	free(done.pid);
	if (pa.failed > 0) {
		errno = pa.first_errno;
		log_warn("%s: policy %d for %d thread(s) of pid %d", cg,
		    policy, pa.failed, (int)pid);
	}
	return pa.changed;
}

static void
rt_to_other(pid_t tid, void *arg)
{
	struct sched_param	 sp = { 0 };
	int			*n = arg;
	int			 p = sched_getscheduler(tid);

	if (p != -1 && ((p & ~SCHED_RESET_ON_FORK) == SCHED_RR ||
	    (p & ~SCHED_RESET_ON_FORK) == SCHED_FIFO) &&
	    sched_setscheduler(tid, SCHED_OTHER, &sp) == 0)
		(*n)++;
}

int
cg_rt_to_other(const char *cg)
{
	int	 n = 0;

	(void)cg_foreach(cg, "cgroup.threads", rt_to_other, &n);
	return n;
}

int
pidset_add(struct pidset *s, pid_t pid)
{
	for (int i = 0; i < s->n; i++)
		if (s->pid[i] == pid)
			return 0;
	if (s->n == s->max) {
		int max = s->max ? s->max * 2 : 64;
		pid_t *p = realloc(s->pid, (size_t)max * sizeof(*p));
		if (p == NULL)
			return -1;
		s->pid = p;
		s->max = max;
	}
	s->pid[s->n++] = pid;
	return 1;
}

/* The pids already signalled by cg_signal_all (kept between calls). */
static struct pidset sent;

struct signal_arg {
	int	 sig, fresh;
	int	 stopped_only;	/* only to a process in state T */
};

/* Signal pid unless this sweep did; one we cannot remember is signalled
 * but not counted, so a sweep short of memory still ends. */
static void
signal_one(pid_t pid, void *arg)
{
	struct signal_arg	*sa = arg;
	int			 added = pidset_add(&sent, pid);
	char			 state;

	if (added == 0)
		return;
	sa->fresh += added;
	if (sa->stopped_only && (proc_pid_stat(pid, &state, NULL, NULL) == -1 ||
	    state != 'T'))
		return;
	(void)kill(pid, sa->sig);
}

/*
 * A member may fork between our read of cgroup.procs and its signal, so
 * read again until a pass finds nobody new.  A stopped process cannot
 * fork, so for SIGSTOP this ends after a pass or two.
 */
static int
signal_all(const char *cg, int sig, int stopped_only)
{
	struct signal_arg	 sa = { sig, 0, stopped_only };
	int			 pass;

	sent.n = 0;
	for (pass = 0; pass < CG_SWEEPS; pass++) {
		sa.fresh = 0;
		if (cg_foreach(cg, "cgroup.procs", signal_one, &sa) == -1)
			return -1;
		if (sa.fresh == 0)
			return 0;
	}
	errno = EAGAIN;
	return -1;
}

int
cg_signal_all(const char *cg, int sig)
{
	return signal_all(cg, sig, 0);
}

int
cg_cont_stopped(const char *cg)
{
	return signal_all(cg, SIGCONT, 1);
}

int
cg_open(const char *cg, const char *file, int flags)
{
	char	 path[CG_PATH_MAX + 32];

	if (cg_path(path, sizeof(path), cg, file) == -1)
		return -1;
	return open(path, flags | O_CLOEXEC);
}

int
cg_write_fd(int fd, const char *text)
{
	size_t	 len = strlen(text);
	ssize_t	 n;

	if ((n = pwrite(fd, text, len, 0)) == -1)
		return -1;
	if ((size_t)n != len) {
		errno = EIO;
		return -1;
	}
	return 0;
}

int
cg_write(const char *cg, const char *file, const char *text)
{
	int	 fd, rc, saved;

	if ((fd = cg_open(cg, file, O_WRONLY)) == -1)
		return -1;
	rc = cg_write_fd(fd, text);
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

int
cg_read(const char *cg, const char *file, char *buf, size_t len)
{
	char	 path[CG_PATH_MAX + 32];

	if (cg_path(path, sizeof(path), cg, file) == -1)
		return -1;
	return proc_read_small(path, buf, len);
}

/*
 * The value of key in a flat keyed file of cg ("key value" lines, as
 * cpu.stat and cgroup.events): 0, or -1 if unreadable or not there.
 */
static int
cg_keyed(const char *cg, const char *file, const char *key,
    unsigned long long *v)
{
	char	 buf[1024], *p;
	size_t	 n = strlen(key);

	if (cg_read(cg, file, buf, sizeof(buf)) == -1)
		return -1;
	for (p = buf;; p++) {
		if (strncmp(p, key, n) == 0 && p[n] == ' ')
			return sscanf(p + n + 1, "%llu", v) == 1 ? 0 : -1;
		if ((p = strchr(p, '\n')) == NULL)
			return -1;
	}
}

int
cg_cpu_ns(const char *cg, uint64_t *ns)
{
	unsigned long long	 us;

	if (cg == NULL || cg[0] != '/' ||
	    cg_keyed(cg, "cpu.stat", "usage_usec", &us) == -1)
		return -1;
	*ns = (uint64_t)us * 1000;
	return 0;
}

int
cg_wait_frozen(const char *cg, int ms)
{
	struct timespec		 ts = { 0, 200 * 1000 };
	unsigned long long	 frozen;

	for (int i = 0; i <= 5 * ms; i++) {
		if (cg_keyed(cg, "cgroup.events", "frozen", &frozen) == -1)
			return -1;
		if (frozen == 1)
			return 1;
		if (i < 5 * ms)
			nanosleep(&ts, NULL);
	}
	return 0;
}

/*
 * Frozen first: a thread frozen clones no more, so the policy sweep
 * leaves none at real-time priority (once every thread is frozen, not
 * even one whose clone was under way; the first round waits a little
 * for that).  The policy before the thaw and SIGCONT: a stopped member
 * at real-time priority that is continued first could preempt the caller
 * on its CPU.
 */
void
cg_release(const char *cg)
{
	int	 fd;

	if (cg == NULL || cg[0] != '/')
		return;
	fd = cg_open(cg, "cgroup.freeze", O_WRONLY);
	for (int i = 0; i < 2; i++) {
		if (fd != -1 && cg_write_fd(fd, "1") == 0 && i == 0)
			(void)cg_wait_frozen(cg, CG_FROZEN_MS);
		(void)cg_set_policy_all(cg, SCHED_OTHER, 0, -1);
		if (fd != -1)
			(void)cg_write_fd(fd, "0");
		else
			(void)cg_write(cg, "cgroup.freeze", "0");
		(void)cg_cont_stopped(cg);
	}
	if (fd != -1)
		close(fd);
}

static int
foreach_job_in(const char *dir, void (*fn)(const char *, const char *,
    void *), void *arg)
{
	char		 path[CG_PATH_MAX];
	DIR		*d;
	struct dirent	*e;
	int		 n = 0;

	if ((d = opendir(dir)) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		if (e->d_type != DT_DIR || strncmp(e->d_name, CG_JOB_PREFIX,
		    strlen(CG_JOB_PREFIX)) != 0 ||
		    (size_t)snprintf(path, sizeof(path), "%s/%s", dir,
		    e->d_name) >= sizeof(path))
			continue;
		n++;
		if (fn != NULL)
			fn(path, e->d_name, arg);
	}
	closedir(d);
	return n;
}

int
cg_foreach_job(const char *base, void (*fn)(const char *, const char *,
    void *), void *arg)
{
	char	 jobs[CG_PATH_MAX];
	int	 n, m;

	if (base == NULL || base[0] != '/' ||
	    cg_path(jobs, sizeof(jobs), base, CG_JOBS) == -1 ||
	    access(base, R_OK) == -1)
		return -1;
	n = foreach_job_in(jobs, fn, arg);
	m = foreach_job_in(base, fn, arg);
	return (n > 0 ? n : 0) + (m > 0 ? m : 0);
}

static void
release_one(const char *cg, const char *name, void *arg)
{
	(void)name;
	(void)arg;
	cg_release(cg);
}

void
cg_release_jobs(const char *base)
{
	char	 jobs[CG_PATH_MAX];

	(void)cg_foreach_job(base, release_one, NULL);
	if (base != NULL && base[0] == '/' &&
	    cg_path(jobs, sizeof(jobs), base, CG_JOBS) == 0 &&
	    access(jobs, F_OK) == 0)
		(void)cg_write(jobs, "cgroup.freeze", "0");
}

static void
move_one(pid_t pid, void *arg)
{
	char	 text[32];

	snprintf(text, sizeof(text), "%d\n", (int)pid);
	(void)cg_write(arg, "cgroup.procs", text);
}

int
cg_move_all(const char *from, const char *to)
{
	int	 n = -1;

	for (int i = 0; i < 4; i++)
		if ((n = cg_foreach(from, "cgroup.procs", move_one,
		    (void *)(uintptr_t)to)) <= 0)
			break;
	return n <= 0 ? n : cg_count(from, NULL);
}

struct count_arg {
	int	 n, runnable, want;
};

static void
count_one(const char *cg, const char *name, void *arg)
{
	struct count_arg	*ca = arg;
	int			 r = 0;

	(void)name;
	ca->n += cg_count(cg, ca->want ? &r : NULL);
	ca->runnable += r;
}

int
cg_count_jobs(const char *base, int *runnable)
{
	struct count_arg	 ca = { 0, 0, runnable != NULL };

	(void)cg_foreach_job(base, count_one, &ca);
	if (runnable != NULL)
		*runnable = ca.runnable;
	return ca.n;
}

int
cg_populated(const char *cg)
{
	unsigned long long	 v;

	if (cg == NULL || cg[0] != '/' ||
	    cg_keyed(cg, "cgroup.events", "populated", &v) == -1)
		return -1;
	return v != 0;
}

int
cg_remove(const char *cg)
{
	if (cg == NULL || cg[0] != '/') {
		errno = EINVAL;
		return -1;
	}
	return rmdir(cg);
}

/* Does "word" stand in the space-separated list text? */
static int
has_word(const char *text, const char *word)
{
	size_t	 n = strlen(word);

	for (const char *p = text; (p = strstr(p, word)) != NULL; p += n)
		if ((p == text || p[-1] == ' ') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
			return 1;
	return 0;
}

/* Has dir a subdirectory (a v1 cgroup: a group of its own)? */
static int
has_subdir(const char *dir)
{
	DIR		*d = opendir(dir);
	struct dirent	*e;
	int		 found = 0;

	if (d == NULL)
		return 0;
	while (!found && (e = readdir(d)) != NULL)
		found = e->d_type == DT_DIR && strcmp(e->d_name, ".") != 0 &&
		    strcmp(e->d_name, "..") != 0;
	closedir(d);
	return found;
}

/* A cgroup v1 hierarchy with the cpu controller that has groups: its
 * mount point into where, 1; else 0. */
static int
v1_cpu_groups(char *where, size_t len)
{
	char	 dev[256], dir[PATH_MAX], type[64], opts[1024];
	FILE	*f = fopen("/proc/self/mounts", "re");
	int	 found = 0;

	if (f == NULL)
		return 0;
	while (!found && fscanf(f, "%255s %4095s %63s %1023s %*[^\n]", dev,
	    dir, type, opts) == 4) {
		char *o, *save = NULL;

		if (strcmp(type, "cgroup") != 0)
			continue;
		for (o = strtok_r(opts, ",", &save); o != NULL;
		    o = strtok_r(NULL, ",", &save))
			if (strcmp(o, "cpu") == 0 && has_subdir(dir)) {
				snprintf(where, len, "%s", dir);
				found = 1;
				break;
			}
	}
	fclose(f);
	return found;
}

int
cg_cpu_group(const char *mnt, const char *cg, const char *v1_root,
    char *where, size_t len)
{
	char	 dir[CG_PATH_MAX], text[256], *slash;
	size_t	 m = strlen(mnt);

	if (strncmp(cg, mnt, m) != 0 || (cg[m] != '/' && cg[m] != '\0') ||
	    (size_t)snprintf(dir, sizeof(dir), "%s", cg) >= sizeof(dir))
		return 0;
	/* from cg up, the mount (the root cgroup) excluded */
	while (strlen(dir) > m) {
		if (cg_read(dir, "cgroup.controllers", text,
		    sizeof(text)) == 0 && has_word(text, "cpu")) {
			snprintf(where, len, "%s", dir[m] ? dir + m : "/");
			return 1;
		}
		if ((slash = strrchr(dir, '/')) == NULL)
			break;
		*slash = '\0';
	}
	if (v1_root != NULL) {
		if (has_subdir(v1_root)) {
			snprintf(where, len, "%s", v1_root);
			return 1;
		}
		return 0;
	}
	return v1_cpu_groups(where, len);
}
