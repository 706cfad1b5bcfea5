/*
 * job.c - a job's name "USER:LABEL": checks and the label's source.  See
 * job.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"

#define LABEL_MAX 15	/* PROTO_JOB_LEN / 2 - 1: a name always has room */

/* At most 15 bytes of s, bytes outside ' '..'~' as \xNN, for a message. */
static void
quote(char *out, size_t cap, const char *s)
{
	size_t	 o = 0, i;

	for (i = 0; s[i] != '\0' && i < LABEL_MAX && o + 5 < cap; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c > 0x7e || c == '"' || c == '\\')
			o += (size_t)snprintf(out + o, cap - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	if (s[i] != '\0' && o + 4 < cap) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
}

static int
label_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

/*
 * A user name's byte: printable ASCII, not ':', '/' nor space (the name
 * becomes part of a cgroup's and a state file's name).
 */
static int
user_byte(unsigned char c)
{
	return c > 0x20 && c < 0x7f && c != ':' && c != '/';
}

int
job_label_check(const char *label, char *err, size_t errlen)
{
	char	 q[64];
	size_t	 i, n = strlen(label);

	quote(q, sizeof(q), label);
	if (n == 0) {
		snprintf(err, errlen, "job label is empty");
		return -1;
	}
	if (n > LABEL_MAX) {
		snprintf(err, errlen, "job label \"%s\" is too long (at most "
		    "%d bytes)", q, LABEL_MAX);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (!label_byte((unsigned char)label[i])) {
			snprintf(err, errlen, "job label \"%s\" has a byte that "
			    "is not a letter, digit, '.', '_' or '-'", q);
			return -1;
		}
	return 0;
}

const char *
job_label_pick(const char *opt)
{
	const char	*v;

	if (opt != NULL && *opt != '\0')
		return opt;
	if ((v = getenv(JOB_ENV)) != NULL && *v != '\0')
		return v;
	return JOB_LABEL_DEFAULT;
}

/* user: 1.. bytes of user_byte(); n its length. */
static int
user_check(const char *user, size_t n, char *err, size_t errlen)
{
	size_t	 i;

	if (n == 0) {
		snprintf(err, errlen, "job name has no user");
		return -1;
	}
	for (i = 0; i < n; i++)
		if (!user_byte((unsigned char)user[i])) {
			snprintf(err, errlen, "%s", user[i] == ':' ||
			    user[i] == '/' || user[i] == ' ' ?
			    "job user name has a ':', '/' or a space" :
			    "job name is not printable");
			return -1;
		}
	return 0;
}

int
job_name_make(char out[PROTO_JOB_LEN], const char *user, const char *label,
    char *err, size_t errlen)
{
	size_t	 nu = strlen(user), nl = strlen(label);

	if (user_check(user, nu, err, errlen) == -1 ||
	    job_label_check(label, err, errlen) == -1)
		return -1;
	if (nu + 1 + nl > PROTO_JOB_LEN - 1) {
		snprintf(err, errlen, "job name of user \"%.*s\" is too long "
		    "(at most %d bytes)", (int)(nu < 16 ? nu : 16), user,
		    PROTO_JOB_LEN - 1);
		return -1;
	}
	memset(out, 0, PROTO_JOB_LEN);
	memcpy(out, user, nu);
	out[nu] = ':';
	memcpy(out + nu + 1, label, nl);
	return 0;
}

int
job_name_check(const char name[PROTO_JOB_LEN], char *err, size_t errlen)
{
	const char	*colon;
	size_t		 n = strnlen(name, PROTO_JOB_LEN), i;

	if (n == PROTO_JOB_LEN) {
		snprintf(err, errlen, "job name is not NUL terminated "
		    "(at most %d bytes)", PROTO_JOB_LEN - 1);
		return -1;
	}
	for (i = n; i < PROTO_JOB_LEN; i++)
		if (name[i] != '\0') {
			snprintf(err, errlen, "job name is not NUL padded");
			return -1;
		}
	if (n == 0) {
		snprintf(err, errlen, "job name is empty");
		return -1;
	}
	for (i = 0; i < n; i++)
		if ((unsigned char)name[i] < 0x20 ||
		    (unsigned char)name[i] > 0x7e) {
			snprintf(err, errlen, "job name is not printable");
			return -1;
		}
	if ((colon = memchr(name, ':', n)) == NULL) {
		snprintf(err, errlen, "job name has no ':' (USER:LABEL)");
		return -1;
	}
	if (user_check(name, (size_t)(colon - name), err, errlen) == -1)
		return -1;
	return job_label_check(colon + 1, err, errlen);
}

int
job_same_user(const char *a, const char *b)
{
	size_t	 k;

	for (k = 0; k < PROTO_JOB_LEN && a[k] == b[k]; k++)
		if (a[k] == ':' || a[k] == '\0')
			return 1;
	return 0;
}
