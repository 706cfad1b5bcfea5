/*
 * test_console_cmd.c - the console's command table: lookup by name and
 * prefix, ambiguity, argument counts, words and quotes, scripts, help,
 * completion, and the one-line errors of the commands themselves.
 */
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <unistd.h>

#include "cmds.h"
#include "script.h"
#include "console_fixture.h"
#include "proto.h"
#include "rules.h"
#include "setkeys.h"
#include "timeutil.h"
#include "trace.h"

extern int stub_pvm_calls;

static const char *
find_err(const char *name)
{
	static char	 err[CMD_ERR_MAX];
	const struct cmd_entry *e = cmd_find(&cmds_table, name, err,
	    sizeof(err));

	return e != NULL ? e->name : err;
}

static void
test_find(void **state)
{
	(void)state;
	assert_string_equal(find_err("status"), "status");
	assert_string_equal(find_err("stat"), "status");
	assert_string_equal(find_err("si"), "si");	/* exact beats prefix */
	assert_string_equal(find_err("h"),
	    "ambiguous command \"h\": help, hosts, halt");
	assert_string_equal(find_err("he"), "help");
	assert_string_equal(find_err("q"), "quit");
	assert_string_equal(find_err("sp"), "spawn");
	assert_string_equal(find_err("st"),
	    "ambiguous command \"st\": start, stop, status");
	assert_string_equal(find_err("s"), "ambiguous command \"s\": si, "
	    "start, stop, sync, status, set, show, spawn");
	assert_string_equal(find_err("x"),
	    "unknown command \"x\" (type help for a list)");
	assert_string_equal(find_err("statusx"),
	    "unknown command \"statusx\" (type help for a list)");
	assert_string_equal(find_err(""),
	    "unknown command \"\" (type help for a list)");
}

static void
test_table_sane(void **state)
{
	size_t	 i, j;

	(void)state;
	for (i = 0; i < cmds_table.n; i++) {
		const struct cmd_entry *e = &cmds_table.e[i];

		assert_non_null(e->fn);
		assert_non_null(e->help);
		assert_true(e->max_args < 0 || e->max_args >= e->min_args);
		for (j = 0; j < i; j++)
			assert_string_not_equal(e->name, cmds_table.e[j].name);
	}
}

static void
test_arg_counts(void **state)
{
	struct fixture	*f = *state;

	assert_int_equal(cmds_exec(&f->c, "start now"), -1);
	assert_string_equal(f->c.out.err,
	    "start: too many arguments (usage: start)");
	assert_int_equal(cmds_exec(&f->c, "ip 1s 2s"), -1);
	assert_string_equal(f->c.out.err,
	    "ip: too many arguments (usage: ip [DUR])");
	assert_int_equal(cmds_exec(&f->c, "add"), -1);
	assert_string_equal(f->c.out.err,
	    "add: missing arguments (usage: add HOST...)");
	assert_int_equal(cmds_exec(&f->c, "set sync"), -1);
	assert_string_equal(f->c.out.err, "set: missing arguments (usage: set "
	    "KEY VALUE | weight HOST|JOB W)");
	assert_int_equal(cmds_exec(&f->c, "sta"), -1);
	assert_string_equal(f->c.out.err,
	    "ambiguous command \"sta\": start, status");
	/* a prefix runs the command it stands for */
	assert_int_equal(cmds_exec(&f->c, "mo"), 0);
	assert_string_equal(fixture_output(f), "mode static\n");
	assert_int_equal(cmds_exec(&f->c, "   "), 0);
	assert_int_equal(cmds_exec(&f->c, ""), 0);
}

static void
test_split(void **state)
{
	char	 line[128], *argv[8], err[128];

	(void)state;
	snprintf(line, sizeof(line), "  spawn  -n 2 'a b' \"c'd\" e\\ f ");
	assert_int_equal(cmd_split(line, argv, 8, err, sizeof(err)), 6);
	assert_string_equal(argv[0], "spawn");
	assert_string_equal(argv[3], "a b");
	assert_string_equal(argv[4], "c'd");
	assert_string_equal(argv[5], "e f");
	snprintf(line, sizeof(line), "spawn \"x");
	assert_int_equal(cmd_split(line, argv, 8, err, sizeof(err)), -1);
	assert_string_equal(err, "unterminated \" quote");
	snprintf(line, sizeof(line), "a b c");
	assert_int_equal(cmd_split(line, argv, 2, err, sizeof(err)), -1);
	assert_string_equal(err, "too many words (at most 2)");
}

struct collect {
	char	 out[512];
};

static int
collect(void *arg, const char *cmd, int line)
{
	struct collect	*c = arg;
	size_t		 n = strlen(c->out);

	snprintf(c->out + n, sizeof(c->out) - n, "%d[%s]", line, cmd);
	return 0;
}

static void
test_script_split(void **state)
{
	struct collect	 c = { "" };

	(void)state;
	assert_int_equal(cmd_script_split("mode static; ps 80%;start", collect,
	    &c), 0);
	assert_string_equal(c.out, "1[mode static]1[ps 80%]1[start]");
	c.out[0] = '\0';
	assert_int_equal(cmd_script_split("# comment\n\nip 1s # why\n"
	    "spawn 'a;b' \"#x\"\n ; ;\nstatus", collect, &c), 0);
	assert_string_equal(c.out, "3[ip 1s]4[spawn 'a;b' \"#x\"]6[status]");
}

static void
test_help(void **state)
{
	struct fixture	*f = *state;
	const char	*out;

	assert_int_equal(cmds_exec(&f->c, "help"), 0);
	out = fixture_output(f);
	assert_contains(out, "  ip [DUR]");
	assert_contains(out, "spawn [-n N] [-w HOST] PROG [ARG...]");
	assert_contains(out, "unique prefix");
	assert_int_equal(cmds_exec(&f->c, "help sta"), -1);
	assert_string_equal(f->c.out.err,
	    "ambiguous command \"sta\": start, status");
	assert_int_equal(cmds_exec(&f->c, "he stat"), 0);
	out = fixture_output(f);
	assert_contains(out, "usage: status [-v] [--json]\n");
	assert_contains(out, "-v adds the rejected datagrams");
	assert_int_equal(cmds_exec(&f->c, "help set"), 0);
	assert_contains(fixture_output(f), "set weight HOST W|auto");
}

/*
 * Text that states a fact kept elsewhere says what its source says: the
 * modes in proto.c's order, IP's and SI's ranges (rules.h's text and
 * rules_check's, from the numbers), and trace's longest duration.
 */
static void
test_help_from_sources(void **state)
{
	struct fixture	*f = *state;
	char		 want[256], l[32], h[32];
	size_t		 n = 0;
	int		 i;

	n += (size_t)snprintf(want + n, sizeof(want) - n, "usage: mode [");
	for (i = 0; proto_mode_names[i] != NULL; i++)
		n += (size_t)snprintf(want + n, sizeof(want) - n, "%s%s",
		    i > 0 ? "|" : "", proto_mode_names[i]);
	snprintf(want + n, sizeof(want) - n, "]\n");
	assert_int_equal(cmds_exec(&f->c, "help mode"), 0);
	assert_contains(fixture_output(f), want);

	snprintf(want, sizeof(want), "[%s, %s]",
	    duration_format(RULE_IP_MIN, l, sizeof(l)),
	    duration_format(RULE_IP_MAX, h, sizeof(h)));
	assert_string_equal(RULE_IP_RANGE, want);
	assert_int_equal(cmds_exec(&f->c, "help ip"), 0);
	assert_contains(fixture_output(f), want);
	snprintf(want, sizeof(want), "[%s, %s]",
	    duration_format(RULE_SI_MIN, l, sizeof(l)),
	    duration_format(RULE_SI_MAX, h, sizeof(h)));
	assert_string_equal(RULE_SI_RANGE, want);
	assert_int_equal(cmds_exec(&f->c, "help si"), 0);
	assert_contains(fixture_output(f), want);
	assert_int_equal(cmds_exec(&f->c, "si 1ms"), -1);
	assert_contains(f->c.out.err, want);

	snprintf(want, sizeof(want), "out of range (0, %s]",
	    duration_format(TRACE_DUR_MAX, h, sizeof(h)));
	assert_int_equal(cmds_exec(&f->c, "trace 10.0.0.1 61s"), -1);
	assert_contains(f->c.out.err, want);
}

static const char *
complete(struct fixture *f, const char *line, int i)
{
	const char	*text = strrchr(line, ' ');
	int		 start = text != NULL ? (int)(text - line) + 1 : 0;

	return cmds_complete(&f->c, line, start, line + start, i);
}

static void
test_complete(void **state)
{
	struct fixture	*f = *state;

	assert_string_equal(complete(f, "st", 0), "start");
	assert_string_equal(complete(f, "st", 1), "stop");
	assert_string_equal(complete(f, "st", 2), "status");
	assert_null(complete(f, "st", 3));
	assert_string_equal(complete(f, "mode ba", 0), "balanced");
	assert_null(complete(f, "mode balanced x", 0));
	assert_string_equal(complete(f, "set hy", 0), "hysteresis");
	assert_string_equal(complete(f, "set sync c", 0), "clock");
	assert_string_equal(complete(f, "set ls_policy i", 0), "idle");
	assert_string_equal(complete(f, "help sp", 0), "spawn");
	assert_null(complete(f, "ip 1", 0));
	/* host names from the cached PVM host table */
	f->c.hosts.n = 2;
	snprintf(f->c.hosts.v[0].name, HOST_NAME_MAX_, "node1");
	snprintf(f->c.hosts.v[1].name, HOST_NAME_MAX_, "node2");
	assert_string_equal(complete(f, "delete no", 1), "node2");
	assert_string_equal(complete(f, "spawn -w n", 0), "node1");
	assert_string_equal(complete(f, "set weight node", 0), "node1");
	assert_null(complete(f, "set weight node1 ", 0));
}

static void
test_pvm_commands_dispatch(void **state)
{
	struct fixture	*f = *state;

	stub_pvm_calls = 0;
	assert_int_equal(cmds_exec(&f->c, "conf"), -1);
	assert_int_equal(cmds_exec(&f->c, "tasks"), -1);
	assert_int_equal(cmds_exec(&f->c, "del a b"), -1);
	assert_string_equal(f->c.out.err,
	    "delete: PVM is not linked into the unit tests");
	assert_int_equal(cmds_exec(&f->c, "spawn -n 2 prog x"), -1);
	assert_int_equal(cmds_exec(&f->c, "halt"), -1);
	assert_int_equal(stub_pvm_calls, 5);
}

static void
test_quit(void **state)
{
	struct fixture	*f = *state;

	assert_int_equal(cmds_exec(&f->c, "quit"), 0);
	assert_true(f->c.quit);
}

static void
test_set_errors(void **state)
{
	struct fixture	*f = *state;
	static const struct { const char *cmd, *err; } bad[] = {
		{ "set foo 1", "set: unknown key \"foo\" (one of sync, ls_policy, "
		  "rla, hysteresis, timeout, status_wait, weight)" },
		{ "set ls_policy yield",
		  "set ls_policy: \"yield\" is not one of stop or idle" },
		{ "set sync fast",
		  "set sync: \"fast\" is not one of arrival or clock" },
		{ "set rla median",
		  "set rla: \"median\" is not one of mean or max" },
		{ "set hysteresis x", "set hysteresis: \"x\" is not a number" },
		{ "set hysteresis -1",
		  "set hysteresis: -1 is out of range [0, 100]" },
		{ "set hysteresis nan",
		  "set hysteresis: nan is out of range [0, 100]" },
		{ "set timeout 1ms",
		  "set timeout: 1ms is out of range [10ms, 86400s]" },
		{ "set timeout soon", "set timeout: \"soon\": not a duration "
		  "(e.g. 800ms, 1s, 2.5s; a plain number is seconds)" },
		{ "set status_wait 2m",
		  "set status_wait: 120s is out of range [1ms, 60s]" },
		{ "set weight vm", "set weight: missing arguments (usage: set "
		  "weight HOST W|auto | JOB W)" },
		{ "set weight vm 0", "set weight: 0 is out of range (0, 1000]" },
		{ "set weight vm 1001",
		  "set weight: 1001 is out of range (0, 1000]" },
		/* kept to the millionth, as the standby's copy carries it */
		{ "set weight vm 0.0000004", "set weight: 0.0000004 is below "
		  "0.000001, the smallest weight (weights are kept to the "
		  "millionth)" },
		/* a name the standby's copy could not carry */
		{ "set weight 'v m' 2", "set weight: host name \"v m\" has a "
		  "byte that is not printable, a space or ':'" },
		{ "set weight '' 2",
		  "set weight: a host name is 1 to 63 bytes" },
		{ "set sync clock now", "set sync: too many arguments (usage: "
		  "set sync arrival|clock)" },
	};
	size_t	 i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(cmds_exec(&f->c, bad[i].cmd), -1);
		assert_string_equal(f->c.out.err, bad[i].err);
	}
	assert_int_equal(f->c.sch.sync, SYNC_ARRIVAL);
	assert_true(f->c.conf.console.hysteresis == 0.5);
	assert_int_equal(f->c.weights.n, 0);
	assert_string_equal(fixture_output(f), "");
}

static void
test_set_good(void **state)
{
	struct fixture	*f = *state;

	assert_int_equal(cmds_exec(&f->c, "set sync clock"), 0);
	assert_int_equal(f->c.sch.sync, SYNC_CLOCK);
	assert_int_equal(cmds_exec(&f->c, "set rla max"), 0);
	assert_int_equal(f->c.conf.console.rla, RLA_MAX);
	assert_int_equal(cmds_exec(&f->c, "set hysteresis 0.25"), 0);
	assert_true(f->c.conf.console.hysteresis == 0.25);
	assert_int_equal(cmds_exec(&f->c, "set timeout 2.5s"), 0);
	assert_int_equal(f->c.conf.console.timeout_ns, 2500000000LL);
	assert_int_equal(cmds_exec(&f->c, "set status_wait 50ms"), 0);
	assert_int_equal(cmds_exec(&f->c, "set weight node1 0.5"), 0);
	assert_string_equal(fixture_output(f), "sync clock\nrla max\n"
	    "hysteresis 0.25\ntimeout 2.5s\nstatus_wait 50ms\n"
	    "weight node1 0.5\n");
	assert_int_equal(cmds_exec(&f->c, "show"), 0);
	assert_contains(fixture_output(f), "weight       node1 0.5");
	assert_int_equal(cmds_exec(&f->c, "set weight node1 auto"), 0);
	assert_int_equal(f->c.weights.n, 0);
	/* to the nearest millionth; the smallest is one */
	assert_int_equal(cmds_exec(&f->c, "set weight node2 0.0000006"), 0);
	assert_true(f->c.weights.v[0].w == 0.000001);
	assert_int_equal(cmds_exec(&f->c, "set weight node2 2.0000004"), 0);
	assert_true(f->c.weights.v[0].w == 2.0);
}

/* A bad value, whatever is wrong with it, changes nothing at all. */
static void
test_set_bad_changes_nothing(void **state)
{
	struct fixture	*f = *state;
	static const char *const bad[] = { "set timeout 5ms",
	    "set console.timeout 2d", "set status_wait 0", "set sync ntp",
	    "set hysteresis 101", "set hysteresis 1e400", "set rla 1",
	    "set ls_policy", "set load.sample 1s", "set weight vm -1" };
	struct dts_conf	*conf = malloc(sizeof(*conf));
	struct sch	 sch;
	size_t		 i;

	assert_non_null(conf);
	memcpy(conf, &f->c.conf, sizeof(*conf));
	memcpy(&sch, &f->c.sch, sizeof(sch));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		f->c.out.err[0] = '\0';
		assert_int_equal(cmds_exec(&f->c, bad[i]), -1);
		assert_true(f->c.out.err[0] != '\0');
		assert_null(strchr(f->c.out.err, '\n'));	/* one line */
		assert_memory_equal(conf, &f->c.conf, sizeof(*conf));
		assert_memory_equal(&sch, &f->c.sch, sizeof(sch));
		assert_int_equal(f->c.weights.n, 0);
	}
	assert_string_equal(fixture_output(f), "");
	free(conf);
}

/* A good value changes its key, and nothing else of the configuration. */
static void
test_set_changes_one_key(void **state)
{
	struct fixture	*f = *state;
	struct dts_conf	*want = malloc(sizeof(*want));
	struct sch	 sch;

	assert_non_null(want);
	memcpy(want, &f->c.conf, sizeof(*want));
	memcpy(&sch, &f->c.sch, sizeof(sch));

	assert_int_equal(cmds_exec(&f->c, "set console.timeout 2.5s"), 0);
	want->console.timeout_ns = 2500000000LL;
	assert_memory_equal(want, &f->c.conf, sizeof(*want));

	assert_int_equal(cmds_exec(&f->c, "set hysteresis 2"), 0);
	want->console.hysteresis = 2;
	assert_memory_equal(want, &f->c.conf, sizeof(*want));
	assert_memory_equal(&sch, &f->c.sch, sizeof(sch));

	/* the schedule's keys reach the schedule, and only them */
	assert_int_equal(cmds_exec(&f->c, "set ls_policy idle"), 0);
	want->ls_policy = LS_IDLE;
	sch.ls_idle = 1;
	assert_memory_equal(want, &f->c.conf, sizeof(*want));
	assert_memory_equal(&sch, &f->c.sch, sizeof(sch));
	assert_string_equal(fixture_output(f), "timeout 2.5s\n"
	    "hysteresis 2\nls_policy idle\n");
	free(want);
}

static void
test_status_option(void **state)
{
	struct fixture	*f = *state;

	assert_int_equal(cmds_exec(&f->c, "status -x"), -1);
	assert_string_equal(f->c.out.err,
	    "status: unknown option \"-x\" (usage: status [-v] [--json])");
	assert_false(master_busy(&f->c.e));
	assert_int_equal(cmds_exec(&f->c, "status -v --json"), -1);
	assert_string_equal(f->c.out.err, "status: -v and --json: the JSON "
	    "document has every field already");
	assert_int_equal(cmds_exec(&f->c, "show -v"), -1);
	assert_string_equal(f->c.out.err,
	    "show: unknown option \"-v\" (usage: show [--json])");
	assert_int_equal(cmds_exec(&f->c, "load --jso"), -1);
	assert_false(master_busy(&f->c.e));
	assert_int_equal(cmds_exec(&f->c, "status -v"), 0);
	assert_true(master_busy(&f->c.e));
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, fixture_setup, \
    fixture_teardown)

/*
 * A console fed on its stdin (a master under a supervisor, bench-soak's)
 * runs every line once and keeps none of those it ran: 4000 commands
 * leave an empty queue, no larger than one read's worth of lines.
 */
static void
test_script_forgets(void **state)
{
	struct fixture	*f = *state;
	struct script	 s;
	const char	*out;
	int		 fds[2], i, k, sent = 0, ran = 0;
	size_t		 most = 0;

	script_init(&s, 0);
	assert_int_equal(pipe(fds), 0);
	s.reading = 1;
	for (k = 0; k < 40; k++) {
		for (i = 0; i < 100; i++, sent++)
			assert_int_equal(write(fds[1], "mode\n", 5), 5);
		while (s.reading) {
			struct pollfd p = { fds[0], POLLIN, 0 };

			if (poll(&p, 1, 0) != 1)
				break;
			script_read(&s, fds[0]);
			if (s.cap > most)
				most = s.cap;
			script_run(&s, &f->c);
		}
		for (out = fixture_output(f); (out = strstr(out,
		    "mode static")) != NULL; out++)
			ran++;
	}
	close(fds[1]);
	script_read(&s, fds[0]);	/* EOF */
	script_run(&s, &f->c);
	close(fds[0]);
	assert_int_equal(ran, sent);
	assert_true(script_done(&s));
	assert_int_equal(s.n, 0);
	assert_true(most <= 1024);	/* 4096 bytes a read: 820 lines */
	script_fini(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_table_sane),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_script_split),
		T(test_arg_counts),
		T(test_help),
		T(test_help_from_sources),
		T(test_complete),
		T(test_pvm_commands_dispatch),
		T(test_quit),
		T(test_set_errors),
		T(test_set_good),
		T(test_set_bad_changes_nothing),
		T(test_set_changes_one_key),
		T(test_status_option),
		T(test_script_forgets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
