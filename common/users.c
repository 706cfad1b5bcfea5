/*
 * users.c - who may start a gang on this node (dts.conf: users): user
 * names, "@group" entries and "*", checked against NSS.  users.h.
 */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "users.h"

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyz" \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"
#define GR_BUF_MAX (1 << 20)	/* a group with very many members */
#define NGROUPS_START 64

/* The gid of group name: 0 and *gid, or -1 (no such group, or NSS failed). */
static int
group_gid(const char *name, gid_t *gid)
{
	struct group	 gr, *res = NULL;
	size_t		 len = 4096;
	char		*buf = NULL, *nbuf;
	int		 rc;

	for (;;) {
		if ((nbuf = realloc(buf, len)) == NULL)
			break;
		buf = nbuf;
		rc = getgrnam_r(name, &gr, buf, len, &res);
		if (rc != ERANGE || len >= GR_BUF_MAX)
			break;
		len *= 2;
	}
	if (res != NULL)
		*gid = res->gr_gid;
	free(buf);
	return res != NULL ? 0 : -1;
}

/* Is the user (name, primary gid) in group g, primary or supplementary? */
static int
in_group(const char *name, gid_t gid, gid_t g)
{
	gid_t	*groups = NULL, *ng;
	int	 n = NGROUPS_START, want, found = 0;

	if (gid == g)
		return 1;
	for (int tries = 0; tries < 4; tries++) {
		if ((ng = realloc(groups, (size_t)n * sizeof(*groups))) == NULL)
			break;
		groups = ng;
		want = n;
		if (getgrouplist(name, gid, groups, &want) != -1) {
			for (int i = 0; i < want; i++)
				if (groups[i] == g)
					found = 1;
			break;
		}
		if (want <= n)		/* -1 without a larger count */
			break;
		n = want;
	}
	free(groups);
	return found;
}

int
users_entry_valid(const char *s, char *why, size_t whylen)
{
	const char	*name = s[0] == USERS_GROUP ? s + 1 : s;

	if (strcmp(s, USERS_ALL) == 0)
		return 0;
	if (name[0] != '\0' && name[0] != '-' &&
	    strspn(name, NAME_CHARS) == strlen(name))
		return 0;
	snprintf(why, whylen, "\"%s\" is not a user name, \"@group\" or "
	    "\"*\"", s);
	return -1;
}

int
users_allowed(const struct conf_strlist *l, uid_t uid, gid_t gid,
    const char *name, char *why, size_t whylen)
{
	const char	*group = NULL, *missing = NULL;
	int		 ngroups = 0;
	gid_t		 g;

	if (uid == 0)
		return 1;
	for (int i = 0; i < l->n; i++) {
		const char	*e = l->s[i];

		if (strcmp(e, USERS_ALL) == 0)
			return 1;
		if (e[0] != USERS_GROUP) {
			if (strcmp(e, name) == 0)
				return 1;
			continue;
		}
		if (group_gid(e + 1, &g) == -1) {
			if (missing == NULL)
				missing = e + 1;
			continue;
		}
		if (group == NULL)
			group = e + 1;
		ngroups++;
		if (in_group(name, gid, g))
			return 1;
	}
	if (l->n == 0)
		snprintf(why, whylen, "user %s (uid %d) may not run a gang on "
		    "this node: only root may (dts.conf: users = [])", name,
		    (int)uid);
	else if (group != NULL)
		snprintf(why, whylen, "user %s (uid %d) may not run a gang on "
		    "this node: not in group %s%s (an administrator adds you: "
		    "adduser %s %s; dts.conf: users)", name, (int)uid, group,
		    ngroups > 1 ? " nor the other groups listed" : "", name,
		    group);
	else if (missing != NULL)
		snprintf(why, whylen, "user %s (uid %d) may not run a gang on "
		    "this node: group %s does not exist here (an administrator "
		    "makes it: addgroup --system %s; dts.conf: users)", name,
		    (int)uid, missing, missing);
	else
		snprintf(why, whylen, "user %s (uid %d) may not run a gang on "
		    "this node: not listed (dts.conf: users)", name, (int)uid);
	return 0;
}

int
users_missing_groups(const struct conf_strlist *l, char *buf, size_t len)
{
	size_t	 at = 0;
	int	 n = 0;
	gid_t	 g;

	if (len > 0)
		buf[0] = '\0';
	for (int i = 0; i < l->n; i++) {
		if (l->s[i][0] != USERS_GROUP || group_gid(l->s[i] + 1, &g) == 0)
			continue;
		if (at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%s",
			    n > 0 ? ", " : "", l->s[i] + 1);
		n++;
	}
	return n;
}

int
users_weight_parse(const char *s, char *user, size_t len, int *w, char *why,
    size_t whylen)
{
	const char	*colon = strchr(s, ':');
	size_t		 n = colon != NULL ? (size_t)(colon - s) : 0;
	char		*end;
	long		 v;

	if (colon == NULL || n == 0 || s[0] == '-' ||
	    strspn(s, NAME_CHARS) != n || (user != NULL && n >= len)) {
		snprintf(why, whylen, "\"%s\" is not USER:WEIGHT (a user name, "
		    "a colon, a whole number; e.g. \"alice:2\")", s);
		return -1;
	}
	errno = 0;
	v = strtol(colon + 1, &end, 10);
	if (colon[1] == '\0' || *end != '\0' || errno != 0 || v < 1 ||
	    v > USERS_WEIGHT_MAX) {
		snprintf(why, whylen, "\"%s\": the weight \"%s\" is not a "
		    "whole number from 1 to %d", s, colon + 1,
		    USERS_WEIGHT_MAX);
		return -1;
	}
	if (user != NULL)
		snprintf(user, len, "%.*s", (int)n, s);
	if (w != NULL)
		*w = (int)v;
	return 0;
}
