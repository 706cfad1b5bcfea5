/*
 * plan.h - a placement: the answer to a spawn's request (layer.h), from
 * the hosts' loads (poll.h) and their goodness (goodness.h), with the
 * record of each decision and the per-host counters (dts-place(1),
 * PLACEMENT RECORD).  dts-place serves a program's libdtsplace.so with
 * it; dts-console's spawn asks it in-process.
 */
#ifndef DTS_PLACE_PLAN_H
#define DTS_PLACE_PLAN_H

#include <stdint.h>
#include <sys/types.h>

#include "conf.h"
#include "poll.h"

struct placer {
	struct hosts	 t;
	char		 record[512];
	pid_t		 pid;         /* the record's PID column */
	int		 fresh;       /* wait for reports newer than the spawn */
	int		 circle_said;
	char		 circle_why[320]; /* said at the first circle */
	int		 start;       /* where PVM's circle would go next */
	int64_t		 wait_ns;
	int64_t		 interval_ns;
	uint64_t	 spawns, circles, tasks;
	/* the last decision's hosts, recorded once the caller says which
	 * tids they got (TIDS), or at the next spawn or the end without */
	struct {
		char		 file[256];
		int64_t		 at;
		int		 n;
		int		 cnt[PLACE_HOSTS_MAX];
		struct place_host h[PLACE_HOSTS_MAX];
	} pend;
};

/* From the configuration, job (our own, for the hosts' gang counts) and
 * the record's path; 0, or -1 with err. */
int  placer_init(struct placer *p, const struct dts_conf *c, const char *job,
    const char *record, pid_t pid, char *err, size_t errlen);

/*
 * The reply to req (cut up) into out: its length, or -1 if it does not
 * fit.  At the first "CIRCLE" reply, circle_said becomes 1 and circle_why
 * says why (logged at info, and then at debug only).
 */
int  placer_decide(struct placer *p, char *req, char *out, size_t cap);

/* The pending decision into the record, each host with the tids that msg
 * ("HOST TID ..." lines, TIDS's body; NULL: none known) gives it. */
void placer_flush(struct placer *p, char *msg);

void placer_fini(struct placer *p);

#endif /* DTS_PLACE_PLAN_H */
