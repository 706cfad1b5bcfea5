/*
 * report.h - the console's tables: status (one row per node), load
 * (Q, W, Q/W and the RLA) and show (every tunable).  Output goes to c->out.
 */
#ifndef DTS_CONSOLE_REPORT_H
#define DTS_CONSOLE_REPORT_H

#include <stddef.h>
#include <stdint.h>

struct console;

/*
 * The nodes that answered since `since` (and, marked, the others known).
 * Returns 0, or -1 with c->err if no node answered.
 */
int report_status(struct console *c, int64_t since, int verbose,
    int64_t now);

/* Per node Q_j, W_j, Q_j/W_j and liveness; the RLA, mean and max. */
void report_load(struct console *c, int64_t now);

/* Every tunable and where the datagrams go. */
void report_show(struct console *c);

/* "1.5s ago", "never" */
const char *report_ago(int64_t then, int64_t now, char *buf, size_t len);

#endif /* DTS_CONSOLE_REPORT_H */
