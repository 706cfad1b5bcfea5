/*
 * conf_print.c - dts.conf as text: the formatting of values and ranges
 * (also used in error messages), conf_print() (the effective configuration,
 * in dts.conf syntax) and conf_schema_print() (the schema, one key a line).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_priv.h"
#include "timeutil.h"

static const char *const type_names[] = { "string", "int", "bool", "float",
    "duration", "slice", "enum", "intlist", "strlist" };

/* ---- formatting ---------------------------------------------------------- */

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

const char *
conffmt_bound(const struct conf_key *k, double v, char *buf, size_t len)
{
	if (k->type == CT_DURATION || k->type == CT_SLICE)
		return duration_format((int64_t)v, buf, len);
	return float_format(v, buf, len);
}

/* "[1ms, 60s]", "(0, 100]", "off|static|..." or "-" */
const char *
conffmt_range(const struct conf_key *k, char *buf, size_t len)
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
	    conffmt_bound(k, k->min, lo, sizeof(lo)),
	    conffmt_bound(k, k->max, hi, sizeof(hi)));
	return buf;
}

const char *
conffmt_names(const struct conf_key *k, char *buf, size_t len)
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
const char *
conffmt_pct(int32_t pm, char *buf, size_t len)
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

/* ---- output -------------------------------------------------------------- */

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
			fprintf(out, "\"%s\"", conffmt_pct(pct, buf,
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
	for (k = confkey_schema; k < confkey_schema + confkey_nkeys; k++) {
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

	for (k = confkey_schema; k < confkey_schema + confkey_nkeys; k++) {
		conffmt_range(k, r, sizeof(r));
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
