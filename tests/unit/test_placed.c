/*
 * test_placed.c - the console's reading of dts-place's placement record
 * (console/placed.c) for `tasks`: record lines with tids, of the earlier
 * form, garbage and a long one; the tid lookup (newest wins, a full
 * table keeps the newest); the bounded read of a file and its path.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "placed.h"

static struct placed_tab t;

static void
test_line_good(void **state)
{
	const struct placed_ent	*e;

	(void)state;
	t.n = t.next = 0;
	assert_int_equal(placed_line(&t, "1764380000 4242 slave1 h2 3 "
	    "good=2.000 class=candidate runnable=0.00 load=0.00 ncpu=2 "
	    "ram=20000 users=0 gangs=0 own=0 tids=80001,80002,8000a"), 3);
	assert_int_equal(t.n, 3);
	assert_non_null(e = placed_find(&t, 0x8000a));
	assert_true(e->good > 1.999 && e->good < 2.001);
	assert_string_equal(e->cls, "candidate");
	assert_non_null(placed_find(&t, 0x80001));
	assert_null(placed_find(&t, 0x80003));
	assert_null(placed_find(&t, 0));
	/* a later line naming a tid again wins */
	assert_int_equal(placed_line(&t, "1764380001 4243 slave1 h0 1 "
	    "good=0.500 class=owner-active tids=80002\n"), 1);
	assert_string_equal(placed_find(&t, 0x80002)->cls, "owner-active");
	assert_string_equal(placed_find(&t, 0x80001)->cls, "candidate");
}

static void
test_line_old_and_garbage(void **state)
{
	(void)state;
	t.n = t.next = 0;
	/* the earlier form: no tids, no task named, not an error */
	assert_int_equal(placed_line(&t, "1764380000 4242 slave1 h2 3 "
	    "good=2.000 class=candidate runnable=0.00 load=0.00 ncpu=2 "
	    "ram=20000 users=0 gangs=0 own=0"), 0);
	assert_int_equal(placed_line(&t, ""), -1);
	assert_int_equal(placed_line(&t, "garbage"), -1);
	assert_int_equal(placed_line(&t, "1 2 f h x good=1 class=c "
	    "tids=1"), -1);
	assert_int_equal(placed_line(&t, "1 2 f h 1 good=abc class=c "
	    "tids=1"), -1);
	assert_int_equal(placed_line(&t, "1 2 f h 1 class=c tids=1"), -1);
	assert_int_equal(placed_line(&t, "1 2 f h 1 good=1 tids=1"), -1);
	assert_int_equal(placed_line(&t, "1 2 f h 1 good=1 "
	    "class=averyveryverylongclassname tids=1"), -1);
	assert_int_equal(placed_line(&t, "1 2 f h 1 good=1 class=c "
	    "tids=zz"), -1);
	assert_int_equal(placed_line(&t, "1 2 f h 1 good=1 class=c "
	    "tids=,"), -1);
	assert_int_equal(placed_line(&t, "1 2 f h 1 good=1 class=c "
	    "tids=0"), -1);
	assert_int_equal(placed_line(&t, "1 2 f h 1 good=1 class=c "
	    "tids=fffffffff"), -1);
	assert_int_equal(t.n, 0);
	/* a bad tid after good ones: the good ones count */
	assert_int_equal(placed_line(&t, "1 2 f h 2 good=1 class=c "
	    "tids=5,x"), 1);
	assert_non_null(placed_find(&t, 5));
	/* "xgood=" is not good= */
	assert_int_equal(placed_line(&t, "1 2 f h 1 xgood=1 class=c "
	    "tids=6"), -1);
}

static void
test_line_long(void **state)
{
	char	*line;
	size_t	 len, cap = 20 * PLACED_MAX + 200;
	int	 i;

	(void)state;
	t.n = t.next = 0;
	assert_non_null(line = malloc(cap));
	len = (size_t)snprintf(line, cap, "1 2 slave1 h1 %d good=0.250 "
	    "class=candidate tids=", PLACED_MAX + 10);
	for (i = 1; i <= PLACED_MAX + 10; i++)
		len += (size_t)snprintf(line + len, cap - len, "%s%x",
		    i > 1 ? "," : "", 0x40000 + i);
	assert_int_equal(placed_line(&t, line), PLACED_MAX + 10);
	free(line);
	/* full: the newest PLACED_MAX are kept */
	assert_int_equal(t.n, PLACED_MAX);
	assert_null(placed_find(&t, 0x40001));
	assert_null(placed_find(&t, 0x4000a));
	assert_non_null(placed_find(&t, 0x4000b));
	assert_non_null(placed_find(&t, 0x40000 + PLACED_MAX + 10));
	assert_true(placed_find(&t, 0x40000 + PLACED_MAX)->good < 0.26);
}

static void
test_load(void **state)
{
	char	 path[] = "/tmp/test_placed.XXXXXX", buf[256];
	FILE	*f;
	int	 fd, i;

	(void)state;
	assert_true((fd = mkstemp(path)) != -1);
	assert_non_null(f = fdopen(fd, "w"));
	/* an old-form line, garbage, then lines with tids; many lines so
	 * that a small bound cuts the first ones */
	fprintf(f, "100 1 a h0 1 good=1.000 class=candidate runnable=0\n"
	    "not a record line\n");
	for (i = 1; i <= 100; i++)
		fprintf(f, "100 1 a h%d 1 good=%d.000 class=candidate "
		    "own=0 tids=%x\n", i % 3, i, 0x40000 + i);
	fprintf(f, "100 1 a h0 1 good=9.000 class=candidate tids=4ffff");
	fclose(f);
	assert_int_equal(placed_load(&t, path, PLACED_READ_MAX), 0);
	assert_int_equal(t.n, 100);
	assert_true(placed_find(&t, 0x40064)->good > 99.9);
	assert_null(placed_find(&t, 0x4ffff));	/* no newline yet */
	/* the last 200 bytes: only the last few whole lines */
	assert_int_equal(placed_load(&t, path, 200), 0);
	assert_true(t.n > 0 && t.n < 5);
	assert_non_null(placed_find(&t, 0x40064));
	assert_null(placed_find(&t, 0x40001));
	assert_int_equal(unlink(path), 0);
	/* missing: -1, ENOENT, empty */
	assert_int_equal(placed_load(&t, path, PLACED_READ_MAX), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(t.n, 0);
	/* a directory is not a record */
	assert_int_equal(placed_load(&t, "/tmp", PLACED_READ_MAX), -1);
	assert_int_equal(t.n, 0);
	placed_path(buf, sizeof(buf), "", "/var/pvm", 1000);
	assert_string_equal(buf, "/var/pvm/dts-place.1000");
	placed_path(buf, sizeof(buf), NULL, "rel", 7);
	assert_string_equal(buf, "/tmp/dts-place.7");
	placed_path(buf, sizeof(buf), "/srv/rec", "/var/pvm", 7);
	assert_string_equal(buf, "/srv/rec");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_good),
		cmocka_unit_test(test_line_old_and_garbage),
		cmocka_unit_test(test_line_long),
		cmocka_unit_test(test_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
