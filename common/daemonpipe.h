/*
 * daemonpipe.h - daemonize through a pipe (dts -d, dts-master -d): the
 * parent exits only when the child says it is ready, or with the child's
 * reason when it cannot start, so that start-up errors reach the shell
 * that started it.
 *
 * The child writes lines to the pipe: "ready" (the parent exits 0), "+"
 * and news (the parent prints "PROG: NEWS" on stdout), or any other
 * line, a reason (the parent prints "PROG: LINE" on stderr and exits 1
 * once the pipe closes).  A child that ends without a word makes
 * the parent say how it ended.
 */
#ifndef DTS_COMMON_DAEMONPIPE_H
#define DTS_COMMON_DAEMONPIPE_H

#define DAEMONPIPE_READY	"ready"

/*
 * Fork; the parent waits as above (at most wait_s seconds: then it says
 * that pid is not `what` yet and exits 1) and never returns.  The child
 * is in a new session, in /, with /dev/null as its stdio and SIGPIPE
 * ignored, and gets the pipe's end: an fd, or -1 (errno) if the fork or
 * the pipe failed (the caller is then still in the foreground).
 */
int daemonpipe_detach(const char *prog, int wait_s, const char *what);

/* A line to the waiting parent (fd -1: nothing). */
void daemonpipe_say(int fd, const char *msg);

/* Ready: "ready" to the parent and the pipe closed; *fd becomes -1. */
void daemonpipe_ready(int *fd);

#endif /* DTS_COMMON_DAEMONPIPE_H */
