/*
 * conf_priv.h - the private API of the dts.conf module as a whole, for its
 * unit tests.  Programs use conf.h, which changes and formats one key at
 * a time through the schema (conf_value_set, conf_value_format).
 *
 * The module is layered, each layer seeing only those below it:
 * conf_fmt.h <- conf_schema.h <- conf_value.h <- conf.c; conf_fmt.h
 * describes the layers.  The public API is conf.h.
 */
#ifndef DTS_CONF_PRIV_H
#define DTS_CONF_PRIV_H

#include "conf_value.h"

#endif /* DTS_CONF_PRIV_H */
