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
#include "spawn.h"
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

/* Mark fd inheritable (clear FD_CLOEXEC). */
static int
inherit(int fd)
{
	int	 fl = fcntl(fd, F_GETFD);

	return fl == -1 ? -1 : fcntl(fd, F_SETFD, fl & ~FD_CLOEXEC);
}

struct agent_fds {
	int	 sock, shm_fd, prio;
};

/* In the child: the two fds dts-load is given, its priority and caps. */
static const char *
agent_setup(void *arg)
{
	const struct agent_fds	*f = arg;

	if (inherit(f->sock) == -1 || inherit(f->shm_fd) == -1)
		return "fcntl";
	if (priv_child_agent(f->prio) == -1)
		return "SCHED_FIFO and capabilities";
	return NULL;
}

int
agent_spawn(struct dts_agent *a, const char *path, const char *conf_file,
    int prio, char *err, size_t errlen)
{
	char			 sockarg[16], shmarg[16];
	char			*argv[] = { "dts-load", "-f", (char *)conf_file,
	    "-c", sockarg, "-s", shmarg, NULL };
	struct agent_fds	 f;
	int			 sv[2];
	pid_t			 pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1) {
		snprintf(err, errlen, "socketpair: %s", strerror(errno));
		return -1;
	}
	f.sock = sv[1];
	f.shm_fd = a->shm_fd;
	f.prio = prio;
	snprintf(sockarg, sizeof(sockarg), "%d", sv[1]);
	snprintf(shmarg, sizeof(shmarg), "%d", a->shm_fd);
	pid = spawn(path, argv, agent_setup, &f, err, errlen);
	close(sv[1]);
	if (pid == -1) {
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
