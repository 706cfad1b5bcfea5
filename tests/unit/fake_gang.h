/*
 * fake_gang.h - a gang for unit tests of dts's core (scheduler.c, ctl.c):
 * no cgroup, no signal, no sched_setscheduler.  Every call that would
 * touch the gang's processes is appended to a log, so a test can assert
 * what the scheduler did ("rt1 stop cont ...").  Linked instead of
 * dts/gang.c; tests/unit/fake_priv.c stands in for dts/priv.c.
 */
#ifndef DTS_FAKE_GANG_H
#define DTS_FAKE_GANG_H

#include "gang.h"

/* What may be faked: gang_can_idle's answer, gang_members' count. */
struct fake_gang {
	int  can_idle;
	int  members;
	int  held;        /* gang_held's answer (fake_gang_init: 1) */
	char ops[1024];   /* the calls since fake_gang_clear, space-separated:
			     stop cont rt0 rt1 idle0 idle1 release forget,
			     hold unhold (a template whose hold_fd is not
			     -1: a test sets it, as if base/jobs were open),
			     recheck (an idle gang's look),
			     turn (gang_rotate: a test sets g->rr.n),
			     each "NAME:op" for a named gang */
	void (*on_recheck)(void);	/* called by each look (its cost on a
					   fake clock); NULL: none */
};

extern struct fake_gang fake_gang;

/* An empty gang (not stopped, not RT, not idle) and an empty log. */
void fake_gang_init(struct gang *g);

/*
 * Several gangs (jobs): a gang named by fake_gang_name (stored in its
 * base, which nothing reads here) logs its calls as "NAME:op", and counts
 * the members fake_gang_set_members gave it (else fake_gang.members)
 * and answers gang_can_idle as fake_gang_set_can_idle said (else as
 * fake_gang.can_idle).
 * fake_gang_init forgets both.
 */
void fake_gang_name(struct gang *g, const char *name);
void fake_gang_set_members(struct gang *g, int members);
void fake_gang_set_can_idle(struct gang *g, int can_idle);

/* The log so far, then empty it. */
const char *fake_gang_ops(void);
void fake_gang_clear(void);

#endif /* DTS_FAKE_GANG_H */
