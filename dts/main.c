/*
 * main.c - dts, the DTS Scheduler: a per-node system service started by
 * root.  Start-up in a fixed order, then one event loop (epoll: checked
 * control commands, dead-man timer, adoption socket, signals, Load
 * agent).  The slice edges have a thread of their own (scheduler.c), and so
 * has the UDP socket (intake.c): no datagram and no event costs an edge
 * more than the moment the main thread holds the scheduler's lock.
 *
 *   1. config and key (-n: check and exit), trusted only from root
 *   2. UDP control socket, adoption socket, the cgroup subtree (one
 *      cgroup a job below it: jobs.h), the state file (state.h)
 *   3. SCHED_FIFO max + mlockall
 *   4. keep only CAP_SYS_NICE and CAP_KILL, not dumpable
 *   5. dts-load at FIFO max-1 (the fail-safe, above the gang)
 *   6. loop: adopt the pvmd a launcher announces into its job's gang
 *      (a new job: a new gang), slice the gangs, end a job whose gang
 *      emptied (the 1 s scan).  SIGTERM/SIGINT/SIGHUP release every gang
 *      (running, SCHED_OTHER) and exit; the gangs stay in their cgroups
 *      and a new dts takes the jobs over.
 *
 * Priorities: dts's edge thread FIFO max, its main and intake threads and
 * dts-load FIFO max-1, pvmd RR max-2, its tasks RR max-3.  The thesis has
 * the agent below pvmd, but the agent is also the fail-safe: below the
 * gang it could not run while the gang spins on every CPU.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "adopt.h"
#include "auth.h"
#include "child.h"
#include "conf.h"
#include "ctl.h"
#include "daemonpipe.h"
#include "evfd.h"
#include "gang.h"
#include "jobs.h"
#include "log.h"
#include "priv.h"
#include "proc.h"
#include "scheduler.h"
#include "spawn.h"
#include "state.h"
#include "timeutil.h"
#include "users.h"

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
	struct jobs		 jobs;		/* one gang a job */
	struct adopt		 adopt;
	struct sched		 sched;
	struct state		 state;		/* map NULL: none */
	struct dts_agent	 agent;
	int			 epfd, sigfd;
	int			 restart_tfd;	/* dts-load after a back-off */
	int			 fix_tfd;	/* every GANG_FIX_NS */
	int			 rt_prio;
	unsigned		 jobs_told;	/* jobs.changes the master heard of */
	int			 done;
};

/*
 * dts -d: the pipe to the parent, which waits until this dts slices
 * ("ready") or says why it cannot (any other line); -1 once ready, and
 * without -d.
 */
static int ready_fd = -1;
#define READY_WAIT_S	60	/* the parent gives up after this */
#define SLICING_WAIT_MS	1000	/* the first edge, after start-up */

static void __attribute__((noreturn))
usage(int rc)
{
	fprintf(rc ? stderr : stdout,
	    "usage: dts [-dnv] [-f file]\n"
	    "       dts -k keyfile\n");
	exit(rc);
}

/* One line for the user: on stderr, or with -d to the waiting parent. */
static void
tell_user(const char *msg)
{
	if (ready_fd != -1)
		(void)dprintf(ready_fd, "%s\n", msg);
	else
		fprintf(stderr, "dts: %s\n", msg);
}

/*
 * dts cannot start: one line to the log and to stderr (with -d, the
 * parent's), exit 1.
 */
static void __attribute__((noreturn, format(printf, 1, 2)))
die_early(const char *fmt, ...)
{
	char	 msg[512];
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tell_user(msg);
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
	if (!d->done) {
		log_warnx("no fail-safe, so the gang is released until dts-load "
		    "runs again");
		sched_lock(&d->sched);
		sched_suspend(&d->sched);
		sched_unlock(&d->sched);
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

/*
 * The events that change the gang or the schedule: under its lock.  The
 * adoption socket takes the lock itself, around the move into the gang
 * alone (its names, NSS, and its log lines stay outside: adopt.c).
 */
static void
locked_event(struct dts *d, int fd)
{
	if (adopt_owns(&d->adopt, fd)) {
		adopt_event(&d->adopt, fd);
		return;
	}
	sched_lock(&d->sched);
	if (fd == ctl_cmd_fd(&d->ctl))
		ctl_input(&d->ctl, &d->sched);
	else if (fd == ctl_deadman_fd(&d->ctl))
		ctl_deadman(&d->ctl, &d->sched);
	sched_unlock(&d->sched);
}

/*
 * Every GANG_FIX_NS (1 s): a job whose gang emptied ends (its cgroup
 * removed: within a second of its last process), and tasks pvmd started,
 * which inherit its priority, go down to the tasks' one.  The scans take
 * no lock (they read the members, not the scheduler); the lock, which
 * the edge thread needs too, only while something is to change.
 */
static void
every_second(struct dts *d)
{
	uint64_t	 u;

	if (read(d->fix_tfd, &u, sizeof(u)) == -1 && errno != EAGAIN)
		log_warn("fix timer");
	jobs_reap(&d->jobs);
	jobs_check_memory(&d->jobs);
	jobs_fix_prios(&d->jobs);
	if (evfd_timer_set(d->fix_tfd, GANG_FIX_NS, 0) == -1)
		log_warn("fix timer");
}

/* The on_phase hook: the node's state file and every job's. */
static void
phase_hook(void *arg, const struct sched *s)
{
	struct dts	*d = arg;

	if (d->state.map != NULL)
		state_hook(&d->state, s);
	jobs_state_hook(&d->jobs, s);
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
				every_second(d);
			else if (fd == jobs_fd(&d->jobs))
				jobs_event(&d->jobs);
			else if (fd != d->agent.sock)	/* read above */
				locked_event(d, fd);
		}
		/* a job came or went: the master hears of it now */
		if (d->jobs.changes != d->jobs_told &&
		    ctl_push_status(&d->ctl, &d->sched) == 0)
			d->jobs_told = d->jobs.changes;
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
		die_early("configured schedule: %s", err);
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
		die_early("signalfd: %s", strerror(errno));
	if ((d->restart_tfd = evfd_timer(CLOCK_MONOTONIC)) == -1 ||
	    (d->fix_tfd = evfd_timer(CLOCK_MONOTONIC)) == -1)
		die_early("timerfd_create: %s", strerror(errno));
	if ((d->epfd = epoll_create1(EPOLL_CLOEXEC)) == -1)
		die_early("epoll_create1: %s", strerror(errno));
}

/*
 * dts -d: detach from the terminal before anything is set up (sockets,
 * cgroups, threads belong to the daemon), but keep a pipe to the parent,
 * which exits only when this dts slices (0) or has failed (1, with the
 * reason on its stderr).  The child's own stdio is /dev/null at once, so
 * that nothing waits for it to close them ($(dts -d)).
 */
static void
detach(void)
{
	if ((ready_fd = daemonpipe_detach("dts", READY_WAIT_S,
	    "slicing")) == -1)
		die_early("detach: %s", strerror(errno));
}

/*
 * Ready: the configured schedule runs (the first edge made, for a mode
 * that slices) and dts-load, the fail-safe, runs.  NULL, or why not.
 */
static const char *
slicing(struct dts *d)
{
	struct timespec	 ms = { 0, NS_PER_MS };
	int		 ok = 0, suspended = 0;

	for (int i = 0; i < SLICING_WAIT_MS && !ok && !suspended; i++) {
		if (i > 0)
			(void)nanosleep(&ms, NULL);
		sched_lock(&d->sched);
		suspended = d->sched.suspended;
		ok = d->sched.slicing || d->sched.mode == MODE_OFF ||
		    d->sched.mode == MODE_HPDT;
		sched_unlock(&d->sched);
	}
	if (suspended)
		return "dts-load, the fail-safe, did not start, so the gang "
		    "is not sliced (see the log)";
	return ok ? NULL : "no slice edge within 1 s of start-up";
}

/*
 * systemd's Type=notify (dts.service): "READY=1" to $NOTIFY_SOCKET, a
 * datagram socket (a path, or '@' for the abstract namespace).  Without
 * the variable, nothing.
 */
static void
notify_systemd(const char *msg)
{
	const char		*path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un	 sun = { .sun_family = AF_UNIX };
	size_t			 len;
	int			 fd;

	if (path == NULL || (path[0] != '/' && path[0] != '@') ||
	    (len = strlen(path)) >= sizeof(sun.sun_path))
		return;
	memcpy(sun.sun_path, path, len);
	if (sun.sun_path[0] == '@')
		sun.sun_path[0] = '\0';
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1) {
		log_warn("NOTIFY_SOCKET");
		return;
	}
	if (sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&sun,
	    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) == -1)
		log_warn("NOTIFY_SOCKET %s", path);
	close(fd);
}

/*
 * The end of start-up.  For dts -d, tell the parent (and with it the
 * shell) whether this dts slices, and for systemd (Type=notify) send
 * READY=1 once it does; then nothing more goes to either.  -1 if a dts
 * that someone waits for does not slice (it then exits); in the
 * foreground without systemd nobody waits, and dts goes on as always
 * (dts-load is started again after a back-off).
 */
static int
report_ready(struct dts *d)
{
	const char	*why;
	int		 systemd = getenv("NOTIFY_SOCKET") != NULL;

	if (ready_fd == -1 && !systemd)
		return 0;
	if ((why = slicing(d)) != NULL) {
		log_warnx("%s: exiting", why);
		tell_user(why);
	} else if (ready_fd != -1)
		daemonpipe_say(ready_fd, DAEMONPIPE_READY);
	if (why == NULL && systemd)
		notify_systemd("READY=1");
	if (ready_fd != -1)
		close(ready_fd);
	ready_fd = -1;
	return why != NULL ? -1 : 0;
}

static void
start(struct dts *d)
{
	char	 err[512];

	if (jobs_setup(&d->jobs, &d->conf, GANG_PRIO(d), err,
	    sizeof(err)) == -1)
		die_early("%s", err);
	if (adopt_open(&d->adopt, d->conf.socket, &d->conf, &d->jobs, err,
	    sizeof(err)) == -1)
		die_early("%s", err);
	if (d->conf.state_file[0] != '\0' && state_open(&d->state,
	    d->conf.state_file, err, sizeof(err)) == -1)
		die_early("%s", err);
	if (priv_rt_self(d->rt_prio) == -1)
		die_early("SCHED_FIFO %d: %s", d->rt_prio, strerror(errno));
	if (agent_shm_create(&d->agent) == -1)
		die_early("agent shared page: %s", strerror(errno));
	/* the subtree: dts-load's fail-safe releases every job below it */
	snprintf(d->agent.shm->gang, sizeof(d->agent.shm->gang), "%s",
	    d->jobs.tmpl.base);
	if (priv_drop_self() == -1)
		die_early("dropping privileges: %s", strerror(errno));
	priv_log_caps("dts");
	if (users_missing_groups(&d->conf.users, err, sizeof(err)) > 0)
		log_warnx("users: no group %s on this machine: only root and "
		    "the users listed by name may start a gang", err);
	log_info("ready: jobs in %s/%s*, at most %d (%d a user), PS shared "
	    "by %s, backend %s, adoption socket %s, pvmd %s",
	    d->jobs.tmpl.jobs, CG_JOB_PREFIX, d->conf.max_jobs,
	    conf_jobs_user(&d->conf), conf_share_names[d->conf.share],
	    d->jobs.tmpl.be->name, d->conf.socket, conf_pvmd(&d->conf));
}

static void
finish(struct dts *d)
{
	sched_stop(&d->sched);
	sched_release(&d->sched);	/* the state files: phase none */
	state_close(&d->state);
	jobs_close(&d->jobs);
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
	int			 explicit_conf = 0, joined;
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
	key.reads = d.conf.read_requests;	/* auth.h: STATUS/JOB only */
	if (conf_file_trusted(d.conf.load_agent, "load_agent", 0, err,
	    sizeof(err)) == -1)
		die_early("%s", err);
	if (users_missing_groups(&d.conf.users, err, sizeof(err)) > 0 &&
	    check)
		fprintf(stderr, "dts: warning: users: no group %s on this "
		    "machine: only root and the users listed by name may start "
		    "a gang (addgroup --system NAME)\n", err);
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
	    sizeof(err)) == -1 ||
	    (joined = ctl_join(&d.ctl, d.conf.group, err, sizeof(err))) == -1)
		die_early("%s", err);
	if (d.conf.port >= conf_unprivileged_port_start())
		log_warnx("port %d: any local user may bind this port (only "
		    "root may bind one below %d): one who takes it first "
		    "keeps dts from starting (dts(8) SECURITY)", d.conf.port,
		    conf_unprivileged_port_start());
	if (joined > 0)
		log_info("joined multicast group %s on the control socket "
		    "(%d interface%s)", d.conf.group, joined,
		    joined == 1 ? "" : "s");
	sodium_memzero(&key, sizeof(key));
	if (d.conf.insecure)
		log_warnx("insecure = true: control datagrams are NOT "
		    "authenticated");
	d.rt_prio = priv_rt_max(d.conf.rt_priority);
	start(&d);
	if (log_async_start() == -1)	/* no RT caller waits for the log */
		fatal("logger thread");
	if (ctl_start(&d.ctl, INTAKE_PRIO(&d)) == -1)
		die_early("intake thread: %s", strerror(errno));

	sched_init(&d.sched, d.agent.shm, d.conf.silence_ns);
	d.sched.max_jobs = d.conf.max_jobs;
	sched_set_share(&d.sched, d.conf.share == SHARE_JOB,
	    &d.conf.user_weights);
	jobs_attach(&d.jobs, &d.sched);
	jobs_takeover(&d.jobs);	/* a dts before this one left them */
	d.sched.on_phase = phase_hook;
	d.sched.on_phase_arg = &d;
	initial_schedule(&d);
	if (sched_start(&d.sched, d.rt_prio) == -1)
		die_early("edge thread: %s", strerror(errno));
	if (priv_lower_self(MAIN_PRIO(&d)) == -1)
		log_warn("main thread to FIFO %d", MAIN_PRIO(&d));
	epoll_add(&d, ctl_cmd_fd(&d.ctl), EPOLLIN);
	epoll_add(&d, ctl_deadman_fd(&d.ctl), EPOLLIN);
	epoll_add(&d, d.sigfd, EPOLLIN);
	epoll_add(&d, d.restart_tfd, EPOLLIN);
	epoll_add(&d, d.fix_tfd, EPOLLIN);
	if (jobs_fd(&d.jobs) != -1)
		epoll_add(&d, jobs_fd(&d.jobs), EPOLLIN);
	if (evfd_timer_set(d.fix_tfd, GANG_FIX_NS, 0) == -1)
		log_warn("fix timer");
	if (adopt_start(&d.adopt, d.epfd, &d.sched) == -1)
		fatal("adoption socket: epoll");
	start_agent(&d);
	if (report_ready(&d) == -1) {	/* dts -d, not slicing: leave */
		finish(&d);
		return 1;
	}
	loop(&d);
	finish(&d);
	return 0;
}
