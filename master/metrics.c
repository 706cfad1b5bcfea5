/*
 * metrics.c - the file of `metrics FILE`, replaced atomically.  See
 * metrics.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "metrics.h"

int
metrics_open(struct metrics_file *m, const char *path, char *err, size_t len)
{
	int	 fd;

	m->f = NULL;
	if ((size_t)snprintf(m->path, sizeof(m->path), "%s", path) >=
	    sizeof(m->path)) {
		snprintf(err, len, "metrics: %s: file name too long", path);
		return -1;
	}
	snprintf(m->tmp, sizeof(m->tmp), "%s.tmp", m->path);
	/* not through a link someone left in a shared directory */
	fd = open(m->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
	    O_CLOEXEC, 0644);
	if (fd == -1 || (m->f = fdopen(fd, "w")) == NULL) {
		snprintf(err, len, "metrics: %s: %s", m->tmp, strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	return 0;
}

int
metrics_commit(struct metrics_file *m, char *err, size_t len)
{
	int	 bad;

	bad = fflush(m->f) != 0 || ferror(m->f) || fsync(fileno(m->f)) == -1;
	if (bad)
		snprintf(err, len, "metrics: %s: %s", m->tmp, strerror(errno));
	if (fclose(m->f) != 0 && !bad) {
		snprintf(err, len, "metrics: %s: %s", m->tmp, strerror(errno));
		bad = 1;
	}
	m->f = NULL;
	if (!bad && rename(m->tmp, m->path) == -1) {
		snprintf(err, len, "metrics: %s: %s", m->path,
		    strerror(errno));
		bad = 1;
	}
	if (bad)
		unlink(m->tmp);
	return bad ? -1 : 0;
}

void
metrics_abort(struct metrics_file *m)
{
	if (m->f == NULL)
		return;
	fclose(m->f);
	m->f = NULL;
	unlink(m->tmp);
}
