/*
 * adopt_msg.c - the requests of the adoption socket, for both sides.  See
 * adopt_msg.h.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "adopt_msg.h"

int
adopt_parse_join(const char *req, pid_t *pid)
{
	const char *p;
	long v = 0;

	if (strncmp(req, "JOIN ", 5) != 0)
		return -1;
	p = req + 5;
	if (*p < '1' || *p > '9')	/* no sign, space or leading zero */
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (*p - '0');
		if (v > ADOPT_PID_MAX)
			return -1;
	}
	if (*p != '\0')
		return -1;
	*pid = (pid_t)v;
	return 0;
}

/* poll for input up to wait_ms; a stop and continue (LS) may cut it short. */
static int
wait_input(int fd, int wait_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct timespec t0, t;
	int rc, left = wait_ms;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((rc = poll(&p, 1, left)) == -1 && errno == EINTR) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		left = wait_ms - (int)((t.tv_sec - t0.tv_sec) * 1000 +
		    (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left < 0)
			left = 0;
	}
	return rc == 1 ? 0 : -1;
}

int
adopt_ask(const char *path, const char *req, char *reply, size_t len,
	  int wait_ms, char *err, size_t errlen)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	ssize_t n;
	int fd, rc = -1;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		snprintf(err, errlen, "socket path too long: %s", path);
		return -1;
	}
	memcpy(sun.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0)) == -1) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1)
		snprintf(err, errlen, "cannot reach the DTS service at %s: %s "
		    "(is dts running? systemctl start dts, or dts -d)", path,
		    strerror(errno));
	else if (send(fd, req, strlen(req), MSG_NOSIGNAL) == -1)
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	else if (wait_input(fd, wait_ms) == -1)
		snprintf(err, errlen, "no answer from dts at %s", path);
	else if ((n = recv(fd, reply, len - 1, 0)) <= 0)
		snprintf(err, errlen, "dts at %s closed the connection", path);
	else {
		reply[n] = '\0';
		rc = 0;
	}
	close(fd);
	return rc;
}
