/*
 * main.c - dts, the DTS Scheduler: start-up in a fixed order, then one
 * event loop (epoll: slice timer, control socket, signals, Load agent).
 *
 *   1. config (-n: check and exit), key, log
 *   2. control socket
 *   3. SCHED_FIFO max + mlockall, child subreaper
 *   4. dts-load at FIFO max-1, pvmd leading a new group at RR max-2
 *      (the thesis has them the other way round; see start())
 *   5. keep only CAP_SYS_NICE (+CAP_KILL)
 *   6. loop; when pvmd is gone: continue the gang, end the agent, exit
 *      with pvmd's status.  SIGTERM/SIGINT/SIGHUP release the gang and exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "auth.h"
#include "child.h"
#include "conf.h"
#include "ctl.h"
#include "gang.h"
#include "log.h"
#include "priv.h"
#include "proc.h"
#include "sched.h"
#include "timeutil.h"

#define AGENT_BACKOFF_MIN (100 * NS_PER_MS)   /* first restart delay */
#define AGENT_BACKOFF_MAX (10 * NS_PER_SEC)   /* doubling up to this */
#define AGENT_STABLE      (10 * NS_PER_SEC)   /* lived this long: reset */

/*
 * Priorities.  The thesis puts pvmd at max-1 and the Load agent at max-2.
 * But the agent is also the kill -9 fail-safe: below the gang it cannot
 * run while as many gang members as CPUs spin in a PS, and RT throttling
 * does not help (it throttles the agent too), so a dts killed in a PS
 * would leave the gang at RT priority for good.  The agent sleeps almost
 * always, so above the gang it costs the gang nothing.
 */
#define AGENT_PRIO(d) ((d)->rt_prio - 1)
#define GANG_PRIO(d)  ((d)->rt_prio - 2)

struct dts {
	struct dts_conf conf;
	const char *conf_path;
	struct priv_user user;
	struct ctl ctl;
	struct gang gang;
	struct sched sched;
	struct agent agent;
	int   epfd, sigfd, timerfd;
	int   restart_tfd;      /* restarts dts-load after a back-off */
	int   rt_prio;
	pid_t pvmd_first;       /* the process we forked */
	int   slave;            /* started with -s/-S: pvmd will fork */
	pid_t pvmd;             /* the daemon we track */
	int   pvmd_status;
	int   done;
};

static void __attribute__((noreturn))
usage(int rc)
{
	fprintf(rc ? stderr : stdout,
	    "usage: dts [-dnV] [-f file] [-k keyfile] [-- pvmd-arguments ...]\n");
	exit(rc);
}

/*
 * dts cannot start at all (before pvmd runs): one line to the log and to
 * stderr.  Under PVM nothing else will use that stderr now, and pvmd'
 * logs the line as "stderr@host", which tells the administrator why.
 */
static void __attribute__((noreturn, format(printf, 1, 2)))
die_early(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "dts: %s\n", msg);
	fatalx("%s", msg);
}

static void
epoll_add(struct dts *d, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		fatal("epoll_ctl");
}

static void
start_agent(struct dts *d)
{
	if (agent_spawn(&d->agent, d->conf.load_agent, d->conf_path, &d->user,
	    AGENT_PRIO(d)) < 0) {
		log_warn("cannot start %s", d->conf.load_agent);
		return;
	}
	epoll_add(d, d->agent.sock);
}

static void
agent_input(struct dts *d)
{
	struct agent_report r;
	ssize_t n = recv(d->agent.sock, &r, sizeof(r), MSG_DONTWAIT);

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		epoll_ctl(d->epfd, EPOLL_CTL_DEL, d->agent.sock, NULL);
		close(d->agent.sock);
		d->agent.sock = -1;
		return;
	}
	if (n != sizeof(r) || r.magic != AGENT_MAGIC) {
		log_warnx("dts-load: malformed report (%zd bytes)", n);
		return;
	}
	sched_load(&d->sched, r.load_milli, r.ls_pct);
	if (r.notify)
		ctl_send_load(&d->ctl, r.load_milli,
		    d->conf.load.per_cpu ? (uint32_t)proc_ncpu() : 1);
}

/* dts-load ended: start a new one after a back-off (it is the fail-safe). */
static void
agent_exited(struct dts *d, int status)
{
	int64_t now = now_mono_ns(), delay = AGENT_BACKOFF_MIN;
	struct itimerspec its = { 0 };

	log_warnx("dts-load (pid %d) ended with status %d", (int)d->agent.pid, status);
	d->agent.pid = 0;
	if (d->agent.sock >= 0) {
		epoll_ctl(d->epfd, EPOLL_CTL_DEL, d->agent.sock, NULL);
		close(d->agent.sock);
		d->agent.sock = -1;
	}
	if (d->done)
		return;
	if (now - d->agent.started > AGENT_STABLE)
		d->agent.restarts = 0;
	for (unsigned i = 0; i < d->agent.restarts && delay < AGENT_BACKOFF_MAX; i++)
		delay *= 2;
	if (delay > AGENT_BACKOFF_MAX)
		delay = AGENT_BACKOFF_MAX;
	d->agent.restarts++;
	its.it_value = ns_to_ts(delay);
	if (timerfd_settime(d->restart_tfd, 0, &its, NULL) < 0)
		log_warn("timerfd_settime");
}

static void
agent_restart(struct dts *d)
{
	uint64_t n;

	if (read(d->restart_tfd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		log_warn("read restart timer");
	if (d->agent.pid == 0 && !d->done)
		start_agent(d);
}

static void
pvmd_exited(struct dts *d, pid_t pid, int status)
{
	pid_t daemon;

	if (d->slave && pid == d->pvmd_first && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0 &&
	    (daemon = pvmd_find_daemon(d->gang.pgid, d->conf.pvmd)) > 0) {
		/* a slave pvmd forked: follow the daemon */
		log_info("pvmd forked: tracking daemon pid %d", (int)daemon);
		d->pvmd = daemon;
		gang_attach(&d->gang, d->gang.pgid);	/* the daemon too */
		return;
	}
	if (WIFSIGNALED(status))
		log_info("pvmd (pid %d) killed by signal %d", (int)pid, WTERMSIG(status));
	else
		log_info("pvmd (pid %d) exited with status %d", (int)pid,
		    WEXITSTATUS(status));
	d->pvmd_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	d->done = 1;
}

static void
reap(struct dts *d)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (pid == d->agent.pid)
			agent_exited(d, status);
		else if (pid == d->pvmd)
			pvmd_exited(d, pid, status);
		/* else: an orphaned PVM task, reparented to us */
	}
}

static void
signal_input(struct dts *d)
{
	struct signalfd_siginfo si;

	while (read(d->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			reap(d);
		} else {
			log_info("signal %d: releasing the gang and exiting",
			    (int)si.ssi_signo);
			d->pvmd_status = 0;
			d->done = 1;
		}
	}
}

static void
loop(struct dts *d)
{
	struct epoll_event ev[8];

	while (!d->done) {
		int n = epoll_wait(d->epfd, ev, 8, -1);

		if (n < 0 && errno != EINTR)
			fatal("epoll_wait");
		for (int i = 0; i < n; i++) {
			int fd = ev[i].data.fd;
			if (fd == d->timerfd)
				sched_timer(&d->sched);
			else if (fd == d->ctl.fd)
				ctl_input(&d->ctl, &d->sched);
			else if (fd == d->sigfd)
				signal_input(d);
			else if (fd == d->agent.sock)
				agent_input(d);
			else if (fd == d->restart_tfd)
				agent_restart(d);
		}
	}
}

/* The schedule dts runs before any console speaks. */
static void
initial_schedule(struct dts *d)
{
	struct proto_schedule p = {
		.mode = (uint8_t)d->conf.mode,
		.sync = (uint8_t)d->conf.sync,
		.flags = SCHED_F_ACTIVE | SCHED_F_SYNC,
		.ps_us = (uint32_t)(d->conf.ps_ns / NS_PER_US),
		.ip_us = (uint32_t)(d->conf.ip_ns / NS_PER_US),
		.si_us = (uint32_t)(d->conf.si_ns / NS_PER_US),
		.origin_ns = (uint64_t)now_real_ns(),
	};
	const char *err;

	if (sched_apply(&d->sched, &p, now_mono_ns(), now_real_ns(), &err) < 0)
		fatalx("configured schedule: %s", err);
}

static void
setup_fds(struct dts *d)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	if ((d->sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC)) < 0)
		fatal("signalfd");
	d->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	d->restart_tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (d->timerfd < 0 || d->restart_tfd < 0)
		fatal("timerfd_create");
	if ((d->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0)
		fatal("epoll_create1");
}

/* stdin/stdout/stderr belong to pvmd and PVM: let go of them. */
static void
release_stdio(void)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (null < 0)
		return;
	for (int fd = 0; fd <= 2; fd++)
		dup2(null, fd);	/* dup2 clears CLOEXEC on the copy */
	if (null > 2)
		close(null);
}

static void
start(struct dts *d, char **pvmd_args, int nargs)
{
	char **argv = calloc((size_t)nargs + 2, sizeof(*argv));

	if (argv == NULL)
		fatal("calloc");
	argv[0] = d->conf.pvmd;
	for (int i = 0; i < nargs; i++) {
		argv[i + 1] = pvmd_args[i];
		if (strcmp(pvmd_args[i], "-s") == 0 || strcmp(pvmd_args[i], "-S") == 0)
			d->slave = 1;
	}

	d->rt_prio = priv_rt_max(d->conf.rt_priority);
	if (priv_rt_self(d->rt_prio) < 0)
		fatal("SCHED_FIFO %d (dts needs root or CAP_SYS_NICE)", d->rt_prio);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		fatal("PR_SET_CHILD_SUBREAPER");
	if (agent_shm_create(&d->agent) < 0)
		fatal("agent shared page");
	start_agent(d);

	if (gang_prepare(&d->gang, d->conf.backend, GANG_PRIO(d)) < 0)
		fatalx("gang backend %s failed",
		    d->conf.backend == BACKEND_FREEZER ? "freezer" : "signal");
	d->pvmd_first = d->pvmd = pvmd_spawn(d->conf.pvmd, argv, &d->user,
	    GANG_PRIO(d), gang_join_dir(&d->gang));
	if (d->pvmd < 0)
		fatal("fork pvmd");
	free(argv);
	release_stdio();
	log_info("pvmd %s started, pid %d, process group %d, SCHED_RR %d, user %s",
	    d->conf.pvmd, (int)d->pvmd, (int)d->pvmd, GANG_PRIO(d), d->user.name);

	if (gang_attach(&d->gang, d->pvmd) < 0)
		fatalx("gang backend %s failed to attach", d->gang.be->name);
	d->agent.shm->pgid = d->gang.pgid;
	if (d->conf.backend == BACKEND_FREEZER) {
		/* the agent thaws the gang if dts is killed */
		char path[sizeof(d->gang.cgroup) + 16];
		snprintf(path, sizeof(path), "%s/cgroup.freeze", d->gang.cgroup);
		if (chown(path, d->user.uid, d->user.gid) < 0)
			log_warn("chown %s", path);
		snprintf(d->agent.shm->freezer, sizeof(d->agent.shm->freezer),
		    "%s", d->gang.cgroup);
	}

	struct priv_user self = d->user;
	if (d->conf.backend == BACKEND_FREEZER)
		self.uid = 0, self.gid = 0;	/* keeps writing root's cgroup */
	if (priv_drop_self(&self, d->user.uid) < 0)
		fatal("dropping privileges");
	priv_log_caps("dts");
}

static void
finish(struct dts *d)
{
	sched_release(&d->sched);
	agent_stop(&d->agent);
	ctl_close(&d->ctl);
	log_info("gang %d released; exiting with status %d", (int)d->gang.pgid,
	    d->pvmd_status);
	log_fini();
}

int
main(int argc, char **argv)
{
	static struct dts d;
	char err[512];
	int ch, check = 0, debug = 0, explicit_conf = 0;
	const char *keygen = NULL;

	d.conf_path = SYSCONFDIR "/dts/dts.conf";
	while ((ch = getopt(argc, argv, "+df:hk:nV")) != -1) {
		switch (ch) {
		case 'd': debug = 1; break;
		case 'f': d.conf_path = optarg; explicit_conf = 1; break;
		case 'k': keygen = optarg; break;
		case 'n': check = 1; break;
		case 'V': printf("dts %s\n", PACKAGE_VERSION); return 0;
		case 'h': usage(0);
		default: usage(2);
		}
	}
	if (keygen) {
		if (auth_key_generate(keygen, err, sizeof(err)) < 0) {
			fprintf(stderr, "dts: %s\n", err);
			return 1;
		}
		return 0;
	}
	log_init("dts", debug ? LOG_TO_STDERR : LOG_TO_SYSLOG, NULL, LOG_LVL_INFO);
	conf_defaults(&d.conf);
	if (conf_load(&d.conf, d.conf_path, !explicit_conf, err, sizeof(err)) < 0)
		die_early("%s", err);
	if (!d.conf.insecure &&
	    auth_key_load(&d.ctl.key, d.conf.key_file, err, sizeof(err)) < 0)
		die_early("%s (no key, no start; or set insecure = true)", err);
	d.ctl.key.insecure = d.conf.insecure;
	if (priv_user_lookup(d.conf.user, &d.user, err, sizeof(err)) < 0)
		die_early("%s", err);
	if (check) {
		printf("configuration OK\n");
		return 0;
	}
	if (!debug && d.conf.log_file[0] &&
	    log_init("dts", LOG_TO_FILE, d.conf.log_file, d.conf.log_level) < 0)
		die_early("log file %s: %s", d.conf.log_file, strerror(errno));
	log_set_level(debug ? LOG_LVL_DEBUG : d.conf.log_level);

	setup_fds(&d);
	if (ctl_open(&d.ctl, d.conf.bind, d.conf.port, d.conf.replay_window_ns,
	    err, sizeof(err)) < 0)
		die_early("%s", err);
	if (d.conf.insecure)
		log_warnx("insecure = true: control datagrams are NOT authenticated");
	start(&d, argv + optind, argc - optind);

	sched_init(&d.sched, &d.gang, d.agent.shm, d.timerfd, d.conf.silence_ns);
	initial_schedule(&d);
	epoll_add(&d, d.timerfd);
	epoll_add(&d, d.ctl.fd);
	epoll_add(&d, d.sigfd);
	epoll_add(&d, d.restart_tfd);
	reap(&d);	/* pvmd may already have failed */
	loop(&d);
	finish(&d);
	return d.pvmd_status;
}
