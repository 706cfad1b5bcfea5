/*
 * cli.c - see cli.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

void
cli_die(int rc, const char *fmt, ...)
{
	va_list	 ap;

	fprintf(stderr, "%s: ", cli_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(rc);
}
