/*
 * console.c - the shared state of dts-console.  See console.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "console.h"
#include "log.h"

void
con_init(struct console *c, const struct dts_conf *conf, FILE *out)
{
	memset(c, 0, sizeof(*c));
	c->conf = *conf;
	c->out = out;
	c->net.fd = -1;
	sch_init(&c->sch, conf);
	bal_reset(&c->bal);
	master_init(c);
}

int
con_err(struct console *c, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	return -1;
}

int
con_prefix(struct console *c, const char *prefix)
{
	char	 why[CMD_ERR_MAX];

	snprintf(why, sizeof(why), "%s", c->err);
	return con_err(c, "%s: %s", prefix, why);
}

void
con_notice(struct console *c, const char *fmt, ...)
{
	char	 msg[512];
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->notice != NULL)
		c->notice(c, msg);
	else
		log_info("%s", msg);
}

int64_t
con_node_timeout(const struct console *c)
{
	int64_t floor = 2 * c->sch.si + c->conf.console.status_wait_ns;

	return c->conf.console.timeout_ns > floor ? c->conf.console.timeout_ns :
	    floor;
}
