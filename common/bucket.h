/*
 * bucket.h - token buckets, per source address, checked before any
 * cryptography.
 *
 * A receiver spends one token per datagram that got as far as the
 * signature check.  Each source (IPv4 address) has a bucket of `burst`
 * tokens refilled at `rate` per second, and all sources together share
 * one more bucket (the global cap), so that a flood from many forged
 * addresses still costs at most rate_all verifications a second.  The
 * table has BUCKET_SOURCES entries; when it is full, the source heard
 * longest ago is forgotten (a new source starts with a full bucket, which
 * is what a legitimate console needs).  Times are CLOCK_MONOTONIC ns,
 * passed in so that tests control them.  Not thread-safe: one receiver
 * thread owns a table.
 */
#ifndef DTS_BUCKET_H
#define DTS_BUCKET_H

#include <stdint.h>

#define BUCKET_SOURCES 64

/* Defaults of the node's intake (dts): see doc/protocol.txt. */
#define BUCKET_RATE      400   /* per source, datagrams/s */
#define BUCKET_BURST     400
#define BUCKET_RATE_ALL  1000  /* all sources together */
#define BUCKET_BURST_ALL 1000

struct bucket {
	int64_t  milli;        /* tokens * 1000 */
	int64_t  last_ns;      /* last refill */
};

struct buckets {
	int64_t  rate, burst;          /* per source */
	struct bucket all;
	int64_t  rate_all, burst_all;
	unsigned n;
	struct {
		uint32_t addr;         /* network order */
		struct bucket b;
	} src[BUCKET_SOURCES];
};

void buckets_init(struct buckets *t, int64_t rate, int64_t burst,
		  int64_t rate_all, int64_t burst_all, int64_t now_ns);

/*
 * One datagram from addr at now_ns: 0 and a token spent from addr's
 * bucket and the global one, or -1 if either is empty (nothing spent).
 * exempt: addr is the current master, limited by its own bucket only, so
 * that a flood from forged addresses cannot starve it.
 */
int buckets_take(struct buckets *t, uint32_t addr, int exempt, int64_t now_ns);

#endif /* DTS_BUCKET_H */
