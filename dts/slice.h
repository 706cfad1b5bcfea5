/*
 * slice.h - PS/LS edges on absolute deadlines (thesis Algorithm 1/5, made
 * drift free).
 *
 * PS k starts at t0 + k*IP and LS k at t0 + k*IP + PS, all CLOCK_MONOTONIC
 * nanoseconds.  The loop never sleeps for "PS": it arms a timer for the
 * next edge.  A wake-up so late that it passes further edges skips them
 * and counts each as an overrun.  Pure arithmetic: no clock, no signal.
 */
#ifndef DTS_SLICE_H
#define DTS_SLICE_H

#include <stdint.h>

struct slice {
	int64_t  t0;        /* a PS start (sync_point) */
	int64_t  ps, ip;    /* ns, 0 < ps < ip */
	int      phase;     /* PHASE_PS or PHASE_LS, as last applied */
	int64_t  deadline;  /* next edge */
	int64_t  edge;      /* index of the next edge: 2k = PS k, 2k+1 = LS k */
	uint64_t overruns;  /* edges skipped */
};

/* Where t falls: edge index of the last edge at or before t (floor). */
int64_t slice_edge_index(int64_t t0, int64_t ps, int64_t ip, int64_t t);

/* Time of edge number e. */
int64_t slice_edge_time(int64_t t0, int64_t ps, int64_t ip, int64_t e);

/*
 * sync_point: restart the loop with origin t0 (t0 may be in the past or,
 * for clock sync, slightly in the future) at time now.  Sets phase and the
 * next deadline; returns the phase to apply now.
 */
int slice_sync(struct slice *s, int64_t t0, int64_t ps, int64_t ip, int64_t now);

/*
 * The timer fired at now (>= s->deadline, or early by a spurious wake-up).
 * Returns the phase that applies at now and moves deadline to the next
 * edge; counts skipped edges in s->overruns.  *edges_crossed gets how many
 * edges passed (0 for a spurious early wake-up).
 */
int slice_advance(struct slice *s, int64_t now, int *edges_crossed);

/*
 * The freeze lead (ns): how much before its time an LS edge freezes the
 * gangs, from the last n freeze times f[] (ns from the LS edge to every
 * task frozen).  The kernel freezes a task when it next runs, and wakes
 * a sleeping one to do so: a job of many members, spinning or asleep,
 * takes a while, and that time is the job's, never the local users'.
 * So: the largest time, a quarter more (a freeze that the lead misses
 * comes out of the LS: the owner first), if it is more than 1/SLICE_LEAD_FLOOR of the IP (half a point: less costs
 * the LS nothing worth a cut of the PS); at most half the PS (its last
 * slot's jobs pay).  0 for fewer than SLICE_LEAD_MIN times.  A freeze
 * longer than half the PS takes the rest from the LS: the job's tasks
 * are bounded (max_tasks, dts(8) JOB SIZE).
 */
#define SLICE_LEAD_MIN 3
#define SLICE_LEAD_FLOOR 200
int64_t slice_lead(const int64_t *f, int n, int64_t ps, int64_t ip);

/* Phase of an edge index. */
static inline int slice_edge_phase(int64_t e) { return (e & 1) ? 2 /* LS */ : 1 /* PS */; }

#endif /* DTS_SLICE_H */
