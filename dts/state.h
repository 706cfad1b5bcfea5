/*
 * state.h - the state file: what the gang got, for programs in the gang
 * that time themselves (dts(8), "SUSPEND AWARENESS").
 *
 * A small text file of fixed size, one "key value" a line, the numbers
 * zero-padded to STATE_DIGITS and the names space-padded to their table's
 * longest, so that a write never changes its size.  dts maps it shared
 * and the scheduler's on_phase hook (scheduler.h) rewrites it in place with
 * plain stores: no system call on the edge thread.  dts-run hands its
 * path to the gang in STATE_ENV (adopt_msg.h).
 *
 * A sequence lock a reader checks from one read front to back: the
 * writer stores the new number into "end", the last line, first, then
 * the values, then the same number into "seq", the first line, with a
 * release fence between the three.  A reader that read seq first and end
 * last, and found them equal, read one write whole; else it reads again.
 * (The other way round, seq first, a reader that read the old end could
 * not tell a write that began after it read seq.)
 */
#ifndef DTS_STATE_H
#define DTS_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "scheduler.h"

/* The lines, in the file's order. */
enum state_field {
	STATE_SEQ = 0,		/* written last */
	STATE_PHASE,		/* proto_phase_names */
	STATE_LS_POLICY,	/* conf_ls_policy_names */
	STATE_MODE,		/* proto_mode_names */
	STATE_PS_US,		/* the PS in force, us */
	STATE_IP_US,
	STATE_STOPPED_NS,	/* the gang stopped or frozen, any cause */
	STATE_PS_NS,		/* slicing, in PS */
	STATE_LS_NS,		/* slicing, in LS */
	STATE_AT_NS,		/* CLOCK_MONOTONIC: the three counted to here */
	STATE_END,		/* written first */
	STATE_FIELDS
};

#define STATE_DIGITS	20	/* every number: UINT64_MAX has 20 */
#define STATE_READ_MAX	4096	/* the file is shorter: one read gets it */

struct state {
	char		*map;		/* the file, mapped shared; NULL: none */
	int		 fd;		/* flock()ed: one dts a file */
	size_t		 size;
	size_t		 off[STATE_FIELDS];	/* where each value starts */
	size_t		 width[STATE_FIELDS];
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
 * flock), mode 0644, sized and mapped, and write it once with phase none.
 * The counts, seq and at_ns of a consistent file already there are taken
 * over.  0, or -1 with err.
 */
int state_map(struct state *st, const char *path, char *err, size_t errlen);

/* The on_phase hook of scheduler.h (arg: the struct state): a few hundred
 * plain stores, no system call. */
void state_hook(void *arg, const struct sched *s);

/* Write v (v[STATE_SEQ] and v[STATE_END] are ignored: the next seq). */
void state_put(struct state *st, const uint64_t v[STATE_FIELDS]);

/*
 * Parse len bytes of a state file into v (the names as their index in
 * their table).  0 if every line is there, in order, and seq equals end;
 * -1 otherwise (a torn read: read again).
 */
int state_parse(const char *buf, size_t len, uint64_t v[STATE_FIELDS]);

/* The key of a line ("stopped_ns"). */
const char *state_key(enum state_field f);

void state_close(struct state *st);

#endif /* DTS_STATE_H */
