/*
 * promparse.c - a strict reader of Prometheus's text format.  See
 * promparse.h for what it takes.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "promparse.h"

#define LABELS_PER_SAMPLE 16

struct label {
	char	 k[PROM_NAME_MAX];
	char	 v[PROM_VALUE_MAX];
};

struct reader {
	struct prom_doc	*d;
	int		 line;
	/* the family being read */
	int		 open, help, first;
	char		 fam[PROM_NAME_MAX];
	char		 type[16];		/* "" until its TYPE */
	/* every family begun */
	char		(*seen)[PROM_NAME_MAX];
	int		 nseen;
};

static int
fail(struct reader *r, const char *fmt, ...)
{
	va_list	 ap;
	int	 n;

	n = snprintf(r->d->err, sizeof(r->d->err), "line %d: ", r->line);
	va_start(ap, fmt);
	vsnprintf(r->d->err + n, sizeof(r->d->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static int
is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The length of the name at p (a metric's may hold ':'), 0 if none. */
static size_t
name_len(const char *p, int metric)
{
	size_t	 n = 0;

	while (is_alpha(p[n]) || (metric && p[n] == ':') ||
	    (n > 0 && is_digit(p[n])))
		n++;
	return n;
}

static size_t
digits(const char *p)
{
	size_t	 n = 0;

	while (is_digit(p[n]))
		n++;
	return n;
}

/* A decimal float ([+-]d[.d][e[+-]d]), +Inf, -Inf or NaN: 0 or -1. */
static int
value_parse(const char *s, double *v)
{
	const char	*p = s;
	size_t		 n;

	if (strcmp(s, "+Inf") == 0 || strcmp(s, "-Inf") == 0 ||
	    strcmp(s, "NaN") == 0) {
		*v = s[0] == 'N' ? NAN : s[0] == '+' ? INFINITY : -INFINITY;
		return 0;
	}
	if (*p == '+' || *p == '-')
		p++;
	n = digits(p);
	p += n;
	if (*p == '.') {
		p++;
		n += digits(p);
		p += digits(p);
	}
	if (n == 0)
		return -1;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (digits(p) == 0)
			return -1;
		p += digits(p);
	}
	if (*p != '\0')
		return -1;
	*v = strtod(s, NULL);
	return 0;
}

/* Escapes allowed: \\ and \n, and \" if quote.  0 or -1. */
static int
escapes_ok(const char *s, int quote)
{
	for (; *s != '\0'; s++) {
		if (*s != '\\')
			continue;
		s++;
		if (*s != '\\' && *s != 'n' && !(quote && *s == '"'))
			return -1;
	}
	return 0;
}

/* A quoted label value at *p (after the quote); up to the closing one. */
static int
label_value(struct reader *r, const char **pp, char *v, size_t cap)
{
	const char	*p = *pp;
	size_t		 n = 0;

	while (*p != '"') {
		if (*p == '\0')
			return fail(r, "unterminated label value");
		if (*p == '\\' && p[1] != '\\' && p[1] != '"' && p[1] != 'n')
			return fail(r, "bad escape \\%c in a label value",
			    p[1]);
		if (n + 2 >= cap)
			return fail(r, "label value too long");
		if (*p == '\\')
			v[n++] = *p++;
		v[n++] = *p++;
	}
	v[n] = '\0';
	*pp = p + 1;
	return 0;
}

static int
label_cmp(const void *a, const void *b)
{
	return strcmp(((const struct label *)a)->k,
	    ((const struct label *)b)->k);
}

/* {k="v",...} at *pp into l; the count, or -1. */
static int
labels_parse(struct reader *r, const char **pp, struct label *l)
{
	const char	*p = *pp + 1;
	size_t		 n;
	int		 nl = 0;

	while (*p != '}') {
		if (nl == LABELS_PER_SAMPLE)
			return fail(r, "too many labels");
		if ((n = name_len(p, 0)) == 0 || n >= PROM_NAME_MAX)
			return fail(r, "bad label name");
		memcpy(l[nl].k, p, n);
		l[nl].k[n] = '\0';
		if (strncmp(l[nl].k, "__", 2) == 0)
			return fail(r, "reserved label name %s", l[nl].k);
		p += n;
		if (p[0] != '=' || p[1] != '"')
			return fail(r, "label %s: no =\"", l[nl].k);
		p += 2;
		if (label_value(r, &p, l[nl].v, sizeof(l[nl].v)) == -1)
			return -1;
		nl++;
		if (*p == ',' && p[1] != '}')
			p++;
		else if (*p != '}')
			return fail(r, "labels: expected , or }");
	}
	*pp = p + 1;
	return nl;
}

/* The canonical label sets of s (sorted; base without le); 0 or -1. */
static int
canonical(struct reader *r, struct prom_sample *s, struct label *l, int nl,
    int *has_le)
{
	size_t	 a = 0, b = 0;
	int	 i;

	qsort(l, (size_t)nl, sizeof(*l), label_cmp);
	*has_le = 0;
	s->labels[0] = s->base[0] = s->le[0] = '\0';
	for (i = 0; i < nl; i++) {
		if (i > 0 && strcmp(l[i].k, l[i - 1].k) == 0)
			return fail(r, "label %s twice", l[i].k);
		a += (size_t)snprintf(s->labels + a, sizeof(s->labels) - a,
		    "%s%s=\"%s\"", i > 0 ? "," : "", l[i].k, l[i].v);
		if (a >= sizeof(s->labels))
			return fail(r, "labels too long");
		if (strcmp(l[i].k, "le") == 0) {
			*has_le = 1;
			memcpy(s->le, l[i].v, sizeof(s->le));
			continue;
		}
		b += (size_t)snprintf(s->base + b, sizeof(s->base) - b,
		    "%s%s=\"%s\"", b > 0 ? "," : "", l[i].k, l[i].v);
		if (b >= sizeof(s->base))
			return fail(r, "labels too long");
	}
	return 0;
}

/* s belongs to the family being read, after its TYPE. */
static int
in_family(struct reader *r, const struct prom_sample *s, int has_le)
{
	size_t		 fl = strlen(r->fam);
	const char	*suffix = s->name + fl;

	if (!r->open || r->type[0] == '\0')
		return fail(r, "%s: a sample before its family's TYPE",
		    s->name);
	if (strcmp(r->type, "histogram") != 0) {
		if (strcmp(s->name, r->fam) != 0)
			return fail(r, "%s: a sample outside its family (%s)",
			    s->name, r->fam);
		return 0;
	}
	if (strncmp(s->name, r->fam, fl) != 0 || (strcmp(suffix, "_bucket")
	    != 0 && strcmp(suffix, "_sum") != 0 &&
	    strcmp(suffix, "_count") != 0))
		return fail(r, "%s: not a sample of histogram %s", s->name,
		    r->fam);
	if ((strcmp(suffix, "_bucket") == 0) != has_le)
		return fail(r, "%s: le on a bucket, and only there", s->name);
	return 0;
}

static int
add(struct reader *r, const struct prom_sample *s)
{
	struct prom_doc		*d = r->d;
	struct prom_sample	*v;
	int			 i;

	for (i = 0; i < d->n; i++)
		if (strcmp(d->s[i].name, s->name) == 0 &&
		    strcmp(d->s[i].labels, s->labels) == 0)
			return fail(r, "%s{%s} twice", s->name, s->labels);
	if (d->n == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 64;
		if ((v = realloc(d->s, (size_t)d->cap * sizeof(*v))) == NULL)
			return fail(r, "out of memory");
		d->s = v;
	}
	d->s[d->n++] = *s;
	return 0;
}

static int
sample_line(struct reader *r, const char *p)
{
	struct prom_sample	 s;
	struct label		 l[LABELS_PER_SAMPLE];
	size_t			 n = name_len(p, 1);
	int			 nl = 0, has_le;

	memset(&s, 0, sizeof(s));
	if (n == 0 || n >= PROM_NAME_MAX)
		return fail(r, "bad metric name");
	memcpy(s.name, p, n);
	p += n;
	if (*p == '{' && (nl = labels_parse(r, &p, l)) == -1)
		return -1;
	if (*p++ != ' ')
		return fail(r, "%s: no space before the value", s.name);
	if (strlen(p) >= sizeof(s.text) || value_parse(p, &s.value) == -1)
		return fail(r, "%s: bad value \"%s\"", s.name, p);
	snprintf(s.text, sizeof(s.text), "%s", p);
	if (canonical(r, &s, l, nl, &has_le) == -1 ||
	    in_family(r, &s, has_le) == -1)
		return -1;
	snprintf(s.family, sizeof(s.family), "%s", r->fam);
	return add(r, &s);
}

/* One histogram series (the samples of base): buckets, _count, _sum. */
static int
series_check(struct reader *r, const char *base)
{
	const struct prom_doc	*d = r->d;
	double			 le, last_le = -INFINITY, c = 0, count = -1;
	int			 i, nb = 0, sum = 0;
	size_t			 fl = strlen(r->fam);

	for (i = r->first; i < d->n; i++) {
		const struct prom_sample *s = &d->s[i];

		if (strcmp(s->base, base) != 0)
			continue;
		if (strcmp(s->name + fl, "_sum") == 0)
			sum++;
		else if (strcmp(s->name + fl, "_count") == 0)
			count = s->value;
		else if (value_parse(s->le, &le) == -1 || isnan(le))
			return fail(r, "%s{%s}: le \"%s\" is not a number",
			    s->name, base, s->le);
		else if (le <= last_le)
			return fail(r, "%s{%s}: le %s not ascending", s->name,
			    base, s->le);
		else if (s->value < c || isnan(s->value))
			return fail(r, "%s{%s}: bucket le %s not cumulative",
			    s->name, base, s->le);
		else {
			last_le = le;
			c = s->value;
			nb++;
		}
	}
	if (nb == 0 || !isinf(last_le))
		return fail(r, "%s{%s}: no +Inf bucket last", r->fam, base);
	if (sum != 1 || count < 0)
		return fail(r, "%s{%s}: no _sum or no _count", r->fam, base);
	if (count != c)
		return fail(r, "%s{%s}: _count %g, +Inf bucket %g", r->fam,
		    base, count, c);
	return 0;
}

static int
family_close(struct reader *r)
{
	int	 i, j;

	if (!r->open)
		return 0;
	r->open = 0;
	if (!r->help || r->type[0] == '\0')
		return fail(r, "family %s without HELP and TYPE", r->fam);
	if (strcmp(r->type, "histogram") != 0)
		return 0;
	for (i = r->first; i < r->d->n; i++) {
		for (j = r->first; j < i; j++)
			if (strcmp(r->d->s[j].base, r->d->s[i].base) == 0)
				break;
		if (j == i && series_check(r, r->d->s[i].base) == -1)
			return -1;
	}
	return 0;
}

static int
family_begin(struct reader *r, const char *name)
{
	void	*v;
	int	 i;

	if (family_close(r) == -1)
		return -1;
	for (i = 0; i < r->nseen; i++)
		if (strcmp(r->seen[i], name) == 0)
			return fail(r, "family %s again", name);
	if ((v = realloc(r->seen, (size_t)(r->nseen + 1) *
	    sizeof(*r->seen))) == NULL)
		return fail(r, "out of memory");
	r->seen = v;
	snprintf(r->seen[r->nseen++], PROM_NAME_MAX, "%s", name);
	snprintf(r->fam, sizeof(r->fam), "%s", name);
	r->type[0] = '\0';
	r->help = 0;
	r->first = r->d->n;
	r->open = 1;
	r->d->families++;
	return 0;
}

/* "# HELP name text" or "# TYPE name type" */
static int
comment_line(struct reader *r, const char *p)
{
	char		 name[PROM_NAME_MAX];
	const char	*rest;
	size_t		 n;
	int		 help = strncmp(p, "# HELP ", 7) == 0;

	if (!help && strncmp(p, "# TYPE ", 7) != 0)
		return fail(r, "a comment other than HELP or TYPE");
	p += 7;
	if ((n = name_len(p, 1)) == 0 || n >= sizeof(name) || p[n] != ' ')
		return fail(r, "%s: bad metric name", help ? "HELP" : "TYPE");
	memcpy(name, p, n);
	name[n] = '\0';
	rest = p + n + 1;
	if (help) {
		if (escapes_ok(rest, 0) == -1)
			return fail(r, "HELP %s: bad escape", name);
		if (family_begin(r, name) == -1)
			return -1;
		r->help = 1;
		return 0;
	}
	if (!r->open || strcmp(r->fam, name) != 0 || r->type[0] != '\0')
		return fail(r, "TYPE %s: not right after its HELP", name);
	if (strcmp(rest, "counter") != 0 && strcmp(rest, "gauge") != 0 &&
	    strcmp(rest, "histogram") != 0)
		return fail(r, "TYPE %s: unknown type \"%s\"", name, rest);
	if (strcmp(rest, "counter") == 0 && (n < 6 ||
	    strcmp(name + n - 6, "_total") != 0))
		return fail(r, "counter %s: the name does not end in _total",
		    name);
	snprintf(r->type, sizeof(r->type), "%s", rest);
	return 0;
}

int
prom_parse(const char *text, struct prom_doc *d)
{
	struct reader	 r = { .d = d };
	char		 line[2048];
	const char	*p, *nl;
	int		 rc = 0;

	memset(d, 0, sizeof(*d));
	for (p = text; rc == 0 && *p != '\0'; p = nl + 1) {
		r.line++;
		if ((nl = strchr(p, '\n')) == NULL) {
			rc = fail(&r, "no newline at the end");
			break;
		}
		if ((size_t)(nl - p) >= sizeof(line)) {
			rc = fail(&r, "line too long");
			break;
		}
		memcpy(line, p, (size_t)(nl - p));
		line[nl - p] = '\0';
		if (line[0] == '\0')
			rc = fail(&r, "blank line");
		else if (line[0] == '#')
			rc = comment_line(&r, line);
		else
			rc = sample_line(&r, line);
	}
	if (rc == 0)
		rc = family_close(&r);
	free(r.seen);
	return rc;
}

void
prom_free(struct prom_doc *d)
{
	free(d->s);
	d->s = NULL;
	d->n = d->cap = 0;
}

const struct prom_sample *
prom_find(const struct prom_doc *d, const char *name, const char *labels)
{
	int	 i;

	for (i = 0; i < d->n; i++)
		if (strcmp(d->s[i].name, name) == 0 &&
		    strcmp(d->s[i].labels, labels) == 0)
			return &d->s[i];
	return NULL;
}
