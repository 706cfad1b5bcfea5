/*
 * conf_fmt.h - the lowest layer of the dts.conf module: what a key of the
 * schema is (struct conf_key), and its values and ranges as text.  Error
 * messages (conf_schema.c, conf_value.c) and the dump (conf_print.c) use it.
 *
 * The module's layers, each of which sees only those below it:
 *
 *	conf_fmt.c	keys, values and ranges as text (conffmt_)
 *	conf_schema.c	the schema table, lookup, the checks of one value
 *			against its key (confkey_)
 *	conf_value.c	one value, from text or a setting of the file
 *			(confval_)
 *	conf.c		defaults, loading a file, checks across keys
 *	conf_print.c	the whole configuration or schema as text (on the
 *			schema only)
 *
 * Not for use outside common/conf*.c; the public API is conf.h.
 */
#ifndef DTS_CONF_FMT_H
#define DTS_CONF_FMT_H

#include <stddef.h>
#include <stdint.h>

#include "conf.h"

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
	const char *const *names;	/* CT_ENUM: the enum's one name table
					   (names.h), by value */
	int		(*valid)(const void *, char *, size_t);
};

/* The field at offset off of a struct dts_conf, as a T. */
#define FLD(c, off, T)	((T *)(void *)((char *)(c) + (off)))
#define CFLD(c, off, T)	((const T *)(const void *)((const char *)(c) + (off)))

/* The shortest "%g" that reads back as v. */
const char *conffmt_float(double v, char *buf, size_t len);

/* A bound of k: a duration ("1ms") for durations, else a number. */
const char *conffmt_bound(const struct conf_key *k, double v, char *buf,
    size_t len);

/* "[1ms, 60s]", "(0, 100]", "off|static|..." or "-" */
const char *conffmt_range(const struct conf_key *k, char *buf, size_t len);

/* The names of an enum key: "a, b or c". */
const char *conffmt_names(const struct conf_key *k, char *buf, size_t len);

/* pct_milli 80000 -> "80%", 62500 -> "62.5%" */
const char *conffmt_pct(int32_t pm, char *buf, size_t len);

#endif /* DTS_CONF_FMT_H */
