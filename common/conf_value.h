/*
 * conf_value.h - one value of dts.conf, from text or from a libconfig
 * setting, stored in the field of struct dts_conf its key names.  Above
 * conf_schema.h; conf.c is above it.  Not for use outside common/conf*.c
 * and the console's `set`; the public API is conf.h.
 */
#ifndef DTS_CONF_VALUE_H
#define DTS_CONF_VALUE_H

#include <libconfig.h>
#include <stddef.h>

#include "conf_schema.h"

/*
 * Store a value given as text (a default, a string in the file, or the
 * console's `set`) in the field of c that k names.  Only the type is
 * checked here; confkey_check() checks the range.  0, or -1 with the
 * reason in why.
 */
int confval_set_text(const struct conf_key *k, struct dts_conf *c,
    const char *s, char *why, size_t len);

/* Store the value of one setting of the file; 0, or -1 with why. */
int confval_set(const struct conf_key *k, struct dts_conf *c,
    const config_setting_t *st, char *why, size_t len);

/* What a setting of the file is, for messages: "an integer", "a group". */
const char *confval_kind(const config_setting_t *st);

#endif /* DTS_CONF_VALUE_H */
