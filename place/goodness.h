/*
 * goodness.h - where a spawn's tasks go: each host's goodness from its
 * reported load, and the plan of a spawn (dts-place(1), seed 004's
 * "Distributed Scheduler" with Schnor's reserve for the owner).
 *
 * A host's goodness is the CPU a new task would get there, in units of a
 * CPU of speed 1:
 *
 *   goodness = W * ncpu / (1 + load_weight * Q * ncpu
 *                            + rt_weight * (other jobs' gang members)
 *                            + own tasks there)
 *
 * Q is the smoothed index of dts-load (per CPU), with a history factor
 * over the reports; own tasks are the members of our own job on the host,
 * plus the tasks dts-place sent there since its last trusted report (a
 * report that came sooner than place.stale after a spawn there is not
 * trusted over dts-place's own count).  Tiers, best first:
 *   1. candidates with room (their runnable count under ncpu);
 *   2. hosts with no report (no load known);
 *   3. candidates without room;
 *   4. hosts whose owner is active (a logged-in user and a local load
 *      over place.reserve, place.checks reports in a row): placed last.
 * Never placed: a host whose free RAM is under place.mem_min, and a host
 * whose runnable count was over the hosts' mean by place.threshold for
 * place.checks reports in a row (the participation policy).  Within a
 * tier, the best goodness; ties go round the circle.  No host known, or
 * none that may take a task: the plan says so, and PVM's circle places.
 */
#ifndef DTS_PLACE_GOODNESS_H
#define DTS_PLACE_GOODNESS_H

#include <stdint.h>

struct place_conf {
	double   history;
	double   threshold;
	double   reserve;
	double   load_weight;
	double   rt_weight;
	uint32_t mem_min_mib;
	int      checks;
	int64_t  stale_ns;
};

enum place_class {
	PC_CAND = 0,   /* a candidate */
	PC_UNKNOWN,    /* no report yet */
	PC_OWNER,      /* owner active: placed last */
	PC_OVER,       /* over the participation threshold: left out */
	PC_RAM,        /* free RAM under place.mem_min: left out */
	PC_COUNT
};
extern const char *const place_class_names[];

#define PLACE_NAME_LEN 64

struct place_host {
	char     name[PLACE_NAME_LEN];
	double   w;           /* speed weight (PVM's sp= / 1000) */
	/* from the reports */
	int      known;       /* a report arrived */
	double   q;           /* Q per CPU, with the history factor */
	int      ncpu;        /* >= 1 */
	uint32_t mem_mib;     /* 0 = unknown */
	int      users;
	int      rt;          /* members of other jobs' gangs */
	int      own;         /* members of our job's gang (tasks, no pvmd) */
	int64_t  report_ns;   /* when the last report arrived */
	int      over_n;      /* reports in a row over the threshold */
	int      owner_n;     /* reports in a row with the owner active */
	/* dts-place's own count */
	int64_t  spawn_ns;    /* last spawn there, 0 none */
	int      placed;      /* tasks sent there since the last trusted
				 report */
	uint64_t total;       /* tasks placed there since dts-place began */
	/* the last evaluation */
	enum place_class cls;
	double   good;
	double   runnable;
};

/* What one report of a host says (a STATUS). */
struct place_report {
	double   q;           /* load_milli / 1000 */
	int      ncpu;        /* 0 = unknown (1 is used) */
	uint32_t mem_mib;
	int      users;
	int      rt;
	int      own;
};

/*
 * Take a report of h that arrived at now: the history factor and the own
 * count (trusted when it came place.stale after the last spawn there).
 */
void place_take(struct place_host *h, const struct place_conf *c,
    const struct place_report *r, int64_t now);

/*
 * The repeated checks after a report of h: over the threshold (mean: the
 * hosts' mean runnable count, place_mean, once every host has reported;
 * NAN before: not counted) and owner active.
 */
void place_check(struct place_host *h, const struct place_conf *c,
    double mean);

/* The runnable count of a host now, and the mean over the known hosts
 * that have free RAM enough, but h[skip] (-1: none skipped); NAN if
 * there is none. */
double place_runnable(const struct place_host *h, const struct place_conf *c);
double place_mean(const struct place_host *h, int n, int skip,
    const struct place_conf *c);

/* Class and goodness of every host into h[i].cls, .good, .runnable. */
void place_eval(struct place_host *h, int n, const struct place_conf *c);

/*
 * The plan of a spawn of ntask tasks over h[0..n): the host index of each
 * task into out[0..ntask), counted into h[].placed, .total, .spawn_ns (at
 * now).  start: where the circle begins (ties).  Returns ntask, or -1 if
 * no load is known or no host may take a task (*why says which); then
 * nothing is counted.
 */
int place_plan(struct place_host *h, int n, const struct place_conf *c,
    int ntask, int start, int64_t now, int *out, const char **why);

/*
 * Whether PVM's circle, in one call, spawns as well as the plan that gives
 * cnt[0..u) tasks to u hosts, ntask in all, over the n hosts of the VM,
 * h[0..n) as they were before it: every host gets ntask / n tasks, or one
 * more, and where some get one more, the hosts are as good as each other
 * (class and goodness), so that it does not matter which.
 */
int place_same_as_circle(const struct place_host *h, int n, const int *cnt,
    int u, int ntask);

#endif
