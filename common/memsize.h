/*
 * memsize.h - sizes of memory as dts.conf writes them: "50%" of the
 * node's RAM, or bytes with a binary suffix ("12G", "512M", "4096").
 */
#ifndef DTS_MEMSIZE_H
#define DTS_MEMSIZE_H

#include <stddef.h>
#include <stdint.h>

/*
 * s to bytes into *out: "P%" is P percent of ram (P in (0, 100], with
 * decimals), "N" bytes, "NK"/"NM"/"NG"/"NT" (or with "iB" or "B" after
 * the letter, any case) N times 1024^k, N with decimals.  "" is 0 (the
 * caller's default).  0, or -1 with a one-line why.
 */
int  memsize_parse(const char *s, uint64_t ram, uint64_t *out, char *why,
		   size_t len);

/* bytes as "12.0 GiB" (or MiB, KiB, B) into buf; returns buf. */
char *memsize_fmt(uint64_t bytes, char *buf, size_t len);

/* The node's RAM (MemTotal of /proc/meminfo), bytes; 0 if unknown. */
uint64_t memsize_ram(void);

#endif /* DTS_MEMSIZE_H */
