/*
 * gangwatch - measure how long a gang stays stopped after an event.
 *
 *   gangwatch [-k PID] [-c CGROUP] [-t TIMEOUT_MS] WATCHED_PID
 *
 * Optionally sends SIGKILL to -k PID (e.g. dts), then polls every 100 us
 * until WATCHED_PID is no longer stopped (state T in /proc/PID/stat) and,
 * with -c, its cgroup v2 directory no longer reports "frozen 1".  Prints
 * "resumed_us=N" (from the kill, or from the start) and exits 0; exits 1
 * after the timeout, 2 on bad usage, 3 if the gang was not stopped (or
 * frozen) to begin with, so nothing would have been measured.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* 1 if stopped, 0 if not, -1 if gone */
static int
stopped(int pid)
{
	char path[64], buf[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (p == NULL || (p = strrchr(buf, ')')) == NULL)
		return -1;
	return p[2] == 'T' || p[2] == 't';
}

static int
frozen(const char *cgroup)
{
	char path[512], line[64];
	FILE *f;
	int fz = 0;

	if (cgroup == NULL)
		return 0;
	snprintf(path, sizeof(path), "%s/cgroup.events", cgroup);
	if ((f = fopen(path, "r")) == NULL)
		return 0;	/* gone: not frozen */
	while (fgets(line, sizeof(line), f))
		if (strcmp(line, "frozen 1\n") == 0)
			fz = 1;
	fclose(f);
	return fz;
}

int
main(int argc, char **argv)
{
	const char *cgroup = NULL;
	int kill_pid = 0, pid, ch, s;
	long timeout_ms = 1000;
	long long t0, t;

	while ((ch = getopt(argc, argv, "c:k:t:")) != -1) {
		switch (ch) {
		case 'c': cgroup = optarg; break;
		case 'k': kill_pid = atoi(optarg); break;
		case 't': timeout_ms = atol(optarg); break;
		default: goto usage;
		}
	}
	if (optind + 1 != argc || (pid = atoi(argv[optind])) <= 1 || kill_pid < 0)
		goto usage;
	if (stopped(pid) != 1 && !frozen(cgroup)) {
		fprintf(stderr, "gangwatch: %d is not stopped now\n", pid);
		return 3;
	}
	t0 = now_us();
	if (kill_pid > 1 && kill(kill_pid, SIGKILL) < 0) {
		perror("kill");
		return 1;
	}
	for (;;) {
		t = now_us();
		if ((s = stopped(pid)) < 0) {
			fprintf(stderr, "gangwatch: process %d is gone\n", pid);
			return 1;
		}
		if (!s && !frozen(cgroup))
			break;
		if (t - t0 > timeout_ms * 1000) {
			fprintf(stderr, "gangwatch: %d still stopped after %ld ms\n",
			    pid, timeout_ms);
			return 1;
		}
		usleep(100);
	}
	printf("resumed_us=%lld\n", t - t0);
	return 0;
usage:
	fprintf(stderr, "usage: gangwatch [-k PID] [-c CGROUP] [-t TIMEOUT_MS] PID\n");
	return 2;
}
