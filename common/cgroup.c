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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "log.h"
#include "proc.h"

#define CG_SWEEPS 64	/* cg_signal_all: passes before giving up */

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

struct policy_arg {
	int	 policy, prio, changed, failed, first_errno;
};

static void
set_policy_one(pid_t tid, void *arg)
{
	struct policy_arg	*pa = arg;
	struct sched_param	 sp = { .sched_priority = pa->prio };

	if (sched_setscheduler(tid, pa->policy, &sp) == 0) {
		pa->changed++;
		return;
	}
	if (errno != ESRCH && pa->failed++ == 0)
		pa->first_errno = errno;
}

int
cg_set_policy(const char *cg, int policy, int prio)
{
	struct policy_arg	 pa = { policy, prio, 0, 0, 0 };

	cg_foreach(cg, "cgroup.threads", set_policy_one, &pa);
	if (pa.failed > 0) {
		errno = pa.first_errno;
		log_warn("%s: policy %d for %d thread(s)", cg, policy,
		    pa.failed);
	}
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
	struct policy_arg	 pa = { policy, prio, 0, 0, 0 };
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
};

/* Signal pid unless this sweep did; one we cannot remember is signalled
 * but not counted, so a sweep short of memory still ends. */
static void
signal_one(pid_t pid, void *arg)
{
	struct signal_arg	*sa = arg;
	int			 added = pidset_add(&sent, pid);

	if (added == 0)
		return;
	sa->fresh += added;
	(void)kill(pid, sa->sig);
}

/*
 * A member may fork between our read of cgroup.procs and its signal, so
 * read again until a pass finds nobody new.  A stopped process cannot
 * fork, so for SIGSTOP this ends after a pass or two.
 */
int
cg_signal_all(const char *cg, int sig)
{
	struct signal_arg	 sa = { sig, 0 };
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

/*
 * The policy goes first: a stopped member at real-time priority that is
 * continued first could preempt the caller on its CPU.
 */
void
cg_release(const char *cg)
{
	if (cg == NULL || cg[0] != '/')
		return;
	for (int i = 0; i < 2; i++) {
		cg_set_policy(cg, SCHED_OTHER, 0);
		(void)cg_write(cg, "cgroup.freeze", "0");
		(void)cg_signal_all(cg, SIGCONT);
	}
}
