/*
 * cmds.h - the console's commands: one table (cmds.c) gives every
 * command's name, arguments, handler and help; dispatch, `help` and
 * readline completion all read it.
 */
#ifndef DTS_CONSOLE_CMDS_H
#define DTS_CONSOLE_CMDS_H

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

#endif /* DTS_CONSOLE_CMDS_H */
