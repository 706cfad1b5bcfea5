/*
 * log.h - one small logging API for every DTS program.
 *
 * dts must never write to stdout/stderr (PVM reads them for the start-up
 * handshake), so daemons log to syslog or to a file; -d sends it to stderr.
 */
#ifndef DTS_LOG_H
#define DTS_LOG_H

#include <stdarg.h>

enum log_level { LOG_LVL_ERR = 0, LOG_LVL_WARN, LOG_LVL_INFO, LOG_LVL_DEBUG };

/* Their names ("err", ...), the one table (names.h): log_level in dts.conf. */
extern const char *const log_level_names[];

enum log_dest { LOG_TO_SYSLOG = 0, LOG_TO_FILE, LOG_TO_STDERR };

/* Returns 0, or -1 if the file cannot be opened (then logs go to syslog). */
int  log_init(const char *ident, enum log_dest dest, const char *file,
    enum log_level level);
void log_fini(void);
void log_set_level(enum log_level level);

void log_debug(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
/* log_warn and fatal add strerror(errno); the x forms do not. */
void log_warn(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
void fatal(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));
void fatalx(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

#endif /* DTS_LOG_H */
