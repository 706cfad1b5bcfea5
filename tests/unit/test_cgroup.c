/*
 * test_cgroup.c - cg_cpu_group on a fake cgroup tree: is the gang in a
 * CPU group of its own, which SCHED_IDLE ranks only inside (ls_policy
 * idle refused)?  Each cgroup's cgroup.controllers says whether its
 * parent enabled the cpu controller for it; the root's does not count.
 * And the job cgroups of a subtree (cg_foreach_job, cg_count_jobs,
 * cg_populated) on plain files: only job.* children count, not daemon.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"

static char	 top[64], mnt[CG_PATH_MAX], gang[CG_PATH_MAX],
		 v1[CG_PATH_MAX];

/* a/b into out (CG_PATH_MAX) */
static void
join(char *out, const char *a, const char *b)
{
	if ((size_t)snprintf(out, CG_PATH_MAX, "%s%s", a, b) >= CG_PATH_MAX)
		fail_msg("path too long: %s%s", a, b);
}

static void
put(const char *dir, const char *controllers)
{
	char	 path[CG_PATH_MAX];
	FILE	*f;

	join(path, dir, "/cgroup.controllers");
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "%s\n", controllers);
	fclose(f);
}

static void
dir(char *out, const char *parent, const char *name)
{
	char	 sub[64];

	snprintf(sub, sizeof(sub), "/%s", name);
	join(out, parent, sub);
	assert_int_equal(mkdir(out, 0755), 0);
}

/* mnt (root: every controller) / system.slice / dts.service / gang,
 * and an empty v1 hierarchy */
static int
setup(void **state)
{
	char	 slice[CG_PATH_MAX], svc[CG_PATH_MAX];

	(void)state;
	snprintf(top, sizeof(top), "/tmp/test_cgroup.XXXXXX");
	if (mkdtemp(top) == NULL)
		return -1;
	dir(mnt, top, "mnt");
	put(mnt, "cpuset cpu io memory pids");
	dir(slice, mnt, "system.slice");
	put(slice, "memory pids");
	dir(svc, slice, "dts.service");
	put(svc, "memory pids");
	dir(gang, svc, "gang");
	put(gang, "");
	dir(v1, top, "v1cpu");
	return 0;
}

static int
teardown(void **state)
{
	char	 cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	return system(cmd) == 0 ? 0 : -1;
}

static void
test_no_cpu_group(void **state)
{
	char	 where[CG_PATH_MAX] = "";

	(void)state;
	/* cpu on at the root only: the root's own file does not count */
	assert_int_equal(cg_cpu_group(mnt, gang, v1, where, sizeof(where)), 0);
	/* "cpuset" is not "cpu" */
	put(gang, "cpuset memory");
	assert_int_equal(cg_cpu_group(mnt, gang, v1, where, sizeof(where)), 0);
	put(gang, "");
}

static void
test_ancestor(void **state)
{
	char	 where[CG_PATH_MAX] = "", slice[CG_PATH_MAX];

	(void)state;
	/* the root enabled cpu for system.slice: the gang competes only
	 * inside it, whatever its own group */
	join(slice, mnt, "/system.slice");
	put(slice, "cpu memory pids");
	assert_int_equal(cg_cpu_group(mnt, gang, v1, where, sizeof(where)), 1);
	assert_string_equal(where, "/system.slice");
	put(slice, "memory pids");
	/* dts.service (Delegate=yes) */
	join(slice, mnt, "/system.slice/dts.service");
	put(slice, "memory cpu");
	assert_int_equal(cg_cpu_group(mnt, gang, v1, where, sizeof(where)), 1);
	assert_string_equal(where, "/system.slice/dts.service");
	put(slice, "memory pids");
}

static void
test_own(void **state)
{
	char	 where[CG_PATH_MAX] = "";

	(void)state;
	put(gang, "cpu");
	assert_int_equal(cg_cpu_group(mnt, gang, v1, where, sizeof(where)), 1);
	assert_string_equal(where, "/system.slice/dts.service/gang");
	put(gang, "");
}

static void
test_v1(void **state)
{
	char	 where[CG_PATH_MAX] = "", sub[CG_PATH_MAX];

	(void)state;
	/* a cgroup v1 cpu hierarchy with a group in it */
	dir(sub, v1, "user.slice");
	assert_int_equal(cg_cpu_group(mnt, gang, v1, where, sizeof(where)), 1);
	assert_string_equal(where, v1);
	assert_int_equal(rmdir(sub), 0);
	assert_int_equal(cg_cpu_group(mnt, gang, v1, where, sizeof(where)), 0);
}

static void
test_not_below(void **state)
{
	char	 where[CG_PATH_MAX] = "", other[CG_PATH_MAX];

	(void)state;
	/* a path beside the mount, not below it: nothing is read */
	join(other, mnt, "2/gang");
	assert_int_equal(cg_cpu_group(mnt, other, v1, where, sizeof(where)), 0);
}

/* dir/file with text */
static void
put_file(const char *d, const char *file, const char *text)
{
	char	 path[CG_PATH_MAX];
	FILE	*f;

	snprintf(path, sizeof(path), "%s/%s", d, file);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

static void
seen(const char *cg, const char *name, void *arg)
{
	char	*names = arg;

	assert_true(strncmp(cg, top, strlen(top)) == 0);
	strcat(names, name);
	strcat(names, ";");
}

static void
test_jobs(void **state)
{
	char	 base[CG_PATH_MAX], a[CG_PATH_MAX], b[CG_PATH_MAX],
		 d[CG_PATH_MAX], g[CG_PATH_MAX], names[256] = "";
	int	 runnable = -1;

	(void)state;
	dir(base, top, "base");
	dir(a, base, "job.alice@pvm");
	dir(b, base, "job.bob@x");
	dir(d, base, "daemon");
	dir(g, base, "gang");
	put_file(a, "cgroup.procs", "");
	put_file(a, "cgroup.events", "populated 0\nfrozen 0\n");
	put_file(b, "cgroup.procs", "1\n");	/* init: state S, not R */
	put_file(b, "cgroup.events", "populated 1\nfrozen 0\n");
	put_file(d, "cgroup.procs", "1\n");
	assert_int_equal(cg_foreach_job(base, seen, names), 2);
	assert_true(strcmp(names, "job.alice@pvm;job.bob@x;") == 0 ||
	    strcmp(names, "job.bob@x;job.alice@pvm;") == 0);
	assert_int_equal(cg_count_jobs(base, &runnable), 1);
	assert_int_equal(runnable, 0);
	assert_int_equal(cg_populated(a), 0);
	assert_int_equal(cg_populated(b), 1);
	assert_int_equal(cg_populated(g), -1);	/* no cgroup.events */
	assert_int_equal(cg_foreach_job("/nonexistent.dts", seen, names), -1);
	assert_int_equal(cg_count_jobs("/nonexistent.dts", NULL), 0);
	assert_int_equal(cg_remove(g), 0);
	assert_int_equal(cg_remove("relative"), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_cpu_group),
		cmocka_unit_test(test_ancestor),
		cmocka_unit_test(test_own),
		cmocka_unit_test(test_v1),
		cmocka_unit_test(test_not_below),
		cmocka_unit_test(test_jobs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
