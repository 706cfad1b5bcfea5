/*
 * script.c - queued, non-interactive commands.  See script.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "cmds.h"
#include "script.h"

#define SCRIPT_MAX (1024 * 1024)	/* bytes of one -s file */

struct adder {
	struct script	*s;
	const char	*src;
	int		 base;		/* line offset (stdin) */
};

void
script_init(struct script *s, int stop_on_error)
{
	memset(s, 0, sizeof(*s));
	s->stop_on_error = stop_on_error;
}

static int
add(void *arg, const char *text, int line)
{
	struct adder		*a = arg;
	struct script		*s = a->s;
	struct script_cmd	*q;

	if (s->n == s->cap) {
		s->cap = s->cap == 0 ? 16 : s->cap * 2;
		if ((q = realloc(s->q, s->cap * sizeof(*q))) == NULL)
			return -1;
		s->q = q;
	}
	q = &s->q[s->n];
	q->text = strdup(text);
	q->src = a->src != NULL ? strdup(a->src) : NULL;
	q->line = a->base + line;
	if (q->text == NULL || (a->src != NULL && q->src == NULL)) {
		free(q->text);
		free(q->src);
		return -1;
	}
	s->n++;
	return 0;
}

int
script_add_string(struct script *s, const char *cmds)
{
	struct adder	 a = { s, NULL, 0 };

	return cmd_script_split(cmds, add, &a);
}

int
script_add_file(struct script *s, const char *path, char *err,
    size_t errlen)
{
	struct adder	 a = { s, path, 0 };
	FILE		*fp;
	char		*buf;
	size_t		 n;
	int		 rc;

	if ((fp = fopen(path, "re")) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if ((buf = malloc(SCRIPT_MAX + 1)) == NULL) {
		fclose(fp);
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	n = fread(buf, 1, SCRIPT_MAX + 1, fp);
	fclose(fp);
	if (n > SCRIPT_MAX) {
		free(buf);
		snprintf(err, errlen, "%s: longer than %d bytes", path,
		    SCRIPT_MAX);
		return -1;
	}
	buf[n] = '\0';
	rc = cmd_script_split(buf, add, &a);
	free(buf);
	if (rc == -1)
		snprintf(err, errlen, "%s: out of memory", path);
	return rc;
}

/* Queue the complete lines of the buffer, keep the rest. */
static void
take_lines(struct script *s, int eof)
{
	struct adder	 a = { s, "stdin", 0 };
	char		*nl, *line = s->partial;
	size_t		 len;

	while (s->plen > 0) {
		nl = memchr(line, '\n', s->plen);
		if (nl == NULL && !eof)
			break;
		len = nl != NULL ? (size_t)(nl - line) : s->plen;
		line[len] = '\0';
		a.base = ++s->stdin_line - 1;
		cmd_script_split(line, add, &a);
		s->plen -= len + (nl != NULL);
		line += len + (nl != NULL);
	}
	memmove(s->partial, line, s->plen);
}

void
script_read(struct script *s, int fd)
{
	char	*p;
	ssize_t	 r;

	if ((p = realloc(s->partial, s->plen + 4097)) == NULL) {
		s->reading = 0;
		return;
	}
	s->partial = p;
	r = read(fd, s->partial + s->plen, 4096);
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (r > 0)
		s->plen += (size_t)r;
	s->partial[s->plen] = '\0';
	if (r <= 0)
		s->reading = 0;
	take_lines(s, r <= 0);
}

static void
failed(struct script *s, struct console *c, const struct script_cmd *q)
{
	if (q->src != NULL)
		fprintf(stderr, "dts-console: %s:%d: %s\n", q->src, q->line,
		    cmds_error(c));
	else
		fprintf(stderr, "dts-console: %s\n", cmds_error(c));
	s->failures++;
	if (s->stop_on_error)
		cmds_quit(c);
}

/*
 * Forget the commands that have run: a console fed on its stdin for
 * weeks (a master under a supervisor) must not keep every line it ran.
 * Not while one runs: script_finished still reports it.
 */
static void
forget_done(struct script *s)
{
	size_t	 i;

	if (s->running || s->head == 0)
		return;
	for (i = 0; i < s->head; i++) {
		free(s->q[i].text);
		free(s->q[i].src);
	}
	memmove(s->q, s->q + s->head, (s->n - s->head) * sizeof(*s->q));
	s->n -= s->head;
	s->head = 0;
}

void
script_run(struct script *s, struct console *c)
{
	struct script_cmd	*q;

	forget_done(s);
	while (!s->running && s->head < s->n && !cmds_quitting(c)) {
		q = &s->q[s->head++];
		fflush(cmds_output(c));
		if (cmds_exec(c, q->text) == -1)
			failed(s, c, q);
		else if (cmds_busy(c)) {
			s->running = 1;
			s->current = s->head - 1;
		}
		fflush(cmds_output(c));
	}
}

void
script_finished(struct script *s, struct console *c, int rc)
{
	if (s->running && rc == -1)
		failed(s, c, &s->q[s->current]);
	s->running = 0;
}

int
script_done(const struct script *s)
{
	return !s->running && s->head >= s->n && !s->reading;
}

void
script_fini(struct script *s)
{
	size_t	 i;

	for (i = 0; i < s->n; i++) {
		free(s->q[i].text);
		free(s->q[i].src);
	}
	free(s->q);
	free(s->partial);
	memset(s, 0, sizeof(*s));
}
