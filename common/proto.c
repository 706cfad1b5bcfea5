/*
 * proto.c - encode and decode the datagrams of proto.h.
 *
 * Fields are copied one by one in network byte order; nothing here trusts
 * the compiler's struct layout.  Decoding checks, in order: length bounds,
 * magic and version, type, payload and tag length, reserved fields.  Whole
 * datagrams (proto_seal, proto_open) add the tag and the replay check of
 * auth.c, and the payload ranges last.
 */
#include <endian.h>
#include <string.h>

#include "auth.h"
#include "names.h"
#include "proto.h"
#include "rules.h"

/* ---- byte helpers ---------------------------------------------------- */

struct wbuf {
	uint8_t		*p;
	size_t		 len, cap;
	int		 err;		/* a put did not fit: nothing valid */
};

struct rbuf {
	const uint8_t	*p;
	size_t		 len, off;
};

static void
put(struct wbuf *w, const void *v, size_t n)
{
	if (w->err || w->len + n > w->cap) {
		w->err = 1;
		return;
	}
	memcpy(w->p + w->len, v, n);
	w->len += n;
}

static void
put8(struct wbuf *w, uint8_t v)
{
	put(w, &v, 1);
}

static void
put16(struct wbuf *w, uint16_t v)
{
	v = htobe16(v);
	put(w, &v, 2);
}

static void
put32(struct wbuf *w, uint32_t v)
{
	v = htobe32(v);
	put(w, &v, 4);
}

static void
put64(struct wbuf *w, uint64_t v)
{
	v = htobe64(v);
	put(w, &v, 8);
}

static void
get(struct rbuf *r, void *v, size_t n)
{
	/* callers check lengths first; this only guards against our bugs */
	if (r->off + n > r->len) {
		memset(v, 0, n);
		r->off = r->len;
		return;
	}
	memcpy(v, r->p + r->off, n);
	r->off += n;
}

static uint8_t
get8(struct rbuf *r)
{
	uint8_t	 v;

	get(r, &v, 1);
	return v;
}

static uint16_t
get16(struct rbuf *r)
{
	uint16_t v;

	get(r, &v, 2);
	return be16toh(v);
}

static uint32_t
get32(struct rbuf *r)
{
	uint32_t v;

	get(r, &v, 4);
	return be32toh(v);
}

static uint64_t
get64(struct rbuf *r)
{
	uint64_t v;

	get(r, &v, 8);
	return be64toh(v);
}

/* ---- lengths ------------------------------------------------------- */

static const int payload_len[PROTO_TYPE_LAST + 1] = {
	[PROTO_SCHEDULE]   = PROTO_SCHEDULE_LEN,
	[PROTO_STATUS_REQ] = PROTO_STATUS_REQ_LEN,
	[PROTO_STATUS]     = PROTO_STATUS_LEN,
	[PROTO_LOAD]       = PROTO_LOAD_LEN,
	[PROTO_TRACE_REQ]  = PROTO_TRACE_REQ_LEN,
	[PROTO_TRACE]      = PROTO_TRACE_LEN,
	[PROTO_METRICS_REQ] = PROTO_METRICS_REQ_LEN,
	[PROTO_METRICS]    = PROTO_METRICS_LEN,
};

int
proto_payload_len(unsigned type)
{
	if (type == 0 || type > PROTO_TYPE_LAST)
		return -1;
	return payload_len[type];
}

int
proto_is_command(unsigned type)
{
	return (PROTO_ACCEPT_NODE & PROTO_TYPE_BIT(type)) != 0;
}

size_t
proto_tag_len(unsigned type)
{
	return proto_is_command(type) ? PROTO_SIG_LEN : PROTO_MAC_LEN;
}

/* ---- encode -------------------------------------------------------- */

static void
enc_schedule(struct wbuf *w, const struct proto_schedule *s)
{
	put8(w, s->mode);
	put8(w, s->sync);
	put8(w, s->flags);
	put8(w, 0);
	put32(w, s->ps_us);
	put32(w, s->ip_us);
	put32(w, s->si_us);
	put64(w, s->origin_ns);
}

static void
enc_status(struct wbuf *w, const struct proto_status *s)
{
	char	 name[PROTO_NAME_LEN] = { 0 };
	int	 i;

	put8(w, s->mode);
	put8(w, s->sync);
	put8(w, s->flags);
	put8(w, s->phase);
	put32(w, s->ps_us);
	put32(w, s->ip_us);
	put32(w, s->si_us);
	put32(w, s->load_milli);
	put32(w, s->members);
	put64(w, s->slices);
	put64(w, s->overruns);
	put64(w, s->last_ps_ns);
	for (i = 0; i < REJ_COUNT; i++)
		put32(w, s->rejected[i]);
	put32(w, s->queue_full);
	put32(w, s->master);
	memcpy(name, s->name, strnlen(s->name, PROTO_NAME_LEN - 1));
	put(w, name, PROTO_NAME_LEN);
}

static void
enc_trace(struct wbuf *w, const struct proto_trace *t)
{
	static const uint8_t	 zero[PROTO_EDGE_LEN];
	unsigned		 i, n;

	n = t->count < PROTO_TRACE_MAX ? t->count : PROTO_TRACE_MAX;
	put32(w, n);
	put32(w, t->more);
	for (i = 0; i < PROTO_TRACE_MAX; i++) {
		if (i >= n) {
			put(w, zero, PROTO_EDGE_LEN);
			continue;
		}
		put64(w, t->edge[i].real_ns);
		put32(w, t->edge[i].late_ns);
		put32(w, t->edge[i].op_ns);
		put8(w, t->edge[i].phase);
		put(w, zero, 3);
	}
}

static void
enc_hist(struct wbuf *w, const struct hist *h)
{
	int	 i;

	for (i = 0; i < HIST_BUCKETS; i++)
		put32(w, h->n[i]);
	put64(w, h->sum_ns);
}

static void
enc_metrics(struct wbuf *w, const struct proto_metrics *m)
{
	char	 name[PROTO_NAME_LEN] = { 0 };
	int	 i;

	put64(w, m->uptime_ns);
	put64(w, m->slices);
	put64(w, m->overruns);
	put64(w, m->ps_ns);
	put64(w, m->ls_ns);
	put64(w, m->stopped_ns);
	put64(w, m->gang_cpu_ns);
	put8(w, m->mode);
	put8(w, m->phase);
	put8(w, m->flags);
	put8(w, 0);
	put32(w, m->ps_us);
	put32(w, m->ip_us);
	put32(w, m->load_milli);
	put32(w, m->members);
	put32(w, m->failsafe);
	put32(w, m->master_changes);
	put32(w, m->queue_full);
	for (i = 0; i < REJ_COUNT; i++)
		put32(w, m->rejected[i]);
	enc_hist(w, &m->late);
	enc_hist(w, &m->op);
	memcpy(name, m->name, strnlen(m->name, PROTO_NAME_LEN - 1));
	put(w, name, PROTO_NAME_LEN);
}

int
proto_encode(const struct proto_msg *m, uint8_t *buf, size_t cap)
{
	static const uint8_t	 zeros[PROTO_MAX_DGRAM];
	struct wbuf		 w = { .p = buf, .cap = cap };
	int			 plen = proto_payload_len(m->hdr.type);

	if (plen == -1)
		return -1;
	put32(&w, PROTO_MAGIC);
	put8(&w, PROTO_VERSION);
	put8(&w, m->hdr.type);
	put16(&w, (uint16_t)plen);
	put32(&w, m->hdr.sender);
	put32(&w, proto_is_command(m->hdr.type) ? m->hdr.key_id : 0);
	put64(&w, m->hdr.seq);
	switch (m->hdr.type) {
	case PROTO_SCHEDULE:
		enc_schedule(&w, &m->u.schedule);
		break;
	case PROTO_STATUS_REQ:
		put(&w, zeros, PROTO_STATUS_REQ_LEN);
		break;
	case PROTO_STATUS:
		enc_status(&w, &m->u.status);
		break;
	case PROTO_LOAD:
		put32(&w, m->u.load.load_milli);
		put32(&w, m->u.load.ncpu);
		break;
	case PROTO_TRACE_REQ:
		put64(&w, m->u.trace_req.since_ns);
		put(&w, zeros, PROTO_TRACE_REQ_LEN - 8);
		break;
	case PROTO_TRACE:
		enc_trace(&w, &m->u.trace);
		break;
	case PROTO_METRICS_REQ:
		put(&w, zeros, PROTO_METRICS_REQ_LEN);
		break;
	case PROTO_METRICS:
		enc_metrics(&w, &m->u.metrics);
		break;
	}
	if (w.err || w.len != (size_t)(PROTO_HDR_LEN + plen))
		return -1;
	return (int)w.len;
}

/* ---- decode -------------------------------------------------------- */

static int
dec_schedule(struct rbuf *r, struct proto_schedule *s)
{
	s->mode = get8(r);
	s->sync = get8(r);
	s->flags = get8(r);
	s->reserved = get8(r);
	s->ps_us = get32(r);
	s->ip_us = get32(r);
	s->si_us = get32(r);
	s->origin_ns = get64(r);
	return s->reserved == 0 ? 0 : -1;
}

static void
dec_status(struct rbuf *r, struct proto_status *s)
{
	int	 i;

	s->mode = get8(r);
	s->sync = get8(r);
	s->flags = get8(r);
	s->phase = get8(r);
	s->ps_us = get32(r);
	s->ip_us = get32(r);
	s->si_us = get32(r);
	s->load_milli = get32(r);
	s->members = get32(r);
	s->slices = get64(r);
	s->overruns = get64(r);
	s->last_ps_ns = get64(r);
	for (i = 0; i < REJ_COUNT; i++)
		s->rejected[i] = get32(r);
	s->queue_full = get32(r);
	s->master = get32(r);
	get(r, s->name, PROTO_NAME_LEN);
	s->name[PROTO_NAME_LEN - 1] = '\0';
}

static int
dec_trace(struct rbuf *r, struct proto_trace *t)
{
	uint8_t		 pad[3];
	unsigned	 i;

	t->count = get32(r);
	t->more = get32(r);
	for (i = 0; i < PROTO_TRACE_MAX; i++) {
		t->edge[i].real_ns = get64(r);
		t->edge[i].late_ns = get32(r);
		t->edge[i].op_ns = get32(r);
		t->edge[i].phase = get8(r);
		get(r, pad, sizeof(pad));
	}
	return t->count <= PROTO_TRACE_MAX && t->more <= 1 ? 0 : -1;
}

static void
dec_hist(struct rbuf *r, struct hist *h)
{
	int	 i;

	for (i = 0; i < HIST_BUCKETS; i++)
		h->n[i] = get32(r);
	h->sum_ns = get64(r);
}

static int
dec_metrics(struct rbuf *r, struct proto_metrics *m)
{
	int	 i;

	m->uptime_ns = get64(r);
	m->slices = get64(r);
	m->overruns = get64(r);
	m->ps_ns = get64(r);
	m->ls_ns = get64(r);
	m->stopped_ns = get64(r);
	m->gang_cpu_ns = get64(r);
	m->mode = get8(r);
	m->phase = get8(r);
	m->flags = get8(r);
	m->reserved = get8(r);
	m->ps_us = get32(r);
	m->ip_us = get32(r);
	m->load_milli = get32(r);
	m->members = get32(r);
	m->failsafe = get32(r);
	m->master_changes = get32(r);
	m->queue_full = get32(r);
	for (i = 0; i < REJ_COUNT; i++)
		m->rejected[i] = get32(r);
	dec_hist(r, &m->late);
	dec_hist(r, &m->op);
	get(r, m->name, PROTO_NAME_LEN);
	m->name[PROTO_NAME_LEN - 1] = '\0';
	return m->reserved == 0 ? 0 : -1;
}

/* Drop the datagram for this reason. */
static int
reject(enum proto_reject *why, enum proto_reject reason)
{
	*why = reason;
	return -1;
}

/* The header: length bounds, magic and version, type, lengths, key_id. */
static int
dec_header(struct rbuf *r, struct proto_hdr *h, enum proto_reject *why)
{
	int	 plen;

	if (r->len < PROTO_HDR_LEN + PROTO_MAC_LEN)
		return reject(why, REJ_SHORT);
	if (r->len > PROTO_MAX_DGRAM)
		return reject(why, REJ_LONG);
	h->magic = get32(r);
	h->version = get8(r);
	h->type = get8(r);
	h->length = get16(r);
	h->sender = get32(r);
	h->key_id = get32(r);
	h->seq = get64(r);
	if (h->magic != PROTO_MAGIC || h->version != PROTO_VERSION)
		return reject(why, REJ_MAGIC);
	if ((plen = proto_payload_len(h->type)) == -1)
		return reject(why, REJ_TYPE);
	if (h->length != plen || r->len != (size_t)PROTO_HDR_LEN +
	    (size_t)plen + proto_tag_len(h->type))
		return reject(why, REJ_LENGTH);
	if (!proto_is_command(h->type) && h->key_id != 0)
		return reject(why, REJ_RANGE);	/* a reply names no key */
	return 0;
}

int
proto_decode(const uint8_t *buf, size_t len, struct proto_msg *m,
    enum proto_reject *why)
{
	struct rbuf	 r = { .p = buf, .len = len };

	memset(m, 0, sizeof(*m));
	if (dec_header(&r, &m->hdr, why) == -1)
		return -1;
	switch (m->hdr.type) {
	case PROTO_SCHEDULE:
		if (dec_schedule(&r, &m->u.schedule) == -1)
			return reject(why, REJ_RANGE);
		break;
	case PROTO_STATUS_REQ:
		break;	/* padding only, ignored */
	case PROTO_STATUS:
		dec_status(&r, &m->u.status);
		break;
	case PROTO_LOAD:
		m->u.load.load_milli = get32(&r);
		m->u.load.ncpu = get32(&r);
		break;
	case PROTO_TRACE_REQ:
		m->u.trace_req.since_ns = get64(&r);
		break;	/* the rest is padding */
	case PROTO_TRACE:
		if (dec_trace(&r, &m->u.trace) == -1)
			return reject(why, REJ_RANGE);
		break;
	case PROTO_METRICS_REQ:
		break;	/* padding only, ignored */
	case PROTO_METRICS:
		if (dec_metrics(&r, &m->u.metrics) == -1)
			return reject(why, REJ_RANGE);
		break;
	}
	return 0;
}

/* ---- ranges -------------------------------------------------------- */

int
proto_check_schedule(const struct proto_schedule *s, const char **err)
{
	static _Thread_local char buf[256];
	struct rules_sched	 r = { .mode = s->mode,
	    .ps = (int64_t)s->ps_us * NS_PER_US,
	    .ip = (int64_t)s->ip_us * NS_PER_US,
	    .si = (int64_t)s->si_us * NS_PER_US };

	if (s->mode >= MODE_COUNT)
		*err = "unknown mode";
	else if (s->sync >= SYNC_COUNT)
		*err = "unknown sync method";
	else if (s->flags & ~SCHED_F_ALL)
		*err = "unknown flags";
	else if (rules_check(&r, NULL, buf, sizeof(buf)) == -1 ||
	    rules_check_origin(s->origin_ns, buf, sizeof(buf)) == -1)
		*err = buf;
	else
		return 0;
	return -1;
}

/* ---- whole datagrams ----------------------------------------------- */

int
proto_seal(const struct auth_key *k, struct seqgen *g, uint64_t mono_us,
    struct proto_msg *msg, uint8_t *buf, size_t cap)
{
	int	 cmd = proto_is_command(msg->hdr.type), n;
	size_t	 tag = proto_tag_len(msg->hdr.type);

	if (cmd && !k->insecure && !k->can_sign)
		return -1;
	msg->hdr.sender = g->sender;
	msg->hdr.seq = seqgen_next(g, mono_us);
	msg->hdr.key_id = cmd && !k->insecure ? k->sign_id : 0;
	n = proto_encode(msg, buf, cap);
	if (n == -1 || (size_t)n + tag > cap)
		return -1;
	if (auth_tag(k, cmd, buf, (size_t)n, buf + n) == -1)
		return -1;
	return n + (int)tag;
}

int
proto_frame(const uint8_t *buf, size_t len, unsigned accept,
    struct proto_msg *msg, enum proto_reject *why)
{
	if (proto_decode(buf, len, msg, why) == -1)
		return -1;
	if (!(accept & PROTO_TYPE_BIT(msg->hdr.type)))
		return reject(why, REJ_TYPE);
	return 0;
}

int
proto_verify(const struct auth_key *k, struct replay *r, const uint8_t *buf,
    size_t len, struct proto_msg *msg, enum proto_reject *why)
{
	size_t		 tag = proto_tag_len(msg->hdr.type);
	const char	*err;

	if (auth_tag_check(k, proto_is_command(msg->hdr.type),
	    msg->hdr.key_id, buf, len - tag, buf + len - tag) == -1)
		return reject(why, REJ_MAC);
	if (replay_check(r, msg->hdr.sender, msg->hdr.seq) == -1)
		return reject(why, REJ_REPLAY);
	if (msg->hdr.type == PROTO_SCHEDULE &&
	    proto_check_schedule(&msg->u.schedule, &err) == -1)
		return reject(why, REJ_RANGE);
	return 0;
}

int
proto_open(const struct auth_key *k, struct replay *r, unsigned accept,
    const uint8_t *buf, size_t len, struct proto_msg *msg,
    enum proto_reject *why)
{
	if (proto_frame(buf, len, accept, msg, why) == -1)
		return -1;
	return proto_verify(k, r, buf, len, msg, why);
}

/* ---- names --------------------------------------------------------- */

const char *const proto_mode_names[MODE_COUNT + 1] = {
	[MODE_OFF] = "off", [MODE_STATIC] = "static",
	[MODE_BALANCED] = "balanced", [MODE_DISTRIBUTED] = "distributed",
	[MODE_HPDT] = "hpdt", NULL
};
const char *const proto_sync_names[SYNC_COUNT + 1] = {
	[SYNC_ARRIVAL] = "arrival", [SYNC_CLOCK] = "clock", NULL
};
const char *const proto_phase_names[PHASE_COUNT + 1] = {
	[PHASE_NONE] = "none", [PHASE_PS] = "PS", [PHASE_LS] = "LS", NULL
};
const char *const proto_reject_names[REJ_COUNT + 1] = {
	[REJ_SHORT] = "short", [REJ_LONG] = "long", [REJ_MAGIC] = "magic",
	[REJ_TYPE] = "type", [REJ_LENGTH] = "length", [REJ_RATE] = "rate",
	[REJ_MAC] = "mac", [REJ_REPLAY] = "replay", [REJ_RANGE] = "range",
	[REJ_MASTER] = "master", NULL
};

const char *
proto_mode_name(unsigned m)
{
	return names_get(proto_mode_names, m);
}

const char *
proto_sync_name(unsigned s)
{
	return names_get(proto_sync_names, s);
}

const char *
proto_phase_name(unsigned p)
{
	return names_get(proto_phase_names, p);
}

const char *
proto_reject_name(unsigned r)
{
	return names_get(proto_reject_names, r);
}

int
proto_mode_parse(const char *s)
{
	return names_find(proto_mode_names, s);
}

int
proto_sync_parse(const char *s)
{
	return names_find(proto_sync_names, s);
}
