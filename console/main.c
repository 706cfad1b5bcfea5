/*
 * main.c - dts-console, the master console of DTS.
 *
 *   1. options, configuration, key, UDP socket
 *   2. --daemon: fork; the parent waits until the commands have run and
 *      exits with their status, the child goes on in a new session
 *   3. PVM: connect to the local pvmd, or start dts to start it
 *   4. one event loop (poll): stdin (readline or queued commands), the
 *      UDP socket, a timerfd for the master's deadlines, a signalfd
 *   5. on quit the nodes keep the last schedule only for their silence
 *      (the dead-man switch), then go back to their dts.conf's; a console
 *      that starts later takes over.  A schedule that lasts needs a
 *      console that stays: --daemon.
 */
#include <sys/signalfd.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "console.h"
#include "evfd.h"
#include "keys.h"
#include "log.h"
#include "mctl.h"
#include "script.h"
#include "shell.h"
#include "spawn.h"
#include "timeutil.h"

struct opts {
	const char	*conf;
	int		 explicit_conf;
	int		 daemon;
	int		 standby;	/* --standby */
	int		 no_pvm;
	int		 stop_on_error;
	int		 scripted;	/* -c or -s given */
	const char	*keygen;	/* -k FILE */
	int		 pubkey;	/* -P */
	const char	*nodekey;	/* -N ADDRESS */
};

static struct {
	struct console	 c;
	struct script	 s;
	int		 sigfd, timerfd;
	int64_t		 armed;		/* the timer's deadline (0: disarmed,
					   INT64_MIN: fired since) */
	int		 use_stdin;	/* commands from a non-terminal stdin */
	int		 daemon_fd;	/* pipe to the waiting parent, or -1 */
	int		 detached;	/* --daemon, commands done */
} g;

static void __attribute__((noreturn))
usage(int rc)
{
	fprintf(rc ? stderr : stdout, "usage: dts-console [-ehnV] [-f conf] "
	    "[-c commands] [-s file] [--daemon] [--standby]\n"
	    "       dts-console -k file | [-f conf] -P | [-f conf] -N "
	    "address\n");
	exit(rc);
}

static void
parse(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "daemon", no_argument, NULL, 'D' },
		{ "standby", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	char	 err[512];
	int	 ch;

	o->conf = SYSCONFDIR "/dts/dts.conf";
	while ((ch = getopt_long(argc, argv, "c:ef:hk:nN:Ps:V", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'c':
			if (script_add_string(&g.s, optarg) == -1)
				fatalx("out of memory");
			o->scripted = 1;
			break;
		case 'e': o->stop_on_error = 1; break;
		case 'f': o->conf = optarg; o->explicit_conf = 1; break;
		case 'n': o->no_pvm = 1; break;
		case 'k': o->keygen = optarg; break;
		case 'P': o->pubkey = 1; break;
		case 'N': o->nodekey = optarg; break;
		case 's':
			if (script_add_file(&g.s, optarg, err,
			    sizeof(err)) == -1) {
				fprintf(stderr, "dts-console: %s\n", err);
				exit(1);
			}
			o->scripted = 1;
			break;
		case 'D': o->daemon = 1; break;
		case 'S': o->standby = 1; break;
		case 'V': printf("dts-console %s\n", PACKAGE_VERSION); exit(0);
		case 'h': usage(0);
		default: usage(2);
		}
	}
	if (optind != argc)
		usage(2);
	g.s.stop_on_error = o->stop_on_error;
}

/* The parent of --daemon: exit with the child's status byte. */
static void
daemon_fork(void)
{
	int	 p[2];
	char	 st = 1;
	pid_t	 pid;

	if (pipe2(p, O_CLOEXEC) == -1 || (pid = fork()) == -1)
		fatal("--daemon");
	if (pid > 0) {
		close(p[1]);
		while (read(p[0], &st, 1) == -1 && errno == EINTR)
			;
		_exit(st);
	}
	close(p[0]);
	g.daemon_fd = p[1];
	setsid();
}

/*
 * The commands have run: release the waiting parent with their status and,
 * if we stay (not quitting), leave the terminal.
 */
static void
daemon_detach(int staying)
{
	char	 st = g.s.failures > 0;

	if (g.daemon_fd == -1)
		return;
	if (!staying) {
		if (write(g.daemon_fd, &st, 1) != 1)
			log_warn("daemon pipe");
		close(g.daemon_fd);
		g.daemon_fd = -1;
		return;
	}
	printf("dts-console: running in the background, pid %d\n",
	    (int)getpid());
	fflush(stdout);
	(void)spawn_devnull();
	log_init("dts-console", LOG_TO_SYSLOG, NULL, LOG_LVL_INFO);
	if (write(g.daemon_fd, &st, 1) != 1)
		log_warn("daemon pipe");
	close(g.daemon_fd);
	g.daemon_fd = -1;
	g.detached = 1;
}

/* Messages nobody asked for, without a prompt to protect. */
static void
plain_notice(const char *msg)
{
	if (g.detached)
		log_info("%s", msg);
	else
		fprintf(stderr, "dts-console: %s\n", msg);
}

static void
setup_fds(void)
{
	sigset_t	 mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGWINCH);
	sigaddset(&mask, SIGUSR1);
	if ((g.sigfd = evfd_signals(&mask)) == -1)
		fatal("signalfd");
	if ((g.timerfd = evfd_timer(CLOCK_MONOTONIC)) == -1)
		fatal("timerfd_create");
}

static void
signals(struct console *c)
{
	struct signalfd_siginfo	 si;

	while (read(g.sigfd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGCHLD:
			cpvm_reap(&c->pvm);
			break;
		case SIGWINCH:
			if (c->interactive)
				shell_winch();
			break;
		case SIGUSR1:	/* a standby: take over (standby.h) */
			if (standby_following(&c->sb) &&
			    standby_take(&c->sb, "SIGUSR1", now_mono_ns()) < 0)
				plain_notice(c->out.err);
			break;
		case SIGINT:
			if (c->interactive && master_busy(&c->e)) {
				master_cancel(&c->e);	/* it says what */
				shell_resume();
			} else if (c->interactive)
				shell_interrupt();
			else
				c->quit = 1;
			break;
		case SIGTERM:
			if (cpvm_halt_signal(&c->pvm, (pid_t)si.ssi_pid,
			    now_mono_ns()))
				break;	/* pvmd ends its tasks: the VM halts */
			/* FALLTHROUGH */
		default:
			c->quit = 1;
		}
	}
}

/* Arm the timer for master_deadline(), unless it is armed for it already
 * (a round's replies wake the loop thousands of times an SI). */
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

static void
after_async(struct console *c)
{
	int	 rc;

	if (!master_done(&c->e, &rc))
		return;
	if (c->interactive) {
		if (rc == -1)
			fprintf(stderr, "%s\n", c->out.err);
		fflush(stdout);
		shell_resume();
	} else
		script_finished(&g.s, c, rc);
}

static void
loop(struct console *c, int daemon)
{
	struct pollfd	 p[5];
	uint64_t	 exp;
	int		 stdin_on;

	for (;;) {
		if (!c->interactive)
			script_run(&g.s, c);
		if (c->quit)
			break;
		if (!c->interactive && script_done(&g.s) &&
		    !master_busy(&c->e)) {
			daemon_detach(daemon);
			if (!daemon)
				break;
		}
		arm_timer(c);
		stdin_on = c->interactive ? !master_busy(&c->e) : g.s.reading;
		p[0] = (struct pollfd){ stdin_on ? STDIN_FILENO : -1, POLLIN,
		    0 };
		p[1] = (struct pollfd){ c->net.fd, POLLIN, 0 };
		p[2] = (struct pollfd){ g.timerfd, POLLIN, 0 };
		p[3] = (struct pollfd){ g.sigfd, POLLIN, 0 };
		p[4] = (struct pollfd){ c->sb.fd, POLLIN, 0 };
		if (poll(p, 5, -1) == -1 && errno != EINTR)
			fatal("poll");
		if (p[3].revents & POLLIN)
			signals(c);
		if ((p[1].revents & POLLIN) &&
		    master_input(&c->e, now_mono_ns()) >= MASTER_FLOW)
			(void)nanosleep(&(struct timespec){ .tv_nsec =
			    MASTER_FLOW_WAIT_NS }, NULL);
		if (p[4].revents & POLLIN)
			standby_input(&c->sb, now_mono_ns());
		if (p[2].revents & POLLIN) {
			if (read(g.timerfd, &exp, sizeof(exp)) == -1 &&
			    errno != EAGAIN)
				log_warn("timerfd");
			g.armed = INT64_MIN;	/* fired: re-arm */
		}
		master_timer(&c->e, now_mono_ns());
		after_async(c);
		if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			if (c->interactive)
				shell_input();
			else
				script_read(&g.s, STDIN_FILENO);
		}
	}
}

/* The master's hello (ctl.c) names this console's own key, or none. */
static int
same_key(const struct console *c, const char *hello)
{
	char		 pub[2 * AUTH_PUB_LEN + 1];
	const char	*k = strstr(hello, " key ");

	if (!c->net.key.can_sign || k == NULL || strncmp(k + 5, "- ", 2) == 0)
		return 1;
	auth_signer_public(&c->net.key, pub);
	return strncmp(k + 5, pub, strlen(pub)) == 0;
}

/*
 * dts-master's socket (console.master_socket): when its master answers
 * (with this console's key, if it has one), the schedule's commands go
 * there (cmds.c) and no second master appears; a --daemon (or a
 * --standby) would be one, and does not start.  Otherwise the console is its own master, as
 * before, and says so in one line when it is interactive, or when a
 * socket is there but nothing (of ours) answers; a keyless console's
 * values are then labelled its own.
 */
static void
find_master(struct console *c, int daemon)
{
	const char	*path = c->conf.console.master_socket;
	char		*buf = NULL, err[CMD_ERR_MAX];
	size_t		 len = 0;
	FILE		*f;
	int		 rc = -2;

	c->own = c->net.keyless;
	if (*path == '\0')
		return;
	if ((f = open_memstream(&buf, &len)) != NULL) {
		rc = mctl_call(path, "hello", f, err, sizeof(err), 2000);
		fclose(f);
	} else
		snprintf(err, sizeof(err), "out of memory");
	if (rc == 0 && !same_key(c, buf)) {
		snprintf(err, sizeof(err), "the master at %s signs with another "
		    "key than this console's", path);
		rc = -1;
	}
	if (rc == 0) {
		c->remote = 1;
		c->own = 0;
		if (daemon) {
			fprintf(stderr, "dts-console: --daemon, --standby: a "
			    "master answers at %s (%.*s): a second one would "
			    "fight it\n", path, (int)strcspn(buf, "\n"), buf);
			exit(1);
		}
		if (c->interactive)
			printf("dts-console: the schedule is the master's, at %s "
			    "(%.*s)\n", path, (int)strcspn(buf, "\n"), buf);
	} else if (c->interactive || access(path, F_OK) == 0)
		fprintf(stderr, "dts-console: %s: %s\n", err, c->net.keyless ?
		    "the PVM commands, and this console's own values" :
		    "this console is its own master");
	free(buf);
}

/*
 * How long the nodes follow a console that has gone: their silence (the
 * dead-man switch, dts/ctl.c), as this console's dts.conf sets it.  The
 * nodes' own dts.conf may set another.
 */
static int64_t
nodes_silence(const struct console *c)
{
	int64_t	 s = c->conf.silence_ns != 0 ? c->conf.silence_ns :
	    3 * c->sch.si;

	return s < 2 * c->sch.si ? 2 * c->sch.si : s;
}

/*
 * What the nodes do now that this console goes: they follow its last
 * schedule until their silence runs out, then the schedule of their own
 * dts.conf.
 */
static void
goodbye(struct console *c)
{
	char	 msg[400], what[96], ps[32], ip[32], si[32];

	/* (a standby: the nodes were never ours) */
	if (!c->sch.spoken || standby_following(&c->sb))
		return;
	if (c->sch.started && (c->sch.mode == MODE_STATIC ||
	    c->sch.mode == MODE_BALANCED))
		snprintf(what, sizeof(what), "follow this schedule (%s, PS %s "
		    "of IP %s)", proto_mode_name((unsigned)c->sch.mode),
		    duration_format(sch_ps(&c->sch), ps, sizeof(ps)),
		    duration_format(c->sch.ip, ip, sizeof(ip)));
	else if (c->sch.started)
		snprintf(what, sizeof(what), "follow this schedule (%s)",
		    proto_mode_name((unsigned)c->sch.mode));
	else
		snprintf(what, sizeof(what), "stay stopped (gangs released)");
	snprintf(msg, sizeof(msg), "the nodes %s for their silence (%s by "
	    "this dts.conf), then go back to the schedule of their own "
	    "dts.conf; a console started later takes over%s", what,
	    duration_format(nodes_silence(c), si, sizeof(si)), g.detached ?
	    "" : ".  A schedule that lasts needs a console that stays "
	    "(dts-console --daemon)");
	if (g.detached)
		log_info("%s", msg);
	else
		fprintf(c->interactive ? stdout : stderr, "dts-console: %s\n",
		    msg);
}

int
main(int argc, char **argv)
{
	struct console	*c = &g.c;
	struct dts_conf	 conf;
	struct opts	 o = { 0 };
	char		 err[512];
	int		 rc;

	g.daemon_fd = -1;
	script_init(&g.s, 0);
	log_init("dts-console", LOG_TO_STDERR, NULL, LOG_LVL_WARN);
	parse(argc, argv, &o);
	if (o.keygen != NULL)
		return keys_generate(o.keygen);
	conf_defaults(&conf);
	if (conf_load(&conf, o.conf, !o.explicit_conf, err, sizeof(err)) == -1) {
		fprintf(stderr, "dts-console: %s\n", err);
		return 1;
	}
	if (o.pubkey)
		return keys_public(&conf);
	if (o.nodekey != NULL)
		return keys_node(&conf, o.nodekey);
	con_init(c, &conf, stdout);
	master_init(&c->e);
	c->conf_path = o.conf;
	c->explicit_conf = o.explicit_conf;
	cpvm_init(&c->pvm, &c->conf, &c->hosts, &c->net, &c->out, o.no_pvm);
	c->interactive = !o.scripted && !o.daemon && isatty(STDIN_FILENO);
	g.use_stdin = !o.scripted && !o.daemon && !c->interactive;
	g.s.reading = g.use_stdin;
	if (net_init(&c->net, &conf, 1, err, sizeof(err)) == -1) {
		fprintf(stderr, "dts-console: %s\n", err);
		return 1;
	}
	find_master(c, o.daemon || o.standby);
	/* a client of dts-master: no peer socket, the master has it */
	if (!c->remote &&
	    standby_init(&c->sb, o.standby, err, sizeof(err)) == -1) {
		fprintf(stderr, "dts-console: %s\n", err);
		return 1;
	}
	/* a PVM user's console: PVM, and nothing that talks to dts */
	if (c->net.keyless && !c->remote)
		fprintf(stderr, "dts-console: no console key (%s): the PVM "
		    "commands%s\n", c->net.keyless_why, c->net.rkey.npub > 0 ?
		    ", and status and jobs read-only" : " only");
	if (o.daemon)
		daemon_fork();
	setup_fds();
	c->out.notice = plain_notice;
	if (!c->pvm.off && (cpvm_setup(&c->pvm) == -1 ||
	    cpvm_connect(&c->pvm, 1) == -1))
		fprintf(stderr, "dts-console: PVM: %s\n", c->out.err);
	if (c->interactive) {
		printf("dts-console %s: type help for the commands\n",
		    PACKAGE_VERSION);
		shell_init(c);
	}
	loop(c, o.daemon);
	if (c->interactive)
		shell_fini();
	goodbye(c);
	daemon_detach(0);
	cpvm_fini(&c->pvm);
	net_close(&c->net);
	standby_close(&c->sb);
	nodes_free(&c->nodes);
	matrix_free(&c->m.mx);
	rc = g.s.failures > 0 ? 1 : 0;
	script_fini(&g.s);
	return rc;
}
