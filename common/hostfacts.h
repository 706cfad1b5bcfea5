/*
 * hostfacts.h - what a node tells dts-place about itself in STATUS: its
 * online CPUs, its logged-in users, its free RAM.
 *
 * Free RAM is MemAvailable, or the room left under the limit of the memory
 * cgroup dts runs in (a container, a namespace host) if that is less.  The
 * values are read at most once a second (hostfacts_get's now), so a flood
 * of STATUS requests costs no more than one read a second.
 */
#ifndef DTS_HOSTFACTS_H
#define DTS_HOSTFACTS_H

#include <stdint.h>

struct hostfacts {
	int64_t  read_ns;      /* CLOCK_MONOTONIC of the last read, 0 never */
	uint32_t mem_mib;      /* free RAM in MiB (>= 1), 0 if unknown */
	uint8_t  users;        /* USER_PROCESS entries of utmp, <= 255 */
	uint8_t  ncpu;         /* online CPUs, <= 255 */
	char     memcg[256];   /* the memory cgroup's directory, "" none */
	int      memcg_v2;     /* memcg is a cgroup2 directory */
};

/* The facts, read again when the last read is a second older than now. */
void hostfacts_get(struct hostfacts *h, int64_t now_ns);

/* MemAvailable of a /proc/meminfo text, bytes; 0 if none. */
uint64_t hostfacts_mem_available(const char *meminfo);

/*
 * The room (limit - usage, bytes) of a memory cgroup from the texts of
 * its limit and usage files ("max" or a v1 limit at or above ram: no
 * limit, UINT64_MAX).  UINT64_MAX when either text is not a number.
 */
uint64_t hostfacts_room(const char *limit, const char *usage, uint64_t ram);

#endif
