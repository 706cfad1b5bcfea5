/*
 * priv.c - RT scheduling, memory locking and capabilities (libcap).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <linux/securebits.h>

#include "log.h"
#include "priv.h"

static const cap_value_t keep[] = { CAP_SYS_NICE, CAP_KILL };
#define NKEEP ((int)(sizeof(keep) / sizeof(keep[0])))

int
priv_rt_max(int conf_prio)
{
	return conf_prio > 0 ? conf_prio : sched_get_priority_max(SCHED_FIFO);
}

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
/*
 * Locked memory: every page dts maps from mlockall on stays locked, and
 * the kernel counts the size of each locked mapping against
 * RLIMIT_MEMLOCK, whatever it holds.  At the usual 8 MiB dts's mappings
 * came to 7.7 MiB, 2 MiB of them the PROT_NONE gaps that align a
 * library's segments (libconfig's), and a thread or a stack page more
 * could fail with EAGAIN (t116's reclaim thread did; an assert's
 * message once could not be allocated).  So: the limit to PRIV_MEMLOCK
 * where dts may still raise it (CAP_SYS_RESOURCE, as chronyd does, with
 * a bound), and, after mlockall, those gaps unlocked: a file's mapping
 * that nothing may read, write or run is never touched, and nothing
 * changes its protection later (glibc does, in its anonymous arenas,
 * which stay locked).
 */
static void
raise_memlock(void)
{
	struct rlimit	 rl;

	if (getrlimit(RLIMIT_MEMLOCK, &rl) == -1 ||
	    rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= PRIV_MEMLOCK)
		return;
	rl.rlim_cur = PRIV_MEMLOCK;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < PRIV_MEMLOCK)
		rl.rlim_max = PRIV_MEMLOCK;
	if (setrlimit(RLIMIT_MEMLOCK, &rl) == -1)
		log_debug("RLIMIT_MEMLOCK to %d MiB: %s (the file gaps are "
		    "unlocked all the same)", PRIV_MEMLOCK >> 20,
		    strerror(errno));
}

static void
unlock_gaps(void)
{
	char		 line[512], perm[8], path[256];
	unsigned long	 from, to, freed = 0;
	FILE		*f;

	if ((f = fopen("/proc/self/maps", "re")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		path[0] = '\0';
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %255s", &from, &to,
		    perm, path) < 3 || strcmp(perm, "---p") != 0 ||
		    path[0] != '/')
			continue;
		if (munlock((void *)from, to - from) == 0)
			freed += to - from;
	}
	fclose(f);
	log_debug("memory locked, but for %lu KiB of PROT_NONE file gaps",
	    freed >> 10);
}

#endif

int
priv_rt_self(int prio)
{
	struct sched_param	 sp = { .sched_priority = prio };

	if (sched_setscheduler(0, SCHED_FIFO, &sp) == -1)
		return -1;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	/* the sanitizers reserve terabytes of shadow memory: do not lock it */
	log_info("sanitizer build: memory not locked");
#else
	raise_memlock();
	if (mlockall(MCL_CURRENT | MCL_FUTURE) == -1)
		log_warn("mlockall");
	else
		unlock_gaps();
#endif
	return 0;
}

int
priv_rt_thread(pthread_t *t, int prio, void *(*fn)(void *), void *arg)
{
	pthread_attr_t		 a;
	struct sched_param	 sp = { .sched_priority = prio };
	int			 rc;

	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, PRIV_THREAD_STACK);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_FIFO);
	pthread_attr_setschedparam(&a, &sp);
	rc = pthread_create(t, &a, fn, arg);
	pthread_attr_destroy(&a);
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	return 0;
}

int
priv_lower_self(int prio)
{
	struct sched_param	 sp = { .sched_priority = prio };
	int			 rc;

	rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	return 0;
}

int
priv_check_root(char *err, size_t errlen)
{
	if (getuid() == 0 && geteuid() == 0)
		return 0;
	snprintf(err, errlen, "must be started by root (uid %d, euid %d): dts "
	    "is a system service (systemctl start dts, or dts -d as root); "
	    "users start pvmd through the launch script", (int)getuid(),
	    (int)geteuid());
	return -1;
}

#define SECBITS_ROOT_POWERLESS (SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | \
	SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED)

int
priv_drop_self(void)
{
	cap_t	 caps;
	int	 rc;

	if (prctl(PR_SET_SECUREBITS, SECBITS_ROOT_POWERLESS) == -1)
		return -1;
	for (cap_value_t c = 0; c <= CAP_LAST_CAP; c++) {
		int wanted = 0;
		for (int i = 0; i < NKEEP; i++)
			wanted |= keep[i] == c;
		if (!wanted && CAP_IS_SUPPORTED(c) && cap_drop_bound(c) == -1 &&
		    errno != EINVAL)
			return -1;
	}
	if ((caps = cap_init()) == NULL)
		return -1;
	rc = cap_set_flag(caps, CAP_PERMITTED, NKEEP, keep, CAP_SET) |
	    cap_set_flag(caps, CAP_EFFECTIVE, NKEEP, keep, CAP_SET) |
	    cap_set_flag(caps, CAP_INHERITABLE, NKEEP, keep, CAP_SET);
	if (rc == 0)
		rc = cap_set_proc(caps);
	cap_free(caps);
	if (rc == 0)
		rc = prctl(PR_SET_DUMPABLE, 0);
	return rc;
}

int
priv_child_agent(int prio)
{
	struct sched_param	 sp = { .sched_priority = prio };

	if (sched_setscheduler(0, SCHED_FIFO, &sp) == -1)
		return -1;
	munlockall();
	if (cap_reset_ambient() == -1)
		return -1;
	for (int i = 0; i < NKEEP; i++)
		if (cap_set_ambient(keep[i], CAP_SET) == -1)
			return -1;
	return 0;
}

void
priv_log_caps(const char *who)
{
	cap_t	 caps = cap_get_proc();
	char	*text = caps ? cap_to_text(caps, NULL) : NULL;

	log_info("%s: uid %d, capabilities \"%s\", %sdumpable", who,
	    (int)getuid(), text ? text : "?",
	    prctl(PR_GET_DUMPABLE) ? "" : "not ");
	cap_free(text);
	cap_free(caps);
}
