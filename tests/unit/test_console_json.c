/*
 * test_console_json.c - the numbers of the console's JSON documents are
 * printed at the precision they have: a time since an event (whole
 * nanoseconds) as its nanoseconds, a load index (thousandths) as its
 * thousandths, not as the 17 digits of a double ("0.29965650100000002").
 * show says whose values it prints, and what the nodes heard from run.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdlib.h>

#include "cmds.h"
#include "console_fixture.h"
#include "report.h"
#include "timeutil.h"

/* The text of key's value in doc (up to the next ',' or newline). */
static const char *
value_text(const char *doc, const char *key)
{
	static char	 v[64];
	char		 k[64];
	const char	*p;
	size_t		 n;

	snprintf(k, sizeof(k), "\"%s\": ", key);
	if ((p = strstr(doc, k)) == NULL)
		fail_msg("%s not in:\n%s", k, doc);
	p += strlen(k);
	n = strcspn(p, ",\n");
	assert_true(n < sizeof(v));
	memcpy(v, p, n);
	v[n] = '\0';
	return v;
}

static void
status_precision(void **state)
{
	struct fixture		*f = *state;
	struct proto_status	 st = { .mode = MODE_STATIC, .ps_us = 80000,
	    .ip_us = 100000, .si_us = 1000000, .load_milli = 1100 };
	struct report_src	 src;
	const char		*doc;
	json_error_t		 e;
	json_t			*j, *n;
	int64_t			 heard = 5 * SEC, now;

	now = heard + 299656501;	/* the 0.29965650100000002 */
	assert_non_null(nodes_status(&f->c.nodes, ip4("127.0.0.1"), &st,
	    heard));
	master_report_src(&f->c, &src);
	assert_int_equal(report_status_json(f->c.out.f, &src, heard, now), 1);
	doc = fixture_output(f);
	assert_string_equal(value_text(doc, "heard_s"), "0.299656501");
	assert_string_equal(value_text(doc, "q"), "1.1");

	/* and it reads back as the same number */
	j = json_loads(doc, 0, &e);
	if (j == NULL)
		fail_msg("not JSON (%s):\n%s", e.text, doc);
	n = json_array_get(json_object_get(j, "nodes"), 0);
	assert_true(json_real_value(json_object_get(n, "heard_s")) ==
	    299656501 / 1e9);
	json_decref(j);

	/* a long time ago still has its nanoseconds */
	now = heard + 86399 * SEC + 123456789;
	report_status_json(f->c.out.f, &src, heard, now);
	assert_string_equal(value_text(fixture_output(f), "heard_s"),
	    "86399.123456789");
}

static void
load_precision(void **state)
{
	struct fixture		*f = *state;
	struct proto_load	 l = { .load_milli = 300, .ncpu = 1 };
	struct report_src	 src;
	struct rla		 r = { 0 };
	const char		*doc;

	assert_non_null(nodes_load(&f->c.nodes, ip4("127.0.0.1"), &l,
	    SEC));
	master_report_src(&f->c, &src);
	report_load_json(f->c.out.f, &src, &r, SEC + 2 * NS_PER_MS);
	doc = fixture_output(f);
	assert_string_equal(value_text(doc, "q"), "0.3");
	assert_string_equal(value_text(doc, "heard_s"), "0.002");
}

/* show says whose values it prints, and beside them what the nodes run
 * (from their STATUS), grouped by schedule. */
static void
show_whose(void **state)
{
	struct fixture		*f = *state;
	struct proto_status	 st = { .mode = MODE_STATIC, .ps_us = 50000,
	    .ip_us = 100000, .si_us = 1000000, .flags = SCHED_F_ACTIVE,
	    .master = 0x0a000001 };
	const char		*doc;
	json_error_t		 e;
	json_t			*j, *r;

	assert_int_equal(cmds_exec(&f->c, "show"), 0);
	doc = fixture_output(f);
	assert_contains(doc, "values       this console's (dts.conf, set), "
	    "not sent: not what the nodes run\n");
	assert_contains(doc, "nodes run    not known: no status heard");

	/* two nodes on an earlier console's STATIC 50 %, one on its own */
	assert_non_null(nodes_status(&f->c.nodes, ip4("127.0.0.1"), &st,
	    SEC));
	assert_non_null(nodes_status(&f->c.nodes, ip4("127.0.0.2"), &st,
	    SEC));
	st = (struct proto_status){ .mode = MODE_STATIC, .ps_us = 80000,
	    .ip_us = 100000, .flags = SCHED_F_ACTIVE | STATUS_F_OWN };
	assert_non_null(nodes_status(&f->c.nodes, ip4("127.0.0.3"), &st,
	    SEC));
	assert_int_equal(cmds_exec(&f->c, "show"), 0);
	doc = fixture_output(f);
	assert_contains(doc, "ps           80ms (80% of ip)\n");
	assert_contains(doc, "nodes run    static, PS 50ms of IP 100ms, "
	    "slicing: 2 nodes, master 10.0.0.1\n");
	assert_contains(doc, "             static, PS 80ms of IP 100ms, "
	    "slicing, their own dts.conf's: 1 node, master none\n");

	assert_int_equal(cmds_exec(&f->c, "show --json"), 0);
	doc = fixture_output(f);
	j = json_loads(doc, 0, &e);
	if (j == NULL)
		fail_msg("not JSON (%s):\n%s", e.text, doc);
	assert_true(json_is_false(json_object_get(j, "sent")));
	r = json_array_get(json_object_get(j, "nodes_run"), 0);
	assert_int_equal(json_integer_value(json_object_get(r, "ps_us")),
	    50000);
	assert_int_equal(json_integer_value(json_object_get(r, "nodes")), 2);
	assert_string_equal(json_string_value(json_object_get(r, "master")),
	    "10.0.0.1");
	/* the fixture is insecure: no key, as the text says "none" */
	assert_true(json_is_null(json_object_get(j, "key")));
	json_decref(j);

	/* with the key pair: the files it signs with and checks under */
	f->c.conf.insecure = 0;
	snprintf(f->c.conf.console.sign_key, sizeof(f->c.conf.console.sign_key),
	    "%s", "/etc/dts/console.key");
	snprintf(f->c.conf.console.node_secret,
	    sizeof(f->c.conf.console.node_secret), "%s", "/etc/dts/nodes.key");
	assert_int_equal(cmds_exec(&f->c, "show --json"), 0);
	j = json_loads(fixture_output(f), 0, &e);
	assert_non_null(j);
	r = json_object_get(j, "key");
	assert_string_equal(json_string_value(json_object_get(r, "sign_key")),
	    "/etc/dts/console.key");
	assert_string_equal(json_string_value(json_object_get(r,
	    "node_secret")), "/etc/dts/nodes.key");
	json_decref(j);
	assert_int_equal(cmds_exec(&f->c, "show"), 0);
	assert_contains(fixture_output(f), "key          signs with "
	    "/etc/dts/console.key, checks replies under /etc/dts/nodes.key\n");
	f->c.conf.insecure = 1;

	/* once started, they are the values sent */
	assert_int_equal(cmds_exec(&f->c, "start"), 0);
	(void)fixture_output(f);
	assert_int_equal(cmds_exec(&f->c, "show"), 0);
	assert_contains(fixture_output(f), "values       this console's, "
	    "sent to the nodes every SI\n");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(status_precision,
		    fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(load_precision,
		    fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(show_whose,
		    fixture_setup, fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
