/*
 * conf.c - dts.conf: one schema table drives the defaults, parsing, range
 * checks, printing and the schema listing.
 *
 * libconfig parses the file; this module walks every setting in it (unknown
 * keys are errors, with their line), converts each known key by its type and
 * checks its range, then checks the keys against each other (conf_check).
 *
 * To add a key: one entry in conf_schema[], a field in struct dts_conf, a
 * paragraph in dts.conf(5).  A new group ("console.timeout") needs nothing
 * more: groups are the prefixes of the paths in the table, and conf_print()
 * writes consecutive keys of one group as one "group = { ... };" block.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <libconfig.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "log.h"
#include "proto.h"
#include "timeutil.h"

#ifndef SYSCONFDIR
#define SYSCONFDIR "/usr/local/etc"
#endif
#ifndef PVMD_PATH
#define PVMD_PATH "/usr/bin/pvmd"
#endif
#ifndef PKGLIBEXECDIR
#define PKGLIBEXECDIR "/usr/local/libexec/dts"
#endif
#ifndef SBINDIR
#define SBINDIR "/usr/local/sbin"
#endif

enum conf_type {
	CT_STRING,	/* char[CONF_STR_MAX] */
	CT_INT,		/* int */
	CT_BOOL,	/* int, 0 or 1 */
	CT_FLOAT,	/* double */
	CT_DURATION,	/* int64_t ns */
	CT_SLICE,	/* int64_t ns at off, int32_t percent * 1000 at off2 */
	CT_ENUM,	/* int, index into names */
	CT_INTLIST,	/* struct load_table (n, ls_pct) */
	CT_STRLIST	/* struct conf_strlist; valid() checks each entry */
};

#define CF_MIN_OPEN 0x01	/* the minimum itself is out of range */

struct conf_key {
	const char	*path;		/* "ip", "load.sample" */
	enum conf_type	 type;
	double		 min, max;	/* ns for durations; per list element */
	int		 flags;
	const char	*def;		/* default, in the value syntax */
	const char	*unit;
	const char	*help;
	size_t		 off, off2;	/* fields of struct dts_conf */
	const char *const *names;	/* CT_ENUM, by value, NULL-terminated */
	int		(*valid)(const void *, char *, size_t);
};

#define OFF(f)	offsetof(struct dts_conf, f)
#define US(x)	((double)(x) * NS_PER_US)
#define MS(x)	((double)(x) * NS_PER_MS)
#define SEC(x)	((double)(x) * NS_PER_SEC)
#define FLD(c, off, T)	((T *)(void *)((char *)(c) + (off)))
#define CFLD(c, off, T)	((const T *)(const void *)((const char *)(c) + (off)))

static const char *const mode_names[] =
    { "off", "static", "balanced", "distributed", "hpdt", NULL };
static const char *const sync_names[] = { "arrival", "clock", NULL };
static const char *const backend_names[] = { "signal", "freezer", NULL };
static const char *const level_names[] = { "err", "warn", "info", "debug", NULL };
static const char *const rla_names[] = { "mean", "max", NULL };

_Static_assert(MODE_OFF == 0 && MODE_STATIC == 1 && MODE_BALANCED == 2 &&
    MODE_DISTRIBUTED == 3 && MODE_HPDT == 4 && MODE_MAX == 4, "mode_names");
_Static_assert(SYNC_ARRIVAL == 0 && SYNC_CLOCK == 1 && SYNC_MAX == 1,
    "sync_names");
_Static_assert(BACKEND_SIGNAL == 0 && BACKEND_FREEZER == 1, "backend_names");
_Static_assert(LOG_LVL_ERR == 0 && LOG_LVL_WARN == 1 && LOG_LVL_INFO == 2 &&
    LOG_LVL_DEBUG == 3, "level_names");
_Static_assert(RLA_MEAN == 0 && RLA_MAX == 1, "rla_names");

static int valid_ipv4(const void *, char *, size_t);
static int valid_path(const void *, char *, size_t);
static int valid_path_or_empty(const void *, char *, size_t);
static int valid_rt_priority(const void *, char *, size_t);
static int valid_home_path(const void *, char *, size_t);

static const struct conf_key conf_schema[] = {
	{ .path = "mode", .type = CT_ENUM, .def = "static", .off = OFF(mode),
	  .names = mode_names,
	  .help = "schedule used until a console speaks" },
	{ .path = "ip", .type = CT_DURATION, .min = MS(1), .max = SEC(60),
	  .def = "100ms", .unit = "s", .off = OFF(ip_ns),
	  .help = "iteration period IP = PS + LS" },
	{ .path = "ps", .type = CT_SLICE, .min = US(1), .max = SEC(60),
	  .def = "80%", .unit = "s or %", .off = OFF(ps_ns),
	  .off2 = OFF(ps_pct_milli),
	  .help = "parallel slice: a duration, or a share of ip" },
	{ .path = "si", .type = CT_DURATION, .min = MS(10), .max = SEC(3600),
	  .def = "10s", .unit = "s", .off = OFF(si_ns),
	  .help = "synchronization interval (console)" },
	{ .path = "sync", .type = CT_ENUM, .def = "arrival", .off = OFF(sync),
	  .names = sync_names,
	  .help = "PS starts when a datagram arrives, or on the clock" },
	{ .path = "silence", .type = CT_DURATION, .min = MS(10),
	  .max = SEC(3600), .def = "30s", .unit = "s", .off = OFF(silence_ns),
	  .help = "console silent this long: node reports itself "
	  "unsynchronized and keeps its last schedule" },
	{ .path = "port", .type = CT_INT, .min = 1, .max = 65535,
	  .def = "7746", .off = OFF(port), .help = "UDP control port" },
	{ .path = "bind", .type = CT_STRING, .def = "0.0.0.0", .off = OFF(bind),
	  .valid = valid_ipv4, .help = "IPv4 address of the control socket" },
	{ .path = "key_file", .type = CT_STRING, .def = SYSCONFDIR
	  "/dts/dts.key", .off = OFF(key_file), .valid = valid_path,
	  .help = "shared key, 64 hex digits, mode 0600 (dts -k FILE)" },
	{ .path = "insecure", .type = CT_BOOL, .def = "false",
	  .off = OFF(insecure),
	  .help = "run without a key (datagrams unauthenticated)" },
	{ .path = "replay_window", .type = CT_DURATION, .min = SEC(1),
	  .max = SEC(3600), .def = "30s", .unit = "s",
	  .off = OFF(replay_window_ns),
	  .help = "accept datagrams stamped at most this far from our clock" },
	{ .path = "pvmd", .type = CT_STRING, .def = PVMD_PATH, .off = OFF(pvmd),
	  .valid = valid_path, .help = "the real pvmd" },
	{ .path = "load_agent", .type = CT_STRING, .def = PKGLIBEXECDIR
	  "/dts-load", .off = OFF(load_agent), .valid = valid_path,
	  .help = "the Load agent" },
	{ .path = "user", .type = CT_STRING, .def = "", .off = OFF(user),
	  .help = "user pvmd and dts-load run as; \"\" = the invoking user" },
	{ .path = "backend", .type = CT_ENUM, .def = "signal",
	  .off = OFF(backend), .names = backend_names,
	  .help = "how the gang is stopped: killpg, or the cgroup freezer" },
	{ .path = "rt_priority", .type = CT_INT, .min = 0, .max = 99,
	  .def = "0", .off = OFF(rt_priority), .valid = valid_rt_priority,
	  .help = "SCHED_FIFO priority of dts (0 = the maximum); dts-load "
	  "runs at this-1, pvmd and the PVM tasks at this-2" },
	{ .path = "log_file", .type = CT_STRING, .def = "",
	  .off = OFF(log_file), .valid = valid_path_or_empty,
	  .help = "log to this file; \"\" = syslog" },
	{ .path = "log_level", .type = CT_ENUM, .def = "info",
	  .off = OFF(log_level), .names = level_names,
	  .help = "least important messages logged" },
	{ .path = "load.sample", .type = CT_DURATION, .min = MS(1),
	  .max = SEC(60), .def = "1s", .unit = "s", .off = OFF(load.sample_ns),
	  .help = "run-queue sampling period" },
	{ .path = "load.interval", .type = CT_DURATION, .min = MS(1),
	  .max = SEC(3600), .def = "10s", .unit = "s",
	  .off = OFF(load.interval_ns),
	  .help = "LI: a new load index every LI" },
	{ .path = "load.window", .type = CT_DURATION, .min = MS(1),
	  .max = SEC(86400), .def = "60s", .unit = "s",
	  .off = OFF(load.window_ns),
	  .help = "W of the smoothing, d = exp(-LI/W)" },
	{ .path = "load.threshold", .type = CT_FLOAT, .min = 0, .max = 1000,
	  .def = "1", .unit = "tasks", .off = OFF(load.threshold),
	  .help = "report when the index moved this much" },
	{ .path = "load.per_cpu", .type = CT_BOOL, .def = "true",
	  .off = OFF(load.per_cpu),
	  .help = "divide the run-queue length by the online CPUs" },
	{ .path = "load.table_step", .type = CT_FLOAT, .min = 0, .max = 100,
	  .flags = CF_MIN_OPEN, .def = "0.5", .unit = "tasks",
	  .off = OFF(load.table.step),
	  .help = "load covered by each entry of load.table" },
	{ .path = "load.table", .type = CT_INTLIST, .min = 1, .max = 99,
	  .def = "10,20,30,40,50,60,70,80,90", .unit = "% of ip",
	  .off = OFF(load.table),
	  .help = "LS as a share of IP by load (Table 2.1)" },
	{ .path = "console.dts", .type = CT_STRING, .def = SBINDIR "/dts",
	  .off = OFF(console.dts), .valid = valid_path,
	  .help = "dts, started by the console when no pvmd runs" },
	{ .path = "console.launcher", .type = CT_STRING, .def = PKGLIBEXECDIR
	  "/pvmd", .off = OFF(console.launcher), .valid = valid_path,
	  .help = "launch script for slaves (PVM_DPATH, dx=)" },
	{ .path = "console.pvm_tmp", .type = CT_STRING, .def = "",
	  .off = OFF(console.pvm_tmp), .valid = valid_path_or_empty,
	  .help = "PVM_TMP of the master; \"\" = $PVM_TMP, else "
	  "/tmp/dts-console.UID" },
	{ .path = "console.history", .type = CT_STRING,
	  .def = "~/.dts_history", .off = OFF(console.history),
	  .valid = valid_home_path,
	  .help = "command history file; \"\" = none" },
	{ .path = "console.start_wait", .type = CT_DURATION, .min = MS(100),
	  .max = SEC(600), .def = "30s", .unit = "s",
	  .off = OFF(console.start_wait_ns),
	  .help = "wait this long for a master pvmd started by the console" },
	{ .path = "console.timeout", .type = CT_DURATION, .min = MS(10),
	  .max = SEC(86400), .def = "30s", .unit = "s",
	  .off = OFF(console.timeout_ns),
	  .help = "a node silent this long leaves the RLA" },
	{ .path = "console.status_wait", .type = CT_DURATION, .min = MS(1),
	  .max = SEC(60), .def = "300ms", .unit = "s",
	  .off = OFF(console.status_wait_ns),
	  .help = "how long status collects replies" },
	{ .path = "console.unicast", .type = CT_BOOL, .def = "false",
	  .off = OFF(console.unicast),
	  .help = "send to each PVM host instead of subnet broadcast" },
	{ .path = "console.nodes", .type = CT_STRLIST, .def = "",
	  .off = OFF(console.nodes), .valid = valid_ipv4,
	  .help = "send to these IPv4 addresses only" },
	{ .path = "console.rla", .type = CT_ENUM, .def = "mean",
	  .off = OFF(console.rla), .names = rla_names,
	  .help = "balanced: RLA is the mean or the max of Q/W" },
	{ .path = "console.hysteresis", .type = CT_FLOAT, .min = 0,
	  .max = 100, .def = "0.5", .unit = "tasks",
	  .off = OFF(console.hysteresis),
	  .help = "balanced: act when the RLA moved more than this" },
};
#define NKEYS (sizeof(conf_schema) / sizeof(conf_schema[0]))

static const char *const type_names[] = { "string", "int", "bool", "float",
    "duration", "slice", "enum", "intlist", "strlist" };

/* ---- validators ------------------------------------------------------ */

static int
valid_ipv4(const void *p, char *why, size_t len)
{
	struct in_addr	 a;

	if (inet_pton(AF_INET, p, &a) == 1)
		return 0;
	snprintf(why, len, "\"%s\" is not an IPv4 address (e.g. 0.0.0.0)",
	    (const char *)p);
	return -1;
}

static int
valid_path(const void *p, char *why, size_t len)
{
	if (((const char *)p)[0] == '/')
		return 0;
	snprintf(why, len, "\"%s\" is not an absolute path", (const char *)p);
	return -1;
}

static int
valid_path_or_empty(const void *p, char *why, size_t len)
{
	return ((const char *)p)[0] == '\0' ? 0 : valid_path(p, why, len);
}

/* "", an absolute path, or one under the home directory ("~/x"). */
static int
valid_home_path(const void *p, char *why, size_t len)
{
	if (strncmp(p, "~/", 2) == 0)
		return 0;
	return valid_path_or_empty(p, why, len);
}

static int
valid_rt_priority(const void *p, char *why, size_t len)
{
	int	 v = *(const int *)p;

	if (v != 1 && v != 2)
		return 0;
	snprintf(why, len, "%d is too low: dts-load runs at rt_priority-1 and "
	    "pvmd at rt_priority-2, so use 0 (the maximum) or 3..99", v);
	return -1;
}

/* ---- formatting -------------------------------------------------------- */

static const struct conf_key *
key_find(const char *path)
{
	size_t	 i;

	for (i = 0; i < NKEYS; i++)
		if (strcmp(conf_schema[i].path, path) == 0)
			return &conf_schema[i];
	return NULL;
}

/* Shortest "%g" that reads back as v. */
static const char *
float_format(double v, char *buf, size_t len)
{
	int	 prec;

	if (v == floor(v) && fabs(v) < 1e15) {
		snprintf(buf, len, "%.0f", v);
		return buf;
	}
	for (prec = 1; prec < 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (prec == 17)
		snprintf(buf, len, "%.17g", v);
	return buf;
}

static const char *
bound_format(const struct conf_key *k, double v, char *buf, size_t len)
{
	if (k->type == CT_DURATION || k->type == CT_SLICE)
		return duration_format((int64_t)v, buf, len);
	return float_format(v, buf, len);
}

/* "[1ms, 60s]", "(0, 100]", "off|static|..." or "-" */
static const char *
range_format(const struct conf_key *k, char *buf, size_t len)
{
	char	 lo[32], hi[32];
	size_t	 i, n = 0;

	if (k->type == CT_ENUM) {
		buf[0] = '\0';
		for (i = 0; k->names[i] != NULL && n < len; i++)
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
			    i > 0 ? "|" : "", k->names[i]);
		return buf;
	}
	if (k->min == 0 && k->max == 0) {
		snprintf(buf, len, "-");
		return buf;
	}
	snprintf(buf, len, "%c%s, %s]", k->flags & CF_MIN_OPEN ? '(' : '[',
	    bound_format(k, k->min, lo, sizeof(lo)),
	    bound_format(k, k->max, hi, sizeof(hi)));
	return buf;
}

static const char *
names_list(const struct conf_key *k, char *buf, size_t len)
{
	size_t	 i, n = 0;

	buf[0] = '\0';
	for (i = 0; k->names[i] != NULL && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s",
		    i == 0 ? "" : k->names[i + 1] == NULL ? " or " : ", ",
		    k->names[i]);
	return buf;
}

/* pct_milli 80000 -> "80%", 62500 -> "62.5%" */
static const char *
pct_format(int32_t pm, char *buf, size_t len)
{
	char	 frac[8] = "";
	int	 n;

	if (pm % 1000 != 0) {
		n = snprintf(frac, sizeof(frac), ".%03d", (int)(pm % 1000));
		while (n > 1 && frac[n - 1] == '0')
			frac[--n] = '\0';
	}
	snprintf(buf, len, "%d%s%%", (int)(pm / 1000), frac);
	return buf;
}

/* ---- checks of one key ------------------------------------------------- */

static int
out_of_range(const struct conf_key *k, double v, char *why, size_t len)
{
	char	 val[32], rng[80];

	if (v <= k->max && (v > k->min || (v == k->min &&
	    !(k->flags & CF_MIN_OPEN))))
		return 0;
	snprintf(why, len, "%s is out of range %s",
	    bound_format(k, v, val, sizeof(val)),
	    range_format(k, rng, sizeof(rng)));
	return -1;
}

static int
list_check(const struct conf_key *k, const struct load_table *t, char *why,
    size_t len)
{
	char	 rng[80];
	int	 i;

	if (t->n < 1 || t->n > LOADTAB_MAX) {
		snprintf(why, len, "has %d entries; it needs 1 to %d", t->n,
		    LOADTAB_MAX);
		return -1;
	}
	for (i = 0; i < t->n; i++)
		if (t->ls_pct[i] < k->min || t->ls_pct[i] > k->max) {
			snprintf(why, len, "entry %d is %d, out of range %s",
			    i + 1, t->ls_pct[i],
			    range_format(k, rng, sizeof(rng)));
			return -1;
		}
	return 0;
}

static int
strlist_check(const struct conf_key *k, const struct conf_strlist *l,
    char *why, size_t len)
{
	char	 w[200];
	int	 i;

	if (l->n < 0 || l->n > CONF_LIST_MAX) {
		snprintf(why, len, "has %d entries; at most %d", l->n,
		    CONF_LIST_MAX);
		return -1;
	}
	for (i = 0; i < l->n && k->valid != NULL; i++)
		if (k->valid(l->s[i], w, sizeof(w)) == -1) {
			snprintf(why, len, "entry %d: %s", i + 1, w);
			return -1;
		}
	return 0;
}

/* Range and validity of the value stored in c; -1 with a reason. */
static int
key_check(const struct conf_key *k, const struct dts_conf *c, char *why,
    size_t len)
{
	const void	*p = CFLD(c, k->off, char);
	char		 buf[32];
	int32_t		 pct;
	int		 n;

	switch (k->type) {
	case CT_INT:
		if (out_of_range(k, *(const int *)p, why, len) == -1)
			return -1;
		break;
	case CT_FLOAT:
		if (out_of_range(k, *(const double *)p, why, len) == -1)
			return -1;	/* NaN too */
		break;
	case CT_DURATION:
		return out_of_range(k, (double)*(const int64_t *)p, why, len);
	case CT_SLICE:
		pct = *CFLD(c, k->off2, int32_t);
		if (pct < 0)
			return out_of_range(k, (double)*(const int64_t *)p,
			    why, len);
		if (pct == 0 || pct >= 100000) {
			snprintf(why, len, "%s is not between 0%% and 100%%",
			    pct_format(pct, buf, sizeof(buf)));
			return -1;
		}
		break;
	case CT_INTLIST:
		return list_check(k, p, why, len);
	case CT_STRLIST:
		return strlist_check(k, p, why, len);
	case CT_ENUM:
		for (n = 0; k->names[n] != NULL; n++)
			;
		if (*(const int *)p < 0 || *(const int *)p >= n) {
			snprintf(why, len, "%d is not a valid value",
			    *(const int *)p);
			return -1;
		}
		break;
	case CT_BOOL:
	case CT_STRING:
		break;
	}
	return k->valid != NULL ? k->valid(p, why, len) : 0;
}

/* ---- conversion --------------------------------------------------------- */

/* "10, 20, 30": only defaults are lists in text; the file uses [...]. */
static int
list_parse(struct load_table *t, const char *s, char *why, size_t len)
{
	const char	*p = s;
	char		*end;
	long		 v;
	int		 n = 0;

	for (;;) {
		errno = 0;
		v = strtol(p, &end, 10);
		if (end == p || errno != 0 || v < INT_MIN || v > INT_MAX ||
		    n == LOADTAB_MAX)
			break;
		t->ls_pct[n++] = (int)v;
		p = end + strspn(end, " \t");
		if (*p != ',') {
			if (*p != '\0')
				break;
			t->n = n;
			return 0;
		}
		p++;
	}
	snprintf(why, len, "\"%s\": not a list of at most %d integers", s,
	    LOADTAB_MAX);
	return -1;
}

/* "a, b": only defaults are lists in text; the file uses [...]. */
static int
strlist_parse(struct conf_strlist *l, const char *s, char *why, size_t len)
{
	size_t	 n;

	l->n = 0;
	for (s += strspn(s, ", \t"); *s != '\0'; s += strspn(s, ", \t")) {
		n = strcspn(s, ", \t");
		if (l->n == CONF_LIST_MAX || n >= CONF_ITEM_MAX) {
			snprintf(why, len, "too long a list");
			return -1;
		}
		memcpy(l->s[l->n], s, n);
		l->s[l->n++][n] = '\0';
		s += n;
	}
	return 0;
}

static int
enum_parse(const struct conf_key *k, const char *s, int *v, char *why,
    size_t len)
{
	char	 names[128];
	int	 i;

	for (i = 0; k->names[i] != NULL; i++)
		if (strcmp(k->names[i], s) == 0) {
			*v = i;
			return 0;
		}
	snprintf(why, len, "\"%s\" is not one of %s", s,
	    names_list(k, names, sizeof(names)));
	return -1;
}

static int
number_parse(const char *s, double *v, char *why, size_t len)
{
	char	*end;

	errno = 0;
	*v = strtod(s, &end);
	if (end != s && *end == '\0' && errno == 0)
		return 0;
	snprintf(why, len, "\"%s\" is not a number", s);
	return -1;
}

/* Store a value given as text: a default, or a string in the file. */
static int
key_set_text(const struct conf_key *k, struct dts_conf *c, const char *s,
    char *why, size_t len)
{
	void	*p = FLD(c, k->off, char);
	double	 d;

	switch (k->type) {
	case CT_STRING:
		if (strlen(s) >= CONF_STR_MAX) {
			snprintf(why, len, "longer than %d bytes",
			    CONF_STR_MAX - 1);
			return -1;
		}
		memcpy(p, s, strlen(s) + 1);
		return 0;
	case CT_BOOL:
		if (strcmp(s, "true") != 0 && strcmp(s, "false") != 0) {
			snprintf(why, len, "\"%s\" is not true or false", s);
			return -1;
		}
		*(int *)p = s[0] == 't';
		return 0;
	case CT_FLOAT:
		return number_parse(s, p, why, len);
	case CT_INT:
		if (number_parse(s, &d, why, len) == -1)
			return -1;
		if (d != floor(d)) {
			snprintf(why, len, "\"%s\" is not an integer", s);
			return -1;
		}
		if (d < INT_MIN || d > INT_MAX)
			return out_of_range(k, d, why, len);
		*(int *)p = (int)d;
		return 0;
	case CT_DURATION:
		return duration_parse(s, p, why, len);
	case CT_SLICE:
		return slice_parse(s, p, FLD(c, k->off2, int32_t), why, len);
	case CT_ENUM:
		return enum_parse(k, s, p, why, len);
	case CT_INTLIST:
		return list_parse(p, s, why, len);
	case CT_STRLIST:
		return strlist_parse(p, s, why, len);
	}
	return -1;
}

static const char *
setting_kind(const config_setting_t *st)
{
	switch (config_setting_type(st)) {
	case CONFIG_TYPE_GROUP:		return "a group";
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:		return "an integer";
	case CONFIG_TYPE_FLOAT:		return "a floating-point number";
	case CONFIG_TYPE_STRING:	return "a string";
	case CONFIG_TYPE_BOOL:		return "a boolean";
	case CONFIG_TYPE_ARRAY:		return "an array";
	case CONFIG_TYPE_LIST:		return "a list";
	default:			return "nothing";
	}
}

static int
wrong_type(const struct conf_key *k, const config_setting_t *st, char *why,
    size_t len)
{
	static const char *const expect[] = {
		"a string in quotes", "an integer", "true or false",
		"a number", "a duration (\"800ms\", or a number of seconds)",
		"a duration or a share of ip (\"80%\")", "a name in quotes",
		"a list of integers ([10, 20, ...])",
		"a list of strings ([\"10.0.0.1\", ...])" };

	snprintf(why, len, "expected %s, not %s", expect[k->type],
	    setting_kind(st));
	return -1;
}

/* A duration given as a number of seconds. */
static int
seconds_set(const struct conf_key *k, struct dts_conf *c, double sec,
    char *why, size_t len)
{
	if (sec < 0 || isnan(sec)) {
		snprintf(why, len, "%g: a duration cannot be negative", sec);
		return -1;
	}
	if (sec > 9e9) {		/* ~285 years: int64 ns end near 292 */
		snprintf(why, len, "%g s is too large", sec);
		return -1;
	}
	*FLD(c, k->off, int64_t) = llround(sec * NS_PER_SEC);
	if (k->type == CT_SLICE)
		*FLD(c, k->off2, int32_t) = -1;
	return 0;
}

static int
list_set(const struct conf_key *k, struct dts_conf *c,
    const config_setting_t *st, char *why, size_t len)
{
	struct load_table	*t = FLD(c, k->off, struct load_table);
	const config_setting_t	*e;
	int			 i, n = config_setting_length(st);

	if (n < 1 || n > LOADTAB_MAX) {
		snprintf(why, len, "has %d entries; it needs 1 to %d", n,
		    LOADTAB_MAX);
		return -1;
	}
	for (i = 0; i < n; i++) {
		e = config_setting_get_elem(st, (unsigned)i);
		if (config_setting_type(e) != CONFIG_TYPE_INT) {
			snprintf(why, len, "entry %d is %s, not an integer",
			    i + 1, setting_kind(e));
			return -1;
		}
		t->ls_pct[i] = config_setting_get_int(e);
	}
	t->n = n;
	return 0;
}

static int
strlist_set(const struct conf_key *k, struct dts_conf *c,
    const config_setting_t *st, char *why, size_t len)
{
	struct conf_strlist	*l = FLD(c, k->off, struct conf_strlist);
	const config_setting_t	*e;
	const char		*v;
	int			 i, n = config_setting_length(st);

	if (n > CONF_LIST_MAX) {
		snprintf(why, len, "has %d entries; at most %d", n,
		    CONF_LIST_MAX);
		return -1;
	}
	for (i = 0; i < n; i++) {
		e = config_setting_get_elem(st, (unsigned)i);
		if (config_setting_type(e) != CONFIG_TYPE_STRING) {
			snprintf(why, len, "entry %d is %s, not a string",
			    i + 1, setting_kind(e));
			return -1;
		}
		v = config_setting_get_string(e);
		if (strlen(v) >= CONF_ITEM_MAX) {
			snprintf(why, len, "entry %d is longer than %d bytes",
			    i + 1, CONF_ITEM_MAX - 1);
			return -1;
		}
		snprintf(l->s[i], CONF_ITEM_MAX, "%s", v);
	}
	l->n = n;
	return 0;
}

/* A number in the file: an integer, a float, or a duration in seconds. */
static int
number_set(const struct conf_key *k, struct dts_conf *c,
    const config_setting_t *st, char *why, size_t len)
{
	int	 is_float = config_setting_type(st) == CONFIG_TYPE_FLOAT;
	double	 d = is_float ? config_setting_get_float(st) :
		    (double)config_setting_get_int64(st);

	switch (k->type) {
	case CT_INT:
		if (is_float)
			return wrong_type(k, st, why, len);
		if (d < INT_MIN || d > INT_MAX)
			return out_of_range(k, d, why, len);
		*FLD(c, k->off, int) = (int)config_setting_get_int64(st);
		return 0;
	case CT_FLOAT:
		*FLD(c, k->off, double) = d;
		return 0;
	case CT_DURATION:
	case CT_SLICE:
		return seconds_set(k, c, d, why, len);
	default:
		return wrong_type(k, st, why, len);
	}
}

/* Store the value of one setting of the file. */
static int
key_set(const struct conf_key *k, struct dts_conf *c,
    const config_setting_t *st, char *why, size_t len)
{
	switch (config_setting_type(st)) {
	case CONFIG_TYPE_STRING:
		if (k->type == CT_STRING || k->type == CT_DURATION ||
		    k->type == CT_SLICE || k->type == CT_ENUM)
			return key_set_text(k, c, config_setting_get_string(st),
			    why, len);
		break;
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
	case CONFIG_TYPE_FLOAT:
		return number_set(k, c, st, why, len);
	case CONFIG_TYPE_BOOL:
		if (k->type == CT_BOOL) {
			*FLD(c, k->off, int) = config_setting_get_bool(st);
			return 0;
		}
		break;
	case CONFIG_TYPE_ARRAY:
	case CONFIG_TYPE_LIST:
		if (k->type == CT_INTLIST)
			return list_set(k, c, st, why, len);
		if (k->type == CT_STRLIST)
			return strlist_set(k, c, st, why, len);
		break;
	}
	return wrong_type(k, st, why, len);
}

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
	for (i = 0; i < NKEYS; i++)
		if (key_set_text(&conf_schema[i], c, conf_schema[i].def, why,
		    sizeof(why)) == -1)
			fatalx("conf: bad default for %s: %s",
			    conf_schema[i].path, why);
	resolve_slices(c);
}

static int
is_group(const char *path)
{
	size_t	 i, n = strlen(path);

	for (i = 0; i < NKEYS; i++)
		if (strncmp(conf_schema[i].path, path, n) == 0 &&
		    conf_schema[i].path[n] == '.')
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
	for (i = 0; i < NKEYS; i++) {
		last = strrchr(conf_schema[i].path, '.');
		last = last != NULL ? last + 1 : conf_schema[i].path;
		if (strcmp(last, name) == 0)
			return conf_schema[i].path;
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
		if (key_find(path) != NULL)
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
			    setting_kind(st));
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
	for (k = conf_schema; k < conf_schema + NKEYS; k++) {
		if ((st = config_lookup(cfg, k->path)) == NULL)
			continue;
		if (key_set(k, c, st, why, sizeof(why)) == -1 ||
		    key_check(k, c, why, sizeof(why)) == -1) {
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

/* ---- checks across keys ------------------------------------------------- */

static int
check_rt(const struct dts_conf *c, const char *file, char *err, size_t errlen)
{
	const struct load_table	*t = &c->load.table;
	char			 why[400];
	long			 rt, per;
	int			 i;

	rt_budget_read(&rt, &per);
	if (rt_budget_check(c->ps_ns, c->ip_ns, rt, per, why,
	    sizeof(why)) == -1) {
		snprintf(err, errlen, "%s: ps/ip: %s", file, why);
		return -1;
	}
	for (i = 0; i < t->n; i++)
		if (rt_budget_check(c->ip_ns * (100 - t->ls_pct[i]) / 100,
		    c->ip_ns, rt, per, why, sizeof(why)) == -1) {
			snprintf(err, errlen, "%s: load.table entry %d (LS "
			    "%d%%): %s", file, i + 1, t->ls_pct[i], why);
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

	for (i = 0; i < NKEYS; i++)
		if (key_check(&conf_schema[i], c, why, sizeof(why)) == -1) {
			snprintf(err, errlen, "%s: %s: %s", file,
			    conf_schema[i].path, why);
			return -1;
		}
	if (c->ps_ns <= 0 || c->ps_ns >= c->ip_ns) {
		snprintf(err, errlen, "%s: ps %s must be shorter than ip %s "
		    "(IP = PS + LS, and LS cannot be empty)", file,
		    duration_format(c->ps_ns, a, sizeof(a)),
		    duration_format(c->ip_ns, b, sizeof(b)));
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
	return check_rt(c, file, err, errlen);
}

/* ---- output --------------------------------------------------------------- */

static void
string_print(const char *s, FILE *out)
{
	fputc('"', out);
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(out, "\\x%02x", (unsigned char)*s);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

static void
value_print(const struct conf_key *k, const struct dts_conf *c, FILE *out)
{
	const void		*p = CFLD(c, k->off, char);
	const struct load_table	*t = p;
	const struct conf_strlist *l = p;
	char			 buf[64];
	int32_t			 pct;
	int			 i;

	switch (k->type) {
	case CT_STRING:
		string_print(p, out);
		break;
	case CT_INT:
		fprintf(out, "%d", *(const int *)p);
		break;
	case CT_BOOL:
		fputs(*(const int *)p ? "true" : "false", out);
		break;
	case CT_FLOAT:
		fputs(float_format(*(const double *)p, buf, sizeof(buf)), out);
		break;
	case CT_SLICE:
		if ((pct = *CFLD(c, k->off2, int32_t)) >= 0) {
			fprintf(out, "\"%s\"", pct_format(pct, buf,
			    sizeof(buf)));
			break;
		}
		/* FALLTHROUGH */
	case CT_DURATION:
		fprintf(out, "\"%s\"", duration_format(*(const int64_t *)p,
		    buf, sizeof(buf)));
		break;
	case CT_ENUM:
		fprintf(out, "\"%s\"", k->names[*(const int *)p]);
		break;
	case CT_INTLIST:
		fputc('[', out);
		for (i = 0; i < t->n; i++)
			fprintf(out, "%s%d", i > 0 ? ", " : "", t->ls_pct[i]);
		fputc(']', out);
		break;
	case CT_STRLIST:
		fputc('[', out);
		for (i = 0; i < l->n; i++) {
			fputs(i > 0 ? ", " : "", out);
			string_print(l->s[i], out);
		}
		fputc(']', out);
		break;
	}
}

void
conf_print(const struct dts_conf *c, FILE *out)
{
	const struct conf_key	*k;
	const char		*dot, *group = NULL;
	size_t			 glen = 0;

	fprintf(out, "# dts.conf: effective configuration%s%s\n",
	    c->file[0] != '\0' ? " from " : " (defaults)", c->file);
	for (k = conf_schema; k < conf_schema + NKEYS; k++) {
		dot = strchr(k->path, '.');
		if (group != NULL && (dot == NULL || (size_t)(dot - k->path) !=
		    glen || strncmp(k->path, group, glen) != 0)) {
			fputs("};\n", out);
			group = NULL;
		}
		if (dot != NULL && group == NULL) {
			group = k->path;
			glen = (size_t)(dot - k->path);
			fprintf(out, "%.*s = {\n", (int)glen, group);
		}
		fprintf(out, "%s%s = ", group != NULL ? "\t" : "",
		    group != NULL ? dot + 1 : k->path);
		value_print(k, c, out);
		fputs(";\n", out);
	}
	if (group != NULL)
		fputs("};\n", out);
}

void
conf_schema_print(FILE *out)
{
	const struct conf_key	*k;
	char			 r[96], rng[128], def[CONF_STR_MAX + 4];

	for (k = conf_schema; k < conf_schema + NKEYS; k++) {
		range_format(k, r, sizeof(r));
		if (k->type == CT_INTLIST)
			snprintf(rng, sizeof(rng), "1..%d of %s", LOADTAB_MAX,
			    r);
		else
			snprintf(rng, sizeof(rng), "%s", r);
		if (k->type == CT_INTLIST || k->type == CT_STRLIST)
			snprintf(def, sizeof(def), "[%s]", k->def);
		else if (k->def[0] == '\0')
			snprintf(def, sizeof(def), "\"\"");
		else
			snprintf(def, sizeof(def), "%s", k->def);
		fprintf(out, "%-16s %-8s %-24s %-14s %-7s \u2014 %s\n", k->path,
		    type_names[k->type], rng, def,
		    k->unit != NULL ? k->unit : "-", k->help);
	}
}

/* ---- Table 2.1 -------------------------------------------------------------- */

int
loadtab_ls_pct(const struct load_table *t, double load)
{
	int	 i;

	if (t->n < 1)
		return 0;
	if (isnan(load))
		return t->ls_pct[t->n - 1];	/* most care for local users */
	for (i = 0; i < t->n - 1; i++)
		if (load <= (i + 1) * t->step)
			return t->ls_pct[i];
	return t->ls_pct[t->n - 1];
}
