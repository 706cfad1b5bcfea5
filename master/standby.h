/*
 * standby.h - a master and standby pair of consoles (console.peer).
 *
 * Two consoles that hold the same console key pair name each other in
 * console.peer; each has a UDP socket on console.peer_port.  The one
 * that commands the nodes (the master) sends a copy of every SCHEDULE it
 * sends, signed as the nodes' are, to its peer.  The other (the standby,
 * dts-console --standby) sends no SCHEDULE: it checks the copies (the
 * console key's signature, its own replay state for the peer, the
 * schedule's ranges), follows them (mode, sync, PS, IP, SI, origin,
 * started or not become its own schedule), and asks the nodes for their
 * STATUS every SI, so that its node table, and the slot tables it would
 * build from the nodes' jobs, are the master's.
 *
 * Takeover: when the master has been silent for 1.5 of its SIs
 * (standby_due), the standby sends the schedule it followed with
 * SCHED_F_TAKEOVER and is the master from then on.  A node's dead-man
 * switch fires after `silence`, never less than 2 SIs: the nodes never
 * fall back to their configuration, and go at most 1.5 SIs without a
 * schedule.  The nodes take one master, known by address and key: the
 * one that sent the last TAKEOVER.
 *
 * A master that hears its peer's SCHEDULE (an old master back, two
 * consoles started as master) becomes standby if the peer took over, or
 * if no node says it is ours (standby_yields); two takeovers within one
 * SI of each other are settled by the senders' ids, the same way on
 * both sides.  Hand back: `takeover` in the standby console (or SIGUSR1
 * to a --daemon standby) takes over with the schedule it follows; the
 * acting master hears the copy and becomes standby.
 *
 * Weights: the master also sends its peer the weights `set weight` gave
 * (the hosts', for BALANCED's RLA; the jobs', for the gang matrix), as a
 * snapshot of PROTO_WEIGHT datagrams, one entry each (proto.h), sealed
 * as the copies are: at once after every change, which bumps the
 * snapshot's generation, and again with the SI's copy, so that a
 * standby started later, or one that lost a datagram, has them within
 * an SI.  A standby collects the entries of the newest generation and
 * replaces both tables when it has them all: a weight cleared on the
 * master is cleared there, and a takeover keeps the master's weights,
 * so the schedule does not change.  Generations count per sender id (a
 * master run); applying a snapshot bumps the standby's own generation,
 * so that what it sends once it is master is newer than anything it
 * sent before.  A standby refuses `set weight`: the master's weights
 * are its own.
 *
 * Replay: both consoles sign with the same key but each has its own
 * random sender id (hdr.sender) and its own sequence: a node keeps one
 * replay entry for each, so neither's stamps are refused for the
 * other's, and a datagram of one cannot be replayed as the other's.
 * The nodes tell the two apart by address: the pair must be on two
 * hosts.
 */
#ifndef DTS_MASTER_STANDBY_H
#define DTS_MASTER_STANDBY_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "auth.h"
#include "balance.h"
#include "bucket.h"
#include "conf.h"
#include "matrix.h"
#include "net.h"
#include "nodes.h"
#include "out.h"
#include "proto.h"
#include "schedule.h"

enum sb_role {
	SB_NONE = 0,		/* no console.peer */
	SB_MASTER,		/* commands the nodes, copies to the peer */
	SB_STANDBY		/* follows the peer, sends no SCHEDULE */
};

/* The weights' snapshots (PROTO_WEIGHT). */
struct sb_weights {
	uint32_t		 own;		/* our generation, as master */
	int64_t			 next;		/* master: resend due with a copy */
	/* standby: the peer's generations, of one sender id */
	int			 heard;		/* sender is set */
	uint32_t		 sender;
	int			 done;		/* last is set */
	uint32_t		 last;		/* the last generation complete */
	int			 collecting;	/* gen is being collected */
	uint32_t		 gen;
	uint16_t		 count, have;
	uint8_t			 got[PROTO_WEIGHTS_MAX];
	struct proto_weight	 e[PROTO_WEIGHTS_MAX];
	uint64_t		 applied;	/* snapshots applied */
};

struct standby {
	/* the engine's parts it reads and changes (master_init sets them;
	 * standby_init keeps them) */
	const struct dts_conf	*conf;
	struct sch		*sch;
	struct net		*net;
	struct nodes		*nodes;
	struct weights		*weights;
	struct jobw		*jobw;
	struct out		*out;
	/* the master loop's: how long a node may be silent; send the
	 * takeover schedule (destinations reached, or -1 with out->err);
	 * stop our own SI broadcasts (we follow the peer) */
	void			*arg;
	int64_t			(*node_timeout)(const void *arg);
	int			(*take)(void *arg, int64_t now);
	void			(*follow)(void *arg);

	int			 role;		/* enum sb_role */
	int			 fd;		/* console.peer_port, or -1 */
	struct sockaddr_in	 peer;
	struct auth_key		 key;		/* the console public key */
	struct replay		 replay;	/* the peer's stamps */
	int64_t			 heard;		/* last copy, 0 = never */
	int64_t			 peer_si;	/* its SI, ns */
	uint32_t		 peer_id;	/* its hdr.sender */
	int64_t			 took;		/* our last takeover, 0 = never */
	int64_t			 next_poll;	/* standby: STATUS_REQ due */
	uint64_t		 copies, refused, takeovers, yields;
	/* the kernel's drops of a full socket (SO_RXQ_OVFL), at the last
	 * copy; takeovers postponed because of them (standby_timer) */
	uint32_t		 drops, drops_at;
	int			 drops_said;
	uint64_t		 postponed;
	struct sb_weights	 w;
	/* standby_input: the peer's sender and last sequence once one of
	 * its datagrams passed, and the bucket of any other */
	uint32_t		 pin_id;
	uint64_t		 pin_seq;
	int			 pinned;
	struct buckets		 bucket;
};

/*
 * From console.peer (nothing if ""): the socket and the key that checks
 * the peer's copies; standby: start as standby.  Needs the console's key
 * pair (or insecure).  0, or -1 with err.
 */
int standby_init(struct standby *sb, int standby, char *err, size_t len);
void standby_close(struct standby *sb);

/* A standby: schedules do not go out. */
int standby_following(const struct standby *sb);

/* The SCHEDULE m went to the nodes: a copy to the peer. */
void standby_forward(struct standby *sb, const struct proto_msg *m);

/* sb->weights or sb->jobw changed (set weight): a new generation of the
 * snapshot, to the peer now if this console is master. */
void standby_weights_changed(struct standby *sb, int64_t now);

/* The peer socket is readable. */
void standby_input(struct standby *sb, int64_t now);

/* Takeover and polls that are due at now; the next such moment. */
void standby_timer(struct standby *sb, int64_t now);
int64_t standby_deadline(const struct standby *sb);

/*
 * Take over now with the schedule followed (why: for the message).
 * Destinations reached, or -1 with sb->out->err (nothing heard yet, no key).
 */
int standby_take(struct standby *sb, const char *why, int64_t now);

/* "master", "standby" or "" (no peer), for status lines. */
const char *standby_role_name(const struct standby *sb);

/* ---- the decisions, pure (unit tests) -------------------------------- */

/* When a standby that last heard its master at heard takes over (si:
 * the master's SI): 1.5 si later.  0 if it never heard one. */
int64_t standby_due(int64_t heard, int64_t si);

/*
 * A master heard its peer's SCHEDULE: 1 if it becomes standby.
 * takeover: the copy has SCHED_F_TAKEOVER; yours: the live nodes that
 * say this console is their master; since_took: ns since our own last
 * takeover, -1 if none; ids: hdr.sender of each.  A takeover wins,
 * unless ours came less than an SI before it: then the higher sender id
 * does.  A plain SCHEDULE wins only if no node follows us.
 */
int standby_yields(int takeover, int yours, int64_t since_took, int64_t si,
    uint32_t own_id, uint32_t peer_id);

#endif /* DTS_MASTER_STANDBY_H */
