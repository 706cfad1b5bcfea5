/*
 * wire.h - whole datagrams: proto.h's messages encoded, decoded, checked,
 * sealed (tagged) and opened (tag, replay and ranges checked).
 *
 * proto.h says what travels; this module does it, with auth.h's tags and
 * replay check and rules.h's ranges.  The names keep the proto_ prefix
 * of the messages they carry.
 */
#ifndef DTS_WIRE_H
#define DTS_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

struct auth_key;
struct replay;
struct replay_entry;
struct seqgen;

/*
 * Encode msg (host order; hdr.length is filled in) into buf, without the
 * tag.  Returns the number of bytes written (header + payload), or -1 if
 * the type is unknown or cap is too small.
 */
int proto_encode(const struct proto_msg *msg, uint8_t *buf, size_t cap);

/*
 * Decode the header and payload of a datagram whose tag has already been
 * checked or is still to be checked.  len is the whole datagram, tag
 * included.  Checks, in order: length bounds, magic/version, type, payload
 * and tag length, key_id of a reply (zero).  Returns -1 and sets *why on
 * failure.
 */
int proto_decode(const uint8_t *buf, size_t len, struct proto_msg *msg,
    enum proto_reject *why);

/* Range checks of a decoded payload; returns 0 or -1 with *err. */
int proto_check_schedule(const struct proto_schedule *s, const char **err);
int proto_check_weight(const struct proto_weight *w, const char **err);

/*
 * The name of a WEIGHT entry of kind: a job's, a job name (job.h); a
 * host's, 1 to PROTO_WEIGHT_NAME_LEN - 1 bytes from '!' to '~' but ':'
 * (a name with ':' is a job's).  `set weight` stores no other, so that
 * every weight a master holds reaches its standby.  0, or -1 with a
 * one-line err.
 */
int proto_weight_name_check(unsigned kind, const char *name, char *err,
    size_t len);

/*
 * Whole datagrams: proto_encode()/proto_decode() with the tag and the
 * replay check of auth.h.  proto_seal() encodes msg, sets sender and seq
 * from g (and key_id for a command) and appends the tag: a command is
 * signed with k's key pair (-1 if k has none), a reply gets the HMAC of
 * k->key.  Returns the datagram length or -1.
 * A receiver checks in the order of doc/protocol.txt:
 *   proto_frame(): length, magic/version, type known and in accept (a
 *     mask of PROTO_TYPE_BIT()s), payload and tag length, reserved fields;
 *   (the receiver's rate limit, before any cryptography);
 *   proto_verify(): signature (a key_id k does not hold fails at once)
 *     or MAC, replay (at the clocks of the last replay_clock()), payload
 *     ranges.
 * proto_open() is both, for a receiver without a rate limit.  Each returns
 * 0, or -1 with *why.
 */
int proto_seal(const struct auth_key *k, struct seqgen *g, uint64_t mono_us,
    struct proto_msg *msg, uint8_t *buf, size_t cap);
/*
 * n SCHEDULEs (1 to PROTO_TREE_LEAVES) that differ in their slot tables
 * only, sealed under one signature and one seq: each gets its table's
 * path in the hash tree of the n tables (proto.h, struct proto_tree)
 * and the signature of the root.  buf[i] gets msg[i]'s datagram, len[i]
 * its length.  0, or -1 (another type, another base, no key pair).
 * proto_seal() of a SCHEDULE is the tree of its one table.
 */
int proto_seal_tree(const struct auth_key *k, struct seqgen *g,
    uint64_t mono_us, struct proto_msg *msg, int n,
    uint8_t (*buf)[PROTO_MAX_DGRAM], int *len);
/*
 * The bytes a command's signature covers, of its n bytes in buf (without
 * the tag), written to m (PROTO_MAX_DGRAM bytes): a SCHEDULE's header,
 * base and tree depth, and the root its table folds up to along its
 * path; any other command's bytes as they are.  Their length.
 */
size_t proto_signed_bytes(const uint8_t *buf, size_t n, uint8_t *m);
int proto_frame(const uint8_t *buf, size_t len, unsigned accept,
    struct proto_msg *msg, enum proto_reject *why);
int proto_verify(const struct auth_key *k, struct replay *r,
    const uint8_t *buf, size_t len, struct proto_msg *msg,
    enum proto_reject *why);
/* proto_verify() with the replay check at one peer's entry e
 * (replay_check_entry), not in r's table. */
int proto_verify_peer(const struct auth_key *k, struct replay *r,
    struct replay_entry *e, const uint8_t *buf, size_t len,
    struct proto_msg *msg, enum proto_reject *why);
int proto_open(const struct auth_key *k, struct replay *r, unsigned accept,
    const uint8_t *buf, size_t len, struct proto_msg *msg,
    enum proto_reject *why);

/*
 * Read requests (auth.h): proto_seal_read() seals a STATUS_REQ or a
 * JOB_REQ (-1 for any other type) with key_id AUTH_READ_ID and the tag
 * of the read key rk.  proto_verify_read() is proto_verify()'s for them
 * (proto_verify() refuses them as REJ_MAC): the type, k->reads, the tag
 * under one of k's read keys (its index in *which), freshness at the
 * last replay_clock() without touching r.  0, or -1 with *why (REJ_MAC
 * for all but a stale one, REJ_REPLAY).
 */
int proto_seal_read(const uint8_t rk[32], struct seqgen *g, uint64_t mono_us,
    struct proto_msg *msg, uint8_t *buf, size_t cap);
int proto_verify_read(const struct auth_key *k, const struct replay *r,
    const uint8_t *buf, size_t len, const struct proto_msg *msg, int *which,
    enum proto_reject *why);

#endif /* DTS_WIRE_H */
