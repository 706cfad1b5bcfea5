/*
 * sample.c - run-queue samples and their mean over one load interval.
 * See sample.h.
 */
#include "proto.h"
#include "sample.h"

void
sample_reset(struct sample_acc *acc)
{
	acc->sum = 0.0;
	acc->n = 0;
}

void
sample_add(struct sample_acc *acc, double value)
{
	acc->sum += value;
	acc->n++;
}

unsigned
sample_mean(const struct sample_acc *acc, double *q)
{
	if (acc->n == 0)
		return 0;
	*q = acc->sum / acc->n;
	return acc->n;
}

enum sample_kind
sample_kind(unsigned phase, int ls_idle)
{
	switch (phase) {
	case PHASE_LS:
		return ls_idle ? SAMPLE_GANG_RUNS : SAMPLE_GANG_STOPPED;
	case PHASE_NONE:
		return SAMPLE_GANG_RUNS;
	default:
		return SAMPLE_SKIP;
	}
}

int
sample_runq(enum sample_kind kind, int procs_running, int gang_runnable,
    int ncpu, int per_cpu, double *value)
{
	int n;

	if (kind == SAMPLE_SKIP || procs_running < 0)
		return 0;
	n = procs_running - 1;
	if (kind == SAMPLE_GANG_RUNS && gang_runnable > 0)
		n -= gang_runnable;
	if (n < 0)
		n = 0;
	*value = per_cpu && ncpu > 1 ? (double)n / ncpu : (double)n;
	return 1;
}
