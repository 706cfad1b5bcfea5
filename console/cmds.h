/*
 * cmds.h - the console's commands: one table (cmds.c) gives every
 * command's name, arguments, handler and help; dispatch, `help` and
 * readline completion all read it.
 */
#ifndef DTS_CONSOLE_CMDS_H
#define DTS_CONSOLE_CMDS_H

#include <stdio.h>

#include "cmd.h"

struct console;

extern const struct cmd_table cmds_table;

/*
 * Run one command line.  0 on success (an asynchronous command such as
 * status may still be collecting: master_busy()), -1 with c->err.
 * A blank line does nothing.
 */
int cmds_exec(struct console *c, const char *line);

/*
 * Completion candidate number i (from 0) for the word text, which starts
 * at offset start of line; NULL when there are no more.
 */
const char *cmds_complete(struct console *c, const char *line, int start,
    const char *text, int i);

/*
 * The shell and scripts see the console only through cmds_exec() and
 * these: why the last command failed, whether the console is to quit
 * (quit, end of input, -e after a failure), the command output, where
 * notices go (NULL: the log) and the history file (console.history).
 */
const char *cmds_error(const struct console *c);
int cmds_quitting(const struct console *c);
/* An asynchronous command (status, trace ...) is waiting for replies. */
int cmds_busy(const struct console *c);
void cmds_quit(struct console *c);
FILE *cmds_output(struct console *c);
void cmds_notices(struct console *c, void (*fn)(const char *));
const char *cmds_history(const struct console *c);

#endif /* DTS_CONSOLE_CMDS_H */
