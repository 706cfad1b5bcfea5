/*
 * test_conf.c - dts.conf: defaults, every key, errors with their lines,
 * the checks across keys, conf_print() round trips and Table 2.1.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "conf_priv.h"
#include "log.h"
#include "names.h"
#include "proto.h"
#include "timeutil.h"

#define assert_contains(hay, needle) do {				\
	if (strstr((hay), (needle)) == NULL)				\
		fail_msg("\"%s\" does not contain \"%s\"", (hay), (needle)); \
} while (0)

static char tmp_path[64];

/* Write text to a fresh temporary file; its name is in tmp_path. */
static const char *
write_conf(const char *text)
{
	FILE	*fp = NULL;
	int	 fd;

	if (tmp_path[0] != '\0')
		unlink(tmp_path);
	snprintf(tmp_path, sizeof(tmp_path), "/tmp/dts-test-conf-XXXXXX");
	if ((fd = mkstemp(tmp_path)) == -1 || (fp = fdopen(fd, "w")) == NULL)
		fail_msg("mkstemp failed");
	fputs(text, fp);
	fclose(fp);
	return tmp_path;
}

static int
teardown(void **state)
{
	(void)state;
	if (tmp_path[0] != '\0')
		unlink(tmp_path);
	tmp_path[0] = '\0';
	return 0;
}

static void
load_ok(struct dts_conf *c, const char *text)
{
	char	 err[512] = "";

	conf_defaults(c);
	if (conf_load(c, write_conf(text), 0, err, sizeof(err)) != 0)
		fail_msg("rejected: %s\n--\n%s", err, text);
}

/* Loads text, expects failure, returns "LINE: rest" after the file name. */
static const char *
load_err(const char *text)
{
	static char	 err[512];
	struct dts_conf	 c, before;
	size_t		 n;

	conf_defaults(&c);
	before = c;
	err[0] = '\0';
	if (conf_load(&c, write_conf(text), 0, err, sizeof(err)) != -1)
		fail_msg("accepted:\n%s", text);
	assert_memory_equal(&c, &before, sizeof(c));	/* unchanged */
	assert_null(strchr(err, '\n'));
	n = strlen(tmp_path);
	if (strncmp(err, tmp_path, n) != 0 || err[n] != ':')
		fail_msg("\"%s\" does not start with the file name", err);
	return err + n + 1;
}

static void
assert_same_conf(const struct dts_conf *a, const struct dts_conf *b)
{
	int	 i;

	assert_int_equal(a->mode, b->mode);
	assert_int_equal(a->ip_ns, b->ip_ns);
	assert_int_equal(a->ps_ns, b->ps_ns);
	assert_int_equal(a->ps_pct_milli, b->ps_pct_milli);
	assert_int_equal(a->si_ns, b->si_ns);
	assert_int_equal(a->sync, b->sync);
	assert_int_equal(a->silence_ns, b->silence_ns);
	assert_int_equal(a->port, b->port);
	assert_string_equal(a->bind, b->bind);
	assert_string_equal(a->key_file, b->key_file);
	assert_int_equal(a->insecure, b->insecure);
	assert_int_equal(a->replay_window_ns, b->replay_window_ns);
	assert_string_equal(a->pvmd, b->pvmd);
	assert_string_equal(a->load_agent, b->load_agent);
	assert_int_equal(a->users.n, b->users.n);
	for (int u = 0; u < a->users.n; u++)
		assert_string_equal(a->users.s[u], b->users.s[u]);
	assert_string_equal(a->socket, b->socket);
	assert_string_equal(a->cgroup, b->cgroup);
	assert_int_equal(a->backend, b->backend);
	assert_int_equal(a->rt_priority, b->rt_priority);
	assert_string_equal(a->log_file, b->log_file);
	assert_int_equal(a->log_level, b->log_level);
	assert_int_equal(a->load.sample_ns, b->load.sample_ns);
	assert_int_equal(a->load.interval_ns, b->load.interval_ns);
	assert_int_equal(a->load.window_ns, b->load.window_ns);
	assert_true(a->load.threshold == b->load.threshold);
	assert_int_equal(a->load.per_cpu, b->load.per_cpu);
	assert_true(a->load.table.step == b->load.table.step);
	assert_int_equal(a->load.table.n, b->load.table.n);
	for (i = 0; i < a->load.table.n; i++)
		assert_int_equal(a->load.table.ls_pct[i],
		    b->load.table.ls_pct[i]);
}

static int
rt_limited(void)
{
	long	 rt, per;

	rt_budget_read(&rt, &per);
	return rt >= 0 && rt < per;
}

/* ---- defaults and good files ---------------------------------------- */

static void
test_defaults(void **state)
{
	struct dts_conf	 c;
	char		 err[256];
	int		 i;

	(void)state;
	conf_defaults(&c);
	assert_string_equal(c.file, "");
	assert_int_equal(c.mode, MODE_STATIC);
	assert_int_equal(c.ip_ns, 100 * NS_PER_MS);
	assert_int_equal(c.ps_pct_milli, 80000);
	assert_int_equal(c.ps_ns, 80 * NS_PER_MS);
	assert_int_equal(c.si_ns, 10 * NS_PER_SEC);
	assert_int_equal(c.sync, SYNC_ARRIVAL);
	assert_int_equal(c.silence_ns, 0);	/* 0: 3 SI, worked out by dts */
	assert_int_equal(c.port, 476);
	assert_string_equal(c.bind, "0.0.0.0");
	assert_contains(c.key_file, "/dts/dts.key");
	assert_true(c.key_file[0] == '/');
	assert_int_equal(c.insecure, 0);
	assert_int_equal(c.replay_window_ns, 30 * NS_PER_SEC);
	assert_string_equal(c.pvmd, "auto");
	assert_true(conf_pvmd(&c)[0] == '/');
	assert_non_null(strstr(conf_pvmd(&c), "pvmd"));
	assert_contains(c.load_agent, "/dts-load");
	assert_int_equal(c.users.n, 1);		/* the package's group */
	assert_string_equal(c.users.s[0], "@dts");
	assert_int_equal(c.no_service, NO_SERVICE_RUN);
	/* any local user can claim a weight in an adoption request: by
	 * default no claim above another user's job's is taken */
	assert_int_equal(c.max_job_weight, 1);
	assert_string_equal(c.socket, "/run/dts/dts.sock");
	assert_string_equal(c.cgroup, "auto");
	assert_int_equal(c.backend, BACKEND_FREEZER);
	assert_int_equal(c.rt_priority, 0);
	assert_string_equal(c.log_file, "");
	assert_int_equal(c.log_level, LOG_LVL_INFO);
	assert_int_equal(c.load.sample_ns, NS_PER_SEC);
	assert_int_equal(c.load.interval_ns, 10 * NS_PER_SEC);
	assert_int_equal(c.load.window_ns, 60 * NS_PER_SEC);
	assert_true(c.load.threshold == 1.0);
	assert_int_equal(c.load.per_cpu, 1);
	assert_true(c.load.table.step == 0.5);
	assert_int_equal(c.load.table.n, 9);
	for (i = 0; i < 9; i++)
		assert_int_equal(c.load.table.ls_pct[i], 10 * (i + 1));
	assert_int_equal(conf_check(&c, err, sizeof(err)), 0);
}

static const char full_conf[] =
    "# every key, none at its default\n"
    "mode = \"distributed\";\n"
    "ip = \"200ms\";\n"
    "ps = \"150ms\";\n"
    "si = \"2.5s\";\n"
    "sync = \"clock\";\n"
    "silence = 5;\n"
    "port = 17746;\n"
    "bind = \"127.0.0.1\";\n"
    "key_file = \"/tmp/k/dts.key\";\n"
    "insecure = true;\n"
    "replay_window = \"1m\";\n"
    "pvmd = \"/opt/pvm3/lib/LINUX64/pvmd3\";\n"
    "load_agent = \"/opt/dts/dts-load\";\n"
    "users = [\"pvm\", \"bob\"];\n"
    "socket = \"/run/dts-test/dts.sock\";\n"
    "cgroup = \"/dts-test\";\n"
    "backend = \"signal\";\n"
    "rt_priority = 50;\n"
    "log_file = \"/var/log/dts.log\";\n"
    "log_level = \"debug\";\n"
    "load = {\n"
    "  sample = \"250ms\";\n"
    "  interval = 2.0;\n"
    "  window = \"30s\";\n"
    "  threshold = 0.25;\n"
    "  per_cpu = false;\n"
    "  table_step = 1;\n"
    "  table = [5, 5, 25, 50, 75];\n"
    "};\n";

static void
test_full_conf(void **state)
{
	struct dts_conf	 c;

	(void)state;
	load_ok(&c, full_conf);
	assert_string_equal(c.file, tmp_path);
	assert_int_equal(c.mode, MODE_DISTRIBUTED);
	assert_int_equal(c.ip_ns, 200 * NS_PER_MS);
	assert_int_equal(c.ps_ns, 150 * NS_PER_MS);
	assert_int_equal(c.ps_pct_milli, -1);
	assert_int_equal(c.si_ns, 2500 * NS_PER_MS);
	assert_int_equal(c.sync, SYNC_CLOCK);
	assert_int_equal(c.silence_ns, 5 * NS_PER_SEC);
	assert_int_equal(c.port, 17746);
	assert_string_equal(c.bind, "127.0.0.1");
	assert_string_equal(c.key_file, "/tmp/k/dts.key");
	assert_int_equal(c.insecure, 1);
	assert_int_equal(c.replay_window_ns, 60 * NS_PER_SEC);
	assert_string_equal(c.pvmd, "/opt/pvm3/lib/LINUX64/pvmd3");
	assert_string_equal(c.load_agent, "/opt/dts/dts-load");
	assert_int_equal(c.users.n, 2);
	assert_string_equal(c.users.s[1], "bob");
	assert_string_equal(c.socket, "/run/dts-test/dts.sock");
	assert_string_equal(c.cgroup, "/dts-test");
	assert_int_equal(c.backend, BACKEND_SIGNAL);
	assert_int_equal(c.rt_priority, 50);
	assert_string_equal(c.log_file, "/var/log/dts.log");
	assert_int_equal(c.log_level, LOG_LVL_DEBUG);
	assert_int_equal(c.load.sample_ns, 250 * NS_PER_MS);
	assert_int_equal(c.load.interval_ns, 2 * NS_PER_SEC);
	assert_int_equal(c.load.window_ns, 30 * NS_PER_SEC);
	assert_true(c.load.threshold == 0.25);
	assert_int_equal(c.load.per_cpu, 0);
	assert_true(c.load.table.step == 1.0);
	assert_int_equal(c.load.table.n, 5);
	assert_int_equal(c.load.table.ls_pct[0], 5);
	assert_int_equal(c.load.table.ls_pct[4], 75);
}

static void
test_partial_keeps_defaults(void **state)
{
	struct dts_conf	 c;

	(void)state;
	load_ok(&c, "group = \"239.255.77.46\"; console = { group = "
	    "\"224.0.0.251\"; group_if = \"10.0.0.1\"; };\n");
	assert_string_equal(c.group, "239.255.77.46");
	assert_string_equal(c.console.group, "224.0.0.251");
	assert_string_equal(c.console.group_if, "10.0.0.1");
	load_ok(&c, "load = { window = \"2m\"; };\n");
	assert_int_equal(c.load.window_ns, 120 * NS_PER_SEC);
	assert_int_equal(c.load.interval_ns, 10 * NS_PER_SEC);
	assert_int_equal(c.ip_ns, 100 * NS_PER_MS);
	assert_int_equal(c.ps_ns, 80 * NS_PER_MS);
	load_ok(&c, "");
	assert_int_equal(c.port, 476);
}

static void
test_ps_percent_resolved(void **state)
{
	struct dts_conf	 c;

	(void)state;
	load_ok(&c, "ip = \"10ms\";\nps = \"62.5%\";\n");
	assert_int_equal(c.ps_pct_milli, 62500);
	assert_int_equal(c.ps_ns, 6250 * NS_PER_US);
	load_ok(&c, "ip = \"1s\";\n");		/* default 80% of the new IP */
	assert_int_equal(c.ps_ns, 800 * NS_PER_MS);
	load_ok(&c, "ps = 0.05;\n");		/* a number: seconds */
	assert_int_equal(c.ps_ns, 50 * NS_PER_MS);
	assert_int_equal(c.ps_pct_milli, -1);
}

static void
test_duration_forms(void **state)
{
	struct dts_conf	 c;

	(void)state;
	load_ok(&c, "si = 3;\n");
	assert_int_equal(c.si_ns, 3 * NS_PER_SEC);
	load_ok(&c, "si = 0.5;\n");
	assert_int_equal(c.si_ns, 500 * NS_PER_MS);
	load_ok(&c, "si = \"1500ms\";\n");
	assert_int_equal(c.si_ns, 1500 * NS_PER_MS);
	load_ok(&c, "si = \"2\";\n");
	assert_int_equal(c.si_ns, 2 * NS_PER_SEC);
	load_ok(&c, "si = 4L;\n");
	assert_int_equal(c.si_ns, 4 * NS_PER_SEC);
	load_ok(&c, "ip = \"1000us\";\nps = \"500us\";\n");
	assert_int_equal(c.ip_ns, NS_PER_MS);
	load_ok(&c, "load = { window = 86400; };\n");	/* 1 day */
	assert_int_equal(c.load.window_ns, 86400 * NS_PER_SEC);
}

static void
test_missing_file(void **state)
{
	struct dts_conf	 c;
	char		 err[256];

	(void)state;
	conf_defaults(&c);
	assert_int_equal(conf_load(&c, "/nonexistent/dts.conf", 1, err,
	    sizeof(err)), 0);
	assert_int_equal(c.port, 476);
	assert_int_equal(conf_load(&c, "/nonexistent/dts.conf", 0, err,
	    sizeof(err)), -1);
	assert_string_equal(err,
	    "/nonexistent/dts.conf: No such file or directory");
}

/* ---- errors with their lines ------------------------------------------ */

static void
test_unknown_key(void **state)
{
	(void)state;
	assert_string_equal(load_err("mode = \"static\";\n\nfoo = 1;\n"),
	    "3: unknown key \"foo\"");
	assert_string_equal(load_err("ip = \"1s\";\nload = {\n  sample = 1;\n"
	    "  smaple = 2;\n};\n"), "4: unknown key \"load.smaple\"");
	assert_string_equal(load_err("# x\nconsoles = { a = 1; };\n"),
	    "2: unknown key \"consoles\"");
	assert_string_equal(load_err("# x\nconsole = { a = 1; };\n"),
	    "2: unknown key \"console.a\"");
	assert_string_equal(load_err("load = {\n x = { y = 1; };\n};\n"),
	    "2: unknown key \"load.x\"");
	assert_string_equal(load_err("\n\nsample = \"1s\";\n"),
	    "3: unknown key \"sample\" (did you mean \"load.sample\"?)");
	assert_string_equal(load_err("load = { ip = 1; };\n"),
	    "1: unknown key \"load.ip\" (did you mean \"ip\"?)");
	assert_string_equal(load_err("\nload = 5;\n"),
	    "2: load: expected a group (load = { ... };), not an integer");
}

static void
test_out_of_range(void **state)
{
	(void)state;
	assert_string_equal(load_err("mode = \"static\";\n\nip = \"90s\";\n"),
	    "3: ip: 90s is out of range [1ms, 60s]");
	assert_string_equal(load_err("ip = 0;\n"),
	    "1: ip: 0s is out of range [1ms, 60s]");
	assert_string_equal(load_err("\n\nport = 70000;\n"),
	    "3: port: 70000 is out of range [1, 65535]");
	assert_string_equal(load_err("port = 0;\n"),
	    "1: port: 0 is out of range [1, 65535]");
	assert_string_equal(load_err("port = 9999999999L;\n"),
	    "1: port: 9999999999 is out of range [1, 65535]");
	assert_string_equal(load_err("load = {\n\n threshold = -0.5;\n};\n"),
	    "3: load.threshold: -0.5 is out of range [0, 1000]");
	assert_string_equal(load_err("load = { table_step = 0.0; };\n"),
	    "1: load.table_step: 0 is out of range (0, 100]");
	assert_string_equal(load_err("si = \"5ms\";\n"),
	    "1: si: 5ms is out of range [10ms, 3600s]");
}

static void
test_bad_enum(void **state)
{
	(void)state;
	assert_string_equal(load_err("\n\nmode = \"fast\";\n"),
	    "3: mode: \"fast\" is not one of off, static, balanced, "
	    "distributed or hpdt");
	assert_contains(load_err("sync = \"ntp\";\n"),
	    "sync: \"ntp\" is not one of arrival or clock");
	assert_contains(load_err("backend = \"cgroup\";\n"),
	    "\"cgroup\" is not one of signal or freezer");
	assert_contains(load_err("log_level = \"error\";\n"),
	    "\"error\" is not one of err, warn, info or debug");
	assert_contains(load_err("mode = 1;\n"),
	    "mode: expected a name in quotes, not an integer");
}

/* Every enum key takes its names from the enum's one table (names.h). */
static void
test_enum_tables(void **state)
{
	static const struct {
		const char		*path;
		const char *const	*names;
	} t[] = {
		{ "mode", proto_mode_names },
		{ "sync", proto_sync_names },
		{ "ls_policy", conf_ls_policy_names },
		{ "backend", conf_backend_names },
		{ "log_level", log_level_names },
		{ "console.rla", conf_rla_names },
		{ "no_service", conf_no_service_names },
		{ "share", conf_share_names },
	};
	const struct conf_key	*k;
	size_t			 i, n = 0;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_non_null(k = confkey_find(t[i].path));
		assert_int_equal(k->type, CT_ENUM);
		assert_ptr_equal(k->names, t[i].names);
	}
	for (i = 0; i < confkey_nkeys; i++)
		n += confkey_schema[i].type == CT_ENUM;
	assert_int_equal(n, sizeof(t) / sizeof(t[0]));	/* none left out */
	assert_int_equal(names_count(proto_mode_names), MODE_COUNT);
	assert_int_equal(names_count(conf_ls_policy_names), LS_IDLE + 1);
	assert_int_equal(names_count(conf_backend_names), BACKEND_FREEZER + 1);
	assert_int_equal(names_count(log_level_names), LOG_LVL_DEBUG + 1);
	assert_int_equal(names_count(conf_rla_names), RLA_MAX + 1);
	assert_int_equal(names_count(conf_no_service_names),
	    NO_SERVICE_REFUSE + 1);
}

/*
 * The users kept apart: share, user_weights ("USER:W", W 1..100, a user
 * once) and max_jobs_user (0: half of max_jobs, rounded up; at most
 * max_jobs).
 */
static void
test_user_keys(void **state)
{
	struct dts_conf	 c;

	(void)state;
	conf_defaults(&c);
	assert_int_equal(c.share, SHARE_USER);
	assert_int_equal(c.user_weights.n, 0);
	assert_int_equal(c.max_jobs_user, 0);
	assert_int_equal(conf_jobs_user(&c), 4);
	load_ok(&c, "max_jobs = 5;\nshare = \"job\";\n"
	    "user_weights = [\"alice:2\", \"bob.x:100\"];\n");
	assert_int_equal(c.share, SHARE_JOB);
	assert_int_equal(c.user_weights.n, 2);
	assert_int_equal(conf_jobs_user(&c), 3);
	load_ok(&c, "max_jobs = 2;\nmax_jobs_user = 8;\n");
	assert_int_equal(conf_jobs_user(&c), 2);
	load_ok(&c, "max_jobs = 1;\n");
	assert_int_equal(conf_jobs_user(&c), 1);
	assert_contains(load_err("share = \"host\";\n"), "share");
	assert_contains(load_err("max_jobs_user = 9;\n"),
	    "max_jobs_user: 9 is out of range");
	assert_contains(load_err("user_weights = [\"alice\"];\n"),
	    "user_weights: entry 1: \"alice\" is not USER:WEIGHT");
	assert_contains(load_err("user_weights = [\"alice:0\"];\n"),
	    "the weight \"0\" is not a whole number from 1 to 100");
	assert_contains(load_err("user_weights = [\"a:1\", \"alice:101\"];\n"),
	    "entry 2");
	assert_contains(load_err("user_weights = [\"a:b:1\"];\n"),
	    "is not a whole number");
	assert_contains(load_err("user_weights = [\":1\"];\n"),
	    "is not USER:WEIGHT");
	assert_contains(load_err("user_weights = [\"bob:2\", \"al:1\", "
	    "\"bob:3\"];\n"), "user_weights: user bob has two entries (1 "
	    "and 3)");
}

/* Names match whatever their case, as in the console (names.h). */
static void
test_names_any_case(void **state)
{
	struct dts_conf	 c;
	char		 why[256];

	(void)state;
	load_ok(&c, "mode = \"Balanced\";\nsync = \"CLOCK\";\n"
	    "ls_policy = \"Idle\";\nlog_level = \"DEBUG\";\n"
	    "console = { rla = \"Max\"; };\ninsecure = TRUE;\n");
	assert_int_equal(c.mode, MODE_BALANCED);
	assert_int_equal(c.sync, SYNC_CLOCK);
	assert_int_equal(c.ls_policy, LS_IDLE);
	assert_int_equal(c.log_level, LOG_LVL_DEBUG);
	assert_int_equal(c.console.rla, RLA_MAX);
	assert_int_equal(c.insecure, 1);
	assert_int_equal(confval_set_text(confkey_find("backend"), &c,
	    "Signal", why, sizeof(why)), 0);
	assert_int_equal(c.backend, BACKEND_SIGNAL);
	assert_int_equal(confval_set_text(confkey_find("insecure"), &c,
	    "False", why, sizeof(why)), 0);
	assert_int_equal(c.insecure, 0);
	assert_int_equal(confval_set_text(confkey_find("insecure"), &c,
	    "yes", why, sizeof(why)), -1);
	assert_string_equal(why, "\"yes\" is not true or false");
	assert_int_equal(confval_set_text(confkey_find("mode"), &c,
	    "stati", why, sizeof(why)), -1);
	assert_contains(why, "\"stati\" is not one of off, static");
}

static void
test_bad_type(void **state)
{
	(void)state;
	assert_string_equal(load_err("port = \"7746\";\n"),
	    "1: port: expected an integer, not a string");
	assert_string_equal(load_err("\nport = 7746.0;\n"),
	    "2: port: expected an integer, not a floating-point number");
	assert_contains(load_err("insecure = 1;\n"),
	    "insecure: expected true or false, not an integer");
	assert_contains(load_err("bind = 127;\n"),
	    "bind: expected a string in quotes, not an integer");
	assert_contains(load_err("ip = true;\n"), "ip: expected a duration");
	assert_contains(load_err("ip = { a = 1; };\n"), "not a group");
	assert_contains(load_err("load = { table = \"10,20\"; };\n"),
	    "load.table: expected a list of integers");
	assert_contains(load_err("load = { table = (10, 20.5); };\n"),
	    "load.table: entry 2 is a floating-point number, not an integer");
	assert_contains(load_err("load = { threshold = \"1\"; };\n"),
	    "load.threshold: expected a number, not a string");
}

static void
test_bad_values(void **state)
{
	(void)state;
	assert_string_equal(load_err("ip = \"10xs\";\n"),
	    "1: ip: \"10xs\": unknown unit \"xs\" (use ns, us, ms, s or m)");
	assert_contains(load_err("ip = -1;\n"), "ip: -1: a duration cannot "
	    "be negative");
	assert_contains(load_err("ip = \"-1s\";\n"), "negative");
	assert_contains(load_err("ip = 1e300;\n"), "ip: 1e+300 s is too large");
	assert_contains(load_err("ip = 3600;\n"),
	    "ip: 3600s is out of range [1ms, 60s]");
	assert_contains(load_err("ip = \"99999999999s\";\n"), "too large");
	assert_contains(load_err("ps = \"100%\";\n"), "less than 100%");
	assert_contains(load_err("ps = \"0%\";\n"), "more than 0%");
	assert_contains(load_err("ps = \"0\";\n"),
	    "ps: 0s is out of range [1us, 60s]");
	assert_contains(load_err("bind = \"localhost\";\n"),
	    "bind: \"localhost\" is not an IPv4 address");
	assert_contains(load_err("bind = \"::1\";\n"), "not an IPv4 address");
	assert_contains(load_err("group = \"10.0.0.1\";\n"),
	    "group: \"10.0.0.1\" is not an IPv4 multicast address");
	assert_contains(load_err("console = { group = \"240.0.0.1\"; };\n"),
	    "console.group: \"240.0.0.1\" is not an IPv4 multicast");
	assert_contains(load_err("console = { group_if = \"lo\"; };\n"),
	    "console.group_if: \"lo\" is not an IPv4 address");
	assert_contains(load_err("pvmd = \"pvmd\";\n"),
	    "pvmd: \"pvmd\" is not an absolute path");
	assert_contains(load_err("log_file = \"dts.log\";\n"),
	    "not an absolute path");
	assert_contains(load_err("\nrt_priority = 2;\n"),
	    "2: rt_priority: 2 is too low");
	assert_contains(load_err("rt_priority = 1;\n"), "5..99");
	/* P-4, a filling job's level, must stay below the tasks' P-3 */
	assert_contains(load_err("rt_priority = 4;\n"),
	    "rt_priority: 4 is too low");
	{
		struct dts_conf	 c5;

		load_ok(&c5, "rt_priority = 5;\n");
		assert_int_equal(c5.rt_priority, 5);
	}
	assert_contains(load_err("rt_priority = 3;\n"),
	    "rt_priority: 3 is too low");
	assert_contains(load_err("rt_priority = 100;\n"),
	    "rt_priority: 100 is out of range [0, 99]");
	assert_contains(load_err("load = { table = [10, 100]; };\n"),
	    "load.table: entry 2 is 100, out of range [1, 99]");
	assert_contains(load_err("load = { table = [0]; };\n"),
	    "entry 1 is 0, out of range [1, 99]");
	assert_contains(load_err("load = { table = []; };\n"),
	    "load.table: has 0 entries; it needs 1 to 32");
	/* console.resume_reserve: a size, never a share of a node's RAM */
	assert_contains(load_err("console = { resume_reserve = \"10%\"; };\n"),
	    "console.resume_reserve: \"10%\" is a share of RAM; give a size "
	    "(\"256M\")");
	assert_contains(load_err("console = { resume_reserve = \"1Q\"; };\n"),
	    "console.resume_reserve: \"1Q\": unknown unit");
	{
		struct dts_conf	 c6;

		load_ok(&c6, "console = { resume_reserve = \"1G\"; };\n");
		assert_string_equal(c6.console.resume_reserve, "1G");
	}
}

static void
test_syntax_error(void **state)
{
	const char	*e;

	(void)state;
	e = load_err("mode = \"static\";\nip = ;\n");
	assert_true(strncmp(e, "2: ", 3) == 0);
	assert_contains(e, "syntax error");
	e = load_err("a = 1;\n\n\nb = 1 2;\n");
	assert_true(strncmp(e, "4: ", 3) == 0);
	assert_contains(load_err("load = { table = [10, 20.5]; };\n"),
	    "1: mismatched element type in array");
	assert_contains(load_err("port = 1;\nport = 2;\n"), "2: ");
}

static void
test_ps_not_below_ip(void **state)
{
	const char	*e;

	(void)state;
	e = load_err("ip = \"100ms\";\nps = \"100ms\";\n");
	assert_string_equal(e, " ps 100ms is not shorter than ip 100ms "
	    "(IP = PS + LS, and LS cannot be empty)");
	assert_contains(load_err("ip = \"100ms\";\nps = \"2s\";\n"),
	    "ps 2s is not shorter than ip 100ms");
	/* the console's SI must be at least IP (common/rules.c) */
	assert_string_equal(load_err("ip = \"2s\";\nsi = \"1s\";\n"),
	    " si 1s is shorter than ip 2s (SI must be at least IP)");
}

static void
test_cross_checks(void **state)
{
	(void)state;
	assert_string_equal(load_err("load = { sample = 2; interval = 1; };\n"),
	    " load.interval 1s is shorter than load.sample 2s");
	assert_string_equal(load_err("load = { table = [10, 30, 20]; };\n"),
	    " load.table must not decrease: entry 3 (20) is less than "
	    "entry 2 (30)");
}

static void
test_rt_budget_in_conf(void **state)
{
	(void)state;
	if (!rt_limited())
		skip();
	/* 96% of IP: over the default 95% budget */
	assert_contains(load_err("ip = \"100ms\";\nps = \"96%\";\n"),
	    " PS 96ms of IP 100ms is 96% but the kernel allows");
	/* 80% of 2s is 1.6s: longer than the RT runtime */
	assert_contains(load_err("ip = \"2s\";\n"), " PS 1.6s is longer");
	/* PS fine, but the table's first entry (LS 10%) gives PS 1.8s */
	assert_contains(load_err("ip = \"2s\";\nps = \"400ms\";\n"),
	    "load.table entry 1 (LS 10%) fails: PS 1.8s is longer");
	/* LS 1% leaves a 99% PS */
	assert_contains(load_err("load = { table = [1, 50]; };\n"),
	    "load.table entry 1 (LS 1%) fails: PS 99ms of IP 100ms is 99%");
}

static void
test_check_direct(void **state)
{
	struct dts_conf	 c;
	char		 err[512];

	(void)state;
	conf_defaults(&c);
	c.rt_priority = 2;
	assert_int_equal(conf_check(&c, err, sizeof(err)), -1);
	assert_contains(err, "(defaults): rt_priority: 2 is too low");
	conf_defaults(&c);
	c.load.table.n = 0;
	assert_int_equal(conf_check(&c, err, sizeof(err)), -1);
	assert_contains(err, "load.table: has 0 entries");
	conf_defaults(&c);
	c.load.threshold = NAN;
	assert_int_equal(conf_check(&c, err, sizeof(err)), -1);
	assert_contains(err, "load.threshold: nan is out of range");
	conf_defaults(&c);
	c.mode = 9;
	assert_int_equal(conf_check(&c, err, sizeof(err)), -1);
	assert_contains(err, "mode: 9 is not a valid value");
	conf_defaults(&c);
	c.ps_ns = 0;
	c.ps_pct_milli = -1;
	assert_int_equal(conf_check(&c, err, sizeof(err)), -1);
	assert_contains(err, "ps: 0s is out of range");
}

/* ---- output ------------------------------------------------------------- */

static void
round_trip(const struct dts_conf *a)
{
	struct dts_conf	 b;
	char		 path[64], err[512];
	FILE		*fp = NULL;
	int		 fd;

	snprintf(path, sizeof(path), "/tmp/dts-test-print-XXXXXX");
	if ((fd = mkstemp(path)) == -1 || (fp = fdopen(fd, "w")) == NULL)
		fail_msg("mkstemp failed");
	conf_print(a, fp);
	fclose(fp);
	conf_defaults(&b);
	if (conf_load(&b, path, 0, err, sizeof(err)) != 0) {
		unlink(path);
		fail_msg("printed config rejected: %s", err);
	}
	unlink(path);
	assert_same_conf(a, &b);
}

static void
test_print_round_trip(void **state)
{
	struct dts_conf	 c;

	(void)state;
	conf_defaults(&c);
	round_trip(&c);
	load_ok(&c, full_conf);
	round_trip(&c);
	load_ok(&c, "ip = \"7.5ms\";\nps = \"33.333%\";\nlog_file = \"/a\\\"b\\\\c\";\n"
	    "load = { threshold = 0.1; table_step = 0.3; table = [42]; };\n");
	assert_string_equal(c.log_file, "/a\"b\\c");
	round_trip(&c);
	load_ok(&c, "ip = 0.0123456789;\nps = \"1234567ns\";\n");
	round_trip(&c);
}

static void
test_print_format(void **state)
{
	struct dts_conf	 c;
	char		 buf[4096];
	FILE		*fp = NULL;
	size_t		 n;

	(void)state;
	conf_defaults(&c);
	assert_non_null(fp = tmpfile());
	conf_print(&c, fp);
	rewind(fp);
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	assert_contains(buf, "\nip = \"100ms\";\n");
	assert_contains(buf, "\nps = \"80%\";\n");
	assert_contains(buf, "\nmode = \"static\";\n");
	assert_contains(buf, "\nport = 476;\n");
	assert_contains(buf, "\ninsecure = false;\n");
	assert_contains(buf, "\nload = {\n\tsample = \"1s\";\n");
	assert_contains(buf, "\ttable = [10, 20, 30, 40, 50, 60, 70, 80, 90];\n};\n");
	assert_contains(buf, "\tthreshold = 1;\n");
	assert_contains(buf, "\ttable_step = 0.5;\n");
}

static void
test_schema_print(void **state)
{
	static char	 buf[65536];
	FILE		*fp = NULL;
	size_t		 n;
	int		 lines = 0;
	char		*p;

	(void)state;
	assert_non_null(fp = tmpfile());
	conf_schema_print(fp);
	rewind(fp);
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	for (p = buf; *p != '\0'; p++)
		lines += *p == '\n';
	assert_int_equal(lines, (int)confkey_nkeys);	/* one line a key */
	assert_contains(buf, "console_keys");
	assert_contains(buf, "ls_policy");
	assert_contains(buf, "console.sign_key");
	assert_contains(buf, "[1ms, 60s]");
	assert_contains(buf, "off|static|balanced|distributed|hpdt");
	assert_contains(buf, "load.table_step");
	assert_contains(buf, "(0, 100]");
	assert_contains(buf, "iteration period IP = PS + LS");
}

/* ---- Table 2.1 ---------------------------------------------------------- */

static void
test_loadtab(void **state)
{
	struct dts_conf	 c;
	const struct load_table *t = &c.load.table;

	(void)state;
	conf_defaults(&c);
	assert_int_equal(loadtab_ls_pct(t, 0), 10);
	assert_int_equal(loadtab_ls_pct(t, 0.5), 10);
	assert_int_equal(loadtab_ls_pct(t, 0.5000001), 20);
	assert_int_equal(loadtab_ls_pct(t, 1), 20);
	assert_int_equal(loadtab_ls_pct(t, 1.2), 30);
	assert_int_equal(loadtab_ls_pct(t, 3.5), 70);
	assert_int_equal(loadtab_ls_pct(t, 4), 80);
	assert_int_equal(loadtab_ls_pct(t, 4.01), 90);
	assert_int_equal(loadtab_ls_pct(t, 100), 90);
	assert_int_equal(loadtab_ls_pct(t, INFINITY), 90);
	assert_int_equal(loadtab_ls_pct(t, -3), 10);
	assert_int_equal(loadtab_ls_pct(t, -INFINITY), 10);
	assert_int_equal(loadtab_ls_pct(t, NAN), 90);
}

static void
test_loadtab_custom(void **state)
{
	struct dts_conf	 c;
	const struct load_table *t = &c.load.table;

	(void)state;
	load_ok(&c, "load = { table_step = 0.1; table = [5, 15, 25, 35]; };\n");
	assert_int_equal(loadtab_ls_pct(t, 0.1), 5);
	assert_int_equal(loadtab_ls_pct(t, 0.3), 25);	/* 3 * 0.1 > 0.3 */
	assert_int_equal(loadtab_ls_pct(t, 0.30001), 35);
	load_ok(&c, "load = { table = [33]; };\n");
	assert_int_equal(loadtab_ls_pct(t, 0), 33);
	assert_int_equal(loadtab_ls_pct(t, 1000), 33);
}

/*
 * conf.h's one value formatter, and conf_value_set: every key's default
 * formats as a user types it and reads back to the same configuration;
 * a bad value changes nothing.
 */
static void
test_value_format_set(void **state)
{
	struct dts_conf	*c = calloc(1, sizeof(*c)), *d = calloc(1, sizeof(*d));
	char		 buf[CONF_LIST_MAX * CONF_ITEM_MAX], why[256];
	size_t		 i;

	(void)state;
	assert_non_null(c);
	assert_non_null(d);
	conf_defaults(c);
	assert_string_equal(conf_value_format(c, "ip", buf, sizeof(buf)),
	    "100ms");
	assert_string_equal(conf_value_format(c, "ps", buf, sizeof(buf)),
	    "80%");
	assert_string_equal(conf_value_format(c, "mode", buf, sizeof(buf)),
	    "static");
	assert_string_equal(conf_value_format(c, "port", buf, sizeof(buf)),
	    "476");
	assert_string_equal(conf_value_format(c, "console.hysteresis", buf,
	    sizeof(buf)), "0.5");
	assert_string_equal(conf_value_format(c, "insecure", buf,
	    sizeof(buf)), "false");
	assert_string_equal(conf_value_format(c, "load.table", buf,
	    sizeof(buf)), "10, 20, 30, 40, 50, 60, 70, 80, 90");
	assert_string_equal(conf_value_format(c, "users", buf, sizeof(buf)),
	    "@dts");
	assert_string_equal(conf_value_format(c, "nosuch", buf, sizeof(buf)),
	    "?");
	assert_string_equal(conf_key_type("console.timeout"), "duration");
	assert_string_equal(conf_key_type("console.rla"), "enum");
	assert_null(conf_key_type("nosuch"));
	assert_string_equal(conf_key_names("console.rla")[1], "max");
	assert_null(conf_key_names("console.rla")[2]);
	assert_null(conf_key_names("ip"));

	for (i = 0; i < confkey_nkeys; i++) {
		const char *path = confkey_schema[i].path;

		*d = *c;
		conf_value_format(c, path, buf, sizeof(buf));
		if (conf_value_set(d, path, buf, why, sizeof(why)) != 0)
			fail_msg("%s: \"%s\" does not read back: %s", path,
			    buf, why);
		/* a slice given as a share keeps the share; conf_load()
		 * works out its duration from IP */
		if (strcmp(conf_key_type(path), "slice") == 0)
			assert_string_equal(conf_value_format(d, path, why,
			    sizeof(why)), buf);
		else if (memcmp(c, d, sizeof(*c)) != 0)
			fail_msg("%s: \"%s\" reads back to another value",
			    path, buf);
	}

	*d = *c;
	assert_int_equal(conf_value_set(d, "console.timeout", "5ms", why,
	    sizeof(why)), -1);
	assert_string_equal(why, "5ms is out of range [10ms, 86400s]");
	assert_int_equal(conf_value_set(d, "console.rla", "median", why,
	    sizeof(why)), -1);
	assert_int_equal(conf_value_set(d, "nosuch", "1", why, sizeof(why)),
	    -1);
	assert_memory_equal(c, d, sizeof(*c));
	assert_int_equal(conf_value_set(d, "console.timeout", "2s", why,
	    sizeof(why)), 0);
	assert_string_equal(conf_value_format(d, "console.timeout", buf,
	    sizeof(buf)), "2s");
	free(c);
	free(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_defaults, teardown),
		cmocka_unit_test_teardown(test_user_keys, teardown),
		cmocka_unit_test_teardown(test_full_conf, teardown),
		cmocka_unit_test_teardown(test_partial_keeps_defaults, teardown),
		cmocka_unit_test_teardown(test_ps_percent_resolved, teardown),
		cmocka_unit_test_teardown(test_duration_forms, teardown),
		cmocka_unit_test_teardown(test_missing_file, teardown),
		cmocka_unit_test_teardown(test_unknown_key, teardown),
		cmocka_unit_test_teardown(test_out_of_range, teardown),
		cmocka_unit_test_teardown(test_bad_enum, teardown),
		cmocka_unit_test_teardown(test_enum_tables, teardown),
		cmocka_unit_test_teardown(test_names_any_case, teardown),
		cmocka_unit_test_teardown(test_bad_type, teardown),
		cmocka_unit_test_teardown(test_bad_values, teardown),
		cmocka_unit_test_teardown(test_syntax_error, teardown),
		cmocka_unit_test_teardown(test_ps_not_below_ip, teardown),
		cmocka_unit_test_teardown(test_cross_checks, teardown),
		cmocka_unit_test_teardown(test_rt_budget_in_conf, teardown),
		cmocka_unit_test_teardown(test_check_direct, teardown),
		cmocka_unit_test_teardown(test_print_round_trip, teardown),
		cmocka_unit_test_teardown(test_print_format, teardown),
		cmocka_unit_test_teardown(test_schema_print, teardown),
		cmocka_unit_test_teardown(test_loadtab, teardown),
		cmocka_unit_test_teardown(test_loadtab_custom, teardown),
		cmocka_unit_test(test_value_format_set),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
