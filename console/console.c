/*
 * console.c - the shared state of dts-console.  See console.h.
 */
#include <stdio.h>
#include <string.h>

#include "console.h"

void
con_init(struct console *c, const struct dts_conf *conf, FILE *out)
{
	memset(c, 0, sizeof(*c));
	c->conf = *conf;
	c->out.f = out;
	c->net.fd = -1;
	c->sb.fd = -1;
	sch_init(&c->sch, conf);
	bal_reset(&c->bal);
}

int64_t
con_node_timeout(const struct console *c)
{
	int64_t floor = 2 * c->sch.si + c->conf.console.status_wait_ns;

	return c->conf.console.timeout_ns > floor ? c->conf.console.timeout_ns :
	    floor;
}
