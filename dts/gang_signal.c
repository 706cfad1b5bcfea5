/*
 * gang_signal.c - the thesis's backend: SIGSTOP/SIGCONT, now to every
 * member of the gang cgroup rather than to pvmd's process group, so a
 * task that called setsid() is stopped too.  About 1.5 us per member here
 * (shared/reference/limits.md).  A stray SIGCONT from a member can undo a
 * stop until the next edge; the freezer backend cannot be undone.
 */
#include <signal.h>

#include "gang.h"

static int
sig_open(struct gang *g)
{
	return 0;
}

static int
sig_stop(struct gang *g)
{
	return cg_signal_all(g->cg, SIGSTOP);
}

static int
sig_cont(struct gang *g)
{
	return cg_signal_all(g->cg, SIGCONT);
}

static void
sig_close(struct gang *g)
{
	(void)cg_signal_all(g->cg, SIGCONT);
}

const struct gang_backend gang_signal_backend = {
	.name = "signal",
	.open = sig_open,
	.stop = sig_stop,
	.cont = sig_cont,
	.close = sig_close,
};
