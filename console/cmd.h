/*
 * cmd.h - the console's command machinery, independent of what the
 * commands do: a table of entries drives lookup (exact name or unique
 * prefix), argument counts, help and completion; a tokenizer splits a line
 * into words (with "..." and '...' quoting) and scripts into commands.
 *
 * The table itself, with the handlers, is in cmds.c.
 */
#ifndef DTS_CMD_H
#define DTS_CMD_H

#include <stddef.h>
#include <stdio.h>

#define CMD_ARGS_MAX 64		/* words of one command, name included */
#define CMD_ERR_MAX  512

struct console;

/* What an argument position completes to (readline). */
enum cmd_complete {
	CMD_C_NONE = 0,
	CMD_C_HOST,		/* PVM host names */
	CMD_C_MODE,		/* static, balanced, ... */
	CMD_C_SETKEY,		/* keys of "set" */
	CMD_C_COMMAND		/* command names (help) */
};

struct cmd_entry {
	const char	*name;
	const char	*usage;		/* arguments, "" if none */
	int		 min_args;
	int		 max_args;	/* -1: no limit */
	enum cmd_complete complete;	/* of every argument */
	int		(*fn)(struct console *, int argc, char **argv);
	const char	*help;		/* one line */
	const char	*long_help;	/* more lines, or NULL */
};

struct cmd_table {
	const struct cmd_entry	*e;
	size_t			 n;
};

/*
 * Find name: an exact name, or else the only command it is a prefix of.
 * NULL with a one-line reason in err if none or several match, e.g.
 * ambiguous command "st": start, stop, status
 */
const struct cmd_entry *cmd_find(const struct cmd_table *t, const char *name,
    char *err, size_t errlen);

/*
 * Split line in place into words; quotes group words and are removed,
 * a backslash escapes the next character outside single quotes.
 * Returns the number of words, or -1 with err (unterminated quote, too
 * many words).
 */
int cmd_split(char *line, char **argv, int max, char *err, size_t errlen);

/*
 * Check the argument count of argv[0]'s entry e: 0, or -1 with
 * "ip: too many arguments (usage: ip [DUR])".
 */
int cmd_check_args(const struct cmd_entry *e, int argc, char *err,
    size_t errlen);

/* "ip [DUR]" */
void cmd_usage(const struct cmd_entry *e, char *buf, size_t len);

/*
 * Split a script into commands at ';' and newlines outside quotes;
 * comments (# to the end of the line, outside quotes) are dropped.  Calls
 * fn(arg, command, lineno) for every command that is not blank; stops and
 * returns -1 if fn does.
 */
int cmd_script_split(const char *script, int (*fn)(void *, const char *, int),
    void *arg);

/* The i-th (from 0) command name starting with text, or NULL. */
const char *cmd_complete_name(const struct cmd_table *t, const char *text,
    int i);

/* "help": every command; "help CMD": usage and long help. */
int cmd_help_print(const struct cmd_table *t, FILE *out, const char *name,
    char *err, size_t errlen);

#endif /* DTS_CMD_H */
