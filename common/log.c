/*
 * log.c - the one logging API of every DTS program.  See log.h.
 *
 * Three destinations: syslog (the default, also before log_init()), a file
 * opened for appending with one "time ident[pid] level: message" line per
 * record, or stderr (foreground, -v).  Nothing is ever written to stdout:
 * PVM reads a slave pvmd's stdout for its start-up handshake.
 *
 * After log_async_start() the caller only formats a line and copies it
 * into the queue; the logger thread writes it.  The caller may be the
 * edge thread or the main thread holding the scheduler's lock, at
 * SCHED_FIFO: syslog() blocks while /dev/log is full (a starved journald,
 * or a local user who fills it), a file write while the disk is busy.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

#define LOG_MSG_MAX	1024
#define LOG_STACK	(64 * 1024)	/* the logger thread's (mlockall) */

static struct {
	char		 ident[64];
	enum log_dest	 dest;
	enum log_level	 level;
	FILE		*fp;		/* LOG_TO_FILE */
	int		 syslog_open;
	char		 why[128];	/* log_file_why() */
} lg = { "", LOG_TO_SYSLOG, LOG_LVL_INFO, NULL, 0, "" };

/* One queued line: the time it was logged, and the lines dropped just
 * before it (the queue was full). */
struct line {
	struct timespec	 ts;
	uint64_t	 dropped;
	enum log_level	 level;
	char		 msg[LOG_MSG_MAX];
};

/*
 * The queue.  on: log_*() queue (read without the lock: set once the
 * thread runs, cleared in a forked child).  mu is PTHREAD_PRIO_INHERIT and
 * held only to copy a line in or out, never across a write.  lines: one
 * post per line queued, one more to stop.
 */
static struct {
	int		 on, atfork;
	int		 stuck;		/* log_fini() left the thread */
	pthread_mutex_t	 mu;
	sem_t		 lines;
	pthread_t	 thread;
	struct line	 q[LOG_QUEUE_LINES];
	unsigned	 head, n;
	int		 quit;
	uint64_t	 dropped;	/* since the last line queued */
	uint64_t	 dropped_total;
} aq;

const char *const log_level_names[] = {
	[LOG_LVL_ERR] = "err", [LOG_LVL_WARN] = "warn", [LOG_LVL_INFO] = "info",
	[LOG_LVL_DEBUG] = "debug", NULL
};

static int
async_on(void)
{
	return __atomic_load_n(&aq.on, __ATOMIC_ACQUIRE);
}

static void
close_dest(void)
{
	if (lg.fp != NULL) {
		fclose(lg.fp);
		lg.fp = NULL;
	}
	if (lg.syslog_open) {
		closelog();
		lg.syslog_open = 0;
	}
}

static void
open_syslog(void)
{
	openlog(lg.ident[0] != '\0' ? lg.ident : NULL, LOG_PID | LOG_NDELAY,
	    LOG_DAEMON);
	lg.syslog_open = 1;
	lg.dest = LOG_TO_SYSLOG;
}

/*
 * log_file: no symbolic link (O_NOFOLLOW), no FIFO or device (O_NONBLOCK
 * keeps a FIFO from blocking the open; then it is refused), and nothing
 * another user could write or have swapped in: a regular file of ours
 * (root's) that group and other cannot write.  A refusal sets errno EPERM
 * and lg.why.
 */
static FILE *
open_file(const char *file)
{
	struct stat	 st;
	FILE		*fp;
	int		 fd, fl;

	fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY |
	    O_NOFOLLOW | O_NONBLOCK, 0640);
	if (fd == -1) {
		/* ENXIO: a FIFO nobody reads, or a device without one */
		snprintf(lg.why, sizeof(lg.why), "%s", errno == ELOOP ?
		    "a symbolic link (refused)" : errno == ENXIO ?
		    "not a regular file" : strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) == -1)
		snprintf(lg.why, sizeof(lg.why), "%s", strerror(errno));
	else if (!S_ISREG(st.st_mode))
		snprintf(lg.why, sizeof(lg.why), "not a regular file");
	else if (st.st_uid != geteuid())
		snprintf(lg.why, sizeof(lg.why), "owned by uid %d, not by "
		    "root", (int)st.st_uid);
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		snprintf(lg.why, sizeof(lg.why), "writable by %s (mode %04o)",
		    st.st_mode & S_IWOTH ? "others" : "its group",
		    (unsigned)(st.st_mode & 07777));
	else if ((fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == -1)
		snprintf(lg.why, sizeof(lg.why), "%s", strerror(errno));
	else if ((fp = fdopen(fd, "a")) == NULL)
		snprintf(lg.why, sizeof(lg.why), "%s", strerror(errno));
	else {
		setvbuf(fp, NULL, _IOLBF, 0);
		return fp;
	}
	close(fd);
	errno = EPERM;
	return NULL;
}

const char *
log_file_why(void)
{
	return lg.why;
}

int
log_init(const char *ident, enum log_dest dest, const char *file,
    enum log_level level)
{
	int	 saved;

	close_dest();
	lg.why[0] = '\0';
	snprintf(lg.ident, sizeof(lg.ident), "%s", ident != NULL ? ident : "");
	lg.level = level;
	lg.dest = dest;
	switch (dest) {
	case LOG_TO_FILE:
		if (file != NULL && (lg.fp = open_file(file)) != NULL)
			return 0;
		saved = file != NULL ? errno : EINVAL;
		if (file == NULL)
			snprintf(lg.why, sizeof(lg.why), "no file");
		open_syslog();
		errno = saved;
		return -1;
	case LOG_TO_STDERR:
		return 0;
	case LOG_TO_SYSLOG:
	default:
		open_syslog();
		return 0;
	}
}

void
log_set_level(enum log_level level)
{
	lg.level = level;
}

/* Control characters (from the network, say) must not forge log lines. */
static void
sanitize(char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

static void
stamp(const struct timespec *ts, char *buf, size_t len)
{
	struct tm	 tm;
	char		 date[32], zone[8];

	localtime_r(&ts->tv_sec, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	strftime(zone, sizeof(zone), "%z", &tm);
	snprintf(buf, len, "%s.%03ld%s", date, ts->tv_nsec / 1000000L, zone);
}

static void
emit_stream(FILE *fp, const struct timespec *ts, enum log_level level,
    const char *msg)
{
	char	 when[64];

	stamp(ts, when, sizeof(when));
	fprintf(fp, "%s %s[%ld] %s: %s\n", when,
	    lg.ident[0] != '\0' ? lg.ident : "dts", (long)getpid(),
	    log_level_names[level], msg);
	fflush(fp);
}

static int
syslog_prio(enum log_level level)
{
	switch (level) {
	case LOG_LVL_ERR:
		return LOG_ERR;
	case LOG_LVL_WARN:
		return LOG_WARNING;
	case LOG_LVL_INFO:
		return LOG_INFO;
	case LOG_LVL_DEBUG:
	default:
		return LOG_DEBUG;
	}
}

/* Write one line to the destination (this may block). */
static void
emit(const struct timespec *ts, enum log_level level, const char *msg)
{
	switch (lg.dest) {
	case LOG_TO_FILE:
		if (lg.fp != NULL) {
			emit_stream(lg.fp, ts, level, msg);
			break;
		}
		/* FALLTHROUGH */
	case LOG_TO_SYSLOG:
		syslog(syslog_prio(level), "%s", msg);
		break;
	case LOG_TO_STDERR:
		emit_stream(stderr, ts, level, msg);
		break;
	}
}

static void
emit_dropped(const struct timespec *ts, uint64_t n)
{
	char	 msg[96];

	snprintf(msg, sizeof(msg), "(%" PRIu64 " log line%s dropped: the log "
	    "was full)", n, n == 1 ? "" : "s");
	emit(ts, LOG_LVL_WARN, msg);
}

/* ---- the queue and the logger thread -------------------------------- */

/* Queue a line, or count it as dropped.  Never waits but for mu. */
static void
enqueue(enum log_level level, const struct timespec *ts, const char *msg)
{
	struct line	*l;
	int		 post = 0;

	pthread_mutex_lock(&aq.mu);
	if (aq.n == LOG_QUEUE_LINES) {
		aq.dropped++;
		aq.dropped_total++;
	} else {
		l = &aq.q[(aq.head + aq.n++) % LOG_QUEUE_LINES];
		l->ts = *ts;
		l->level = level;
		l->dropped = aq.dropped;
		aq.dropped = 0;
		snprintf(l->msg, sizeof(l->msg), "%s", msg);
		post = 1;
	}
	pthread_mutex_unlock(&aq.mu);
	if (post)
		sem_post(&aq.lines);
}

static void *
logger(void *arg)
{
	static struct line	 l;	/* one thread; off its small stack */
	uint64_t		 late;
	int			 quit;

	(void)arg;
	for (;;) {
		while (sem_wait(&aq.lines) == -1 && errno == EINTR)
			;
		pthread_mutex_lock(&aq.mu);
		if (aq.n == 0) {
			quit = aq.quit;
			late = aq.dropped;
			aq.dropped = 0;
			pthread_mutex_unlock(&aq.mu);
			if (late > 0) {
				clock_gettime(CLOCK_REALTIME, &l.ts);
				emit_dropped(&l.ts, late);
			}
			if (quit)
				return NULL;
			continue;
		}
		l = aq.q[aq.head];
		aq.head = (aq.head + 1) % LOG_QUEUE_LINES;
		aq.n--;
		late = aq.n == 0 ? aq.dropped : 0;	/* and nothing follows */
		if (late > 0)
			aq.dropped = 0;
		pthread_mutex_unlock(&aq.mu);
		if (l.dropped > 0)
			emit_dropped(&l.ts, l.dropped);
		emit(&l.ts, l.level, l.msg);
		if (late > 0)
			emit_dropped(&l.ts, late);
	}
}

/* exit() without log_fini(): what was queued is written first, and the
 * thread ends (or is left, stuck, after LOG_DRAIN_MS). */
static void
atexit_fini(void)
{
	if (async_on())
		log_fini();
}

/* A forked child has no logger thread: it writes synchronously. */
static void
atfork_child(void)
{
	__atomic_store_n(&aq.on, 0, __ATOMIC_RELEASE);
}

int
log_async_start(void)
{
	pthread_mutexattr_t	 ma;
	pthread_attr_t		 a;
	struct sched_param	 sp = { .sched_priority = 0 };
	sigset_t		 all, old;
	int			 rc;

	if (async_on())
		return 0;
	if (aq.stuck) {
		errno = EBUSY;
		return -1;
	}
	if (!aq.atfork) {
		if ((rc = pthread_atfork(NULL, NULL, atfork_child)) != 0) {
			errno = rc;
			return -1;
		}
		if (atexit(atexit_fini) != 0)
			return -1;
		aq.atfork = 1;
	}
	pthread_mutexattr_init(&ma);
	rc = pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	if (rc == 0)
		rc = pthread_mutex_init(&aq.mu, &ma);
	pthread_mutexattr_destroy(&ma);
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	if (sem_init(&aq.lines, 0, 0) == -1) {
		pthread_mutex_destroy(&aq.mu);
		return -1;
	}
	aq.head = aq.n = 0;
	aq.quit = 0;
	aq.dropped = aq.dropped_total = 0;

	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, LOG_STACK);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_OTHER);
	pthread_attr_setschedparam(&a, &sp);
	/* no signal for it: they belong to the main thread's signalfd */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&aq.thread, &a, logger, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&a);
	if (rc != 0) {
		sem_destroy(&aq.lines);
		pthread_mutex_destroy(&aq.mu);
		errno = rc;
		return -1;
	}
	(void)pthread_setname_np(aq.thread, "dts-log");
	__atomic_store_n(&aq.on, 1, __ATOMIC_RELEASE);
	return 0;
}

uint64_t
log_dropped(void)
{
	uint64_t	 n;

	if (!async_on())
		return aq.dropped_total;
	pthread_mutex_lock(&aq.mu);
	n = aq.dropped_total;
	pthread_mutex_unlock(&aq.mu);
	return n;
}

void
log_fini(void)
{
	struct timespec	 until;

	if (async_on()) {
		__atomic_store_n(&aq.on, 0, __ATOMIC_RELEASE);
		pthread_mutex_lock(&aq.mu);
		aq.quit = 1;
		pthread_mutex_unlock(&aq.mu);
		sem_post(&aq.lines);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += LOG_DRAIN_MS / 1000;
		/* a logger stuck in syslog(): leave it, and the destination,
		 * to exit() */
		if (pthread_timedjoin_np(aq.thread, NULL, &until) != 0) {
			aq.stuck = 1;
			return;
		}
		/* mu and lines stay: a thread that saw aq.on a moment ago may
		 * still queue a line (nobody writes it) */
	}
	close_dest();
	lg.dest = LOG_TO_SYSLOG;
}

/* ---- formatting ------------------------------------------------------ */

static void
submit(enum log_level level, char *msg)
{
	struct timespec	 ts;

	sanitize(msg);
	clock_gettime(CLOCK_REALTIME, &ts);
	if (async_on())
		enqueue(level, &ts, msg);
	else
		emit(&ts, level, msg);
}

/* Format and send one record; errnum >= 0 appends ": strerror(errnum)". */
static void vlog(enum log_level, int, const char *, va_list)
    __attribute__((format(printf, 3, 0)));

static void
vlog(enum log_level level, int errnum, const char *fmt, va_list ap)
{
	char	 msg[LOG_MSG_MAX];
	size_t	 n;
	int	 saved = errno;

	if (level > lg.level)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (errnum >= 0) {
		n = strlen(msg);
		snprintf(msg + n, sizeof(msg) - n, ": %s", strerror(errnum));
	}
	submit(level, msg);
	errno = saved;
}

void
log_debug(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog(LOG_LVL_DEBUG, -1, fmt, ap);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog(LOG_LVL_INFO, -1, fmt, ap);
	va_end(ap);
}

void
log_warn(const char *fmt, ...)
{
	va_list	 ap;
	int	 e = errno;

	va_start(ap, fmt);
	vlog(LOG_LVL_WARN, e, fmt, ap);
	va_end(ap);
}

void
log_warnx(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog(LOG_LVL_WARN, -1, fmt, ap);
	va_end(ap);
}

void
fatal(const char *fmt, ...)
{
	va_list	 ap;
	int	 e = errno;

	va_start(ap, fmt);
	vlog(LOG_LVL_ERR, e, fmt, ap);
	va_end(ap);
	exit(1);	/* atexit_fini: the line is written first */
}

void
fatalx(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog(LOG_LVL_ERR, -1, fmt, ap);
	va_end(ap);
	exit(1);	/* atexit_fini: the line is written first */
}

/* ---- rate limit ------------------------------------------------------ */

int
log_limit_take(struct log_limit *l, int64_t now_ns, uint64_t *suppressed)
{
	int64_t	 full = (int64_t)LOG_LIMIT_BURST * 1000, dt, add;

	if (l->last_ns == 0) {
		l->milli = full;
		l->last_ns = now_ns;
	}
	/* refill by whole milli-tokens, and move last_ns by what they
	 * took: calls closer together than one still add up */
	dt = now_ns - l->last_ns;
	if (dt > (int64_t)100 * 1000000000) {	/* a full bucket anyway */
		l->milli = full;
		l->last_ns = now_ns;
	} else if (dt > 0) {
		add = dt * LOG_LIMIT_RATE / 1000000;
		l->milli += add;
		l->last_ns += add * 1000000 / LOG_LIMIT_RATE;
		if (l->milli >= full) {
			l->milli = full;
			l->last_ns = now_ns;
		}
	}
	if (l->milli < 1000) {
		l->suppressed++;
		return 0;
	}
	l->milli -= 1000;
	*suppressed = l->suppressed;
	l->suppressed = 0;
	return 1;
}

void
log_limited(struct log_limit *l, enum log_level level, const char *fmt, ...)
{
	struct timespec	 now;
	char		 msg[LOG_MSG_MAX];
	uint64_t	 supp;
	va_list		 ap;
	size_t		 n;
	int		 saved = errno;

	if (level > lg.level)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!log_limit_take(l, (int64_t)now.tv_sec * 1000000000LL +
	    now.tv_nsec, &supp))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (supp > 0) {
		n = strlen(msg);
		snprintf(msg + n, sizeof(msg) - n, " (%" PRIu64 " similar "
		    "line%s suppressed)", supp, supp == 1 ? "" : "s");
	}
	submit(level, msg);
	errno = saved;
}
