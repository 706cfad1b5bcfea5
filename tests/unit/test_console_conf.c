/*
 * test_console_conf.c - the console group of dts.conf: defaults, a full
 * group, the string list type (console.nodes), every rejection with its
 * line, and conf_print writing it back in a form that reads the same.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>

#include "conf.h"
#include "conf_nodes.h"
#include "timeutil.h"

static char path[64];

/* Load text as a config file; returns conf_load's result, err in *err. */
static int
load(const char *text, struct dts_conf *c, char *err, size_t len)
{
	FILE	*fp;
	int	 fd, rc;

	snprintf(path, sizeof(path), "/tmp/test_console_conf.XXXXXX");
	assert_true((fd = mkstemp(path)) >= 0);
	assert_non_null(fp = fdopen(fd, "w"));
	fputs(text, fp);
	fclose(fp);
	conf_defaults(c);
	rc = conf_load(c, path, 0, err, len);
	unlink(path);
	return rc;
}

/* The message without the "file:" prefix. */
static const char *
why(const char *text)
{
	static char	 err[512];
	struct dts_conf	 c;

	assert_int_equal(load(text, &c, err, sizeof(err)), -1);
	return strncmp(err, path, strlen(path)) == 0 ? err + strlen(path) + 1 :
	    err;
}

static void
test_defaults(void **state)
{
	struct dts_conf	 c;

	(void)state;
	conf_defaults(&c);
	assert_int_equal(c.console.nodes.n, 0);
	assert_int_equal(c.console.unicast, 0);
	assert_int_equal(c.console.rla, RLA_MEAN);
	assert_true(c.console.hysteresis == 0.5);
	assert_int_equal(c.console.timeout_ns, 30 * NS_PER_SEC);
	assert_int_equal(c.console.status_wait_ns, 300 * NS_PER_MS);
	assert_int_equal(c.console.start_wait_ns, 30 * NS_PER_SEC);
	assert_string_equal(c.console.history, "~/.dts_history");
	assert_string_equal(c.console.pvm_tmp, "");
	assert_true(strstr(c.console.launcher, "/pvmd") != NULL);
}

static void
test_group(void **state)
{
	struct dts_conf	 c;
	char		 err[512];

	(void)state;
	assert_int_equal(load("console = {\n"
	    "  nodes = [\"10.0.0.1\", \"10.0.0.2\"];\n"
	    "  unicast = true;\n  rla = \"max\";\n  hysteresis = 0.25;\n"
	    "  timeout = \"2s\";\n  status_wait = 0.05;\n"
	    "  start_wait = \"1s\";\n  history = \"\";\n"
	    "  pvm_tmp = \"/tmp/x\";\n"
	    "  launcher = \"/opt/pvmd\";\n};\n", &c, err, sizeof(err)), 0);
	assert_int_equal(c.console.nodes.n, 2);
	assert_string_equal(c.console.nodes.s[1], "10.0.0.2");
	assert_int_equal(c.console.unicast, 1);
	assert_int_equal(c.console.rla, RLA_MAX);
	assert_true(c.console.hysteresis == 0.25);
	assert_int_equal(c.console.timeout_ns, 2 * NS_PER_SEC);
	assert_int_equal(c.console.status_wait_ns, 50 * NS_PER_MS);
	assert_string_equal(c.console.launcher, "/opt/pvmd");
	assert_int_equal(load("console = { nodes = []; };\n", &c, err,
	    sizeof(err)), 0);
	assert_int_equal(c.console.nodes.n, 0);
	assert_int_equal(load("console = { nodes = ( \"127.0.0.1\" ); };\n",
	    &c, err, sizeof(err)), 0);
	assert_int_equal(c.console.nodes.n, 1);
}

/* Ranges and node files expand; bad lines and repeats are refused. */
static void
test_nodes_expand(void **state)
{
	struct conf_strlist	 l = { 0 };
	struct in_addr		*a = calloc(CONF_NODES_MAX, sizeof(*a));
	char			 nfile[] = "/tmp/dts-nodes-XXXXXX", why[400];
	char			 s[INET_ADDRSTRLEN];
	FILE			*f;
	int			 fd;

	(void)state;
	assert_non_null(a);
	assert_true((fd = mkstemp(nfile)) != -1);
	assert_non_null(f = fdopen(fd, "w"));
	fprintf(f, "# rack 1\n10.1.0.7\n\n  10.2.0.0/30  # two hosts\n");
	fclose(f);
	l.n = 3;
	snprintf(l.s[0], sizeof(l.s[0]), "127.1.0.0/19");
	snprintf(l.s[1], sizeof(l.s[1]), "@%s", nfile);
	snprintf(l.s[2], sizeof(l.s[2]), "10.3.0.0/31");
	assert_int_equal(confnodes_expand(&l, a, CONF_NODES_MAX, why,
	    sizeof(why)), 8190 + 1 + 2 + 2);
	assert_string_equal(inet_ntop(AF_INET, &a[0], s, sizeof(s)),
	    "127.1.0.1");
	assert_string_equal(inet_ntop(AF_INET, &a[8189], s, sizeof(s)),
	    "127.1.31.254");
	assert_string_equal(inet_ntop(AF_INET, &a[8190], s, sizeof(s)),
	    "10.1.0.7");
	assert_string_equal(inet_ntop(AF_INET, &a[8192], s, sizeof(s)),
	    "10.2.0.2");
	assert_string_equal(inet_ntop(AF_INET, &a[8193], s, sizeof(s)),
	    "10.3.0.0");
	/* too many */
	assert_int_equal(confnodes_expand(&l, a, 8194, why, sizeof(why)), -1);
	assert_string_equal(why, "entry 3: more than 8194 addresses");
	/* twice */
	snprintf(l.s[2], sizeof(l.s[2]), "10.1.0.7");
	assert_int_equal(confnodes_expand(&l, a, CONF_NODES_MAX, why,
	    sizeof(why)), -1);
	assert_string_equal(why, "10.1.0.7 is named twice");
	/* a bad line names its file and line */
	assert_non_null(f = fopen(nfile, "a"));
	fprintf(f, "node9\n");
	fclose(f);
	l.n = 2;
	assert_int_equal(confnodes_expand(&l, a, CONF_NODES_MAX, why,
	    sizeof(why)), -1);
	assert_true(strstr(why, " line 5: \"node9\" is not an IPv4 address")
	    != NULL);
	unlink(nfile);
	snprintf(l.s[1], sizeof(l.s[1]), "@%s", nfile);
	assert_int_equal(confnodes_expand(&l, a, CONF_NODES_MAX, why,
	    sizeof(why)), -1);
	assert_true(strstr(why, "No such file") != NULL);
	free(a);
}

static void
test_errors(void **state)
{
	(void)state;
	assert_string_equal(why("console = {\n nodes = [\"10.0.0.1\", "
	    "\"nohost\"];\n};\n"), "2: console.nodes: entry 2: \"nohost\" is "
	    "not an IPv4 address, a range (10.0.0.0/24) or a node file "
	    "(@/path)");
	assert_string_equal(why("console = { nodes = [\"10.0.0.1/24\"]; };\n"),
	    "1: console.nodes: entry 1: \"10.0.0.1/24\" has host bits set (the "
	    "range is 10.0.0.0/24)");
	assert_string_equal(why("console = { nodes = [\"10.0.0.0/16\"]; };\n"),
	    "1: console.nodes: entry 1: \"10.0.0.0/16\" has more than 16384 "
	    "addresses");
	assert_string_equal(why("console = { nodes = [\"10.0.0.0/33\"]; };\n"),
	    "1: console.nodes: entry 1: \"10.0.0.0/33\" is not an IPv4 range "
	    "(e.g. 10.0.0.0/24)");
	assert_string_equal(why("console = { nodes = [\"@nodes\"]; };\n"),
	    "1: console.nodes: entry 1: node file \"nodes\": the path must be "
	    "absolute (@/etc/dts/nodes)");
	assert_string_equal(why("console = { nodes = \"10.0.0.1\"; };\n"),
	    "1: console.nodes: expected a list of strings ([\"10.0.0.1\", "
	    "...]), not a string");
	assert_string_equal(why("console = { nodes = [1, 2]; };\n"),
	    "1: console.nodes: entry 1 is an integer, not a string");
	assert_string_equal(why("console = { rla = \"median\"; };\n"),
	    "1: console.rla: \"median\" is not one of mean or max");
	assert_string_equal(why("console = { hysteresis = -1.0; };\n"),
	    "1: console.hysteresis: -1 is out of range [0, 100]");
	assert_string_equal(why("console = { timeout = \"1ms\"; };\n"),
	    "1: console.timeout: 1ms is out of range [10ms, 86400s]");
	assert_string_equal(why("console = { history = \"rel/path\"; };\n"),
	    "1: console.history: \"rel/path\" is not an absolute path");
	assert_string_equal(why("console = { launcher = \"pvmd\"; };\n"),
	    "1: console.launcher: \"pvmd\" is not an absolute path");
	assert_string_equal(why("console = { dts = \"/usr/sbin/dts\"; };\n"),
	    "1: unknown key \"console.dts\"");
	assert_string_equal(why("console = { unicast = 1; };\n"),
	    "1: console.unicast: expected true or false, not an integer");
	assert_string_equal(why("\ntimeout = \"1s\";\n"),
	    "2: unknown key \"timeout\" (did you mean \"console.timeout\"?)");
	assert_string_equal(why("console = { colour = 1; };\n"),
	    "1: unknown key \"console.colour\"");
}

static void
test_print_roundtrip(void **state)
{
	struct dts_conf	 c, d;
	char		*buf = NULL, err[512];
	size_t		 len = 0;
	FILE		*fp;

	(void)state;
	assert_int_equal(load("console = { nodes = [\"10.0.0.1\", "
	    "\"10.0.0.3\"]; rla = \"max\"; };\n", &c, err, sizeof(err)), 0);
	assert_non_null(fp = open_memstream(&buf, &len));
	conf_print(&c, fp);
	fclose(fp);
	assert_non_null(strstr(buf, "console = {\n"));
	assert_non_null(strstr(buf, "\tnodes = [\"10.0.0.1\", \"10.0.0.3\"];\n"));
	assert_int_equal(load(buf, &d, err, sizeof(err)), 0);
	assert_int_equal(d.console.nodes.n, 2);
	assert_string_equal(d.console.nodes.s[1], "10.0.0.3");
	assert_int_equal(d.console.rla, RLA_MAX);
	free(buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_group),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_nodes_expand),
		cmocka_unit_test(test_print_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
