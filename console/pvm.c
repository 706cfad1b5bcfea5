/*
 * pvm.c - connecting to PVM, starting the master pvmd in a gang, the
 * cached host table.  See pvm.h.
 */
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pvm3.h>

#include "adopt_msg.h"
#include "job.h"
#include "log.h"
#include "proc.h"
#include "pvm.h"
#include "pvmerr.h"
#include "spawn.h"
#include "timeutil.h"

#define HALT_GRACE (5 * NS_PER_SEC)	/* pvmd's SIGTERM after our halt */

static int
private_dir(struct cpvm *p, const char *dir)
{
	struct stat	 st;

	if (mkdir(dir, 0700) == -1 && errno != EEXIST)
		return out_err(p->out, "PVM_TMP %s: %s", dir, strerror(errno));
	if (lstat(dir, &st) == -1)
		return out_err(p->out, "PVM_TMP %s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) != 0)
		return out_err(p->out, "PVM_TMP %s: not a directory of ours "
		    "that only we can write (set console.pvm_tmp)", dir);
	return 0;
}

void
cpvm_init(struct cpvm *p, const struct dts_conf *conf, struct vm_hosts *hosts,
    struct net *net, struct out *out, int off)
{
	memset(p, 0, sizeof(*p));
	p->conf = conf;
	p->hosts = hosts;
	p->net = net;
	p->out = out;
	p->off = off;
	p->lift_fd = -1;
}

static int pvmd_file(const struct cpvm *);

void
cpvm_lift(struct cpvm *p)
{
	const char	*sock = getenv(ADOPT_SOCKET_ENV);
	char		 err[ADOPT_MSG_MAX];
	int		 ms, rc;

	if (p->off || p->lift_fd != -1 || p->lift_old ||
	    (!p->connected && !pvmd_file(p)))	/* no VM: no job either */
		return;
	rc = adopt_lift(sock != NULL && sock[0] != '\0' ? sock :
	    ADOPT_SOCKET_DEFAULT, job_label_pick(NULL), LIFT_WAIT_MS,
	    &p->lift_fd, &ms, err, sizeof(err));
	if (rc == 0)
		p->lift_old = 1;
	else if (rc == -1 && !p->lift_refused)
		out_notice(p->out, "the PVM commands run unlifted: %s (see "
		    "LIFTS in dts(8))", err);
	p->lift_refused = rc == -1;
}

void
cpvm_unlift(struct cpvm *p)
{
	if (p->lift_fd != -1)
		close(p->lift_fd);
	p->lift_fd = -1;
}

int
cpvm_setup(struct cpvm *p)
{
	const char	*env = getenv("PVM_TMP");
	char		 dir[CONF_STR_MAX];

	if (p->conf->console.pvm_tmp[0] != '\0')
		snprintf(dir, sizeof(dir), "%s", p->conf->console.pvm_tmp);
	else if (env != NULL && env[0] != '\0')
		snprintf(dir, sizeof(dir), "%s", env);
	else {
		snprintf(dir, sizeof(dir), "/tmp/dts-console.%u",
		    (unsigned)geteuid());
		if (private_dir(p, dir) == -1)
			return -1;
	}
	snprintf(p->tmp, sizeof(p->tmp), "%s", dir);
	if (setenv("PVM_TMP", dir, 1) == -1)
		return out_err(p->out, "setenv PVM_TMP: %s", strerror(errno));
	return 0;
}

/* libpvm3 exits the process when run as root without PVM_ALLOW_ROOT. */
static int
root_check(struct cpvm *p)
{
	if (geteuid() != 0 || getenv("PVM_ALLOW_ROOT") != NULL)
		return 0;
	return out_err(p->out, "running as root: PVM refuses to run as root "
	    "unless PVM_ALLOW_ROOT is set (export PVM_ALLOW_ROOT=1, or run "
	    "as a regular user)");
}

/* fn() without libpvm's complaints on stderr. */
static int
quietly(int (*fn)(void))
{
	int	 saved = dup(STDERR_FILENO), null, rc;

	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (saved != -1 && null != -1)
		dup2(null, STDERR_FILENO);
	pvm_setopt(PvmAutoErr, 0);
	rc = fn();
	if (saved != -1 && null != -1)
		dup2(saved, STDERR_FILENO);
	if (saved != -1)
		close(saved);
	if (null != -1)
		close(null);
	return rc;
}

void
cpvm_drop(struct cpvm *p)
{
	if (p->connected)
		quietly(pvm_exit);	/* libpvm forgets the dead pvmd */
	p->connected = 0;
	p->hosts->n = 0;
}

/*
 * The master pvmd goes the way of every pvmd: the launch script asks the
 * node's dts service to adopt it, then execs the real pvmd.  PVM_DPATH
 * makes the slaves pvmd adds take the same path.  In the child (spawn):
 * a session of its own (no terminal signals; it outlives the console),
 * stdin from /dev/null, stdout to the start-up pipe.
 */
struct launch {
	int		 out;
	const char	*path;
};

static const char *
launcher_setup(void *arg)
{
	const struct launch	*l = arg;
	int			 null;

	(void)setsid();
	if ((null = open("/dev/null", O_RDONLY)) != -1)
		(void)dup2(null, STDIN_FILENO);
	if (dup2(l->out, STDOUT_FILENO) == -1)
		return "dup2";
	return setenv("PVM_DPATH", l->path, 1) == -1 ? "setenv" : NULL;
}

/* Read pvmd's first line (its task socket) within the start-up wait. */
static int
read_line(int fd, int64_t deadline, char *buf, size_t len)
{
	struct pollfd	 p = { .fd = fd, .events = POLLIN };
	size_t		 n = 0;
	ssize_t		 r;
	int64_t		 left;

	while (n + 1 < len) {
		if ((left = deadline - now_mono_ns()) <= 0)
			return -1;
		if (poll(&p, 1, (int)(left / NS_PER_MS) + 1) <= 0)
			continue;
		if ((r = read(fd, buf + n, 1)) <= 0)
			return r == 0 ? 0 : -1;
		if (buf[n] == '\n')
			break;
		n++;
	}
	buf[n] = '\0';
	return 1;
}

static int
start_master(struct cpvm *p)
{
	struct launch	 l;
	char		 line[256], err[256];
	char		*argv[2];
	int		 pfd[2], rc, st;
	pid_t		 pid;

	if (access(p->conf->console.launcher, X_OK) == -1)
		return out_err(p->out, "cannot start the master pvmd: %s: %s "
		    "(console.launcher)", p->conf->console.launcher,
		    strerror(errno));
	if (pipe2(pfd, O_CLOEXEC) == -1)
		return out_err(p->out, "pipe: %s", strerror(errno));
	l.out = pfd[1];
	l.path = p->conf->console.launcher;
	argv[0] = (char *)l.path;	/* execv does not write it */
	argv[1] = NULL;
	if ((pid = spawn(l.path, argv, launcher_setup, &l, err,
	    sizeof(err))) == -1) {
		close(pfd[0]);
		close(pfd[1]);
		return out_err(p->out, "cannot start the master pvmd: %s", err);
	}
	close(pfd[1]);
	p->master_pid = pid;
	rc = read_line(pfd[0], now_mono_ns() + p->conf->console.start_wait_ns,
	    line, sizeof(line));
	close(pfd[0]);
	if (rc == 1) {
		p->pvmd_pid = pid;	/* the launcher became pvmd */
		return 0;
	}
	if (rc == 0 && waitpid(pid, &st, 0) == pid) {
		p->master_pid = 0;
		return out_err(p->out, "the master pvmd did not start: %s "
		    "ended with %s %d (its reason is on stderr above: is the "
		    "dts service running?)", p->conf->console.launcher,
		    WIFEXITED(st) ? "status" : "signal", WIFEXITED(st) ?
		    WEXITSTATUS(st) : WTERMSIG(st));
	}
	kill(pid, SIGTERM);	/* our child */
	return out_err(p->out, "pvmd did not come up through %s within %.1fs "
	    "(console.start_wait); stopped it", p->conf->console.launcher,
	    (double)p->conf->console.start_wait_ns / NS_PER_SEC);
}

/* Is there a pvmd for our PVM_TMP (its pvmd.UID file)? */
static int
pvmd_file(const struct cpvm *p)
{
	char	 path[CONF_STR_MAX + 32];

	snprintf(path, sizeof(path), "%s/pvmd.%u", p->tmp,
	    (unsigned)getuid());
	return access(path, F_OK) == 0;
}

/*
 * The pid of the pvmd we are connected to, from the peer of libpvm3's
 * socket: pvm_halt() makes pvmd SIGTERM its tasks (us too), and by the
 * time we look, that pvmd may be gone from /proc.  0 if unknown.
 */
static pid_t
pvmd_peer(void)
{
	struct ucred	 cr;
	socklen_t	 len = sizeof(cr);
	int		*fds = NULL;

	if (pvm_getfds(&fds) < 1 || fds == NULL ||
	    getsockopt(fds[0], SOL_SOCKET, SO_PEERCRED, &cr, &len) == -1)
		return 0;
	return cr.pid;
}

int
cpvm_connect(struct cpvm *p, int start)
{
	int	 tid;

	if (p->off)
		return out_err(p->out, "a PVM command, and PVM is off "
		    "(dts-console -n)");
	if (p->connected)
		return 0;
	if (root_check(p) == -1)
		return -1;
	if (!pvmd_file(p) || (tid = quietly(pvm_mytid)) < 0) {
		if (!start)
			return out_err(p->out, "no pvmd runs with PVM_TMP %s",
			    p->tmp);
		if (start_master(p) == -1)
			return -1;
		if ((tid = quietly(pvm_mytid)) < 0)
			return out_err(p->out, "cannot connect to the pvmd "
			    "just started: %s", pvmerr_msg(tid));
		out_notice(p->out, "started the master pvmd through %s "
		    "(PVM_TMP %s)", p->conf->console.launcher, p->tmp);
	}
	p->connected = 1;
	p->tid = tid;
	if (p->pvmd_pid == 0)
		p->pvmd_pid = pvmd_peer();
	return cpvm_refresh(p);
}

static void
resolve(struct vm_host *h)
{
	struct addrinfo	 hints = { .ai_family = AF_INET }, *ai;

	h->have_addr = 0;
	if (inet_pton(AF_INET, h->name, &h->addr) == 1) {
		h->have_addr = 1;
		return;
	}
	if (getaddrinfo(h->name, NULL, &hints, &ai) != 0)
		return;
	h->addr = ((struct sockaddr_in *)(void *)ai->ai_addr)->sin_addr;
	h->have_addr = 1;
	freeaddrinfo(ai);
}

int
cpvm_refresh(struct cpvm *p)
{
	struct pvmhostinfo	*hi;
	int			 i, rc, nhost, narch;

	if ((rc = pvm_config(&nhost, &narch, &hi)) < 0) {
		if (rc == PvmSysErr)
			cpvm_drop(p);
		return out_err(p->out, "pvm_config: %s", pvmerr_msg(rc));
	}
	p->hosts->n = 0;
	for (i = 0; i < nhost && i < NODES_MAX; i++) {
		struct vm_host *h = &p->hosts->v[p->hosts->n++];

		snprintf(h->name, sizeof(h->name), "%s", hi[i].hi_name);
		snprintf(h->arch, sizeof(h->arch), "%s", hi[i].hi_arch);
		h->tid = hi[i].hi_tid;
		h->speed = hi[i].hi_speed;
		resolve(h);
	}
	net_set_hosts(p->net, p->hosts);
	return 0;
}

void
cpvm_reap(struct cpvm *p)
{
	int	 st;

	if (p->master_pid <= 0 || waitpid(p->master_pid, &st, WNOHANG) !=
	    p->master_pid)
		return;
	out_notice(p->out, "pvmd (pid %d) ended with %s %d",
	    (int)p->master_pid, WIFEXITED(st) ? "status" : "signal",
	    WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	p->master_pid = 0;
	p->pvmd_pid = 0;
	cpvm_drop(p);
}

void
cpvm_wait_master(struct cpvm *p, int64_t max)
{
	struct timespec	 tick = { 0, 20 * NS_PER_MS };
	int64_t		 end = now_mono_ns() + max;

	while (p->master_pid > 0 && now_mono_ns() < end) {
		cpvm_reap(p);
		if (p->master_pid > 0)
			nanosleep(&tick, NULL);
	}
}

int
cpvm_halt_signal(struct cpvm *p, pid_t sender, int64_t now)
{
	char	 comm[32];

	if (p->halt_at != 0 && now - p->halt_at < HALT_GRACE)
		return 1;
	if (sender > 0 && sender == p->pvmd_pid)
		goto halted;
	if (sender <= 0 || proc_pid_comm(sender, comm, sizeof(comm)) == -1 ||
	    strcmp(comm, "pvmd") != 0)
		return 0;
halted:
	cpvm_drop(p);
	out_notice(p->out, "the PVM virtual machine was halted");
	return 1;
}

void
cpvm_fini(struct cpvm *p)
{
	cpvm_unlift(p);
	cpvm_drop(p);
}
