/*
 * main.c - dts-master, the cluster's master daemon (dts-master(8)).
 *
 *   1. options, dts.conf's console section, the key pair, the UDP
 *      socket, the peer of a master and standby pair, the control socket
 *   2. -d: detach through the daemon pipe (daemonpipe.h); the parent
 *      exits once the start-up commands (-c) have run, with their status
 *   3. one event loop (poll): the nodes' UDP socket, the peer's, the
 *      control socket and its clients, a timerfd for the master's
 *      deadlines, a signalfd
 *
 * The engine is the console's master loop (master.h, standby.h), with
 * no PVM, no readline and no terminal: dts-console is its client
 * (ctl.h), and the PVM commands are the users' own consoles'.
 */
#include <sys/signalfd.h>

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmds.h"
#include "console.h"
#include "ctl.h"
#include "daemonpipe.h"
#include "evfd.h"
#include "log.h"
#include "script.h"
#include "timeutil.h"

#define READY_WAIT_S	10	/* -d: the parent waits this long at most */

struct opts {
	const char	*conf;
	int		 explicit_conf;
	int		 daemonize;	/* -d */
	int		 check;		/* -n */
	int		 debug;		/* -v */
	int		 standby;	/* -S, --standby */
	int		 stop_on_error;	/* -e */
};

static struct {
	struct console	 c;
	struct script	 s;
	struct ctl	 ctl;
	int		 sigfd, timerfd;
	int64_t		 armed;		/* the timer's deadline (0: disarmed,
					   INT64_MIN: fired since) */
	int		 ready_fd;	/* -d: the pipe to the parent, or -1 */
	int		 daemonize;	/* -d, not yet detached */
} g;

static void __attribute__((noreturn))
usage(int rc)
{
	fprintf(rc ? stderr : stdout, "usage: dts-master [-denSvV] [-f file] "
	    "[-c commands]\n");
	exit(rc);
}

static void
parse(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "standby", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int	 ch;

	o->conf = SYSCONFDIR "/dts/dts.conf";
	while ((ch = getopt_long(argc, argv, "c:def:hnSvV", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'c':
			if (script_add_string(&g.s, optarg) == -1)
				fatalx("out of memory");
			break;
		case 'd': o->daemonize = 1; break;
		case 'e': o->stop_on_error = 1; break;
		case 'f': o->conf = optarg; o->explicit_conf = 1; break;
		case 'n': o->check = 1; break;
		case 'S': o->standby = 1; break;
		case 'v': o->debug = 1; break;
		case 'V': printf("dts-master %s\n", PACKAGE_VERSION); exit(0);
		case 'h': usage(0);
		default: usage(2);
		}
	}
	if (optind != argc)
		usage(2);
	g.s.stop_on_error = o->stop_on_error;
}

/* dts-master cannot start: one line to the user (or the waiting parent)
 * and the log, exit 1. */
static void __attribute__((noreturn))
die(const char *msg)
{
	if (g.ready_fd != -1)
		daemonpipe_say(g.ready_fd, msg);
	else
		fprintf(stderr, "dts-master: %s\n", msg);
	fatalx("%s", msg);
}

static void
notice(const char *msg)
{
	log_info("%s", msg);
}

static void
setup_fds(void)
{
	sigset_t	 mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR1);
	if ((g.sigfd = evfd_signals(&mask)) == -1)
		die("signalfd");
	if ((g.timerfd = evfd_timer(CLOCK_MONOTONIC)) == -1)
		die("timerfd_create");
}

static void
signals(struct console *c)
{
	struct signalfd_siginfo	 si;

	while (read(g.sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGUSR1) {	/* a standby: take over */
			if (standby_following(&c->sb) &&
			    standby_take(&c->sb, "SIGUSR1", now_mono_ns()) < 0)
				log_warnx("%s", c->out.err);
		} else
			c->quit = 1;
	}
}

static void
arm_timer(struct console *c)
{
	int64_t	 t = master_deadline(&c->e);

	if (t == g.armed)
		return;
	g.armed = t;
	if (evfd_timer_set(g.timerfd, t == 0 ? 0 : (t > 0 ? t : 1), 1) == -1)
		log_warn("timerfd_settime");
}

/*
 * The start-up commands have run (their output and errors on the
 * terminal): with -d, detach now; a failed one ends dts-master with 1.
 */
static void
started(void)
{
	char	 pid[64];

	if (!g.daemonize)
		return;
	if (g.s.failures > 0)
		die("a start-up command failed: not detaching");
	if ((g.ready_fd = daemonpipe_detach("dts-master", READY_WAIT_S,
	    "detached")) == -1)
		die(strerror(errno));
	snprintf(pid, sizeof(pid), "+running in the background, pid %d",
	    (int)getpid());
	daemonpipe_say(g.ready_fd, pid);
	daemonpipe_ready(&g.ready_fd);
	g.daemonize = 0;
}

/* A control socket's command: the console's command table. */
static int
run_line(void *arg, const char *line)
{
	return cmds_exec(arg, line);
}

/* The start-up commands (-c): run, and log each failure. */
static void
script_step(struct console *c)
{
	int	 rc;

	script_run(&g.s, c);
	if (master_done(&c->e, &rc))
		script_finished(&g.s, c, rc);
}

static void
loop(struct console *c)
{
	struct pollfd	 p[5 + CTL_CLIENTS + 1];
	uint64_t	 exp;
	int		 n, boot = 1;

	for (;;) {
		if (boot) {
			script_step(c);
			if (script_done(&g.s) && !master_busy(&c->e)) {
				boot = 0;
				if (g.s.failures > 0 && g.s.stop_on_error)
					c->quit = 1;
				else
					started();
			}
		}
		if (!boot)
			ctl_run(&g.ctl, &c->e, run_line, c, now_mono_ns());
		if (c->quit)
			break;
		arm_timer(c);
		p[0] = (struct pollfd){ c->net.fd, POLLIN, 0 };
		p[1] = (struct pollfd){ g.timerfd, POLLIN, 0 };
		p[2] = (struct pollfd){ g.sigfd, POLLIN, 0 };
		p[3] = (struct pollfd){ c->sb.fd, POLLIN, 0 };
		n = 4 + ctl_pollfds(&g.ctl, p + 4);
		if (poll(p, (nfds_t)n, -1) == -1 && errno != EINTR)
			fatal("poll");
		if (p[2].revents & POLLIN)
			signals(c);
		if ((p[0].revents & POLLIN) &&
		    master_input(&c->e, now_mono_ns()) >= MASTER_FLOW)
			(void)nanosleep(&(struct timespec){ .tv_nsec =
			    MASTER_FLOW_WAIT_NS }, NULL);
		if (p[3].revents & POLLIN)
			standby_input(&c->sb, now_mono_ns());
		if (p[1].revents & POLLIN) {
			if (read(g.timerfd, &exp, sizeof(exp)) == -1 &&
			    errno != EAGAIN)
				log_warn("timerfd");
			g.armed = INT64_MIN;
		}
		master_timer(&c->e, now_mono_ns());
		ctl_events(&g.ctl, &c->e, p + 4, n - 4, now_mono_ns());
	}
}

int
main(int argc, char **argv)
{
	struct console	*c = &g.c;
	struct dts_conf	 conf;
	struct opts	 o = { 0 };
	char		 err[512];
	int		 r;

	g.ready_fd = -1;
	script_init(&g.s, 0);
	parse(argc, argv, &o);
	log_init("dts-master", o.debug ? LOG_TO_STDERR : LOG_TO_SYSLOG, NULL,
	    LOG_LVL_INFO);
	log_set_level(o.debug ? LOG_LVL_DEBUG : LOG_LVL_INFO);
	conf_defaults(&conf);
	if (conf_load(&conf, o.conf, !o.explicit_conf, err, sizeof(err)) == -1)
		die(err);
	if (o.check) {
		printf("configuration OK\n");
		return 0;
	}
	con_init(c, &conf, stdout);
	master_init(&c->e);
	c->conf_path = o.conf;
	c->explicit_conf = o.explicit_conf;
	c->pvm.off = 1;
	c->pvm.out = &c->out;
	c->out.notice = notice;
	if (net_init(&c->net, &conf, 1, err, sizeof(err)) == -1 ||
	    standby_init(&c->sb, o.standby, err, sizeof(err)) == -1)
		die(err);
	if (c->net.keyless) {
		snprintf(err, sizeof(err), "no console key (%s): a master "
		    "needs the key pair and the nodes' secret",
		    c->net.keyless_why);
		die(err);
	}
	if ((r = ctl_open(&g.ctl, &conf, err, sizeof(err))) == -1)
		die(err);
	if (r == 1)
		log_warnx("%s", err);
	g.daemonize = o.daemonize;
	setup_fds();
	log_info("dts-master %s: %s%s%s", PACKAGE_VERSION,
	    standby_following(&c->sb) ? "standby" : "master", g.ctl.fd != -1 ?
	    ", control socket " : "", g.ctl.path);
	loop(c);
	ctl_close(&g.ctl);
	net_close(&c->net);
	standby_close(&c->sb);
	nodes_free(&c->nodes);
	matrix_free(&c->m.mx);
	r = g.s.failures > 0 ? 1 : 0;
	script_fini(&g.s);
	log_info("dts-master: exiting");
	return r;
}
