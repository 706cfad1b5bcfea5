/*
 * child.c - fork+exec of dts-load and pvmd.  See child.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "log.h"
#include "proto.h"
#include "timeutil.h"

int
agent_shm_create(struct agent *a)
{
	a->pid = 0;
	a->sock = -1;
	a->shm_fd = memfd_create("dts-agent", MFD_CLOEXEC);
	if (a->shm_fd < 0 || ftruncate(a->shm_fd, sizeof(struct agent_shared)) < 0)
		return -1;
	a->shm = mmap(NULL, sizeof(struct agent_shared), PROT_READ | PROT_WRITE,
	    MAP_SHARED, a->shm_fd, 0);
	if (a->shm == MAP_FAILED) {
		a->shm = NULL;
		return -1;
	}
	memset((void *)a->shm, 0, sizeof(*a->shm));
	return 0;
}

/* Child side after fork: defaults for every signal, empty mask. */
static void
child_reset_signals(void)
{
	sigset_t none;

	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Mark fd inheritable (clear FD_CLOEXEC). */
static int
inherit(int fd)
{
	int fl = fcntl(fd, F_GETFD);

	return fl < 0 ? -1 : fcntl(fd, F_SETFD, fl & ~FD_CLOEXEC);
}

int
agent_spawn(struct agent *a, const char *path, const char *conf_file,
	    const struct priv_user *u, int prio)
{
	sigset_t all, old;
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = fork();
	if (pid == 0) {
		char sockarg[16], shmarg[16];

		child_reset_signals();
		close(sv[0]);
		snprintf(sockarg, sizeof(sockarg), "%d", sv[1]);
		snprintf(shmarg, sizeof(shmarg), "%d", a->shm_fd);
		if (inherit(sv[1]) < 0 || inherit(a->shm_fd) < 0 ||
		    priv_child_become(u, SCHED_FIFO, prio) < 0)
			_exit(127);
		execl(path, "dts-load", "-f", conf_file, "-c", sockarg,
		    "-s", shmarg, (char *)NULL);
		_exit(127);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		return -1;
	}
	a->pid = pid;
	a->sock = sv[0];
	a->started = now_mono_ns();
	log_info("dts-load started, pid %d, SCHED_FIFO %d", (int)pid, prio);
	return 0;
}

void
agent_stop(struct agent *a)
{
	if (a->sock >= 0) {
		close(a->sock);
		a->sock = -1;
	}
	if (a->pid > 0) {
		/* it exits on EOF; do not wait forever on a stuck one */
		for (int i = 0; i < 100; i++) {
			if (waitpid(a->pid, NULL, WNOHANG) != 0)
				break;
			usleep(10000);
			if (i == 50)
				kill(a->pid, SIGTERM);
		}
		a->pid = 0;
	}
}

/* Child side: move the calling process into cgroup directory dir. */
static int
join_cgroup(const char *dir)
{
	char path[PATH_MAX];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	ok = write(fd, "0\n", 2) == 2;
	close(fd);
	return ok ? 0 : -1;
}

pid_t
pvmd_spawn(const char *path, char *const argv[], const struct priv_user *u,
	   int prio, const char *join)
{
	sigset_t all, old;
	pid_t pid;

	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = fork();
	if (pid == 0) {
		child_reset_signals();
		/* a session leader (setsid'd master) already leads its group */
		if (setpgid(0, 0) < 0 && getsid(0) != getpid())
			_exit(127);
		if (join != NULL && join_cgroup(join) < 0)
			_exit(127);
		if (priv_child_become(u, SCHED_RR, prio) < 0)
			_exit(127);
		execv(path, argv);
		_exit(127);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid > 0)
		setpgid(pid, pid);	/* no race with the first killpg */
	return pid;
}

/* ppid and pgid of pid from /proc/PID/stat; -1 if gone. */
static int
stat_ids(pid_t pid, pid_t *ppid, pid_t *pgid)
{
	char path[64], buf[512], *p;
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	if (!ok || (p = strrchr(buf, ')')) == NULL)
		return -1;
	int a, b;
	if (sscanf(p + 1, " %*c %d %d", &a, &b) != 2)
		return -1;
	*ppid = a;
	*pgid = b;
	return 0;
}

/* Does pid run the program at path (same file)? */
static int
same_exe(pid_t pid, const char *path)
{
	char link[64], exe[PATH_MAX], want[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	if ((n = readlink(link, exe, sizeof(exe) - 1)) < 0 || realpath(path, want) == NULL)
		return 0;
	exe[n] = '\0';
	return strcmp(exe, want) == 0;
}

pid_t
pvmd_find_daemon(pid_t pgid, const char *exe)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	pid_t me = getpid(), found = 0;

	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		pid_t pid = (pid_t)strtol(de->d_name, NULL, 10), ppid, pg;
		if (pid <= 0)
			continue;
		if (stat_ids(pid, &ppid, &pg) == 0 && ppid == me && pg == pgid &&
		    same_exe(pid, exe)) {
			found = pid;
			break;
		}
	}
	closedir(d);
	return found;
}
