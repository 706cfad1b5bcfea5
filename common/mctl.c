/*
 * mctl.c - the control protocol of dts-master's socket.  See mctl.h.
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mctl.h"
#include "timeutil.h"

#define MCTL_PREFIX	"DTSM"

/* The words of line, split on blanks, at most max; how many. */
static int
words(const char *line, char w[][64], int max)
{
	int	 n = 0;

	while (*line != '\0') {
		size_t	 k;

		line += strspn(line, " \t");
		if (*line == '\0')
			break;
		k = strcspn(line, " \t");
		if (n < max)
			snprintf(w[n], 64, "%.*s", (int)(k < 63 ? k : 63), line);
		n++;
		line += k;
	}
	return n;
}

static int
all_flags(char w[][64], int n, int from, const char *const *ok)
{
	for (int i = from; i < n; i++) {
		int	 found = 0;

		for (const char *const *o = ok; *o != NULL; o++)
			found |= strcmp(w[i], *o) == 0;
		if (!found)
			return 0;
	}
	return 1;
}

int
mctl_kind(const char *line, char *err, size_t errlen)
{
	static const char *const json[] = { "--json", NULL };
	static const char *const status[] = { "-v", "--json", NULL };
	static const char *const setting[] = { "mode", "ip", "ps", "ls",
	    "si", NULL };
	static const char *const change[] = { "start", "stop", "sync",
	    "takeover", NULL };
	char	 w[4][64];
	int	 n = words(line, w, 4);

	if (n == 0) {
		snprintf(err, errlen, "no command");
		return -1;
	}
	for (const char *const *s = setting; *s != NULL; s++)
		if (strcmp(w[0], *s) == 0)
			return n == 1 ? MCTL_READ : MCTL_WRITE;
	for (const char *const *s = change; *s != NULL; s++)
		if (strcmp(w[0], *s) == 0)
			return MCTL_WRITE;
	if (strcmp(w[0], "hello") == 0 && n == 1)
		return MCTL_READ;
	if (strcmp(w[0], "status") == 0 && all_flags(w, n < 4 ? n : 4, 1,
	    status))
		return MCTL_READ;
	if ((strcmp(w[0], "jobs") == 0 || strcmp(w[0], "load") == 0 ||
	    strcmp(w[0], "show") == 0) && all_flags(w, n < 4 ? n : 4, 1,
	    json))
		return MCTL_READ;
	if (strcmp(w[0], "metrics") == 0) {
		if (n == 1)
			return MCTL_READ;
		snprintf(err, errlen, "metrics FILE: the file would be the "
		    "master's; ask for metrics and redirect the output");
		return -1;
	}
	if (strcmp(w[0], "set") == 0) {
		if (n > 1 && strcmp(w[1], "weight") == 0)
			return MCTL_WRITE;
		snprintf(err, errlen, "set %s: the master's tunables are its "
		    "dts.conf's (only set weight goes to the master)",
		    n > 1 ? w[1] : "");
		return -1;
	}
	snprintf(err, errlen, "%s: not a command of the master", w[0]);
	return -1;
}

int
mctl_parse(const char *buf, size_t len, char *cmd, size_t cmdlen,
    int *kind, char *err, size_t errlen)
{
	size_t		 plen = strlen(MCTL_PREFIX);
	const char	*p, *end;
	char		*e;
	long		 v;

	if (len == 0) {
		snprintf(err, errlen, "empty request");
		return -1;
	}
	if (len > MCTL_REQ_MAX) {
		snprintf(err, errlen, "request of %zu bytes (at most %d)", len,
		    MCTL_REQ_MAX);
		return -1;
	}
	if (buf[len - 1] != '\n' || memchr(buf, '\n', len - 1) != NULL) {
		snprintf(err, errlen, "not one line");
		return -1;
	}
	if (len < plen + 2 || memcmp(buf, MCTL_PREFIX, plen) != 0) {
		snprintf(err, errlen, "not a request of dts-master's protocol");
		return -1;
	}
	errno = 0;
	v = strtol(buf + plen, &e, 10);
	if (e == buf + plen || errno != 0 || (*e != ' ' && *e != '\n')) {
		snprintf(err, errlen, "no protocol version");
		return -1;
	}
	if (v != MCTL_VERSION) {
		snprintf(err, errlen, "protocol version %ld; this master speaks "
		    "%d", v, MCTL_VERSION);
		return -1;
	}
	p = *e == ' ' ? e + 1 : e;
	end = buf + len - 1;
	for (const char *q = p; q < end; q++) {
		if ((unsigned char)*q < 0x20 || *q == 0x7f) {
			snprintf(err, errlen, "control character 0x%02x in the "
			    "request", (unsigned)(unsigned char)*q);
			return -1;
		}
		if (*q == ';') {
			snprintf(err, errlen, "one command a request (no ';')");
			return -1;
		}
	}
	if ((size_t)(end - p) >= cmdlen) {
		snprintf(err, errlen, "command too long");
		return -1;
	}
	memcpy(cmd, p, (size_t)(end - p));
	cmd[end - p] = '\0';
	if ((*kind = mctl_kind(cmd, err, errlen)) == -1)
		return -1;
	return 0;
}

int
mctl_reply_head(char *buf, size_t len, int rc, size_t outlen, size_t errlen)
{
	int	 n = snprintf(buf, len, "%s%d %d %zu %zu\n", MCTL_PREFIX,
	    MCTL_VERSION, rc != 0, outlen, errlen);

	return n < 0 || (size_t)n >= len ? -1 : n;
}

int
mctl_reply_parse(const char *buf, size_t len, int *rc, size_t *outlen,
    size_t *errlen)
{
	char		 line[MCTL_HEAD_MAX + 1], pfx[16];
	unsigned	 r;
	uint64_t	 o, e;
	int		 v, end = 0;

	if (len == 0 || len > MCTL_HEAD_MAX || buf[len - 1] != '\n')
		return -1;
	memcpy(line, buf, len);
	line[len] = '\0';
	if (sscanf(line, "%4s%d %u %" SCNu64 " %" SCNu64 "\n%n", pfx, &v, &r,
	    &o, &e, &end) != 5 || (size_t)end != len ||
	    strcmp(pfx, MCTL_PREFIX) != 0 || v != MCTL_VERSION || r > 1 ||
	    o > MCTL_OUT_MAX || e > MCTL_REQ_MAX)
		return -1;
	*rc = (int)r;
	*outlen = (size_t)o;
	*errlen = (size_t)e;
	return 0;
}

/* Read what the master sends, to its close, into *b (malloc'd). */
static int
read_all(int fd, char **b, size_t *n, int64_t until, const char *path,
    char *err, size_t errlen)
{
	size_t	 cap = 4096;
	ssize_t	 r;

	*n = 0;
	if ((*b = malloc(cap)) == NULL)
		return snprintf(err, errlen, "out of memory"), -1;
	for (;;) {
		int64_t		 left = (until - now_mono_ns()) / 1000000;
		struct pollfd	 p = { fd, POLLIN, 0 };

		if (left <= 0 || poll(&p, 1, (int)left) == 0) {
			snprintf(err, errlen, "the master at %s did not answer "
			    "in time", path);
			return -1;
		}
		if (*n == cap) {
			char	*nb;

			if (cap > MCTL_OUT_MAX + MCTL_REQ_MAX + MCTL_HEAD_MAX ||
			    (nb = realloc(*b, cap * 2)) == NULL) {
				snprintf(err, errlen, "the master's reply is too "
				    "long");
				return -1;
			}
			*b = nb;
			cap *= 2;
		}
		if ((r = read(fd, *b + *n, cap - *n)) == -1) {
			if (errno == EINTR)
				continue;
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return -1;
		}
		if (r == 0)
			return 0;
		*n += (size_t)r;
	}
}

int
mctl_call(const char *path, const char *cmd, FILE *out, char *err,
    size_t errlen, int timeout_ms)
{
	struct sockaddr_un	 a = { .sun_family = AF_UNIX };
	char			 req[MCTL_REQ_MAX + 1], *b = NULL, *nl;
	size_t			 n, outlen, elen;
	int			 fd, k, rc = -2;
	int64_t			 until = now_mono_ns() +
	    (int64_t)timeout_ms * 1000000;

	if (strlen(path) >= sizeof(a.sun_path)) {
		snprintf(err, errlen, "%s: path too long", path);
		return -2;
	}
	k = snprintf(req, sizeof(req), "%s%d %s\n", MCTL_PREFIX, MCTL_VERSION,
	    cmd);
	if (k < 0 || k > MCTL_REQ_MAX) {
		snprintf(err, errlen, "command too long for the master");
		return -1;
	}
	strcpy(a.sun_path, path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1 ||
	    connect(fd, (struct sockaddr *)&a, sizeof(a)) == -1) {
		snprintf(err, errlen, "no master at %s: %s", path,
		    strerror(errno));
		goto out;
	}
	if (write(fd, req, (size_t)k) != k) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (read_all(fd, &b, &n, until, path, err, errlen) == -1)
		goto out;
	if ((nl = memchr(b, '\n', n < MCTL_HEAD_MAX ? n : MCTL_HEAD_MAX)) ==
	    NULL || mctl_reply_parse(b, (size_t)(nl - b) + 1, &k, &outlen,
	    &elen) == -1 || (size_t)(nl - b) + 1 + outlen + elen != n) {
		snprintf(err, errlen, "the master at %s sent no reply of "
		    "protocol version %d", path, MCTL_VERSION);
		goto out;
	}
	if (outlen > 0 && fwrite(nl + 1, 1, outlen, out) != outlen)
		(void)0;	/* the output's own error shows at its flush */
	if (k != 0) {
		snprintf(err, errlen, "%.*s", (int)elen, nl + 1 + outlen);
		rc = -1;
	} else
		rc = 0;
out:
	free(b);
	if (fd != -1)
		close(fd);
	return rc;
}
