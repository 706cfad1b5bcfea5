/*
 * test_mctl.c - the control protocol of dts-master's socket (mctl.h):
 * requests the master takes, of which kind, and every bad input refused
 * with its one-line reason; reply heads; random bytes never accepted as
 * a request of another kind than the parser says.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mctl.h"

static int
parse(const char *req, char *cmd, int *kind, char *err)
{
	return mctl_parse(req, strlen(req), cmd, MCTL_REQ_MAX, kind, err, 256);
}

static void
test_kinds(void **state)
{
	static const struct { const char *req; int kind; } ok[] = {
		{ "DTSM1 mode\n", MCTL_READ },
		{ "DTSM1 mode balanced\n", MCTL_WRITE },
		{ "DTSM1 ps 80%\n", MCTL_WRITE },
		{ "DTSM1 si\n", MCTL_READ },
		{ "DTSM1 start\n", MCTL_WRITE },
		{ "DTSM1 stop\n", MCTL_WRITE },
		{ "DTSM1 takeover\n", MCTL_WRITE },
		{ "DTSM1 set weight alice:job 2\n", MCTL_WRITE },
		{ "DTSM1 status -v --json\n", MCTL_READ },
		{ "DTSM1 jobs --json\n", MCTL_READ },
		{ "DTSM1 load\n", MCTL_READ },
		{ "DTSM1 metrics\n", MCTL_READ },
		{ "DTSM1 hello\n", MCTL_READ },
	};
	char	 cmd[MCTL_REQ_MAX], err[256];
	int	 kind;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		err[0] = '\0';
		assert_int_equal(parse(ok[i].req, cmd, &kind, err), 0);
		assert_int_equal(kind, ok[i].kind);
		assert_int_equal(strlen(cmd) + 7, strlen(ok[i].req));
	}
	assert_int_equal(parse("DTSM1 mode static\n", cmd, &kind, err), 0);
	assert_string_equal(cmd, "mode static");
}

static void
test_bad(void **state)
{
	static const struct { const char *req, *why; } bad[] = {
		{ "", "empty request" },
		{ "DTSM1 mode", "not one line" },
		{ "DTSM1 mode\nstop\n", "not one line" },
		{ "XXXX1 mode\n", "not a request of dts-master's protocol" },
		{ "DTSM\n", "not a request of dts-master's protocol" },
		{ "DTSMx mode\n", "no protocol version" },
		{ "DTSM2 mode\n", "protocol version 2; this master speaks 1" },
		{ "DTSM1 mode\tstatic\n", "control character 0x09 in the request" },
		{ "DTSM1 mode static; start\n", "one command a request (no ';')" },
		{ "DTSM1 \n", "no command" },
		{ "DTSM1 quit\n", "quit: not a command of the master" },
		{ "DTSM1 spawn -n 3 x\n", "spawn: not a command of the master" },
		{ "DTSM1 status --xml\n", "status: not a command of the master" },
		{ "DTSM1 metrics /etc/passwd\n", "metrics FILE: the file would be "
		  "the master's; ask for metrics and redirect the output" },
		{ "DTSM1 set status_wait 1s\n", "set status_wait: the master's "
		  "tunables are its dts.conf's (only set weight goes to the "
		  "master)" },
	};
	char	 cmd[MCTL_REQ_MAX], err[256];
	int	 kind;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(parse(bad[i].req, cmd, &kind, err), -1);
		assert_string_equal(err, bad[i].why);
		assert_null(strchr(err, '\n'));
	}
}

static void
test_too_long(void **state)
{
	char	*req = malloc(MCTL_REQ_MAX + 2), cmd[MCTL_REQ_MAX], err[256];
	int	 kind;

	(void)state;
	memset(req, 'a', MCTL_REQ_MAX + 1);
	memcpy(req, "DTSM1 mode ", 11);
	req[MCTL_REQ_MAX] = '\n';
	req[MCTL_REQ_MAX + 1] = '\0';
	assert_int_equal(mctl_parse(req, MCTL_REQ_MAX + 1, cmd, sizeof(cmd),
	    &kind, err, sizeof(err)), -1);
	assert_string_equal(err, "request of 1025 bytes (at most 1024)");
	/* a command longer than the caller's room */
	assert_int_equal(mctl_parse("DTSM1 mode static\n", 18, cmd, 5, &kind,
	    err, sizeof(err)), -1);
	assert_string_equal(err, "command too long");
	free(req);
}

static void
test_reply_head(void **state)
{
	char	 b[MCTL_HEAD_MAX];
	size_t	 o, e;
	int	 rc, n;

	(void)state;
	n = mctl_reply_head(b, sizeof(b), 1, 12345, 40);
	assert_true(n > 0);
	assert_int_equal(mctl_reply_parse(b, (size_t)n, &rc, &o, &e), 0);
	assert_int_equal(rc, 1);
	assert_int_equal(o, 12345);
	assert_int_equal(e, 40);
	assert_int_equal(mctl_reply_parse("DTSM1 0 1 2", 11, &rc, &o, &e), -1);
	assert_int_equal(mctl_reply_parse("DTSM2 0 1 2\n", 12, &rc, &o, &e),
	    -1);
	assert_int_equal(mctl_reply_parse("DTSM1 2 1 2\n", 12, &rc, &o, &e),
	    -1);
	assert_int_equal(mctl_reply_parse("DTSM1 0 1 2 3\n", 14, &rc, &o, &e),
	    -1);
	assert_int_equal(mctl_reply_parse("DTSM1 0 99999999999 2\n", 22, &rc,
	    &o, &e), -1);
}

/* Random bytes: never a crash, and accepted only as the parser's kinds,
 * a one-line reason otherwise. */
static void
test_random(void **state)
{
	unsigned	 seed = (unsigned)time(NULL);
	char		 buf[64], cmd[MCTL_REQ_MAX], err[256];
	int		 kind;

	(void)state;
	printf("# seed %u\n", seed);
	srand(seed);
	for (int i = 0; i < 100000; i++) {
		size_t	 len = (size_t)(rand() % (int)sizeof(buf));

		for (size_t k = 0; k < len; k++)
			buf[k] = (char)(rand() % 4 == 0 ? " \nDTSM1mode"[rand() %
			    11] : rand());
		if (i % 2 == 0 && len > 6)
			memcpy(buf, "DTSM1 ", 6);
		err[0] = '\0';
		if (mctl_parse(buf, len, cmd, sizeof(cmd), &kind, err,
		    sizeof(err)) == 0)
			assert_true(kind == MCTL_READ || kind == MCTL_WRITE);
		else
			assert_true(err[0] != '\0' && strchr(err, '\n') == NULL);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_reply_head),
		cmocka_unit_test(test_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
