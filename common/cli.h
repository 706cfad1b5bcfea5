/*
 * cli.h - what the small programs a job's user runs share (dts-run,
 * dts-state): the one-line error and exit.
 */
#ifndef DTS_CLI_H
#define DTS_CLI_H

/* The program's name, for its messages: each program defines it. */
extern const char cli_prog[];

/* "PROG: message" on stderr, then exit(rc). */
void cli_die(int rc, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

#endif /* DTS_CLI_H */
