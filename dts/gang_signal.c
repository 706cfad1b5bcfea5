/*
 * gang_signal.c - the thesis's backend: SIGSTOP/SIGCONT, now to every
 * member of the gang cgroup rather than to pvmd's process group, so a
 * task that called setsid() is stopped too.  A stray SIGCONT from a
 * member can undo a stop until the next edge; the freezer cannot be
 * undone.
 *
 * The edge path keeps cgroup.procs open and re-reads it with pread (a
 * few microseconds).  Stop: read, SIGSTOP each member, read again until a pass
 * finds nobody new (a member may fork between our read and its signal; a
 * stopped one cannot).  Continue: SIGCONT the members the last stop
 * found, without a read: they were stopped, so none of them can have
 * exited and given its pid away unless its parent lives outside the gang.
 * A process adopted or joined during LS is stopped at once and counted
 * with them (sig_join).  The members a stop found are the gang's own
 * (struct gang's sig_stopped): with several jobs, a stop of one must not
 * forget the members of another that it continues later.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "gang.h"
#include "log.h"

#define SWEEPS 64	/* stop: passes before we give up on a fork storm */

static struct {
	char		*text;	/* cgroup.procs as read (by one gang at a time) */
	size_t		 cap;
} m;

static int
sig_open(struct gang *g)
{
	if ((g->procs_fd = cg_open(g->cg, "cgroup.procs", O_RDONLY)) == -1) {
		log_warn("signal backend: %s/cgroup.procs", g->cg);
		return -1;
	}
	return 0;
}

/* cgroup.procs into m.text; grows the buffer until the whole file fits. */
static int
read_procs(struct gang *g)
{
	ssize_t	 n;

	for (;;) {
		if (m.cap == 0 || (n = pread(g->procs_fd, m.text, m.cap - 1,
		    0)) == (ssize_t)m.cap - 1) {
			size_t cap = m.cap ? m.cap * 2 : 4096;
			char *t = realloc(m.text, cap);
			if (t == NULL)
				return -1;
			m.text = t;
			m.cap = cap;
			continue;
		}
		if (n == -1)
			return -1;
		m.text[n] = '\0';
		return 0;
	}
}

/* One pass: SIGSTOP every member not yet stopped.  New ones, or -1. */
static int
stop_pass(struct gang *g)
{
	const char	*p;
	int		 fresh = 0;

	if (read_procs(g) == -1)
		return -1;
	for (p = m.text; *p != '\0'; p++) {
		pid_t pid = 0;
		while (*p >= '0' && *p <= '9')
			pid = pid * 10 + (*p++ - '0');
		if (pid > 0) {
			int added = pidset_add(&g->sig_stopped, pid);
			if (added != 0)
				(void)kill(pid, SIGSTOP);
			if (added > 0)
				fresh++;
		}
		if (*p == '\0')
			break;
	}
	return fresh;
}

static int
sig_stop(struct gang *g)
{
	int	 fresh;

	g->sig_stopped.n = 0;
	for (int pass = 0; pass < SWEEPS; pass++)
		if ((fresh = stop_pass(g)) <= 0)
			return fresh;
	errno = EAGAIN;
	return -1;
}

static int
sig_cont(struct gang *g)
{
	for (int i = 0; i < g->sig_stopped.n; i++)
		(void)kill(g->sig_stopped.pid[i], SIGCONT);
	g->sig_stopped.n = 0;
	return 0;
}

/* A newcomer during LS: stopped now, continued with the others. */
static void
sig_join(struct gang *g, pid_t pid)
{
	if (pidset_add(&g->sig_stopped, pid) >= 0)	/* else never continued */
		(void)kill(pid, SIGSTOP);
}

static void
sig_close(struct gang *g)
{
	free(g->sig_stopped.pid);
	g->sig_stopped = (struct pidset){ NULL, 0, 0 };
	(void)cg_cont_stopped(g->cg);
}

const struct gang_backend gang_signal_backend = {
	.name = "signal",
	.open = sig_open,
	.stop = sig_stop,
	.cont = sig_cont,
	.close = sig_close,
	.join = sig_join,
};
