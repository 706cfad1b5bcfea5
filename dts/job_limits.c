/*
 * job_limits.c - a job's memory and tasks bounded.  See job_limits.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>

#include <linux/securebits.h>

#include "job_limits.h"
#include "log.h"
#include "memsize.h"
#include "priv.h"

/* Is word one of the comma-separated options opts? */
static int
has_option(const char *opts, const char *word)
{
	size_t	 n = strlen(word);

	for (const char *p = opts; p != NULL; p = strchr(p, ',')) {
		if (*p == ',')
			p++;
		if (strncmp(p, word, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return 1;
	}
	return 0;
}

/* The mount point of the v1 hierarchy holding controller into buf. */
static int
v1_mount(const char *mounts, const char *controller, char *buf, size_t len)
{
	char	 dev[256], dir[CG_PATH_MAX], type[64], opts[512];
	FILE	*f = fopen(mounts != NULL ? mounts : "/proc/self/mounts", "re");
	int	 found = -1;

	if (f == NULL)
		return -1;
	while (fscanf(f, "%255s %255s %63s %511s %*[^\n]", dev, dir, type,
	    opts) == 4)
		if (strcmp(type, "cgroup") == 0 && has_option(opts, controller) &&
		    (size_t)snprintf(buf, len, "%s", dir) < len) {
			found = 0;
			break;
		}
	fclose(f);
	return found;
}

/* Does cg's cgroup.controllers list controller? */
static int
v2_offers(const char *cg, const char *controller)
{
	char	 buf[512], *tok, *save;

	if (cg_read(cg, "cgroup.controllers", buf, sizeof(buf)) == -1)
		return 0;
	for (tok = strtok_r(buf, " \n", &save); tok != NULL;
	    tok = strtok_r(NULL, " \n", &save))
		if (strcmp(tok, controller) == 0)
			return 1;
	return 0;
}

/*
 * The v1 mirror of rel (dts's subtree below the cgroup2 mount) and its
 * jobs child under root: every level made, root's (memory) hierarchical
 * before its children.  0, or -1 (errno).
 */
static int
v1_mirror(const char *root, const char *rel, int memory, char *out,
    size_t len)
{
	char	 path[CG_PATH_MAX];
	size_t	 n;

	if ((size_t)snprintf(path, sizeof(path), "%s%s/%s", root, rel,
	    CG_JOBS) >= sizeof(path) || strlen(path) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	n = strlen(root);
	for (char *p = path + n + 1; ; p++) {
		char	 c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) == -1 && errno != EEXIST)
			return -1;
		if (memory)	/* refused once it has children, or by a
				   kernel where it is always 1 */
			(void)cg_write(path, "memory.use_hierarchy", "1");
		*p = c;
		if (c == '\0')
			break;
	}
	snprintf(out, len, "%s", path);
	return 0;
}

/* Bytes to a cgroup file ("max" for UINT64_MAX). */
static int
write_bytes(const char *cg, const char *file, uint64_t v)
{
	char	 buf[32];

	if (v == UINT64_MAX)
		snprintf(buf, sizeof(buf), "max");
	else
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return cg_write(cg, file, buf);
}

/*
 * The memory bounds of cg: limit, reclaim from LIMITS_HIGH_PCT of it,
 * swap at most as much again.  0, or -1 (errno).
 */
static int
bound_memory(const char *cg, int v2, uint64_t limit)
{
	uint64_t	 high = limit / 100 * LIMITS_HIGH_PCT;

	if (v2)
		return write_bytes(cg, "memory.max", limit) |
		    write_bytes(cg, "memory.high", high) |
		    (write_bytes(cg, "memory.swap.max", limit) == -1 &&
		    errno != ENOENT ? -1 : 0);
	/* memsw, where swap is accounted: memory and swap together, never
	 * below the limit; first too, for a limit raised above it (a new
	 * dts with a larger contract) */
	(void)write_bytes(cg, "memory.memsw.limit_in_bytes", 2 * limit);
	if (write_bytes(cg, "memory.limit_in_bytes", limit) == -1)
		return -1;
	(void)write_bytes(cg, "memory.soft_limit_in_bytes", high);
	if (write_bytes(cg, "memory.memsw.limit_in_bytes", 2 * limit) == -1 &&
	    errno != ENOENT)
		return -1;
	return 0;
}

static void
setup_memory(struct limits *L, const char *mnt, const char *base,
    const char *mounts)
{
	char	 v1[CG_PATH_MAX], jobs[CG_PATH_MAX + 8], size[32];

	snprintf(jobs, sizeof(jobs), "%s/%s", base, CG_JOBS);
	if (v2_offers(base, "memory")) {
		if (cg_write(base, "cgroup.subtree_control", "+memory") == -1 ||
		    cg_write(jobs, "cgroup.subtree_control", "+memory") == -1)
			log_warn("memory: cgroup v2 offers the controller to "
			    "%s, but it cannot be enabled: no memory bound",
			    base);
		else {
			snprintf(L->mem, sizeof(L->mem), "%.*s",
			    (int)sizeof(L->mem) - 1, jobs);
			L->mem_v2 = 1;
		}
	} else if (v1_mount(mounts, "memory", v1, sizeof(v1)) == 0) {
		if (v1_mirror(v1, base + strlen(mnt), 1, L->mem,
		    sizeof(L->mem)) == -1) {
			log_warn("memory: cgroup v1 %s%s", v1, base +
			    strlen(mnt));
			L->mem[0] = '\0';
		}
	}
	if (L->mem[0] == '\0') {
		log_warnx("memory: no memory controller (cgroup v2 or v1) "
		    "here: the jobs' memory is not bounded (dts(8), MEMORY)");
		return;
	}
	if (bound_memory(L->mem, L->mem_v2, L->contract) == -1) {
		log_warn("memory: %s: the contract cannot be set: the jobs' "
		    "memory is not bounded", L->mem);
		L->mem[0] = '\0';
		return;
	}
	log_info("memory: the jobs together at most %s (dts.conf: memory), "
	    "each job at most %s, in %s (cgroup v%d)", memsize_fmt(L->contract,
	    size, sizeof(size)), memsize_fmt(L->job_max, v1, sizeof(v1)),
	    L->mem, L->mem_v2 ? 2 : 1);
}

static void
setup_pids(struct limits *L, const char *mnt, const char *base,
    const char *mounts)
{
	char	 v1[CG_PATH_MAX];

	if (v2_offers(base, "pids")) {
		char	 jobs[CG_PATH_MAX + 8];

		snprintf(jobs, sizeof(jobs), "%s/%s", base, CG_JOBS);
		if (cg_write(base, "cgroup.subtree_control", "+pids") == 0 &&
		    cg_write(jobs, "cgroup.subtree_control", "+pids") == 0) {
			snprintf(L->pids, sizeof(L->pids), "%.*s",
			    (int)sizeof(L->pids) - 1, jobs);
			L->pids_v2 = 1;
		}
	} else if (v1_mount(mounts, "pids", v1, sizeof(v1)) == 0 &&
	    v1_mirror(v1, base + strlen(mnt), 0, L->pids,
	    sizeof(L->pids)) == -1) {
		log_warn("pids: cgroup v1 %s%s", v1, base + strlen(mnt));
		L->pids[0] = '\0';
	}
	if (L->pids[0] == '\0')
		log_warnx("pids: no pids controller here: a job's tasks are "
		    "not bounded (dts.conf: max_tasks)");
}

int
limits_setup(struct limits *L, const struct dts_conf *c, const char *mnt,
    const char *base, const char *mounts, char *err, size_t errlen)
{
	memset(L, 0, sizeof(*L));
	L->oom_fd = -1;
	L->max_tasks = c->max_tasks;
	L->ram = memsize_ram();
	if (memsize_parse(c->memory[0] ? c->memory : "50%", L->ram,
	    &L->contract, err, errlen) == -1 ||
	    memsize_parse(c->job_memory, L->ram, &L->job_max, err,
	    errlen) == -1)
		return -1;
	if (L->job_max == 0 || L->job_max > L->contract)
		L->job_max = L->contract;
	if (strncmp(base, mnt, strlen(mnt)) != 0) {
		snprintf(err, errlen, "cgroup %s: not under the cgroup2 mount "
		    "%s", base, mnt);
		return -1;
	}
	setup_memory(L, mnt, base, mounts);
	setup_pids(L, mnt, base, mounts);
	return 0;
}

/* ---- dts-oom: oom_score_adj 1000 for the members ------------------- */

/*
 * The helper's privileges: CAP_DAC_OVERRIDE (the file is the member's
 * user's) and, where the bounding set still has it, CAP_SYS_RESOURCE
 * (the kernel then keeps 1000 as the member's floor), nothing else.
 * 1 with the floor, 0 without, -1 on failure.
 */
static int
oom_drop(void)
{
	cap_value_t	 oom_caps[] = { CAP_DAC_OVERRIDE, CAP_SYS_RESOURCE };
	int		 n = CAP_IS_SUPPORTED(CAP_SYS_RESOURCE) &&
			     cap_get_bound(CAP_SYS_RESOURCE) == 1 ? 2 : 1;
	cap_t		 caps;
	int		 rc;

	if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |
	    SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED) == -1)
		return -1;
	for (cap_value_t v = 0; v <= CAP_LAST_CAP; v++)
		if (v != oom_caps[0] && v != oom_caps[1] &&
		    CAP_IS_SUPPORTED(v) && cap_drop_bound(v) == -1 &&
		    errno != EINVAL)
			return -1;
	if ((caps = cap_init()) == NULL)
		return -1;
	rc = cap_set_flag(caps, CAP_PERMITTED, n, oom_caps, CAP_SET) |
	    cap_set_flag(caps, CAP_EFFECTIVE, n, oom_caps, CAP_SET);
	if (rc == 0)
		rc = cap_set_proc(caps);
	cap_free(caps);
	if (rc == -1 || prctl(PR_SET_DUMPABLE, 0) == -1)
		return -1;
	return n == 2;
}

/* The helper: a pid in, "1000" to its oom_score_adj, errno (0) out. */
static void __attribute__((noreturn))
oom_main(int fd, pid_t parent, int prio)
{
	struct sched_param	 sp = { .sched_priority = prio };
	sigset_t		 none;
	pid_t			 pid;
	char			 path[64];
	int			 rc, f, floor;

	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1 || getppid() != parent)
		_exit(1);
	(void)prctl(PR_SET_NAME, "dts-oom");
	if (dup2(fd, 3) == -1 || close_range(4, ~0U, 0) == -1 ||
	    (prio > 0 && sched_setscheduler(0, SCHED_FIFO, &sp) == -1) ||
	    (floor = oom_drop()) == -1 ||
	    send(3, &floor, sizeof(floor), MSG_NOSIGNAL) != sizeof(floor))
		_exit(1);
	while (recv(3, &pid, sizeof(pid), 0) == (ssize_t)sizeof(pid)) {
		rc = 0;
		snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", (int)pid);
		if (pid <= 0)
			rc = EINVAL;
		else if ((f = open(path, O_WRONLY | O_CLOEXEC)) == -1)
			rc = errno;
		else {
			if (write(f, "1000", 4) != 4)
				rc = errno ? errno : EIO;
			close(f);
		}
		if (send(3, &rc, sizeof(rc), MSG_NOSIGNAL) != (ssize_t)sizeof(rc))
			break;
	}
	_exit(0);
}

int
limits_oom_start(struct limits *L, int prio)
{
	struct timeval	 tv = { 1, 0 };
	int		 sv[2];
	pid_t		 parent = getpid();

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1) {
		log_warn("dts-oom: socketpair");
		return -1;
	}
	if ((L->oom_pid = fork()) == -1) {
		log_warn("dts-oom: fork");
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (L->oom_pid == 0)
		oom_main(sv[1], parent, prio);
	close(sv[1]);
	L->oom_fd = sv[0];
	(void)setsockopt(L->oom_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	(void)setsockopt(L->oom_fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (recv(L->oom_fd, &L->oom_floor, sizeof(L->oom_floor), 0) !=
	    (ssize_t)sizeof(L->oom_floor)) {
		log_warnx("dts-oom did not start: the jobs' members keep "
		    "their oom_score_adj");
		limits_fini(L);
		return -1;
	}
	if (L->oom_floor)
		log_info("oom_score_adj: every member of a job at 1000, which "
		    "its user cannot lower (dts-oom, pid %d)", (int)L->oom_pid);
	else
		log_warnx("oom_score_adj: every member of a job at 1000; "
		    "CAP_SYS_RESOURCE is not in dts's bounding set, so the "
		    "kernel does not hold it there: dts raises a member's "
		    "again each second (dts-oom, pid %d)", (int)L->oom_pid);
	return 0;
}

/* pid to oom_score_adj 1000 through dts-oom.  0, or -1 (errno). */
static int
oom_adj(const struct limits *L, pid_t pid)
{
	int	 rc;

	if (L->oom_fd == -1) {
		errno = ENOTCONN;
		return -1;
	}
	if (send(L->oom_fd, &pid, sizeof(pid), MSG_NOSIGNAL) !=
	    (ssize_t)sizeof(pid) ||
	    recv(L->oom_fd, &rc, sizeof(rc), 0) != (ssize_t)sizeof(rc))
		return -1;
	errno = rc;
	return rc == 0 ? 0 : -1;
}

void
limits_fini(struct limits *L)
{
	struct timespec	 ts = { 0, 1000 * 1000 };
	int		 i;

	if (L->oom_fd != -1)
		close(L->oom_fd);	/* dts-oom reads EOF and exits */
	L->oom_fd = -1;
	if (L->oom_pid <= 0)
		return;
	/* gone before dts: it runs at SCHED_FIFO, and nothing of dts's
	 * may be left at real-time priority once dts has exited */
	for (i = 0; i < 500 && waitpid(L->oom_pid, NULL, WNOHANG) == 0; i++)
		nanosleep(&ts, NULL);
	if (i == 500) {
		(void)kill(L->oom_pid, SIGKILL);
		(void)waitpid(L->oom_pid, NULL, 0);
	}
	L->oom_pid = 0;
}

/* ---- a job ----------------------------------------------------------- */

/* dir/name into out, made if missing.  0, or -1 (errno). */
static int
job_dir(const char *dir, const char *name, char *out, size_t len)
{
	if ((size_t)snprintf(out, len, "%s/%s", dir, name) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (mkdir(out, 0755) == -1 && errno != EEXIST)
		return -1;
	return 0;
}

int
limits_open(const struct limits *L, struct limits_job *lj, const char *cgname,
    const char *gang_cg, char *err, size_t errlen)
{
	char	 tasks[16];

	memset(lj, 0, sizeof(*lj));
	snprintf(tasks, sizeof(tasks), "%d", L->max_tasks);
	if (L->mem[0] != '\0') {
		if (L->mem_v2)
			snprintf(lj->mem, sizeof(lj->mem), "%s", gang_cg);
		else if (job_dir(L->mem, cgname, lj->mem,
		    sizeof(lj->mem)) == -1)
			goto fail;
		if (bound_memory(lj->mem, L->mem_v2, L->job_max) == -1)
			goto fail;
	}
	if (L->pids[0] != '\0') {
		if (L->pids_v2)
			snprintf(lj->pids, sizeof(lj->pids), "%s", gang_cg);
		else if (job_dir(L->pids, cgname, lj->pids,
		    sizeof(lj->pids)) == -1)
			goto fail;
		if (cg_write(lj->pids, "pids.max", tasks) == -1)
			goto fail;
	}
	return 0;
fail:
	snprintf(err, errlen, "job cgroup %s: its memory and tasks cannot be "
	    "bounded: %s", lj->pids[0] ? lj->pids : lj->mem, strerror(errno));
	if (L->mem_v2)
		lj->mem[0] = '\0';
	if (L->pids_v2)
		lj->pids[0] = '\0';
	limits_close(lj);
	return -1;
}

int
limits_adopt(const struct limits *L, const struct limits_job *lj, pid_t pid)
{
	char	 text[24];

	snprintf(text, sizeof(text), "%d\n", (int)pid);
	if ((lj->mem[0] != '\0' && !L->mem_v2 &&
	    cg_write(lj->mem, "cgroup.procs", text) == -1) ||
	    (lj->pids[0] != '\0' && !L->pids_v2 &&
	    cg_write(lj->pids, "cgroup.procs", text) == -1))
		return -1;
	if (L->oom_fd != -1 && oom_adj(L, pid) == -1 && errno != ESRCH &&
	    errno != ENOENT)
		log_warn("pid %d: oom_score_adj 1000", (int)pid);
	return 0;
}

struct all {
	const struct limits	*L;
	const struct limits_job	*lj;
	int			 n;
	int			 seen, from;	/* limits_oom_check's turn */
};

/* pid's oom_score_adj below 1000: raised again (counted). */
static void
raise_one(pid_t pid, void *arg)
{
	struct all	*a = arg;
	char		 path[64], buf[16];
	int		 f;
	ssize_t		 n;

	if (a->seen++ < a->from || a->seen > a->from + LIMITS_OOM_LOOKS)
		return;
	snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", (int)pid);
	if ((f = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return;
	buf[n] = '\0';
	if (atoi(buf) < 1000 && oom_adj(a->L, pid) == 0)
		a->n++;
}

int
limits_oom_check(const struct limits *L, const char *gang_cg, int *turn)
{
	struct all	 a = { L, NULL, 0, 0, *turn };

	if (L->oom_fd == -1 || L->oom_floor)
		return 0;
	(void)cg_foreach(gang_cg, "cgroup.procs", raise_one, &a);
	*turn = a.seen > a.from + LIMITS_OOM_LOOKS ? a.from + LIMITS_OOM_LOOKS :
	    0;
	return a.n;
}

static void
adopt_one(pid_t pid, void *arg)
{
	struct all	*a = arg;

	if (limits_adopt(a->L, a->lj, pid) == -1 && errno != ESRCH)
		log_warn("pid %d: into the job's memory and pids cgroups",
		    (int)pid);
}

void
limits_adopt_all(const struct limits *L, const struct limits_job *lj,
    const char *gang_cg)
{
	struct all	 a = { L, lj, 0, 0, 0 };

	(void)cg_foreach(gang_cg, "cgroup.procs", adopt_one, &a);
}

/* "key N" of a flat keyed file (memory.stat, memory.events); 0 if none. */
static uint64_t
keyed(const char *cg, const char *file, const char *key)
{
	char			 buf[8192], *p;
	unsigned long long	 v = 0;
	size_t			 n = strlen(key);

	if (cg_read(cg, file, buf, sizeof(buf)) == -1)
		return 0;
	for (p = buf; p != NULL && *p != '\0'; p = strchr(p, '\n'),
	    p = p ? p + 1 : NULL)
		if (strncmp(p, key, n) == 0 && p[n] == ' ') {
			v = strtoull(p + n + 1, NULL, 10);
			break;
		}
	return v;
}

static uint64_t
number(const char *cg, const char *file)
{
	char	 buf[64];

	return cg_read(cg, file, buf, sizeof(buf)) == 0 ?
	    strtoull(buf, NULL, 10) : 0;
}

long
limits_tasks(const struct limits *L)
{
	char	 buf[64];

	if (L->pids[0] == '\0' ||
	    cg_read(L->pids, "pids.current", buf, sizeof(buf)) == -1)
		return -1;
	return strtol(buf, NULL, 10);
}

void
limits_use(const struct limits *L, const struct limits_job *lj,
    const char *gang_cg, struct limits_use *u)
{
	const char	*cg = lj != NULL ? lj->mem : L->mem;

	(void)gang_cg;
	memset(u, 0, sizeof(*u));
	if (cg[0] == '\0')
		return;
	u->known = 1;
	if (L->mem_v2) {
		u->mem = number(cg, "memory.current");
		u->peak = number(cg, "memory.peak");
		u->swap = number(cg, "memory.swap.current");
		u->oom_kills = keyed(cg, "memory.events", "oom_kill");
	} else {
		uint64_t sw = number(cg, "memory.memsw.usage_in_bytes");

		u->mem = number(cg, "memory.usage_in_bytes");
		u->peak = number(cg, "memory.max_usage_in_bytes");
		u->swap = sw > u->mem ? sw - u->mem : 0;
		u->oom_kills = keyed(cg, "memory.oom_control", "oom_kill");
	}
}

uint64_t
limits_swap_free(const char *meminfo)
{
	char	 line[128];
	FILE	*f = fopen(meminfo != NULL ? meminfo : "/proc/meminfo", "re");
	unsigned long long kb = 0;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "SwapFree: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb * 1024;
}

/* The second reclaimer of limits_reclaim: one write, then done. */
struct reclaim_half {
	const char	*cg;
	const char	*file;
	uint64_t	 bytes;
	int		 done;		/* atomic: the write returned */
};

static void *
reclaim_half(void *arg)
{
	struct reclaim_half	*h = arg;

	/* nice 19 as its creator, whatever the attributes gave */
	(void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
	(void)prctl(PR_SET_NAME, "dts-reclaim2");
	(void)write_bytes(h->cg, h->file, h->bytes);
	__atomic_store_n(&h->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

uint64_t
limits_reclaim(const struct limits *L, const struct limits_job *lj)
{
	const char		*use = L->mem_v2 ? "memory.current" :
	    "memory.usage_in_bytes";
	const struct timespec	 ms = { 0, 1000000 };
	char			 stack[PRIV_THREAD_STACK / 4]
				 __attribute__((aligned(4096)));
	struct reclaim_half	 h;
	pthread_attr_t		 a;
	pthread_t		 th;
	static int		 warned;	/* only this thread's */
	uint64_t		 before, after;
	int			 rc, two, stop = 0;

	if (lj->mem[0] == '\0')
		return 0;
	before = number(lj->mem, use);
	if (before == 0)
		return 0;
	/* on both CPUs: a second thread reclaims beside this one (v2 half
	 * of it, v1 force_empty, which works on a cgroup with live
	 * processes and returns once no more can go) */
	h.cg = lj->mem;
	h.file = L->mem_v2 ? "memory.reclaim" : "memory.force_empty";
	h.bytes = L->mem_v2 ? before / 2 : 0;
	h.done = 0;
	/* dts's memory is locked (mlockall MCL_FUTURE) and, without
	 * CAP_IPC_LOCK now, may be near RLIMIT_MEMLOCK (7.7 of 8 MiB where
	 * dts could not raise it: priv.c): a new stack's mmap would get
	 * EAGAIN, so the thread runs on a part of the caller's stack,
	 * locked already, which outlives it (joined below) */
	pthread_attr_init(&a);
	pthread_attr_setstack(&a, stack, sizeof(stack));
	two = (rc = pthread_create(&th, &a, reclaim_half, &h)) == 0;
	pthread_attr_destroy(&a);
	if (!two && !warned++) {
		errno = rc;
		log_warn("reclaim: no second thread: one CPU reclaims "
		    "(logged once)");
	}
	if (L->mem_v2) {	/* EAGAIN: it could not reclaim all of it */
		if (write_bytes(lj->mem, "memory.reclaim", two ?
		    before - before / 2 : before) == -1 && errno == EINTR)
			stop = 1;
	} else {		/* EBUSY at the end: what is left is not
				   reclaimable; then the limit back */
		if (write_bytes(lj->mem, "memory.limit_in_bytes", 0) == -1 &&
		    errno == EINTR)
			stop = 1;
		if (bound_memory(lj->mem, 0, L->job_max) == -1)
			log_warn("job cgroup %s: its limit could not be set "
			    "back after a reclaim", lj->mem);
	}
	/* interrupted (the job ends, dts exits): the second one too, until
	 * its write returns; a signal in the wait passes on to it */
	while (two && !__atomic_load_n(&h.done, __ATOMIC_ACQUIRE)) {
		if (stop)
			(void)pthread_kill(th, LIMITS_RECLAIM_SIG);
		if (nanosleep(&ms, NULL) == -1 && errno == EINTR)
			stop = 1;
	}
	if (two)
		pthread_join(th, NULL);
	after = number(lj->mem, use);
	return before > after ? before - after : 0;
}

int
limits_room(const struct limits *L, char *err, size_t errlen)
{
	uint64_t	 used, idle;
	char		 a[32], b[32];

	if (L->mem[0] == '\0')
		return 0;
	used = L->mem_v2 ? number(L->mem, "memory.current") :
	    number(L->mem, "memory.usage_in_bytes");
	/* page cache nobody touches: reclaimed first, not a job's use */
	idle = keyed(L->mem, "memory.stat", L->mem_v2 ? "inactive_file" :
	    "total_inactive_file");
	used = used > idle ? used - idle : 0;
	if (used < L->contract / 100 * LIMITS_FULL_PCT)
		return 0;
	snprintf(err, errlen, "the jobs on this node use %s of memory = %.0f%% "
	    "of RAM, of %s (dts.conf: memory)", memsize_fmt(used, a,
	    sizeof(a)), L->ram ? 100.0 * (double)used / (double)L->ram : 0.0,
	    memsize_fmt(L->contract, b, sizeof(b)));
	return -1;
}

int
limits_psi(const char *path, double *pct)
{
	char	 buf[256], *p;
	int	 f;
	ssize_t	 n;

	if ((f = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (strncmp(buf, "some ", 5) != 0 ||
	    (p = strstr(buf, "avg10=")) == NULL ||
	    sscanf(p + 6, "%lf", pct) != 1 || *pct < 0 || *pct > 100)
		return -1;
	return 0;
}

void
limits_close(struct limits_job *lj)
{
	/* v2: the gang's own cgroup, which gang_close removes */
	if (lj->mem[0] != '\0' && strstr(lj->mem, "/" CG_JOBS "/") != NULL &&
	    rmdir(lj->mem) == -1 && errno != ENOENT && errno != ENOTDIR)
		log_warn("%s not removed", lj->mem);
	if (lj->pids[0] != '\0' && strcmp(lj->pids, lj->mem) != 0 &&
	    rmdir(lj->pids) == -1 && errno != ENOENT && errno != ENOTDIR)
		log_warn("%s not removed", lj->pids);
	lj->mem[0] = lj->pids[0] = '\0';
}

static void
sweep_dir(const char *dir, int (*is_job)(const char *, void *), void *arg)
{
	DIR		*d = opendir(dir);
	struct dirent	*e;
	char		 path[CG_PATH_MAX + 300];

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (e->d_type != DT_DIR || strncmp(e->d_name, CG_JOB_PREFIX,
		    strlen(CG_JOB_PREFIX)) != 0 || is_job(e->d_name, arg))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (rmdir(path) == 0)
			log_info("cgroup %s (a job's that ended) removed", path);
		else
			log_warn("cgroup %s (no job's) not removed", path);
	}
	closedir(d);
}

void
limits_sweep(const struct limits *L, int (*is_job)(const char *, void *),
    void *arg)
{
	if (L->mem[0] != '\0' && !L->mem_v2)
		sweep_dir(L->mem, is_job, arg);
	if (L->pids[0] != '\0' && !L->pids_v2)
		sweep_dir(L->pids, is_job, arg);
}
