/*
 * conf_nodes.c - console.nodes entries: addresses, ranges, node files.
 * See conf_nodes.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_nodes.h"

/*
 * "A.B.C.D" or "A.B.C.D/P": the first host and the count into *first,
 * *count.  0, or -1 with why.
 */
static int
parse_range(const char *s, uint32_t *first, uint32_t *count, char *why,
    size_t len)
{
	char		 a[INET_ADDRSTRLEN], *end;
	const char	*slash = strchr(s, '/');
	struct in_addr	 in;
	uint32_t	 base, mask;
	long		 p;

	if (slash == NULL) {
		if (inet_pton(AF_INET, s, &in) != 1) {
			snprintf(why, len, "\"%s\" is not an IPv4 address, a "
			    "range (10.0.0.0/24) or a node file (@/path)", s);
			return -1;
		}
		*first = ntohl(in.s_addr);
		*count = 1;
		return 0;
	}
	if ((size_t)(slash - s) >= sizeof(a)) {
		snprintf(why, len, "\"%s\" is not an IPv4 range", s);
		return -1;
	}
	memcpy(a, s, (size_t)(slash - s));
	a[slash - s] = '\0';
	errno = 0;
	p = strtol(slash + 1, &end, 10);
	if (inet_pton(AF_INET, a, &in) != 1 || slash[1] < '0' ||
	    slash[1] > '9' || *end != '\0' || errno != 0 || p < 0 || p > 32) {
		snprintf(why, len, "\"%s\" is not an IPv4 range (e.g. "
		    "10.0.0.0/24)", s);
		return -1;
	}
	base = ntohl(in.s_addr);
	mask = p == 0 ? 0 : ~(uint32_t)0 << (32 - p);
	if ((base & ~mask) != 0) {
		in.s_addr = htonl(base & mask);
		inet_ntop(AF_INET, &in, a, sizeof(a));
		snprintf(why, len, "\"%s\" has host bits set (the range is "
		    "%s/%ld)", s, a, p);
		return -1;
	}
	if (p < 32 - 15) {	/* 2^15 hosts and more: never valid */
		snprintf(why, len, "\"%s\" has more than %d addresses", s,
		    CONF_NODES_MAX);
		return -1;
	}
	if (p >= 31) {		/* RFC 3021: both addresses are hosts */
		*first = base;
		*count = p == 32 ? 1 : 2;
	} else {		/* not the network, not the broadcast */
		*first = base + 1;
		*count = (~mask) - 1;
	}
	if (*count > CONF_NODES_MAX) {
		snprintf(why, len, "\"%s\" has %u addresses; at most %d", s,
		    *count, CONF_NODES_MAX);
		return -1;
	}
	return 0;
}

int
confnodes_entry_valid(const char *s, char *why, size_t len)
{
	uint32_t	 first, count;

	if (s[0] == '@') {
		if (s[1] != '/') {
			snprintf(why, len, "node file \"%s\": the path must be "
			    "absolute (@/etc/dts/nodes)", s + 1);
			return -1;
		}
		return 0;
	}
	return parse_range(s, &first, &count, why, len);
}

/* Append count addresses from first; -1 with why past cap. */
static int
append(struct in_addr *out, int *n, int cap, uint32_t first, uint32_t count,
    char *why, size_t len)
{
	if (count > (uint32_t)(cap - *n)) {
		snprintf(why, len, "more than %d addresses", cap);
		return -1;
	}
	for (uint32_t i = 0; i < count; i++)
		out[(*n)++].s_addr = htonl(first + i);
	return 0;
}

/* The lines of a node file. */
static int
read_file(const char *path, struct in_addr *out, int *n, int cap, char *why,
    size_t len)
{
	char		 line[256], w[200], *s, *e;
	uint32_t	 first, count;
	FILE		*f;
	int		 no = 0, rc = 0;

	if ((f = fopen(path, "re")) == NULL) {
		snprintf(why, len, "node file %s: %s", path, strerror(errno));
		return -1;
	}
	while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
		no++;
		if (strchr(line, '\n') == NULL && !feof(f)) {
			snprintf(why, len, "%s line %d: too long", path, no);
			rc = -1;
			break;
		}
		line[strcspn(line, "#\n")] = '\0';
		s = line + strspn(line, " \t\r");
		for (e = s + strlen(s); e > s && strchr(" \t\r", e[-1]); e--)
			;
		*e = '\0';
		if (*s == '\0')
			continue;
		if (parse_range(s, &first, &count, w, sizeof(w)) == -1 ||
		    append(out, n, cap, first, count, w, sizeof(w)) == -1) {
			snprintf(why, len, "%s line %d: %s", path, no, w);
			rc = -1;
		}
	}
	if (rc == 0 && ferror(f)) {
		snprintf(why, len, "node file %s: read error", path);
		rc = -1;
	}
	fclose(f);
	return rc;
}

static int
cmp_addr(const void *a, const void *b)
{
	uint32_t	 x = ntohl(((const struct in_addr *)a)->s_addr);
	uint32_t	 y = ntohl(((const struct in_addr *)b)->s_addr);

	return x < y ? -1 : x > y;
}

int
confnodes_expand(const struct conf_strlist *l, struct in_addr *out, int cap,
    char *why, size_t len)
{
	struct in_addr	*sorted;
	uint32_t	 first, count;
	char		 w[300], a[INET_ADDRSTRLEN];
	int		 i, n = 0;

	for (i = 0; i < l->n; i++) {
		if (l->s[i][0] == '@') {
			if (confnodes_entry_valid(l->s[i], w, sizeof(w)) ==
			    -1 || read_file(l->s[i] + 1, out, &n, cap, w,
			    sizeof(w)) == -1) {
				snprintf(why, len, "%s", w);
				return -1;
			}
			continue;
		}
		if (parse_range(l->s[i], &first, &count, w, sizeof(w)) == -1 ||
		    append(out, &n, cap, first, count, w, sizeof(w)) == -1) {
			snprintf(why, len, "entry %d: %s", i + 1, w);
			return -1;
		}
	}
	/* an address twice would get every command twice */
	if (n < 2)
		return n;
	if ((sorted = malloc((size_t)n * sizeof(*sorted))) == NULL) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	memcpy(sorted, out, (size_t)n * sizeof(*sorted));
	qsort(sorted, (size_t)n, sizeof(*sorted), cmp_addr);
	for (i = 1; i < n; i++)
		if (sorted[i].s_addr == sorted[i - 1].s_addr) {
			inet_ntop(AF_INET, &sorted[i], a, sizeof(a));
			snprintf(why, len, "%s is named twice", a);
			free(sorted);
			return -1;
		}
	free(sorted);
	return n;
}
