/*
 * cmd.c - command lookup, words, scripts and help.  See cmd.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

#define HELP_COL 32	/* width of the usage column of "help" */

const struct cmd_entry *
cmd_find(const struct cmd_table *t, const char *name, char *err,
    size_t errlen)
{
	const struct cmd_entry	*found = NULL;
	size_t			 i, len = strlen(name), n = 0, nmatch = 0;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->e[i].name, name) == 0)
			return &t->e[i];
	for (i = 0; i < t->n && len > 0; i++)
		if (strncmp(t->e[i].name, name, len) == 0) {
			found = &t->e[i];
			nmatch++;
		}
	if (nmatch == 1)
		return found;
	if (nmatch == 0) {
		snprintf(err, errlen, "unknown command \"%s\" (type help for "
		    "a list)", name);
		return NULL;
	}
	n = (size_t)snprintf(err, errlen, "ambiguous command \"%s\":", name);
	for (i = 0, nmatch = 0; i < t->n && n < errlen; i++)
		if (strncmp(t->e[i].name, name, len) == 0)
			n += (size_t)snprintf(err + n, errlen - n, "%s %s",
			    nmatch++ > 0 ? "," : "", t->e[i].name);
	return NULL;
}

int
cmd_split(char *line, char **argv, int max, char *err, size_t errlen)
{
	char	*r = line, *w = line;
	char	 quote;
	int	 argc = 0;

	for (;;) {
		while (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r')
			r++;
		if (*r == '\0')
			return argc;
		if (argc == max) {
			snprintf(err, errlen, "too many words (at most %d)",
			    max);
			return -1;
		}
		argv[argc++] = w;
		quote = 0;
		for (; *r != '\0'; r++) {
			if (quote == 0 && (*r == ' ' || *r == '\t' ||
			    *r == '\n' || *r == '\r'))
				break;
			if (quote == 0 && (*r == '"' || *r == '\''))
				quote = *r;
			else if (quote != 0 && *r == quote)
				quote = 0;
			else if (*r == '\\' && quote != '\'' && r[1] != '\0')
				*w++ = *++r;
			else
				*w++ = *r;
		}
		if (quote != 0) {
			snprintf(err, errlen, "unterminated %c quote", quote);
			return -1;
		}
		if (*r != '\0')
			r++;
		*w++ = '\0';
	}
}

void
cmd_usage(const struct cmd_entry *e, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", e->name, e->usage[0] != '\0' ? " " : "",
	    e->usage);
}

int
cmd_check_args(const struct cmd_entry *e, int argc, char *err, size_t errlen)
{
	char	 u[128];
	int	 nargs = argc - 1;

	if (nargs >= e->min_args && (e->max_args < 0 || nargs <= e->max_args))
		return 0;
	cmd_usage(e, u, sizeof(u));
	snprintf(err, errlen, "%s: %s arguments (usage: %s)", e->name,
	    nargs < e->min_args ? "missing" : "too many", u);
	return -1;
}

/* Emit buf[0..len) trimmed, unless blank. */
static int
emit(const char *buf, size_t len, int line,
    int (*fn)(void *, const char *, int), void *arg)
{
	char	*cmd;
	int	 rc;

	while (len > 0 && (*buf == ' ' || *buf == '\t' || *buf == '\r'))
		buf++, len--;
	while (len > 0 && (buf[len - 1] == ' ' || buf[len - 1] == '\t' ||
	    buf[len - 1] == '\r'))
		len--;
	if (len == 0)
		return 0;
	if ((cmd = strndup(buf, len)) == NULL)
		return -1;
	rc = fn(arg, cmd, line);
	free(cmd);
	return rc;
}

int
cmd_script_split(const char *s, int (*fn)(void *, const char *, int),
    void *arg)
{
	const char	*start = s, *p;
	char		 quote = 0;
	int		 line = 1, cmdline = 1;

	for (p = s; ; p++) {
		if (*p == '\0' || (quote == 0 && (*p == ';' || *p == '\n' ||
		    *p == '#'))) {
			if (emit(start, (size_t)(p - start), cmdline, fn,
			    arg) == -1)
				return -1;
			if (*p == '#')
				p += strcspn(p, "\n");
			if (*p == '\0')
				return 0;
			if (*p == '\n')
				line++;
			start = p + 1;
			cmdline = line;
			continue;
		}
		if (quote == 0 && (*p == '"' || *p == '\''))
			quote = *p;
		else if (quote != 0 && *p == quote)
			quote = 0;
		else if (*p == '\\' && quote != '\'' && p[1] != '\0')
			p++;
		if (*p == '\n')
			line++;
	}
}

const char *
cmd_complete_name(const struct cmd_table *t, const char *text, int i)
{
	size_t	 k, len = strlen(text);

	for (k = 0; k < t->n; k++)
		if (strncmp(t->e[k].name, text, len) == 0 && i-- == 0)
			return t->e[k].name;
	return NULL;
}

int
cmd_help_print(const struct cmd_table *t, FILE *out, const char *name,
    char *err, size_t errlen)
{
	const struct cmd_entry	*e;
	char			 u[128];
	size_t			 i;

	if (name == NULL) {
		for (i = 0; i < t->n; i++) {
			cmd_usage(&t->e[i], u, sizeof(u));
			if (strlen(u) > HELP_COL)
				fprintf(out, "  %s\n  %-*s %s\n", u, HELP_COL,
				    "", t->e[i].help);
			else
				fprintf(out, "  %-*s %s\n", HELP_COL, u,
				    t->e[i].help);
		}
		fprintf(out, "Commands may be shortened to a unique prefix; "
		    "help CMD tells more.\n");
		return 0;
	}
	if ((e = cmd_find(t, name, err, errlen)) == NULL)
		return -1;
	cmd_usage(e, u, sizeof(u));
	fprintf(out, "usage: %s\n  %s\n", u, e->help);
	if (e->long_help != NULL)
		fprintf(out, "%s", e->long_help);
	return 0;
}
