/*
 * conf_print.c - the whole of dts.conf as text: conf_print() (the effective
 * configuration, in dts.conf syntax, which reads back the same) and
 * conf_schema_print() (the schema, one key a line), and one key's value
 * as text (conf_value_format) and type (conf_key_type, conf_key_names).
 * On top of the schema (conf_schema.h); nothing in the module calls it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_schema.h"
#include "timeutil.h"

static const char *const type_names[] = { "string", "int", "bool", "float",
    "duration", "slice", "enum", "intlist", "strlist" };

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

/*
 * k's value in c: in dts.conf syntax (strings, durations and names
 * quoted, lists in brackets) if quote, else in the text syntax of the
 * defaults and of `set` ("30s", "mean", "10, 20"), which
 * conf_value_set() reads back.
 */
static void
value_print(const struct conf_key *k, const struct dts_conf *c, int quote,
    FILE *out)
{
	const void		*p = CFLD(c, k->off, char);
	const struct load_table	*t = p;
	const struct conf_strlist *l = p;
	const char		*q = quote ? "\"" : "";
	char			 buf[64];
	int32_t			 pct;
	int			 i;

	switch (k->type) {
	case CT_STRING:
		if (quote)
			string_print(p, out);
		else
			fputs(p, out);
		break;
	case CT_INT:
		fprintf(out, "%d", *(const int *)p);
		break;
	case CT_BOOL:
		fputs(*(const int *)p ? "true" : "false", out);
		break;
	case CT_FLOAT:
		fputs(conffmt_float(*(const double *)p, buf, sizeof(buf)), out);
		break;
	case CT_SLICE:
		if ((pct = *CFLD(c, k->off2, int32_t)) >= 0) {
			fprintf(out, "%s%s%s", q, conffmt_pct(pct, buf,
			    sizeof(buf)), q);
			break;
		}
		/* FALLTHROUGH */
	case CT_DURATION:
		fprintf(out, "%s%s%s", q, duration_format(*(const int64_t *)p,
		    buf, sizeof(buf)), q);
		break;
	case CT_ENUM:
		fprintf(out, "%s%s%s", q, k->names[*(const int *)p], q);
		break;
	case CT_INTLIST:
		fputs(quote ? "[" : "", out);
		for (i = 0; i < t->n; i++)
			fprintf(out, "%s%d", i > 0 ? ", " : "", t->ls_pct[i]);
		fputs(quote ? "]" : "", out);
		break;
	case CT_STRLIST:
		fputs(quote ? "[" : "", out);
		for (i = 0; i < l->n; i++) {
			fputs(i > 0 ? ", " : "", out);
			if (quote)
				string_print(l->s[i], out);
			else
				fputs(l->s[i], out);
		}
		fputs(quote ? "]" : "", out);
		break;
	}
}

const char *
conf_value_format(const struct dts_conf *c, const char *path, char *buf,
    size_t len)
{
	const struct conf_key	*k = confkey_find(path);
	char			*s = NULL;
	size_t			 n = 0;
	FILE			*fp;

	if (k == NULL || (fp = open_memstream(&s, &n)) == NULL) {
		snprintf(buf, len, "?");
		return buf;
	}
	value_print(k, c, 0, fp);
	fclose(fp);
	snprintf(buf, len, "%s", s != NULL ? s : "?");
	free(s);
	return buf;
}

const char *
conf_key_type(const char *path)
{
	const struct conf_key	*k = confkey_find(path);

	return k != NULL ? type_names[k->type] : NULL;
}

const char *const *
conf_key_names(const char *path)
{
	const struct conf_key	*k = confkey_find(path);

	return k != NULL && k->type == CT_ENUM ? k->names : NULL;
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
		value_print(k, c, 1, out);
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
