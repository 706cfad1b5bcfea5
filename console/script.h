/*
 * script.h - commands that do not come from the prompt: -c strings, -s
 * files and a stdin that is not a terminal.  They are queued and run one
 * at a time; a command that waits for replies (status, load) completes
 * before the next one runs.  Every failure is reported on stderr as
 * "dts-console: [FILE:LINE: ]message" and counted, and with -e the rest
 * is skipped.
 */
#ifndef DTS_CONSOLE_SCRIPT_H
#define DTS_CONSOLE_SCRIPT_H

#include <stddef.h>

struct console;

struct script_cmd {
	char	*text;
	char	*src;		/* file name, "stdin", or NULL for -c */
	int	 line;
};

struct script {
	struct script_cmd *q;
	size_t	 n, cap, head;
	char	*partial;	/* stdin: an unfinished line */
	size_t	 plen;
	int	 stdin_line;
	int	 reading;	/* more may come from stdin */
	int	 failures;
	int	 stop_on_error;	/* -e */
	int	 running;	/* q[current] waits for replies */
	size_t	 current;
};

void script_init(struct script *s, int stop_on_error);

/* -c "cmd; cmd" */
int script_add_string(struct script *s, const char *cmds);

/* -s FILE: 0, or -1 with err. */
int script_add_file(struct script *s, const char *path, char *err,
    size_t errlen);

/* stdin is readable: queue the complete lines; at EOF, reading = 0. */
void script_read(struct script *s, int fd);

/*
 * Run queued commands until one is asynchronous (master_busy), the queue
 * is empty, or the console quits.
 */
void script_run(struct script *s, struct console *c);

/* The asynchronous command finished with rc. */
void script_finished(struct script *s, struct console *c, int rc);

/* Nothing queued, nothing running, nothing more to read. */
int script_done(const struct script *s);

void script_fini(struct script *s);

#endif /* DTS_CONSOLE_SCRIPT_H */
