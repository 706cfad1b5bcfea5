/*
 * intake.h - the node's UDP socket, served by a thread of its own.
 *
 * The slice edges are made by dts's main thread at SCHED_FIFO; nothing
 * that a stranger on the network can make expensive runs there.  The
 * intake thread (SCHED_FIFO above the gang, below the edges, and held to
 * a CPU budget: intake.c) reads every datagram and checks it in the
 * fixed order of doc/protocol.txt (the master's on a socket of its own,
 * read first: intake.c): length, magic/version, type for a node,
 * payload length, reserved fields, then the source's token bucket
 * (common/bucket.h), then the MAC, replay and payload ranges.  What passes
 * is queued for the main thread, which applies it and queues replies; the
 * intake thread seals (MAC) and sends those.  Both queues are short rings
 * under one mutex, each with an eventfd that says "not empty".
 */
#ifndef DTS_INTAKE_H
#define DTS_INTAKE_H

#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>

#include "auth.h"
#include "bucket.h"
#include "proto.h"

#define INTAKE_RING 64

/* A checked command, for the main thread. */
struct intake_cmd {
	struct proto_msg   m;
	struct sockaddr_in from;
	int64_t            rx_real;   /* kernel receive time, CLOCK_REALTIME */
	int64_t            rx_mono;   /* the same instant, CLOCK_MONOTONIC */
	int                read;      /* a read request (auth.h): 1 + the
					 index of the console key whose read
					 key tagged it; 0: a signed command */
};

/* A reply to seal and send. */
struct intake_out {
	struct proto_msg   m;
	struct sockaddr_in to;
	int                read;      /* the request's: 1 + i, sealed under
					 read key i; 0: under the node's key */
};

struct intake {
	int      fd;                  /* the UDP socket */
	int      mfd;                 /* the master's: connected to it (thread
					 only; -1 none) */
	int      mlive;               /* mfd is connected to a master, not
					 parked (intake.c) */
	struct sockaddr_in bound;     /* the address both are bound to */
	struct sockaddr_in mwant;     /* the master, set by intake_exempt */
	unsigned mgen, mgen_have;     /* mwant's changes; the thread's copy */
	struct sockaddr_in master;    /* the thread's copy of mwant: its own
					 socket, and exempt from the global
					 cap of the shared one */
	int      cmd_efd;             /* readable: commands wait (main polls) */
	int      out_efd;             /* readable: replies wait (thread polls) */
	pthread_t thread;
	int      running;
	int      stop;                /* atomic: the thread should end */

	pthread_mutex_t mu;           /* the two rings and the counters */
	struct intake_cmd cmd[INTAKE_RING];
	unsigned cmd_head, cmd_n;
	struct intake_out out[INTAKE_RING];
	unsigned out_head, out_n;
	uint32_t rejected[REJ_COUNT];   /* drops the main thread decided */
	uint64_t overflow;            /* a ring was full */

	/* the thread's own */
	struct auth_key key;
	struct replay replay;
	struct replay rreplay;        /* read requests' own (intake.c) */
	struct seqgen seq;
	struct buckets buckets;
	struct buckets mbuckets;      /* for the master's socket */
	uint32_t dropped[REJ_COUNT];    /* drops by reason (thread only) */
	int64_t  budget;              /* CPU budget left, ns (intake.c) */
	int      starved;             /* budget spent, not yet a quantum back */
	int64_t  gap_until;           /* no reading the shared socket before
					 (CLOCK_MONOTONIC ns: intake.c) */
	int64_t  flood_until;         /* a backlog was seen: drains are
					 spaced until then (intake.c) */
	int64_t  budget_at, budget_cpu; /* when it was last counted: the
					 clock and the thread's CPU time */
	int64_t  mbudget;             /* the master's socket's own (intake.c) */
	int      mstarved;
	int64_t  mcpu;                /* CPU spent on it since the last count */
	uint32_t msender;             /* the master's sender id and last
					 sequence, once one of its datagrams
					 passed (mpinned): intake.c */
	uint64_t mseq;
	int      mpinned;
	int64_t  mgap_until, mflood_until; /* gap_until and flood_until of
					 the master's socket */
	char     name[PROTO_NAME_LEN];
};

/* Bind addr:port (no thread yet).  0 or -1 with err. */
int  intake_open(struct intake *in, const char *addr, int port,
		 const struct auth_key *key, int64_t replay_window,
		 char *err, size_t errlen);

/*
 * Join the IPv4 multicast group (dts.conf group; "" joins nothing) on
 * the control socket: on the interface of its bound address, or, bound
 * to 0.0.0.0, on every interface that is up with multicast and an IPv4
 * address (loopback left out).  The console's SCHEDULEs to the group
 * then arrive as its broadcasts do.  The interfaces joined (0 for ""),
 * or -1 with err.
 */
int  intake_join(struct intake *in, const char *group, char *err,
		 size_t errlen);

/* Start the thread at SCHED_FIFO prio.  0 or -1. */
int  intake_start(struct intake *in, int prio);

/* Main thread: the next checked command; 1, or 0 if none is waiting. */
int  intake_next(struct intake *in, struct intake_cmd *c);

/*
 * Main thread: seal m and send it to `to` (done by the intake thread).
 * For a STATUS or a METRICS, the intake thread adds its drop counters and
 * the host name.  -1 if the ring is full (counted).
 */
int  intake_send(struct intake *in, const struct proto_msg *m,
		 const struct sockaddr_in *to);

/* intake_send() of the reply to a command c: under the read key that
 * tagged c if it is a read request (c->read), else the node's key. */
int  intake_reply(struct intake *in, const struct proto_msg *m,
		  const struct intake_cmd *c);

/* Main thread: the master console's address is exempt from the global
 * cap, and its datagrams get a socket of their own (intake.c). */
void intake_exempt(struct intake *in, const struct sockaddr_in *master);

/* Main thread: count a drop the main thread decided (a schedule refused). */
void intake_reject(struct intake *in, enum proto_reject why);

/* Stop and join the thread, close everything. */
void intake_close(struct intake *in);

#endif /* DTS_INTAKE_H */
