/*
 * main.c - dts-load, the Load agent (thesis §2.1.2; dts-load(8)).
 *
 * Started by dts (spawn.h), already at SCHED_FIFO max-1, as root with
 * only CAP_SYS_NICE and CAP_KILL (ambient), so the gang's user cannot
 * signal, ptrace or write to it.  The agent runs above the gangs (SCHED_RR
 * max-2 for pvmd, max-3 for its tasks, max-4 for a job that fills another
 * job's slot), where the thesis puts pvmd above the agent: swapped on purpose,
 * since a fail-safe below a gang that spins on every CPU could not run
 * (dts/main.c, AGENT_PRIO).  It samples the local run-queue length every
 * load.sample while the gang is stopped, folds the samples into the load
 * index Q every load.interval (LI) and reports it to dts over a
 * SOCK_SEQPACKET socketpair.  dts publishes the gang's cgroup, its phase
 * and its liveness in a shared page, which the agent maps read-only.
 *
 * It is also the fail-safe of the gangs, which are every process of every
 * job cgroup (CG_JOB_PREFIX) below the subtree dts names in the shared
 * page (one gang a job: dts(8), JOBS).  When dts dies (the socket closes,
 * even after SIGKILL) or the agent is told to stop (SIGTERM, SIGINT,
 * SIGHUP, or the parent-death signal), it releases the gang -- thawed,
 * SCHED_OTHER and SIGCONT for every member -- and exits.  epoll wakes it
 * on the hang-up, so that takes milliseconds, not a polling period.  It
 * also watches dts's liveness: while dts slices, it must make an edge at
 * least every limit_ns (max(2 IP, 200 ms)); if it does not (stopped, hung),
 * the agent releases the gang, tells dts, and carries on.  When dts makes
 * edges again it applies its phase again.
 *
 * It never writes to stdout; only bad arguments are reported on stderr.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "cgroup.h"
#include "conf.h"
#include "evfd.h"
#include "log.h"
#include "proc.h"
#include "proto.h"
#include "sample.h"
#include "smooth.h"
#include "timeutil.h"

#define AGENT_NAME  "dts-load"
#define AGENT_EXIT_USAGE 2

struct load_agent {
	struct dts_conf			 conf;
	const struct agent_shared	*shm;
	struct smooth			 sm;
	struct sample_acc		 acc;
	uint64_t			 ticks;	/* periods since start */
	int64_t				 t_start; /* the grid's origin */
	int64_t				 period; /* load.sample */
	uint64_t			 ticks_per_li;
	pid_t				 ppid;	/* dts, when we started */
	int				 sock, shmfd, tfd, sfd, ep;
	int				 wfd;	/* liveness watch */
	int64_t				 released_beat; /* 0: not released */
	int				 debug;
	int				 ncpu;
	const char			*conf_path;
};

static void agent_usage_error(const char *, ...)
    __attribute__((format(printf, 1, 2), noreturn));
static void agent_failsafe(const struct load_agent *, const char *, ...)
    __attribute__((format(printf, 2, 3), noreturn));

static void
agent_usage(FILE *fp)
{
	fprintf(fp, "usage: " AGENT_NAME " [-d] -f conf -c sockfd -s shmfd\n"
	    "       " AGENT_NAME " -h | -V\n"
	    "The DTS Load agent; started only by dts(8).\n");
}

/* The one place that may print: bad arguments, before anything else. */
static void
agent_usage_error(const char *fmt, ...)
{
	va_list	 ap;

	fputs(AGENT_NAME ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(AGENT_EXIT_USAGE);
}

/*
 * Release every job's gang and exit 0.  The release comes first: the log
 * line must not delay it.  Only the job cgroups below the subtree dts
 * published now are touched (not base/daemon, dts's own).
 */
static void
agent_failsafe(const struct load_agent *a, const char *fmt, ...)
{
	char	 why[128], cg[AGENT_GANG_MAX];
	va_list	 ap;

	memcpy(cg, a->shm->gang, sizeof(cg));
	cg[sizeof(cg) - 1] = '\0';
	cg_release_jobs(cg);
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	log_info("%s: every job's gang in %s released, exiting", why,
	    cg[0] ? cg : "(none)");
	exit(0);
}

static int
agent_parse_fd(const char *s, char opt)
{
	char	*end;
	long	 v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < 0 || v > INT32_MAX)
		agent_usage_error("-%c %s: not a file descriptor", opt, s);
	return (int)v;
}

static void
agent_args(struct load_agent *a, int argc, char **argv)
{
	int	 ch;

	a->sock = a->shmfd = -1;
	opterr = 0;
	while ((ch = getopt(argc, argv, ":c:df:hs:V")) != -1) {
		switch (ch) {
		case 'c':
			a->sock = agent_parse_fd(optarg, 'c');
			break;
		case 'd':
			a->debug = 1;
			break;
		case 'f':
			a->conf_path = optarg;
			break;
		case 'h':
			agent_usage(stderr);
			exit(0);
		case 's':
			a->shmfd = agent_parse_fd(optarg, 's');
			break;
		case 'V':
			fputs(AGENT_NAME " " PACKAGE_VERSION "\n", stderr);
			exit(0);
		case ':':
			agent_usage_error("-%c needs an argument", optopt);
		default:
			agent_usage_error("unknown option -%c (see -h)",
			    optopt);
		}
	}
	if (optind != argc)
		agent_usage_error("unexpected argument: %s", argv[optind]);
	if (a->conf_path == NULL || a->sock == -1 || a->shmfd == -1)
		agent_usage_error("-f, -c and -s are required (see -h)");
	if (a->sock == a->shmfd)
		agent_usage_error("-c and -s name the same descriptor %d",
		    a->sock);
}

/* -c must be our end of a SOCK_SEQPACKET socketpair. */
static void
agent_check_sock(int fd)
{
	socklen_t	 len = sizeof(int);
	int		 type;

	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == -1)
		agent_usage_error("-c %d: %s", fd, errno == ENOTSOCK ?
		    "not a socket" : strerror(errno));
	if (type != SOCK_SEQPACKET)
		agent_usage_error("-c %d: not a SOCK_SEQPACKET socket", fd);
}

/* -s must be a memfd (or file) holding struct agent_shared. */
static const struct agent_shared *
agent_map_shm(int fd)
{
	struct stat	 st;
	void		*p;

	if (fstat(fd, &st) == -1)
		agent_usage_error("-s %d: %s", fd, strerror(errno));
	if (!S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)sizeof(struct agent_shared))
		agent_usage_error("-s %d: not a shared page of %zu bytes", fd,
		    sizeof(struct agent_shared));
	p = mmap(NULL, sizeof(struct agent_shared), PROT_READ, MAP_SHARED,
	    fd, 0);
	if (p == MAP_FAILED)
		agent_usage_error("-s %d: mmap: %s", fd, strerror(errno));
	return p;
}

/*
 * The stop signals go to a signalfd before anything else, so that the
 * parent-death signal or an early SIGTERM waits there instead of killing
 * us before the gang is released.  An ignored signal would never reach
 * the signalfd: their dispositions are reset (dts's spawn() did that
 * already; a dts-load started by hand may inherit SIG_IGN).
 */
static void
agent_signals_open(struct load_agent *a)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
	sigset_t	 set;
	size_t		 i;

	sigemptyset(&set);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		sigaddset(&set, sigs[i]);
		signal(sigs[i], SIG_DFL);
	}
	if ((a->sfd = evfd_signals(&set)) == -1)
		fatal("signalfd");
}

/* Belt and braces to the socket: a signal when dts dies, and a check. */
static void
agent_watch_parent(struct load_agent *a)
{
	a->ppid = getppid();
	(void)prctl(PR_SET_PDEATHSIG, SIGTERM);
}

static void
agent_check_parent(const struct load_agent *a)
{
	if (getppid() != a->ppid)
		agent_failsafe(a, "dts (pid %d) is gone", (int)a->ppid);
}

static void
agent_log_start(struct load_agent *a)
{
	enum log_dest	 dest = LOG_TO_SYSLOG;
	char		 err[512];

	if (a->debug)
		dest = LOG_TO_STDERR;
	log_init(AGENT_NAME, dest, NULL, a->debug ? LOG_LVL_DEBUG :
	    LOG_LVL_INFO);
	/*
	 * dts read the same file a moment ago.  Should it fail here anyway
	 * (dts runs on the defaults when its default file does not exist),
	 * the agent keeps the defaults: a config problem must not take the
	 * gang's fail-safe away.
	 */
	conf_defaults(&a->conf);
	if (conf_load(&a->conf, a->conf_path, 0, err, sizeof(err)) == -1)
		log_warnx("%s; using the defaults", err);
	if (a->debug)
		return;
	if (a->conf.log_file[0] != '\0')
		dest = LOG_TO_FILE;
	if (log_init(AGENT_NAME, dest, a->conf.log_file,
	    (enum log_level)a->conf.log_level) == -1)
		log_warnx("log_file %s: %s", a->conf.log_file, log_file_why());
}

/* LI is a whole number of sample periods; the smoother uses that LI. */
static void
agent_load_start(struct load_agent *a)
{
	int64_t	 sample = a->conf.load.sample_ns;
	int64_t	 li = a->conf.load.interval_ns;
	char	 b1[32], b2[32], b3[32];

	if (sample <= 0 || li <= 0)
		fatalx("load.sample and load.interval must be positive");
	a->ticks_per_li = (uint64_t)llround((double)li / (double)sample);
	if (a->ticks_per_li == 0)
		a->ticks_per_li = 1;
	if ((int64_t)a->ticks_per_li * sample != li)
		log_warnx("load.interval %s is not a multiple of load.sample "
		    "%s: using %s", duration_format(li, b1, sizeof(b1)),
		    duration_format(sample, b2, sizeof(b2)), duration_format(
		    (int64_t)a->ticks_per_li * sample, b3, sizeof(b3)));
	li = (int64_t)a->ticks_per_li * sample;
	smooth_init(&a->sm, li, a->conf.load.window_ns,
	    a->conf.load.threshold);
	sample_reset(&a->acc);
	a->ncpu = proc_ncpu();
}

/*
 * Sample k is taken at a random instant of period k of an absolute grid
 * (t_start + k*period): the grid never drifts, and the random offset keeps
 * the samples from locking onto one phase when the sample period is a
 * multiple of IP (with load.sample = IP every sample would otherwise fall
 * in PS and be skipped, or always in LS).
 */
static void
agent_timer_arm(struct load_agent *a)
{
	int64_t	 at;

	at = a->t_start + (int64_t)(a->ticks + 1) * a->period +
	    (int64_t)(((uint64_t)random() << 31 ^ (uint64_t)random()) %
	    (uint64_t)a->period);
	if (evfd_timer_set(a->tfd, at, 1) == -1)
		fatal("timerfd_settime");
}

static int
agent_timer_open(struct load_agent *a)
{
	if ((a->tfd = evfd_timer(CLOCK_MONOTONIC)) == -1)
		fatal("timerfd_create");
	srandom((unsigned)(getpid() ^ now_mono_ns()));
	a->period = a->conf.load.sample_ns;
	a->t_start = now_mono_ns();
	agent_timer_arm(a);
	return a->tfd;
}

/*
 * The liveness watch wakes when dts's limit would run out (last edge +
 * limit), so the gang is released as soon as it does, and a live dts
 * costs one wake-up per limit (5 a second up to IP 100 ms).
 * Not slicing, or released and waiting for dts: a look every 100 ms.
 */
#define WATCH_IDLE (100 * NS_PER_MS)

static void
agent_watch_arm(struct load_agent *a)
{
	int64_t	 beat = a->shm->beat_ns, limit = a->shm->limit_ns;
	int	 rc;

	if (a->shm->active && beat > 0 && limit > 0 && a->released_beat == 0)
		rc = evfd_timer_set(a->wfd, beat + limit + 1, 1);
	else
		rc = evfd_timer_set(a->wfd, WATCH_IDLE, 0);
	if (rc == -1)
		fatal("timerfd_settime");
}

static void
agent_notify_released(struct load_agent *a)
{
	struct agent_report	 rep;

	memset(&rep, 0, sizeof(rep));
	rep.magic = AGENT_MAGIC_RELEASED;
	(void)send(a->sock, &rep, sizeof(rep), MSG_NOSIGNAL | MSG_DONTWAIT);
}

static void
agent_watch(struct load_agent *a)
{
	uint64_t	 exp;
	int64_t		 beat = a->shm->beat_ns, limit = a->shm->limit_ns;
	char		 cg[AGENT_GANG_MAX];

	if (read(a->wfd, &exp, sizeof(exp)) == -1 && errno != EAGAIN)
		log_warn("read watch timer");
	if (a->released_beat != 0 && beat != a->released_beat) {
		log_info("dts makes slice edges again: it slices the gang "
		    "again");
		a->released_beat = 0;
	}
	if (a->released_beat != 0 || !a->shm->active || beat == 0 ||
	    limit <= 0 || now_mono_ns() - beat <= limit) {
		agent_watch_arm(a);
		return;
	}
	memcpy(cg, a->shm->gang, sizeof(cg));
	cg[sizeof(cg) - 1] = '\0';
	cg_release_jobs(cg);
	a->released_beat = beat;
	agent_watch_arm(a);
	agent_notify_released(a);
	log_warnx("dts made no slice edge for %.1f ms (limit %.1f ms): every "
	    "job's gang in %s released (running, SCHED_OTHER)", (double)(now_mono_ns() -
	    beat) / NS_PER_MS, (double)limit / NS_PER_MS, cg);
}

static void
agent_epoll_add(int ep, int fd, uint32_t events)
{
	if (evfd_watch(ep, fd, events) == -1)
		fatal("epoll_ctl");
}

static void
agent_open(struct load_agent *a)
{
	agent_timer_open(a);
	if ((a->wfd = evfd_timer(CLOCK_MONOTONIC)) == -1)
		fatal("timerfd_create");
	agent_watch_arm(a);
	a->ep = epoll_create1(EPOLL_CLOEXEC);
	if (a->ep == -1)
		fatal("epoll_create1");
	agent_epoll_add(a->ep, a->sock, EPOLLIN | EPOLLRDHUP);
	agent_epoll_add(a->ep, a->sfd, EPOLLIN);
	agent_epoll_add(a->ep, a->tfd, EPOLLIN);
	agent_epoll_add(a->ep, a->wfd, EPOLLIN);
}

static uint32_t
agent_milli(double v)
{
	if (!(v > 0.0))
		return 0;
	if (v >= UINT32_MAX / 1000.0)
		return UINT32_MAX;
	return (uint32_t)llround(v * 1000.0);
}

/*
 * One report to dts.  Never blocks: if dts is not reading, the report is
 * dropped (and a pending notification is sent with the next one).
 */
static void
agent_send(struct load_agent *a, double q, unsigned samples)
{
	struct agent_report	 rep;
	ssize_t			 n;

	memset(&rep, 0, sizeof(rep));
	rep.magic = AGENT_MAGIC;
	rep.load_milli = agent_milli(a->sm.q);
	rep.q_milli = agent_milli(q);
	rep.ls_pct = (uint32_t)loadtab_ls_pct(&a->conf.load.table, a->sm.q);
	rep.notify = (uint32_t)smooth_should_report(&a->sm);
	rep.samples = samples;
	do
		n = send(a->sock, &rep, sizeof(rep),
		    MSG_NOSIGNAL | MSG_DONTWAIT);
	while (n == -1 && errno == EINTR);
	if (n == (ssize_t)sizeof(rep)) {
		if (rep.notify)
			smooth_mark_reported(&a->sm);
		log_debug("Q %.3f q %.3f (%u samples) LS %u%%%s", a->sm.q, q,
		    samples, rep.ls_pct, rep.notify ? " notify" : "");
		return;
	}
	if (n == -1 && (errno == EPIPE || errno == ECONNRESET ||
	    errno == ENOTCONN))
		agent_failsafe(a, "dts closed the socket");
	if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
		log_warnx("dts is not reading: report dropped");
	else
		log_warn("send");
}

/* One sample, if the phase allows one. */
static void
agent_sample(struct load_agent *a)
{
	enum sample_kind	 kind;
	int			 runnable = 0, running;
	char			 cg[AGENT_GANG_MAX];
	double			 v;

	kind = sample_kind(a->shm->phase, a->shm->ls_idle != 0);
	if (kind == SAMPLE_SKIP)
		return;
	memcpy(cg, a->shm->gang, sizeof(cg));
	cg[sizeof(cg) - 1] = '\0';
	if (kind == SAMPLE_GANG_RUNS)
		cg_count_jobs(cg, &runnable);
	running = proc_procs_running();
	if (sample_runq(kind, running, runnable, a->ncpu,
	    a->conf.load.per_cpu, &v))
		sample_add(&a->acc, v);
}

/* End of a load interval: q, Q, report. */
static void
agent_interval(struct load_agent *a)
{
	unsigned	 n;
	double		 q = 0.0;

	n = sample_mean(&a->acc, &q);
	if (n > 0)
		smooth_update(&a->sm, q);
	agent_send(a, q, n);
	sample_reset(&a->acc);
	a->ncpu = proc_ncpu();
}

static void
agent_tick(struct load_agent *a)
{
	uint64_t	 exp, before, now_tick;
	ssize_t		 n;

	n = read(a->tfd, &exp, sizeof(exp));
	if (n != (ssize_t)sizeof(exp) || exp == 0)
		return;
	now_tick = (uint64_t)((now_mono_ns() - a->t_start) / a->period);
	exp = now_tick > a->ticks ? now_tick - a->ticks : 1;
	if (exp > 1)
		log_debug("late: %" PRIu64 " sample period(s) missed", exp - 1);
	agent_check_parent(a);
	agent_sample(a);
	before = a->ticks;
	a->ticks += exp;
	if (a->ticks / a->ticks_per_li != before / a->ticks_per_li)
		agent_interval(a);
	agent_timer_arm(a);
}

/*
 * Anything dts sends is drained and ignored; end of file is dts gone (dts
 * never sends an empty message, which would read the same).
 */
static void
agent_sock_event(struct load_agent *a, uint32_t events)
{
	char	 buf[256];
	ssize_t	 n;

	if (events & (EPOLLHUP | EPOLLRDHUP | EPOLLERR))
		agent_failsafe(a, "dts closed the socket");
	for (;;) {
		n = recv(a->sock, buf, sizeof(buf), MSG_DONTWAIT);
		if (n > 0)
			continue;
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		agent_failsafe(a, "dts closed the socket");
	}
}

static void
agent_signal_event(struct load_agent *a)
{
	struct signalfd_siginfo	 si;

	if (read(a->sfd, &si, sizeof(si)) != (ssize_t)sizeof(si))
		return;
	agent_failsafe(a, "%s", strsignal((int)si.ssi_signo));
}

static void
agent_loop(struct load_agent *a)
{
	struct epoll_event	 ev[5];
	int			 i, n, tick;

	for (;;) {
		n = epoll_wait(a->ep, ev, 5, -1);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			fatal("epoll_wait");
		}
		/* The fail-safe events first, the sample after. */
		tick = 0;
		for (i = 0; i < n; i++) {
			if (ev[i].data.fd == a->sock)
				agent_sock_event(a, ev[i].events);
			else if (ev[i].data.fd == a->sfd)
				agent_signal_event(a);
			else if (ev[i].data.fd == a->wfd)
				agent_watch(a);
			else
				tick = 1;
		}
		if (tick)
			agent_tick(a);
	}
}

int
main(int argc, char **argv)
{
	static struct load_agent	 a;

	agent_signals_open(&a);
	(void)prctl(PR_SET_DUMPABLE, 0);	/* no ptrace, no core */
	agent_watch_parent(&a);
	agent_args(&a, argc, argv);
	agent_check_sock(a.sock);
	a.shm = agent_map_shm(a.shmfd);
	agent_check_parent(&a);
	agent_log_start(&a);
	agent_load_start(&a);
	agent_open(&a);
#ifndef __SANITIZE_ADDRESS__	/* ASan's shadow memory is terabytes */
	if (mlockall(MCL_CURRENT) == -1)
		log_debug("mlockall: %s", strerror(errno));
#endif
	if (log_async_start() == -1)	/* the fail-safe never waits for it */
		log_warn("logger thread");
	log_info("started: sample %" PRId64 " ns, LI %" PRIu64 " samples, "
	    "d %.4f, threshold %.3f, %s", a.conf.load.sample_ns,
	    a.ticks_per_li, a.sm.d, a.sm.threshold,
	    a.conf.load.per_cpu ? "per CPU" : "not per CPU");
	agent_send(&a, 0.0, 0);	/* Q_0 = 0, so dts has a value at once */
	agent_loop(&a);
	return 0;
}
