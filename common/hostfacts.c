/*
 * hostfacts.c - a node's CPUs, users and free RAM for STATUS.  See
 * hostfacts.h.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <utmpx.h>

#include "cgroup.h"
#include "hostfacts.h"
#include "memsize.h"
#include "proc.h"
#include "timeutil.h"

uint64_t
hostfacts_mem_available(const char *meminfo)
{
	const char		*p = strstr(meminfo, "MemAvailable:");
	unsigned long long	 kb;

	if (p == NULL || sscanf(p, "MemAvailable: %llu kB", &kb) != 1)
		return 0;
	return (uint64_t)kb * 1024;
}

static int
number(const char *s, uint64_t *out)
{
	char			*end;
	unsigned long long	 v;

	v = strtoull(s, &end, 10);
	if (end == s || (*end != '\0' && *end != '\n'))
		return -1;
	*out = v;
	return 0;
}

uint64_t
hostfacts_room(const char *limit, const char *usage, uint64_t ram)
{
	uint64_t	 lim, use;

	if (strncmp(limit, "max", 3) == 0)
		return UINT64_MAX;
	if (number(limit, &lim) == -1 || number(usage, &use) == -1)
		return UINT64_MAX;
	if (ram > 0 && lim >= ram)
		return UINT64_MAX;
	return lim > use ? lim - use : 0;
}

/* The mount point of the v1 hierarchy with the memory controller. */
static int
v1_memory_mount(char *buf, size_t len)
{
	char	 dev[256], dir[PATH_MAX], type[64], opts[512];
	FILE	*f = fopen("/proc/self/mounts", "re");
	int	 found = -1;

	if (f == NULL)
		return -1;
	while (fscanf(f, "%255s %4095s %63s %511s %*[^\n]", dev, dir, type,
	    opts) == 4) {
		if (strcmp(type, "cgroup") != 0)
			continue;
		if (strstr(opts, "memory") == NULL)
			continue;
		if ((size_t)snprintf(buf, len, "%s", dir) < len)
			found = 0;
		break;
	}
	fclose(f);
	return found;
}

/* h->memcg: dts's own memory cgroup, v2 if it has memory.max, else v1. */
static void
find_memcg(struct hostfacts *h)
{
	char	 text[4096], mnt[PATH_MAX], path[PATH_MAX + 64], *line, *save;

	h->memcg[0] = '\0';
	if (proc_read_small("/proc/self/cgroup", text, sizeof(text)) == -1)
		return;
	for (line = strtok_r(text, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		char	*ctl = strchr(line, ':'), *cg;

		if (ctl == NULL || (cg = strchr(++ctl, ':')) == NULL)
			continue;
		*cg++ = '\0';
		if (*ctl == '\0' && cg_mount(mnt, sizeof(mnt)) == 0) {
			if ((size_t)snprintf(path, sizeof(path),
			    "%s%s/memory.max", mnt, cg) < sizeof(path) &&
			    access(path, R_OK) == 0 &&
			    (size_t)snprintf(h->memcg, sizeof(h->memcg),
			    "%s%s", mnt, cg) < sizeof(h->memcg)) {
				h->memcg_v2 = 1;
				return;
			}
		} else if (strstr(ctl, "memory") != NULL &&
		    v1_memory_mount(mnt, sizeof(mnt)) == 0) {
			if ((size_t)snprintf(h->memcg, sizeof(h->memcg),
			    "%s%s", mnt, cg) >= sizeof(h->memcg))
				h->memcg[0] = '\0';
			h->memcg_v2 = 0;
			return;
		}
	}
}

static uint64_t
memcg_room(const struct hostfacts *h, uint64_t ram)
{
	char	 lim[64], use[64];

	if (h->memcg[0] == '\0')
		return UINT64_MAX;
	if (cg_read(h->memcg, h->memcg_v2 ? "memory.max" :
	    "memory.limit_in_bytes", lim, sizeof(lim)) == -1 ||
	    cg_read(h->memcg, h->memcg_v2 ? "memory.current" :
	    "memory.usage_in_bytes", use, sizeof(use)) == -1)
		return UINT64_MAX;
	return hostfacts_room(lim, use, ram);
}

static uint8_t
count_users(void)
{
	struct utmpx	*u;
	unsigned	 n = 0;

	setutxent();
	while ((u = getutxent()) != NULL)
		if (u->ut_type == USER_PROCESS && n < 255)
			n++;
	endutxent();
	return (uint8_t)n;
}

void
hostfacts_get(struct hostfacts *h, int64_t now_ns)
{
	char		 text[4096];
	uint64_t	 avail = UINT64_MAX, room, mib;
	int		 n;

	if (h->read_ns != 0 && now_ns - h->read_ns < NS_PER_SEC)
		return;
	h->read_ns = now_ns;
	find_memcg(h);	/* dts may have been moved since */
	if (proc_read_small("/proc/meminfo", text, sizeof(text)) == 0 &&
	    strstr(text, "MemAvailable:") != NULL)
		avail = hostfacts_mem_available(text);
	room = memcg_room(h, memsize_ram());
	if (room < avail)
		avail = room;
	mib = avail / (1024 * 1024);
	if (avail == UINT64_MAX)
		h->mem_mib = 0;		/* unknown */
	else
		h->mem_mib = mib < 1 ? 1 : mib > UINT32_MAX ? UINT32_MAX :
		    (uint32_t)mib;
	n = proc_ncpu();
	h->ncpu = (uint8_t)(n < 1 ? 0 : n > 255 ? 255 : n);
	h->users = count_users();
}
