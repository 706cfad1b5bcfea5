/*
 * proc.h - facts about processes and the machine from /proc.
 *
 * The gang itself is a cgroup (cgroup.h); this file only reads.
 */
#ifndef DTS_PROC_H
#define DTS_PROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Fields 3-5 of /proc/PID/stat: state, ppid, pgrp.  comm may hold spaces
 * and ')', so the line is parsed from its last ')'.  0, or -1 if the
 * process is gone.
 */
int   proc_pid_stat(pid_t pid, char *state, pid_t *ppid, pid_t *pgrp);

/* Read a small file into buf (NUL terminated); -1 if it is gone or empty. */
int   proc_read_small(const char *path, char *buf, size_t cap);

/*
 * The "Uid:" line of a /proc/PID/status text: real, effective, saved and
 * filesystem uid into uids[4].  0, or -1 if there is no such line.
 */
int   proc_parse_uids(const char *status, uid_t uids[4]);

/*
 * The cgroup v2 path (relative to the mount: "/dts/gang") from the text
 * of /proc/PID/cgroup, its "0::" line.  0, or -1 if there is none or it
 * does not fit in len.
 */
int   proc_parse_cgroup(const char *text, char *buf, size_t len);

/* The same, of process pid (0: ourselves); -1 if it is gone. */
int   proc_pid_uids(pid_t pid, uid_t uids[4]);
int   proc_pid_cgroup(pid_t pid, char *buf, size_t len);

/* /proc/PID/comm without its newline; -1 if the process is gone. */
int   proc_pid_comm(pid_t pid, char *buf, size_t len);

/*
 * The second field of /proc/PID/schedstat: the time (ns) the process's
 * main thread has waited on a run queue, runnable but not running.  0,
 * or -1 if the process is gone (or the kernel keeps no schedstat).
 */
int   proc_pid_run_delay(pid_t pid, uint64_t *ns);

/* procs_running from /proc/stat, or -1. */
int   proc_procs_running(void);

/* Online CPUs (at least 1). */
int   proc_ncpu(void);

#endif /* DTS_PROC_H */
