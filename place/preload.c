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
 * for the record (dts-place(1), PLACEMENT RECORD).  The messages and the
 * spawn by a plan are layer.c's (dts-console's spawn uses them too).
 * pvm_config is asked once a spawn, and nothing else of libpvm3 is
 * touched.
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

#include "layer.h"

typedef int (*config_fn)(int *, int *, struct pvmhostinfo **);

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

int
pvm_spawn(char *file, char **argv, int flags, char *where, int ntask,
    int *tids)
{
	static char		 buf[PLACE_MSG_MAX], msg[PLACE_MSG_MAX];
	place_spawn_fn		 real;
	config_fn		 config;
	place_tidtohost_fn	 tidtohost;
	struct pvmhostinfo	*hi;
	size_t			 mlen;
	int			 fd, len, rc, nhost, narch;

	real = (place_spawn_fn)(uintptr_t)dlsym(RTLD_NEXT, "pvm_spawn");
	if (real == NULL)
		return PvmSysErr;
	fd = place_fd();
	config = (config_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "pvm_config");
	tidtohost = (place_tidtohost_fn)(uintptr_t)dlsym(RTLD_DEFAULT,
	    "pvm_tidtohost");
	if (fd == -1 || ntask <= 0 || file == NULL || tids == NULL ||
	    config == NULL || tidtohost == NULL ||
	    (flags & (PvmTaskHost | PvmTaskArch | PvmMppFront)) != 0)
		return real(file, argv, flags, where, ntask, tids);
	pthread_mutex_lock(&lock);
	len = config(&nhost, &narch, &hi) < 0 ? -1 :
	    place_request(buf, sizeof(buf), file, ntask, hi, nhost);
	if (len == -1 || ask(fd, buf, sizeof(buf), len) == -1 ||
	    (strncmp(buf, "PLAN\n", 5) != 0 && strncmp(buf, "SAME", 4) != 0)) {
		pthread_mutex_unlock(&lock);
		return real(file, argv, flags, where, ntask, tids);
	}
	mlen = (size_t)snprintf(msg, sizeof(msg), "TIDS");
	if (buf[0] == 'S') {
		rc = real(file, argv, flags, where, ntask, tids);
		if (rc > 0)	/* hi: pvm_config's, still */
			place_by_host(hi, nhost, tidtohost, tids, rc, msg,
			    sizeof(msg), &mlen);
	} else
		rc = place_by_plan(real, buf, file, argv, flags, ntask, tids,
		    msg, sizeof(msg), &mlen);
	(void)send(fd, msg, mlen < sizeof(msg) ? mlen : strlen(msg),
	    MSG_NOSIGNAL);
	pthread_mutex_unlock(&lock);
	return rc;
}
