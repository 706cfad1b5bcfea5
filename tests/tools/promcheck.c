/*
 * promcheck - read a file in Prometheus's text format strictly
 * (promparse.h) and print its samples, one a line, as
 * "name{labels} value" with the labels in canonical order (sorted by
 * name), for a shell test to look values up.  Exit 1 with the reason if
 * the file breaks a rule.
 *
 * usage: promcheck FILE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "promparse.h"

static char *
slurp(const char *path)
{
	FILE	*f = fopen(path, "r");
	char	*buf = NULL;
	size_t	 len = 0, n;
	char	 chunk[8192];

	if (f == NULL)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		char *b = realloc(buf, len + n + 1);

		if (b == NULL) {
			free(buf);
			fclose(f);
			return NULL;
		}
		buf = b;
		memcpy(buf + len, chunk, n);
		len += n;
	}
	fclose(f);
	if (buf == NULL)
		buf = calloc(1, 1);
	else
		buf[len] = '\0';
	return buf;
}

int
main(int argc, char **argv)
{
	struct prom_doc	 d;
	char		*text;
	int		 i;

	if (argc != 2) {
		fprintf(stderr, "usage: promcheck FILE\n");
		return 2;
	}
	if ((text = slurp(argv[1])) == NULL) {
		perror(argv[1]);
		return 1;
	}
	if (text[0] == '\0') {
		fprintf(stderr, "%s: empty\n", argv[1]);
		free(text);
		return 1;
	}
	if (prom_parse(text, &d) == -1) {
		fprintf(stderr, "%s: %s\n", argv[1], d.err);
		prom_free(&d);
		free(text);
		return 1;
	}
	for (i = 0; i < d.n; i++)
		printf("%s{%s} %s\n", d.s[i].name, d.s[i].labels,
		    d.s[i].text);
	prom_free(&d);
	free(text);
	return 0;
}
