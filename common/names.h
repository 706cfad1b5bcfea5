/*
 * names.h - the names of the values of an enum, as dts.conf, the console,
 * messages and the tests write them.
 *
 * Each enum has one table, declared next to the enum (proto.h, conf.h,
 * log.h): its names in the order of the values, with no hole, and NULL
 * after the last.  Every table follows one case rule: a name is found
 * whatever its case ("Static" is "static"), in dts.conf as in the
 * console; the table's own spelling is the one printed.
 */
#ifndef DTS_NAMES_H
#define DTS_NAMES_H

#include <stddef.h>

/* The value whose name is s, in any case; -1 if none is. */
int names_find(const char *const *names, const char *s);

/* The name of value v, or "?" past the end of the table. */
const char *names_get(const char *const *names, unsigned v);

/* How many names the table has. */
size_t names_count(const char *const *names);

#endif /* DTS_NAMES_H */
