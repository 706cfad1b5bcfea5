/*
 * test_job.c - job names "USER:LABEL" (common/job.c): the label's bytes
 * and length, the name's, and where a program's label comes from.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "job.h"

static void
test_label_good(void **state)
{
	char err[256] = "";

	(void)state;
	assert_int_equal(job_label_check("pvm", err, sizeof(err)), 0);
	assert_int_equal(job_label_check("a", err, sizeof(err)), 0);
	assert_int_equal(job_label_check("Run-2.b_C", err, sizeof(err)), 0);
	/* 15 bytes, the most */
	assert_int_equal(job_label_check("abcdefghij12345", err, sizeof(err)),
	    0);
	assert_string_equal(err, "");
}

static void
test_label_bad(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(job_label_check("", err, sizeof(err)), -1);
	assert_string_equal(err, "job label is empty");
	/* 16 bytes */
	assert_int_equal(job_label_check("abcdefghij123456", err,
	    sizeof(err)), -1);
	assert_string_equal(err, "job label \"abcdefghij12345...\" is too long "
	    "(at most 15 bytes)");
	assert_int_equal(job_label_check("a b", err, sizeof(err)), -1);
	assert_string_equal(err, "job label \"a b\" has a byte that is not a "
	    "letter, digit, '.', '_' or '-'");
	assert_int_equal(job_label_check("a:b", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a letter"));
	assert_int_equal(job_label_check("a/b", err, sizeof(err)), -1);
	assert_int_equal(job_label_check("vm\xc3\xa9", err, sizeof(err)), -1);
	/* a control byte is shown escaped: the message stays one line */
	assert_int_equal(job_label_check("x\ny\"", err, sizeof(err)), -1);
	assert_string_equal(err, "job label \"x\\x0ay\\x22\" has a byte that "
	    "is not a letter, digit, '.', '_' or '-'");
	assert_null(strchr(err, '\n'));
	/* a long message is cut to the buffer, still terminated */
	assert_int_equal(job_label_check("a b", err, 8), -1);
	assert_int_equal(strlen(err), 7);
}

static void
test_name_make(void **state)
{
	char out[PROTO_JOB_LEN], err[256];
	char user[32];

	(void)state;
	memset(out, 0x5a, sizeof(out));
	assert_int_equal(job_name_make(out, "alice", "vm1", err, sizeof(err)),
	    0);
	assert_string_equal(out, "alice:vm1");
	for (size_t i = strlen(out); i < PROTO_JOB_LEN; i++)
		assert_int_equal(out[i], 0);		/* NUL padded */
	assert_int_equal(job_name_check(out, err, sizeof(err)), 0);
	/* 31 bytes, the most: 15-byte user, 15-byte label */
	assert_int_equal(job_name_make(out, "abcdefghijklmno",
	    "ABCDEFGHIJKLMNO", err, sizeof(err)), 0);
	assert_int_equal(strlen(out), PROTO_JOB_LEN - 1);
	assert_int_equal(job_name_check(out, err, sizeof(err)), 0);
	/* 32: too long */
	assert_int_equal(job_name_make(out, "abcdefghijklmnop",
	    "ABCDEFGHIJKLMNO", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "too long (at most 31 bytes)"));
	memset(user, 'u', sizeof(user) - 1);
	user[sizeof(user) - 1] = '\0';
	assert_int_equal(job_name_make(out, user, "l", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "too long"));
	/* the user: not empty, printable, no ':', '/' nor space */
	assert_int_equal(job_name_make(out, "", "l", err, sizeof(err)), -1);
	assert_string_equal(err, "job name has no user");
	assert_int_equal(job_name_make(out, "a:b", "l", err, sizeof(err)), -1);
	assert_string_equal(err, "job user name has a ':', '/' or a space");
	assert_int_equal(job_name_make(out, "a b", "l", err, sizeof(err)), -1);
	assert_string_equal(err, "job user name has a ':', '/' or a space");
	assert_int_equal(job_name_make(out, "a/b", "l", err, sizeof(err)), -1);
	assert_string_equal(err, "job user name has a ':', '/' or a space");
	assert_int_equal(job_name_make(out, "a\tb", "l", err, sizeof(err)),
	    -1);
	assert_string_equal(err, "job name is not printable");
	assert_int_equal(job_name_make(out, "\xc3\xa9", "l", err, sizeof(err)),
	    -1);
	assert_string_equal(err, "job name is not printable");
	/* user names may hold what POSIX allows and more: '.', '-', '$' */
	assert_int_equal(job_name_make(out, "a.b-c$", "l", err, sizeof(err)),
	    0);
	/* the label is checked as job_label_check does */
	assert_int_equal(job_name_make(out, "a", "x y", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "job label \"x y\""));
	assert_int_equal(job_name_make(out, "a", "", err, sizeof(err)), -1);
	assert_string_equal(err, "job label is empty");
}

/* A name from the wire: 32 bytes, anything in them. */
static void
bad_name(const char *bytes, size_t n, const char *want)
{
	char name[PROTO_JOB_LEN] = { 0 }, err[256];

	memcpy(name, bytes, n);
	assert_int_equal(job_name_check(name, err, sizeof(err)), -1);
	assert_string_equal(err, want);
}

static void
test_name_check(void **state)
{
	char name[PROTO_JOB_LEN] = "bob:pvm", err[256];

	(void)state;
	assert_int_equal(job_name_check(name, err, sizeof(err)), 0);
	bad_name("", 0, "job name is empty");
	bad_name("bob:pvm\0x", 9, "job name is not NUL padded");
	bad_name("bob\x01:pvm", 8, "job name is not printable");
	bad_name("bob:p\x7fm", 7, "job name is not printable");
	bad_name("bobpvm", 6, "job name has no ':' (USER:LABEL)");
	bad_name(":pvm", 4, "job name has no user");
	bad_name("b b:pvm", 7, "job user name has a ':', '/' or a space");
	bad_name("../x:pvm", 8, "job user name has a ':', '/' or a space");
	bad_name("bob:", 4, "job label is empty");
	bad_name("bob:a:b", 7, "job label \"a:b\" has a byte that is not a "
	    "letter, digit, '.', '_' or '-'");
	bad_name("b:abcdefghij123456", 18, "job label \"abcdefghij12345...\" "
	    "is too long (at most 15 bytes)");
	/* 32 bytes, no NUL within the field */
	memset(name, 'a', sizeof(name));
	name[1] = ':';
	assert_int_equal(job_name_check(name, err, sizeof(err)), -1);
	assert_string_equal(err, "job name is not NUL terminated (at most 31 "
	    "bytes)");
}

/* opt > DTS_JOB > "pvm" (never PVM_VMID); an empty one counts as unset. */
static void
test_label_pick(void **state)
{
	(void)state;
	unsetenv(JOB_ENV);
	assert_string_equal(job_label_pick(NULL), JOB_LABEL_DEFAULT);
	assert_string_equal(job_label_pick(""), "pvm");
	setenv("PVM_VMID", "vmid7", 1);
	assert_string_equal(job_label_pick(NULL), "pvm");
	setenv(JOB_ENV, "mine", 1);
	assert_string_equal(job_label_pick(NULL), "mine");
	assert_string_equal(job_label_pick("opt"), "opt");
	assert_string_equal(job_label_pick(""), "mine");
	setenv(JOB_ENV, "", 1);
	assert_string_equal(job_label_pick(NULL), "pvm");
	/* not checked: a bad one is the caller's to refuse */
	setenv(JOB_ENV, "a b", 1);
	assert_string_equal(job_label_pick(NULL), "a b");
	unsetenv(JOB_ENV);
	unsetenv("PVM_VMID");
}

/* job_same_user: the user is the name up to the ':', whole */
static void
test_same_user(void **state)
{
	(void)state;
	assert_int_equal(job_same_user("alice:a1", "alice:b2"), 1);
	assert_int_equal(job_same_user("alice:a1", "alice:a1"), 1);
	assert_int_equal(job_same_user("alice:a1", "bob:a1"), 0);
	/* a user whose name begins another's is not that user */
	assert_int_equal(job_same_user("al:x", "alice:x"), 0);
	assert_int_equal(job_same_user("alice:x", "al:x"), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_label_good),
		cmocka_unit_test(test_label_bad),
		cmocka_unit_test(test_name_make),
		cmocka_unit_test(test_name_check),
		cmocka_unit_test(test_label_pick),
		cmocka_unit_test(test_same_user),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
