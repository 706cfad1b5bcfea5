/*
 * conf_priv.h - what the files of the dts.conf module share; not for use
 * outside common/conf*.c (the public API is conf.h).
 *
 * conf_schema.c	the schema table, the validators and the checks of
 *			one value against its key (confkey_)
 * conf_value.c		one value: from text or from a setting of the file
 *			(confval_)
 * conf_print.c		values and ranges as text, conf_print() and
 *			conf_schema_print() (conffmt_)
 * conf.c		defaults, loading a file, checks across keys
 */
#ifndef DTS_CONF_PRIV_H
#define DTS_CONF_PRIV_H

#include <libconfig.h>
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
	const char *const *names;	/* CT_ENUM, by value, NULL-terminated */
	int		(*valid)(const void *, char *, size_t);
};

/* The field at offset off of a struct dts_conf, as a T. */
#define FLD(c, off, T)	((T *)(void *)((char *)(c) + (off)))
#define CFLD(c, off, T)	((const T *)(const void *)((const char *)(c) + (off)))

/* ---- conf_schema.c ---------------------------------------------------- */

/* Every key, in the order conf_print() writes them; groups consecutive. */
extern const struct conf_key confkey_schema[];
extern const size_t confkey_nkeys;

/* The key with this full path ("load.sample"), or NULL. */
const struct conf_key *confkey_find(const char *path);

/* 0 if v is in the range of k, else -1 with "V is out of range R". */
int confkey_out_of_range(const struct conf_key *k, double v, char *why,
    size_t len);

/* Range and validity of the value stored in c; 0, or -1 with why. */
int confkey_check(const struct conf_key *k, const struct dts_conf *c,
    char *why, size_t len);

/* ---- conf_value.c ----------------------------------------------------- */

/*
 * Store a value given as text (a default, or a string in the file) in the
 * field of c that k names.  0, or -1 with the reason in why.
 */
int confval_set_text(const struct conf_key *k, struct dts_conf *c,
    const char *s, char *why, size_t len);

/* Store the value of one setting of the file; 0, or -1 with why. */
int confval_set(const struct conf_key *k, struct dts_conf *c,
    const config_setting_t *st, char *why, size_t len);

/* What a setting of the file is, for messages: "an integer", "a group". */
const char *confval_kind(const config_setting_t *st);

/* ---- conf_print.c ----------------------------------------------------- */

/* A bound of k: a duration ("1ms") for durations, else a number. */
const char *conffmt_bound(const struct conf_key *k, double v, char *buf,
    size_t len);

/* "[1ms, 60s]", "(0, 100]", "off|static|..." or "-" */
const char *conffmt_range(const struct conf_key *k, char *buf, size_t len);

/* The names of an enum key: "a, b or c". */
const char *conffmt_names(const struct conf_key *k, char *buf, size_t len);

/* pct_milli 80000 -> "80%", 62500 -> "62.5%" */
const char *conffmt_pct(int32_t pm, char *buf, size_t len);

#endif /* DTS_CONF_PRIV_H */
