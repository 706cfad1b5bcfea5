/*
 * gang_signal.c - the thesis's backend: killpg(pgid, SIGSTOP | SIGCONT).
 * About 1.5 us per member here (shared/reference/limits.md).  A stray
 * SIGCONT from elsewhere can undo a stop until the next edge.
 */
#include <signal.h>

#include "gang.h"

static int
sig_nothing(struct gang *g)
{
	return 0;
}

static int
sig_stop(struct gang *g)
{
	return killpg(g->pgid, SIGSTOP);
}

static int
sig_cont(struct gang *g)
{
	return killpg(g->pgid, SIGCONT);
}

static void
sig_detach(struct gang *g)
{
	killpg(g->pgid, SIGCONT);
}

const struct gang_backend gang_signal_backend = {
	.name = "signal",
	.prepare = sig_nothing,
	.attach = sig_nothing,
	.stop = sig_stop,
	.cont = sig_cont,
	.detach = sig_detach,
};
