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

int
proc_pid_stat(pid_t pid, char *state, pid_t *ppid, pid_t *pgrp)
{
	char path[64], buf[PROC_STAT_MAX], st;
	const char *p;
	int pp, pg;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (proc_read_small(path, buf, sizeof(buf)) == -1)
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
