/*
 * log.h - one small logging API for every DTS program.
 *
 * dts must never write to stdout/stderr (PVM reads them for the start-up
 * handshake), so daemons log to syslog or to a file; -v sends it to stderr.
 *
 * Logging never blocks a real-time caller.  A daemon calls log_async_start()
 * once it is up: from then on log_*() format the line, copy it into a
 * bounded queue in memory (under a priority-inheriting mutex held for that
 * copy alone) and return; a logger thread at SCHED_OTHER does the writes
 * (syslog(), which blocks while /dev/log is full, the file, stderr).  When
 * the queue is full a line is dropped and counted; the next line written
 * is preceded by "(N log lines dropped: the log was full)".  Before
 * log_async_start(), in a forked child and in short-lived tools (dts-run,
 * dts-console, dts-pvmjoin) every line is written at once, by the caller.
 */
#ifndef DTS_LOG_H
#define DTS_LOG_H

#include <stdarg.h>
#include <stdint.h>

enum log_level { LOG_LVL_ERR = 0, LOG_LVL_WARN, LOG_LVL_INFO, LOG_LVL_DEBUG };

/* Their names ("err", ...), the one table (names.h): log_level in dts.conf. */
extern const char *const log_level_names[];

enum log_dest { LOG_TO_SYSLOG = 0, LOG_TO_FILE, LOG_TO_STDERR };

/*
 * Returns 0, or -1 if the file cannot be used (then logs go to syslog).
 * The file is opened O_APPEND|O_NOFOLLOW|O_CLOEXEC (created 0640 if it
 * does not exist) and refused with errno EPERM unless it is a regular
 * file owned by root (by the caller's uid when not root) that neither
 * group nor other may write; log_file_why() then says which.  Called
 * before log_async_start() (or after log_fini()), never while the logger
 * thread runs.
 */
int  log_init(const char *ident, enum log_dest dest, const char *file,
    enum log_level level);
void log_fini(void);
void log_set_level(enum log_level level);

/* Why log_init() refused its file (one phrase), or "" when it did not. */
const char *log_file_why(void);

/*
 * Start the logger thread (SCHED_OTHER, explicit attributes: it never
 * inherits the caller's real-time policy, nor holds a lock the caller
 * needs).  Call it after the privileges are dropped: the thread keeps the
 * capabilities it was created with.  0, or -1 with errno (logging stays
 * synchronous).  log_fini() stops it, after it wrote what was queued
 * (waiting at most LOG_DRAIN_MS; a thread stuck in a write is left to
 * exit()), and so does exit().  A forked child writes synchronously.
 */
int  log_async_start(void);
#define LOG_QUEUE_LINES 256
#define LOG_DRAIN_MS    2000

/* Lines the queue had no room for since log_async_start(). */
uint64_t log_dropped(void);

void log_debug(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
/* log_warn and fatal add strerror(errno); the x forms do not. */
void log_warn(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
/* fatal: the line is written (the queue first, for at most LOG_DRAIN_MS),
 * then exit(1). */
void fatal(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));
void fatalx(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

/*
 * Rate limit for a line that untrusted input can trigger (a refusal on
 * the adoption socket, a bad datagram): one struct log_limit per call
 * site, static and zeroed (LOG_LIMIT_INIT), owned by one thread (it is
 * not locked).  A token bucket of LOG_LIMIT_BURST lines refilled at
 * LOG_LIMIT_RATE lines a second; a line that finds it empty is counted,
 * not formatted.  The next line that passes ends in
 * " (N similar lines suppressed)".  Like log_warnx: no strerror(errno).
 *
 *	static struct log_limit lim = LOG_LIMIT_INIT;
 *	log_limited(&lim, LOG_LVL_WARN, "join refused: pid %d: %s", pid, why);
 */
#define LOG_LIMIT_RATE  10	/* lines a second, per call site */
#define LOG_LIMIT_BURST 20

struct log_limit {
	int64_t		 milli;		/* tokens * 1000 */
	int64_t		 last_ns;	/* CLOCK_MONOTONIC; 0: never used */
	uint64_t	 suppressed;	/* since the last line that passed */
};
#define LOG_LIMIT_INIT { 0, 0, 0 }

void log_limited(struct log_limit *l, enum log_level level,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * The bucket alone, at now_ns (unit tests pass their own clock): 1 if a
 * line may pass (*suppressed: the lines suppressed before it, now reset),
 * 0 if it is suppressed (counted).
 */
int log_limit_take(struct log_limit *l, int64_t now_ns, uint64_t *suppressed);

#endif /* DTS_LOG_H */
