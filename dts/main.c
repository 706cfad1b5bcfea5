/*
 * main.c - dts, the DTS Scheduler: a per-node system service started by
 * root.  Start-up in a fixed order, then one event loop (epoll: checked
 * control commands, dead-man timer, adoption socket, signals, Load
 * agent).  The slice edges have a thread of their own (scheduler.c), and so
 * has the UDP socket (intake.c): no datagram and no event costs an edge
 * more than the moment the main thread holds the scheduler's lock.
 *
 *   1. config and key (-n: check and exit), trusted only from root
 *   2. UDP control socket, adoption socket, the gang cgroup subtree,
 *      the state file (state.h)
 *   3. SCHED_FIFO max + mlockall
 *   4. keep only CAP_SYS_NICE and CAP_KILL, not dumpable
 *   5. dts-load at FIFO max-1 (the fail-safe, above the gang)
 *   6. loop: adopt the pvmd a launcher announces, slice the gang.
 *      SIGTERM/SIGINT/SIGHUP release the gang (running, SCHED_OTHER) and
 *      exit; the gang stays in its cgroup and a new dts takes it over.
 *
 * Priorities: dts's edge thread FIFO max, its main and intake threads and
 * dts-load FIFO max-1, pvmd RR max-2, its tasks RR max-3.  The thesis has
 * the agent below pvmd, but the agent is also the fail-safe: below the
 * gang it could not run while the gang spins on every CPU.
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
#include <sys/wait.h>
#include <unistd.h>

#include <sodium.h>

#include "adopt.h"
#include "auth.h"
#include "child.h"
#include "conf.h"
#include "ctl.h"
#include "evfd.h"
#include "gang.h"
#include "log.h"
#include "priv.h"
#include "proc.h"
#include "scheduler.h"
#include "spawn.h"
#include "state.h"
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
#define GANG_PRIO(d)  ((d)->rt_prio - 2)	/* pvmd; its tasks one below */
/* The datagram intake thread: above the gang too, held to a CPU budget
 * (dts/intake.c), at the agent's priority; so is the main thread, below
 * the edges. */
#define INTAKE_PRIO(d) AGENT_PRIO(d)
#define MAIN_PRIO(d)   AGENT_PRIO(d)

struct dts {
	struct dts_conf		 conf;
	const char		*conf_path;
	struct ctl		 ctl;
	struct gang		 gang;
	struct adopt		 adopt;
	struct sched		 sched;
	struct state		 state;		/* map NULL: none */
	struct dts_agent	 agent;
	int			 epfd, sigfd;
	int			 restart_tfd;	/* dts-load after a back-off */
	int			 fix_tfd;	/* every GANG_FIX_NS */
	int			 rt_prio;
	int			 done;
};

static void __attribute__((noreturn))
usage(int rc)
{
	fprintf(rc ? stderr : stdout,
	    "usage: dts [-dnv] [-f file]\n"
	    "       dts -k keyfile\n");
	exit(rc);
}

/*
 * dts cannot start: one line to the log and to stderr, exit 1.
 */
static void __attribute__((noreturn, format(printf, 1, 2)))
die_early(const char *fmt, ...)
{
	char	 msg[512];
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "dts: %s\n", msg);
	fatalx("%s", msg);
}

static void
epoll_add(struct dts *d, int fd, uint32_t events)
{
	if (evfd_watch(d->epfd, fd, events) == -1)
		fatal("epoll_ctl");
}

static void
epoll_del(struct dts *d, int fd)
{
	(void)epoll_ctl(d->epfd, EPOLL_CTL_DEL, fd, NULL);
}

static void agent_backoff(struct dts *);

/*
 * Without its fail-safe the gang must not be left to a dts that might
 * hang: release it until dts-load runs again.
 */
static void
start_agent(struct dts *d)
{
	char	 err[512];

	if (agent_spawn(&d->agent, d->conf.load_agent, d->conf_path,
	    AGENT_PRIO(d), err, sizeof(err)) == -1) {
		log_warnx("dts-load: %s; no fail-safe, so the gang is released "
		    "until it runs", err);
		sched_lock(&d->sched);
		sched_suspend(&d->sched);
		sched_unlock(&d->sched);
		agent_backoff(d);
		return;
	}
	epoll_add(d, d->agent.sock, EPOLLIN);
	sched_lock(&d->sched);
	if (d->sched.suspended) {
		log_info("dts-load runs again: slicing resumes");
		sched_resume(&d->sched);
	}
	sched_unlock(&d->sched);
}

static void
agent_input(struct dts *d)
{
	struct agent_report	 r;
	ssize_t			 n;

	n = recv(d->agent.sock, &r, sizeof(r), MSG_DONTWAIT);
	if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR)) {
		epoll_del(d, d->agent.sock);
		close(d->agent.sock);
		d->agent.sock = -1;
		return;
	}
	if (n == (ssize_t)sizeof(r) && r.magic == AGENT_MAGIC_RELEASED) {
		log_warnx("dts-load released the gang: this dts missed its "
		    "slice edges; slicing again");
		sched_lock(&d->sched);
		sched_regain(&d->sched);
		sched_unlock(&d->sched);
		return;
	}
	if (n != (ssize_t)sizeof(r) || r.magic != AGENT_MAGIC) {
		log_warnx("dts-load: malformed report (%zd bytes)", n);
		return;
	}
	sched_lock(&d->sched);
	sched_load(&d->sched, r.load_milli, r.ls_pct);
	sched_unlock(&d->sched);
	if (r.notify)
		ctl_send_load(&d->ctl, r.load_milli,
		    d->conf.load.per_cpu ? (uint32_t)proc_ncpu() : 1);
}

/* Start dts-load again after a back-off (it is the fail-safe). */
static void
agent_backoff(struct dts *d)
{
	int64_t	 now = now_mono_ns(), delay = AGENT_BACKOFF_MIN;

	if (d->done)
		return;
	if (now - d->agent.started > AGENT_STABLE)
		d->agent.restarts = 0;
	for (unsigned i = 0; i < d->agent.restarts && delay < AGENT_BACKOFF_MAX;
	    i++)
		delay *= 2;
	if (delay > AGENT_BACKOFF_MAX)
		delay = AGENT_BACKOFF_MAX;
	d->agent.restarts++;
	if (evfd_timer_set(d->restart_tfd, delay, 0) == -1)
		log_warn("timerfd_settime");
}

static void
agent_exited(struct dts *d, int status)
{
	if (WIFSIGNALED(status))
		log_warnx("dts-load (pid %d) killed by signal %d",
		    (int)d->agent.pid, WTERMSIG(status));
	else
		log_warnx("dts-load (pid %d) exited with status %d",
		    (int)d->agent.pid, WEXITSTATUS(status));
	d->agent.pid = 0;
	if (d->agent.sock != -1) {
		epoll_del(d, d->agent.sock);
		close(d->agent.sock);
		d->agent.sock = -1;
	}
	agent_backoff(d);
}

static void
agent_restart(struct dts *d)
{
	uint64_t	 n;

	if (read(d->restart_tfd, &n, sizeof(n)) == -1 && errno != EAGAIN)
		log_warn("read restart timer");
	if (d->agent.pid == 0 && !d->done)
		start_agent(d);
}

static void
reap(struct dts *d)
{
	int	 status;
	pid_t	 pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		if (pid == d->agent.pid)
			agent_exited(d, status);
}

static void
signal_input(struct dts *d)
{
	struct signalfd_siginfo	 si;

	while (read(d->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			reap(d);
		} else {
			log_info("signal %d: releasing the gang and exiting",
			    (int)si.ssi_signo);
			d->done = 1;
		}
	}
}

static void
adopt_event(struct dts *d, int fd)
{
	int	 conn, evicted;

	if (fd != d->adopt.fd) {
		/* answered: close() takes it out of epoll */
		(void)adopt_input(&d->adopt, fd);
		return;
	}
	while ((conn = adopt_accept(&d->adopt, &evicted)) != -1) {
		if (evicted != -1) {
			epoll_del(d, evicted);
			close(evicted);
		}
		epoll_add(d, conn, EPOLLIN);
	}
}

static int
is_adopt_conn(const struct dts *d, int fd)
{
	for (int i = 0; i < ADOPT_CONN_MAX; i++)
		if (d->adopt.conn[i] == fd)
			return 1;
	return fd == d->adopt.fd;
}

/* The events that change the gang or the schedule: under its lock. */
static void
locked_event(struct dts *d, int fd)
{
	sched_lock(&d->sched);
	if (fd == ctl_cmd_fd(&d->ctl))
		ctl_input(&d->ctl, &d->sched);
	else if (fd == ctl_deadman_fd(&d->ctl))
		ctl_deadman(&d->ctl, &d->sched);
	else if (is_adopt_conn(d, fd))
		adopt_event(d, fd);
	sched_unlock(&d->sched);
}

/*
 * Tasks pvmd started inherit its priority: down to the tasks' one.  The
 * scan takes no lock (it reads the members, not the scheduler); the lock,
 * which the edge thread needs too, only while something is to change.
 */
static void
fix_prios(struct dts *d)
{
	static struct gang_fix	 fix[GANG_FIX_MAX];
	uint64_t		 u;
	pid_t			 pvmd;
	int			 n, fixed = 0;

	if (read(d->fix_tfd, &u, sizeof(u)) == -1 && errno != EAGAIN)
		log_warn("fix timer");
	n = gang_prio_scan(&d->gang, &pvmd, fix, GANG_FIX_MAX);
	if (n > 0 || pvmd != d->gang.pvmd_pid) {	/* only we write it */
		sched_lock(&d->sched);
		fixed = gang_prio_apply(&d->gang, pvmd, fix, n);
		sched_unlock(&d->sched);
	}
	if (fixed > 0)
		log_debug("gang: %d member(s) to their RT priority", fixed);
	if (evfd_timer_set(d->fix_tfd, GANG_FIX_NS, 0) == -1)
		log_warn("fix timer");
}

/*
 * The agent's news first: after a release by the fail-safe, the phase
 * must be applied again before the next edge relies on our state.
 */
static void
loop(struct dts *d)
{
	struct epoll_event	 ev[16];

	while (!d->done) {
		int n = epoll_wait(d->epfd, ev, 16, -1);

		if (n == -1 && errno != EINTR)
			fatal("epoll_wait");
		for (int i = 0; i < n; i++)
			if (ev[i].data.fd == d->agent.sock)
				agent_input(d);
		for (int i = 0; i < n; i++) {
			int fd = ev[i].data.fd;
			if (fd == d->sigfd)
				signal_input(d);
			else if (fd == d->restart_tfd)
				agent_restart(d);
			else if (fd == d->fix_tfd)
				fix_prios(d);
			else if (fd != d->agent.sock)	/* read above */
				locked_event(d, fd);
		}
	}
}

/* The schedule dts runs before a console speaks, and after one fell silent. */
static struct proto_schedule
own_schedule(const struct dts *d)
{
	struct proto_schedule	 p = {
		.mode = (uint8_t)d->conf.mode,
		.sync = (uint8_t)d->conf.sync,
		.flags = SCHED_F_ACTIVE | SCHED_F_SYNC |
		    (d->conf.ls_policy == LS_IDLE ? SCHED_F_LS_IDLE : 0),
		.ps_us = (uint32_t)(d->conf.ps_ns / NS_PER_US),
		.ip_us = (uint32_t)(d->conf.ip_ns / NS_PER_US),
		.si_us = (uint32_t)(d->conf.si_ns / NS_PER_US),
		.origin_ns = (uint64_t)now_real_ns(),
	};

	return p;
}

static void
initial_schedule(struct dts *d)
{
	struct proto_schedule	 p = own_schedule(d);
	const char		*err;

	if (sched_apply(&d->sched, &p, now_mono_ns(), now_real_ns(),
	    &err) == -1)
		fatalx("configured schedule: %s", err);
	d->sched.own = 1;
}

static void
setup_fds(struct dts *d)
{
	sigset_t	 mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	if ((d->sigfd = evfd_signals(&mask)) == -1)
		fatal("signalfd");
	if ((d->restart_tfd = evfd_timer(CLOCK_MONOTONIC)) == -1 ||
	    (d->fix_tfd = evfd_timer(CLOCK_MONOTONIC)) == -1)
		fatal("timerfd_create");
	if ((d->epfd = epoll_create1(EPOLL_CLOEXEC)) == -1)
		fatal("epoll_create1");
}

/* dts -d: detach from the terminal, as a classic daemon. */
static void
detach(void)
{
	pid_t	 pid = fork();

	if (pid == -1)
		die_early("fork: %s", strerror(errno));
	if (pid > 0)
		_exit(0);
	(void)setsid();
	if (chdir("/") == -1)
		die_early("chdir /: %s", strerror(errno));
	(void)spawn_devnull();
}

static void
start(struct dts *d)
{
	char	 err[512];

	if (gang_setup(&d->gang, d->conf.cgroup, d->conf.backend, GANG_PRIO(d),
	    err, sizeof(err)) == -1)
		die_early("%s", err);
	gang_set_pvmd(&d->gang, conf_pvmd(&d->conf));
	if (adopt_open(&d->adopt, d->conf.socket, &d->conf, &d->gang, err,
	    sizeof(err)) == -1)
		die_early("%s", err);
	if (d->conf.state_file[0] != '\0' && state_open(&d->state,
	    d->conf.state_file, err, sizeof(err)) == -1)
		die_early("%s", err);
	if (priv_rt_self(d->rt_prio) == -1)
		die_early("SCHED_FIFO %d: %s", d->rt_prio, strerror(errno));
	if (agent_shm_create(&d->agent) == -1)
		fatal("agent shared page");
	snprintf(d->agent.shm->gang, sizeof(d->agent.shm->gang), "%s",
	    d->gang.cg);
	if (priv_drop_self() == -1)
		fatal("dropping privileges");
	priv_log_caps("dts");
	if (gang_members(&d->gang) > 0)
		log_info("taking over the gang in %s (%d processes)",
		    d->gang.cg, gang_members(&d->gang));
	log_info("ready: gang %s, backend %s, adoption socket %s, pvmd %s",
	    d->gang.cg, d->gang.be->name, d->conf.socket,
	    conf_pvmd(&d->conf));
}

static void
finish(struct dts *d)
{
	sched_stop(&d->sched);
	sched_release(&d->sched);	/* the state file: phase none */
	state_close(&d->state);
	agent_stop(&d->agent);
	adopt_close(&d->adopt);
	ctl_close(&d->ctl);
	log_info("gang released; exiting");
	log_fini();
}

/*
 * The node's keys: its own (key_file), which authenticates its replies,
 * and the public keys of the consoles it obeys (console_keys).  Without
 * both no datagram could be trusted: no start, unless insecure.
 */
static int
load_keys(const struct dts_conf *c, struct auth_key *k, char *err,
    size_t errlen)
{
	char	 why[256];

	if (auth_key_load(k, c->key_file, why, sizeof(why)) == -1) {
		snprintf(err, errlen, "%s (no key, no start; or set insecure "
		    "= true)", why);
		return -1;
	}
	if (c->console_keys.n == 0) {
		snprintf(err, errlen, "console_keys is empty: this node would "
		    "obey no console (dts-console -k prints a console's public "
		    "key)");
		return -1;
	}
	for (int i = 0; i < c->console_keys.n; i++)
		if (auth_pub_add(k, c->console_keys.s[i], why,
		    sizeof(why)) == -1) {
			snprintf(err, errlen, "console_keys: %s", why);
			return -1;
		}
	return 0;
}

int
main(int argc, char **argv)
{
	static struct dts	 d;
	struct auth_key		 key = { 0 };
	struct proto_schedule	 own;
	char			 err[512];
	int			 ch, check = 0, debug = 0, daemonize = 0;
	int			 explicit_conf = 0;
	const char		*keygen = NULL;

	d.conf_path = SYSCONFDIR "/dts/dts.conf";
	while ((ch = getopt(argc, argv, "df:hk:nvV")) != -1) {
		switch (ch) {
		case 'd': daemonize = 1; break;
		case 'f': d.conf_path = optarg; explicit_conf = 1; break;
		case 'k': keygen = optarg; break;
		case 'n': check = 1; break;
		case 'v': debug = 1; break;
		case 'V': printf("dts %s\n", PACKAGE_VERSION); return 0;
		case 'h': usage(0);
		default: usage(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "dts: unexpected argument \"%s\": dts is a "
		    "service and no longer starts pvmd itself; pvmd asks it "
		    "for adoption through the launch script (see dts(8))\n",
		    argv[optind]);
		return 2;
	}
	if (keygen) {
		if (auth_key_generate(keygen, err, sizeof(err)) == -1) {
			fprintf(stderr, "dts: %s\n", err);
			return 1;
		}
		return 0;
	}
	log_init("dts", debug ? LOG_TO_STDERR : LOG_TO_SYSLOG, NULL,
	    LOG_LVL_INFO);
	if (!check && priv_check_root(err, sizeof(err)) == -1)
		die_early("%s", err);
	conf_defaults(&d.conf);
	if (conf_load_trusted(&d.conf, d.conf_path, !explicit_conf, err,
	    sizeof(err)) == -1)
		die_early("%s", err);
	if (!d.conf.insecure && load_keys(&d.conf, &key, err,
	    sizeof(err)) == -1)
		die_early("%s", err);
	key.insecure = d.conf.insecure;
	if (conf_file_trusted(d.conf.load_agent, "load_agent", 0, err,
	    sizeof(err)) == -1)
		die_early("%s", err);
	if (check) {
		if (debug)	/* -n -v: the configuration in effect */
			conf_print(&d.conf, stdout);
		printf("configuration OK\n");
		return 0;
	}
	if (daemonize)
		detach();
	if (!debug && d.conf.log_file[0] &&
	    log_init("dts", LOG_TO_FILE, d.conf.log_file,
	    d.conf.log_level) == -1)
		die_early("log_file %s: %s", d.conf.log_file, log_file_why());
	log_set_level(debug ? LOG_LVL_DEBUG : d.conf.log_level);

	setup_fds(&d);
	own = own_schedule(&d);
	if (ctl_open(&d.ctl, d.conf.bind, d.conf.port, &key,
	    d.conf.replay_window_ns, d.conf.silence_ns, &own, err,
	    sizeof(err)) == -1)
		die_early("%s", err);
	sodium_memzero(&key, sizeof(key));
	if (d.conf.insecure)
		log_warnx("insecure = true: control datagrams are NOT "
		    "authenticated");
	d.rt_prio = priv_rt_max(d.conf.rt_priority);
	start(&d);
	if (log_async_start() == -1)	/* no RT caller waits for the log */
		fatal("logger thread");
	if (ctl_start(&d.ctl, INTAKE_PRIO(&d)) == -1)
		fatal("intake thread");

	sched_init(&d.sched, &d.gang, d.agent.shm, d.conf.silence_ns);
	if (d.state.map != NULL) {
		d.sched.on_phase = state_hook;
		d.sched.on_phase_arg = &d.state;
	}
	initial_schedule(&d);
	if (sched_start(&d.sched, d.rt_prio) == -1)
		fatal("edge thread");
	if (priv_lower_self(MAIN_PRIO(&d)) == -1)
		log_warn("main thread to FIFO %d", MAIN_PRIO(&d));
	epoll_add(&d, ctl_cmd_fd(&d.ctl), EPOLLIN);
	epoll_add(&d, ctl_deadman_fd(&d.ctl), EPOLLIN);
	epoll_add(&d, d.sigfd, EPOLLIN);
	epoll_add(&d, d.restart_tfd, EPOLLIN);
	epoll_add(&d, d.fix_tfd, EPOLLIN);
	if (evfd_timer_set(d.fix_tfd, GANG_FIX_NS, 0) == -1)
		log_warn("fix timer");
	epoll_add(&d, d.adopt.fd, EPOLLIN);
	start_agent(&d);
	loop(&d);
	finish(&d);
	return 0;
}
