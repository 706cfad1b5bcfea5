/*
 * console_fixture.h - a console for unit tests: default configuration,
 * insecure, one explicit node (127.0.0.1), no socket (sends are only
 * counted), the kernel's default RT budget, output captured in memory.
 * Header-only so that every console test shares it.
 */
#ifndef DTS_TEST_CONSOLE_FIXTURE_H
#define DTS_TEST_CONSOLE_FIXTURE_H

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "console.h"
#include "timeutil.h"

#define SEC NS_PER_SEC
#define MS(x) ((int64_t)(x) * NS_PER_MS)

/* A dotted IPv4 address (the test fails on a bad one). */
static __attribute__((unused)) struct in_addr
ip4(const char *s)
{
	struct in_addr	 a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a;
}

struct fixture {
	struct console	 c;
	char		*buf;
	size_t		 len;
};

static __attribute__((unused)) struct fixture *
fixture_new(void)
{
	struct fixture	*f = calloc(1, sizeof(*f));
	struct dts_conf	 conf;
	char		 err[256];

	if (f == NULL)
		abort();
	conf_defaults(&conf);
	conf.insecure = 1;
	conf.console.nodes.n = 1;
	snprintf(conf.console.nodes.s[0], CONF_ITEM_MAX, "127.0.0.1");
	con_init(&f->c, &conf, NULL);
	master_init(&f->c.e);
	f->c.pvm.out = &f->c.out;	/* the stubs of pvmcmd.c speak there */
	f->c.sch.rt.runtime_us = 950000;
	f->c.sch.rt.period_us = 1000000;
	if (net_init(&f->c.net, &conf, 0, err, sizeof(err)) == -1 ||
	    (f->c.out.f = open_memstream(&f->buf, &f->len)) == NULL)
		abort();
	return f;
}

/* Everything printed since the last call. */
static __attribute__((unused)) const char *
fixture_output(struct fixture *f)
{
	static char	 copy[16384];

	fflush(f->c.out.f);
	snprintf(copy, sizeof(copy), "%s", f->buf != NULL ? f->buf : "");
	fclose(f->c.out.f);
	free(f->buf);
	f->buf = NULL;
	f->len = 0;
	if ((f->c.out.f = open_memstream(&f->buf, &f->len)) == NULL)
		abort();
	return copy;
}

static __attribute__((unused)) void
fixture_free(struct fixture *f)
{
	net_close(&f->c.net);
	nodes_free(&f->c.nodes);
	matrix_free(&f->c.m.mx);
	fclose(f->c.out.f);
	free(f->buf);
	free(f);
}

/* cmocka set-up and tear-down: a fresh fixture for every test. */
static __attribute__((unused)) int
fixture_setup(void **state)
{
	*state = fixture_new();
	return 0;
}

static __attribute__((unused)) int
fixture_teardown(void **state)
{
	fixture_free(*state);
	return 0;
}

#define assert_contains(hay, needle) do {				\
	if (strstr((hay), (needle)) == NULL)				\
		fail_msg("\"%s\" not in:\n%s", (needle), (hay));	\
} while (0)

#endif /* DTS_TEST_CONSOLE_FIXTURE_H */
