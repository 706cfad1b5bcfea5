/*
 * auth.c - Ed25519 signatures of commands and HMAC-SHA256 tags of replies
 * (libsodium), key files, node keys and replay protection.  The receiver's
 * checks in their fixed order are wire.c's (proto_open).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "auth.h"
#include "timeutil.h"

_Static_assert(crypto_auth_hmacsha256_BYTES == PROTO_MAC_LEN, "tag length");
_Static_assert(crypto_auth_hmacsha256_KEYBYTES == AUTH_KEY_LEN, "key length");
_Static_assert(crypto_sign_BYTES == PROTO_SIG_LEN, "signature length");
_Static_assert(crypto_sign_PUBLICKEYBYTES == AUTH_PUB_LEN, "public key length");
_Static_assert(crypto_sign_SECRETKEYBYTES == AUTH_SK_LEN, "secret key length");
_Static_assert(crypto_sign_SEEDBYTES == AUTH_KEY_LEN, "seed length");

static int
sodium_ready(char *err, size_t errlen)
{
	if (sodium_init() != -1)
		return 0;
	snprintf(err, errlen, "libsodium failed to initialise");
	return -1;
}

/* Read 32 bytes written as 64 hexadecimal digits from a secret file. */
static int
hex_file_read(const char *path, uint8_t out[AUTH_KEY_LEN], const char *make,
    char *err, size_t errlen)
{
	char		 text[AUTH_KEY_LEN * 2 + 3];
	struct stat	 st;
	ssize_t		 n;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		close(fd);
		return -1;
	}
	if (st.st_mode & (S_IWGRP | S_IXGRP | S_IRWXO)) {
		snprintf(err, errlen, "%s: key file is accessible by others "
		    "(chmod 600 %s, or 640 with the console's group)", path,
		    path);
		close(fd);
		return -1;
	}
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	text[n] = '\0';
	while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r'))
		text[--n] = '\0';
	if (n != AUTH_KEY_LEN * 2 || sodium_hex2bin(out, AUTH_KEY_LEN, text,
	    (size_t)n, NULL, NULL, NULL) != 0) {
		snprintf(err, errlen, "%s: a key is %d hexadecimal digits "
		    "(make one with %s)", path, AUTH_KEY_LEN * 2, make);
		sodium_memzero(text, sizeof(text));
		sodium_memzero(out, AUTH_KEY_LEN);
		return -1;
	}
	sodium_memzero(text, sizeof(text));
	return 0;
}

/* Write 32 bytes as 64 hexadecimal digits to a new file of mode 0600. */
static int
hex_file_write(const char *path, const uint8_t v[AUTH_KEY_LEN], char *err,
    size_t errlen)
{
	char	 text[AUTH_KEY_LEN * 2 + 2];
	int	 fd, ok;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	sodium_bin2hex(text, sizeof(text), v, AUTH_KEY_LEN);
	strcat(text, "\n");
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	ok = (close(fd) == 0) && ok;
	sodium_memzero(text, sizeof(text));
	if (!ok) {
		snprintf(err, errlen, "%s: write failed", path);
		unlink(path);
		return -1;
	}
	return 0;
}

int
auth_key_load(struct auth_key *k, const char *path, char *err, size_t errlen)
{
	if (sodium_ready(err, errlen) == -1)
		return -1;
	k->insecure = 0;
	return hex_file_read(path, k->key, "dts -k", err, errlen);
}

int
auth_key_generate(const char *path, char *err, size_t errlen)
{
	uint8_t	 key[AUTH_KEY_LEN];
	int	 rc;

	if (sodium_ready(err, errlen) == -1)
		return -1;
	randombytes_buf(key, sizeof(key));
	rc = hex_file_write(path, key, err, errlen);
	sodium_memzero(key, sizeof(key));
	return rc;
}

uint32_t
auth_key_id(const uint8_t pub[AUTH_PUB_LEN])
{
	return (uint32_t)pub[0] << 24 | (uint32_t)pub[1] << 16 |
	    (uint32_t)pub[2] << 8 | pub[3];
}

int
auth_signer_load(struct auth_key *k, const char *path, char *err,
    size_t errlen)
{
	uint8_t	 seed[crypto_sign_SEEDBYTES], pk[crypto_sign_PUBLICKEYBYTES];

	if (sodium_ready(err, errlen) == -1)
		return -1;
	if (hex_file_read(path, seed, "dts-console -k", err, errlen) == -1)
		return -1;
	crypto_sign_seed_keypair(pk, k->sk, seed);
	sodium_memzero(seed, sizeof(seed));
	if (auth_key_id(pk) == AUTH_READ_ID) {
		sodium_memzero(k->sk, sizeof(k->sk));
		snprintf(err, errlen, "%s: this key's id is %08x, reserved "
		    "for read requests: make a new key (dts-console -k)", path,
		    AUTH_READ_ID);
		return -1;
	}
	k->sign_id = auth_key_id(pk);
	k->can_sign = 1;
	return 0;
}

void
auth_signer_public(const struct auth_key *k,
    char pub_hex[2 * AUTH_PUB_LEN + 1])
{
	uint8_t	 pk[crypto_sign_PUBLICKEYBYTES];

	crypto_sign_ed25519_sk_to_pk(pk, k->sk);
	sodium_bin2hex(pub_hex, 2 * AUTH_PUB_LEN + 1, pk, sizeof(pk));
}

int
auth_signer_generate(const char *path, char pub_hex[2 * AUTH_PUB_LEN + 1],
    char *err, size_t errlen)
{
	struct auth_key	 k = { 0 };
	uint8_t		 seed[crypto_sign_SEEDBYTES];
	uint8_t		 pk[crypto_sign_PUBLICKEYBYTES];
	int		 rc;

	if (sodium_ready(err, errlen) == -1)
		return -1;
	do {	/* AUTH_READ_ID is no key's id */
		randombytes_buf(seed, sizeof(seed));
		crypto_sign_seed_keypair(pk, k.sk, seed);
	} while (auth_key_id(pk) == AUTH_READ_ID);
	rc = hex_file_write(path, seed, err, errlen);
	sodium_memzero(seed, sizeof(seed));
	if (rc == 0)
		auth_signer_public(&k, pub_hex);
	sodium_memzero(&k, sizeof(k));
	return rc;
}

int
auth_pub_parse(const char *hex, uint8_t pk[AUTH_PUB_LEN], char *err,
    size_t errlen)
{
	if (strlen(hex) == 2 * AUTH_PUB_LEN && sodium_hex2bin(pk, AUTH_PUB_LEN,
	    hex, strlen(hex), NULL, NULL, NULL) == 0)
		return 0;
	snprintf(err, errlen, "\"%.70s\" is not a public key (64 "
	    "hexadecimal digits, as dts-console -k prints)", hex);
	return -1;
}

int
auth_pub_add(struct auth_key *k, const char *hex, char *err, size_t errlen)
{
	uint8_t	 pk[AUTH_PUB_LEN];
	int	 i;

	if (auth_pub_parse(hex, pk, err, errlen) == -1)
		return -1;
	if (auth_key_id(pk) == AUTH_READ_ID) {
		snprintf(err, errlen, "the console key %.16s... has the id "
		    "%08x, reserved for read requests: make a new key", hex,
		    AUTH_READ_ID);
		return -1;
	}
	if (k->npub == AUTH_PUBS_MAX) {
		snprintf(err, errlen, "at most %d console keys (the old and "
		    "the new one while they change)", AUTH_PUBS_MAX);
		return -1;
	}
	for (i = 0; i < k->npub; i++)
		if (k->pub_id[i] == auth_key_id(pk)) {
			snprintf(err, errlen, "two console keys with the id "
			    "%08x: make a new key", auth_key_id(pk));
			return -1;
		}
	memcpy(k->pub[k->npub], pk, sizeof(pk));
	auth_read_key(pk, k->read[k->npub]);
	k->pub_id[k->npub++] = auth_key_id(pk);
	return 0;
}

void
auth_read_key(const uint8_t pub[AUTH_PUB_LEN], uint8_t out[AUTH_KEY_LEN])
{
	static const char	 ctx[] = AUTH_READ_CONTEXT;

	crypto_generichash(out, AUTH_KEY_LEN, (const uint8_t *)ctx,
	    sizeof(ctx) - 1, pub, AUTH_PUB_LEN);
}

void
auth_read_tag(const uint8_t rk[AUTH_KEY_LEN], const uint8_t *buf, size_t len,
    uint8_t tag[PROTO_SIG_LEN])
{
	crypto_auth_hmacsha256(tag, buf, len, rk);
	memset(tag + PROTO_MAC_LEN, 0, PROTO_SIG_LEN - PROTO_MAC_LEN);
}

int
auth_read_check(const struct auth_key *k, const uint8_t *buf, size_t len,
    const uint8_t *tag)
{
	static const uint8_t	 zero[PROTO_SIG_LEN - PROTO_MAC_LEN];
	int			 i;

	if (sodium_memcmp(tag + PROTO_MAC_LEN, zero, sizeof(zero)) != 0)
		return -1;
	for (i = 0; i < k->npub; i++)
		if (crypto_auth_hmacsha256_verify(tag, buf, len,
		    k->read[i]) == 0)
			return i;
	return -1;
}

void
auth_node_key(const uint8_t secret[AUTH_KEY_LEN], uint32_t addr_be,
    uint8_t out[AUTH_KEY_LEN])
{
	static const char	 label[] = "DTS node key";
	uint8_t			 msg[sizeof(label) + 4];

	memcpy(msg, label, sizeof(label));
	memcpy(msg + sizeof(label), &addr_be, 4);
	crypto_generichash(out, AUTH_KEY_LEN, msg, sizeof(msg), secret,
	    AUTH_KEY_LEN);
}

void
auth_for_node(const struct auth_key *k, uint32_t addr_be,
    struct auth_key *out)
{
	*out = *k;
	if (k->derive && !k->insecure) {
		auth_node_key(k->key, addr_be, out->key);
		out->derive = 0;
	}
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
	if (crypto_auth_hmacsha256_verify(tag, buf, len, k->key) != 0)
		return -1;
	return 0;
}

/* A command's signature, or a reply's MAC; zeros if insecure. */
int
auth_tag(const struct auth_key *k, int command, const uint8_t *buf,
    size_t len, uint8_t *tag)
{
	if (k->insecure) {
		memset(tag, 0, command ? PROTO_SIG_LEN : PROTO_MAC_LEN);
		return 0;
	}
	if (!command) {
		auth_sign(k, buf, len, tag);
		return 0;
	}
	if (!k->can_sign)
		return -1;
	crypto_sign_detached(tag, NULL, buf, len, k->sk);
	return 0;
}

/* The tag of a datagram: a command's signature by a key k holds (looked
 * up by key_id, before any cryptography), or a reply's MAC. */
int
auth_tag_check(const struct auth_key *k, int command, uint32_t key_id,
    const uint8_t *buf, size_t len, const uint8_t *tag)
{
	int	 i;

	if (k->insecure)
		return 0;
	if (!command)
		return auth_verify(k, buf, len, tag);
	for (i = 0; i < k->npub; i++)
		if (k->pub_id[i] == key_id)
			return crypto_sign_verify_detached(tag, buf, len,
			    k->pub[i]) == 0 ? 0 : -1;
	return -1;
}

/* ---- replay protection --------------------------------------------- */

void
replay_init(struct replay *r, uint64_t real_us, uint64_t mono_us,
    uint64_t window_us)
{
	memset(r, 0, sizeof(*r));
	r->floor_us = r->start_us = real_us;
	r->window_us = window_us;
	r->offset_us = r->start_off_us = (int64_t)real_us - (int64_t)mono_us;
	r->real_us = real_us;
	r->mono_us = mono_us;
}

int64_t
replay_clock(struct replay *r, uint64_t real_us, uint64_t mono_us)
{
	int64_t	 off = (int64_t)real_us - (int64_t)mono_us, step;

	r->real_us = real_us;
	r->mono_us = mono_us;
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

/* |a - b| <= w, without overflow */
static int
within(uint64_t a, uint64_t b, uint64_t w)
{
	return a > b ? a - b <= w : b - a <= w;
}

/*
 * A first datagram: after our start and near our clock, both by the real
 * clock now or both by our stamp; and above raise, the last sequence of
 * a sender forgotten to make room.
 */
static int
fresh(const struct replay *r, uint64_t seq, uint64_t raise)
{
	uint64_t stamp = (uint64_t)((int64_t)r->mono_us + r->start_off_us);

	if (seq <= raise)
		return 0;
	return (seq > r->floor_us && within(seq, r->real_us, r->window_us)) ||
	    (seq > r->start_us && within(seq, stamp, r->window_us));
}

/* Remember seq from sender at e. */
static int
take(struct replay *r, struct replay_entry *e, uint32_t sender, uint64_t seq)
{
	e->sender = sender;
	e->last_seq = seq;
	e->pace_us = (int64_t)seq - (int64_t)r->mono_us;
	e->seen_us = r->mono_us;
	return 0;
}

/* A sender heard before, at e: newer, and at its pace. */
static int
known(struct replay *r, struct replay_entry *e, uint64_t seq)
{
	uint64_t pace = (uint64_t)((int64_t)r->mono_us + e->pace_us);

	if (seq <= e->last_seq || !within(seq, pace, r->window_us))
		return -1;
	return take(r, e, e->sender, seq);
}

int
replay_check_entry(struct replay *r, struct replay_entry *e, uint32_t sender,
    uint64_t seq)
{
	if (e->last_seq != 0 && e->sender == sender)
		return known(r, e, seq);
	/* the peer's first datagram, or its first since it restarted */
	if (!fresh(r, seq, e->last_seq))
		return -1;
	return take(r, e, sender, seq);
}

int
replay_check(struct replay *r, uint32_t sender, uint64_t seq)
{
	struct replay_entry	*e = NULL;
	unsigned		 i;

	for (i = 0; i < r->n && e == NULL; i++)
		if (r->e[i].sender == sender)
			e = &r->e[i];
	if (e != NULL)
		return known(r, e, seq);
	if (r->n < AUTH_SENDERS_MAX) {
		if (!fresh(r, seq, 0))
			return -1;
		return take(r, &r->e[r->n++], sender, seq);
	}
	/*
	 * The table is full: forget the sender heard longest ago, but raise
	 * the floors to its last sequence, so that nothing it sent (nor
	 * anything older from anyone) can be replayed.
	 */
	e = &r->e[0];
	for (i = 1; i < r->n; i++)
		if (r->e[i].seen_us < e->seen_us)
			e = &r->e[i];
	if (!fresh(r, seq, e->last_seq))
		return -1;
	if (e->last_seq > r->floor_us)
		r->floor_us = e->last_seq;
	if (e->last_seq > r->start_us)
		r->start_us = e->last_seq;
	return take(r, e, sender, seq);
}

int
replay_fresh(const struct replay *r, uint64_t seq)
{
	return fresh(r, seq, 0);
}

void
seqgen_init(struct seqgen *g)
{
	if (sodium_init() == -1)
		randombytes_stir();
	g->sender = randombytes_random();
	g->base_us = (now_real_ns() - now_mono_ns()) / NS_PER_US;
	g->last = 0;
}

uint64_t
seqgen_next(struct seqgen *g, uint64_t mono_us)
{
	uint64_t now = (uint64_t)(g->base_us + (int64_t)mono_us);

	g->last = now > g->last ? now : g->last + 1;
	return g->last;
}
