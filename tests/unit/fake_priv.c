/*
 * fake_priv.c - priv_rt_thread of dts/priv.h for unit tests: a plain
 * thread at the caller's policy, so that make check needs no privilege
 * and no real-time budget.
 */
#include <errno.h>
#include <pthread.h>

#include "priv.h"

int
priv_rt_thread(pthread_t *t, int prio, void *(*fn)(void *), void *arg)
{
	int rc;

	(void)prio;
	rc = pthread_create(t, NULL, fn, arg);
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	return 0;
}
