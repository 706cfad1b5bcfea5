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

#include "console.h"
#include "log.h"
#include "proc.h"
#include "pvmerr.h"
#include "timeutil.h"

#define HALT_GRACE (5 * NS_PER_SEC)	/* pvmd's SIGTERM after our halt */

static int
private_dir(struct console *c, const char *dir)
{
	struct stat	 st;

	if (mkdir(dir, 0700) == -1 && errno != EEXIST)
		return out_err(&c->out, "PVM_TMP %s: %s", dir, strerror(errno));
	if (lstat(dir, &st) == -1)
		return out_err(&c->out, "PVM_TMP %s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) != 0)
		return out_err(&c->out, "PVM_TMP %s: not a directory of ours "
		    "that only we can write (set console.pvm_tmp)", dir);
	return 0;
}

int
cpvm_setup(struct console *c)
{
	const char	*env = getenv("PVM_TMP");
	char		 dir[CONF_STR_MAX];

	if (c->conf.console.pvm_tmp[0] != '\0')
		snprintf(dir, sizeof(dir), "%s", c->conf.console.pvm_tmp);
	else if (env != NULL && env[0] != '\0')
		snprintf(dir, sizeof(dir), "%s", env);
	else {
		snprintf(dir, sizeof(dir), "/tmp/dts-console.%u",
		    (unsigned)geteuid());
		if (private_dir(c, dir) == -1)
			return -1;
	}
	snprintf(c->pvm.tmp, sizeof(c->pvm.tmp), "%s", dir);
	if (setenv("PVM_TMP", dir, 1) == -1)
		return out_err(&c->out, "setenv PVM_TMP: %s", strerror(errno));
	return 0;
}

/* libpvm3 exits the process when run as root without PVM_ALLOW_ROOT. */
static int
root_check(struct console *c)
{
	if (geteuid() != 0 || getenv("PVM_ALLOW_ROOT") != NULL)
		return 0;
	return out_err(&c->out, "running as root: PVM refuses to run as root "
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
cpvm_drop(struct console *c)
{
	if (c->pvm.connected)
		quietly(pvm_exit);	/* libpvm forgets the dead pvmd */
	c->pvm.connected = 0;
	c->hosts.n = 0;
}

/*
 * The master pvmd goes the way of every pvmd: the launch script asks the
 * node's dts service to adopt it, then execs the real pvmd.  PVM_DPATH
 * makes the slaves pvmd adds take the same path.
 */
static void __attribute__((noreturn))
exec_launcher(struct console *c, int out)
{
	const char	*argv[2];
	sigset_t	 none;
	int		 null;

	setsid();	/* no terminal signals; outlives the console */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if ((null = open("/dev/null", O_RDONLY)) != -1)
		dup2(null, STDIN_FILENO);
	dup2(out, STDOUT_FILENO);
	setenv("PVM_DPATH", c->conf.console.launcher, 1);
	argv[0] = c->conf.console.launcher;
	argv[1] = NULL;
	execv(c->conf.console.launcher, (char *const *)argv);
	fprintf(stderr, "dts-console: cannot run %s: %s\n",
	    c->conf.console.launcher, strerror(errno));
	_exit(127);
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
start_master(struct console *c)
{
	char	 line[256];
	int	 pfd[2], rc, st;
	pid_t	 pid;

	if (access(c->conf.console.launcher, X_OK) == -1)
		return out_err(&c->out, "cannot start the master pvmd: %s: %s "
		    "(console.launcher)", c->conf.console.launcher,
		    strerror(errno));
	if (pipe2(pfd, O_CLOEXEC) == -1)
		return out_err(&c->out, "pipe: %s", strerror(errno));
	if ((pid = fork()) == -1) {
		close(pfd[0]);
		close(pfd[1]);
		return out_err(&c->out, "fork: %s", strerror(errno));
	}
	if (pid == 0)
		exec_launcher(c, pfd[1]);
	close(pfd[1]);
	c->pvm.master_pid = pid;
	rc = read_line(pfd[0], now_mono_ns() + c->conf.console.start_wait_ns,
	    line, sizeof(line));
	close(pfd[0]);
	if (rc == 1) {
		c->pvm.pvmd_pid = pid;	/* the launcher became pvmd */
		return 0;
	}
	if (rc == 0 && waitpid(pid, &st, 0) == pid) {
		c->pvm.master_pid = 0;
		return out_err(&c->out, "the master pvmd did not start: %s "
		    "ended with %s %d (its reason is on stderr above: is the "
		    "dts service running?)", c->conf.console.launcher,
		    WIFEXITED(st) ? "status" : "signal", WIFEXITED(st) ?
		    WEXITSTATUS(st) : WTERMSIG(st));
	}
	kill(pid, SIGTERM);	/* our child */
	return out_err(&c->out, "pvmd did not come up through %s within %.1fs "
	    "(console.start_wait); stopped it", c->conf.console.launcher,
	    (double)c->conf.console.start_wait_ns / NS_PER_SEC);
}

/* Is there a pvmd for our PVM_TMP (its pvmd.UID file)? */
static int
pvmd_file(const struct console *c)
{
	char	 path[CONF_STR_MAX + 32];

	snprintf(path, sizeof(path), "%s/pvmd.%u", c->pvm.tmp,
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
cpvm_connect(struct console *c, int start)
{
	int	 tid;

	if (c->no_pvm)
		return out_err(&c->out, "a PVM command, and PVM is off "
		    "(dts-console -n)");
	if (c->pvm.connected)
		return 0;
	if (root_check(c) == -1)
		return -1;
	if (!pvmd_file(c) || (tid = quietly(pvm_mytid)) < 0) {
		if (!start)
			return out_err(&c->out, "no pvmd runs with PVM_TMP %s",
			    c->pvm.tmp);
		if (start_master(c) == -1)
			return -1;
		if ((tid = quietly(pvm_mytid)) < 0)
			return out_err(&c->out, "cannot connect to the pvmd "
			    "just started: %s", pvmerr_msg(tid));
		out_notice(&c->out, "started the master pvmd through %s "
		    "(PVM_TMP %s)", c->conf.console.launcher, c->pvm.tmp);
	}
	c->pvm.connected = 1;
	c->pvm.tid = tid;
	if (c->pvm.pvmd_pid == 0)
		c->pvm.pvmd_pid = pvmd_peer();
	return cpvm_refresh(c);
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
cpvm_refresh(struct console *c)
{
	struct pvmhostinfo	*hi;
	int			 i, rc, nhost, narch;

	if ((rc = pvm_config(&nhost, &narch, &hi)) < 0) {
		if (rc == PvmSysErr)
			cpvm_drop(c);
		return out_err(&c->out, "pvm_config: %s", pvmerr_msg(rc));
	}
	c->hosts.n = 0;
	for (i = 0; i < nhost && i < NODES_MAX; i++) {
		struct vm_host *h = &c->hosts.v[c->hosts.n++];

		snprintf(h->name, sizeof(h->name), "%s", hi[i].hi_name);
		snprintf(h->arch, sizeof(h->arch), "%s", hi[i].hi_arch);
		h->tid = hi[i].hi_tid;
		h->speed = hi[i].hi_speed;
		resolve(h);
	}
	net_set_hosts(&c->net, &c->hosts);
	return 0;
}

void
cpvm_reap(struct console *c)
{
	int	 st;

	if (c->pvm.master_pid <= 0 || waitpid(c->pvm.master_pid, &st, WNOHANG) !=
	    c->pvm.master_pid)
		return;
	out_notice(&c->out, "pvmd (pid %d) ended with %s %d",
	    (int)c->pvm.master_pid, WIFEXITED(st) ? "status" : "signal",
	    WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	c->pvm.master_pid = 0;
	c->pvm.pvmd_pid = 0;
	cpvm_drop(c);
}

void
cpvm_wait_master(struct console *c, int64_t max)
{
	struct timespec	 tick = { 0, 20 * NS_PER_MS };
	int64_t		 end = now_mono_ns() + max;

	while (c->pvm.master_pid > 0 && now_mono_ns() < end) {
		cpvm_reap(c);
		if (c->pvm.master_pid > 0)
			nanosleep(&tick, NULL);
	}
}

int
cpvm_halt_signal(struct console *c, pid_t sender, int64_t now)
{
	char	 comm[32];

	if (c->pvm.halt_at != 0 && now - c->pvm.halt_at < HALT_GRACE)
		return 1;
	if (sender > 0 && sender == c->pvm.pvmd_pid)
		goto halted;
	if (sender <= 0 || proc_pid_comm(sender, comm, sizeof(comm)) == -1 ||
	    strcmp(comm, "pvmd") != 0)
		return 0;
halted:
	cpvm_drop(c);
	out_notice(&c->out, "the PVM virtual machine was halted");
	return 1;
}

void
cpvm_fini(struct console *c)
{
	cpvm_drop(c);
}
