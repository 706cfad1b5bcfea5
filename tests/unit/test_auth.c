/*
 * test_auth.c - HMAC tags, key files, replay protection and the full
 * receiver path proto_seal()/proto_open().
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <sodium.h>

#include "auth.h"
#include "timeutil.h"
#include "wire.h"

#define NOW 1763770000000000ull /* µs, CLOCK_REALTIME-like */
#define WIN 30000000ull         /* 30 s */

static char tmpdir[] = "/tmp/dts-test-auth.XXXXXX";

static int
setup(void **state)
{
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int
teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd);
}

static const char *
write_file(const char *name, const char *text, mode_t mode)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	unlink(path);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
	return path;
}

static void
test_key_files(void **state)
{
	struct auth_key k;
	char err[256];
	const char *hex = "000102030405060708090a0b0c0d0e0f"
	    "101112131415161718191A1B1C1D1E1F";
	char line[80];

	snprintf(line, sizeof(line), "%s\n", hex);
	assert_int_equal(auth_key_load(&k, write_file("good", line, 0600), err, sizeof(err)), 0);
	assert_int_equal(k.key[0], 0x00);
	assert_int_equal(k.key[31], 0x1f);
	assert_int_equal(k.insecure, 0);

	assert_int_equal(auth_key_load(&k, write_file("open", line, 0644), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "accessible by others"));
	/* the console's group may read it; never write it */
	assert_int_equal(auth_key_load(&k, write_file("grp", line, 0640), err, sizeof(err)), 0);
	assert_int_equal(auth_key_load(&k, write_file("grpw", line, 0660), err, sizeof(err)), -1);
	assert_int_equal(auth_key_load(&k, write_file("short", "abcd\n", 0600), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "64 hexadecimal digits"));
	line[5] = 'g';
	assert_int_equal(auth_key_load(&k, write_file("nothex", line, 0600), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "64 hexadecimal digits"));
	assert_int_equal(auth_key_load(&k, "/nonexistent/key", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "No such file"));
}

static void
test_key_generate(void **state)
{
	struct auth_key a, b;
	char path[256], path2[256], err[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/gen1", tmpdir);
	snprintf(path2, sizeof(path2), "%s/gen2", tmpdir);
	assert_int_equal(auth_key_generate(path, err, sizeof(err)), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(auth_key_generate(path, err, sizeof(err)), -1); /* never overwrites */
	assert_int_equal(auth_key_generate(path2, err, sizeof(err)), 0);
	assert_int_equal(auth_key_load(&a, path, err, sizeof(err)), 0);
	assert_int_equal(auth_key_load(&b, path2, err, sizeof(err)), 0);
	assert_memory_not_equal(a.key, b.key, AUTH_KEY_LEN);
}

static void
test_sign_verify(void **state)
{
	struct auth_key k = { 0 }, other = { 0 }, none = { .insecure = 1 };
	uint8_t msg[40], tag[PROTO_MAC_LEN];

	memset(k.key, 7, sizeof(k.key));
	memset(other.key, 8, sizeof(other.key));
	memset(msg, 'm', sizeof(msg));
	auth_sign(&k, msg, sizeof(msg), tag);
	assert_int_equal(auth_verify(&k, msg, sizeof(msg), tag), 0);
	assert_int_equal(auth_verify(&other, msg, sizeof(msg), tag), -1);
	msg[3] ^= 1;
	assert_int_equal(auth_verify(&k, msg, sizeof(msg), tag), -1);
	msg[3] ^= 1;
	tag[31] ^= 1;
	assert_int_equal(auth_verify(&k, msg, sizeof(msg), tag), -1);
	/* insecure: zero tag, nothing checked */
	auth_sign(&none, msg, sizeof(msg), tag);
	for (int i = 0; i < PROTO_MAC_LEN; i++)
		assert_int_equal(tag[i], 0);
	assert_int_equal(auth_verify(&none, msg, sizeof(msg), tag), 0);
}

/* The receiver's clocks at real NOW + t, monotonic t (µs), then a check. */
static int
check_at(struct replay *r, uint64_t t, uint32_t sender, uint64_t seq)
{
	(void)replay_clock(r, NOW + t, t);
	return replay_check(r, sender, seq);
}

static void
test_replay(void **state)
{
	static struct replay r;

	replay_init(&r, NOW, 0, WIN);
	assert_int_equal(check_at(&r, 20, 1, NOW + 10), 0);
	assert_int_equal(check_at(&r, 20, 1, NOW + 10), -1);	/* same */
	assert_int_equal(check_at(&r, 20, 1, NOW + 9), -1);	/* older */
	assert_int_equal(check_at(&r, 20, 1, NOW + 11), 0);
	assert_int_equal(check_at(&r, 20, 2, NOW + 5), 0);	/* other sender */
	/* before the receiver started: captured before a restart */
	assert_int_equal(check_at(&r, 20, 3, NOW - 1), -1);
	assert_int_equal(check_at(&r, 20, 3, NOW), -1);
	/* a new sender outside the window, both ways */
	assert_int_equal(check_at(&r, 100 + WIN + 1, 4, NOW + 100), -1);
	assert_int_equal(check_at(&r, 100, 4, NOW + 100 + WIN + 1), -1);
	assert_int_equal(check_at(&r, 100, 4, NOW + 100 + WIN), 0);
	/*
	 * A known sender keeps its pace: sender 1 was last heard at NOW + 11
	 * when our clock said 20.  A datagram it sent then and that was held
	 * back for two windows (newer ones withheld) is refused; one on pace
	 * is taken.
	 */
	assert_int_equal(check_at(&r, 20 + 2 * WIN, 1, NOW + 12), -1);
	assert_int_equal(check_at(&r, 20 + 2 * WIN, 1, NOW + 11 + 2 * WIN), 0);
}

static void
test_replay_eviction(void **state)
{
	static struct replay r;
	uint64_t now = NOW + 1000;

	replay_init(&r, NOW, 0, WIN);
	for (uint32_t s = 0; s < AUTH_SENDERS_MAX + 10; s++)
		assert_int_equal(check_at(&r, 1000 + s, s, now + s), 0);
	assert_int_equal(r.n, AUTH_SENDERS_MAX);
	/* a remembered sender still cannot replay */
	assert_int_equal(check_at(&r, 1400, AUTH_SENDERS_MAX + 9,
	    now + AUTH_SENDERS_MAX + 9), -1);
	/* a forgotten one cannot either: sender 0 was evicted first */
	assert_int_equal(check_at(&r, 1500, 0, now + 0), -1);
	assert_int_equal(check_at(&r, 1500, 5, now + 5), -1);
	/* and a sender speaking now is still heard */
	assert_int_equal(check_at(&r, 1501, 0, now + 501), 0);
}

static void
test_seqgen(void **state)
{
	struct seqgen g, h;
	int64_t drift;

	seqgen_init(&g);
	seqgen_init(&h);
	assert_int_not_equal(g.sender, h.sender);	/* 1 in 2^32 */
	/* stamps start at the real clock */
	drift = (int64_t)seqgen_next(&h, now_mono_us()) - (int64_t)now_real_us();
	assert_true(drift > -1000000 && drift < 1000000);
	g.base_us = 0;
	assert_true(seqgen_next(&g, 100) == 100);
	assert_true(seqgen_next(&g, 100) == 101);	/* same µs */
	assert_true(seqgen_next(&g, 50) == 102);	/* never back */
	assert_true(seqgen_next(&g, 200) == 200);
}

/*
 * Steps of a minute, either way, on the receiver: a sender it has heard
 * goes on being heard (its stamps and the pace check use only the
 * monotonic clocks), a sender's stamps do not move with its own real
 * clock at all, the floor for new senders moves with the receiver's
 * clock, and replays stay refused.
 */
static void
test_clock_step(void **state)
{
	static struct replay r;
	struct seqgen g, h;
	const uint64_t minute = 60ULL * 1000000, sec = 1000000, M = 5000000;
	uint64_t s;

	replay_init(&r, NOW, M, WIN);
	seqgen_init(&g);
	g.base_us = (int64_t)NOW - (int64_t)M;	/* the two clocks agree */
	s = seqgen_next(&g, M + 10);
	(void)replay_clock(&r, NOW + 10, M + 10);
	assert_int_equal(replay_check(&r, g.sender, s), 0);
	/* the receiver's real clock steps a minute forward ... */
	assert_true(replay_clock(&r, NOW + sec + minute, M + sec) ==
	    (int64_t)minute);
	s = seqgen_next(&g, M + sec);
	assert_int_equal(replay_check(&r, g.sender, s), 0);
	/* ... and then two back */
	assert_true(replay_clock(&r, NOW + 2 * sec - minute, M + 2 * sec) ==
	    -2 * (int64_t)minute);
	assert_true(r.floor_us == NOW - minute);
	s = seqgen_next(&g, M + 2 * sec);
	assert_int_equal(replay_check(&r, g.sender, s), 0);
	assert_int_equal(replay_check(&r, g.sender, s), -1);	/* replay */
	/* a new sender whose clock agrees with ours now is heard at once */
	seqgen_init(&h);
	h.base_us = (int64_t)(NOW - minute) - (int64_t)M;
	assert_int_equal(replay_check(&r, h.sender,
	    seqgen_next(&h, M + 2 * sec)), 0);
	/* so is one whose clock did not take the step (by our own stamp) */
	seqgen_init(&h);
	h.base_us = (int64_t)NOW - (int64_t)M;
	assert_int_equal(replay_check(&r, h.sender,
	    seqgen_next(&h, M + 2 * sec)), 0);
	/* one captured before we started, in either clock's terms, is not */
	assert_int_equal(replay_check(&r, 77, NOW - minute - 1), -1);
	assert_int_equal(replay_check(&r, 78, NOW - 1), -1);
	/* a move under AUTH_STEP_US is jitter, not a step */
	assert_int_equal(replay_clock(&r, NOW + 3 * sec - minute + 10 +
	    AUTH_STEP_US, M + 3 * sec + 10), 0);
}

/* replay_clock reports the step exactly and moves the floor by it. */
static void
test_clock_step_value(void **state)
{
	static struct replay r;

	replay_init(&r, NOW, 1000, WIN);
	assert_true(replay_clock(&r, NOW + 500, 1500) == 0);
	assert_true(replay_clock(&r, NOW + 500 - 7000000, 1500) == -7000000);
	assert_true(r.floor_us == NOW - 7000000);
	assert_true(replay_clock(&r, NOW + 900 + 3000000, 1900) == 10000000);
	assert_true(r.floor_us == NOW + 3000000);
}

/* proto_open() with the receiver's clocks at NOW + t, t. */
static int
open_at(const struct auth_key *k, struct replay *r, uint64_t t,
	const uint8_t *buf, int n, struct proto_msg *out,
	enum proto_reject *why)
{
	(void)replay_clock(r, NOW + t, t);
	return proto_open(k, r, ~0u, buf, (size_t)n, out, why);
}

static struct proto_msg
schedule(void)
{
	struct proto_msg m = { .hdr.type = PROTO_SCHEDULE };

	m.u.schedule = (struct proto_schedule){ .mode = MODE_STATIC, .flags = SCHED_F_ACTIVE,
	    .ps_us = 80000, .ip_us = 100000, .si_us = 10000000 };
	return m;
}

/* A console's key pair from a fixed seed, and a node that obeys it. */
static void
console_keys(uint8_t seed_byte, struct auth_key *con, char pub[65])
{
	char path[256], err[256], hex[65];
	uint8_t seed[AUTH_KEY_LEN];

	memset(con, 0, sizeof(*con));
	memset(seed, seed_byte, sizeof(seed));
	sodium_bin2hex(hex, sizeof(hex), seed, sizeof(seed));
	snprintf(path, sizeof(path), "seed%u", seed_byte);
	assert_int_equal(auth_signer_load(con, write_file(path, hex, 0600),
	    err, sizeof(err)), 0);
	auth_signer_public(con, pub);
}

/* auth_tag() and auth_tag_check(), the two primitives proto_seal() and
 * proto_verify() stand on. */
static void
test_tags(void **state)
{
	struct auth_key con, node = { 0 }, reply = { 0 }, none = { .insecure = 1 };
	uint8_t msg[40], tag[PROTO_SIG_LEN], mac[PROTO_MAC_LEN];
	char pub[65], err[256];

	(void)state;
	console_keys(5, &con, pub);
	assert_int_equal(auth_pub_add(&node, pub, err, sizeof(err)), 0);
	memset(reply.key, 6, sizeof(reply.key));
	memset(msg, 'm', sizeof(msg));
	/* a reply: the HMAC of auth_sign() */
	assert_int_equal(auth_tag(&reply, 0, msg, sizeof(msg), tag), 0);
	auth_sign(&reply, msg, sizeof(msg), mac);
	assert_memory_equal(tag, mac, PROTO_MAC_LEN);
	assert_int_equal(auth_tag_check(&reply, 0, 0, msg, sizeof(msg), tag), 0);
	tag[0] ^= 1;
	assert_int_equal(auth_tag_check(&reply, 0, 0, msg, sizeof(msg), tag),
	    -1);
	/* a command: signed by the console, checked by the key with its id */
	assert_int_equal(auth_tag(&con, 1, msg, sizeof(msg), tag), 0);
	assert_int_equal(auth_tag_check(&node, 1, con.sign_id, msg,
	    sizeof(msg), tag), 0);
	assert_int_equal(auth_tag_check(&node, 1, con.sign_id + 1, msg,
	    sizeof(msg), tag), -1);
	msg[1] ^= 1;
	assert_int_equal(auth_tag_check(&node, 1, con.sign_id, msg,
	    sizeof(msg), tag), -1);
	/* no key pair, no command; insecure: zeros, nothing checked */
	assert_int_equal(auth_tag(&reply, 1, msg, sizeof(msg), tag), -1);
	memset(tag, 0xff, sizeof(tag));
	assert_int_equal(auth_tag(&none, 1, msg, sizeof(msg), tag), 0);
	for (int i = 0; i < PROTO_SIG_LEN; i++)
		assert_int_equal(tag[i], 0);
	assert_int_equal(auth_tag_check(&none, 1, 99, msg, sizeof(msg), tag),
	    0);
}

static void
test_seal_open(void **state)
{
	struct auth_key con, con2, node = { 0 }, wrong = { 0 }, posed;
	static struct replay r;
	struct seqgen g;
	struct proto_msg m = schedule(), out;
	enum proto_reject why;
	uint8_t buf[PROTO_MAX_DGRAM];
	char pub[65], pub2[65], err[256];
	int n;

	console_keys(1, &con, pub);
	console_keys(2, &con2, pub2);
	assert_int_equal(auth_pub_add(&node, pub, err, sizeof(err)), 0);
	memset(node.key, 3, sizeof(node.key));
	memset(wrong.key, 4, sizeof(wrong.key));
	replay_init(&r, NOW, 0, WIN);
	seqgen_init(&g);
	g.base_us = 0;

	n = proto_seal(&con, &g, NOW + 1, &m, buf, sizeof(buf));
	assert_int_equal(n, PROTO_HDR_LEN + PROTO_SCHEDULE_LEN + PROTO_SIG_LEN);
	assert_int_equal(m.hdr.key_id, con.sign_id);
	assert_int_equal(open_at(&node, &r, 2, buf, n, &out, &why), 0);
	assert_int_equal(out.u.schedule.ps_us, 80000);
	/* the same bytes again */
	assert_int_equal(open_at(&node, &r, 3, buf, n, &out, &why), -1);
	assert_int_equal(why, REJ_REPLAY);
	/* tampered payload */
	n = proto_seal(&con, &g, NOW + 4, &m, buf, sizeof(buf));
	buf[PROTO_HDR_LEN + 5] ^= 0x10;
	assert_int_equal(open_at(&node, &r, 5, buf, n, &out, &why), -1);
	assert_int_equal(why, REJ_MAC);
	/* another console's key pair: its id is unknown here */
	n = proto_seal(&con2, &g, NOW + 6, &m, buf, sizeof(buf));
	assert_int_equal(open_at(&node, &r, 7, buf, n, &out, &why), -1);
	assert_int_equal(why, REJ_MAC);
	/* ... and under the right id, the signature does not verify */
	posed = con2;
	posed.sign_id = con.sign_id;
	n = proto_seal(&posed, &g, NOW + 8, &m, buf, sizeof(buf));
	assert_int_equal(open_at(&node, &r, 9, buf, n, &out, &why), -1);
	assert_int_equal(why, REJ_MAC);
	/* a node's key cannot sign a command at all */
	assert_int_equal(proto_seal(&node, &g, NOW + 10, &m, buf, sizeof(buf)), -1);
	/* rotation: with both public keys, both consoles are obeyed */
	assert_int_equal(auth_pub_add(&node, pub2, err, sizeof(err)), 0);
	n = proto_seal(&con2, &g, NOW + 11, &m, buf, sizeof(buf));
	assert_int_equal(open_at(&node, &r, 12, buf, n, &out, &why), 0);
	n = proto_seal(&con, &g, NOW + 13, &m, buf, sizeof(buf));
	assert_int_equal(open_at(&node, &r, 14, buf, n, &out, &why), 0);
	/* a third is refused, as is a key that is not one */
	assert_int_equal(auth_pub_add(&node, pub, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "at most 2"));
	assert_int_equal(auth_pub_add(&wrong, "abc", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a public key"));
	/* authentic but out of range: checked last */
	m.u.schedule.ps_us = 200000;
	n = proto_seal(&con, &g, NOW + 15, &m, buf, sizeof(buf));
	assert_int_equal(open_at(&node, &r, 16, buf, n, &out, &why), -1);
	assert_int_equal(why, REJ_RANGE);
	/* replies: the node's HMAC, checked with its key only */
	memset(&m, 0, sizeof(m));
	m.hdr.type = PROTO_LOAD;
	n = proto_seal(&node, &g, NOW + 17, &m, buf, sizeof(buf));
	assert_int_equal(n, PROTO_HDR_LEN + PROTO_LOAD_LEN + PROTO_MAC_LEN);
	assert_int_equal(open_at(&wrong, &r, 18, buf, n, &out, &why), -1);
	assert_int_equal(why, REJ_MAC);
	assert_int_equal(open_at(&node, &r, 19, buf, n, &out, &why), 0);
	/* an insecure sender is refused by a keyed receiver */
	struct auth_key none = { .insecure = 1 };
	m = schedule();
	n = proto_seal(&none, &g, NOW + 20, &m, buf, sizeof(buf));
	assert_int_equal(open_at(&node, &r, 21, buf, n, &out, &why), -1);
	assert_int_equal(why, REJ_MAC);
	assert_int_equal(open_at(&none, &r, 22, buf, n, &out, &why), 0);
}

/*
 * v6: SCHEDULEs of one send that differ in their slot tables, under one
 * signature (proto_seal_tree): each opens at a node, once; a table, an
 * index, a path hash, a depth or the base changed is refused.
 */
static void
test_seal_tree(void **state)
{
	struct auth_key con, node = { 0 };
	static struct replay r;
	struct seqgen g;
	struct proto_msg m[5], out;
	enum proto_reject why;
	uint8_t buf[5][PROTO_MAX_DGRAM], bad[PROTO_MAX_DGRAM];
	const size_t P = PROTO_HDR_LEN, T = PROTO_HDR_LEN + 352;
	char pub[65], err[256];
	int len[5], i, n;

	(void)state;
	console_keys(1, &con, pub);
	assert_int_equal(auth_pub_add(&node, pub, err, sizeof(err)), 0);
	seqgen_init(&g);
	g.base_us = 0;
	for (i = 0; i < 5; i++) {
		m[i] = schedule();
		m[i].u.schedule.nslots = 1;
		snprintf(m[i].u.schedule.slot[0].job, PROTO_JOB_LEN, "u%d:j", i);
		m[i].u.schedule.slot[0].len_us = 1000;
	}
	assert_int_equal(proto_seal_tree(&con, &g, NOW + 1, m, 5, buf, len), 0);
	for (i = 0; i < 5; i++) {
		assert_int_equal(len[i], PROTO_HDR_LEN + PROTO_SCHEDULE_LEN +
		    PROTO_SIG_LEN);
		assert_int_equal(buf[i][T], 3);		/* depth: 8 leaves */
		assert_int_equal(buf[i][T + 1], i);	/* index */
		assert_true(m[i].hdr.seq == m[0].hdr.seq);
		assert_memory_equal(buf[i] + len[i] - PROTO_SIG_LEN, buf[0] +
		    len[0] - PROTO_SIG_LEN, PROTO_SIG_LEN);
		replay_init(&r, NOW, 0, WIN);
		assert_int_equal(open_at(&node, &r, 2, buf[i], len[i], &out,
		    &why), 0);
		assert_string_equal(out.u.schedule.slot[0].job,
		    m[i].u.schedule.slot[0].job);
		assert_int_equal(open_at(&node, &r, 3, buf[i], len[i], &out,
		    &why), -1);
		assert_int_equal(why, REJ_REPLAY);
	}
	/* spoofed: another table (a valid one) under the same path */
	memcpy(bad, buf[2], (size_t)len[2]);
	bad[P + 32] = 'x';			/* "x2:j" */
	replay_init(&r, NOW, 0, WIN);
	assert_int_equal(open_at(&node, &r, 4, bad, len[2], &out, &why), -1);
	assert_int_equal(why, REJ_MAC);
	/* another leaf's place, a sibling's hash changed, the base changed */
	memcpy(bad, buf[2], (size_t)len[2]);
	bad[T + 1] = 3;
	assert_int_equal(open_at(&node, &r, 5, bad, len[2], &out, &why), -1);
	assert_int_equal(why, REJ_MAC);
	memcpy(bad, buf[2], (size_t)len[2]);
	bad[T + 8 + 16] ^= 1;
	assert_int_equal(open_at(&node, &r, 6, bad, len[2], &out, &why), -1);
	assert_int_equal(why, REJ_MAC);
	memcpy(bad, buf[2], (size_t)len[2]);
	bad[P + 5] ^= 0x10;			/* ps_us */
	assert_int_equal(open_at(&node, &r, 7, bad, len[2], &out, &why), -1);
	assert_int_equal(why, REJ_MAC);
	/* a shorter path: its last level is not zero */
	memcpy(bad, buf[2], (size_t)len[2]);
	bad[T] = 2;
	assert_int_equal(open_at(&node, &r, 8, bad, len[2], &out, &why), -1);
	assert_int_equal(why, REJ_RANGE);
	/* the untouched one still opens: nothing above was remembered */
	assert_int_equal(open_at(&node, &r, 9, buf[2], len[2], &out, &why), 0);
	/* one table alone: depth 0, the same form */
	n = proto_seal(&con, &g, NOW + 10, &m[4], bad, sizeof(bad));
	assert_int_equal(n, len[4]);
	assert_int_equal(bad[T], 0);
	assert_int_equal(open_at(&node, &r, 11, bad, n, &out, &why), 0);
	/* two bases, no schedule, no key pair, too many: nothing sealed */
	m[1].u.schedule.ps_us = 40000;
	assert_int_equal(proto_seal_tree(&con, &g, NOW + 12, m, 2, buf, len),
	    -1);
	assert_int_equal(proto_seal_tree(&con, &g, NOW + 12, m, 0, buf, len),
	    -1);
	assert_int_equal(proto_seal_tree(&con, &g, NOW + 12, m,
	    PROTO_TREE_LEAVES + 1, buf, len), -1);
	assert_int_equal(proto_seal_tree(&node, &g, NOW + 12, m + 2, 2, buf,
	    len), -1);
}

/* v5: authentic, but a slot table or a job list out of range is refused
 * with [range] after the tag; the right ones pass. */
static void
test_v5_ranges(void **state)
{
	struct auth_key con, node = { 0 };
	static struct replay r;
	struct seqgen g;
	struct proto_msg m = schedule(), out;
	enum proto_reject why;
	uint8_t buf[PROTO_MAX_DGRAM];
	char pub[65], err[256];
	uint64_t t = 1;
	int n;

	(void)state;
	console_keys(7, &con, pub);
	assert_int_equal(auth_pub_add(&node, pub, err, sizeof(err)), 0);
	memset(node.key, 8, sizeof(node.key));
	replay_init(&r, NOW, 0, WIN);
	seqgen_init(&g);
	g.base_us = 0;

	m.u.schedule.nslots = 2;
	strcpy(m.u.schedule.slot[0].job, "alice:a");
	m.u.schedule.slot[0].len_us = 40000;
	strcpy(m.u.schedule.slot[1].job, "bob:b");
	m.u.schedule.slot[1].start_us = 40000;
	m.u.schedule.slot[1].len_us = 40000;
	n = proto_seal(&con, &g, NOW + t, &m, buf, sizeof(buf));
	assert_int_equal(open_at(&node, &r, t + 1, buf, n, &out, &why), 0);
	assert_string_equal(out.u.schedule.slot[1].job, "bob:b");
	t += 2;
	m.u.schedule.slot[1].start_us = 39999;	/* overlaps slot 0 */
	n = proto_seal(&con, &g, NOW + t, &m, buf, sizeof(buf));
	assert_int_equal(open_at(&node, &r, t + 1, buf, n, &out, &why), -1);
	assert_int_equal(why, REJ_RANGE);
	t += 2;

	/* STATUS: two jobs, then a bad name, then the same name twice */
	memset(&m, 0, sizeof(m));
	m.hdr.type = PROTO_STATUS;
	m.u.status.njobs = 2;
	strcpy(m.u.status.job[0].job, "alice:a");
	strcpy(m.u.status.job[1].job, "bob:b");
	n = proto_seal(&node, &g, NOW + t, &m, buf, sizeof(buf));
	assert_int_equal(open_at(&node, &r, t + 1, buf, n, &out, &why), 0);
	assert_int_equal(out.u.status.njobs, 2);
	t += 2;
	strcpy(m.u.status.job[1].job, "bob:b\x01");
	n = proto_seal(&node, &g, NOW + t, &m, buf, sizeof(buf));
	assert_int_equal(open_at(&node, &r, t + 1, buf, n, &out, &why), -1);
	assert_int_equal(why, REJ_RANGE);
	t += 2;
	strcpy(m.u.status.job[1].job, "alice:a");
	n = proto_seal(&node, &g, NOW + t, &m, buf, sizeof(buf));
	assert_int_equal(open_at(&node, &r, t + 1, buf, n, &out, &why), -1);
	assert_int_equal(why, REJ_RANGE);
	t += 2;
	strcpy(m.u.status.job[1].job, "nocolon");
	n = proto_seal(&node, &g, NOW + t, &m, buf, sizeof(buf));
	assert_int_equal(open_at(&node, &r, t + 1, buf, n, &out, &why), -1);
	assert_int_equal(why, REJ_RANGE);
	t += 2;

	/* JOB: a job, none, a bad name */
	memset(&m, 0, sizeof(m));
	m.hdr.type = PROTO_JOB;
	m.u.job = (struct proto_job){ .index = 0, .count = 1, .job = "bob:b",
	    .members = 2, .running = 1 };
	n = proto_seal(&node, &g, NOW + t, &m, buf, sizeof(buf));
	assert_int_equal(open_at(&node, &r, t + 1, buf, n, &out, &why), 0);
	assert_string_equal(out.u.job.job, "bob:b");
	t += 2;
	m.u.job = (struct proto_job){ .index = 1, .count = 1 };
	n = proto_seal(&node, &g, NOW + t, &m, buf, sizeof(buf));
	assert_int_equal(open_at(&node, &r, t + 1, buf, n, &out, &why), 0);
	t += 2;
	m.u.job = (struct proto_job){ .index = 0, .count = 1, .job = "b:b b" };
	n = proto_seal(&node, &g, NOW + t, &m, buf, sizeof(buf));
	assert_int_equal(open_at(&node, &r, t + 1, buf, n, &out, &why), -1);
	assert_int_equal(why, REJ_RANGE);
	t += 2;

	/* JOB_REQ: any index; a node answers "none" past its jobs */
	memset(&m, 0, sizeof(m));
	m.hdr.type = PROTO_JOB_REQ;
	m.u.job_req.index = 1000;
	n = proto_seal(&con, &g, NOW + t, &m, buf, sizeof(buf));
	assert_int_equal(n, PROTO_HDR_LEN + PROTO_JOB_REQ_LEN + PROTO_SIG_LEN);
	assert_int_equal(open_at(&node, &r, t + 1, buf, n, &out, &why), 0);
	assert_int_equal(out.u.job_req.index, 1000);
}

/* Node keys: one per address, from the consoles' secret. */
static void
test_node_keys(void **state)
{
	struct auth_key con = { .derive = 1 }, k1, k2, k1b;
	uint8_t secret2[AUTH_KEY_LEN];

	memset(con.key, 9, sizeof(con.key));
	auth_for_node(&con, htonl(0x0a000001), &k1);
	auth_for_node(&con, htonl(0x0a000002), &k2);
	auth_for_node(&con, htonl(0x0a000001), &k1b);
	assert_int_equal(k1.derive, 0);
	assert_memory_equal(k1.key, k1b.key, AUTH_KEY_LEN);
	assert_memory_not_equal(k1.key, k2.key, AUTH_KEY_LEN);
	assert_memory_not_equal(k1.key, con.key, AUTH_KEY_LEN);
	memset(secret2, 10, sizeof(secret2));
	auth_node_key(secret2, htonl(0x0a000001), k1b.key);
	assert_memory_not_equal(k1.key, k1b.key, AUTH_KEY_LEN);
	/* a console without derive uses its key as it is */
	con.derive = 0;
	auth_for_node(&con, htonl(0x0a000001), &k1b);
	assert_memory_equal(k1b.key, con.key, AUTH_KEY_LEN);
}

/* dts-console -k: a new key pair whose public key loads again. */
static void
test_signer_generate(void **state)
{
	struct auth_key a = { 0 }, node = { 0 };
	char path[256], pub[65], pub2[65], err[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/signer", tmpdir);
	assert_int_equal(auth_signer_generate(path, pub, err, sizeof(err)), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(auth_signer_generate(path, pub, err, sizeof(err)), -1);
	assert_int_equal(auth_signer_load(&a, path, err, sizeof(err)), 0);
	auth_signer_public(&a, pub2);
	assert_string_equal(pub, pub2);
	assert_int_equal(auth_pub_add(&node, pub, err, sizeof(err)), 0);
	assert_int_equal(node.pub_id[0], a.sign_id);
}

/* proto_frame() and proto_verify_read() at NOW + t, t: a node's intake. */
static int
read_at(const struct auth_key *k, struct replay *r, uint64_t t,
    const uint8_t *buf, int n, struct proto_msg *out, int *which,
    enum proto_reject *why)
{
	(void)replay_clock(r, NOW + t, t);
	if (proto_frame(buf, (size_t)n, PROTO_ACCEPT_NODE, out, why) == -1)
		return -1;
	return proto_verify_read(k, r, buf, (size_t)n, out, which, why);
}

/*
 * Read requests (auth.h): the read key, a STATUS_REQ and a JOB_REQ under
 * it accepted by the node without touching its replay table, anything
 * else refused as forged; the reply under the same read key.
 */
static void
test_read_requests(void **state)
{
	struct auth_key con, con2, node = { 0 }, rk = { 0 };
	static struct replay r, before;
	struct seqgen g;
	struct proto_msg m = { .hdr.type = PROTO_STATUS_REQ }, out;
	enum proto_reject why;
	uint8_t buf[PROTO_MAX_DGRAM], pk[AUTH_PUB_LEN], k1[AUTH_KEY_LEN];
	uint8_t k2[AUTH_KEY_LEN], want[AUTH_KEY_LEN];
	static const char ctx[] = "dts read v5";
	char pub[65], pub2[65], err[256];
	int n, which;

	(void)state;
	console_keys(7, &con, pub);
	console_keys(8, &con2, pub2);
	/* the derivation: BLAKE2b-256 keyed with the public key */
	assert_int_equal(auth_pub_parse(pub, pk, err, sizeof(err)), 0);
	auth_read_key(pk, k1);
	crypto_generichash(want, sizeof(want), (const uint8_t *)ctx,
	    strlen(ctx), pk, sizeof(pk));
	assert_memory_equal(k1, want, sizeof(want));
	auth_read_key(pk, k2);
	assert_memory_equal(k1, k2, sizeof(k2));	/* anyone gets the same */
	assert_int_equal(auth_pub_parse(pub2, pk, err, sizeof(err)), 0);
	auth_read_key(pk, k2);
	assert_memory_not_equal(k1, k2, sizeof(k2));
	/* the node keeps each console key's read key */
	assert_int_equal(auth_pub_add(&node, pub2, err, sizeof(err)), 0);
	assert_int_equal(auth_pub_add(&node, pub, err, sizeof(err)), 0);
	assert_memory_equal(node.read[1], k1, sizeof(k1));
	memset(node.key, 3, sizeof(node.key));
	node.reads = 1;
	assert_true(AUTH_READ_ID != con.sign_id && AUTH_READ_ID != 0);
	replay_init(&r, NOW, 0, WIN);
	seqgen_init(&g);
	g.base_us = 0;

	/* a STATUS_REQ under the second key's read key: accepted, as 1 */
	n = proto_seal_read(k1, &g, NOW + 1, &m, buf, sizeof(buf));
	assert_int_equal(n, PROTO_HDR_LEN + PROTO_STATUS_REQ_LEN +
	    PROTO_SIG_LEN);
	assert_int_equal(m.hdr.key_id, AUTH_READ_ID);
	before = r;
	assert_int_equal(read_at(&node, &r, 2, buf, n, &out, &which, &why), 0);
	assert_int_equal(which, 1);
	/* the replay table is untouched: no sender remembered */
	assert_int_equal(r.n, 0);
	assert_int_equal(r.floor_us, before.floor_us);
	assert_int_equal(r.start_us, before.start_us);
	/* so the same bytes pass again (same answer, same address) */
	assert_int_equal(read_at(&node, &r, 3, buf, n, &out, &which, &why), 0);
	assert_int_equal(r.n, 0);
	/* ... but not from outside the window */
	assert_int_equal(read_at(&node, &r, 2 * WIN, buf, n, &out, &which,
	    &why), -1);
	assert_int_equal(why, REJ_REPLAY);
	/* proto_verify refuses it: a read request is no signed command */
	(void)replay_clock(&r, NOW + 4, 4);
	assert_int_equal(proto_verify(&node, &r, buf, (size_t)n, &out, &why),
	    -1);
	assert_int_equal(why, REJ_MAC);
	assert_int_equal(r.n, 0);
	/* a JOB_REQ too */
	m = (struct proto_msg){ .hdr.type = PROTO_JOB_REQ };
	m.u.job_req.index = 2;
	n = proto_seal_read(k1, &g, NOW + 5, &m, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal(read_at(&node, &r, 6, buf, n, &out, &which, &why), 0);
	assert_int_equal(out.u.job_req.index, 2);
	/* a wrong read key (a key the node does not hold) */
	k2[0] ^= 1;
	m = (struct proto_msg){ .hdr.type = PROTO_STATUS_REQ };
	n = proto_seal_read(k2, &g, NOW + 7, &m, buf, sizeof(buf));
	assert_int_equal(read_at(&node, &r, 8, buf, n, &out, &which, &why),
	    -1);
	assert_int_equal(why, REJ_MAC);
	assert_int_equal(which, -1);
	/* the trailing 32 bytes must be zero */
	n = proto_seal_read(k1, &g, NOW + 9, &m, buf, sizeof(buf));
	buf[n - 1] = 1;
	assert_int_equal(read_at(&node, &r, 10, buf, n, &out, &which, &why),
	    -1);
	assert_int_equal(why, REJ_MAC);
	/* tampered */
	buf[n - 1] = 0;
	buf[PROTO_HDR_LEN + 3] ^= 1;
	assert_int_equal(read_at(&node, &r, 11, buf, n, &out, &which, &why),
	    -1);
	assert_int_equal(why, REJ_MAC);
	/* only STATUS_REQ and JOB_REQ: proto_seal_read refuses the others,
	 * and a node refuses any other type with that key_id */
	m = schedule();
	assert_int_equal(proto_seal_read(k1, &g, NOW + 12, &m, buf,
	    sizeof(buf)), -1);
	{
		static const unsigned types[] = { PROTO_SCHEDULE,
		    PROTO_TRACE_REQ, PROTO_METRICS_REQ };
		for (unsigned i = 0; i < 3; i++) {
			struct proto_msg q = { .hdr.type = (uint8_t)types[i] };

			if (types[i] == PROTO_SCHEDULE)
				q = schedule();
			q.hdr.sender = g.sender;
			q.hdr.seq = seqgen_next(&g, NOW + 13 + i);
			q.hdr.key_id = AUTH_READ_ID;
			n = proto_encode(&q, buf, sizeof(buf));
			assert_true(n > 0);
			auth_read_tag(k1, buf, (size_t)n, buf + n);
			n += PROTO_SIG_LEN;
			assert_int_equal(read_at(&node, &r, 14 + i, buf, n,
			    &out, &which, &why), -1);
			assert_int_equal(why, REJ_MAC);
			(void)replay_clock(&r, NOW + 20, 20);
			assert_int_equal(proto_verify(&node, &r, buf,
			    (size_t)n, &out, &why), -1);
			assert_int_equal(why, REJ_MAC);
		}
	}
	assert_int_equal(r.n, 0);
	/* read_requests = false: refused as forged */
	m = (struct proto_msg){ .hdr.type = PROTO_STATUS_REQ };
	n = proto_seal_read(k1, &g, NOW + 21, &m, buf, sizeof(buf));
	node.reads = 0;
	assert_int_equal(read_at(&node, &r, 22, buf, n, &out, &which, &why),
	    -1);
	assert_int_equal(why, REJ_MAC);
	node.reads = 1;
	assert_int_equal(read_at(&node, &r, 23, buf, n, &out, &which, &why),
	    0);
	/* the reply, under the read key: the keyless console checks it
	 * with the read key, and the node's own key does not pass it */
	memcpy(rk.key, node.read[which], sizeof(rk.key));
	m = (struct proto_msg){ .hdr.type = PROTO_STATUS };
	n = proto_seal(&rk, &g, NOW + 24, &m, buf, sizeof(buf));
	assert_int_equal(n, PROTO_HDR_LEN + PROTO_STATUS_LEN + PROTO_MAC_LEN);
	memset(rk.key, 0, sizeof(rk.key));
	memcpy(rk.key, k1, sizeof(k1));
	assert_int_equal(open_at(&rk, &r, 25, buf, n, &out, &why), 0);
	assert_int_equal(open_at(&node, &r, 26, buf, n, &out, &why), -1);
}

/* A key pair whose id is AUTH_READ_ID is refused: no real key has it. */
static void
test_read_id_reserved(void **state)
{
	struct auth_key node = { 0 };
	char pub[65], err[256];

	(void)state;
	memset(pub, 'f', 8);
	memset(pub + 8, '1', 56);
	pub[64] = '\0';
	assert_int_equal(auth_pub_add(&node, pub, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "reserved for read requests"));
	assert_int_equal(node.npub, 0);
	pub[0] = 'e';
	assert_int_equal(auth_pub_add(&node, pub, err, sizeof(err)), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_files),
		cmocka_unit_test(test_key_generate),
		cmocka_unit_test(test_node_keys),
		cmocka_unit_test(test_signer_generate),
		cmocka_unit_test(test_sign_verify),
		cmocka_unit_test(test_replay),
		cmocka_unit_test(test_replay_eviction),
		cmocka_unit_test(test_seqgen),
		cmocka_unit_test(test_clock_step),
		cmocka_unit_test(test_clock_step_value),
		cmocka_unit_test(test_tags),
		cmocka_unit_test(test_seal_open),
		cmocka_unit_test(test_seal_tree),
		cmocka_unit_test(test_v5_ranges),
		cmocka_unit_test(test_read_requests),
		cmocka_unit_test(test_read_id_reserved),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
