/*
 * state.h - the state file: what the gang got, for programs in the gang
 * that time themselves (dts(8), "SUSPEND AWARENESS").
 *
 * The format, its sequence lock and its reader: state_file.h.  dts maps
 * the file shared and the scheduler's on_phase hook (scheduler.h)
 * rewrites it in place with 8-byte stores: no system call on the edge
 * thread.  dts-run hands its path to the gang in STATE_ENV (adopt_msg.h).
 *
 * One dts a file: dts holds an flock on "<file>.lock", root's and 0600,
 * which no other user can open.  (Not on the file itself: every user
 * may open that, and flock works on a read-only descriptor.)
 */
#ifndef DTS_STATE_H
#define DTS_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "scheduler.h"
#include "state_file.h"

struct state {
	char		*map;		/* the file, mapped shared; NULL: none */
	int		 fd;
	int		 lock_fd;	/* "<file>.lock", flock()ed */
	struct state_layout l;
	uint64_t	 text[STATE_READ_MAX / sizeof(uint64_t)];
					/* what state_publish() puts there */
	uint64_t	 seq;
	uint64_t	 last[STATE_FIELDS];	/* the values written */
	uint64_t	 put;			/* writes by state_put */
	/* the counts of the file found at start-up: a new dts goes on from
	 * them, so that they never go back while the machine runs */
	uint64_t	 base_stopped, base_ps, base_ls;
};

/*
 * dts: path's directory made (0755) if missing and checked root's, then
 * state_map().  0, or -1 with a one-line err.
 */
int state_open(struct state *st, const char *path, char *err, size_t errlen);

/*
 * Create or reuse path (a regular file of ours that no other dts keeps:
 * flock on path.lock), mode 0644, sized and mapped, and write it once
 * with phase none.
 * The counts, seq and at_ns of a consistent file already there are taken
 * over.  0, or -1 with err.
 */
int state_map(struct state *st, const char *path, char *err, size_t errlen);

/* The on_phase hook of scheduler.h (arg: the struct state): the changed
 * digits into st->text, then about 40 word stores; no system call. */
void state_hook(void *arg, const struct sched *s);

/*
 * The file's values from s, with the phase, stopped and PS times and the
 * memory and swap given (the node's, or one job's): the one place that
 * fills the fields, for state_hook and the jobs' hook (jobs.c).  No
 * system call.
 */
void state_put_sched(struct state *st, const struct sched *s, int phase,
    uint64_t stopped_ns, uint64_t ps_ns, uint64_t mem, uint64_t swap);

/* Write v (v[STATE_SEQ] and v[STATE_END] are ignored: the next seq). */
void state_put(struct state *st, const uint64_t v[STATE_FIELDS]);

void state_close(struct state *st);

#endif /* DTS_STATE_H */
