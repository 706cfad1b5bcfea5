/*
 * main.c - dts-place: runs a PVM program so that the tasks it spawns with
 * no host named go where the cluster has room (dts-place(1), dts(8)
 * PLACEMENT).
 *
 *   dts-place [-f CONF] [-l LOG] [-r RECORD] [-j LABEL] [-v] [--] PROG ARG...
 *   dts-place -n [-f CONF]
 *
 * PROG runs with libdtsplace.so in LD_PRELOAD (preload.c), which asks
 * this process for a plan at each such pvm_spawn, over a socket pair.
 * This process asks every host's dts for its STATUS (poll.c), ranks the
 * hosts (goodness.c), answers, and writes each decision to the record
 * and the per-host counters to RECORD.prom.  It exits with PROG's status.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pvm3.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "conf.h"
#include "job.h"
#include "layer.h"
#include "log.h"
#include "plan.h"
#include "timeutil.h"

#ifndef PKGLIBEXECDIR
#define PKGLIBEXECDIR "/usr/local/libexec/dts"
#endif
#define PLACE_LIB PKGLIBEXECDIR "/libdtsplace.so"
#define MSG_MAX PLACE_MSG_MAX

const char cli_prog[] = "dts-place";

struct opts {
	const char	*conf;
	int		 explicit_conf;
	const char	*log;
	const char	*record;
	const char	*label;
	int		 verbose;
	int		 check;
};

struct place {
	struct placer	 pl;
	int		 sp;          /* our end of the socket pair */
	pid_t		 child;
};

static void
usage(void)
{
	fprintf(stderr, "usage: dts-place [-v] [-f conf] [-l log] "
	    "[-r record] [-j label] [--] program [arg ...]\n"
	    "       dts-place -n [-f conf]\n");
	exit(2);
}

static void
parse(int argc, char **argv, struct opts *o)
{
	int	 ch;

	o->conf = SYSCONFDIR "/dts/dts.conf";
	while ((ch = getopt(argc, argv, "+f:l:r:j:nvh")) != -1)
		switch (ch) {
		case 'f': o->conf = optarg; o->explicit_conf = 1; break;
		case 'l': o->log = optarg; break;
		case 'r': o->record = optarg; break;
		case 'j': o->label = optarg; break;
		case 'n': o->check = 1; break;
		case 'v': o->verbose = 1; break;
		default: usage();
		}
	if (!o->check && optind >= argc)
		usage();
}

/* The record's path: -r, place.record, or dts-place.UID in PVM_TMP. */
static void
record_path(char *buf, size_t cap, const struct opts *o,
    const struct dts_conf *c)
{
	const char	*dir = getenv("PVM_TMP");

	if (o->record != NULL)
		snprintf(buf, cap, "%s", o->record);
	else if (c->place.record[0] != '\0')
		snprintf(buf, cap, "%s", c->place.record);
	else
		snprintf(buf, cap, "%s/dts-place.%u",
		    dir != NULL && *dir == '/' ? dir : "/tmp",
		    (unsigned)getuid());
}

/*
 * A request from the program: answer it; or the tids a plan's spawn
 * returned ("TIDS" and "HOST TID ..." lines, no answer): record them.
 * 0 if there was none.
 */
static int
serve(struct place *p)
{
	static char	 req[MSG_MAX], out[MSG_MAX];
	ssize_t		 n;
	int		 len;

	n = recv(p->sp, req, sizeof(req) - 1, MSG_DONTWAIT);
	if (n <= 0)
		return 0;
	req[n] = '\0';
	if (strncmp(req, "TIDS\n", 5) == 0 || strcmp(req, "TIDS") == 0) {
		placer_flush(&p->pl, req[4] != '\0' ? req + 5 : NULL);
		return 1;
	}
	len = placer_decide(&p->pl, req, out, sizeof(out));
	if (len <= 0 || (size_t)len >= sizeof(out))
		len = snprintf(out, sizeof(out), "CIRCLE no room for the plan\n");
	if (send(p->sp, out, (size_t)len, MSG_NOSIGNAL) == -1)
		log_debug("%s: reply: %s", __func__, strerror(errno));
	return 1;
}

/*
 * The VM's hosts at the start, so that their loads are known (and checked
 * again and again) before the first spawn: pvm_config in a child of ours
 * (libpvm3 blocks while pvmd is stopped in LS, and exits a process of
 * root's without PVM_ALLOW_ROOT), its "NAME SPEED" lines on a pipe that
 * the loop reads (hosts_pipe).  The read end, or -1.
 */
static int
vm_hosts(void)
{
	struct pvmhostinfo	*hi;
	int			 nhost, narch, i, fd[2];
	pid_t			 pid;
	FILE			*f;

	if (pipe2(fd, O_CLOEXEC) == -1)
		return -1;
	if ((pid = fork()) == -1) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid > 0) {
		close(fd[1]);
		return fd[0];
	}
	close(fd[0]);
	if ((getuid() == 0 && getenv("PVM_ALLOW_ROOT") == NULL) ||
	    (f = fdopen(fd[1], "w")) == NULL)
		_exit(0);
	pvm_setopt(PvmRoute, PvmDontRoute);
	if (pvm_setopt(PvmAutoErr, 0) < 0 || pvm_mytid() < 0)
		_exit(0);
	if (pvm_config(&nhost, &narch, &hi) >= 0)
		for (i = 0; i < nhost; i++)
			fprintf(f, "%s %d\n", hi[i].hi_name, hi[i].hi_speed);
	fclose(f);
	pvm_exit();
	_exit(0);
}

/* The helper's lines, once it has written them all: the hosts, asked at
 * once.  Returns the fd, or -1 once it is done. */
static int
hosts_pipe(struct place *p, int fd)
{
	static char	 buf[MSG_MAX];
	static size_t	 len;
	char		 name[PLACE_NAME_LEN], *line, *save;
	ssize_t		 n;
	int		 speed;

	n = read(fd, buf + len, sizeof(buf) - 1 - len);
	if (n > 0) {
		len += (size_t)n;
		if (len < sizeof(buf) - 1)
			return fd;
	} else if (n == -1 && errno == EINTR)
		return fd;
	close(fd);
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%63s %d", name, &speed) == 2)
			(void)hosts_find(&p->pl.t, name, speed);
	hosts_ask(&p->pl.t, NULL, 0);
	return -1;
}

static pid_t
start(char **argv, int fd, const sigset_t *old)
{
	const char	*lib = getenv("DTS_PLACE_LIB"), *pre;
	char		 env[4096], num[16];
	pid_t		 pid;
	int		 cfd;

	if (lib == NULL || *lib == '\0')
		lib = PLACE_LIB;
	if ((pid = fork()) != 0)
		return pid;
	sigprocmask(SIG_SETMASK, old, NULL);
	if ((cfd = dup(fd)) == -1)	/* without FD_CLOEXEC */
		_exit(127);
	snprintf(num, sizeof(num), "%d", cfd);
	pre = getenv("LD_PRELOAD");
	if (pre != NULL && *pre != '\0')
		snprintf(env, sizeof(env), "%s:%s", lib, pre);
	else
		snprintf(env, sizeof(env), "%s", lib);
	if (setenv("LD_PRELOAD", env, 1) == -1 ||
	    setenv("DTS_PLACE_FD", num, 1) == -1)
		_exit(127);
	execvp(argv[0], argv);
	fprintf(stderr, "dts-place: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* Serve until the program ends; its exit status. */
static int
loop(struct place *p, int sfd, int hfd)
{
	struct pollfd		 pf[4];
	struct signalfd_siginfo	 si;
	int64_t			 next = now_mono_ns(), left;
	int			 st, rc;

	for (;;) {
		if (now_mono_ns() >= next) {
			hosts_ask(&p->pl.t, NULL, 0);
			next = now_mono_ns() + p->pl.interval_ns;
		}
		pf[0] = (struct pollfd){ .fd = p->sp, .events = POLLIN };
		pf[1] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		pf[2] = (struct pollfd){ .fd = p->pl.t.fd, .events = POLLIN };
		pf[3] = (struct pollfd){ .fd = hfd, .events = POLLIN };
		left = next - now_mono_ns();
		rc = poll(pf, 4, left > 0 ? (int)(left / NS_PER_MS) + 1 : 0);
		if (rc == -1 && errno != EINTR)
			fatal("poll");
		if (hfd != -1 && (pf[3].revents & (POLLIN | POLLHUP)))
			hfd = hosts_pipe(p, hfd);
		if (pf[2].revents & POLLIN)
			hosts_read(&p->pl.t);
		if (pf[0].revents & POLLIN)
			serve(p);
		if (pf[1].revents & POLLIN && read(sfd, &si, sizeof(si)) ==
		    sizeof(si) && si.ssi_signo != SIGCHLD)
			kill(p->child, (int)si.ssi_signo);
		while ((rc = waitpid(-1, &st, WNOHANG)) > 0)
			if (rc == p->child)
				return WIFEXITED(st) ? WEXITSTATUS(st) :
				    128 + WTERMSIG(st);
	}
}

int
main(int argc, char **argv)
{
	struct opts		 o = { 0 };
	struct dts_conf		 c;
	static struct place	 p;
	struct passwd		*pw;
	sigset_t		 set, old;
	char			 err[512], job[PROTO_JOB_LEN], rec[512];
	int			 sv[2], sfd, hfd, rc;

	parse(argc, argv, &o);
	conf_defaults(&c);
	if (conf_load(&c, o.conf, !o.explicit_conf, err, sizeof(err)) == -1)
		cli_die(1, "%s", err);
	if (o.check) {
		printf("configuration OK\n");
		return 0;
	}
	if (log_init("dts-place", o.log ? LOG_TO_FILE : LOG_TO_STDERR, o.log,
	    o.verbose ? LOG_LVL_DEBUG : LOG_LVL_INFO) == -1)
		cli_die(1, "log file %s: %s", o.log, log_file_why());
	if ((pw = getpwuid(getuid())) == NULL ||
	    job_name_make(job, pw->pw_name, job_label_pick(o.label), err,
	    sizeof(err)) == -1)
		cli_die(1, "job name: %s", pw == NULL ? "who am I?" : err);
	record_path(rec, sizeof(rec), &o, &c);
	if (placer_init(&p.pl, &c, job, rec, 0, err, sizeof(err)) == -1)
		cli_die(1, "%s", err);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1)
		cli_die(1, "socket pair: %s", strerror(errno));
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &old);
	if ((sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) == -1)
		cli_die(1, "signalfd: %s", strerror(errno));
	p.sp = sv[0];
	if ((p.child = start(argv + optind, sv[1], &old)) == -1)
		cli_die(1, "fork: %s", strerror(errno));
	close(sv[1]);
	p.pl.pid = p.child;
	hfd = vm_hosts();	/* while the program starts */
	log_debug("%s: %s (pid %d), job %s, %d host%s known, record %s",
	    __func__, argv[optind], (int)p.child, job, p.pl.t.n,
	    p.pl.t.n == 1 ? "" : "s", p.pl.record);
	rc = loop(&p, sfd, hfd);
	while (serve(&p))	/* what the program said before it ended */
		;
	placer_fini(&p.pl);
	return rc;
}
