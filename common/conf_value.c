/*
 * conf_value.c - one value of dts.conf: from text (a default, or a string in
 * the file) or from a libconfig setting of the file, into the field of
 * struct dts_conf that its key names.  Type errors say what was expected.
 */
#include <errno.h>
#include <libconfig.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf_value.h"
#include "names.h"
#include "timeutil.h"

/* ---- text ---------------------------------------------------------------- */

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

	if ((*v = names_find(k->names, s)) != -1)
		return 0;
	snprintf(why, len, "\"%s\" is not one of %s", s,
	    conffmt_names(k, names, sizeof(names)));
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
int
confval_set_text(const struct conf_key *k, struct dts_conf *c, const char *s,
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
		/* any case, as libconfig reads them in the file */
		if (strcasecmp(s, "true") != 0 && strcasecmp(s, "false") != 0) {
			snprintf(why, len, "\"%s\" is not true or false", s);
			return -1;
		}
		*(int *)p = strcasecmp(s, "true") == 0;
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
			return confkey_out_of_range(k, d, why, len);
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

/* ---- settings of the file ------------------------------------------------ */

const char *
confval_kind(const config_setting_t *st)
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
	    confval_kind(st));
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
			    i + 1, confval_kind(e));
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
			    i + 1, confval_kind(e));
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
			return confkey_out_of_range(k, d, why, len);
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
int
confval_set(const struct conf_key *k, struct dts_conf *c,
    const config_setting_t *st, char *why, size_t len)
{
	switch (config_setting_type(st)) {
	case CONFIG_TYPE_STRING:
		if (k->type == CT_STRING || k->type == CT_DURATION ||
		    k->type == CT_SLICE || k->type == CT_ENUM)
			return confval_set_text(k, c,
			    config_setting_get_string(st), why, len);
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
