/*
 * state_file.h - the state file's format, and the one safe way to read
 * it: shared by its writer (dts, state.c), its reader dts-state(1)
 * (state_read.c) and the tests.  dts(8), "SUSPEND AWARENESS".
 *
 * A small text file of fixed size, one "key value" a line, the numbers
 * zero-padded to STATE_DIGITS and the names space-padded to a fixed
 * width, so that a write never changes its size.
 *
 * The sequence lock.  Each write n puts n into "end", the last line,
 * first, then (after a release fence) the values, then n into "seq",
 * the first line, the low eight digits of seq last with a release
 * store.  Every store is an 8-byte word (state_publish), and the layout
 * puts the low eight digits of seq and of end each in one aligned word
 * (the lock words).  A reader maps the file and copies it (state_copy):
 * seq's lock word with an acquire load first, every other word but
 * end's, an acquire fence, then end's words.  If the two lock words
 * are equal, the copy is one write whole: a word of a later write would
 * have made end's lock word later too.  (Up to 10^8 writes while one
 * copy runs, which at 40 a second is a month; the Linux seqcount has
 * the same bound at 2^32.)
 *
 * read(2) cannot do this: the kernel's copy need not load the bytes
 * front to back (x86's rep movs does not), so a reader of the bytes that
 * read() gave cannot tell a torn file from a whole one, whatever it
 * compares.  tests/system/t59-state-stress.sh counts both rules.
 */
#ifndef DTS_STATE_FILE_H
#define DTS_STATE_FILE_H

#include <stddef.h>
#include <stdint.h>

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
	STATE_MEM_BYTES,	/* the job's memory (the node's file: every
				   job's), at dts's last look */
	STATE_SWAP_BYTES,	/* its swap, the same */
	STATE_END,		/* written first */
	STATE_FIELDS
};

#define STATE_DIGITS	20	/* every number: UINT64_MAX has 20 */
#define STATE_READ_MAX	4096	/* the file is shorter: a page */
#define STATE_WORD	8	/* the unit of every store and load */
#define STATE_LOCK_DIGITS 8	/* a lock word: seq's or end's low digits */
#define STATE_FILE_DEFAULT "/run/dts/state"	/* dts.conf: state_file */

/* Where everything is; the same for the writer and every reader. */
struct state_layout {
	size_t		 size;			/* of the file */
	size_t		 off[STATE_FIELDS];	/* where each value starts */
	size_t		 width[STATE_FIELDS];
	size_t		 seq_word;	/* seq's lock word (an index) */
	size_t		 end_line;	/* the first word of end's line */
	size_t		 end_word;	/* end's lock word */
	size_t		 words;		/* whole words; the rest is bytes */
};

void state_layout(struct state_layout *l);

/* The key of a line ("stopped_ns"); "?" past the fields. */
const char *state_key(enum state_field f);

/* The field whose key is key; -1 if none is. */
int state_field_find(const char *key);

/* The names of a field's values; NULL: its value is a number. */
const char *const *state_names(enum state_field f);

/*
 * Parse len bytes of a state file into v (the names as their index in
 * their table).  0 if every line is there, in order, and seq equals end;
 * -1 otherwise.
 */
int state_parse(const char *buf, size_t len, uint64_t v[STATE_FIELDS]);

/*
 * One try of the reader's copy of the mapped file (map: its first
 * l->size bytes, page-aligned) into buf (l->size bytes, aligned to
 * STATE_WORD).  0 if the lock words agree (the copy is one write whole),
 * -1 if a write ran meanwhile: copy again.
 */
int state_copy(const char *map, const struct state_layout *l, char *buf);

/*
 * The writer's side: buf (the whole text, aligned) into the mapping, end's
 * words, a release fence, the other words, seq's lock word last with a
 * release store.  The bytes past the last whole word (end's newline)
 * are never written again after the first publish and are stored as
 * bytes.
 */
void state_publish(char *map, const struct state_layout *l, const char *buf);

/* A reader: the file mapped read-only. */
struct state_reader {
	struct state_layout	 l;
	const char		*map;
	int			 fd;
	unsigned long		 torn;		/* copies tried again */
	int64_t			 wait_ns;	/* state_reader_read's patience */
};

#define STATE_READ_WAIT_NS	1000000000	/* 1 s */

/*
 * Open and map path (a regular file of the size of this layout).  0, or
 * -1 with a one-line err.  (If root shrinks the file while it is mapped,
 * a read gets SIGBUS: dts never does.)
 */
int state_reader_open(struct state_reader *r, const char *path, char *err,
    size_t errlen);

/*
 * One whole read into v: state_copy() again while a write runs, then
 * state_parse().  After 100 tries it sleeps 0.1 ms between them, and
 * gives up once r->wait_ns (STATE_READ_WAIT_NS) passed and it slept 100
 * times: 0, or -1 with err, the file torn for that long (its writer
 * stopped mid-write) or not a state file.
 */
int state_reader_read(struct state_reader *r, uint64_t v[STATE_FIELDS],
    char *err, size_t errlen);

void state_reader_close(struct state_reader *r);

#endif /* DTS_STATE_FILE_H */
