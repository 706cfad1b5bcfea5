/*
 * test_master_ctl.c - dts-master's control socket (master/ctl.c) on a
 * real Unix socket in a private directory, driven by the console's
 * client (mctl_call) from a thread: who may change the schedule
 * (ctl_allowed), a bad request answered with its one-line reason and
 * nothing run, a read answered with the engine's output, a write by
 * root run, and a client that sends half a line dropped.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/socket.h>
#include <sys/un.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "console.h"
#include "ctl.h"
#include "mctl.h"
#include "timeutil.h"

static void
test_allowed(void **state)
{
	struct ctl	 t = { 0 };

	(void)state;
	assert_true(ctl_allowed(&t, 0, 0, MCTL_WRITE));
	assert_true(ctl_allowed(&t, 1000, 1000, MCTL_READ));
	assert_false(ctl_allowed(&t, 1000, 1000, MCTL_WRITE));
	t.have_op = 1;
	t.op_gid = 4242;
	assert_true(ctl_allowed(&t, 1000, 4242, MCTL_WRITE));
	assert_false(ctl_allowed(&t, 1000, 1000, MCTL_WRITE));
}

struct call {
	char		 path[CONF_STR_MAX];
	const char	*cmd;
	char		*out;
	size_t		 outlen;
	char		 err[256];
	int		 rc;
	volatile int	 done;
};

static void *
caller(void *arg)
{
	struct call	*k = arg;
	FILE		*f = open_memstream(&k->out, &k->outlen);

	k->rc = mctl_call(k->path, k->cmd, f, k->err, sizeof(k->err), 5000);
	fclose(f);
	k->done = 1;
	return NULL;
}

static int
run_line(void *arg, const char *line)
{
	return cmds_exec(arg, line);
}

/* Serve the socket until the call is answered (5 s at most). */
static void
serve(struct ctl *t, struct console *c, struct call *k)
{
	pthread_t	 th;
	struct pollfd	 p[CTL_CLIENTS + 1];
	int64_t		 until = now_mono_ns() + 5000000000LL;

	assert_int_equal(pthread_create(&th, NULL, caller, k), 0);
	while (!k->done && now_mono_ns() < until) {
		int	 n = ctl_pollfds(t, p);

		(void)poll(p, (nfds_t)n, 20);
		ctl_events(t, &c->e, p, n, now_mono_ns());
		ctl_run(t, &c->e, run_line, c, now_mono_ns());
	}
	pthread_join(th, NULL);
	assert_true(k->done);
}

static void
test_socket(void **state)
{
	static struct console	 c;
	struct dts_conf		 conf;
	struct ctl		 t;
	char			 dir[] = "/tmp/test_master_ctl.XXXXXX", err[256];
	struct call		 k;

	(void)state;
	assert_non_null(mkdtemp(dir));
	conf_defaults(&conf);
	snprintf(conf.console.master_socket, sizeof(conf.console.master_socket),
	    "%s/m.sock", dir);
	con_init(&c, &conf, stdout);
	master_init(&c.e);
	assert_int_equal(ctl_open(&t, &conf, err, sizeof(err)), 0);

	/* a command the master does not take: refused, nothing run */
	memset(&k, 0, sizeof(k));
	snprintf(k.path, sizeof(k.path), "%s", conf.console.master_socket);
	k.cmd = "spawn -n 2 x";
	serve(&t, &c, &k);
	assert_int_equal(k.rc, -1);
	assert_string_equal(k.err, "spawn: not a command of the master");
	assert_int_equal(k.outlen, 0);
	free(k.out);

	/* a read: the engine's output */
	memset(&k, 0, sizeof(k));
	snprintf(k.path, sizeof(k.path), "%s", conf.console.master_socket);
	k.cmd = "ip";
	serve(&t, &c, &k);
	assert_int_equal(k.rc, 0);
	assert_string_equal(k.out, "ip 100ms\n");
	free(k.out);

	/* a write, as root (the tests run as root or not: the check is
	 * ctl_allowed's, above); a bad value is the engine's one line */
	if (getuid() == 0) {
		memset(&k, 0, sizeof(k));
		snprintf(k.path, sizeof(k.path), "%s", conf.console.master_socket);
		k.cmd = "mode sometimes";
		serve(&t, &c, &k);
		assert_int_equal(k.rc, -1);
		assert_non_null(strstr(k.err, "sometimes"));
		assert_int_equal(c.sch.mode, conf.mode);
		free(k.out);
	}
	assert_true(t.refused >= 1);
	assert_true(t.served >= 2);
	ctl_close(&t);
	assert_int_equal(access(conf.console.master_socket, F_OK), -1);
	rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allowed),
		cmocka_unit_test(test_socket),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
