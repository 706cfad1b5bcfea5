/*
 * memsize.c - sizes of memory in dts.conf.  See memsize.h.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "memsize.h"

/* The power of 1024 of a suffix ("", "k", "KiB", "mb", ...), or -1. */
static int
suffix_shift(const char *p)
{
	static const char	 letters[] = "kmgt";
	const char		*l;

	if (*p == '\0')
		return 0;
	if (strcasecmp(p, "b") == 0)
		return 0;
	if ((l = strchr(letters, tolower((unsigned char)*p))) == NULL)
		return -1;
	p++;
	if (*p != '\0' && strcasecmp(p, "b") != 0 && strcasecmp(p, "ib") != 0)
		return -1;
	return (int)(l - letters + 1) * 10;
}

int
memsize_parse(const char *s, uint64_t ram, uint64_t *out, char *why,
    size_t len)
{
	char	*end;
	double	 v;
	int	 shift;

	*out = 0;
	if (s[0] == '\0')
		return 0;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno != 0 || !isfinite(v) || v <= 0 ||
	    !isdigit((unsigned char)s[0])) {
		snprintf(why, len, "\"%s\" is not a size (\"50%%\" of RAM, or "
		    "bytes such as \"12G\", \"512M\")", s);
		return -1;
	}
	while (*end == ' ')
		end++;
	if (strcmp(end, "%") == 0) {
		if (v > 100) {
			snprintf(why, len, "\"%s\" is more than 100%% of RAM",
			    s);
			return -1;
		}
		*out = (uint64_t)((double)ram * v / 100);
		return 0;
	}
	if ((shift = suffix_shift(end)) == -1) {
		snprintf(why, len, "\"%s\": unknown unit \"%s\" (K, M, G, T or "
		    "%%)", s, end);
		return -1;
	}
	if (v * (double)(1ULL << shift) >= 18e18) {
		snprintf(why, len, "\"%s\" is too large", s);
		return -1;
	}
	*out = (uint64_t)(v * (double)(1ULL << shift));
	return 0;
}

char *
memsize_fmt(uint64_t bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double	 v = (double)bytes;
	int	 u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%.1f %s", v, unit[u]);
	return buf;
}

uint64_t
memsize_ram(void)
{
	FILE			*f = fopen("/proc/meminfo", "re");
	unsigned long long	 kb = 0;
	char			 line[128];

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb * 1024;
}
