/*
 * shell.c - the readline prompt.  See shell.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "cmds.h"
#include "conf.h"
#include "shell.h"

#define PROMPT      "dts> "
#define HISTORY_MAX 1000

static struct {
	struct console	*c;
	int		 installed;	/* the prompt is up */
	int		 running;	/* a command line is being run */
	int		 word_start;	/* of the word being completed */
	char		 history[CONF_STR_MAX + 256];
} sh;

static void on_line(char *line);

static void
install(void)
{
	rl_callback_handler_install(PROMPT, on_line);
	sh.installed = 1;
}

void
shell_pause(void)
{
	if (sh.installed)
		rl_callback_handler_remove();
	sh.installed = 0;
}

void
shell_resume(void)
{
	if (!sh.installed && !cmds_quitting(sh.c))
		install();
}

static void
on_line(char *line)
{
	HIST_ENTRY	*last;

	if (line == NULL) {		/* EOF: ^D */
		printf("\n");
		cmds_quit(sh.c);
		shell_pause();
		return;
	}
	if (line[strspn(line, " \t")] != '\0') {
		last = history_length > 0 ? history_get(history_base +
		    history_length - 1) : NULL;
		if (last == NULL || strcmp(last->line, line) != 0)
			add_history(line);
	}
	sh.running = 1;
	if (cmds_exec(sh.c, line) == -1)
		fprintf(stderr, "%s\n", cmds_error(sh.c));
	sh.running = 0;
	fflush(stdout);
	free(line);
	if (cmds_quitting(sh.c) || cmds_busy(sh.c))
		shell_pause();
}

/* Print a message above the prompt and the line being typed. */
static void
notice(const char *msg)
{
	char	*saved;
	int	 point;

	if (!sh.installed || sh.running) {
		printf("%s\n", msg);
		fflush(stdout);
		return;
	}
	point = rl_point;
	saved = rl_copy_text(0, rl_end);
	rl_save_prompt();
	rl_replace_line("", 0);
	rl_redisplay();
	printf("\r%s\n", msg);
	rl_restore_prompt();
	rl_replace_line(saved != NULL ? saved : "", 0);
	rl_point = point;
	rl_redisplay();
	free(saved);
}

static char *
generate(const char *text, int state)
{
	static int	 i;
	const char	*m;

	if (state == 0)
		i = 0;
	m = cmds_complete(sh.c, rl_line_buffer, sh.word_start, text, i++);
	return m != NULL ? strdup(m) : NULL;
}

static char **
complete(const char *text, int start, int end)
{
	(void)end;
	rl_attempted_completion_over = 1;	/* never file names */
	sh.word_start = start;
	return rl_completion_matches(text, generate);
}

static void
history_path(const char *conf)
{
	const char	*home = getenv("HOME");

	sh.history[0] = '\0';
	if (conf[0] == '\0')
		return;
	if (strncmp(conf, "~/", 2) != 0)
		snprintf(sh.history, sizeof(sh.history), "%s", conf);
	else if (home != NULL && home[0] != '\0')
		snprintf(sh.history, sizeof(sh.history), "%s/%s", home,
		    conf + 2);
}

void
shell_init(struct console *c)
{
	sh.c = c;
	cmds_notices(c, notice);
	rl_readline_name = "dts-console";
	rl_catch_signals = 0;		/* signals come through signalfd */
	rl_catch_sigwinch = 0;
	rl_attempted_completion_function = complete;
	using_history();
	stifle_history(HISTORY_MAX);
	history_path(cmds_history(c));
	if (sh.history[0] != '\0')
		read_history(sh.history);
	install();
}

void
shell_input(void)
{
	rl_callback_read_char();
}

void
shell_interrupt(void)
{
	if (!sh.installed)
		return;
	rl_free_line_state();
	rl_callback_sigcleanup();
	rl_replace_line("", 0);
	printf("\n");
	rl_on_new_line();
	rl_redisplay();
}

void
shell_winch(void)
{
	rl_resize_terminal();
}

void
shell_fini(void)
{
	shell_pause();
	if (sh.history[0] != '\0' && write_history(sh.history) == 0)
		history_truncate_file(sh.history, HISTORY_MAX);
	if (sh.c != NULL)
		cmds_notices(sh.c, NULL);
}
