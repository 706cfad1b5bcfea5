/*
 * sched_fixture.h - dts's scheduler (dts/scheduler.c) for unit tests, as
 * test_sched.c and test_state.c use it: injected clocks, a fake gang
 * (fake_gang.h), the usual real-time budget whatever this machine says.
 */
#ifndef DTS_SCHED_FIXTURE_H
#define DTS_SCHED_FIXTURE_H

#include <stdint.h>

#include "fake_gang.h"
#include "scheduler.h"

/*
 * The injected clocks (fake_mono, fake_real).  They only move forward,
 * across tests too, so that the trace ring (one per process) stays in
 * time order.
 */
extern int64_t mono_now, real_now;
int64_t fake_mono(void);
int64_t fake_real(void);
void    advance(int64_t ns);	/* both clocks */

/*
 * s, its SI 3 s, on the injected clocks; shm: the Load agent's page, or
 * NULL.  fake_gang answers that a gang can idle.  No job yet.
 */
void sched_fixture_init(struct sched *s, struct agent_shared *shm);

/* s's job "root:pvm" on g, a fresh fake gang.  0, or -1. */
int  sched_fixture_job(struct sched *s, struct gang *g);

/* What sched_fixture_init left to undo. */
void sched_fixture_fini(struct sched *s);

#endif /* DTS_SCHED_FIXTURE_H */
