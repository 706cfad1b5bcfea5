/*
 * hostfile.c - MPI host files.  See hostfile.h.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>

#include "hostfile.h"

#define FORMATS "Open MPI: host slots=N; MPICH: host:N"

int
hostfile_resolve(const char *name, struct in_addr *out, char *err,
    size_t errlen)
{
	struct addrinfo	 hints = { .ai_family = AF_INET }, *ai;
	int		 rc;

	if (inet_pton(AF_INET, name, out) == 1)
		return 0;
	if ((rc = getaddrinfo(name, NULL, &hints, &ai)) != 0) {
		snprintf(err, errlen, "%s", gai_strerror(rc));
		return -1;
	}
	*out = ((struct sockaddr_in *)(void *)ai->ai_addr)->sin_addr;
	freeaddrinfo(ai);
	return 0;
}

/* A slot count: 1 .. HOSTFILE_SLOTS_MAX, digits only. */
static int
count(const char *s, int *v)
{
	long	 n = 0;

	if (*s == '\0')
		return -1;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		n = n * 10 + (*s - '0');
		if (n > HOSTFILE_SLOTS_MAX)
			return -1;
	}
	if (n < 1)
		return -1;
	*v = (int)n;
	return 0;
}

static int
name_ok(const char *s)
{
	if (!isalnum((unsigned char)s[0]))
		return 0;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '.' && *s != '-' &&
		    *s != '_')
			return 0;
	return 1;
}

static const char *const slot_keys[] = { "slots", "count", "cpu", NULL };
static const char *const max_keys[] = { "max_slots", "max-slots",
    "slots_max", "slots-max", NULL };

static int
key_in(const char *key, size_t len, const char *const *keys)
{
	for (; *keys != NULL; keys++)
		if (strlen(*keys) == len && strncmp(*keys, key, len) == 0)
			return 1;
	return 0;
}

int
hostfile_parse_line(const char *line, char *name, size_t namelen,
    int *slots, char *err, size_t errlen)
{
	char	 buf[HOSTFILE_LINE_MAX + 1], *w[16], *p, *colon, *eq;
	int	 nw = 0, i, v, maxv = 0;

	*slots = 0;
	if (strlen(line) > HOSTFILE_LINE_MAX) {
		snprintf(err, errlen, "line longer than %d bytes",
		    HOSTFILE_LINE_MAX);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", line);
	buf[strcspn(buf, "#")] = '\0';
	for (p = strtok(buf, " \t\r\n\v\f"); p != NULL;
	    p = strtok(NULL, " \t\r\n\v\f")) {
		if (nw == (int)(sizeof(w) / sizeof(w[0]))) {
			snprintf(err, errlen, "too many words (" FORMATS ")");
			return -1;
		}
		w[nw++] = p;
	}
	if (nw == 0)
		return 0;
	if ((colon = strchr(w[0], ':')) != NULL) {
		*colon++ = '\0';
		if (count(colon, slots) == -1) {
			snprintf(err, errlen, "bad slot count \"%.32s\" after "
			    "\"%.64s:\" (1 to %d; " FORMATS ")", colon, w[0],
			    HOSTFILE_SLOTS_MAX);
			return -1;
		}
	}
	if (w[0][0] == '\0' || strchr(w[0], '=') != NULL) {
		snprintf(err, errlen, "no host name before \"%.64s\" (" FORMATS
		    ")", line + strspn(line, " \t"));
		return -1;
	}
	if (!name_ok(w[0])) {
		snprintf(err, errlen, "bad host name \"%.64s\" (letters, "
		    "digits, '.', '-', '_', or an IPv4 address)", w[0]);
		return -1;
	}
	if (strlen(w[0]) >= namelen || strlen(w[0]) >= HOST_NAME_MAX_) {
		snprintf(err, errlen, "host name \"%.64s...\" longer than %d "
		    "bytes", w[0], HOST_NAME_MAX_ - 1);
		return -1;
	}
	for (i = 1; i < nw; i++) {
		if ((eq = strchr(w[i], '=')) == NULL) {
			snprintf(err, errlen, "\"%.64s\" after the host is not "
			    "KEY=N (" FORMATS ")", w[i]);
			return -1;
		}
		if (!key_in(w[i], (size_t)(eq - w[i]), slot_keys) &&
		    !key_in(w[i], (size_t)(eq - w[i]), max_keys)) {
			snprintf(err, errlen, "unknown option \"%.*s\" (slots, "
			    "max_slots; " FORMATS ")", (int)(eq - w[i] > 32 ?
			    32 : eq - w[i]), w[i]);
			return -1;
		}
		if (colon != NULL && key_in(w[i], (size_t)(eq - w[i]),
		    slot_keys)) {
			snprintf(err, errlen, "slots given twice (host:N and "
			    "%.*s=)", (int)(eq - w[i] > 32 ? 32 : eq - w[i]),
			    w[i]);
			return -1;
		}
		if (count(eq + 1, &v) == -1) {
			snprintf(err, errlen, "bad count \"%.32s\" in \"%.64s\" "
			    "(1 to %d)", eq + 1, w[i], HOSTFILE_SLOTS_MAX);
			return -1;
		}
		if (key_in(w[i], (size_t)(eq - w[i]), slot_keys))
			*slots = v;
		else
			maxv = v;
	}
	if (maxv > 0 && *slots > maxv) {
		snprintf(err, errlen, "slots=%d more than max_slots=%d", *slots,
		    maxv);
		return -1;
	}
	snprintf(name, namelen, "%s", w[0]);
	return 1;
}

int
hostfile_read(FILE *f, const char *path, hostfile_resolver resolve,
    struct hostfile *hf, char *err, size_t errlen)
{
	struct hostfile	*t;
	struct in_addr	 a;
	char		*line = NULL, name[HOST_NAME_MAX_], why[256];
	size_t		 cap = 0;
	ssize_t		 len;
	int		 no = 0, slots, rc, i, ret = -1;

	if ((t = calloc(1, sizeof(*t))) == NULL) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	snprintf(t->path, sizeof(t->path), "%s", path);
	while ((len = getline(&line, &cap, f)) != -1) {
		no++;
		if (memchr(line, '\0', (size_t)len) != NULL) {
			snprintf(err, errlen, "%s:%d: a NUL byte: not a text "
			    "file", path, no);
			goto out;
		}
		if ((rc = hostfile_parse_line(line, name, sizeof(name), &slots,
		    why, sizeof(why))) == -1) {
			snprintf(err, errlen, "%s:%d: %s", path, no, why);
			goto out;
		}
		if (rc == 0)
			continue;
		if (resolve(name, &a, why, sizeof(why)) == -1) {
			snprintf(err, errlen, "%s:%d: cannot resolve \"%s\": %s",
			    path, no, name, why);
			goto out;
		}
		for (i = 0; i < t->n; i++)
			if (t->v[i].addr.s_addr == a.s_addr)
				break;
		if (i < t->n) {		/* the same node again */
			if (t->v[i].slots + slots > HOSTFILE_SLOTS_MAX) {
				snprintf(err, errlen, "%s:%d: more than %d "
				    "slots on %s", path, no,
				    HOSTFILE_SLOTS_MAX, t->v[i].name);
				goto out;
			}
			t->v[i].slots += slots;
			continue;
		}
		if (t->n == NODES_MAX) {
			snprintf(err, errlen, "%s:%d: more than %d hosts", path,
			    no, NODES_MAX);
			goto out;
		}
		snprintf(t->v[t->n].name, sizeof(t->v[t->n].name), "%s", name);
		t->v[t->n].slots = slots;
		t->v[t->n].addr = a;
		t->v[t->n].line = no;
		t->n++;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (t->n == 0) {
		snprintf(err, errlen, "%s: no host in the file (" FORMATS ")",
		    path);
		goto out;
	}
	*hf = *t;
	ret = 0;
out:
	free(line);
	free(t);
	return ret;
}

int
hostfile_load(const char *path, hostfile_resolver resolve,
    struct hostfile *hf, char *err, size_t errlen)
{
	FILE	*f;
	int	 rc;

	if ((f = fopen(path, "re")) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	rc = hostfile_read(f, path, resolve, hf, err, errlen);
	fclose(f);
	return rc;
}
