/*
 * test_users.c - dts.conf's users (common/users.c): user names, "@group"
 * entries, "*", root, the empty list, and the one line a refused user
 * reads.  The name service is faked: getgrnam_r and getgrouplist are
 * wrapped (-Wl,--wrap) with a table of groups below.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "users.h"

/* The fake name service: groups, and each user's supplementary ones. */
static const struct {
	const char	*name;
	gid_t		 gid;
	const char	*members[4];
} groups[] = {
	{ "dts",   500, { "alice", "carol", NULL } },
	{ "hpc",   501, { "bob", NULL } },
	{ "staff", 502, { NULL } },		/* dave's primary group */
	{ "big",   503, { "erin", NULL } },	/* needs a large buffer */
};
#define NGROUPS ((int)(sizeof(groups) / sizeof(groups[0])))
static int grouplist_calls, erange_calls;

int __wrap_getgrnam_r(const char *, struct group *, char *, size_t,
    struct group **);
int __wrap_getgrouplist(const char *, gid_t, gid_t *, int *);

int
__wrap_getgrnam_r(const char *name, struct group *gr, char *buf,
    size_t len, struct group **res)
{
	*res = NULL;
	for (int i = 0; i < NGROUPS; i++) {
		if (strcmp(groups[i].name, name) != 0)
			continue;
		if (strcmp(name, "big") == 0 && len < 16384) {
			erange_calls++;
			return ERANGE;
		}
		memset(gr, 0, sizeof(*gr));
		snprintf(buf, len, "%s", name);
		gr->gr_name = buf;
		gr->gr_gid = groups[i].gid;
		*res = gr;
		return 0;
	}
	return 0;	/* not found */
}

int
__wrap_getgrouplist(const char *user, gid_t gid, gid_t *out, int *n)
{
	gid_t	 all[NGROUPS + 1];
	int	 k = 0;

	grouplist_calls++;
	all[k++] = gid;
	for (int i = 0; i < NGROUPS; i++)
		for (int j = 0; groups[i].members[j] != NULL; j++)
			if (strcmp(groups[i].members[j], user) == 0)
				all[k++] = groups[i].gid;
	if (k > *n) {
		*n = k;
		return -1;
	}
	memcpy(out, all, (size_t)k * sizeof(*all));
	*n = k;
	return k;
}

static struct conf_strlist
list(int n, ...)
{
	struct conf_strlist	 l = { .n = n };
	va_list			 ap;

	va_start(ap, n);
	for (int i = 0; i < n; i++)
		snprintf(l.s[i], sizeof(l.s[i]), "%s", va_arg(ap, const char *));
	va_end(ap);
	return l;
}

static int
allowed(const struct conf_strlist *l, uid_t uid, gid_t gid, const char *name,
    char *why)
{
	why[0] = '\0';
	return users_allowed(l, uid, gid, name, why, 256);
}

static void
test_default_group(void **state)
{
	struct conf_strlist	 l = list(1, USERS_DEFAULT);
	char			 why[256];

	(void)state;
	assert_int_equal(allowed(&l, 1001, 100, "alice", why), 1);
	assert_int_equal(allowed(&l, 1003, 100, "carol", why), 1);
	assert_int_equal(allowed(&l, 1002, 100, "bob", why), 0);
	assert_string_equal(why, "user bob (uid 1002) may not run a gang on "
	    "this node: not in group dts (an administrator adds you: "
	    "adduser bob dts; dts.conf: users)");
	/* the group as a user's primary group is enough */
	assert_int_equal(allowed(&l, 1004, 500, "frank", why), 1);
}

static void
test_root_always(void **state)
{
	struct conf_strlist	 none = list(0), other = list(1, "alice");
	char			 why[256];

	(void)state;
	assert_int_equal(allowed(&none, 0, 0, "root", why), 1);
	assert_int_equal(allowed(&other, 0, 0, "root", why), 1);
	assert_string_equal(why, "");
}

static void
test_empty_is_root_only(void **state)
{
	struct conf_strlist	 l = list(0);
	char			 why[256];

	(void)state;
	assert_int_equal(allowed(&l, 1001, 100, "alice", why), 0);
	assert_non_null(strstr(why, "only root may (dts.conf: users = [])"));
}

static void
test_names_and_star(void **state)
{
	struct conf_strlist	 names = list(2, "bob", "carol"),
				 star = list(2, "bob", "*");
	char			 why[256];

	(void)state;
	assert_int_equal(allowed(&names, 1002, 100, "bob", why), 1);
	assert_int_equal(allowed(&names, 1001, 100, "alice", why), 0);
	assert_non_null(strstr(why, "alice (uid 1001) may not run a gang on "
	    "this node: not listed (dts.conf: users)"));
	/* a name is not a group: "dts" names a user called dts */
	names = list(1, "dts");
	assert_int_equal(allowed(&names, 1001, 100, "alice", why), 0);
	assert_int_equal(allowed(&star, 1001, 100, "alice", why), 1);
	assert_int_equal(allowed(&star, 4242, 4242, "nobody", why), 1);
}

static void
test_several_groups(void **state)
{
	struct conf_strlist	 l = list(3, "@hpc", "@dts", "dave");
	char			 why[256];

	(void)state;
	assert_int_equal(allowed(&l, 1002, 100, "bob", why), 1);
	assert_int_equal(allowed(&l, 1001, 100, "alice", why), 1);
	assert_int_equal(allowed(&l, 1005, 502, "dave", why), 1);
	assert_int_equal(allowed(&l, 1006, 100, "gina", why), 0);
	assert_non_null(strstr(why, "not in group hpc nor the other groups "
	    "listed (an administrator adds you: adduser gina hpc"));
}

static void
test_missing_group(void **state)
{
	struct conf_strlist	 l = list(1, "@nosuch"), two;
	char			 why[256], buf[64];

	(void)state;
	assert_int_equal(allowed(&l, 1001, 100, "alice", why), 0);
	assert_string_equal(why, "user alice (uid 1001) may not run a gang "
	    "on this node: group nosuch does not exist here (an "
	    "administrator makes it: addgroup --system nosuch; dts.conf: "
	    "users)");
	two = list(4, "@nosuch", "@dts", "@gone", "bob");
	assert_int_equal(users_missing_groups(&two, buf, sizeof(buf)), 2);
	assert_string_equal(buf, "nosuch, gone");
	/* a missing group does not hide an existing one */
	assert_int_equal(allowed(&two, 1003, 100, "carol", why), 1);
	assert_int_equal(allowed(&two, 1006, 100, "gina", why), 0);
	assert_non_null(strstr(why, "not in group dts"));
	l = list(1, USERS_DEFAULT);
	assert_int_equal(users_missing_groups(&l, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
}

static void
test_large_group(void **state)
{
	struct conf_strlist	 l = list(1, "@big");
	char			 why[256];

	(void)state;
	erange_calls = 0;
	assert_int_equal(allowed(&l, 1007, 100, "erin", why), 1);
	assert_true(erange_calls >= 1);
	assert_int_equal(allowed(&l, 1001, 100, "alice", why), 0);
}

static void
test_entries(void **state)
{
	static const char *const good[] = {
		"alice", "@dts", "*", "a.b_c-d", "@hpc-users", "Bob9",
	};
	static const char *const bad[] = {
		"", "@", "**", "@*", "bad name", "a:b", "-x", "@-x", "a/b",
		"@@dts", "al*ce",
	};
	char	 why[128];

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (users_entry_valid(good[i], why, sizeof(why)) != 0)
			fail_msg("\"%s\" rejected: %s", good[i], why);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (users_entry_valid(bad[i], why, sizeof(why)) != -1)
			fail_msg("\"%s\" accepted", bad[i]);
		assert_non_null(strstr(why, "is not a user name, \"@group\" "
		    "or \"*\""));
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_group),
		cmocka_unit_test(test_root_always),
		cmocka_unit_test(test_empty_is_root_only),
		cmocka_unit_test(test_names_and_star),
		cmocka_unit_test(test_several_groups),
		cmocka_unit_test(test_missing_group),
		cmocka_unit_test(test_large_group),
		cmocka_unit_test(test_entries),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
