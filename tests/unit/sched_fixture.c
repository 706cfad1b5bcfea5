/*
 * sched_fixture.c - the scheduler for unit tests.  See sched_fixture.h.
 */
#include <pthread.h>

#include "sched_fixture.h"
#include "timeutil.h"

int64_t mono_now = 1000 * NS_PER_SEC;
int64_t real_now = 1700000000 * NS_PER_SEC;

int64_t
fake_mono(void)
{
	return mono_now;
}

int64_t
fake_real(void)
{
	return real_now;
}

void
advance(int64_t ns)
{
	mono_now += ns;
	real_now += ns;
}

void
sched_fixture_init(struct sched *s, struct agent_shared *shm)
{
	fake_gang.can_idle = 1;
	sched_init(s, shm, 3 * NS_PER_SEC);
	s->mono = fake_mono;
	s->real = fake_real;
	/* the usual kernel budget, whatever this machine says */
	s->rt.runtime_us = 950000;
	s->rt.period_us = 1000000;
}

int
sched_fixture_job(struct sched *s, struct gang *g)
{
	fake_gang_init(g);
	return sched_job_add(s, g, "root:pvm") == 0 ? 0 : -1;
}

void
sched_fixture_fini(struct sched *s)
{
	pthread_mutex_destroy(&s->mu);
}
