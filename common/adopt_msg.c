/*
 * adopt_msg.c - the requests of the adoption socket, for both sides.  See
 * adopt_msg.h.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "adopt_msg.h"
#include "job.h"
#include "proc.h"

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

/*
 * The value of the request's one "KEY VALUE" line into val (of len
 * bytes, cut there: a longer value is refused by its check however long
 * it is): 1, or 0 for no such line, or -1 with one line in err for two of
 * them or one without a value (WHAT names it).
 */
static int
request_line(const char *req, const char *key, const char *what, char *val,
    size_t len, char *err, size_t errlen)
{
	const char	*line, *end, *found = NULL;
	size_t		 klen = strlen(key), n;

	for (line = req; line != NULL; line = *end ? end + 1 : NULL) {
		end = line + strcspn(line, "\n");
		if ((size_t)(end - line) < klen ||
		    strncmp(line, key, klen) != 0 ||
		    (line[klen] != ' ' && line + klen != end))
			continue;
		if (found != NULL) {
			snprintf(err, errlen, "two %s lines in one request",
			    key);
			return -1;
		}
		found = line;
	}
	if (found == NULL)
		return 0;
	found += klen;
	n = strcspn(found, "\n");
	if (n <= 1) {
		snprintf(err, errlen, "a %s line without a %s", key, what);
		return -1;
	}
	found++;		/* the space */
	n--;
	if (n >= len)
		n = len - 1;
	memcpy(val, found, n);
	val[n] = '\0';
	return 1;
}

int
adopt_parse_job(const char *req, char label[16], char *err, size_t errlen)
{
	char	 want[64];
	int	 r;

	r = request_line(req, ADOPT_JOB_LINE, "label", want, sizeof(want),
	    err, errlen);
	if (r <= 0) {
		if (r == 0)
			memcpy(label, JOB_LABEL_DEFAULT,
			    sizeof(JOB_LABEL_DEFAULT));
		return r;
	}
	if (job_label_check(want, err, errlen) == -1)
		return -1;
	memcpy(label, want, strlen(want) + 1);
	return 0;
}

int
adopt_weight_check(const char *s, int *w, char *err, size_t errlen)
{
	const char	*p = s;
	int		 v = 0;

	if (*p < '1' || *p > '9')	/* no sign, space or leading zero */
		goto bad;
	for (; *p >= '0' && *p <= '9'; p++)
		if ((v = v * 10 + (*p - '0')) > PROTO_WEIGHT_JOB_MAX)
			goto bad;
	if (*p != '\0')
		goto bad;
	*w = v;
	return 0;
bad:
	snprintf(err, errlen, "weight \"%.20s\": expected a whole number "
	    "from 1 to %d", s, PROTO_WEIGHT_JOB_MAX);
	return -1;
}

int
adopt_parse_weight(const char *req, int *w, char *err, size_t errlen)
{
	char	 v[32];
	int	 r;

	*w = 0;
	r = request_line(req, ADOPT_WEIGHT_LINE, "weight", v, sizeof(v), err,
	    errlen);
	if (r <= 0)
		return r;
	return adopt_weight_check(v, w, err, errlen);
}

/* What is left of wait_ms after t0, in ms (0 when it is over). */
static int
ms_left(const struct timespec *t0, int wait_ms)
{
	struct timespec	 t;
	int64_t		 gone;

	clock_gettime(CLOCK_MONOTONIC, &t);
	gone = (int64_t)(t.tv_sec - t0->tv_sec) * 1000 +
	    (t.tv_nsec - t0->tv_nsec) / 1000000;
	return gone >= wait_ms ? 0 : (int)(wait_ms - gone);
}

/*
 * poll for input until wait_ms after t0; a stop and continue (LS) may cut
 * a poll short.
 */
static int
wait_input(int fd, const struct timespec *t0, int wait_ms)
{
	struct pollfd	 p = { .fd = fd, .events = POLLIN };
	int		 rc;

	while ((rc = poll(&p, 1, ms_left(t0, wait_ms))) == -1 &&
	    errno == EINTR)
		continue;
	return rc == 1 ? 0 : -1;
}

/*
 * A Unix socket's connect() waits while the listener's backlog is full,
 * for as long as SO_SNDTIMEO says (by default for ever).  A signal (a stop
 * and continue) ends a bounded wait early: go on with what is left.
 */
static int
connect_until(int fd, const struct sockaddr_un *sun,
    const struct timespec *t0, int wait_ms)
{
	struct timeval	 tv;
	int		 left = wait_ms;

	for (;;) {
		tv.tv_sec = left / 1000;
		tv.tv_usec = (left % 1000) * 1000 + (left == 0); /* 0: no bound */
		if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv,
		    sizeof(tv)) == -1)
			return -1;
		if (connect(fd, (const struct sockaddr *)sun,
		    sizeof(*sun)) == 0)
			return 0;
		if (errno != EINTR)
			return -1;
		if ((left = ms_left(t0, wait_ms)) == 0) {
			errno = EAGAIN;
			return -1;
		}
	}
}

int
adopt_connect(int fd, const struct sockaddr_un *sun, int wait_ms)
{
	struct timespec	 t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	return connect_until(fd, sun, &t0, wait_ms);
}

/*
 * One exchange on a new connection to path, all within wait_ms: send req,
 * read one reply (NUL terminated) into reply.  The connection, or -1 with
 * a one-line reason in err.
 */
static int
exchange(const char *path, const char *req, char *reply, size_t len,
    int wait_ms, char *err, size_t errlen)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct timespec t0;
	ssize_t n;
	int fd;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (strlen(path) >= sizeof(sun.sun_path)) {
		snprintf(err, errlen, "socket path too long: %s", path);
		return -1;
	}
	memcpy(sun.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0)) == -1) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	if (connect_until(fd, &sun, &t0, wait_ms) == -1) {
		if (errno == EAGAIN)	/* there, but it takes nobody */
			snprintf(err, errlen, "no answer from dts at %s", path);
		else
			snprintf(err, errlen, "cannot reach the DTS service at "
			    "%s: %s (is dts running? systemctl start dts, or "
			    "dts -d)", path, strerror(errno));
	} else if (send(fd, req, strlen(req), MSG_NOSIGNAL) == -1)
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	else if (wait_input(fd, &t0, wait_ms) == -1)
		snprintf(err, errlen, "no answer from dts at %s", path);
	else if ((n = recv(fd, reply, len - 1, 0)) <= 0)
		snprintf(err, errlen, "dts at %s closed the connection", path);
	else {
		reply[n] = '\0';
		return fd;
	}
	close(fd);
	return -1;
}

int
adopt_ask(const char *path, const char *req, char *reply, size_t len,
	  int wait_ms, char *err, size_t errlen)
{
	int	 fd;

	if ((fd = exchange(path, req, reply, len, wait_ms, err, errlen)) == -1)
		return -1;
	close(fd);
	return 0;
}

/* The credit as of now (at 0: new, full). */
static int64_t
credit_now(const struct lift_credit *c, int64_t now)
{
	int64_t	 v;

	if (c->at == 0)
		return LIFT_BURST_NS;
	v = c->credit + (now > c->at ? (now - c->at) * LIFT_SHARE_PCT / 100 :
	    0);
	return v > LIFT_BURST_NS ? LIFT_BURST_NS : v;
}

int64_t
lift_credit_grant(struct lift_credit *c, int64_t now, int64_t *wait)
{
	int64_t	 v = credit_now(c, now), len;

	*wait = 0;
	if (v < LIFT_MIN_NS) {
		*wait = (LIFT_MIN_NS - v) * 100 / LIFT_SHARE_PCT;
		return 0;
	}
	len = v < LIFT_MAX_NS ? v : LIFT_MAX_NS;
	c->credit = v - len;
	c->at = now;
	return len;
}

void
lift_credit_settle(struct lift_credit *c, int64_t now, int64_t reserved,
    int64_t used)
{
	int64_t	 v = credit_now(c, now);

	if (used < LIFT_MIN_NS)
		used = LIFT_MIN_NS;
	if (used < reserved)
		v += reserved - used;
	else
		v -= used - reserved;	/* ended late: charged too */
	c->credit = v > LIFT_BURST_NS ? LIFT_BURST_NS : v;
	c->at = now;
}

int
adopt_lift(const char *path, const char *label, int wait_ms, int *fd,
    int *ms, char *err, size_t errlen)
{
	char	 req[64], reply[ADOPT_MSG_MAX];
	int	 s;

	*fd = -1;
	*ms = 0;
	snprintf(req, sizeof(req), ADOPT_LIFT_LINE "%s%.15s", label ?
	    "\n" ADOPT_JOB_LINE " " : "", label ? label : "");
	if ((s = exchange(path, req, reply, sizeof(reply), wait_ms, err,
	    errlen)) == -1)
		return -2;
	if (strcmp(reply, ADOPT_REFUSAL_OLD) == 0) {
		close(s);
		return 0;
	}
	if (strncmp(reply, "OK ", 3) == 0 && (*ms = atoi(reply + 3)) > 0) {
		*fd = s;
		return 1;
	}
	snprintf(err, errlen, "%s", strncmp(reply, "ERR ", 4) == 0 ?
	    reply + 4 : reply);
	close(s);
	return -1;
}

int64_t
adopt_rate_when(const struct adopt_rate *r, int64_t now, int64_t interval,
    int burst)
{
	int64_t	 at = r->tat - (int64_t)(burst - 1) * interval;

	return at > now ? at : now;
}

void
adopt_rate_take(struct adopt_rate *r, int64_t at, int64_t interval)
{
	r->tat = (r->tat > at ? r->tat : at) + interval;
}

/* The value of the line "key<TAB>..." in text: a pointer past the key, or
 * NULL. */
static const char *
line_of(const char *text, const char *key)
{
	size_t		 n = strlen(key);
	const char	*p = text;

	while (p != NULL && *p != '\0') {
		if (strncmp(p, key, n) == 0)
			return p + n;
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	}
	return NULL;
}

/* A decimal pid (or -1) up to the end of the line; 0 or -1. */
static int
pid_value(const char *p, pid_t *pid)
{
	long	 v = 0;
	int	 neg = 0, digits = 0;

	while (*p == '\t' || *p == ' ')
		p++;
	if (*p == '-') {
		neg = 1;
		p++;
	}
	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		v = v * 10 + (*p - '0');
		if (v > ADOPT_PID_MAX)
			return -1;
	}
	if (digits == 0 || (*p != '\0' && *p != '\n') || (neg && v != 1))
		return -1;
	*pid = neg ? -1 : (pid_t)v;
	return 0;
}

int
adopt_parse_status(const char *status, pid_t *tgid, uid_t uids[4])
{
	const char	*p = line_of(status, "Tgid:");
	pid_t		 t;

	if (p == NULL || pid_value(p, &t) == -1 || t <= 0 ||
	    proc_parse_uids(status, uids) == -1)
		return -1;
	*tgid = t;
	return 0;
}

int
adopt_parse_fdinfo_pid(const char *text, pid_t *pid)
{
	const char	*p = line_of(text, "Pid:");
	pid_t		 v;

	if (p == NULL || pid_value(p, &v) == -1 || v == 0)
		return -1;
	*pid = v;
	return 0;
}

int
adopt_service_absent(const char *path)
{
	struct sockaddr_un	 sun = { .sun_family = AF_UNIX };
	int			 fd, absent;

	if (strlen(path) >= sizeof(sun.sun_path))
		return 0;
	memcpy(sun.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0)) == -1)
		return 0;
	absent = adopt_connect(fd, &sun, ADOPT_ABSENT_WAIT_MS) == -1 &&
	    (errno == ENOENT || errno == ECONNREFUSED || errno == ENOTDIR);
	close(fd);
	return absent;
}
