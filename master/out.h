/*
 * out.h - what the engine and the console say: the output of commands,
 * the one-line reason the last command failed, and messages that arrive
 * on their own (balanced mode changed PS, the VM was halted).  The engine
 * writes no stream: its lines go to the say hook, which the client sets
 * (the console prints them on f).
 *
 * A command that fails returns out_err(o, ...), which keeps the reason in
 * o->err for the caller to print.  Notices go to the hook, which the
 * shell sets so that they do not break the prompt; without a hook they
 * are logged.
 */
#ifndef DTS_MASTER_OUT_H
#define DTS_MASTER_OUT_H

#include <stdio.h>

/* The longest one-line error (cmd.h's CMD_ERR_MAX is the same). */
#define OUT_ERR_MAX	512

struct out {
	FILE	*f;			/* the client's: command output */
	char	 err[OUT_ERR_MAX];	/* why the last command failed */
	void	(*notice)(const char *msg);	/* NULL: log_info */
	/* a line of the command's output (the client prints it on f); NULL:
	 * log_info */
	void	(*say)(struct out *o, const char *line);
};

/* Keep a one-line error in o->err; returns -1. */
int out_err(struct out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Put "prefix: " before the message in o->err; returns -1. */
int out_prefix(struct out *o, const char *prefix);

/* A line of the running command's output, through o->say. */
void out_say(struct out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A message nobody asked for, e.g. a balanced PS change. */
void out_notice(struct out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* DTS_MASTER_OUT_H */
