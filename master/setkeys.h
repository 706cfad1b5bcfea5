/*
 * setkeys.h - the keys of the `set` command.  Every key but weight is a
 * key of dts.conf, and goes through its schema (common/conf_schema.c):
 * the value is parsed and checked against the key's range there, then
 * the whole configuration is checked as conf_load() checks a file.  No
 * range is written here.  `weight HOST W` is the console's own.
 *
 * Nothing here sees the console: setkeys_conf() changes a dts_conf and
 * says which key it changed; the `set` command (cmds.c) applies that to
 * the schedule and the master.
 */
#ifndef DTS_MASTER_SETKEYS_H
#define DTS_MASTER_SETKEYS_H

#include <stddef.h>

#include "conf.h"
#include "nodes.h"

/* The keys of `set`; all but weight are keys of dts.conf. */
enum setkey {
	SETKEY_SYNC,		/* sync: the schedule's, sent to the nodes */
	SETKEY_LS_POLICY,	/* ls_policy: the schedule's, sent too */
	SETKEY_RLA,		/* console.rla */
	SETKEY_HYSTERESIS,	/* console.hysteresis */
	SETKEY_TIMEOUT,		/* console.timeout */
	SETKEY_STATUS_WAIT,	/* console.status_wait */
	SETKEY_WEIGHT		/* weight HOST W: the console's own */
};

#define SETKEYS_HELP \
	"  set sync arrival|clock    PS starts on arrival, or on the clock " \
	"origin\n" \
	"  set ls_policy stop|idle   LS stops the gang, or runs it at " \
	"SCHED_IDLE\n" \
	"  set rla mean|max          balanced: fold Q/W by mean or max\n" \
	"  set hysteresis X          balanced: act when the RLA moved more " \
	"than X\n" \
	"  set timeout DUR           a node silent this long leaves the RLA\n" \
	"  set status_wait DUR       how long status and load collect " \
	"replies\n" \
	"  set weight HOST W|auto    power weight of HOST (0 < W <= 1000); " \
	"auto:\n" \
	"                            from the PVM host speed\n" \
	"  set weight JOB W          weight of JOB (USER:LABEL, a job `jobs` " \
	"lists;\n" \
	"                            W a whole number 1..100, 1 the default): " \
	"its\n" \
	"                            row gets PS * W / (the rows' weights)\n" \
	"  A key may also be given by its dts.conf name (console.timeout); " \
	"its range\n  is the one dts.conf(5) gives.  A bad value changes " \
	"nothing.\n"

/* "timeout" for SETKEY_TIMEOUT. */
const char *setkeys_name(enum setkey id);

/*
 * Set key (a name of a key but weight, or its dts.conf path) to
 * value in conf, through the schema, and check the whole result.  Returns
 * the enum setkey changed; or -1 with a one-line err ("set timeout: 5ms is
 * out of range [10ms, 86400s]") and conf unchanged.
 */
int setkeys_conf(struct dts_conf *conf, const char *key, const char *value,
    char *err, size_t len);

/* "set KEY": the number of values the key takes (weight 2, else 1), or -1
 * with err if there is no such key. */
int setkeys_nargs(const char *key, char *err, size_t len);

/* What key takes, from the schema: "arrival|clock", "DUR", "HOST W|auto". */
const char *setkeys_usage(const char *key, char *buf, size_t len);

/* The value of a key in conf, as dts.conf writes it: "30s", "mean". */
const char *setkeys_value(const struct dts_conf *conf, enum setkey id,
    char *buf, size_t len);

/*
 * weight HOST W: W a number in (0, 1000], or "auto" (w = 0: from the PVM
 * host speed).  0, or -1 with err.
 */
int setkeys_weight(const char *host, const char *s, double *w, char *err,
    size_t len);

/*
 * Completion of "set KEY ..." (line starts at "set"): the keys, then
 * their values (the schema's names; hosts for weight).  nwords is the
 * number of words before text.
 */
const char *setkeys_complete(const char *line, int nwords, const char *text,
    int i, const struct vm_hosts *hosts);

#endif /* DTS_MASTER_SETKEYS_H */
