/*
 * placed.c - dts-place's placement record, read for `tasks`.  See
 * placed.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "placed.h"

static void
put(struct placed_tab *t, int tid, double good, const char *cls)
{
	struct placed_ent	*e;

	if (t->n < PLACED_MAX)
		e = &t->e[t->n++];
	else {
		e = &t->e[t->next];
		t->next = (t->next + 1) % PLACED_MAX;
	}
	e->tid = tid;
	e->good = good;
	snprintf(e->cls, sizeof(e->cls), "%s", cls);
}

/* The value of " KEY=" in line (up to the next blank), or NULL. */
static const char *
field(const char *line, const char *key, size_t *len)
{
	const char	*s = line;
	size_t		 kl = strlen(key);

	while ((s = strstr(s, key)) != NULL) {
		if (s > line && s[-1] == ' ' && s[kl] == '=') {
			s += kl + 1;
			*len = strcspn(s, " \t\n");
			return s;
		}
		s += kl;
	}
	return NULL;
}

int
placed_line(struct placed_tab *t, const char *line)
{
	char		 cls[PLACED_CLASS_LEN], *end;
	const char	*g, *c, *ts;
	size_t		 gl, cl, tl, i;
	long long	 when;
	double		 good;
	unsigned long	 tid;
	int		 pid, cnt, n = 0, pos;

	/* TIME PID FILE HOST N good=G class=C */
	pos = 0;
	if (sscanf(line, "%lld %d %*s %*s %d %n", &when, &pid, &cnt, &pos) != 3
	    || pos == 0 || cnt <= 0 ||
	    (g = field(line, "good", &gl)) == NULL ||
	    (c = field(line, "class", &cl)) == NULL ||
	    cl == 0 || cl >= sizeof(cls))
		return -1;
	errno = 0;
	good = strtod(g, &end);
	if (end != g + gl || errno != 0)
		return -1;
	memcpy(cls, c, cl);
	cls[cl] = '\0';
	if ((ts = field(line, "tids", &tl)) == NULL)
		return 0;
	for (i = 0; i < tl; i = (size_t)(end - ts) + 1) {
		errno = 0;
		tid = strtoul(ts + i, &end, 16);
		if (end == ts + i || errno != 0 || tid == 0 ||
		    tid > 0x7fffffffUL || (end != ts + tl && *end != ','))
			return n > 0 ? n : -1;
		put(t, (int)tid, good, cls);
		n++;
		if (end == ts + tl)
			break;
	}
	return n;
}

int
placed_load(struct placed_tab *t, const char *path, size_t max)
{
	struct stat	 st;
	char		*buf, *s, *nl;
	ssize_t		 r;
	size_t		 len = 0;
	off_t		 from = 0;
	int		 fd, e;

	t->n = t->next = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return -1;
	if (fstat(fd, &st) == -1 || (!S_ISREG(st.st_mode) &&
	    (errno = EINVAL)) || (buf = malloc(max + 1)) == NULL) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	if (st.st_size > (off_t)max)
		from = st.st_size - (off_t)max;
	while (len < max && (r = pread(fd, buf + len, max - len, from +
	    (off_t)len)) != 0) {
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			e = errno;
			free(buf);
			close(fd);
			errno = e;
			return -1;
		}
		len += (size_t)r;
	}
	close(fd);
	buf[len] = '\0';
	s = buf;
	if (from > 0)	/* a cut first line */
		s = (nl = strchr(s, '\n')) != NULL ? nl + 1 : buf + len;
	for (; *s != '\0'; s = nl + 1) {
		if ((nl = strchr(s, '\n')) == NULL)
			break;	/* a line being written */
		*nl = '\0';
		(void)placed_line(t, s);
	}
	free(buf);
	return 0;
}

const struct placed_ent *
placed_find(const struct placed_tab *t, int tid)
{
	int	 i, k;

	/* newest first: before next (oldest) when it went round */
	for (i = 0; i < t->n; i++) {
		k = (t->next + t->n - 1 - i) % t->n;
		if (t->e[k].tid == tid)
			return &t->e[k];
	}
	return NULL;
}

void
placed_path(char *buf, size_t cap, const char *rec, const char *tmp,
    uid_t uid)
{
	if (rec != NULL && *rec != '\0')
		snprintf(buf, cap, "%s", rec);
	else
		snprintf(buf, cap, "%s/dts-place.%u", tmp != NULL &&
		    *tmp == '/' ? tmp : "/tmp", (unsigned)uid);
}
