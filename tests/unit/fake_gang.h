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
	char ops[1024];   /* the calls since fake_gang_clear, space-separated:
			     stop cont rt0 rt1 idle0 idle1 release forget */
};

extern struct fake_gang fake_gang;

/* An empty gang (not stopped, not RT, not idle) and an empty log. */
void fake_gang_init(struct gang *g);

/* The log so far, then empty it. */
const char *fake_gang_ops(void);
void fake_gang_clear(void);

#endif /* DTS_FAKE_GANG_H */
