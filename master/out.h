/*
 * out.h - what the console says: the output of commands, the one-line
 * reason the last command failed, and messages that arrive on their own
 * (balanced mode changed PS, the VM was halted).
 *
 * A command that fails returns out_err(o, ...), which keeps the reason in
 * o->err for the caller to print.  Notices go to the hook, which the
 * shell sets so that they do not break the prompt; without a hook they
 * are logged.
 */
#ifndef DTS_CONSOLE_OUT_H
#define DTS_CONSOLE_OUT_H

#include <stdio.h>

#include "cmd.h"

struct out {
	FILE	*f;			/* command output */
	char	 err[CMD_ERR_MAX];	/* why the last command failed */
	void	(*notice)(const char *msg);	/* NULL: log_info */
};

/* Keep a one-line error in o->err; returns -1. */
int out_err(struct out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Put "prefix: " before the message in o->err; returns -1. */
int out_prefix(struct out *o, const char *prefix);

/* A message nobody asked for, e.g. a balanced PS change. */
void out_notice(struct out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* DTS_CONSOLE_OUT_H */
