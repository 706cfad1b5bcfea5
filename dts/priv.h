/*
 * priv.h - real-time priority and privileges of dts and dts-load.
 *
 * dts is a system service started by root.  It promotes itself to
 * SCHED_FIFO, locks its memory, binds its sockets and creates its cgroup
 * subtree, then keeps only CAP_SYS_NICE and CAP_KILL (the gang belongs to
 * another uid) and becomes non-dumpable.  It stays uid 0, so the gang's
 * user can neither signal nor ptrace it.  dts-load gets the same two
 * capabilities through the ambient set, at every restart.
 */
#ifndef DTS_PRIV_H
#define DTS_PRIV_H

#include <pthread.h>
#include <stddef.h>

/* SCHED_FIFO prio for the caller + mlockall (a failure to lock only warns). */
int  priv_rt_self(int prio);

/* A thread's stack: mlockall locks all of it. */
#define PRIV_THREAD_STACK (256 * 1024)
/* dts's locked memory, at least (priv_rt_self raises RLIMIT_MEMLOCK) */
#define PRIV_MEMLOCK	(32 << 20)

/* Start fn(arg) on a new thread at SCHED_FIFO prio.  0, or -1 (errno). */
int  priv_rt_thread(pthread_t *t, int prio, void *(*fn)(void *), void *arg);

/* Move the calling thread to SCHED_FIFO prio.  0, or -1 (errno). */
int  priv_lower_self(int prio);

/* Resolve rt_priority 0 to the maximum SCHED_FIFO priority. */
int  priv_rt_max(int conf_prio);

/* Started by root (real and effective uid 0)?  0, or -1 with err. */
int  priv_check_root(char *err, size_t errlen);

/*
 * dts once set up: keep CAP_SYS_NICE and CAP_KILL (bounding, permitted,
 * effective, inheritable), uid 0 powerless beyond them across exec, and
 * not dumpable.  0 or -1.
 */
int  priv_drop_self(void);

/*
 * In the forked dts-load child, before exec: SCHED_FIFO prio, unlocked
 * memory, and the two capabilities raised in the ambient set so exec keeps
 * them.  0 or -1 (errno set).
 */
int  priv_child_agent(int prio);

/* One line naming the effective capabilities, for the log. */
void priv_log_caps(const char *who);

#endif /* DTS_PRIV_H */
