/*
 * log.c - the one logging API of every DTS program.
 *
 * Three destinations: syslog (the default, also before log_init()), a file
 * opened for appending with one "time ident[pid] level: message" line per
 * record, or stderr (foreground, -d).  Nothing is ever written to stdout:
 * PVM reads a slave pvmd's stdout for its start-up handshake.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

#define LOG_MSG_MAX 1024

static struct {
	char		 ident[64];
	enum log_dest	 dest;
	enum log_level	 level;
	FILE		*fp;		/* LOG_TO_FILE */
	int		 syslog_open;
} lg = { "", LOG_TO_SYSLOG, LOG_LVL_INFO, NULL, 0 };

const char *const log_level_names[] = {
	[LOG_LVL_ERR] = "err", [LOG_LVL_WARN] = "warn", [LOG_LVL_INFO] = "info",
	[LOG_LVL_DEBUG] = "debug", NULL
};

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

static FILE *
open_file(const char *file)
{
	FILE	*fp;
	int	 fd;

	fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY,
	    0640);
	if (fd == -1)
		return NULL;
	if ((fp = fdopen(fd, "a")) == NULL) {
		close(fd);
		return NULL;
	}
	setvbuf(fp, NULL, _IOLBF, 0);
	return fp;
}

int
log_init(const char *ident, enum log_dest dest, const char *file,
    enum log_level level)
{
	int	 saved;

	close_dest();
	snprintf(lg.ident, sizeof(lg.ident), "%s", ident != NULL ? ident : "");
	lg.level = level;
	lg.dest = dest;
	switch (dest) {
	case LOG_TO_FILE:
		if (file != NULL && (lg.fp = open_file(file)) != NULL)
			return 0;
		saved = file != NULL ? errno : EINVAL;
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
log_fini(void)
{
	close_dest();
	lg.dest = LOG_TO_SYSLOG;
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
stamp(char *buf, size_t len)
{
	struct timespec	 ts;
	struct tm	 tm;
	char		 date[32], zone[8];

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	strftime(zone, sizeof(zone), "%z", &tm);
	snprintf(buf, len, "%s.%03ld%s", date, ts.tv_nsec / 1000000L, zone);
}

static void
emit_stream(FILE *fp, enum log_level level, const char *msg)
{
	char	 ts[64];

	stamp(ts, sizeof(ts));
	fprintf(fp, "%s %s[%ld] %s: %s\n", ts,
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
	sanitize(msg);
	switch (lg.dest) {
	case LOG_TO_FILE:
		if (lg.fp != NULL) {
			emit_stream(lg.fp, level, msg);
			break;
		}
		/* FALLTHROUGH */
	case LOG_TO_SYSLOG:
		syslog(syslog_prio(level), "%s", msg);
		break;
	case LOG_TO_STDERR:
		emit_stream(stderr, level, msg);
		break;
	}
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
	exit(1);
}

void
fatalx(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog(LOG_LVL_ERR, -1, fmt, ap);
	va_end(ap);
	exit(1);
}
