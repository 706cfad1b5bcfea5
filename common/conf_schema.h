/*
 * conf_schema.h - the dts.conf schema: every key, found by its path, and
 * the checks of one stored value against its key.  Above conf_fmt.h (the
 * key type and its text); below conf_value.h.  Not for use outside
 * common/conf*.c and the console's `set`; the public API is conf.h.
 */
#ifndef DTS_CONF_SCHEMA_H
#define DTS_CONF_SCHEMA_H

#include <stddef.h>

#include "conf_fmt.h"

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

#endif /* DTS_CONF_SCHEMA_H */
