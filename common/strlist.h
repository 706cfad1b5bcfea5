/*
 * strlist.h - a list of short strings, as dts.conf's list keys hold them
 * (users, console_keys, console.nodes).  A type of its own, so that a
 * module that takes such a list (users.h) needs nothing else of conf.h,
 * and conf.h needs nothing of it.
 */
#ifndef DTS_STRLIST_H
#define DTS_STRLIST_H

#define CONF_LIST_MAX  64	/* entries of a string list */
#define CONF_ITEM_MAX  80	/* bytes of one entry, NUL included */

struct conf_strlist {
	int     n;
	char    s[CONF_LIST_MAX][CONF_ITEM_MAX];
};

#endif /* DTS_STRLIST_H */
