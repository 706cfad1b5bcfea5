/*
 * test_limits.c - the memory contract's sizes (memsize_parse) and where
 * a job's memory and pids cgroups go (dts/job_limits.c), on a tree of
 * plain files: cgroup v2 where dts's subtree is offered the controllers,
 * else the v1 hierarchies of a mounts file, mirroring the subtree; and
 * neither when no controller is found.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"
#include "job_limits.h"
#include "memsize.h"

#define GIB	(1024ULL * 1024 * 1024)

static void
test_sizes(void **state)
{
	uint64_t	 v;
	char		 why[160];

	(void)state;
	assert_int_equal(memsize_parse("50%", 24 * GIB, &v, why, sizeof(why)),
	    0);
	assert_int_equal(v, 12 * GIB);
	assert_int_equal(memsize_parse("12G", 0, &v, why, sizeof(why)), 0);
	assert_int_equal(v, 12 * GIB);
	assert_int_equal(memsize_parse("1.5GiB", 0, &v, why, sizeof(why)), 0);
	assert_int_equal(v, 3 * GIB / 2);
	assert_int_equal(memsize_parse("512m", 0, &v, why, sizeof(why)), 0);
	assert_int_equal(v, 512ULL << 20);
	assert_int_equal(memsize_parse("4096", 0, &v, why, sizeof(why)), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(memsize_parse("2KB", 0, &v, why, sizeof(why)), 0);
	assert_int_equal(v, 2048);
	assert_int_equal(memsize_parse("", 0, &v, why, sizeof(why)), 0);
	assert_int_equal(v, 0);
	assert_int_equal(memsize_parse("12.5%", 8 * GIB, &v, why,
	    sizeof(why)), 0);
	assert_int_equal(v, GIB);
}

static void
test_bad_sizes(void **state)
{
	static const char *const bad[] = { "x", "-1G", "0", "0%", "101%",
		"12Q", "12GG", "G", "%", "1e30T", " 5G", "nan", "inf" };
	uint64_t	 v;
	char		 why[160];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		if (memsize_parse(bad[i], GIB, &v, why, sizeof(why)) != -1)
			fail_msg("\"%s\" accepted", bad[i]);
		assert_non_null(strchr(why, '"'));	/* names the value */
		assert_null(strchr(why, '\n'));
	}
}

static void
test_fmt(void **state)
{
	char	 buf[32];

	(void)state;
	assert_string_equal(memsize_fmt(12 * GIB, buf, sizeof(buf)),
	    "12.0 GiB");
	assert_string_equal(memsize_fmt(600ULL << 20, buf, sizeof(buf)),
	    "600.0 MiB");
	assert_string_equal(memsize_fmt(100, buf, sizeof(buf)), "100 B");
}

/* ---- where the cgroups go -------------------------------------------- */

static char	 top[64], mnt[CG_PATH_MAX], base[CG_PATH_MAX],
		 v1mem[CG_PATH_MAX], v1pids[CG_PATH_MAX], mounts[CG_PATH_MAX];

/* the directory a followed by b, made */
static void
mk(const char *a, const char *b)
{
	char	 path[2 * CG_PATH_MAX];

	snprintf(path, sizeof(path), "%s%s", a, b);
	assert_int_equal(mkdir(path, 0755), 0);
}

/* dir/file holding text (made) */
static void
put(const char *dir, const char *file, const char *text)
{
	char	 path[2 * CG_PATH_MAX];
	FILE	*f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

static void
get(const char *dir, const char *file, char *buf, size_t len)
{
	char	 path[2 * CG_PATH_MAX];
	FILE	*f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	assert_non_null(f = fopen(path, "r"));
	assert_non_null(fgets(buf, (int)len, f));
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

static int
setup(void **state)
{
	(void)state;
	snprintf(top, sizeof(top), "/tmp/test_limits.XXXXXX");
	if (mkdtemp(top) == NULL)
		return -1;
	snprintf(mnt, sizeof(mnt), "%s/unified", top);
	snprintf(base, sizeof(base), "%s/unified/dts", top);
	snprintf(v1mem, sizeof(v1mem), "%s/memory", top);
	snprintf(v1pids, sizeof(v1pids), "%s/pids", top);
	snprintf(mounts, sizeof(mounts), "%s/mounts", top);
	mk(mnt, "");
	mk(base, "");
	mk(base, "/jobs");
	return 0;
}

static int
teardown(void **state)
{
	char	 cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
	return system(cmd) == 0 ? 0 : -1;
}

static void
conf_of(struct dts_conf *c, const char *memory, const char *job)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->memory, sizeof(c->memory), "%s", memory);
	snprintf(c->job_memory, sizeof(c->job_memory), "%s", job);
	c->max_tasks = 100;
}

/* v1 hierarchies of memory and pids in the mounts file, the subtree's
 * mirror made with the files a kernel would give it */
static void
v1_tree(void)
{
	char	 d[CG_PATH_MAX + 16];

	put(top, "mounts", "tmpfs /sys/fs/cgroup tmpfs rw 0 0\n");
	{
		FILE *f = fopen(mounts, "a");
		assert_non_null(f);
		fprintf(f, "cgroup %s cgroup rw,relatime,cpu 0 0\n"
		    "cgroup %s cgroup rw,relatime,memory 0 0\n"
		    "cgroup %s cgroup rw,relatime,pids 0 0\n"
		    "cgroup2 %s cgroup2 rw,relatime 0 0\n", top, v1mem, v1pids,
		    mnt);
		fclose(f);
	}
	mk(v1mem, "");
	mk(v1mem, "/dts");
	mk(v1mem, "/dts/jobs");
	mk(v1pids, "");
	mk(v1pids, "/dts");
	mk(v1pids, "/dts/jobs");
	snprintf(d, sizeof(d), "%s/dts/jobs", v1mem);
	put(d, "memory.limit_in_bytes", "");
	put(d, "memory.soft_limit_in_bytes", "");
	put(d, "memory.use_hierarchy", "");
	put(base, "cgroup.controllers", "cpu io\n");
}

static void
test_v1(void **state)
{
	struct dts_conf		 c;
	struct limits		 L;
	struct limits_job	 lj;
	char			 err[256], want[CG_PATH_MAX + 64], buf[64];

	(void)state;
	v1_tree();
	conf_of(&c, "8G", "2G");
	assert_int_equal(limits_setup(&L, &c, mnt, base, mounts, err,
	    sizeof(err)), 0);
	snprintf(want, sizeof(want), "%s/dts/jobs", v1mem);
	assert_string_equal(L.mem, want);
	assert_int_equal(L.mem_v2, 0);
	snprintf(want, sizeof(want), "%s/dts/jobs", v1pids);
	assert_string_equal(L.pids, want);
	assert_int_equal(L.contract, 8 * GIB);
	assert_int_equal(L.job_max, 2 * GIB);
	get(L.mem, "memory.limit_in_bytes", buf, sizeof(buf));
	assert_string_equal(buf, "8589934592");
	get(L.mem, "memory.soft_limit_in_bytes", buf, sizeof(buf));
	assert_string_equal(buf, "7730941050");	/* 90 % */
	/* a job: its own v1 cgroups beside the gang (plain files: made
	 * by the kernel in a real hierarchy) */
	mk(v1mem, "/dts/jobs/job.alice@pvm");
	mk(v1pids, "/dts/jobs/job.alice@pvm");
	snprintf(want, sizeof(want), "%s/dts/jobs/job.alice@pvm", v1mem);
	put(want, "memory.limit_in_bytes", "");
	put(want, "memory.soft_limit_in_bytes", "");
	snprintf(want, sizeof(want), "%s/dts/jobs/job.alice@pvm", v1pids);
	put(want, "pids.max", "");
	assert_int_equal(limits_open(&L, &lj, "job.alice@pvm",
	    "/nowhere/job.alice@pvm", err, sizeof(err)), 0);
	assert_string_equal(lj.pids, want);
	get(lj.pids, "pids.max", buf, sizeof(buf));
	assert_string_equal(buf, "100");
	get(lj.mem, "memory.limit_in_bytes", buf, sizeof(buf));
	assert_string_equal(buf, "2147483648");
	/* a second limits_open of the same job (a takeover) finds them */
	assert_int_equal(limits_open(&L, &lj, "job.alice@pvm",
	    "/nowhere/job.alice@pvm", err, sizeof(err)), 0);
	/* a reclaim: the pulse leaves the limit as it was (a plain file
	 * does not fall: nothing counted) */
	put(lj.mem, "memory.usage_in_bytes", "1073741824\n");
	assert_true(limits_reclaim(&L, &lj) == 0);
	get(lj.mem, "memory.limit_in_bytes", buf, sizeof(buf));
	assert_string_equal(buf, "2147483648");
}

static void
test_v2(void **state)
{
	struct dts_conf		 c;
	struct limits		 L;
	struct limits_job	 lj;
	char			 err[256], jobs[CG_PATH_MAX + 8], gang[2 *
				 CG_PATH_MAX], buf[64];

	(void)state;
	put(top, "mounts", "cgroup2 /x cgroup2 rw 0 0\n");
	put(base, "cgroup.controllers", "cpu memory pids\n");
	put(base, "cgroup.subtree_control", "");
	snprintf(jobs, sizeof(jobs), "%s/jobs", base);
	put(jobs, "cgroup.subtree_control", "");
	put(jobs, "memory.max", "");
	put(jobs, "memory.high", "");
	conf_of(&c, "", "");		/* the default: 50 % */
	assert_int_equal(limits_setup(&L, &c, mnt, base, mounts, err,
	    sizeof(err)), 0);
	assert_string_equal(L.mem, jobs);
	assert_int_equal(L.mem_v2, 1);
	assert_int_equal(L.pids_v2, 1);
	assert_int_equal(L.job_max, L.contract);	/* "" = all of it */
	assert_true(L.contract > 0 && L.contract == L.ram / 2);
	get(jobs, "cgroup.subtree_control", buf, sizeof(buf));
	assert_int_equal(strncmp(buf, "+pids", 5), 0); /* the last write */
	snprintf(gang, sizeof(gang), "%s/job.bob@x", jobs);
	mk(gang, "");
	put(gang, "memory.max", "");
	put(gang, "memory.high", "");
	put(gang, "pids.max", "");
	assert_int_equal(limits_open(&L, &lj, "job.bob@x", gang, err,
	    sizeof(err)), 0);
	assert_string_equal(lj.mem, gang);	/* the gang's own cgroup */
	assert_string_equal(lj.pids, gang);
	get(gang, "pids.max", buf, sizeof(buf));
	assert_string_equal(buf, "100");
	/* a reclaim: memory.reclaim of all it holds, half on each of two
	 * threads (both write at offset 0 of the plain file) */
	put(gang, "memory.current", "1073741824\n");
	put(gang, "memory.reclaim", "");
	assert_true(limits_reclaim(&L, &lj) == 0);
	get(gang, "memory.reclaim", buf, sizeof(buf));
	assert_string_equal(buf, "536870912");
	limits_close(&lj);			/* v2: gang_close removes it */
	assert_int_equal(access(gang, F_OK), 0);
}

static void
test_none(void **state)
{
	struct dts_conf		 c;
	struct limits		 L;
	struct limits_job	 lj;
	char			 err[256];

	(void)state;
	put(top, "mounts", "cgroup2 /x cgroup2 rw 0 0\n");
	put(base, "cgroup.controllers", "cpu\n");
	conf_of(&c, "50%", "");
	assert_int_equal(limits_setup(&L, &c, mnt, base, mounts, err,
	    sizeof(err)), 0);
	assert_string_equal(L.mem, "");
	assert_string_equal(L.pids, "");
	assert_int_equal(limits_open(&L, &lj, "job.a@b", "/x", err,
	    sizeof(err)), 0);
	assert_int_equal(limits_room(&L, err, sizeof(err)), 0);
	/* a subtree not under the mount, a contract that does not parse */
	assert_int_equal(limits_setup(&L, &c, mnt, "/elsewhere", mounts, err,
	    sizeof(err)), -1);
	conf_of(&c, "lots", "");
	assert_int_equal(limits_setup(&L, &c, mnt, base, mounts, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "\"lots\""));
}

/* SwapFree of a meminfo file; none: 0 */
static void
test_swap_free(void **state)
{
	char	 path[CG_PATH_MAX + 16];

	(void)state;
	snprintf(path, sizeof(path), "%s/meminfo", top);
	put(top, "meminfo", "MemTotal:       24576000 kB\n"
	    "SwapTotal:       3145728 kB\nSwapFree:        3000000 kB\n");
	assert_true(limits_swap_free(path) == 3000000ULL * 1024);
	put(top, "meminfo", "MemTotal:       24576000 kB\n"
	    "SwapTotal:             0 kB\nSwapFree:              0 kB\n");
	assert_true(limits_swap_free(path) == 0);
	assert_true(limits_swap_free("/nonexistent/meminfo") == 0);
}

/* PSI's "some avg10", and files that are not PSI */
static void
test_psi(void **state)
{
	char	 path[CG_PATH_MAX + 16];
	double	 pct = -1;

	(void)state;
	snprintf(path, sizeof(path), "%s/pressure", top);
	put(top, "pressure", "some avg10=12.34 avg60=1.00 avg300=0.10 "
	    "total=123456\nfull avg10=3.00 avg60=0.00 avg300=0.00 total=9\n");
	assert_int_equal(limits_psi(path, &pct), 0);
	assert_true(pct > 12.33 && pct < 12.35);
	put(top, "pressure", "full avg10=12.34 avg60=1.00 avg300=0.10 "
	    "total=1\n");
	assert_int_equal(limits_psi(path, &pct), -1);
	put(top, "pressure", "some avg60=1.00\n");
	assert_int_equal(limits_psi(path, &pct), -1);
	put(top, "pressure", "some avg10=250.00 avg60=0 avg300=0 total=0\n");
	assert_int_equal(limits_psi(path, &pct), -1);
	assert_int_equal(limits_psi("/nonexistent/pressure", &pct), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_bad_sizes),
		cmocka_unit_test(test_fmt),
		cmocka_unit_test_setup_teardown(test_v1, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v2, setup, teardown),
		cmocka_unit_test_setup_teardown(test_none, setup, teardown),
		cmocka_unit_test_setup_teardown(test_psi, setup, teardown),
		cmocka_unit_test_setup_teardown(test_swap_free, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
