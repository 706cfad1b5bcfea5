/*
 * fake_gang.c - the gang of dts/gang.h, recorded instead of done.  See
 * fake_gang.h.  It keeps the state the scheduler reads (g->stopped) as
 * dts/gang.c does; everything else is only written down.
 */
#include <stdio.h>
#include <string.h>

#include "fake_gang.h"

struct fake_gang fake_gang;

/* fake_gang_set_*'s answers; -1: fake_gang's */
#define FAKE_GANGS	16
static struct {
	const struct gang	*g;
	int			 members, can_idle;
} counts[FAKE_GANGS];

static void
gang_op(const struct gang *g, const char *what)
{
	size_t n = strlen(fake_gang.ops);

	snprintf(fake_gang.ops + n, sizeof(fake_gang.ops) - n, "%s%s%s%s",
	    n > 0 ? " " : "", g->base, g->base[0] ? ":" : "", what);
}

#define op(what)	gang_op(g, what)

void
fake_gang_init(struct gang *g)
{
	int i;

	memset(g, 0, sizeof(*g));
	g->freeze_fd = -1;
	g->procs_fd = -1;
	g->hold_fd = -1;
	g->held_fd = -1;
	g->thaw_fd = -1;
	fake_gang.held = 1;
	for (i = 0; i < FAKE_GANGS; i++)
		if (counts[i].g == g)
			counts[i].g = NULL;
	fake_gang_clear();
}

void
fake_gang_name(struct gang *g, const char *name)
{
	snprintf(g->base, sizeof(g->base), "%s", name);
}

/* g's entry, made if need be (NULL if the table is full) */
static int
entry(const struct gang *g)
{
	int i, free = -1;

	for (i = 0; i < FAKE_GANGS; i++) {
		if (counts[i].g == g)
			return i;
		if (counts[i].g == NULL && free < 0)
			free = i;
	}
	if (free >= 0) {
		counts[free].g = g;
		counts[free].members = counts[free].can_idle = -1;
	}
	return free;
}

void
fake_gang_set_members(struct gang *g, int members)
{
	int i = entry(g);

	if (i >= 0)
		counts[i].members = members;
}

void
fake_gang_set_can_idle(struct gang *g, int can_idle)
{
	int i = entry(g);

	if (i >= 0)
		counts[i].can_idle = can_idle;
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
gang_hold(const struct gang *g, int on)
{
	op(on ? "hold" : "unhold");
	return 0;
}

int
gang_held(const struct gang *g)
{
	(void)g;
	return fake_gang.held;
}

int
gang_demote_all(const struct gang *t)
{
	if (t == NULL)
		return 0;
	gang_op(t, "demote");
	return fake_gang.members;
}

void
gang_reapply(struct gang *g)
{
	op("reapply");
	(void)g;
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

/* "turn" where dts/gang.c's would give the waiting tasks a turn: more
 * than one waits (a test sets g->rr.n), the gang runs at its own RT
 * levels, GANG_ROT_NS since the last */
int
gang_rotate(struct gang *g, int64_t now)
{
	if (g->rr.n < 2 || !g->rt || g->idle || g->fill || g->stopped ||
	    now - g->rr.at < GANG_ROT_NS)
		return 0;
	g->rr.at = now;
	op("turn");
	return 1;
}

void
gang_set_rt(struct gang *g, int rt)
{
	op(rt ? "rt1" : "rt0");
	g->rt = rt;
}

void
gang_set_fill(struct gang *g, int fill)
{
	if (g->fill == fill)	/* as gang.c: nothing to do */
		return;
	op(fill ? "fill1" : "fill0");
	g->fill = fill;
}

void
gang_set_idle(struct gang *g, int idle)
{
	op(idle ? "idle1" : "idle0");
	g->idle = idle;
}

int
gang_recheck_idle(struct gang *g)
{
	if (!g->idle || g->stopped)
		return 0;
	op("recheck");
	if (fake_gang.on_recheck != NULL)
		fake_gang.on_recheck();
	return 0;
}

int
gang_can_idle(const struct gang *g, char *why, size_t len)
{
	int i, can = fake_gang.can_idle;

	for (i = 0; i < FAKE_GANGS; i++)
		if (counts[i].g == g && counts[i].can_idle >= 0)
			can = counts[i].can_idle;
	if (!can)
		snprintf(why, len, "the fake says no");
	return can;
}

void
gang_release(struct gang *g)
{
	op("release");
	g->stopped = g->rt = g->idle = g->fill = 0;
}

void
gang_forget(struct gang *g)
{
	op("forget");
	g->stopped = g->rt = g->idle = g->fill = 0;
}

int
gang_members(const struct gang *g)
{
	int i;

	for (i = 0; i < FAKE_GANGS; i++)
		if (counts[i].g == g && counts[i].members >= 0)
			return counts[i].members;
	return fake_gang.members;
}
