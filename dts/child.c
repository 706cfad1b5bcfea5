/*
 * child.c - fork+exec of dts-load.  See child.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "log.h"
#include "priv.h"
#include "proto.h"
#include "timeutil.h"

int
agent_shm_create(struct dts_agent *a)
{
	a->pid = 0;
	a->sock = -1;
	a->shm_fd = memfd_create("dts-agent", MFD_CLOEXEC);
	if (a->shm_fd == -1 ||
	    ftruncate(a->shm_fd, sizeof(struct agent_shared)) == -1)
		return -1;
	a->shm = mmap(NULL, sizeof(struct agent_shared),
	    PROT_READ | PROT_WRITE, MAP_SHARED, a->shm_fd, 0);
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

	return fl == -1 ? -1 : fcntl(fd, F_SETFD, fl & ~FD_CLOEXEC);
}

/* Child: report errno and what failed on fd, then _exit. */
static void __attribute__((noreturn))
child_fail(int fd, const char *what)
{
	char msg[128];
	int n = snprintf(msg, sizeof(msg), "%s: %s", what, strerror(errno));

	if (n > 0 && write(fd, msg, (size_t)n) == -1)
		(void)0;
	_exit(127);
}

static void __attribute__((noreturn))
agent_child(int sock, int shm_fd, int errfd, const char *path,
	    const char *conf_file, int prio)
{
	char sockarg[16], shmarg[16];

	child_reset_signals();
	snprintf(sockarg, sizeof(sockarg), "%d", sock);
	snprintf(shmarg, sizeof(shmarg), "%d", shm_fd);
	if (inherit(sock) == -1 || inherit(shm_fd) == -1)
		child_fail(errfd, "fcntl");
	if (priv_child_agent(prio) == -1)
		child_fail(errfd, "SCHED_FIFO and capabilities");
	execl(path, "dts-load", "-f", conf_file, "-c", sockarg, "-s", shmarg,
	    (char *)NULL);
	child_fail(errfd, "exec");
}

int
agent_spawn(struct dts_agent *a, const char *path, const char *conf_file,
	    int prio, char *err, size_t errlen)
{
	sigset_t all, old;
	char why[160];
	int sv[2], ep[2];
	ssize_t n;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1 ||
	    pipe2(ep, O_CLOEXEC) == -1) {
		snprintf(err, errlen, "socketpair: %s", strerror(errno));
		return -1;
	}
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		close(ep[0]);
		agent_child(sv[1], a->shm_fd, ep[1], path, conf_file, prio);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(sv[1]);
	close(ep[1]);
	if (pid == -1) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(sv[0]);
		close(ep[0]);
		return -1;
	}
	do
		n = read(ep[0], why, sizeof(why) - 1);
	while (n == -1 && errno == EINTR);
	close(ep[0]);
	if (n > 0) {	/* the child could not exec */
		why[n] = '\0';
		snprintf(err, errlen, "cannot run %s: %s", path, why);
		close(sv[0]);
		(void)waitpid(pid, NULL, 0);
		return -1;
	}
	a->pid = pid;
	a->sock = sv[0];
	a->started = now_mono_ns();
	log_info("dts-load started, pid %d, SCHED_FIFO %d", (int)pid, prio);
	return 0;
}

void
agent_stop(struct dts_agent *a)
{
	if (a->sock != -1) {
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
