/*
 * setkeys.c - set KEY VALUE, through the dts.conf schema.  See setkeys.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "balance.h"
#include "conf.h"
#include "setkeys.h"
#include "timeutil.h"
#include "wire.h"

/* `set` name and dts.conf key, in the order of enum setkey. */
static const struct {
	const char	*name;
	const char	*path;
} keys[] = {
	{ "sync", "sync" },
	{ "ls_policy", "ls_policy" },
	{ "rla", "console.rla" },
	{ "hysteresis", "console.hysteresis" },
	{ "timeout", "console.timeout" },
	{ "status_wait", "console.status_wait" },
	{ "weight", NULL },
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

const char *
setkeys_name(enum setkey id)
{
	return keys[id].name;
}

/* The enum setkey of a name or dts.conf path, or -1. */
static int
find(const char *key)
{
	size_t	 i;

	for (i = 0; i < NKEYS; i++)
		if (strcmp(keys[i].name, key) == 0 || (keys[i].path != NULL &&
		    strcmp(keys[i].path, key) == 0))
			return (int)i;
	return -1;
}

static int
unknown(const char *key, char *err, size_t len)
{
	char	 names[128];
	size_t	 i, n = 0;

	for (i = 0; i < NKEYS && n < sizeof(names); i++)
		n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s",
		    i > 0 ? ", " : "", keys[i].name);
	snprintf(err, len, "set: unknown key \"%s\" (one of %s)", key,
	    names);
	return -1;
}

int
setkeys_nargs(const char *key, char *err, size_t len)
{
	int	 id = find(key);

	if (id == -1)
		return unknown(key, err, len);
	return id == SETKEY_WEIGHT ? 2 : 1;
}

/*
 * The schema's steps on a copy: the text into the key's field, checked
 * against the key's range and validator (conf_value_set), then every
 * check conf_load() makes of a whole file.  The copy replaces conf only
 * if it passes them all.
 */
int
setkeys_conf(struct dts_conf *conf, const char *key, const char *value,
    char *err, size_t len)
{
	struct dts_conf		*t;
	char			 why[CONF_STR_MAX * 2];
	int			 id = find(key);

	if (id == -1 || keys[id].path == NULL)
		return unknown(key, err, len);
	if ((t = malloc(sizeof(*t))) == NULL) {
		snprintf(err, len, "set %s: out of memory", keys[id].name);
		return -1;
	}
	*t = *conf;
	if (conf_value_set(t, keys[id].path, value, why, sizeof(why)) == -1 ||
	    conf_check(t, why, sizeof(why)) == -1) {
		snprintf(err, len, "set %s: %s", keys[id].name, why);
		free(t);
		return -1;
	}
	*conf = *t;
	free(t);
	return id;
}

const char *
setkeys_value(const struct dts_conf *conf, enum setkey id, char *buf,
    size_t len)
{
	if (keys[id].path == NULL) {
		snprintf(buf, len, "?");
		return buf;
	}
	return conf_value_format(conf, keys[id].path, buf, len);
}

const char *
setkeys_usage(const char *key, char *buf, size_t len)
{
	const char		*type;
	const char *const	*names;
	size_t			 n = 0;
	int			 id = find(key), i;

	if (id == SETKEY_WEIGHT) {
		snprintf(buf, len, "HOST W|auto | JOB W");
		return buf;
	}
	if (id == -1 || (type = conf_key_type(keys[id].path)) == NULL) {
		snprintf(buf, len, "VALUE");
		return buf;
	}
	if (strcmp(type, "duration") == 0)
		snprintf(buf, len, "DUR");
	else if ((names = conf_key_names(keys[id].path)) == NULL)
		snprintf(buf, len, "X");
	else
		for (i = 0, buf[0] = '\0'; names[i] != NULL && n < len; i++)
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
			    i > 0 ? "|" : "", names[i]);
	return buf;
}

int
setkeys_weight(const char *host, const char *s, double *w, char *err,
    size_t len)
{
	char	*end, why[160];

	*w = 0;
	if (strlen(host) >= HOST_NAME_MAX_) {
		snprintf(err, len, "set weight: host name \"%.20s...\" is too "
		    "long", host);
		return -1;
	}
	/* a name the standby's copy could not carry is no host's */
	if (proto_weight_name_check(WEIGHT_KIND_HOST, host, why,
	    sizeof(why)) == -1) {
		snprintf(err, len, "set weight: %s", why);
		return -1;
	}
	if (strcmp(s, "auto") == 0)
		return 0;
	errno = 0;
	*w = strtod(s, &end);
	if (end == s || *end != '\0' || errno != 0 || isnan(*w)) {
		snprintf(err, len, "set weight: \"%s\" is not a number", s);
		return -1;
	}
	if (*w <= 0 || *w > WEIGHT_MAX) {
		snprintf(err, len, "set weight: %s is out of range (0, %g]", s,
		    WEIGHT_MAX);
		return -1;
	}
	/* to the millionth, as the standby's copy carries it */
	if ((*w = bal_weight_round(*w)) < WEIGHT_MIN) {
		snprintf(err, len, "set weight: %s is below %.6f, the smallest "
		    "weight (weights are kept to the millionth)", s,
		    WEIGHT_MIN);
		return -1;
	}
	return 0;
}

static const char *
nth(const char *const *names, const char *text, int i)
{
	size_t	 len = strlen(text);

	for (; names != NULL && *names != NULL; names++)
		if (strncmp(*names, text, len) == 0 && i-- == 0)
			return *names;
	return NULL;
}

const char *
setkeys_complete(const char *line, int nwords, const char *text, int i,
    const struct vm_hosts *hosts)
{
	const char *const	*names;
	char			 key[32];
	size_t			 len = strlen(text);
	int			 id, n;

	if (nwords == 1) {
		for (n = 0; n < (int)NKEYS; n++)
			if (strncmp(keys[n].name, text, len) == 0 && i-- == 0)
				return keys[n].name;
		return NULL;
	}
	line += strcspn(line, " \t");
	line += strspn(line, " \t");
	snprintf(key, sizeof(key), "%.*s", (int)strcspn(line, " \t"), line);
	if (nwords != 2)
		return NULL;
	if (strcmp(key, "weight") == 0) {
		for (n = 0; n < hosts->n; n++)
			if (strncmp(hosts->v[n].name, text, len) == 0 &&
			    i-- == 0)
				return hosts->v[n].name;
		return NULL;
	}
	if ((id = find(key)) == -1 || keys[id].path == NULL ||
	    (names = conf_key_names(keys[id].path)) == NULL)
		return NULL;
	return nth(names, text, i);	/* the schema's names */
}
