/*
 * out.c - command output, errors and notices.  See out.h.
 */
#include <stdarg.h>
#include <stdio.h>

#include "log.h"
#include "out.h"

int
out_err(struct out *o, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(o->err, sizeof(o->err), fmt, ap);
	va_end(ap);
	return -1;
}

int
out_prefix(struct out *o, const char *prefix)
{
	char	 why[OUT_ERR_MAX];

	snprintf(why, sizeof(why), "%s", o->err);
	return out_err(o, "%s: %s", prefix, why);
}

void
out_notice(struct out *o, const char *fmt, ...)
{
	char	 msg[512];
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (o->notice != NULL)
		o->notice(msg);
	else
		log_info("%s", msg);
}

void
out_say(struct out *o, const char *fmt, ...)
{
	char	 line[1024];
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (o->say != NULL)
		o->say(o, line);
	else
		log_info("%s", line);
}
