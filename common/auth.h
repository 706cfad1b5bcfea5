/*
 * auth.h - keys, the tags of datagrams (Ed25519 signatures of commands,
 * HMAC-SHA256 of replies; libsodium) and replay protection.  wire.h puts
 * them together into whole datagrams (proto_seal, proto_open).
 *
 * Every datagram carries hdr.sender (a random id per process run) and
 * hdr.seq, the sender's stamp in microseconds: its CLOCK_REALTIME when it
 * started, carried on by CLOCK_MONOTONIC and made strictly increasing.  A
 * step of the sender's real clock does not move its stamps.
 *
 * A receiver accepts the first datagram of a sender it has not heard of
 * only if its sequence is
 *   - newer than the receiver's own start time (so datagrams captured before
 *     a restart cannot be replayed to the restarted node), and
 *   - within +-window of the receiver's real clock (so a captured datagram
 *     from a sender it has not heard of cannot be replayed later),
 * both in terms of the receiver's real clock now or both in terms of its
 * own stamp (its real clock as it was at its start, carried on by
 * CLOCK_MONOTONIC): after a step of its clock, new senders are heard
 * whether their clocks took the same step or not;
 * and each later one only if it is newer than the last one it accepted
 * from that sender and within +-window of where that sender's stamp
 * should be by the receiver's CLOCK_MONOTONIC (so a datagram held back
 * while newer ones were withheld cannot be delivered late).
 * When the table of senders is full, the one heard longest ago is
 * forgotten and the floor rises to its last sequence: what it sent stays
 * refused.
 *
 * Clock steps.  CLOCK_REALTIME can be stepped (NTP fixing a boot-time
 * clock, an RTC kept in local time); CLOCK_MONOTONIC is not.  Between a
 * sender and a receiver that have heard each other, no step on either
 * side matters: stamps and the pace check use only CLOCK_MONOTONIC.  A
 * receiver calls replay_clock() before each check: when REALTIME has
 * moved against MONOTONIC by more than AUTH_STEP_US, the floor (its
 * start, in the old clock's terms) moves with the clock, so that after a
 * step back of an hour new senders are not refused for an hour.  A
 * process that starts while its clock is wrong by more than the window
 * stamps its datagrams wrong until it restarts, and new peers whose
 * clocks are right refuse them: start dts after the clock is set
 * (systemd's time-sync.target).
 */
#ifndef DTS_AUTH_H
#define DTS_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

#define AUTH_KEY_LEN     32
#define AUTH_SENDERS_MAX 256 /* remembered senders; the oldest is forgotten */
#define AUTH_PUB_LEN     32  /* an Ed25519 public key */
#define AUTH_SK_LEN      64  /* an Ed25519 secret key (libsodium's form) */
#define AUTH_PUBS_MAX    2   /* console keys a node takes at once: the old
				and the new one while they change */

/*
 * Keys.  Commands (console -> node) are signed with a console's Ed25519
 * key pair; a node holds only the public keys of the consoles it obeys,
 * so no node can command another.  Replies (node -> console) carry an
 * HMAC under the node's own key, which is derived from a secret only
 * consoles hold and the node's IPv4 address (auth_node_key): a node can
 * speak only for itself, and the console knows which node spoke.
 */
struct auth_key {
	int      insecure;         /* nothing signed or checked (tags zero) */
	/* replies: a node's own key; a console's secret, from which each
	 * node's key is derived (derive = 1, see auth_for_node) */
	int      derive;
	uint8_t  key[AUTH_KEY_LEN];
	/* a console: its key pair, to sign commands */
	int      can_sign;
	uint8_t  sk[AUTH_SK_LEN];
	uint32_t sign_id;
	/* a node: the consoles' public keys it obeys */
	int      npub;
	uint8_t  pub[AUTH_PUBS_MAX][AUTH_PUB_LEN];
	uint32_t pub_id[AUTH_PUBS_MAX];
	/* the read key of each (auth_read_key), set by auth_pub_add */
	uint8_t  read[AUTH_PUBS_MAX][AUTH_KEY_LEN];
	/* a node: read requests are taken (dts.conf read_requests) */
	int      reads;
};

/*
 * Read requests.  A STATUS_REQ or a JOB_REQ whose hdr.key_id is
 * AUTH_READ_ID carries, in the 64 bytes of a command's signature, the
 * HMAC-SHA256 of header and payload under the read key of one of the
 * node's console keys, then 32 zero bytes.  The read key is public to
 * anyone who can read a node's dts.conf (console_keys is mode 0644):
 * every local user of a cluster host can ask for STATUS and JOB, and
 * nothing else; a LAN host that never read a dts.conf cannot.  The node
 * answers under the same read key, not its own.  A read request never
 * enters the commands' replay table (struct replay): a local user could
 * forge any number of senders and evict the master's entry.  It must be
 * fresh (replay_fresh), and dts keeps a replay table of the read
 * requests' own (dts/intake.c), so that a replayed one, from whatever
 * source address, gets no second answer.
 *
 * AUTH_READ_ID is no real key's id: auth_pub_add and auth_signer_load
 * refuse a key pair whose auth_key_id() is AUTH_READ_ID (one in 2^32;
 * auth_signer_generate draws again), and it is not 0, the key_id of an
 * insecure console's commands.
 */
#define AUTH_READ_ID      0xffffffffu
#define AUTH_READ_CONTEXT "dts read v5"  /* the message, without its NUL */

/* read := BLAKE2b-256 keyed with the console public key pub, of
 * AUTH_READ_CONTEXT. */
void auth_read_key(const uint8_t pub[AUTH_PUB_LEN], uint8_t out[AUTH_KEY_LEN]);

/* The PROTO_SIG_LEN-byte tag of a read request buf[0..len) under the
 * read key rk: its HMAC, then zeros. */
void auth_read_tag(const uint8_t rk[AUTH_KEY_LEN], const uint8_t *buf,
    size_t len, uint8_t tag[PROTO_SIG_LEN]);

/*
 * Which of k's read keys made tag (PROTO_SIG_LEN bytes) for buf[0..len):
 * its index, or -1 (also if the 32 trailing bytes are not zero, checked
 * first, or if k has no console key).
 */
int auth_read_check(const struct auth_key *k, const uint8_t *buf, size_t len,
    const uint8_t *tag);

/*
 * Read a key file: 64 hexadecimal digits (32 bytes), optional trailing
 * newline, into k->key.  The file must not be readable or writable by
 * others, nor writable by its group.  Returns 0, or -1 with a one-line
 * reason in err.
 */
int auth_key_load(struct auth_key *k, const char *path, char *err,
    size_t errlen);

/* Write a new random key file (mode 0600). Returns 0 or -1 with err. */
int auth_key_generate(const char *path, char *err, size_t errlen);

/*
 * A console's key pair: the file holds the 32-byte Ed25519 seed as 64
 * hexadecimal digits, with the modes of a key file.  _load sets sk,
 * sign_id and can_sign; _generate writes a new one (mode 0600) and puts
 * its public key, as 64 hexadecimal digits, in pub_hex.  0 or -1 with err.
 */
int auth_signer_load(struct auth_key *k, const char *path, char *err,
    size_t errlen);
int auth_signer_generate(const char *path, char pub_hex[2 * AUTH_PUB_LEN + 1],
    char *err, size_t errlen);
/* The public key of a loaded key pair, as 64 hexadecimal digits. */
void auth_signer_public(const struct auth_key *k,
			char pub_hex[2 * AUTH_PUB_LEN + 1]);

/* A console public key from 64 hexadecimal digits.  0 or -1 with err. */
int auth_pub_parse(const char *hex, uint8_t pk[AUTH_PUB_LEN], char *err,
    size_t errlen);

/* Add a console public key (64 hexadecimal digits).  0 or -1 with err. */
int auth_pub_add(struct auth_key *k, const char *hex, char *err, size_t errlen);

/* A key's id on the wire (hdr.key_id): its first 4 bytes, big-endian. */
uint32_t auth_key_id(const uint8_t pub[AUTH_PUB_LEN]);

/*
 * A node's key: BLAKE2b-256 keyed with the consoles' secret, of
 * "DTS node key" and the node's IPv4 address (network order).
 */
void auth_node_key(const uint8_t secret[AUTH_KEY_LEN], uint32_t addr_be,
    uint8_t out[AUTH_KEY_LEN]);

/* The key that checks the replies of the node at addr_be: k itself, or
 * with derive, k with that node's key. */
void auth_for_node(const struct auth_key *k, uint32_t addr_be,
    struct auth_key *out);

/* tag := HMAC-SHA256(key, buf[0..len)); zero if insecure. */
void auth_sign(const struct auth_key *k, const uint8_t *buf, size_t len,
    uint8_t tag[PROTO_MAC_LEN]);

/* Constant-time check of tag; always 0 (ok) if insecure. */
int auth_verify(const struct auth_key *k, const uint8_t *buf, size_t len,
		const uint8_t tag[PROTO_MAC_LEN]);

/*
 * The tag of a datagram whose header and payload are buf[0..len): for a
 * command, an Ed25519 signature by k's key pair (-1 if k has none); for a
 * reply, auth_sign()'s HMAC; zeros if insecure.  tag has room for
 * proto_tag_len() bytes.  0 or -1.
 */
int auth_tag(const struct auth_key *k, int command, const uint8_t *buf,
    size_t len, uint8_t *tag);

/*
 * 0 if tag is right for buf[0..len): a command's signature by the console
 * key k holds with key_id (an id k does not hold fails before any
 * cryptography), or a reply's HMAC; always 0 if insecure.  Else -1.
 */
int auth_tag_check(const struct auth_key *k, int command, uint32_t key_id,
    const uint8_t *buf, size_t len, const uint8_t *tag);

struct replay_entry {
	uint32_t sender;
	uint64_t last_seq;
	int64_t  pace_us;          /* last_seq - receiver's MONOTONIC then */
	uint64_t seen_us;          /* MONOTONIC when last accepted (eviction) */
};

#define AUTH_STEP_US 1000  /* a smaller move of REALTIME-MONOTONIC is no step */

struct replay {
	uint64_t floor_us;         /* receiver start time (CLOCK_REALTIME µs),
				      moved with the clock's steps */
	uint64_t start_us;         /* the same, as it was at the start */
	int64_t  start_off_us;     /* REALTIME - MONOTONIC at the start */
	uint64_t window_us;
	int64_t  offset_us;        /* REALTIME - MONOTONIC at the last look */
	uint64_t real_us, mono_us; /* the receiver's clocks at the last look */
	unsigned n;
	struct replay_entry e[AUTH_SENDERS_MAX];
};

/* A receiver that starts at real_us, mono_us (µs) and accepts a window. */
void replay_init(struct replay *r, uint64_t real_us, uint64_t mono_us,
    uint64_t window_us);

/*
 * The receiver's clocks now (µs), before each check.  If REALTIME was
 * stepped since the last look, the floor moves with it and the step is
 * returned (else 0).
 */
int64_t replay_clock(struct replay *r, uint64_t real_us, uint64_t mono_us);

/* 0 and remember seq if acceptable at the last replay_clock(), -1 if it
 * is a replay (or too far from the clocks). */
int replay_check(struct replay *r, uint32_t sender, uint64_t seq);

/*
 * The same for a receiver that keeps one entry a peer itself (the console:
 * a node's replies are under its own key, so its address names it): e is
 * that peer's, zeroed before its first datagram.  A new sender at e (the
 * peer restarted) must still be fresh and above e's last sequence.
 */
int replay_check_entry(struct replay *r, struct replay_entry *e,
    uint32_t sender, uint64_t seq);

/*
 * Would seq be taken as a new sender's first datagram at the last
 * replay_clock()?  1 or 0.  Nothing is remembered: for read requests.
 */
int replay_fresh(const struct replay *r, uint64_t seq);

/* Sender side: a fresh random id and strictly increasing sequences. */
struct seqgen {
	uint32_t sender;
	int64_t  base_us;          /* REALTIME - MONOTONIC at seqgen_init */
	uint64_t last;
};
void seqgen_init(struct seqgen *g);
/* The next sequence at CLOCK_MONOTONIC mono_us: base + mono, or last + 1. */
uint64_t seqgen_next(struct seqgen *g, uint64_t mono_us);

#endif /* DTS_AUTH_H */
