/*
 * promparse.h - a strict reader of Prometheus's text exposition format
 * (0.0.4), for the tests of `dts-console metrics`: the unit test
 * (tests/unit/test_console_metrics.c) and promcheck, the system test's
 * tool.  Stricter than Prometheus: it takes what the format allows and
 * the conventions the console promises, nothing else.
 *
 *   - comment lines are only "# HELP name text" and "# TYPE name type",
 *     type counter, gauge or histogram; no blank lines; every line ends
 *     in a newline;
 *   - metric names [a-zA-Z_:][a-zA-Z0-9_:]*, label names
 *     [a-zA-Z_][a-zA-Z0-9_]* (not __...), each label once per sample;
 *     label values quoted, with no escape but \\, \" and \n; HELP text
 *     with no escape but \\ and \n;
 *   - a value is a decimal float or +Inf, -Inf, NaN; no timestamp;
 *   - every family has HELP then TYPE before its samples, is contiguous
 *     and appears once; a counter's name ends in _total; a sample of a
 *     histogram is NAME_bucket (with le), NAME_sum or NAME_count;
 *   - no two samples with the same name and label set;
 *   - per histogram series: le ascending and ending with +Inf, counts
 *     cumulative (never decreasing), _count equal to the +Inf bucket,
 *     and a _sum.
 */
#ifndef DTS_PROMPARSE_H
#define DTS_PROMPARSE_H

#define PROM_NAME_MAX	128
#define PROM_LABELS_MAX	512
#define PROM_VALUE_MAX	256	/* a label value */

struct prom_sample {
	char	 name[PROM_NAME_MAX];
	char	 family[PROM_NAME_MAX];
	/* k="v" pairs sorted by k, comma-separated, values as written
	 * (escaped); base: the same without le */
	char	 labels[PROM_LABELS_MAX];
	char	 base[PROM_LABELS_MAX];
	char	 le[PROM_VALUE_MAX];	/* "" if none */
	double	 value;
	char	 text[64];		/* the value as written */
};

struct prom_doc {
	struct prom_sample	*s;
	int			 n, cap;
	int			 families;
	char			 err[256];	/* "line N: why" */
};

/* Read text (NUL terminated).  0, or -1 with d->err; prom_free after. */
int prom_parse(const char *text, struct prom_doc *d);
void prom_free(struct prom_doc *d);

/* The sample name{labels} (labels in the canonical form), or NULL. */
const struct prom_sample *prom_find(const struct prom_doc *d,
    const char *name, const char *labels);

#endif /* DTS_PROMPARSE_H */
