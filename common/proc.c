/*
 * proc.c - facts from /proc.  See proc.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"

#define PROC_STAT_MAX 1024 /* comm is at most 64 bytes; fields 3-5 follow */

int
proc_read_small(const char *path, char *buf, size_t cap)
{
	ssize_t	 n;
	int	 fd;

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

/* /proc/PID/name (pid 0: /proc/self/name) into buf. */
static int
read_pid_file(pid_t pid, const char *name, char *buf, size_t cap)
{
	char	 path[64];

	if (pid == 0)
		snprintf(path, sizeof(path), "/proc/self/%s", name);
	else
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	return proc_read_small(path, buf, cap);
}

int
proc_pid_stat(pid_t pid, char *state, pid_t *ppid, pid_t *pgrp)
{
	char		 buf[PROC_STAT_MAX], st;
	const char	*p;
	int		 pp, pg;

	if (read_pid_file(pid, "stat", buf, sizeof(buf)) == -1)
		return -1;
	if ((p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 1, " %c %d %d", &st, &pp, &pg) != 3)
		return -1;
	if (state != NULL)
		*state = st;
	if (ppid != NULL)
		*ppid = (pid_t)pp;
	if (pgrp != NULL)
		*pgrp = (pid_t)pg;
	return 0;
}

int
proc_parse_uids(const char *status, uid_t uids[4])
{
	const char	*p;
	unsigned long	 v[4];

	if (strncmp(status, "Uid:", 4) == 0)
		p = status;
	else if ((p = strstr(status, "\nUid:")) != NULL)
		p++;
	else
		return -1;
	if (sscanf(p + 4, "%lu %lu %lu %lu", &v[0], &v[1], &v[2], &v[3]) != 4)
		return -1;
	for (int i = 0; i < 4; i++)
		uids[i] = (uid_t)v[i];
	return 0;
}

int
proc_parse_cgroup(const char *text, char *buf, size_t len)
{
	const char	*p;
	size_t		 n;

	if (strncmp(text, "0::", 3) == 0)
		p = text + 3;
	else if ((p = strstr(text, "\n0::")) != NULL)
		p += 4;
	else
		return -1;
	if ((n = strcspn(p, "\n")) + 1 > len || n == 0)
		return -1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return 0;
}

int
proc_pid_uids(pid_t pid, uid_t uids[4])
{
	char	 text[4096];

	if (read_pid_file(pid, "status", text, sizeof(text)) == -1)
		return -1;
	return proc_parse_uids(text, uids);
}

int
proc_pid_cgroup(pid_t pid, char *buf, size_t len)
{
	char	 text[4096];

	if (read_pid_file(pid, "cgroup", text, sizeof(text)) == -1)
		return -1;
	return proc_parse_cgroup(text, buf, len);
}

int
proc_pid_comm(pid_t pid, char *buf, size_t len)
{
	if (read_pid_file(pid, "comm", buf, len) == -1)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int
proc_pid_run_delay(pid_t pid, uint64_t *ns)
{
	char			 buf[96];
	unsigned long long	 run, wait;

	if (read_pid_file(pid, "schedstat", buf, sizeof(buf)) == -1 ||
	    sscanf(buf, "%llu %llu", &run, &wait) != 2)
		return -1;
	*ns = wait;
	return 0;
}

int
proc_procs_running(void)
{
	char	*line = NULL;
	size_t	 cap = 0;
	int	 n = -1;
	FILE	*f;

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
	long	 n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : (int)n;
}
