/*
 * metrics.h - where `metrics [FILE]` writes: the command output, or FILE
 * replaced as a whole.  FILE.tmp, in the same directory, is created when
 * the command starts (so a bad path fails at once); at the end of the
 * round it is written, synced and renamed over FILE, so node_exporter's
 * textfile collector (which reads *.prom only) never reads half a file.
 */
#ifndef DTS_MASTER_METRICS_H
#define DTS_MASTER_METRICS_H

#include <limits.h>
#include <stdio.h>

struct metrics_file {
	FILE	*f;			/* FILE.tmp; NULL: none open */
	char	 path[PATH_MAX];
	char	 tmp[PATH_MAX + 4];	/* path ".tmp" */
};

/* Create path.tmp.  0, or -1 with a one-line reason in err. */
int  metrics_open(struct metrics_file *m, const char *path, char *err,
	size_t len);

/* Flush, sync and close the temporary file, then rename it over path.
 * 0, or -1 with err (the temporary file removed). */
int  metrics_commit(struct metrics_file *m, char *err, size_t len);

/* Give up: close and remove the temporary file, if one is open. */
void metrics_abort(struct metrics_file *m);

#endif /* DTS_MASTER_METRICS_H */
