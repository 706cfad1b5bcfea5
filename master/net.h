/*
 * net.h - the console's UDP socket: sealed datagrams out to the nodes,
 * checked datagrams in.
 *
 * Destinations, first that applies: the hosts of the host file the
 * console read last (`hosts FILE`); the addresses of console.nodes; with
 * console.unicast, the address of every PVM host; otherwise the broadcast
 * address of every up, non-loopback IPv4 interface that has one (or
 * 127.0.0.1 if there is none).  The port is the nodes' `port`.
 * Commands are signed with the console's key pair (console.sign_key).
 * Incoming datagrams go through proto_frame() and proto_verify() (length,
 * magic/version, type, payload length, the MAC under the key of the node
 * at the source address, derived from console.node_secret, replay,
 * ranges) with the console's own replay state; anything wrong is dropped and counted by reason, as are
 * datagrams of a type a console does not take (it takes STATUS, LOAD and
 * TRACE) and our own broadcasts.
 */
#ifndef DTS_MASTER_NET_H
#define DTS_MASTER_NET_H

#include <netinet/in.h>
#include <stdint.h>

#include "auth.h"
#include "conf.h"
#include "nodes.h"

/* Destinations at most: console.nodes may name a cluster (a range, a
 * node file); the node table holds as many. */
#define NET_DST_MAX NODES_TABLE_MAX
#define NET_BATCH   256		/* datagrams a sendmmsg() */
#define NET_RCV_PER_NODE 2048	/* receive buffer a destination (bytes) */
#define NET_RX_BATCH 64		/* datagrams a recvmmsg() */

/* Datagrams read with one recvmmsg(), handed out one by one. */
struct net_rx {
	uint8_t			 buf[NET_RX_BATCH][PROTO_MAX_DGRAM + 1];
	struct sockaddr_in	 from[NET_RX_BATCH];
	unsigned		 len[NET_RX_BATCH];
	int			 n, next;
};

/*
 * A node's replay entry.  Its replies are under its own key, derived from
 * its address, so the address names the sender: one entry a node keeps
 * every node's sequences however many nodes answer (a table of senders
 * evicts, and an evicted node's next reply must beat the floor that the
 * eviction raised to another node's clock).  It also keeps the node's key,
 * derived at its first reply, not at every one.
 */
struct net_peer {
	struct in_addr		 addr;
	struct replay_entry	 e;
	uint8_t			 key[AUTH_KEY_LEN];	/* its key, derived */
	int			 keyed;			/* ... once */
};

enum net_how { NET_BROADCAST = 0, NET_UNICAST, NET_LIST, NET_HOSTFILE };

struct net {
	int		 fd;		/* -1: closed (sends are only counted) */
	int		 port;
	enum net_how	 how;
	struct auth_key	 key;
	struct seqgen	 seq;
	struct replay	 replay;	/* clocks and floors; the entries: */
	struct net_peer	*peer;		/* one a node address, sorted, room */
	int		 npeer;		/* ... for NET_DST_MAX (net_init) */
	struct net_rx	*rx;		/* with the socket */
	struct in_addr	 group;		/* console.group: SCHEDULEs to it */
	int		 have_group;
	struct in_addr	*list;		/* all but NET_BROADCAST: room for
					   NET_DST_MAX (net_init) */
	int		 nlist;
	char		 list_from[128];	/* NET_HOSTFILE: the file */
	uint64_t	 sent, send_errors, received;
	uint64_t	 dropped[REJ_COUNT];
	uint64_t	 own;		/* our own datagrams heard back */
	int64_t		 stepped_us;	/* CLOCK_REALTIME step seen, not told */
	int		 keyless;	/* no key pair or no node secret */
	char		 keyless_why[256];	/* ... why, in a line */
	/* keyless: the read keys of console_keys (auth.h), for status and
	 * jobs; rkey.npub 0: none, read_why says why */
	struct auth_key	 rkey;
	char		 read_why[256];
	/* tests: every message sent, before it is sealed */
	void		(*tap)(void *, struct in_addr, const struct proto_msg *);
	void		*tap_arg;
};

/*
 * Set up from the configuration: key (unless insecure), destinations
 * (console.nodes: addresses, ranges and node files, common/nodelist.h),
 * socket.  0, or -1 with err.  open_socket = 0 (tests) leaves fd = -1.
 * A console without its key pair (console.sign_key) or the nodes' secret
 * (console.node_secret) starts all the same, keyless: it can neither
 * sign a command nor check a reply, so it sends no command (net_keyless);
 * with the read keys of console_keys it makes read requests
 * (net_send_read: status and jobs, read-only).
 */
int net_init(struct net *n, const struct dts_conf *c, int open_socket,
    char *err, size_t errlen);

/* NET_UNICAST: the PVM hosts' addresses. */
void net_set_hosts(struct net *n, const struct vm_hosts *h);

/*
 * The hosts of an MPI host file (the console's `hosts FILE`), from then
 * on: they replace console.nodes, unicast and broadcast.
 */
void net_set_list(struct net *n, const struct in_addr *a, int k,
    const char *from);

/* The destinations of the next send; returns how many (max cap). */
int net_destinations(const struct net *n, struct in_addr *out, int cap);

/* Seal msg and send it to every destination; returns destinations
 * reached, -1 if none. */
int net_send(struct net *n, struct proto_msg *msg);

/*
 * Seal msg[i] for dst[i], every one of the k first, then send them one
 * after the other: the signatures do not come between the nodes'
 * arrivals.  Messages with the same content (nodes with the same slot
 * table) share one sealed datagram: one signature, not one a node.
 * Returns the destinations reached, -1 if none.
 */
int net_send_each(struct net *n, const struct in_addr *dst,
    struct proto_msg *msg, int k);

/* Seal msg and send it to one node; 0 or -1. */
int net_send_to(struct net *n, struct in_addr dst, struct proto_msg *msg);

/*
 * Receive one datagram: 1 with msg and from, 0 if nothing is waiting,
 * 2 if one was dropped (counted).  The socket is read NET_RX_BATCH
 * datagrams a system call; net_pending() says how many of them are still
 * to be handed out (poll() does not see those).
 */
int net_recv(struct net *n, struct proto_msg *msg, struct sockaddr_in *from);
int net_pending(const struct net *n);

/* Check one datagram as net_recv does (for tests); 0 or -1 (counted). */
int net_accept(struct net *n, const uint8_t *buf, size_t len,
    struct in_addr from, struct proto_msg *msg);

/* "broadcast 10.0.0.255", "unicast to 3 PVM hosts", "list 127.0.0.1" */
const char *net_describe(const struct net *n, char *buf, size_t len);

/*
 * A keyless console: -1 with "what: no console key (why): ..." in err
 * (what NULL: no prefix); 0 if it has its keys.
 */
int net_keyless(const struct net *n, const char *what, char *err,
    size_t errlen);

/*
 * A keyless console that can make read requests (auth.h): 1 if it is
 * keyless and has a read key, 0 if it has its keys, -1 with a line in
 * err (prefixed with what) if it is keyless and console_keys is empty.
 */
int net_reader(const struct net *n, const char *what, char *err,
    size_t errlen);

/*
 * A read request (a STATUS_REQ or a JOB_REQ) to every destination, under
 * the read key of the first of console_keys.  Destinations reached, or -1.
 * Its replies pass net_accept under the same read keys, and only STATUS
 * and JOB do.
 */
int net_send_read(struct net *n, struct proto_msg *msg);

uint64_t net_dropped_total(const struct net *n);

void net_close(struct net *n);

#endif /* DTS_MASTER_NET_H */
