/*
 * setkeys.h - the keys of the `set` command: one table of the tunables
 * that are not intervals (sync, rla, hysteresis, timeout, status_wait,
 * weight), each with its usage and checks.  `show` prints them all.
 */
#ifndef DTS_CONSOLE_SETKEYS_H
#define DTS_CONSOLE_SETKEYS_H

struct console;

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
	"                            from the PVM host speed\n"

/* The key names, NULL-terminated (completion). */
extern const char *const setkeys_names[];

/* set KEY VALUE | set weight HOST W */
int setkeys_cmd(struct console *c, int argc, char **argv);

/*
 * Completion of the values of "set KEY ..." (line starts at "set");
 * nwords is the number of words before text.
 */
const char *setkeys_complete(const char *line, int nwords, const char *text,
    int i, struct console *c);

#endif /* DTS_CONSOLE_SETKEYS_H */
