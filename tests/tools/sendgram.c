/*
 * sendgram.c - a test client of the DTS wire protocol (common/proto.h).
 *
 *   sendgram [-k SECRET [-s SIGNKEY] | -K] [-a ADDR] -p PORT [-t TIMEOUT_MS]
 *            [-n] [-S SI_US] [-R MS] [-T] ACTION [ARGS]
 *
 * It plays a console: -s is its key pair (console.sign_key), which signs
 * the commands; -k is the nodes' secret (console.node_secret), and a
 * reply is checked under the key of the node at its source address.
 * -K: insecure, nothing signed or checked.
 * -T sets SCHED_F_TAKEOVER on a schedule: the sender becomes the master.
 * -R: schedule only; send it every SI (-S) for MS milliseconds, as a console does,
 * on an absolute CLOCK_MONOTONIC grid (no drift, whatever a send costs),
 * and print the CLOCK_REALTIME ns of each send instead of the replies.
 * -b binds the source address (127.0.0.2 plays a second console host),
 * -P the source port (a console keeps one port for its life; a node
 * gives its master's address and port a socket of its own).
 *
 * Talks to one dts control port over UDP from an ephemeral port.  Datagrams
 * are built with proto_seal() and a fresh seqgen; replies are checked with
 * proto_open() and a replay state of our own.  Besides "status" and
 * "schedule" it has one action per attack the receiver must survive; each
 * sends exactly what its name says, waits for nothing and prints one line.
 * Malformed datagrams start as a valid sealed SCHEDULE whose bytes are then
 * patched (offsets from struct proto_hdr) and signed again where it matters,
 * so only the intended check can reject them.
 *
 * Exit status: 0 sent (and, for status/schedule, a reply printed), 1 error
 * or no reply, 2 bad usage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "auth.h"
#include "conf.h"
#include "proto.h"
#include "timeutil.h"
#include "wire.h"

#define SI_US        10000000u        /* 10 s */
#define REPLY_WINDOW 60000000ull      /* µs: replies accepted from +-60 s */
#define OLD_US       7200000000ull    /* replay-old: 2 hours back */
#define BUF_LEN      1024
#define OVERSIZE_LEN 600
#define GARBAGE_MAX  700

/* Offsets in struct proto_hdr on the wire. */
#define OFF_MAGIC   0
#define OFF_VERSION 4
#define OFF_TYPE    5
#define OFF_LENGTH  6
#define OFF_RESERVED 12

struct ctx {
	struct auth_key key;
	struct seqgen   gen;
	int             fd;
	struct sockaddr_storage dst;
	socklen_t       dstlen;
	int             timeout_ms;
	int             nowait;
	const char     *save;   /* -o: also write each datagram sent here */
};

struct action {
	const char *name;
	int         min_args;
	int         max_args;
	const char *usage;
	int       (*fn)(struct ctx *c, int argc, char **argv);
};

/* ---- small helpers ---------------------------------------------------- */

static void __attribute__((format(printf, 1, 2)))
warnmsg(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "sendgram: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Decimal, or hexadecimal with 0x. */
static int
parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (*s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		return -1;
	*out = v;
	return 0;
}

static int
parse_u32(const char *s, uint32_t *out)
{
	uint64_t v;

	if (parse_u64(s, &v) || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static void
random_bytes(void *buf, size_t len)
{
	uint8_t *p = buf;
	ssize_t n;

	while (len > 0) {
		n = getrandom(p, len, 0);
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			warnmsg("getrandom: %s", strerror(errno));
			exit(1);
		}
		p += n;
		len -= (size_t)n;
	}
}

/* ---- building datagrams ----------------------------------------------- */

/*
 * SCHEDULE from "MODE PS_US IP_US [SYNC] [FLAGS]" (argc may be 0: then the
 * defaults static 50000 100000 arrival ACTIVE|SYNC, with ps/ip overridable
 * by the caller).  Returns 0 or -1 (bad usage).
 */
static uint64_t origin_ns;	/* -O: clock-sync origin; 0 = now */
static uint32_t si_us = SI_US;	/* -S: the schedule's SI */
static int takeover;		/* -T: SCHED_F_TAKEOVER on schedules */
static uint32_t repeat_ms;	/* -R: send the schedule every SI this long */
static const char *src_addr;	/* -b: the source address (a console's) */
static uint32_t src_port;	/* -P: a fixed source port, as a console
				   that runs on has (0: ephemeral) */

static int
schedule_msg(struct proto_msg *m, int argc, char **argv, uint32_t ps, uint32_t ip)
{
	uint32_t flags = SCHED_F_ACTIVE | SCHED_F_SYNC;
	int mode = MODE_STATIC, sync = SYNC_ARRIVAL;

	if (argc > 0 && argc < 3)
		return -1;
	if (argc >= 3 && ((mode = proto_mode_parse(argv[0])) < 0 ||
			  parse_u32(argv[1], &ps) || parse_u32(argv[2], &ip)))
		return -1;
	if (argc >= 4 && (sync = proto_sync_parse(argv[3])) < 0)
		return -1;
	if (argc >= 5 && (parse_u32(argv[4], &flags) || flags > 0xff))
		return -1;
	memset(m, 0, sizeof(*m));
	m->hdr.type = PROTO_SCHEDULE;
	m->u.schedule.mode = (uint8_t)mode;
	m->u.schedule.sync = (uint8_t)sync;
	m->u.schedule.flags = (uint8_t)(flags | (takeover ? SCHED_F_TAKEOVER : 0));
	m->u.schedule.ps_us = ps;
	m->u.schedule.ip_us = ip;
	m->u.schedule.si_us = si_us;
	m->u.schedule.origin_ns = origin_ns ? origin_ns : (uint64_t)now_real_ns();
	return 0;
}

/* Seal m with the context's key and sequence; exits on failure. */
static int
seal_at(struct ctx *c, const struct auth_key *k, uint64_t mono_us,
	struct proto_msg *m, uint8_t *buf)
{
	int n = proto_seal(k, &c->gen, mono_us, m, buf, BUF_LEN);

	if (n < 0) {
		warnmsg("cannot encode a datagram of type %u", m->hdr.type);
		exit(1);
	}
	return n;
}

static int
seal(struct ctx *c, struct proto_msg *m, uint8_t *buf)
{
	return seal_at(c, &c->key, now_mono_us(), m, buf);
}

/* Sign buf[0..body) again after patching it; returns the datagram length. */
static int
resign(struct ctx *c, uint8_t *buf, int body)
{
	if (c->key.can_sign)
		crypto_sign_detached(buf + body, NULL, buf, (size_t)body,
		    c->key.sk);
	else
		memset(buf + body, 0, PROTO_SIG_LEN);
	return body + PROTO_SIG_LEN;
}

/* A default valid SCHEDULE (or one from the action's args), sealed. */
static int
sealed_schedule(struct ctx *c, int argc, char **argv, uint8_t *buf)
{
	struct proto_msg m;

	if (schedule_msg(&m, argc, argv, 50000, 100000) < 0)
		return -1;
	return seal(c, &m, buf);
}

static int
send_dgram(struct ctx *c, const uint8_t *buf, size_t len)
{
	if (c->save) {
		FILE *f = fopen(c->save, "wb");
		if (f == NULL || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
			warnmsg("%s: cannot save the datagram", c->save);
			return -1;
		}
	}
	if (sendto(c->fd, buf, len, 0, (const struct sockaddr *)&c->dst,
		   c->dstlen) != (ssize_t)len) {
		warnmsg("sendto: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- replies ---------------------------------------------------------- */

static void
print_status(const struct proto_status *s)
{
	unsigned i;

	printf("name=%.*s\n", (int)strnlen(s->name, PROTO_NAME_LEN), s->name);
	printf("mode=%s\n", proto_mode_name(s->mode));
	printf("sync=%s\n", proto_sync_name(s->sync));
	printf("active=%d\n", (s->flags & SCHED_F_ACTIVE) ? 1 : 0);
	printf("heard=%d\n", (s->flags & STATUS_F_HEARD) ? 1 : 0);
	printf("own=%d\n", (s->flags & STATUS_F_OWN) ? 1 : 0);
	printf("ls_policy=%s\n",
	    conf_ls_policy_names[(s->flags & STATUS_F_LS_IDLE) ? LS_IDLE : LS_STOP]);
	printf("phase=%s\n", proto_phase_name(s->phase));
	printf("ps_us=%" PRIu32 "\nip_us=%" PRIu32 "\nsi_us=%" PRIu32 "\n",
	       s->ps_us, s->ip_us, s->si_us);
	printf("load=%" PRIu32 ".%03" PRIu32 "\n", s->load_milli / 1000,
	       s->load_milli % 1000);
	printf("members=%" PRIu32 "\n", s->members);
	printf("users=%u\nncpu=%u\nmem_mib=%" PRIu32 "\n", s->users, s->ncpu,
	       s->mem_mib);
	printf("slices=%" PRIu64 "\noverruns=%" PRIu64 "\nlast_ps_ns=%" PRIu64 "\n",
	       s->slices, s->overruns, s->last_ps_ns);
	for (i = 0; i < REJ_COUNT; i++)
		printf("rej_%s=%" PRIu32 "\n", proto_reject_name(i), s->rejected[i]);
	printf("queue_full=%" PRIu32 "\n", s->queue_full);
	printf("master=%" PRIu32 ".%" PRIu32 ".%" PRIu32 ".%" PRIu32 "\n",
	       s->master >> 24, (s->master >> 16) & 255, (s->master >> 8) & 255,
	       s->master & 255);
	printf("yours=%d\n", (s->flags & STATUS_F_YOURS) ? 1 : 0);
}

/* Wait up to the timeout for a valid STATUS and print it. */
static int
wait_reply(struct ctx *c, unsigned type, struct proto_msg *out)
{
	int64_t deadline = now_mono_ns() + (int64_t)c->timeout_ms * NS_PER_MS;
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	uint8_t buf[BUF_LEN];
	static struct replay r;
	static int r_init;
	struct proto_msg m;
	struct auth_key k;
	struct sockaddr_in from;
	socklen_t flen;
	enum proto_reject why;
	int64_t left;
	ssize_t n;

	if (!r_init++) {
		replay_init(&r, now_real_us(), now_mono_us(), REPLY_WINDOW);
		r.floor_us -= REPLY_WINDOW;	/* replies to an earlier run too */
	}
	while ((left = deadline - now_mono_ns()) > 0) {
		if (poll(&pfd, 1, (int)((left + NS_PER_MS - 1) / NS_PER_MS)) <= 0)
			continue;
		flen = sizeof(from);
		n = recvfrom(c->fd, buf, sizeof(buf), 0,
		    (struct sockaddr *)&from, &flen);
		if (n < 0 || from.sin_family != AF_INET)
			continue;
		/* the replying node's own key, as a console checks it */
		auth_for_node(&c->key, from.sin_addr.s_addr, &k);
		(void)replay_clock(&r, now_real_us(), now_mono_us());
		if (proto_open(&k, &r, PROTO_ACCEPT_CONSOLE,
		    buf, (size_t)n, &m, &why) < 0) {
			warnmsg("dropped a reply: %s", proto_reject_name(why));
			continue;
		}
		if (m.hdr.type != type)
			continue;
		*out = m;
		return 0;
	}
	warnmsg("no reply within %d ms", c->timeout_ms);
	return 1;
}

static int
wait_status(struct ctx *c)
{
	struct proto_msg m;

	if (wait_reply(c, PROTO_STATUS, &m) != 0)
		return 1;
	print_status(&m.u.status);
	return 0;
}

/* ---- actions ---------------------------------------------------------- */

static int
act_status(struct ctx *c, int argc, char **argv)
{
	struct proto_msg m;
	uint8_t buf[BUF_LEN];

	memset(&m, 0, sizeof(m));
	m.hdr.type = PROTO_STATUS_REQ;
	if (send_dgram(c, buf, (size_t)seal(c, &m, buf)) < 0)
		return 1;
	return c->nowait ? 0 : wait_status(c);
}

static int
act_schedule(struct ctx *c, int argc, char **argv)
{
	struct proto_msg m;
	uint8_t buf[BUF_LEN];
	int64_t next = now_mono_ns(), end = next + (int64_t)repeat_ms * NS_PER_MS;
	struct timespec ts;

	if (schedule_msg(&m, argc, argv, 0, 0) < 0)
		return 2;
	if (repeat_ms == 0) {
		if (send_dgram(c, buf, (size_t)seal(c, &m, buf)) < 0)
			return 1;
		return c->nowait ? 0 : wait_status(c);
	}
	for (; next < end; next += (int64_t)si_us * NS_PER_US) {
		size_t len = (size_t)seal(c, &m, buf);	/* signed ahead */
		ts = ns_to_ts(next);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
		    NULL) == EINTR)
			;
		if (send_dgram(c, buf, len) < 0)
			return 1;
		printf("%lld\n", (long long)now_real_ns());
	}
	return 0;
}

/* The one line an attack prints; len < 0: no byte count. */
static int
sent(int rc, const char *what, int len)
{
	if (rc == 0 && len >= 0)
		printf("sent %s (%d bytes)\n", what, len);
	else if (rc == 0)
		printf("sent %s\n", what);
	return rc ? 1 : 0;
}

/* A key pair from 32 bytes used as its seed, posing as the console's key
 * (its id), so that the forgery reaches the signature check. */
static void
pose_as(struct ctx *c, const uint8_t seed[AUTH_KEY_LEN], struct auth_key *k)
{
	uint8_t pk[AUTH_PUB_LEN];

	memset(k, 0, sizeof(*k));
	crypto_sign_seed_keypair(pk, k->sk, seed);
	k->can_sign = 1;
	k->sign_id = c->key.can_sign ? c->key.sign_id : auth_key_id(pk);
}

static int
act_forge(struct ctx *c, int argc, char **argv)
{
	struct auth_key wrong;
	struct proto_msg m;
	uint8_t buf[BUF_LEN], seed[AUTH_KEY_LEN];
	int n;

	if (schedule_msg(&m, argc, argv, 50000, 100000) < 0)
		return 2;
	random_bytes(seed, sizeof(seed));
	pose_as(c, seed, &wrong);
	n = seal_at(c, &wrong, now_mono_us(), &m, buf);
	return sent(send_dgram(c, buf, (size_t)n), "forge: SCHEDULE signed with a "
		    "random key pair under the console key's id", n);
}

/*
 * nodeforge NODEKEYFILE: what a node's own key can do against another
 * node: a SCHEDULE signed with a key pair made from it (under the console
 * key's id), and one whose tag is its HMAC.
 */
static int
act_nodeforge(struct ctx *c, int argc, char **argv)
{
	struct auth_key nk = { 0 }, posed;
	struct proto_msg m;
	uint8_t buf[BUF_LEN];
	char err[256];
	int n, body;

	if (auth_key_load(&nk, argv[0], err, sizeof(err)) < 0) {
		warnmsg("%s", err);
		return 1;
	}
	if (schedule_msg(&m, argc - 1, argv + 1, 50000, 100000) < 0)
		return 2;
	pose_as(c, nk.key, &posed);
	n = seal_at(c, &posed, now_mono_us(), &m, buf);
	if (send_dgram(c, buf, (size_t)n) < 0)
		return 1;
	n = seal(c, &m, buf);
	body = n - PROTO_SIG_LEN;
	memset(buf + body, 0, PROTO_SIG_LEN);
	auth_sign(&nk, buf, (size_t)body, buf + body);
	return sent(send_dgram(c, buf, (size_t)n), "nodeforge: 2 SCHEDULEs "
		    "signed with a node's key (as a key pair; as an HMAC key)", n);
}

static int
act_replay(struct ctx *c, int argc, char **argv)
{
	uint8_t buf[BUF_LEN];
	int n = sealed_schedule(c, argc, argv, buf);

	if (n < 0)
		return 2;
	if (send_dgram(c, buf, (size_t)n) < 0)
		return 1;
	usleep(20000); /* let the original arrive first */
	return sent(send_dgram(c, buf, (size_t)n),
		    "replay: one signed SCHEDULE twice, byte-identical", n);
}

static int
act_replay_old(struct ctx *c, int argc, char **argv)
{
	struct proto_msg m;
	uint8_t buf[BUF_LEN];
	int n;

	if (schedule_msg(&m, argc, argv, 50000, 100000) < 0)
		return 2;
	n = seal_at(c, &c->key, now_mono_us() - OLD_US, &m, buf);
	return sent(send_dgram(c, buf, (size_t)n),
		    "replay-old: signed SCHEDULE with seq 2 hours old", n);
}

static int
act_truncate(struct ctx *c, int argc, char **argv)
{
	uint8_t buf[BUF_LEN];

	if (sealed_schedule(c, argc, argv, buf) < 0)
		return 2;
	return sent(send_dgram(c, buf, 10), "truncate: SCHEDULE cut to 10 bytes", 10);
}

static int
act_oversize(struct ctx *c, int argc, char **argv)
{
	uint8_t buf[BUF_LEN];
	int n = sealed_schedule(c, argc, argv, buf);

	if (n < 0)
		return 2;
	random_bytes(buf + n, (size_t)(OVERSIZE_LEN - n));
	return sent(send_dgram(c, buf, OVERSIZE_LEN),
		    "oversize: valid SCHEDULE header and junk", OVERSIZE_LEN);
}

/* Patch one header field of a sealed SCHEDULE, sign again and send. */
static int
send_patched(struct ctx *c, int argc, char **argv, size_t off,
	     const uint8_t *val, size_t vlen, const char *what)
{
	uint8_t buf[BUF_LEN];
	int n = sealed_schedule(c, argc, argv, buf);

	if (n < 0)
		return 2;
	memcpy(buf + off, val, vlen);
	n = resign(c, buf, n - PROTO_SIG_LEN);
	return sent(send_dgram(c, buf, (size_t)n), what, n);
}

static int
act_badmagic(struct ctx *c, int argc, char **argv)
{
	static const uint8_t bad[4] = { 'X', 'T', 'S', '1' };

	return send_patched(c, argc, argv, OFF_MAGIC, bad, sizeof(bad),
			    "badmagic: signed SCHEDULE with magic \"XTS1\"");
}

static int
act_badversion(struct ctx *c, int argc, char **argv)
{
	const uint8_t v = PROTO_VERSION + 1;

	return send_patched(c, argc, argv, OFF_VERSION, &v, 1,
			    "badversion: signed SCHEDULE with the next protocol version");
}

static int
act_badtype(struct ctx *c, int argc, char **argv)
{
	const uint8_t t = 99;

	return send_patched(c, argc, argv, OFF_TYPE, &t, 1,
			    "badtype: signed datagram of type 99");
}

static int
act_badlen(struct ctx *c, int argc, char **argv)
{
	uint8_t buf[BUF_LEN];
	uint16_t len = htons(7);
	int n = sealed_schedule(c, argc, argv, buf);

	if (n < 0)
		return 2;
	memcpy(buf + OFF_LENGTH, &len, sizeof(len));
	n = resign(c, buf, PROTO_HDR_LEN + 7);
	return sent(send_dgram(c, buf, (size_t)n),
		    "badlen: signed SCHEDULE with a 7-byte payload", n);
}

static int
act_range(struct ctx *c, int argc, char **argv)
{
	struct proto_msg m;
	uint8_t buf[BUF_LEN];
	int n;

	if (schedule_msg(&m, argc, argv, 200000, 100000) < 0)
		return 2;
	n = seal(c, &m, buf);
	return sent(send_dgram(c, buf, (size_t)n), "range: signed SCHEDULE with PS > IP", n);
}

/* xorshift64*: reproducible from the printed seed. */
static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/*
 * One garbage datagram.  Of every four: two are random bytes of a random
 * length; one starts with a valid magic, version and a random type; one is
 * also exactly as long as its (random, known) type says, so it reaches the
 * MAC check.
 */
static size_t
garbage_dgram(uint64_t *s, uint8_t *buf, unsigned i)
{
	size_t len = (size_t)(rnd(s) % (GARBAGE_MAX + 1)), j;
	uint32_t magic = htonl(PROTO_MAGIC);
	uint16_t plen = 0;
	uint8_t type = 0;

	if (i % 4 == 3) {
		type = (uint8_t)(1 + rnd(s) % PROTO_TYPE_LAST);
		plen = (uint16_t)proto_payload_len(type);
		len = PROTO_HDR_LEN + plen + proto_tag_len(type);
	}
	for (j = 0; j < len; j++)
		buf[j] = (uint8_t)rnd(s);
	if (i % 2 == 1 && len >= PROTO_HDR_LEN) {
		memcpy(buf + OFF_MAGIC, &magic, 4);
		buf[OFF_VERSION] = PROTO_VERSION;
		buf[OFF_TYPE] = (uint8_t)(rnd(s) % (PROTO_TYPE_LAST + 2));
	}
	if (i % 4 == 3) {
		buf[OFF_TYPE] = type;
		plen = htons(plen);
		memcpy(buf + OFF_LENGTH, &plen, 2);
		memset(buf + OFF_RESERVED, 0, 4);
	}
	return len;
}

static int
act_garbage(struct ctx *c, int argc, char **argv)
{
	uint8_t buf[GARBAGE_MAX + 1];
	uint64_t seed, s;
	uint32_t count, i;
	char what[96];

	if (parse_u32(argv[0], &count))
		return 2;
	if (argc > 1) {
		if (parse_u64(argv[1], &seed))
			return 2;
	} else {
		random_bytes(&seed, sizeof(seed));
	}
	s = seed ? seed : 1;
	for (i = 0; i < count; i++) {
		if (send_dgram(c, buf, garbage_dgram(&s, buf, i)) < 0)
			return 1;
		if (i % 32 == 31)
			usleep(1000); /* do not just overflow the receive buffer */
	}
	snprintf(what, sizeof(what), "garbage: %" PRIu32 " random datagrams, seed %" PRIu64,
		 count, seed);
	return sent(0, what, -1);
}

/*
 * trace [SINCE_NS]: every slice edge the node recorded after SINCE_NS
 * (CLOCK_REALTIME), as CSV lines phase,real_ns,late_ns,op_ns.
 */
static int
act_trace(struct ctx *c, int argc, char **argv)
{
	uint64_t since = 0;
	struct proto_msg m;
	uint8_t buf[BUF_LEN];
	int tries;

	if (argc > 0 && parse_u64(argv[0], &since))
		return 2;
	printf("phase,real_ns,late_ns,op_ns\n");
	for (;;) {
		memset(&m, 0, sizeof(m));
		m.hdr.type = PROTO_TRACE_REQ;
		m.u.trace_req.since_ns = since;
		/* a request the node's rate limit dropped is asked again */
		for (tries = 0;; tries++) {
			if (send_dgram(c, buf, (size_t)seal(c, &m, buf)) < 0)
				return 1;
			if (wait_reply(c, PROTO_TRACE, &m) == 0)
				break;
			if (tries == 2)
				return 1;
			m.hdr.type = PROTO_TRACE_REQ;
			m.u.trace_req.since_ns = since;
		}
		for (uint32_t i = 0; i < m.u.trace.count; i++) {
			const struct proto_edge *e = &m.u.trace.edge[i];
			if (e->real_ns <= since)
				continue;	/* a late answer to an earlier ask */
			printf("%s,%" PRIu64 ",%" PRIu32 ",%" PRIu32 "\n",
			       proto_edge_name(e->phase), e->real_ns, e->late_ns, e->op_ns);
			since = e->real_ns;
		}
		if (!m.u.trace.more || m.u.trace.count == 0)
			return 0;
	}
}

/* raw FILE: send the bytes of FILE as they are (a captured datagram). */
static int
act_raw(struct ctx *c, int argc, char **argv)
{
	uint8_t buf[BUF_LEN];
	size_t len;
	FILE *f = fopen(argv[0], "rb");

	if (f == NULL) {
		warnmsg("%s: %s", argv[0], strerror(errno));
		return 1;
	}
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	return sent(send_dgram(c, buf, len), "raw: the bytes of a saved datagram",
		    (int)len);
}

/* ---- main ------------------------------------------------------------- */

#define SCHED_ARGS "[MODE PS_US IP_US [SYNC] [FLAGS]]"

static const struct action actions[] = {
	{ "status", 0, 0, "status", act_status },
	{ "schedule", 3, 5, "schedule MODE PS_US IP_US [SYNC] [FLAGS]", act_schedule },
	{ "forge", 0, 5, "forge " SCHED_ARGS, act_forge },
	{ "nodeforge", 1, 6, "nodeforge NODEKEYFILE " SCHED_ARGS, act_nodeforge },
	{ "replay", 0, 5, "replay " SCHED_ARGS, act_replay },
	{ "replay-old", 0, 5, "replay-old " SCHED_ARGS, act_replay_old },
	{ "truncate", 0, 5, "truncate " SCHED_ARGS, act_truncate },
	{ "oversize", 0, 5, "oversize " SCHED_ARGS, act_oversize },
	{ "badmagic", 0, 5, "badmagic " SCHED_ARGS, act_badmagic },
	{ "badversion", 0, 5, "badversion " SCHED_ARGS, act_badversion },
	{ "badtype", 0, 5, "badtype " SCHED_ARGS, act_badtype },
	{ "badlen", 0, 5, "badlen " SCHED_ARGS, act_badlen },
	{ "range", 0, 5, "range " SCHED_ARGS, act_range },
	{ "garbage", 1, 2, "garbage N [SEED]", act_garbage },
	{ "raw", 1, 1, "raw FILE", act_raw },
	{ "trace", 0, 1, "trace [SINCE_NS]", act_trace },
};
#define NACTIONS (sizeof(actions) / sizeof(actions[0]))

static void __attribute__((noreturn))
usage(const struct action *a)
{
	size_t i;

	if (a) {
		fprintf(stderr, "usage: sendgram [options] %s\n", a->usage);
		exit(2);
	}
	fprintf(stderr, "usage: sendgram [-k SECRET [-s SIGNKEY] | -K] [-a ADDR] -p PORT "
		"[-b SRC_ADDR] [-P SRC_PORT] [-t TIMEOUT_MS] [-n] [-o SAVEFILE] [-O ORIGIN_NS] [-S SI_US] [-R MS] [-T]\n"
		"       ACTION [ARGS]\n"
		"actions:\n");
	for (i = 0; i < NACTIONS; i++)
		fprintf(stderr, "  %s\n", actions[i].usage);
	exit(2);
}

static int
open_socket(struct ctx *c, const char *addr, const char *port)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_DGRAM };
	struct sockaddr_in any = { .sin_family = AF_INET };
	struct addrinfo *ai;
	int rc, on = 1;

	if ((rc = getaddrinfo(addr, port, &hints, &ai)) != 0) {
		warnmsg("%s port %s: %s", addr, port, gai_strerror(rc));
		return -1;
	}
	memcpy(&c->dst, ai->ai_addr, ai->ai_addrlen);
	c->dstlen = ai->ai_addrlen;
	freeaddrinfo(ai);
	if (src_addr != NULL && inet_pton(AF_INET, src_addr, &any.sin_addr) != 1) {
		warnmsg("-b %s: not an IPv4 address", src_addr);
		return -1;
	}
	any.sin_port = htons((uint16_t)src_port);
	c->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0 ||
	    setsockopt(c->fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) < 0 ||
	    bind(c->fd, (struct sockaddr *)&any, sizeof(any)) < 0) {
		warnmsg("socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(c->fd, SOL_SOCKET, SO_BROADCAST, &on, sizeof(on));
	return 0;
}

static int
load_key(struct ctx *c, const char *keyfile, const char *signkey,
	 int insecure)
{
	char err[256];

	if (!!keyfile == !!insecure || (insecure && signkey))
		usage(NULL); /* exactly one of -k and -K */
	if (insecure) {
		c->key.insecure = 1;
		return 0;
	}
	if (auth_key_load(&c->key, keyfile, err, sizeof(err)) < 0 ||
	    (signkey && auth_signer_load(&c->key, signkey, err,
	    sizeof(err)) < 0)) {
		warnmsg("%s", err);
		return -1;
	}
	c->key.derive = 1;
	return 0;
}

static const struct action *
find_action(const char *name)
{
	size_t i;

	for (i = 0; i < NACTIONS; i++)
		if (strcmp(name, actions[i].name) == 0)
			return &actions[i];
	return NULL;
}

int
main(int argc, char **argv)
{
	const char *keyfile = NULL, *signkey = NULL, *addr = "127.0.0.1";
	const char *port = NULL;
	const struct action *a;
	struct ctx c = { .timeout_ms = 1000 };
	uint32_t v;
	int opt, insecure = 0, nargs, rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "+k:Ks:a:b:P:p:t:no:O:R:S:T")) != -1) {
		switch (opt) {
		case 'S':
			if (parse_u32(optarg, &si_us) || si_us == 0)
				usage(NULL);
			break;
		case 'O':
			if (parse_u64(optarg, &origin_ns) || origin_ns == 0)
				usage(NULL);
			break;
		case 'R':
			if (parse_u32(optarg, &repeat_ms) || repeat_ms == 0 ||
			    repeat_ms > 3600000)
				usage(NULL);
			break;
		case 'o': c.save = optarg; break;
		case 'T': takeover = 1; break;
		case 'b': src_addr = optarg; break;
		case 'P':
			if (parse_u32(optarg, &src_port) || src_port > 65535)
				usage(NULL);
			break;
		case 'k': keyfile = optarg; break;
		case 's': signkey = optarg; break;
		case 'K': insecure = 1; break;
		case 'a': addr = optarg; break;
		case 'p': port = optarg; break;
		case 'n': c.nowait = 1; break;
		case 't':
			if (parse_u32(optarg, &v) || v == 0 || v > 3600000)
				usage(NULL);
			c.timeout_ms = (int)v;
			break;
		default: usage(NULL);
		}
	}
	if (!port || optind >= argc || !(a = find_action(argv[optind])))
		usage(NULL);
	nargs = argc - optind - 1;
	if (nargs < a->min_args || nargs > a->max_args)
		usage(a);
	if (load_key(&c, keyfile, signkey, insecure) < 0)
		return 1;
	if (open_socket(&c, addr, port) < 0)
		return 1;
	seqgen_init(&c.gen);
	rc = a->fn(&c, nargs, argv + optind + 1);
	if (rc == 2)
		usage(a);
	close(c.fd);
	return rc;
}
