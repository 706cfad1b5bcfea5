/*
 * smooth.h - the load index of thesis 2.1.2, equation 2.1: exponential
 * smoothing of the per-interval run-queue means, and the threshold test
 * that decides when a new value is worth reporting.  Pure arithmetic.
 *
 *   Q_i = Q_{i-1} * d + q_i * (1 - d),  Q_0 = 0,  d = exp(-LI / W)
 *
 * The thesis writes d = exp(-P) with P = 1/(LI*N) and calls that a window
 * of LI*N = 60 s; applied every LI = 10 s it is really a ~600 s window.
 * DTS implements the stated 60 s window: d = exp(-1/6) for the defaults.
 */
#ifndef DTS_SMOOTH_H
#define DTS_SMOOTH_H

#include <stdint.h>

/* Differences this close to the threshold count as reaching it. */
#define SMOOTH_EPS 1e-9

struct smooth {
	double q;             /* Q_i, the current load index */
	double d;             /* decay per interval, exp(-LI/W) */
	double last_reported; /* Q at the last report (0 until then) */
	double threshold;     /* Load_Threshold */
};

/*
 * Start at Q_0 = 0 with d = exp(-li_ns / w_ns).  A non-positive LI or W
 * turns smoothing off (d = 0: Q follows q).
 */
void smooth_init(struct smooth *s, int64_t li_ns, int64_t w_ns,
    double threshold);

/* Fold one interval's mean q into Q; returns the new Q. */
double smooth_update(struct smooth *s, double q);

/*
 * 1 if |Q - Q_last_reported| >= threshold, else 0.  It compares against
 * the last REPORTED value, not the previous Q, so a slow drift is reported
 * once it adds up (the thesis compares consecutive values, and its
 * Algorithm 2 writes "<=" for ">=").
 */
int smooth_should_report(const struct smooth *s);

/* Remember the current Q as the last reported one. */
void smooth_mark_reported(struct smooth *s);

#endif /* DTS_SMOOTH_H */
