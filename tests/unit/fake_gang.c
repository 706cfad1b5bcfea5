/*
 * fake_gang.c - the gang of dts/gang.h, recorded instead of done.  See
 * fake_gang.h.  It keeps the state the scheduler reads (g->stopped) as
 * dts/gang.c does; everything else is only written down.
 */
#include <stdio.h>
#include <string.h>

#include "fake_gang.h"

struct fake_gang fake_gang;

static void
op(const char *what)
{
	size_t n = strlen(fake_gang.ops);

	snprintf(fake_gang.ops + n, sizeof(fake_gang.ops) - n, "%s%s",
	    n > 0 ? " " : "", what);
}

void
fake_gang_init(struct gang *g)
{
	memset(g, 0, sizeof(*g));
	g->freeze_fd = -1;
	g->procs_fd = -1;
	fake_gang_clear();
}

const char *
fake_gang_ops(void)
{
	static char copy[sizeof(fake_gang.ops)];

	memcpy(copy, fake_gang.ops, sizeof(copy));
	fake_gang_clear();
	return copy;
}

void
fake_gang_clear(void)
{
	fake_gang.ops[0] = '\0';
}

int
gang_stop(struct gang *g)
{
	op("stop");
	g->stopped = 1;
	return 0;
}

int
gang_cont(struct gang *g)
{
	op("cont");
	g->stopped = 0;
	return 0;
}

void
gang_set_rt(struct gang *g, int rt)
{
	op(rt ? "rt1" : "rt0");
	g->rt = rt;
}

void
gang_set_idle(struct gang *g, int idle)
{
	op(idle ? "idle1" : "idle0");
	g->idle = idle;
}

int
gang_can_idle(const struct gang *g, char *why, size_t len)
{
	(void)g;
	if (!fake_gang.can_idle)
		snprintf(why, len, "the fake says no");
	return fake_gang.can_idle;
}

void
gang_release(struct gang *g)
{
	op("release");
	g->stopped = g->rt = g->idle = 0;
}

void
gang_forget(struct gang *g)
{
	op("forget");
	g->stopped = g->rt = g->idle = 0;
}

int
gang_members(const struct gang *g)
{
	(void)g;
	return fake_gang.members;
}
