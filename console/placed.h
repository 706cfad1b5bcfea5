/*
 * placed.h - where dts-place(1) put each task and why, from its placement
 * record, for the console's `tasks` (dts-console(1), PLACED).
 *
 * A record line is "TIME PID FILE HOST N good=G class=C ... tids=T,T"
 * (tids hexadecimal); a line of the earlier form, without tids=, names no
 * task and is skipped.  Only the record's last PLACED_READ_MAX bytes are
 * read; a tid named twice is the later line's.
 */
#ifndef DTS_CONSOLE_PLACED_H
#define DTS_CONSOLE_PLACED_H

#include <stddef.h>
#include <sys/types.h>

#define PLACED_READ_MAX (256 * 1024)
#define PLACED_MAX 8192		/* tids kept: the newest */
#define PLACED_CLASS_LEN 16

struct placed_ent {
	int	 tid;
	double	 good;
	char	 cls[PLACED_CLASS_LEN];
};

struct placed_tab {
	int			 n;
	int			 next;	/* where the next one goes, once full */
	struct placed_ent	 e[PLACED_MAX];
};

/*
 * One record line (no newline needed) into t: its tids with the line's
 * goodness and class.  Returns how many tids it named, 0 for a line
 * without tids= (the earlier form), -1 for a line that is not a record
 * line (t unchanged).
 */
int placed_line(struct placed_tab *t, const char *line);

/*
 * The record at path into t (emptied first): its last max bytes, the
 * first line skipped if cut.  0, or -1 with errno (t empty).
 */
int placed_load(struct placed_tab *t, const char *path, size_t max);

/* The entry of tid, or NULL. */
const struct placed_ent *placed_find(const struct placed_tab *t, int tid);

/*
 * The record's path, as dts-place makes it: rec (place.record) if set,
 * else dts-place.UID in tmp (PVM_TMP; /tmp if not absolute).
 */
void placed_path(char *buf, size_t cap, const char *rec, const char *tmp,
    uid_t uid);

#endif /* DTS_CONSOLE_PLACED_H */
