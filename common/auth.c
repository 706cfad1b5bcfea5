/*
 * auth.c - HMAC-SHA256 tags (libsodium), key files, replay protection and
 * the receiver's checks in their fixed order (proto_open).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "auth.h"

_Static_assert(crypto_auth_hmacsha256_BYTES == PROTO_MAC_LEN, "tag length");
_Static_assert(crypto_auth_hmacsha256_KEYBYTES == AUTH_KEY_LEN, "key length");

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
auth_key_load(struct auth_key *k, const char *path, char *err, size_t errlen)
{
	char text[AUTH_KEY_LEN * 2 + 3];
	struct stat st;
	ssize_t n;
	int fd;

	memset(k, 0, sizeof(*k));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		close(fd);
		return -1;
	}
	if (st.st_mode & (S_IWGRP | S_IXGRP | S_IRWXO)) {
		snprintf(err, errlen, "%s: key file is accessible by others "
			 "(chmod 600 %s, or 640 with the console's group)", path, path);
		close(fd);
		return -1;
	}
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	text[n] = '\0';
	while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r'))
		text[--n] = '\0';
	if (n != AUTH_KEY_LEN * 2) {
		snprintf(err, errlen, "%s: a key is %d hexadecimal digits "
			 "(make one with dts -k)", path, AUTH_KEY_LEN * 2);
		return -1;
	}
	for (int i = 0; i < AUTH_KEY_LEN; i++) {
		int hi = hexval(text[2 * i]), lo = hexval(text[2 * i + 1]);
		if (hi < 0 || lo < 0) {
			snprintf(err, errlen, "%s: not a hexadecimal key", path);
			sodium_memzero(k, sizeof(*k));
			return -1;
		}
		k->key[i] = (uint8_t)(hi << 4 | lo);
	}
	sodium_memzero(text, sizeof(text));
	return 0;
}

int
auth_key_generate(const char *path, char *err, size_t errlen)
{
	uint8_t key[AUTH_KEY_LEN];
	char text[AUTH_KEY_LEN * 2 + 2];
	int fd, ok;

	if (sodium_init() < 0) {
		snprintf(err, errlen, "libsodium failed to initialise");
		return -1;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	randombytes_buf(key, sizeof(key));
	sodium_bin2hex(text, sizeof(text), key, sizeof(key));
	strcat(text, "\n");
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	ok = (close(fd) == 0) && ok;
	sodium_memzero(key, sizeof(key));
	sodium_memzero(text, sizeof(text));
	if (!ok) {
		snprintf(err, errlen, "%s: write failed", path);
		unlink(path);
		return -1;
	}
	return 0;
}

void
auth_sign(const struct auth_key *k, const uint8_t *buf, size_t len,
	  uint8_t tag[PROTO_MAC_LEN])
{
	if (k->insecure) {
		memset(tag, 0, PROTO_MAC_LEN);
		return;
	}
	crypto_auth_hmacsha256(tag, buf, len, k->key);
}

int
auth_verify(const struct auth_key *k, const uint8_t *buf, size_t len,
	    const uint8_t tag[PROTO_MAC_LEN])
{
	if (k->insecure)
		return 0;
	return crypto_auth_hmacsha256_verify(tag, buf, len, k->key) == 0 ? 0 : -1;
}

/* ---- replay protection --------------------------------------------- */

void
replay_init(struct replay *r, uint64_t now_us, uint64_t window_us)
{
	memset(r, 0, sizeof(*r));
	r->floor_us = now_us;
	r->window_us = window_us;
	r->offset_us = INT64_MIN;	/* not looked yet */
}

int64_t
replay_clock(struct replay *r, uint64_t real_us, uint64_t mono_us)
{
	int64_t off = (int64_t)real_us - (int64_t)mono_us, step;

	if (r->offset_us == INT64_MIN) {
		r->offset_us = off;
		return 0;
	}
	step = off - r->offset_us;
	if (step >= -AUTH_STEP_US && step <= AUTH_STEP_US)
		return 0;
	r->offset_us = off;
	if (step < 0 && (uint64_t)-step > r->floor_us)
		r->floor_us = 0;
	else
		r->floor_us = (uint64_t)((int64_t)r->floor_us + step);
	return step;
}

static struct replay_entry *
replay_slot(struct replay *r, uint32_t sender)
{
	struct replay_entry *oldest = &r->e[0];

	for (unsigned i = 0; i < r->n; i++) {
		if (r->e[i].sender == sender)
			return &r->e[i];
		if (r->e[i].seen_us < oldest->seen_us)
			oldest = &r->e[i];
	}
	if (r->n < AUTH_SENDERS_MAX)
		oldest = &r->e[r->n++];
	else if (oldest->last_seq > r->floor_us)
		/*
		 * The table is full: forget the sender heard longest ago, but
		 * raise the floor to its last sequence, so that nothing it
		 * sent (nor anything older from anyone) can be replayed.
		 */
		r->floor_us = oldest->last_seq;
	oldest->sender = sender;
	oldest->last_seq = 0;
	return oldest;
}

int
replay_check(struct replay *r, uint32_t sender, uint64_t seq, uint64_t now_us)
{
	struct replay_entry *e;

	if (seq <= r->floor_us)
		return -1;
	if (seq + r->window_us < now_us || seq > now_us + r->window_us)
		return -1;
	e = replay_slot(r, sender);
	if (seq <= e->last_seq || seq <= r->floor_us)
		return -1;
	e->last_seq = seq;
	e->seen_us = now_us;
	return 0;
}

void
seqgen_init(struct seqgen *g)
{
	if (sodium_init() < 0)
		randombytes_stir();
	g->sender = randombytes_random();
	g->last = 0;
}

uint64_t
seqgen_next(struct seqgen *g, uint64_t now_us)
{
	if (now_us + AUTH_STEP_US < g->last) {
		/* the clock went back: a new sender, from the new clock */
		uint32_t old = g->sender;

		while ((g->sender = randombytes_random()) == old)
			;
		g->last = now_us;
		return g->last;
	}
	g->last = now_us > g->last ? now_us : g->last + 1;
	return g->last;
}

/* ---- whole datagrams ----------------------------------------------- */

int
proto_seal(const struct auth_key *k, struct seqgen *g, uint64_t now_us,
	   struct proto_msg *msg, uint8_t *buf, size_t cap)
{
	int n;

	msg->hdr.sender = g->sender;
	msg->hdr.seq = seqgen_next(g, now_us);
	n = proto_encode(msg, buf, cap);
	if (n < 0 || (size_t)n + PROTO_MAC_LEN > cap)
		return -1;
	auth_sign(k, buf, (size_t)n, buf + n);
	return n + PROTO_MAC_LEN;
}

int
proto_frame(const uint8_t *buf, size_t len, unsigned accept,
	    struct proto_msg *msg, enum proto_reject *why)
{
	if (proto_decode(buf, len, msg, why) < 0)
		return -1;
	if (!(accept & PROTO_TYPE_BIT(msg->hdr.type))) {
		*why = REJ_TYPE;
		return -1;
	}
	return 0;
}

int
proto_verify(const struct auth_key *k, struct replay *r, uint64_t now_us,
	     const uint8_t *buf, size_t len, struct proto_msg *msg,
	     enum proto_reject *why)
{
	const char *err;

	if (auth_verify(k, buf, len - PROTO_MAC_LEN, buf + len - PROTO_MAC_LEN) < 0) {
		*why = REJ_MAC;
		return -1;
	}
	if (replay_check(r, msg->hdr.sender, msg->hdr.seq, now_us) < 0) {
		*why = REJ_REPLAY;
		return -1;
	}
	if (msg->hdr.type == PROTO_SCHEDULE &&
	    proto_check_schedule(&msg->u.schedule, &err) < 0) {
		*why = REJ_RANGE;
		return -1;
	}
	return 0;
}

int
proto_open(const struct auth_key *k, struct replay *r, uint64_t now_us,
	   unsigned accept, const uint8_t *buf, size_t len,
	   struct proto_msg *msg, enum proto_reject *why)
{
	if (proto_frame(buf, len, accept, msg, why) < 0)
		return -1;
	return proto_verify(k, r, now_us, buf, len, msg, why);
}
