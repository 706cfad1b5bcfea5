/*
 * sample.h - the run-queue samples of one load interval (LI).
 *
 * Thesis 2.1.2: the ready-queue length is sampled every second, and only
 * while the gang is stopped (LS), so PVM tasks never count as local load.
 * When DTS is not slicing (hpdt, off, stopped), and in an LS where the
 * gang runs at SCHED_IDLE (ls_policy idle), the gang's runnable members
 * are subtracted instead; during PS no sample is taken at all.
 *
 * Pure functions: the caller reads /proc and the shared page and passes the
 * numbers in, so everything here is unit-testable.
 */
#ifndef DTS_SAMPLE_H
#define DTS_SAMPLE_H

/* The samples of one interval. */
struct sample_acc {
	double   sum;
	unsigned n;
};

void sample_reset(struct sample_acc *acc);
void sample_add(struct sample_acc *acc, double value);

/*
 * Mean of the samples into *q.  Returns the number of samples, 0 if there
 * were none (then *q is untouched and Q stays as it is for this interval).
 */
unsigned sample_mean(const struct sample_acc *acc, double *q);

/* What a sample tick does in a given phase. */
enum sample_kind {
	SAMPLE_SKIP = 0,      /* PS (or unknown phase): take no sample */
	SAMPLE_GANG_STOPPED,  /* LS: the gang is off the run queue */
	SAMPLE_GANG_RUNS      /* not slicing: subtract the gang's runnable members */
};

/* Kind of sample for enum proto_phase phase; ls_idle: the gang runs at
 * SCHED_IDLE in LS (ls_policy idle), so its runnable members are
 * subtracted there too. */
enum sample_kind sample_kind(unsigned phase, int ls_idle);

/*
 * The local run-queue length for one tick:
 *
 *   max(0, procs_running - 1 - (kind == SAMPLE_GANG_RUNS ? gang_runnable : 0))
 *
 * (the 1 is dts-load itself, running while it reads /proc/stat), divided by
 * ncpu if per_cpu.  Returns 1 with *value set, or 0 for no sample (kind
 * SAMPLE_SKIP, or procs_running < 0 because /proc/stat could not be read).
 */
int sample_runq(enum sample_kind kind, int procs_running, int gang_runnable,
    int ncpu, int per_cpu, double *value);

#endif /* DTS_SAMPLE_H */
