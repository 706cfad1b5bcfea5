/*
 * clockstep.so - steps one process's real-time clock, for tests
 * (LD_PRELOAD).
 *
 * Every host of the test cluster shares this machine's kernel clock, and
 * stepping it would disturb everything else that runs here.  Loaded with
 * CLOCKSTEP_FILE=F, a process sees CLOCK_REALTIME (and its COARSE form,
 * gettimeofday, time, and the kernel's receive timestamps SCM_TIMESTAMPNS
 * and SCM_TIMESTAMP) moved by the number of microseconds written in F, as
 * it would after a step of the system clock; CLOCK_MONOTONIC is left
 * alone, as a step leaves it.  F is read at every call (a shared mapping
 * of its first 32 bytes), so a test steps a running daemon's clock with
 *   printf '%-31s\n' 60000000 | dd of=F conv=notrunc status=none
 * F must exist and hold at least 32 bytes before the process starts; a
 * process without CLOCKSTEP_FILE, or whose file cannot be mapped, sees
 * the true clock.  The daemons' timers are all on CLOCK_MONOTONIC, which
 * is why this is all a step changes for them.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define FILE_LEN 32

static const volatile char *map;
static int (*real_clock_gettime)(clockid_t, struct timespec *);
static ssize_t (*real_recvmsg)(int, struct msghdr *, int);
static int (*real_recvmmsg)(int, struct mmsghdr *, unsigned int, int,
    struct timespec *);

__attribute__((constructor)) static void
init(void)
{
	const char *path = getenv("CLOCKSTEP_FILE");
	void *p;
	int fd;

	real_clock_gettime = dlsym(RTLD_NEXT, "clock_gettime");
	real_recvmsg = dlsym(RTLD_NEXT, "recvmsg");
	real_recvmmsg = dlsym(RTLD_NEXT, "recvmmsg");
	if (path == NULL || (fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return;
	p = mmap(NULL, FILE_LEN, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p != MAP_FAILED)
		map = p;
}

/* The step in nanoseconds; read until two reads agree (no torn write). */
static int64_t
step_ns(void)
{
	char a[FILE_LEN + 1], b[FILE_LEN + 1];

	if (map == NULL)
		return 0;
	a[FILE_LEN] = b[FILE_LEN] = '\0';
	do {
		memcpy(a, (const char *)map, FILE_LEN);
		memcpy(b, (const char *)map, FILE_LEN);
	} while (memcmp(a, b, FILE_LEN) != 0);
	return strtoll(a, NULL, 10) * 1000;
}

static void
shift_ts(struct timespec *ts, int64_t d)
{
	int64_t ns = (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec + d;

	ts->tv_sec = ns / 1000000000;
	ts->tv_nsec = ns % 1000000000;
}

static void
shift_tv(struct timeval *tv, int64_t d)
{
	int64_t us = (int64_t)tv->tv_sec * 1000000 + tv->tv_usec + d / 1000;

	tv->tv_sec = us / 1000000;
	tv->tv_usec = us % 1000000;
}

int
clock_gettime(clockid_t id, struct timespec *ts)
{
	int r = real_clock_gettime(id, ts);

	if (r == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE))
		shift_ts(ts, step_ns());
	return r;
}

int
gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
	struct timespec ts;

	(void)tz;
	if (clock_gettime(CLOCK_REALTIME, &ts) == -1)
		return -1;
	tv->tv_sec = ts.tv_sec;
	tv->tv_usec = ts.tv_nsec / 1000;
	return 0;
}

time_t
time(time_t *t)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	if (t != NULL)
		*t = ts.tv_sec;
	return ts.tv_sec;
}

static void
shift_cmsgs(struct msghdr *mh)
{
	int64_t d = step_ns();

	if (d == 0 || mh->msg_control == NULL)
		return;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm;
	    cm = CMSG_NXTHDR(mh, cm)) {
		if (cm->cmsg_level != SOL_SOCKET)
			continue;
		if (cm->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec ts;

			memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
			shift_ts(&ts, d);
			memcpy(CMSG_DATA(cm), &ts, sizeof(ts));
		} else if (cm->cmsg_type == SCM_TIMESTAMP) {
			struct timeval tv;

			memcpy(&tv, CMSG_DATA(cm), sizeof(tv));
			shift_tv(&tv, d);
			memcpy(CMSG_DATA(cm), &tv, sizeof(tv));
		}
	}
}

ssize_t
recvmsg(int fd, struct msghdr *mh, int flags)
{
	ssize_t n = real_recvmsg(fd, mh, flags);

	if (n >= 0)
		shift_cmsgs(mh);
	return n;
}

int
recvmmsg(int fd, struct mmsghdr *v, unsigned int len, int flags,
    struct timespec *timeout)
{
	int n = real_recvmmsg(fd, v, len, flags, timeout);

	for (int i = 0; i < n; i++)
		shift_cmsgs(&v[i].msg_hdr);
	return n;
}
