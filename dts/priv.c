/*
 * priv.c - RT scheduling, memory locking and capabilities (libcap).
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <linux/securebits.h>

#include "log.h"
#include "priv.h"

int
priv_user_lookup(const char *name, struct priv_user *u, char *err, size_t errlen)
{
	struct passwd *pw;

	errno = 0;
	pw = name[0] ? getpwnam(name) : getpwuid(getuid());
	if (pw == NULL) {
		snprintf(err, errlen, "user \"%s\": %s", name[0] ? name : "(invoking)",
		    errno ? strerror(errno) : "no such user");
		return -1;
	}
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	snprintf(u->name, sizeof(u->name), "%s", pw->pw_name);
	return 0;
}

int
priv_rt_max(int conf_prio)
{
	return conf_prio > 0 ? conf_prio : sched_get_priority_max(SCHED_FIFO);
}

int
priv_rt_self(int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
		return -1;
#ifdef __SANITIZE_ADDRESS__
	/* ASan reserves terabytes of shadow memory: do not try to lock it */
	log_info("ASan build: memory not locked");
#else
	if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
		log_warn("mlockall");
#endif
	return 0;
}

/*
 * Empty every capability set, the bounding set and the ambient set.  A
 * dts that already dropped CAP_SETPCAP (restarting dts-load) cannot shrink
 * the bounding set further; it is then CAP_SYS_NICE at most, and the
 * locked securebits keep exec from granting it.
 */
static int
drop_all_caps(void)
{
	cap_t none;
	int rc;

	for (cap_value_t c = 0; c <= CAP_LAST_CAP; c++)
		if (CAP_IS_SUPPORTED(c) && cap_drop_bound(c) < 0 &&
		    errno != EINVAL && errno != EPERM)
			return -1;
	if (cap_reset_ambient() < 0 && errno != EINVAL)
		return -1;
	if ((none = cap_init()) == NULL)
		return -1;
	rc = cap_set_proc(none);
	cap_free(none);
	return rc;
}

#define SECBITS_ROOT_POWERLESS (SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | \
	SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED)

/* uid 0 must not get capabilities back on exec. */
static int
lock_root_powerless(int extra)
{
	int sb = prctl(PR_GET_SECUREBITS);

	if (sb < 0)
		return -1;
	if ((sb & (SECBITS_ROOT_POWERLESS | extra)) == (SECBITS_ROOT_POWERLESS | extra))
		return 0;
	return prctl(PR_SET_SECUREBITS, sb | SECBITS_ROOT_POWERLESS | extra);
}

int
priv_child_become(const struct priv_user *u, int policy, int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	if (sched_setscheduler(0, policy, &sp) < 0)
		return -1;
	munlockall();
	if (geteuid() == 0) {
		if (lock_root_powerless(0) < 0)
			return -1;
		if (u->uid != 0) {
			if (initgroups(u->name, u->gid) < 0 ||
			    setresgid(u->gid, u->gid, u->gid) < 0 ||
			    setresuid(u->uid, u->uid, u->uid) < 0)
				return -1;
		}
	}
	return drop_all_caps();
}

static int
drop_bound_except(const cap_value_t *keep, int n)
{
	for (cap_value_t c = 0; c <= CAP_LAST_CAP; c++) {
		int wanted = 0;
		for (int i = 0; i < n; i++)
			wanted |= keep[i] == c;
		if (!wanted && CAP_IS_SUPPORTED(c) && cap_drop_bound(c) < 0 &&
		    errno != EINVAL)
			return -1;
	}
	return 0;
}

static int
keep_caps(const cap_value_t *keep, int n)
{
	cap_t caps;
	int rc;

	if ((caps = cap_init()) == NULL)
		return -1;
	rc = cap_set_flag(caps, CAP_PERMITTED, n, keep, CAP_SET) |
	    cap_set_flag(caps, CAP_EFFECTIVE, n, keep, CAP_SET);
	if (rc == 0)
		rc = cap_set_proc(caps);
	cap_free(caps);
	return rc;
}

int
priv_drop_self(const struct priv_user *u, uid_t gang_uid)
{
	cap_value_t keep[2] = { CAP_SYS_NICE, CAP_KILL };
	/* the gang belongs to someone else: need CAP_KILL too */
	int n = u->uid == gang_uid ? 1 : 2;

	if (geteuid() == 0 && lock_root_powerless(SECBIT_KEEP_CAPS) < 0)
		return -1;
	if (drop_bound_except(keep, n) < 0)
		return -1;
	if (geteuid() == 0) {
		if (u->uid != 0 && (setgroups(0, NULL) < 0 ||
		    setresgid(u->gid, u->gid, u->gid) < 0 ||
		    setresuid(u->uid, u->uid, u->uid) < 0))
			return -1;
	}
	return keep_caps(keep, n);
}

void
priv_log_caps(const char *who)
{
	cap_t caps = cap_get_proc();
	char *text = caps ? cap_to_text(caps, NULL) : NULL;

	log_info("%s: uid %d, capabilities \"%s\"", who, (int)getuid(),
	    text ? text : "?");
	cap_free(text);
	cap_free(caps);
}
