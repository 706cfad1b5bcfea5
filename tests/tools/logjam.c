/*
 * logjam.c - the system-log attack on dts's slice edges, for
 * t90-log-jam.sh (dts(8), SECURITY).
 *
 *   logjam reader PATH SECONDS [PERIOD_MS]
 *       a starved syslog daemon: binds a datagram socket at PATH (mode
 *       0666, like /dev/log) and reads one datagram every PERIOD_MS
 *       (default 20), for SECONDS, and prints it; then removes PATH.
 *   logjam jam DEVLOG ADOPT SECONDS
 *       the gang's task: fill DEVLOG's queue without blocking (sends with
 *       MSG_DONTWAIT until EAGAIN), then ask dts for "JOIN 1" on the
 *       adoption socket ADOPT three times (each a refusal dts logs), in a
 *       loop, for SECONDS.  Prints what it did.
 *
 * Both end by themselves after SECONDS, so a failed cleanup cannot leave
 * them behind for long.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "timeutil.h"

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: logjam reader PATH SECONDS [PERIOD_MS] | "
	    "jam DEVLOG ADOPT SECONDS\n");
	exit(2);
}

static double
secs_arg(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end != '\0' || !(v > 0))
		usage();
	return v;
}

static int
unix_addr(struct sockaddr_un *a, const char *path)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(a->sun_path)) {
		fprintf(stderr, "logjam: %s: path too long\n", path);
		return -1;
	}
	strcpy(a->sun_path, path);
	return 0;
}

static int
reader(const char *path, double secs, long period_ms)
{
	struct sockaddr_un a;
	struct timespec pause = { period_ms / 1000, (period_ms % 1000) * 1000000L };
	int64_t end = now_mono_ns() + (int64_t)(secs * 1e9);
	char buf[2048];
	long n = 0;
	int fd;

	if (unix_addr(&a, path) == -1)
		return 1;
	if ((fd = socket(AF_UNIX, SOCK_DGRAM, 0)) == -1 ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) == -1 ||
	    chmod(path, 0666) == -1) {
		fprintf(stderr, "logjam: %s: %s\n", path, strerror(errno));
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (now_mono_ns() < end) {
		ssize_t len = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);

		if (len > 0) {
			buf[len] = '\0';
			buf[strcspn(buf, "\n")] = '\0';
			printf("%s\n", buf);
			n++;
		}
		nanosleep(&pause, NULL);
	}
	unlink(path);
	printf("reader: %ld datagrams read\n", n);
	return 0;
}

/* One request on the adoption socket, its reply read: 0, or -1. */
static int
ask(const struct sockaddr_un *a, const char *req)
{
	struct pollfd p;
	char reply[512];
	int fd, rc = -1;

	if ((fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	if (connect(fd, (const struct sockaddr *)a, sizeof(*a)) == 0 &&
	    send(fd, req, strlen(req), 0) == (ssize_t)strlen(req)) {
		p = (struct pollfd){ .fd = fd, .events = POLLIN };
		if (poll(&p, 1, 1000) == 1 && recv(fd, reply, sizeof(reply), 0) > 0)
			rc = 0;
	}
	close(fd);
	return rc;
}

static int
jam(const char *devlog, const char *adopt, double secs)
{
	static const char line[] = "<14>logjam: filling the system log's queue";
	struct sockaddr_un l, a;
	int64_t end = now_mono_ns() + (int64_t)(secs * 1e9);
	long rounds = 0, sent = 0, asked = 0, answered = 0;
	int fd;

	if (unix_addr(&l, devlog) == -1 || unix_addr(&a, adopt) == -1)
		return 1;
	if ((fd = socket(AF_UNIX, SOCK_DGRAM, 0)) == -1 ||
	    connect(fd, (struct sockaddr *)&l, sizeof(l)) == -1) {
		fprintf(stderr, "logjam: %s: %s\n", devlog, strerror(errno));
		return 1;
	}
	while (now_mono_ns() < end) {
		rounds++;
		for (int i = 0; i < 10000; i++) {
			if (send(fd, line, sizeof(line) - 1, MSG_DONTWAIT) == -1)
				break;	/* EAGAIN: the queue is full */
			sent++;
		}
		for (int i = 0; i < 3; i++, asked++)
			if (ask(&a, "JOIN 1") == 0)
				answered++;
	}
	printf("jam: %ld rounds, %ld log datagrams, %ld JOIN 1 asked, %ld "
	    "answered\n", rounds, sent, asked, answered);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "reader") == 0 && argc <= 5)
		return reader(argv[2], secs_arg(argv[3]),
		    argc == 5 ? (long)secs_arg(argv[4]) : 20);
	if (argc == 5 && strcmp(argv[1], "jam") == 0)
		return jam(argv[2], argv[3], secs_arg(argv[4]));
	usage();
}
