/*
 * timeutil.h - clocks and the duration syntax shared by config, console and
 * daemons: "800ms", "1s", "2.5s", "250us", "1m"; a plain number is seconds.
 * Slices may also be given as a share of IP: "80%".
 */
#ifndef DTS_TIMEUTIL_H
#define DTS_TIMEUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define NS_PER_US  1000LL
#define NS_PER_MS  1000000LL
#define NS_PER_SEC 1000000000LL

int64_t now_mono_ns(void);
int64_t now_real_ns(void);
/* A datagram's kernel receive time (SO_TIMESTAMPNS, CLOCK_REALTIME) from
 * recvmsg's control data, or now if it has none. */
struct msghdr;
int64_t rx_real_ns(const struct msghdr *mh);
static inline uint64_t now_real_us(void) { return (uint64_t)(now_real_ns() / NS_PER_US); }
static inline uint64_t now_mono_us(void) { return (uint64_t)(now_mono_ns() / NS_PER_US); }

static inline struct timespec ns_to_ts(int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / NS_PER_SEC, .tv_nsec = ns % NS_PER_SEC };
	return ts;
}

/*
 * Parse a duration into nanoseconds.  Accepts a non-negative decimal number
 * with an optional unit ns, us, ms, s, m (default s).  Returns 0, or -1 with
 * a one-line reason in err.
 */
int duration_parse(const char *s, int64_t *ns, char *err, size_t errlen);

/*
 * Parse a slice: a duration, or a percentage "80%" (0 < p < 100, decimals
 * allowed).  On success sets exactly one of *ns (pct_milli = -1) or
 * *pct_milli (percent * 1000, *ns = -1).
 */
int slice_parse(const char *s, int64_t *ns, int32_t *pct_milli, char *err, size_t errlen);

/* Format a duration compactly ("1s", "800ms", "1.5ms", "250us") into buf. */
const char *duration_format(int64_t ns, char *buf, size_t len);

#endif /* DTS_TIMEUTIL_H */
