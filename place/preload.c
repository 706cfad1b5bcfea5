/*
 * preload.c - libdtsplace.so: pvm_spawn for a program dts-place(1) runs.
 *
 * dts-place starts the program with this library in LD_PRELOAD and one
 * end of a SOCK_SEQPACKET socket pair in DTS_PLACE_FD.  A pvm_spawn that
 * names no host (neither PvmTaskHost nor PvmTaskArch nor PvmMppFront) asks
 * dts-place for a plan: the request carries the task's name, the count
 * and the virtual machine's hosts as pvm_config() gives them (name and
 * speed); the reply is either "PLAN" and one "HOST COUNT" line per host,
 * or "CIRCLE REASON", or "SAME ..." (the plan gives every host as many
 * tasks as PVM's circle does).  On "PLAN" the tasks are spawned with
 * PvmTaskHost, one
 * pvm_spawn per host of the plan; the tids come back in the plan's order,
 * the error codes after them, as PVM's own pvm_spawn returns them.
 * Otherwise, or when dts-place cannot be asked, PVM's pvm_spawn places
 * the tasks itself, in one call.  After a "PLAN" or "SAME" spawn the
 * library tells dts-place which tids each host got, in one message with
 * no answer: "TIDS" and a line "HOST TID TID ..." per host (hexadecimal),
 * for the record (dts-place(1), PLACEMENT RECORD).  Nothing else of
 * libpvm3 is touched.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <pvm3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define PLACE_MSG_MAX 65536

typedef int (*spawn_fn)(char *, char **, int, char *, int, int *);
typedef int (*config_fn)(int *, int *, struct pvmhostinfo **);
typedef int (*tidtohost_fn)(int);

static pthread_mutex_t	 lock = PTHREAD_MUTEX_INITIALIZER;

int pvm_spawn(char *, char **, int, char *, int, int *);

static int
place_fd(void)
{
	const char	*s = getenv("DTS_PLACE_FD");
	char		*end;
	long		 fd;

	if (s == NULL || *s == '\0')
		return -1;
	fd = strtol(s, &end, 10);
	if (*end != '\0' || fd < 0 || fd > 65535)
		return -1;
	return (int)fd;
}

/* The request into buf: "SPAWN NTASK FILE\n" and "H NAME SPEED\n" lines. */
static int
request(char *buf, size_t cap, const char *file, int ntask)
{
	config_fn		 config;
	struct pvmhostinfo	*hi;
	int			 nhost, narch, i, len;

	config = (config_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "pvm_config");
	if (config == NULL || config(&nhost, &narch, &hi) < 0)
		return -1;
	len = snprintf(buf, cap, "SPAWN %d %s\n", ntask, file);
	for (i = 0; i < nhost && len > 0 && (size_t)len < cap; i++)
		len += snprintf(buf + len, cap - (size_t)len, "H %s %d\n",
		    hi[i].hi_name, hi[i].hi_speed);
	return len > 0 && (size_t)len < cap ? len : -1;
}

/* Ask dts-place; the reply into buf (NUL terminated), or -1. */
static int
ask(int fd, char *buf, size_t cap, int len)
{
	ssize_t	 n;

	if (send(fd, buf, (size_t)len, MSG_NOSIGNAL) != len)
		return -1;
	do
		n = recv(fd, buf, cap - 1, 0);
	while (n == -1 && errno == EINTR);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/*
 * "\nHOST" or " TID" to the TIDS message msg (of length *len).  Once one
 * does not fit, *len is cap and nothing more is added: msg ends before
 * it.
 */
static void
tid_add(char *msg, size_t cap, size_t *len, const char *host, int tid)
{
	int	 n;

	if (*len >= cap)
		return;
	if (host != NULL)
		n = snprintf(msg + *len, cap - *len, "\n%s", host);
	else
		n = snprintf(msg + *len, cap - *len, " %x", (unsigned)tid);
	if (n > 0 && *len + (size_t)n < cap) {
		*len += (size_t)n;
		return;
	}
	msg[*len] = '\0';
	*len = cap;
}

/*
 * Spawn by the plan in reply; the total started, as pvm_spawn returns.
 * The tids each host got into msg (the TIDS message).
 */
static int
by_plan(spawn_fn real, char *reply, char *file, char **argv, int flags,
    int ntask, int *tids, char *msg, size_t cap, size_t *mlen)
{
	int	*one, *errs, ok = 0, ne = 0, rc, k, j, syserr = 0;
	char	*line, *save, host[256];

	if ((one = calloc((size_t)ntask, sizeof(int))) == NULL ||
	    (errs = calloc((size_t)ntask, sizeof(int))) == NULL) {
		free(one);
		return real(file, argv, flags, NULL, ntask, tids);
	}
	line = strtok_r(reply, "\n", &save);	/* "PLAN" */
	while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
		if (sscanf(line, "%255s %d", host, &k) != 2 || k <= 0 ||
		    k > ntask - ok - ne)
			continue;
		rc = real(file, argv, (flags & ~PvmHostCompl) | PvmTaskHost,
		    host, k, one);
		if (rc < 0) {
			syserr = rc;
			for (j = 0; j < k; j++)
				errs[ne++] = rc;
			continue;
		}
		tid_add(msg, cap, mlen, host, 0);
		for (j = 0; j < k; j++)
			if (one[j] > 0) {
				tid_add(msg, cap, mlen, NULL, one[j]);
				tids[ok++] = one[j];
			} else
				errs[ne++] = one[j] < 0 ? one[j] : PvmSysErr;
	}
	for (j = 0; j < ne && ok + j < ntask; j++)
		tids[ok + j] = errs[j];
	free(one);
	free(errs);
	return ok == 0 && syserr < 0 ? syserr : ok;
}

/* The tids of PVM's own spawn, by host (pvm_tidtohost, pvm_config). */
static void
by_host(char *msg, size_t cap, size_t *len, const int *tids, int n)
{
	config_fn		 config;
	tidtohost_fn		 tidtohost;
	struct pvmhostinfo	*hi;
	int			 nhost, narch, i, j;

	config = (config_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "pvm_config");
	tidtohost = (tidtohost_fn)(uintptr_t)dlsym(RTLD_DEFAULT,
	    "pvm_tidtohost");
	if (config == NULL || tidtohost == NULL ||
	    config(&nhost, &narch, &hi) < 0)
		return;
	for (i = 0; i < nhost; i++) {
		for (j = 0; j < n; j++)
			if (tids[j] > 0 && tidtohost(tids[j]) == hi[i].hi_tid)
				break;
		if (j == n)
			continue;
		tid_add(msg, cap, len, hi[i].hi_name, 0);
		for (; j < n; j++)
			if (tids[j] > 0 && tidtohost(tids[j]) == hi[i].hi_tid)
				tid_add(msg, cap, len, NULL, tids[j]);
	}
}

int
pvm_spawn(char *file, char **argv, int flags, char *where, int ntask,
    int *tids)
{
	static char	 buf[PLACE_MSG_MAX], msg[PLACE_MSG_MAX];
	spawn_fn	 real;
	size_t		 mlen;
	int		 fd, len, rc;

	real = (spawn_fn)(uintptr_t)dlsym(RTLD_NEXT, "pvm_spawn");
	if (real == NULL)
		return PvmSysErr;
	fd = place_fd();
	if (fd == -1 || ntask <= 0 || file == NULL || tids == NULL ||
	    (flags & (PvmTaskHost | PvmTaskArch | PvmMppFront)) != 0)
		return real(file, argv, flags, where, ntask, tids);
	pthread_mutex_lock(&lock);
	len = request(buf, sizeof(buf), file, ntask);
	if (len == -1 || ask(fd, buf, sizeof(buf), len) == -1 ||
	    (strncmp(buf, "PLAN\n", 5) != 0 && strncmp(buf, "SAME", 4) != 0)) {
		pthread_mutex_unlock(&lock);
		return real(file, argv, flags, where, ntask, tids);
	}
	mlen = (size_t)snprintf(msg, sizeof(msg), "TIDS");
	if (buf[0] == 'S') {
		rc = real(file, argv, flags, where, ntask, tids);
		if (rc > 0)
			by_host(msg, sizeof(msg), &mlen, tids, rc);
	} else
		rc = by_plan(real, buf, file, argv, flags, ntask, tids, msg,
		    sizeof(msg), &mlen);
	(void)send(fd, msg, mlen < sizeof(msg) ? mlen : strlen(msg),
	    MSG_NOSIGNAL);
	pthread_mutex_unlock(&lock);
	return rc;
}
