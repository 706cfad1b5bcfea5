/*
 * test_gang.c - dts/gang.c on a tree of plain files that mimics a cgroup
 * (gang_open_at: a temporary directory as the cgroup2 mount): what it
 * writes to cgroup.freeze and cgroup.procs, the priorities it gives the
 * members (pvmd at rt_prio, its tasks one below, every member two below
 * while it fills another job's slot, SCHED_IDLE in an idle LS), and that
 * a release leaves nothing frozen, stopped or at real-time priority.
 * The members are two children of the test (one called pvmd), listed
 * in the files as the kernel would list them; they are killed at the end
 * of each test, pass or fail.  gang.c takes only a root-owned tree (as
 * conf_dir_make_trusted) and the priorities need CAP_SYS_NICE: without
 * them the tests are skipped, and say so.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gang.h"
#include "proc.h"

#define RT_PRIO	50
#define PVMD	"gangtestpvmd"		/* the members' comm */
#define TASK	"gangtesttask"

struct fix {
	char		 top[64];
	char		 jobs[CG_PATH_MAX];
	char		 cg[CG_PATH_MAX + 16];
	struct gang	 t, g;
	pid_t		 pvmd, task;
	int		 skip;		/* not root: no tree gang.c trusts */
};

static pid_t
child(const char *comm)
{
	int	 p[2];
	char	 c;
	pid_t	 pid;

	if (pipe(p) == -1)
		return -1;
	if ((pid = fork()) == 0) {
		close(p[0]);
		(void)prctl(PR_SET_NAME, comm, 0, 0, 0);
		if (write(p[1], "x", 1) != 1)
			_exit(1);	/* the parent sees no byte: -1 */
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid > 0 && read(p[0], &c, 1) != 1)
		pid = -1;
	close(p[0]);
	return pid;
}

static void
put(const char *dir, const char *file, const char *text)
{
	char	 path[CG_PATH_MAX + 32];
	FILE	*f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

static char *
get(const char *dir, const char *file)
{
	static char	 buf[256];
	char		 path[CG_PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (proc_read_small(path, buf, sizeof(buf)) == -1)
		buf[0] = '\0';
	return buf;
}

/* both children members, as the kernel would list them */
static void
list_members(struct fix *f)
{
	char	 text[64];

	snprintf(text, sizeof(text), "%d\n%d\n", (int)f->pvmd, (int)f->task);
	put(f->cg, "cgroup.procs", text);
	put(f->cg, "cgroup.threads", text);
}

static int
setup_with(void **state, const struct gang_backend *be)
{
	struct fix	*f = calloc(1, sizeof(*f));
	char		 err[256];

	if (f == NULL)
		return -1;
	*state = f;
	f->pvmd = f->task = -1;
	if (geteuid() != 0) {
		f->skip = 1;
		return 0;
	}
	snprintf(f->top, sizeof(f->top), "/tmp/dts-test-gang.XXXXXX");
	if (mkdtemp(f->top) == NULL)
		return -1;
	/* the template, as gang_setup leaves it */
	memset(&f->t, 0, sizeof(f->t));
	f->t.freeze_fd = f->t.procs_fd = f->t.hold_fd = f->t.thaw_fd = -1;
	f->t.held_fd = -1;
	f->t.rt_prio = RT_PRIO;
	f->t.be = be;
	snprintf(f->t.base, sizeof(f->t.base), "%s/dts", f->top);
	snprintf(f->t.jobs, sizeof(f->t.jobs), "%s/%s", f->t.base, CG_JOBS);
	snprintf(f->cg, sizeof(f->cg), "%s/job.alice@pvm", f->t.jobs);
	gang_set_pvmd(&f->t, "/usr/lib/pvm3/" PVMD);
	if (mkdir(f->t.base, 0755) == -1 || mkdir(f->t.jobs, 0755) == -1 ||
	    mkdir(f->cg, 0755) == -1)
		return -1;
	put(f->cg, "cgroup.freeze", "0\n");
	put(f->cg, "cgroup.procs", "");
	put(f->cg, "cgroup.threads", "");
	put(f->cg, "cgroup.events", "populated 1\nfrozen 0\n");
	if (gang_open_at(&f->g, &f->t, "job.alice@pvm", f->top, err,
	    sizeof(err)) == -1) {
		print_error("gang_open_at: %s\n", err);
		return -1;
	}
	if ((f->pvmd = child(PVMD)) == -1 || (f->task = child(TASK)) == -1)
		return -1;
	return 0;
}

static int
setup_freezer(void **state)
{
	return setup_with(state, &gang_freezer_backend);
}

static int
setup_signal(void **state)
{
	return setup_with(state, &gang_signal_backend);
}

static void
reap(pid_t pid)
{
	if (pid <= 0)
		return;
	(void)kill(pid, SIGKILL);
	(void)kill(pid, SIGCONT);
	(void)waitpid(pid, NULL, 0);
}

static int
teardown(void **state)
{
	struct fix	*f = *state;
	char		 cmd[128];

	if (f == NULL)
		return 0;
	reap(f->pvmd);
	reap(f->task);
	if (f->g.cg[0] != '\0') {
		put(f->cg, "cgroup.procs", "");
		put(f->cg, "cgroup.threads", "");
		(void)gang_close(&f->g);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->top);
	if (f->top[0] != '\0' && system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

/* The test's fixture; the test skipped if it has none (not root). */
static struct fix *
fixture(void **state)
{
	struct fix	*f = *state;

	if (f->skip) {
		print_message("skipped: gang.c trusts only a tree that root "
		    "owns, and this is uid %d\n", (int)geteuid());
		skip();
	}
	return f;
}

static int
policy(pid_t pid, int *prio)
{
	struct sched_param	 sp;

	*prio = sched_getparam(pid, &sp) == 0 ? sp.sched_priority : -1;
	return sched_getscheduler(pid);
}

#define assert_policy(pid, pol, pr) do {				\
	int prio_, pol_ = policy(pid, &prio_);				\
	if (pol_ != (pol) || prio_ != (pr))				\
		fail_msg("pid %d: policy %d prio %d, want %d %d",	\
		    (int)(pid), pol_, prio_, (pol), (pr));		\
} while (0)

/* May this process set SCHED_RR?  Else the test is skipped. */
static int
can_rt(void)
{
	struct sched_param	 sp = { .sched_priority = 1 };
	pid_t			 pid = child(TASK);
	int			 ok;

	if (pid == -1)
		return 0;
	ok = sched_setscheduler(pid, SCHED_RR, &sp) == 0;
	reap(pid);
	if (!ok)
		print_message("skipped: SCHED_RR needs CAP_SYS_NICE (%s)\n",
		    strerror(errno));
	return ok;
}

/* the stopped state of our child, through waitpid (at most 5 s) */
static void
assert_stopped(pid_t pid, int stopped)
{
	struct timespec	 ts = { 0, 1000 * 1000 };
	int		 st = 0;
	pid_t		 got = 0;

	for (int i = 0; i < 5000 && got == 0; i++) {
		got = waitpid(pid, &st, WNOHANG | (stopped ? WUNTRACED :
		    WCONTINUED));
		if (got == 0)
			nanosleep(&ts, NULL);
	}
	assert_int_equal(got, pid);
	if (stopped)
		assert_true(WIFSTOPPED(st));
	else
		assert_true(WIFCONTINUED(st));
}

static void
test_open(void **state)
{
	struct fix	*f = fixture(state);
	struct gang	 g;
	char		 err[256];

	assert_string_equal(f->g.cg, f->cg);
	assert_string_equal(f->g.rel, f->cg + strlen(f->top));
	assert_int_equal(f->g.rt_prio, RT_PRIO);
	assert_string_equal(f->g.pvmd_comm, PVMD);
	assert_int_not_equal(f->g.freeze_fd, -1);
	assert_int_equal(f->g.stopped + f->g.rt + f->g.idle + f->g.fill, 0);
	/* names that are no cgroup of its own, and no mount */
	assert_int_equal(gang_open_at(&g, &f->t, "../x", f->top, err,
	    sizeof(err)), -1);
	assert_string_equal(g.cg, "");
	assert_int_equal(gang_open_at(&g, &f->t, ".job", f->top, err,
	    sizeof(err)), -1);
	assert_int_equal(gang_open_at(&g, &f->t, "job.a@b", NULL, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "not under the cgroup2 mount"));
	assert_int_equal(gang_open_at(&g, &f->t, "job.a@b", "/elsewhere", err,
	    sizeof(err)), -1);
	assert_string_equal(g.cg, "");
}

static void
test_freezer(void **state)
{
	struct fix	*f = fixture(state);

	assert_int_equal(gang_stop(&f->g), 0);
	assert_int_equal(f->g.stopped, 1);
	assert_string_equal(get(f->cg, "cgroup.freeze"), "1\n");
	assert_int_equal(gang_cont(&f->g), 0);
	assert_int_equal(f->g.stopped, 0);
	assert_string_equal(get(f->cg, "cgroup.freeze"), "0\n");
	/* every gang at once: base/jobs's cgroup.freeze, if the template
	 * has it open */
	assert_int_equal(gang_hold(&f->t, 1), -1);
	assert_int_equal(errno, EOPNOTSUPP);
	put(f->t.jobs, "cgroup.freeze", "0\n");
	f->t.hold_fd = cg_open(f->t.jobs, "cgroup.freeze", O_WRONLY);
	assert_int_not_equal(f->t.hold_fd, -1);
	assert_int_equal(gang_hold(&f->t, 1), 0);
	assert_string_equal(get(f->t.jobs, "cgroup.freeze"), "1\n");
	assert_int_equal(gang_hold(&f->t, 0), 0);
	assert_string_equal(get(f->t.jobs, "cgroup.freeze"), "0\n");
	/* has every gang frozen since?  base/jobs's cgroup.events says */
	assert_int_equal(gang_held(&f->t), -1);		/* not open */
	put(f->t.jobs, "cgroup.events", "populated 1\nfrozen 0\n");
	f->t.held_fd = cg_open(f->t.jobs, "cgroup.events", O_RDONLY);
	assert_int_not_equal(f->t.held_fd, -1);
	assert_int_equal(gang_held(&f->t), 0);
	put(f->t.jobs, "cgroup.events", "populated 1\nfrozen 1\n");
	assert_int_equal(gang_held(&f->t), 1);
	close(f->t.held_fd);
	f->t.held_fd = -1;
	close(f->t.hold_fd);
	f->t.hold_fd = -1;
}

static void
test_signal(void **state)
{
	struct fix	*f = fixture(state);

	list_members(f);
	assert_int_equal(gang_stop(&f->g), 0);
	assert_int_equal(f->g.stopped, 1);
	assert_stopped(f->pvmd, 1);
	assert_stopped(f->task, 1);
	assert_string_equal(get(f->cg, "cgroup.freeze"), "0\n");
	assert_int_equal(gang_cont(&f->g), 0);
	assert_stopped(f->pvmd, 0);
	assert_stopped(f->task, 0);
	/* a release continues a stopped member too */
	assert_int_equal(gang_stop(&f->g), 0);
	assert_stopped(f->task, 1);
	gang_release(&f->g);
	assert_int_equal(f->g.stopped, 0);
	assert_stopped(f->task, 0);
}

static void
test_adopt(void **state)
{
	struct fix	*f = fixture(state);
	char		 text[32];

	assert_int_equal(gang_adopt(&f->g, f->task), 0);
	snprintf(text, sizeof(text), "%d\n", (int)f->task);
	assert_string_equal(get(f->cg, "cgroup.procs"), text);
	assert_policy(f->task, SCHED_OTHER, 0);
	/* into a stopped gang (freezer: a frozen cgroup freezes newcomers,
	 * nothing more to do); no file, no move */
	assert_int_equal(gang_stop(&f->g), 0);
	assert_int_equal(gang_adopt(&f->g, f->pvmd), 0);
	snprintf(text, sizeof(text), "%d\n", (int)f->pvmd);
	assert_string_equal(get(f->cg, "cgroup.procs"), text);
	assert_string_equal(get(f->cg, "cgroup.freeze"), "1\n");
	{
		struct gang gone = f->g;	/* a cgroup removed meanwhile */

		snprintf(gone.cg, sizeof(gone.cg), "%s/gone", f->top);
		assert_int_equal(gang_adopt(&gone, f->pvmd), -1);
	}
}

static void
test_priorities(void **state)
{
	struct fix	*f = fixture(state);
	struct gang_fix	 fix[4];
	pid_t		 pvmd = 0;
	int		 n;

	if (!can_rt())
		skip();
	list_members(f);
	/* at RR before a scan found pvmd: every member a task */
	gang_set_rt(&f->g, 1);
	assert_int_equal(f->g.rt, 1);
	assert_policy(f->task, SCHED_RR, RT_PRIO - 1);
	assert_policy(f->pvmd, SCHED_RR, RT_PRIO - 1);
	/* the scan finds pvmd one below its level; apply raises it */
	n = gang_prio_scan(&f->g, &pvmd, fix, 4);
	assert_int_equal(pvmd, f->pvmd);
	assert_int_equal(n, 1);
	assert_int_equal(fix[0].pid, f->pvmd);
	assert_int_equal(fix[0].pvmd, 1);
	assert_int_equal(gang_prio_apply(&f->g, pvmd, fix, n), 1);
	assert_policy(f->pvmd, SCHED_RR, RT_PRIO);
	assert_policy(f->task, SCHED_RR, RT_PRIO - 1);
	assert_int_equal(gang_prio_scan(&f->g, &pvmd, fix, 4), 0);
	/* a task pvmd started inherited pvmd's level: put back */
	{
		struct sched_param sp = { .sched_priority = RT_PRIO };

		assert_int_equal(sched_setscheduler(f->task, SCHED_RR, &sp), 0);
	}
	n = gang_prio_scan(&f->g, &pvmd, fix, 4);
	assert_int_equal(n, 1);
	assert_int_equal(fix[0].pid, f->task);
	assert_int_equal(fix[0].pvmd, 0);
	assert_int_equal(gang_prio_apply(&f->g, pvmd, fix, n), 1);
	assert_policy(f->task, SCHED_RR, RT_PRIO - 1);
	/* a fix for a process that left the gang between the scan and the
	 * apply (a lift's end moved it home): it is not touched */
	{
		struct sched_param sp = { .sched_priority = RT_PRIO };
		char text[32];

		assert_int_equal(sched_setscheduler(f->task, SCHED_RR, &sp), 0);
		n = gang_prio_scan(&f->g, &pvmd, fix, 4);
		assert_int_equal(n, 1);
		snprintf(text, sizeof(text), "%d\n", (int)f->pvmd);
		put(f->cg, "cgroup.procs", text);
		assert_int_equal(gang_prio_apply(&f->g, pvmd, fix, n), 0);
		assert_policy(f->task, SCHED_RR, RT_PRIO);
		list_members(f);
		assert_int_equal(gang_prio_apply(&f->g, pvmd, fix, n), 1);
		assert_policy(f->task, SCHED_RR, RT_PRIO - 1);
	}
	/* another job's slot: every member two below, pvmd too; back */
	gang_set_fill(&f->g, 1);
	assert_policy(f->pvmd, SCHED_RR, GANG_FILL_PRIO(&f->g));
	assert_policy(f->task, SCHED_RR, RT_PRIO - 2);
	gang_set_fill(&f->g, 0);
	assert_policy(f->pvmd, SCHED_RR, RT_PRIO);
	assert_policy(f->task, SCHED_RR, RT_PRIO - 1);
	/* an idle LS, and its end */
	gang_set_idle(&f->g, 1);
	assert_policy(f->pvmd, SCHED_IDLE, 0);
	assert_policy(f->task, SCHED_IDLE, 0);
	gang_set_rt(&f->g, 0);		/* only remembered meanwhile */
	assert_policy(f->task, SCHED_IDLE, 0);
	gang_set_rt(&f->g, 1);
	gang_set_idle(&f->g, 0);
	assert_policy(f->pvmd, SCHED_RR, RT_PRIO);
	assert_policy(f->task, SCHED_RR, RT_PRIO - 1);
	/* a newcomer takes the gang's level at once */
	gang_set_rt(&f->g, 0);
	assert_policy(f->task, SCHED_OTHER, 0);
	gang_set_rt(&f->g, 1);
	{
		pid_t	 late = child(TASK);

		assert_int_not_equal(late, -1);
		assert_int_equal(gang_adopt(&f->g, late), 0);
		assert_policy(late, SCHED_RR, RT_PRIO - 1);
		reap(late);
	}
}

static void
test_release(void **state)
{
	struct fix	*f = fixture(state);

	list_members(f);
	if (can_rt()) {
		gang_set_rt(&f->g, 1);
		assert_policy(f->task, SCHED_RR, RT_PRIO - 1);
	}
	gang_set_fill(&f->g, 1);
	assert_int_equal(gang_stop(&f->g), 0);
	gang_release(&f->g);
	assert_int_equal(f->g.stopped + f->g.rt + f->g.idle + f->g.fill +
	    f->g.unidle, 0);
	assert_string_equal(get(f->cg, "cgroup.freeze"), "0\n");
	assert_policy(f->task, SCHED_OTHER, 0);
	assert_policy(f->pvmd, SCHED_OTHER, 0);
	assert_int_equal(gang_members(&f->g), 2);
	/* safe to repeat, and a closed gang is released for good */
	gang_release(&f->g);
	put(f->cg, "cgroup.procs", "");
	(void)gang_close(&f->g);
	assert_string_equal(f->g.cg, "");
	assert_int_equal(gang_members(&f->g), 0);
	gang_release(&f->g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open, setup_freezer,
		    teardown),
		cmocka_unit_test_setup_teardown(test_freezer, setup_freezer,
		    teardown),
		cmocka_unit_test_setup_teardown(test_signal, setup_signal,
		    teardown),
		cmocka_unit_test_setup_teardown(test_adopt, setup_freezer,
		    teardown),
		cmocka_unit_test_setup_teardown(test_priorities,
		    setup_freezer, teardown),
		cmocka_unit_test_setup_teardown(test_release, setup_freezer,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
