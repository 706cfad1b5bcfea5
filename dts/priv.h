/*
 * priv.h - real-time priority and privileges of dts and its children.
 *
 * dts starts as root (or with file capabilities), promotes itself to
 * SCHED_FIFO and locks its memory, starts its children at their RT
 * priorities, then keeps only CAP_SYS_NICE (and CAP_KILL when the gang
 * runs under another uid).  pvmd and dts-load run as the pvmd user with no
 * capabilities at all, even when that user is root.
 */
#ifndef DTS_PRIV_H
#define DTS_PRIV_H

#include <sys/types.h>

struct priv_user {
	uid_t uid;
	gid_t gid;
	char  name[64];
};

/* "" = the invoking (real) user.  0 or -1 with err. */
int  priv_user_lookup(const char *name, struct priv_user *u, char *err, size_t errlen);

/* SCHED_FIFO prio for the caller + mlockall (a failure to lock only warns). */
int  priv_rt_self(int prio);

/* Resolve rt_priority 0 to the maximum SCHED_FIFO priority. */
int  priv_rt_max(int conf_prio);

/*
 * In a forked child, before exec: set the scheduling policy, become u and
 * drop every capability so that exec gives none back (uid 0 included).
 * Returns 0 or -1 (errno set); the child should then _exit.
 */
int  priv_child_become(const struct priv_user *u, int policy, int prio);

/*
 * dts after its children are started: become u (if root) and keep only
 * CAP_SYS_NICE, plus CAP_KILL if the gang runs as another uid.
 */
int  priv_drop_self(const struct priv_user *u, uid_t gang_uid);

/* One line naming the effective capabilities, for the log. */
void priv_log_caps(const char *who);

#endif /* DTS_PRIV_H */
