/*
 * setkeys.c - set KEY VALUE.  See setkeys.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "console.h"
#include "setkeys.h"
#include "timeutil.h"

struct setkey {
	const char	*name;
	const char	*usage;
	int		 nargs;		/* values after the key */
	int		(*fn)(struct console *, char **);
};

static int
number(struct console *c, const char *key, const char *s, double lo,
    double hi, int lo_open, double *v)
{
	char	*end;

	errno = 0;
	*v = strtod(s, &end);
	if (end == s || *end != '\0' || errno != 0 || isnan(*v))
		return con_err(c, "set %s: \"%s\" is not a number", key, s);
	if (*v > hi || *v < lo || (lo_open && *v == lo))
		return con_err(c, "set %s: %s is out of range %c%g, %g]", key,
		    s, lo_open ? '(' : '[', lo, hi);
	return 0;
}

static int
duration(struct console *c, const char *key, const char *s, int64_t lo,
    int64_t hi, const char *rng, int64_t *v)
{
	char	 why[256], b[32];

	if (duration_parse(s, v, why, sizeof(why)) == -1)
		return con_err(c, "set %s: %s", key, why);
	if (*v < lo || *v > hi)
		return con_err(c, "set %s: %s is out of range %s", key,
		    duration_format(*v, b, sizeof(b)), rng);
	return 0;
}

static int
set_sync(struct console *c, char **v)
{
	char	 why[256];

	if (sch_set_sync(&c->sch, v[0], why, sizeof(why)) == -1)
		return con_err(c, "set %s", why);
	master_changed(c, 1, now_mono_ns());
	fprintf(c->out, "sync %s%s\n", proto_sync_name((unsigned)c->sch.sync),
	    c->sch.spoken ? " (sent)" : "");
	return 0;
}

static int
set_ls_policy(struct console *c, char **v)
{
	if (strcmp(v[0], "stop") != 0 && strcmp(v[0], "idle") != 0)
		return con_err(c, "set ls_policy: \"%s\" is not stop or idle",
		    v[0]);
	c->sch.ls_idle = strcmp(v[0], "idle") == 0;
	master_changed(c, 0, now_mono_ns());
	fprintf(c->out, "ls_policy %s%s\n", v[0], c->sch.spoken ? " (sent)" :
	    "");
	return 0;
}

static int
set_rla(struct console *c, char **v)
{
	if (strcmp(v[0], "mean") == 0)
		c->conf.console.rla = RLA_MEAN;
	else if (strcmp(v[0], "max") == 0)
		c->conf.console.rla = RLA_MAX;
	else
		return con_err(c, "set rla: \"%s\" is not mean or max", v[0]);
	bal_reset(&c->bal);
	master_balance(c, now_mono_ns());
	fprintf(c->out, "rla %s\n", v[0]);
	return 0;
}

static int
set_hysteresis(struct console *c, char **v)
{
	double	 h;

	if (number(c, "hysteresis", v[0], 0, 100, 0, &h) == -1)
		return -1;
	c->conf.console.hysteresis = h;
	fprintf(c->out, "hysteresis %g\n", h);
	return 0;
}

static int
set_timeout(struct console *c, char **v)
{
	char	 b[32];
	int64_t	 t;

	if (duration(c, "timeout", v[0], 10 * NS_PER_MS, 86400 * NS_PER_SEC,
	    "[10ms, 1d]", &t) == -1)
		return -1;
	c->conf.console.timeout_ns = t;
	master_balance(c, now_mono_ns());
	fprintf(c->out, "timeout %s\n", duration_format(t, b, sizeof(b)));
	return 0;
}

static int
set_status_wait(struct console *c, char **v)
{
	char	 b[32];
	int64_t	 t;

	if (duration(c, "status_wait", v[0], NS_PER_MS, 60 * NS_PER_SEC,
	    "[1ms, 60s]", &t) == -1)
		return -1;
	c->conf.console.status_wait_ns = t;
	fprintf(c->out, "status_wait %s\n", duration_format(t, b, sizeof(b)));
	return 0;
}

static int
set_weight(struct console *c, char **v)
{
	double	 w = 0;

	if (strlen(v[0]) >= HOST_NAME_MAX_)
		return con_err(c, "set weight: host name \"%.20s...\" is too "
		    "long", v[0]);
	if (strcmp(v[1], "auto") != 0 &&
	    number(c, "weight", v[1], 0, WEIGHT_MAX, 1, &w) == -1)
		return -1;
	if (bal_weight_set(&c->weights, v[0], w) == -1)
		return con_err(c, "set weight: at most %d weights",
		    WEIGHTS_MAX);
	master_balance(c, now_mono_ns());
	if (w > 0)
		fprintf(c->out, "weight %s %g\n", v[0], w);
	else
		fprintf(c->out, "weight %s from the PVM host speed\n", v[0]);
	return 0;
}

static const struct setkey keys[] = {
	{ "sync", "arrival|clock", 1, set_sync },
	{ "ls_policy", "stop|idle", 1, set_ls_policy },
	{ "rla", "mean|max", 1, set_rla },
	{ "hysteresis", "X", 1, set_hysteresis },
	{ "timeout", "DUR", 1, set_timeout },
	{ "status_wait", "DUR", 1, set_status_wait },
	{ "weight", "HOST W|auto", 2, set_weight },
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

const char *const setkeys_names[] = { "sync", "ls_policy", "rla", "hysteresis",
    "timeout", "status_wait", "weight", NULL };

int
setkeys_cmd(struct console *c, int argc, char **argv)
{
	const struct setkey	*k;
	size_t			 i;

	for (i = 0; i < NKEYS; i++)
		if (strcmp(keys[i].name, argv[1]) == 0)
			break;
	if (i == NKEYS)
		return con_err(c, "set: unknown key \"%s\" (one of sync, ls_policy, rla, "
		    "hysteresis, timeout, status_wait, weight)", argv[1]);
	k = &keys[i];
	if (argc - 2 != k->nargs)
		return con_err(c, "set %s: %s arguments (usage: set %s %s)",
		    k->name, argc - 2 < k->nargs ? "missing" : "too many",
		    k->name, k->usage);
	return k->fn(c, argv + 2);
}

const char *
setkeys_complete(const char *line, int nwords, const char *text, int i,
    struct console *c)
{
	static const char *const syncs[] = { "arrival", "clock", NULL };
	static const char *const rlas[] = { "mean", "max", NULL };
	static const char *const lsps[] = { "stop", "idle", NULL };
	const char *const *names = NULL;
	char		 key[32];
	size_t		 len = strlen(text);
	int		 k;

	line += strcspn(line, " \t");
	line += strspn(line, " \t");
	snprintf(key, sizeof(key), "%.*s", (int)strcspn(line, " \t"), line);
	if (nwords != 2)
		return NULL;
	if (strcmp(key, "sync") == 0)
		names = syncs;
	else if (strcmp(key, "rla") == 0)
		names = rlas;
	else if (strcmp(key, "ls_policy") == 0)
		names = lsps;
	else if (strcmp(key, "weight") == 0) {
		for (k = 0; k < c->hosts.n; k++)
			if (strncmp(c->hosts.v[k].name, text, len) == 0 &&
			    i-- == 0)
				return c->hosts.v[k].name;
		return NULL;
	}
	for (; names != NULL && *names != NULL; names++)
		if (strncmp(*names, text, len) == 0 && i-- == 0)
			return *names;
	return NULL;
}
