/*
 * timeutil.c - clocks, and the duration and slice syntax.
 *
 * Durations are parsed exactly, in integers: "0.1s" is 100000000 ns, not
 * whatever 0.1 * 1e9 rounds to, and duration_format() prints a form that
 * parses back to the same number of nanoseconds.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/socket.h>

#include "timeutil.h"

#define FRAC_DIGITS_MAX 18	/* fraction digits kept; 10^18 fits int64 */

/* A non-negative decimal "III.FFF" taken apart without rounding. */
struct decimal {
	uint64_t ipart;		/* integer part */
	int	 ipart_big;	/* the integer part overflowed */
	uint64_t frac;		/* the first nfrac fraction digits */
	int	 nfrac;
	const char *end;	/* first character after the number */
};

/* unit = m0 * 10^e nanoseconds, so fractions convert exactly */
static const struct {
	const char	*name;
	int64_t		 ns;
	int		 m0, e;
} units[] = {
	{ "ns", 1, 1, 0 },
	{ "us", NS_PER_US, 1, 3 },
	{ "ms", NS_PER_MS, 1, 6 },
	{ "s",  NS_PER_SEC, 1, 9 },
	{ "m",  60 * NS_PER_SEC, 6, 10 },
};
#define NUNITS (sizeof(units) / sizeof(units[0]))

int64_t
now_mono_ns(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

int64_t
now_real_ns(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

int64_t
rx_real_ns(const struct msghdr *mh)
{
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm != NULL;
	    cm = CMSG_NXTHDR((struct msghdr *)mh, cm))
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec	 ts;

			memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
			return ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
		}
	return now_real_ns();
}

static uint64_t
pow10u(int n)
{
	uint64_t	 p = 1;

	while (n-- > 0)
		p *= 10;
	return p;
}

/* Returns the number of digits read; 0 means "not a number". */
static int
decimal_scan(const char *s, struct decimal *d)
{
	int	 ndig = 0;

	memset(d, 0, sizeof(*d));
	for (; *s >= '0' && *s <= '9'; s++, ndig++) {
		if (d->ipart > (UINT64_MAX - 9) / 10)
			d->ipart_big = 1;
		else
			d->ipart = d->ipart * 10 + (uint64_t)(*s - '0');
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, ndig++) {
			if (d->nfrac == FRAC_DIGITS_MAX)
				continue;	/* below any resolution we keep */
			d->frac = d->frac * 10 + (uint64_t)(*s - '0');
			d->nfrac++;
		}
	}
	d->end = s;
	return ndig;
}

/* frac/10^nfrac * m0 * 10^e, rounded to nearest. */
static uint64_t
frac_scale(const struct decimal *d, int m0, int e)
{
	uint64_t	 div;

	if (d->nfrac <= e)
		return d->frac * (uint64_t)m0 * pow10u(e - d->nfrac);
	div = pow10u(d->nfrac - e);
	return (d->frac * (uint64_t)m0 + div / 2) / div;
}

int
duration_parse(const char *s, int64_t *ns, char *err, size_t errlen)
{
	struct decimal	 d;
	uint64_t	 v, f;
	size_t		 i;

	if (s == NULL || *s == '\0') {
		snprintf(err, errlen, "\"\": empty duration (e.g. 800ms, 1s, "
		    "2.5s; a plain number is seconds)");
		return -1;
	}
	if (*s == '-') {
		snprintf(err, errlen, "\"%s\": a duration cannot be negative", s);
		return -1;
	}
	if (decimal_scan(s, &d) == 0 || *d.end == '.' ||
	    (*d.end >= '0' && *d.end <= '9')) {
		snprintf(err, errlen, "\"%s\": not a duration (e.g. 800ms, 1s, "
		    "2.5s; a plain number is seconds)", s);
		return -1;
	}
	for (i = 0; i < NUNITS; i++)
		if (strcmp(d.end, units[i].name) == 0)
			break;
	if (*d.end == '\0')
		i = 3;				/* seconds */
	else if (i == NUNITS) {
		snprintf(err, errlen, "\"%s\": unknown unit \"%s\" (use ns, us, "
		    "ms, s or m)", s, d.end);
		return -1;
	}
	f = frac_scale(&d, units[i].m0, units[i].e);
	if (d.ipart_big || d.ipart > (uint64_t)(INT64_MAX / units[i].ns) ||
	    (v = d.ipart * (uint64_t)units[i].ns) > (uint64_t)INT64_MAX - f) {
		snprintf(err, errlen, "\"%s\": too large (at most %" PRId64
		    " s)", s, (int64_t)(INT64_MAX / NS_PER_SEC));
		return -1;
	}
	*ns = (int64_t)(v + f);
	return 0;
}

static int
percent_parse(const char *s, int32_t *pct_milli, char *err, size_t errlen)
{
	struct decimal	 d;
	uint64_t	 pm;

	if (*s == '-' || decimal_scan(s, &d) == 0 || strcmp(d.end, "%") != 0) {
		snprintf(err, errlen, "\"%s\": not a percentage (e.g. 80%% or "
		    "62.5%%)", s);
		return -1;
	}
	pm = d.ipart_big || d.ipart >= 100 ? 100000 :
	    d.ipart * 1000 + frac_scale(&d, 1, 3);
	if (pm == 0 || pm >= 100000) {
		snprintf(err, errlen, "\"%s\": a share of IP must be more than "
		    "0%% and less than 100%%", s);
		return -1;
	}
	*pct_milli = (int32_t)pm;
	return 0;
}

int
slice_parse(const char *s, int64_t *ns, int32_t *pct_milli, char *err,
    size_t errlen)
{
	size_t	 len = s != NULL ? strlen(s) : 0;

	if (len > 0 && s[len - 1] == '%') {
		if (percent_parse(s, pct_milli, err, errlen) == -1)
			return -1;
		*ns = -1;
		return 0;
	}
	if (duration_parse(s, ns, err, errlen) == -1)
		return -1;
	*pct_milli = -1;
	return 0;
}

const char *
duration_format(int64_t ns, char *buf, size_t len)
{
	static const struct { const char *name; int64_t ns; } u[] = {
		{ "s", NS_PER_SEC }, { "ms", NS_PER_MS }, { "us", NS_PER_US },
	};
	const char	*sign = "";
	uint64_t	 v, q, r;
	size_t		 i;
	char		 frac[8];
	int		 n;

	if (ns < 0) {
		sign = "-";
		v = (uint64_t)0 - (uint64_t)ns;
	} else
		v = (uint64_t)ns;
	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		/* at least one whole unit, at most three decimals */
		if (v < (uint64_t)u[i].ns || v % (uint64_t)(u[i].ns / 1000) != 0)
			continue;
		q = v / (uint64_t)u[i].ns;
		r = v % (uint64_t)u[i].ns / (uint64_t)(u[i].ns / 1000);
		frac[0] = '\0';
		if (r != 0) {
			n = snprintf(frac, sizeof(frac), ".%03u", (unsigned)r);
			while (n > 1 && frac[n - 1] == '0')
				frac[--n] = '\0';
		}
		snprintf(buf, len, "%s%" PRIu64 "%s%s", sign, q, frac, u[i].name);
		return buf;
	}
	snprintf(buf, len, "%s%" PRIu64 "%s", sign, v, v == 0 ? "s" : "ns");
	return buf;
}
