/*
 * proc.c - the gang seen through /proc, shared by dts and dts-load.
 *
 * Every helper walks /proc/[0-9]* and reads /proc/PID/stat.  Processes come
 * and go during the walk: a pid whose files vanish is skipped, never an
 * error.  comm (field 2) may hold spaces and ')', so a stat line is parsed
 * from its LAST ')'.  Nothing here signals or changes a process whose
 * process group is not the one asked for, and process groups 0 and 1 (and
 * negative ones) are refused outright.
 */
#include <ctype.h>
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
#include <unistd.h>

#include "log.h"
#include "proc.h"

#define PROC_STAT_MAX 1024 /* comm is at most 64 bytes; fields 3-5 follow */

typedef void (*proc_walk_fn)(pid_t pid, char state, void *arg);

/* Decimal pid from a /proc entry name, or 0 if it is not one. */
static pid_t
proc_name_pid(const char *name)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)name[0]))
		return 0;
	errno = 0;
	v = strtol(name, &end, 10);
	if (errno != 0 || *end != '\0' || v <= 0 || v > INT32_MAX)
		return 0;
	return (pid_t)v;
}

/*
 * Parse "pid (comm) S ppid pgrp ..." into state and pgrp.  Returns 0, or -1
 * if the line is not a stat line.
 */
static int
proc_stat_parse(const char *buf, char *state, pid_t *pgrp)
{
	const char *p = strrchr(buf, ')');
	int ppid, pg;
	char st;

	if (p == NULL || sscanf(p + 1, " %c %d %d", &st, &ppid, &pg) != 3)
		return -1;
	*state = st;
	*pgrp = (pid_t)pg;
	return 0;
}

/* Read a small /proc file into buf (NUL terminated); -1 if it is gone. */
static int
proc_read_small(const char *path, char *buf, size_t cap)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd == -1)
		return -1;
	do
		n = read(fd, buf, cap - 1);
	while (n == -1 && errno == EINTR);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* State and pgrp of one pid; -1 if it vanished or cannot be read. */
static int
proc_pid_stat(pid_t pid, char *state, pid_t *pgrp)
{
	char path[64], buf[PROC_STAT_MAX];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (proc_read_small(path, buf, sizeof(buf)) == -1)
		return -1;
	return proc_stat_parse(buf, state, pgrp);
}

/* Call fn for every process of group pgid; returns how many there were. */
static int
proc_walk(pid_t pgid, proc_walk_fn fn, void *arg)
{
	struct dirent *de;
	DIR *dir;
	pid_t pid, pg;
	char state;
	int n = 0;

	if (pgid <= 0)
		return 0;
	dir = opendir("/proc");
	if (dir == NULL) {
		log_warn("opendir /proc");
		return 0;
	}
	while ((de = readdir(dir)) != NULL) {
		pid = proc_name_pid(de->d_name);
		if (pid == 0 || proc_pid_stat(pid, &state, &pg) == -1)
			continue;
		if (pg != pgid)
			continue;
		n++;
		if (fn != NULL)
			fn(pid, state, arg);
	}
	closedir(dir);
	return n;
}

struct proc_foreach_arg {
	void (*fn)(pid_t pid, void *arg);
	void *arg;
};

static void
proc_foreach_one(pid_t pid, char state, void *arg)
{
	struct proc_foreach_arg *fa = arg;

	(void)state;
	fa->fn(pid, fa->arg);
}

int
proc_pgid_foreach(pid_t pgid, void (*fn)(pid_t pid, void *arg), void *arg)
{
	struct proc_foreach_arg fa = { fn, arg };

	return proc_walk(pgid, fn != NULL ? proc_foreach_one : NULL, &fa);
}

static void
proc_count_one(pid_t pid, char state, void *arg)
{
	int *runnable = arg;

	(void)pid;
	if (state == 'R')
		(*runnable)++;
}

int
proc_pgid_count(pid_t pgid, int *runnable)
{
	int r = 0, n;

	n = proc_walk(pgid, proc_count_one, &r);
	if (runnable != NULL)
		*runnable = r;
	return n;
}

struct proc_policy_arg {
	pid_t pgid;
	int policy;
	int prio;
	int changed;
	int failed;
	int first_errno;
};

/* One thread; ESRCH (it just exited) is not a failure. */
static int
proc_policy_tid(struct proc_policy_arg *pa, pid_t tid)
{
	struct sched_param sp = { .sched_priority = pa->prio };

	if (sched_setscheduler(tid, pa->policy, &sp) == 0 || errno == ESRCH)
		return 0;
	if (pa->failed++ == 0)
		pa->first_errno = errno;
	return -1;
}

/*
 * A member's threads inherit its policy and may be at real-time priority
 * too, so every thread in /proc/PID/task gets the new policy.  A thread
 * listed there belongs to the process, so the group check of the caller
 * covers it.
 */
static void
proc_policy_one(pid_t pid, char state, void *arg)
{
	struct proc_policy_arg *pa = arg;
	struct dirent *de;
	char path[64];
	DIR *dir;
	pid_t tid;

	(void)state;
	if (proc_policy_tid(pa, pid) == 0)
		pa->changed++;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (dir == NULL)
		return;
	while ((de = readdir(dir)) != NULL) {
		tid = proc_name_pid(de->d_name);
		if (tid != 0 && tid != pid)
			(void)proc_policy_tid(pa, tid);
	}
	closedir(dir);
}

int
proc_pgid_set_policy(pid_t pgid, int policy, int prio)
{
	struct proc_policy_arg pa = { pgid, policy, prio, 0, 0, 0 };

	if (pgid <= 1)
		return 0;
	proc_walk(pgid, proc_policy_one, &pa);
	if (pa.failed > 0) {
		errno = pa.first_errno;
		log_warn("group %d: policy %d for %d thread(s)", (int)pgid,
		    policy, pa.failed);
	}
	return pa.changed;
}

static void
proc_cont(pid_t pgid)
{
	if (killpg(pgid, SIGCONT) == -1 && errno != ESRCH)
		log_warn("killpg(%d, SIGCONT)", (int)pgid);
}

/*
 * The policy goes first: a stopped member at real-time priority that is
 * continued first would preempt the caller (dts-load runs at SCHED_FIFO
 * max-2, below the gang) and could keep it from ever finishing the job.
 * Continued members can fork, so both steps are done twice.
 */
void
proc_gang_release(pid_t pgid)
{
	if (pgid <= 1)
		return;
	proc_pgid_set_policy(pgid, SCHED_OTHER, 0);
	proc_cont(pgid);
	proc_pgid_set_policy(pgid, SCHED_OTHER, 0);
	proc_cont(pgid);
}

void
proc_cgroup_thaw(const char *cgroup)
{
	char path[PATH_MAX];
	int fd;

	if (cgroup == NULL || cgroup[0] != '/')
		return;
	snprintf(path, sizeof(path), "%s/cgroup.freeze", cgroup);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return;
	if (write(fd, "0", 1) != 1)
		(void)0;	/* nothing more a fail-safe can do */
	close(fd);
}

int
proc_procs_running(void)
{
	char *line = NULL;
	size_t cap = 0;
	int n = -1;
	FILE *f;

	f = fopen("/proc/stat", "re");
	if (f == NULL)
		return -1;
	while (getline(&line, &cap, f) != -1) {
		if (sscanf(line, "procs_running %d", &n) == 1)
			break;
		n = -1;
	}
	free(line);
	fclose(f);
	return n;
}

int
proc_ncpu(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : (int)n;
}
