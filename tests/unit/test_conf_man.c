/*
 * test_conf_man.c - dts.conf(5) says what the schema says.
 *
 * Every key's heading in the page, ".BR key " (TYPE, default DEF[, range
 * LO to HI])"", is compared with its line of conf_schema_print(): the
 * same keys, each once, with the same type, default and range.  The page
 * read is the one make built (man/dts.conf.5, paths filled in as in the
 * binaries).  Every difference is listed before the test fails.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "timeutil.h"

#define KEYS_MAX 128
#define F_MAX    256

struct entry {
	char	 key[F_MAX];
	char	 type[F_MAX];
	char	 def[F_MAX];
	char	 range[F_MAX];	/* "" if none given */
	int	 seen;
};

static int	 problems;

static void
problem(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	fputs("dts.conf(5) and the schema differ: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	problems++;
}

/* Copy at most F_MAX - 1 bytes of [s, e) into out. */
static void
span(char *out, const char *s, const char *e)
{
	size_t	 n = (size_t)(e - s);

	if (n >= F_MAX)
		n = F_MAX - 1;
	memcpy(out, s, n);
	out[n] = '\0';
}

/* out without the characters of drop. */
static void
squeeze(char *out, const char *in, const char *drop)
{
	for (; *in != '\0'; in++)
		if (strchr(drop, *in) == NULL)
			*out++ = *in;
	*out = '\0';
}

/* ---- the schema, from conf_schema_print() ------------------------------ */

static const char *
skip_space(const char *p)
{
	while (*p == ' ')
		p++;
	return p;
}

/* A word up to a space; a range up to its closing bracket. */
static const char *
field(const char *p, char *out)
{
	const char	*e;

	p = skip_space(p);
	if (*p == '[' || *p == '(' || (isdigit((unsigned char)*p) &&
	    strstr(p, "..") != NULL && strchr(p, ' ') > strstr(p, ".."))) {
		e = strpbrk(p, "])");
		e = e != NULL ? e + 1 : p + strlen(p);
	} else
		e = p + strcspn(p, " ");
	span(out, p, e);
	return e;
}

static int
schema_read(struct entry *t)
{
	char	*buf = NULL, *line, *save = NULL;
	size_t	 len = 0;
	FILE	*fp = open_memstream(&buf, &len);
	int	 n = 0;

	assert_non_null(fp);
	conf_schema_print(fp);
	fclose(fp);
	for (line = strtok_r(buf, "\n", &save); line != NULL && n < KEYS_MAX;
	    line = strtok_r(NULL, "\n", &save), n++) {
		const char	*p = line;

		p = field(p, t[n].key);
		p = field(p, t[n].type);
		p = field(p, t[n].range);
		field(p, t[n].def);
		if (strcmp(t[n].range, "-") == 0)
			t[n].range[0] = '\0';
	}
	free(buf);
	return n;
}

/* ---- the page ------------------------------------------------------------ */

/* ".BR a " b" c": the arguments joined, troff's quotes and escapes gone. */
static void
troff_args(const char *p, char *out, size_t cap)
{
	size_t	 n = 0;

	while (*p != '\0' && n + 1 < cap) {
		if (*p == ' ') {
			p++;
			continue;
		}
		if (*p == '"') {
			for (p++; *p != '\0' && *p != '"' && n + 1 < cap; p++)
				out[n++] = *p;
			if (*p == '"')
				p++;
		} else
			for (; *p != '\0' && *p != ' ' && n + 1 < cap; p++)
				out[n++] = *p;
	}
	out[n] = '\0';
	while ((p = strstr(out, "\\(dq")) != NULL)
		memmove((char *)p + 1, p + 4, strlen(p + 4) + 1),
		    *(char *)p = '"';
	while ((p = strstr(out, "\\-")) != NULL)
		memmove((char *)p, p + 1, strlen(p + 1) + 1);
}

/*
 * "key(TYPE, default DEF, range R)" (the arguments are joined without
 * their spaces' quotes) into e.  0, or -1 if the line is not a heading.
 */
static int
heading_parse(const char *line, struct entry *e)
{
	char		 text[1024];
	const char	*p, *q, *d;

	if (strncmp(line, ".BR ", 4) != 0 || strstr(line, " (") == NULL)
		return -1;
	troff_args(line + 4, text, sizeof(text));
	if ((p = strchr(text, '(')) == NULL || (d = strstr(p,
	    ", default ")) == NULL)
		return -1;
	memset(e, 0, sizeof(*e));
	span(e->key, text, text + strcspn(text, " ("));
	span(e->type, p + 1, d);
	p = d + strlen(", default ");
	if (*p == '"')
		q = strchr(p + 1, '"');
	else if (*p == '[')
		q = strchr(p, ']');
	else
		q = p + strcspn(p, ",)") - 1;
	if (q == NULL)
		return -1;
	span(e->def, p, q + 1);
	p = q + 1;
	if (strncmp(p, ", range ", 8) == 0) {
		p += 8;
		q = strrchr(p, ')');
		if (q == NULL)
			return -1;
		if ((d = strstr(p, ", or ")) != NULL && d < q)
			q = d;		/* "1us to 60s, or a share" */
		else if (*p == '(' || *p == '[')
			q = strrchr(p, ']') != NULL ? strrchr(p, ']') + 1 : q;
		span(e->range, p, q);
	}
	return 0;
}

static const char *
type_of_page(const char *t)
{
	if (strcmp(t, "list of strings") == 0 || strcmp(t, "string list") == 0)
		return "strlist";
	if (strcmp(t, "int list") == 0)
		return "intlist";
	return t;
}

/* Two bounds the same: durations in ns, numbers as numbers. */
static int
bound_eq(const char *type, const char *a, const char *b)
{
	int64_t	 x, y;
	char	 err[128], *ea, *eb;
	double	 u, v;

	if (strcmp(type, "duration") == 0 || strcmp(type, "slice") == 0)
		return duration_parse(a, &x, err, sizeof(err)) == 0 &&
		    duration_parse(b, &y, err, sizeof(err)) == 0 && x == y;
	u = strtod(a, &ea);
	v = strtod(b, &eb);
	return *a != '\0' && *ea == '\0' && *b != '\0' && *eb == '\0' &&
	    u == v;
}

/* "[lo, hi]" or "(lo, hi]" into its brackets and bounds; -1 if neither. */
static int
bracket_split(const char *r, char *open, char *lo, char *hi, char *close)
{
	const char	*c = strchr(r, ','), *e = r + strlen(r);

	if ((*r != '[' && *r != '(') || c == NULL || e == r + 1 ||
	    (e[-1] != ']' && e[-1] != ')'))
		return -1;
	*open = *r;
	*close = e[-1];
	span(lo, r + 1, c);
	span(hi, skip_space(c + 1), e - 1);
	return 0;
}

static void
range_compare(const struct entry *s, const struct entry *m)
{
	char	 so, sc, mo, mc, slo[F_MAX], shi[F_MAX], mlo[F_MAX],
		 mhi[F_MAX];
	const char *to;

	if (s->range[0] == '\0' || strcmp(s->type, "enum") == 0 ||
	    strcmp(s->type, "intlist") == 0) {
		if (m->range[0] != '\0' && strcmp(s->type, "enum") != 0 &&
		    strcmp(s->type, "intlist") != 0)
			problem("%s: the page gives range %s, the schema "
			    "none", s->key, m->range);
		return;	/* an enum's values and a list's bounds: the text */
	}
	if (m->range[0] == '\0') {
		problem("%s: the page gives no range, the schema %s", s->key,
		    s->range);
		return;
	}
	assert_int_equal(bracket_split(s->range, &so, slo, shi, &sc), 0);
	if ((to = strstr(m->range, " to ")) != NULL) {
		mo = '[';
		mc = ']';
		span(mlo, m->range, to);
		snprintf(mhi, sizeof(mhi), "%s", to + 4);
	} else if (bracket_split(m->range, &mo, mlo, mhi, &mc) == -1) {
		problem("%s: the page's range \"%s\" is neither \"LO to HI\" "
		    "nor an interval", s->key, m->range);
		return;
	}
	if (so != mo || sc != mc || !bound_eq(s->type, slo, mlo) ||
	    !bound_eq(s->type, shi, mhi))
		problem("%s: range %s on the page, %s in the schema", s->key,
		    m->range, s->range);
}

static void
default_compare(const struct entry *s, const struct entry *m)
{
	char	 a[F_MAX], b[F_MAX];

	squeeze(a, s->def, "\" ");
	squeeze(b, strcmp(m->def, "empty") == 0 ? "[]" : m->def, "\" ");
	if (strcmp(a, b) == 0)
		return;
	if ((strcmp(s->type, "duration") == 0 || strcmp(s->type, "slice") ==
	    0) && bound_eq("duration", a, b))
		return;
	problem("%s: default %s on the page, %s in the schema", s->key,
	    m->def, s->def);
}

static void
test_page_is_schema(void **state)
{
	struct entry	 schema[KEYS_MAX], m;
	char		 line[1024];
	FILE		*fp;
	int		 n, i, headings = 0;

	(void)state;
	memset(schema, 0, sizeof(schema));	/* seen: 0 */
	n = schema_read(schema);
	assert_true(n > 40);
	fp = fopen(BUILDDIR "/man/dts.conf.5", "r");
	if (fp == NULL)
		fail_msg("%s/man/dts.conf.5: not built (make builds it)",
		    BUILDDIR);
	while (fgets(line, sizeof(line), fp) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (heading_parse(line, &m) == -1)
			continue;
		headings++;
		for (i = 0; i < n && strcmp(schema[i].key, m.key) != 0; i++)
			;
		if (i == n) {
			problem("%s: on the page, not in the schema", m.key);
			continue;
		}
		if (schema[i].seen++)
			problem("%s: on the page twice", m.key);
		if (strcmp(type_of_page(m.type), schema[i].type) != 0)
			problem("%s: type %s on the page, %s in the schema",
			    m.key, m.type, schema[i].type);
		default_compare(&schema[i], &m);
		range_compare(&schema[i], &m);
	}
	fclose(fp);
	for (i = 0; i < n; i++)
		if (!schema[i].seen)
			problem("%s: in the schema, not on the page",
			    schema[i].key);
	fprintf(stderr, "%d headings, %d keys, %d differences\n", headings,
	    n, problems);
	assert_int_equal(problems, 0);
}

/* The parser itself: a heading of each form the page uses. */
static void
test_heading_forms(void **state)
{
	struct entry	 e;

	(void)state;
	assert_int_equal(heading_parse(".BR ip \" (duration, default \" "
	    "\\(dq100ms\\(dq \", range 1ms to 60s)\"", &e), 0);
	assert_string_equal(e.key, "ip");
	assert_string_equal(e.type, "duration");
	assert_string_equal(e.def, "\"100ms\"");
	assert_string_equal(e.range, "1ms to 60s");
	assert_int_equal(heading_parse(".BR port \" (int, default 476, range "
	    "1 to 65535)\"", &e), 0);
	assert_string_equal(e.def, "476");
	assert_string_equal(e.range, "1 to 65535");
	assert_int_equal(heading_parse(".BR ps \" (slice, default \" "
	    "\\(dq80%\\(dq \", range 1us to 60s, or a share)\"", &e), 0);
	assert_string_equal(e.range, "1us to 60s");
	assert_int_equal(heading_parse(".BR load.table_step \" (float, default "
	    "0.5, range (0, 100])\"", &e), 0);
	assert_string_equal(e.range, "(0, 100]");
	assert_int_equal(heading_parse(".BR users \" (string list, default \" "
	    "[\\(dq@dts\\(dq] )", &e), 0);
	assert_string_equal(e.def, "[\"@dts\"]");
	assert_string_equal(e.range, "");
	assert_int_equal(heading_parse(".BR insecure \" (bool, default \" "
	    "false )", &e), 0);
	assert_string_equal(e.def, "false");
	assert_int_equal(heading_parse(".B dts", &e), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_heading_forms),
		cmocka_unit_test(test_page_is_schema),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
