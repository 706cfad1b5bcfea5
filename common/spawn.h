/*
 * spawn.h - start a program as a child process, the one way dts, dts-run
 * and dts-console do it.
 *
 * Every signal is blocked around fork(), so that no handler of the parent
 * runs in the child and a signal sent meanwhile waits for the parent.  The
 * child sets every disposition back to SIG_DFL (SIG_IGN would survive
 * exec), empties its signal mask, runs the caller's set-up, execs, and
 * calls _exit(127) if it cannot.  A child that fails says why over a
 * close-on-exec pipe, so the caller can report "cannot run /path: exec:
 * Permission denied" instead of an exit status.
 */
#ifndef DTS_SPAWN_H
#define DTS_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

#define SPAWN_EXIT_FAIL 127	/* the child's status if it cannot exec */

/*
 * The caller's set-up, in the child just before exec (fds, priorities,
 * setsid).  NULL when done, or the name of the step that failed, with
 * errno set.  The parent may have threads: between fork and exec only
 * async-signal-safe calls are sure to work.
 */
typedef const char *(*spawn_setup_fn)(void *arg);

/*
 * Run path with argv (argv[0] included, NULL terminated) in a child;
 * setup may be NULL.  Returns once the child has exec'd: its pid, or -1
 * with one line in err ("fork: ...", or "cannot run PATH: STEP: REASON"
 * once the child has been reaped).
 */
pid_t spawn(const char *path, char *const argv[], spawn_setup_fn setup,
    void *arg, char *err, size_t errlen);

/* stdin, stdout and stderr to /dev/null (a daemon's).  0, or -1. */
int   spawn_devnull(void);

#endif /* DTS_SPAWN_H */
