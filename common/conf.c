/*
 * conf.c - dts.conf: defaults, loading a file, and the checks across keys.
 *
 * libconfig parses the file; this module walks every setting in it (unknown
 * keys are errors, with their line), converts each known key by its type
 * (conf_value.c) and checks its range (conf_schema.c), then checks the keys
 * against each other (conf_check).  The top of the module's layers
 * (conf_fmt.h lists them): it sees conf_value.h and what is below.
 */
#include <errno.h>
#include <libconfig.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"
#include "conf_value.h"
#include "log.h"
#include "rules.h"
#include "timeutil.h"
#include "users.h"

#ifndef PVMD_PATH
#define PVMD_PATH "/usr/bin/pvmd"
#endif

/* ---- the file ------------------------------------------------------------ */

static void
resolve_slices(struct dts_conf *c)
{
	if (c->ps_pct_milli >= 0)
		c->ps_ns = c->ip_ns * c->ps_pct_milli / 100000;
}

void
conf_defaults(struct dts_conf *c)
{
	char	 why[256];
	size_t	 i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < confkey_nkeys; i++)
		if (confval_set_text(&confkey_schema[i], c,
		    confkey_schema[i].def, why, sizeof(why)) == -1)
			fatalx("conf: bad default for %s: %s",
			    confkey_schema[i].path, why);
	resolve_slices(c);
}

static int
is_group(const char *path)
{
	size_t	 i, n = strlen(path);

	for (i = 0; i < confkey_nkeys; i++)
		if (strncmp(confkey_schema[i].path, path, n) == 0 &&
		    confkey_schema[i].path[n] == '.')
			return 1;
	return 0;
}

/* "sample" -> "load.sample", "load.ip" -> "ip": a key in the wrong group. */
static const char *
suggest(const char *path)
{
	const char	*name, *last;
	size_t		 i;

	name = strrchr(path, '.') != NULL ? strrchr(path, '.') + 1 : path;
	for (i = 0; i < confkey_nkeys; i++) {
		last = strrchr(confkey_schema[i].path, '.');
		last = last != NULL ? last + 1 : confkey_schema[i].path;
		if (strcmp(last, name) == 0)
			return confkey_schema[i].path;
	}
	return NULL;
}

/* Every setting in the file must be a key or a group of the schema. */
static int
walk(const config_setting_t *g, const char *prefix, const char *file,
    char *err, size_t errlen)
{
	const config_setting_t	*st;
	char			 path[128];
	int			 i, n = config_setting_length(g);

	for (i = 0; i < n; i++) {
		st = config_setting_get_elem(g, (unsigned)i);
		snprintf(path, sizeof(path), "%s%s%s", prefix,
		    prefix[0] != '\0' ? "." : "", config_setting_name(st));
		if (confkey_find(path) != NULL)
			continue;
		if (!is_group(path)) {
			snprintf(err, errlen, "%s:%d: unknown key \"%s\"%s%s%s",
			    file, config_setting_source_line(st), path,
			    suggest(path) != NULL ? " (did you mean \"" : "",
			    suggest(path) != NULL ? suggest(path) : "",
			    suggest(path) != NULL ? "\"?)" : "");
			return -1;
		}
		if (!config_setting_is_group(st)) {
			snprintf(err, errlen, "%s:%d: %s: expected a group "
			    "(%s = { ... };), not %s", file,
			    config_setting_source_line(st), path, path,
			    confval_kind(st));
			return -1;
		}
		if (walk(st, path, file, err, errlen) == -1)
			return -1;
	}
	return 0;
}

static int
apply(config_t *cfg, struct dts_conf *c, const char *file, char *err,
    size_t errlen)
{
	const struct conf_key	*k;
	config_setting_t	*st;
	char			 why[256];

	if (walk(config_root_setting(cfg), "", file, err, errlen) == -1)
		return -1;
	for (k = confkey_schema; k < confkey_schema + confkey_nkeys; k++) {
		if ((st = config_lookup(cfg, k->path)) == NULL)
			continue;
		if (confval_set(k, c, st, why, sizeof(why)) == -1 ||
		    confkey_check(k, c, why, sizeof(why)) == -1) {
			snprintf(err, errlen, "%s:%d: %s: %s", file,
			    config_setting_source_line(st), k->path, why);
			return -1;
		}
	}
	resolve_slices(c);
	return 0;
}

int
conf_load(struct dts_conf *c, const char *path, int missing_ok, char *err,
    size_t errlen)
{
	struct dts_conf	 t = *c;
	config_t	 cfg;
	FILE		*fp;
	int		 rc;

	if ((fp = fopen(path, "re")) == NULL) {
		if (errno == ENOENT && missing_ok)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	fclose(fp);
	config_init(&cfg);
	if (config_read_file(&cfg, path) == CONFIG_FALSE) {
		snprintf(err, errlen, "%s:%d: %s", config_error_file(&cfg) ?
		    config_error_file(&cfg) : path, config_error_line(&cfg),
		    config_error_text(&cfg));
		config_destroy(&cfg);
		return -1;
	}
	snprintf(t.file, sizeof(t.file), "%s", path);
	rc = apply(&cfg, &t, path, err, errlen);
	config_destroy(&cfg);
	if (rc == -1 || conf_check(&t, err, errlen) == -1)
		return -1;
	*c = t;
	return 0;
}

/* ---- files trusted by a root service ---------------------------------- */

static int
trusted_owner(const char *path, const struct stat *st, int dir, int secret,
    const char *what, char *err, size_t errlen)
{
	mode_t	 bad = S_IWGRP | S_IWOTH | (secret ? S_IRWXO : 0);

	if (st->st_uid != 0) {
		snprintf(err, errlen, "%s %s: owned by uid %d, not root: not "
		    "trusted (chown root %s)", what, path, (int)st->st_uid,
		    path);
		return -1;
	}
	if (dir && (st->st_mode & S_ISVTX))
		bad &= ~(mode_t)(S_IWGRP | S_IWOTH);	/* /tmp-like */
	if (st->st_mode & bad) {
		snprintf(err, errlen, "%s %s: mode %04o lets %s: not trusted "
		    "(chmod %s %s)", what, path, (unsigned)(st->st_mode & 07777),
		    (st->st_mode & (S_IWGRP | S_IWOTH)) ? "others write it" :
		    "others read it", secret ? "o-rwx,g-w" : "go-w", path);
		return -1;
	}
	return 0;
}

int
conf_file_trusted(const char *path, const char *what, int secret, char *err,
    size_t errlen)
{
	char		 dir[PATH_MAX], *slash;
	struct stat	 st;

	if (stat(path, &st) == -1) {
		snprintf(err, errlen, "%s %s: %s", what, path, strerror(errno));
		return -1;
	}
	if (trusted_owner(path, &st, 0, secret, what, err, errlen) == -1)
		return -1;
	snprintf(dir, sizeof(dir), "%s", path);
	if ((slash = strrchr(dir, '/')) == NULL)
		return 0;
	if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	if (stat(dir, &st) == -1) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	return trusted_owner(dir, &st, 1, 0, "directory", err, errlen);
}

const char *
conf_pvmd(const struct dts_conf *c)
{
	if (strcmp(c->pvmd, "auto") != 0)
		return c->pvmd;
	return access(PVMD_PATH ".real", X_OK) == 0 ? PVMD_PATH ".real" :
	    PVMD_PATH;
}

int
conf_unprivileged_port_start(void)
{
	FILE	*f = fopen("/proc/sys/net/ipv4/ip_unprivileged_port_start",
		    "re");
	int	 start = 1024;

	if (f != NULL) {
		if (fscanf(f, "%d", &start) != 1)
			start = 1024;
		fclose(f);
	}
	return start;
}

int
conf_dir_make_trusted(const char *dir, const char *what, char *err,
    size_t errlen)
{
	struct stat	 st;

	if (mkdir(dir, 0755) == -1 && errno != EEXIST) {
		snprintf(err, errlen, "%s %s: %s", what, dir, strerror(errno));
		return -1;
	}
	if (stat(dir, &st) == -1) {
		snprintf(err, errlen, "%s %s: %s", what, dir, strerror(errno));
		return -1;
	}
	st.st_mode &= (mode_t)~S_ISVTX;	/* sticky is no excuse here */
	return trusted_owner(dir, &st, 1, 0, what, err, errlen);
}

int
conf_load_trusted(struct dts_conf *c, const char *path, int missing_ok,
    char *err, size_t errlen)
{
	if (access(path, F_OK) == -1 && errno == ENOENT && missing_ok)
		return 0;
	if (conf_file_trusted(path, "configuration", 0, err, errlen) == -1)
		return -1;
	if (conf_load(c, path, missing_ok, err, errlen) == -1)
		return -1;
	if (!c->insecure &&
	    conf_file_trusted(c->key_file, "key", 1, err, errlen) == -1)
		return -1;
	return 0;
}

/* ---- one key ------------------------------------------------------------- */

int
conf_value_set(struct dts_conf *c, const char *path, const char *text,
    char *why, size_t len)
{
	const struct conf_key	*k = confkey_find(path);
	struct dts_conf		*t;

	if (k == NULL) {
		snprintf(why, len, "%s: not a key of dts.conf", path);
		return -1;
	}
	if ((t = malloc(sizeof(*t))) == NULL) {
		snprintf(why, len, "%s: out of memory", path);
		return -1;
	}
	*t = *c;
	if (confval_set_text(k, t, text, why, len) == -1 ||
	    confkey_check(k, t, why, len) == -1) {
		free(t);
		return -1;
	}
	*c = *t;
	free(t);
	return 0;
}

/* ---- checks across keys -------------------------------------------------- */

int
conf_jobs_user(const struct dts_conf *c)
{
	int	 n = c->max_jobs_user > 0 ? c->max_jobs_user :
		    (c->max_jobs + 1) / 2;

	return n < c->max_jobs ? n : c->max_jobs;
}

/* user_weights: a user at most once. */
static int
check_user_weights(const struct dts_conf *c, const char *file, char *err,
    size_t errlen)
{
	const struct conf_strlist	*l = &c->user_weights;
	char				 a[CONF_ITEM_MAX], b[CONF_ITEM_MAX];
	char				 why[256];
	int				 i, k;

	for (i = 0; i < l->n; i++)
		for (k = 0; k < i; k++)
			if (users_weight_parse(l->s[i], a, sizeof(a), NULL, why,
			    sizeof(why)) == 0 && users_weight_parse(l->s[k], b,
			    sizeof(b), NULL, why, sizeof(why)) == 0 &&
			    strcmp(a, b) == 0) {
				snprintf(err, errlen, "%s: user_weights: user "
				    "%s has two entries (%d and %d)", file, a,
				    k + 1, i + 1);
				return -1;
			}
	return 0;
}

/* The schedule of the config, through the rules every schedule obeys;
 * the mode may change later, so PS and Table 2.1 must both fit. */
static int
check_schedule(const struct dts_conf *c, const char *file, char *err,
    size_t errlen)
{
	struct rules_sched	 r = { .mode = c->mode, .any_mode = 1,
	    .ps = c->ps_ns, .ip = c->ip_ns, .si = c->si_ns,
	    .table = &c->load.table };
	struct rt_budget	 rt;
	char			 why[512];

	rules_rt_budget(&rt);
	if (rules_check(&r, &rt, why, sizeof(why)) == -1) {
		snprintf(err, errlen, "%s: %s", file, why);
		return -1;
	}
	return 0;
}

int
conf_check(const struct dts_conf *c, char *err, size_t errlen)
{
	const struct load_table	*t = &c->load.table;
	const char		*file = c->file[0] != '\0' ? c->file :
				    "(defaults)";
	char			 why[256], a[32], b[32];
	size_t			 i;
	int			 j;

	for (i = 0; i < confkey_nkeys; i++)
		if (confkey_check(&confkey_schema[i], c, why,
		    sizeof(why)) == -1) {
			snprintf(err, errlen, "%s: %s: %s", file,
			    confkey_schema[i].path, why);
			return -1;
		}
	if (c->load.interval_ns < c->load.sample_ns) {
		snprintf(err, errlen, "%s: load.interval %s is shorter than "
		    "load.sample %s", file,
		    duration_format(c->load.interval_ns, a, sizeof(a)),
		    duration_format(c->load.sample_ns, b, sizeof(b)));
		return -1;
	}
	for (j = 1; j < t->n; j++)
		if (t->ls_pct[j] < t->ls_pct[j - 1]) {
			snprintf(err, errlen, "%s: load.table must not "
			    "decrease: entry %d (%d) is less than entry %d "
			    "(%d)", file, j + 1, t->ls_pct[j], j,
			    t->ls_pct[j - 1]);
			return -1;
		}
	if (check_user_weights(c, file, err, errlen) == -1)
		return -1;
	return check_schedule(c, file, err, errlen);
}
