/*
 * wire.c - encode and decode the datagrams of proto.h, and seal and open
 * them (wire.h).
 *
 * Fields are copied one by one in network byte order; nothing here trusts
 * the compiler's struct layout.  Decoding checks, in order: length bounds,
 * magic and version, type, payload and tag length, reserved fields.  Whole
 * datagrams (proto_seal, proto_open) add the tag and the replay check of
 * auth.c, and the payload ranges last.
 */
#include <endian.h>
#include <stdio.h>
#include <string.h>

#include "auth.h"
#include "job.h"
#include "rules.h"
#include "wire.h"

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

/* ---- encode -------------------------------------------------------- */

static const uint8_t	 zeros[PROTO_MAX_DGRAM];

/* A job name: at most PROTO_JOB_LEN - 1 bytes, NUL padded. */
static void
put_job(struct wbuf *w, const char *job)
{
	char	 name[PROTO_JOB_LEN] = { 0 };

	memcpy(name, job, strnlen(job, PROTO_JOB_LEN - 1));
	put(w, name, PROTO_JOB_LEN);
}

static void
enc_schedule(struct wbuf *w, const struct proto_schedule *s)
{
	unsigned	 i, n, h;

	put8(w, s->mode);
	put8(w, s->sync);
	put8(w, s->flags);
	put8(w, 0);
	put32(w, s->ps_us);
	put32(w, s->ip_us);
	put32(w, s->si_us);
	put64(w, s->origin_ns);
	n = s->nslots < PROTO_JOBS_MAX ? s->nslots : PROTO_JOBS_MAX;
	h = s->nheld < PROTO_JOBS_MAX - n ? s->nheld : PROTO_JOBS_MAX - n;
	put8(w, (uint8_t)n);
	put8(w, (uint8_t)h);
	put(w, zeros, sizeof(s->pad));
	for (i = 0; i < PROTO_JOBS_MAX; i++) {
		if (i >= n + h) {
			put(w, zeros, PROTO_SLOT_LEN);
			continue;
		}
		put_job(w, s->slot[i].job);
		put32(w, s->slot[i].start_us);
		put32(w, s->slot[i].len_us);
	}
}

static void
enc_status(struct wbuf *w, const struct proto_status *s)
{
	char		 name[PROTO_NAME_LEN] = { 0 };
	int		 i;
	unsigned	 n;

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
	n = s->njobs < PROTO_JOBS_MAX ? s->njobs : PROTO_JOBS_MAX;
	put8(w, (uint8_t)n);
	put8(w, s->users);
	put8(w, s->ncpu);
	put8(w, 0);
	put32(w, s->mem_mib);
	for (i = 0; i < PROTO_JOBS_MAX; i++) {
		if ((unsigned)i >= n) {
			put(w, zeros, PROTO_JOB_BRIEF_LEN);
			continue;
		}
		put_job(w, s->job[i].job);
		put32(w, (uint32_t)s->job[i].weight << 24 |
		    s->job[i].members);
	}
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

/* index >= count: no job, the rest zero. */
static void
enc_job(struct wbuf *w, const struct proto_job *j)
{
	put32(w, j->index);
	put32(w, j->count);
	if (j->index >= j->count) {
		put(w, zeros, PROTO_JOB_LEN_WIRE - 8);
		return;
	}
	put_job(w, j->job);
	put64(w, j->slot_ns);
	put64(w, j->stopped_ns);
	put64(w, j->cpu_ns);
	put32(w, j->members);
	put32(w, j->running);
}

/* index >= count: no job, the rest zero. */
static void
enc_job_mem(struct wbuf *w, const struct proto_job_mem *j)
{
	put32(w, j->index);
	put32(w, j->count);
	if (j->index >= j->count) {
		put(w, zeros, PROTO_JOB_MEM_LEN - 8);
		return;
	}
	put_job(w, j->job);
	put64(w, j->mem_bytes);
	put64(w, j->swap_bytes);
	put64(w, j->oom_kills);
	put64(w, j->reclaimed_bytes);
}

/* count 0: no entry, the rest zero. */
static void
enc_weight(struct wbuf *w, const struct proto_weight *p)
{
	char	 name[PROTO_WEIGHT_NAME_LEN] = { 0 };

	put32(w, p->gen);
	put16(w, p->index);
	put16(w, p->count);
	if (p->count == 0) {
		put(w, zeros, PROTO_WEIGHT_LEN - 8);
		return;
	}
	put8(w, p->kind);
	put(w, zeros, sizeof(p->pad));
	put32(w, p->weight);
	memcpy(name, p->name, strnlen(p->name, sizeof(name) - 1));
	put(w, name, sizeof(name));
}

int
proto_encode(const struct proto_msg *m, uint8_t *buf, size_t cap)
{
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
	case PROTO_JOB_REQ:
		put32(&w, m->u.job_req.index);
		put(&w, zeros, sizeof(m->u.job_req.pad));
		break;
	case PROTO_JOB:
		enc_job(&w, &m->u.job);
		break;
	case PROTO_JOB_MEM_REQ:
		put32(&w, m->u.job_mem_req.index);
		put(&w, zeros, sizeof(m->u.job_mem_req.pad));
		break;
	case PROTO_JOB_MEM:
		enc_job_mem(&w, &m->u.job_mem);
		break;
	case PROTO_WEIGHT:
		enc_weight(&w, &m->u.weight);
		break;
	}
	if (w.err || w.len != (size_t)(PROTO_HDR_LEN + plen))
		return -1;
	return (int)w.len;
}

/* ---- decode -------------------------------------------------------- */

static int
is_zero(const void *p, size_t n)
{
	return n == 0 || (((const uint8_t *)p)[0] == 0 &&
	    memcmp(p, (const uint8_t *)p + 1, n - 1) == 0);
}

/*
 * Pad bytes, all zero, or -1.  Reads them in any case, so that the
 * fields after them stay in place.
 */
static int
get_pad(struct rbuf *r, size_t n)
{
	uint8_t	 pad[PROTO_MAX_DGRAM];

	get(r, pad, n);
	return is_zero(pad, n) ? 0 : -1;
}

/*
 * A name field of len bytes (a job's, a weight's), kept as it came
 * (job_name_check() and proto_weight_name_check() judge its bytes with
 * the payload's ranges), but NUL terminated and NUL padded within the
 * field or -1: a decoded name is a C string, and encodes again to the
 * same bytes.
 */
static int
get_name(struct rbuf *r, char *name, size_t len)
{
	size_t	 n;

	get(r, name, len);
	n = strnlen(name, len);
	return n < len && is_zero(name + n, len - n) ? 0 : -1;
}

static int
get_job(struct rbuf *r, char job[PROTO_JOB_LEN])
{
	return get_name(r, job, PROTO_JOB_LEN);
}

static int
dec_schedule(struct rbuf *r, struct proto_schedule *s)
{
	unsigned	 i;
	int		 bad;

	s->mode = get8(r);
	s->sync = get8(r);
	s->flags = get8(r);
	s->reserved = get8(r);
	s->ps_us = get32(r);
	s->ip_us = get32(r);
	s->si_us = get32(r);
	s->origin_ns = get64(r);
	s->nslots = get8(r);
	s->nheld = get8(r);
	bad = s->reserved != 0 || s->nslots > PROTO_JOBS_MAX ||
	    s->nheld > PROTO_JOBS_MAX - s->nslots;
	bad |= get_pad(r, sizeof(s->pad));
	for (i = 0; i < PROTO_JOBS_MAX; i++) {
		bad |= get_job(r, s->slot[i].job);
		s->slot[i].start_us = get32(r);
		s->slot[i].len_us = get32(r);
		if (i >= (unsigned)s->nslots + s->nheld &&
		    !is_zero(&s->slot[i], sizeof(s->slot[i])))
			bad = 1;	/* an unused slot is zero */
	}
	return bad ? -1 : 0;
}

static int
dec_status(struct rbuf *r, struct proto_status *s)
{
	unsigned	 i;
	uint32_t	 v;
	int		 bad;

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
	s->njobs = get8(r);
	bad = s->njobs > PROTO_JOBS_MAX;
	s->users = get8(r);
	s->ncpu = get8(r);
	bad |= get_pad(r, sizeof(s->pad));
	s->mem_mib = get32(r);
	for (i = 0; i < PROTO_JOBS_MAX; i++) {
		bad |= get_job(r, s->job[i].job);
		v = get32(r);
		s->job[i].members = v & PROTO_MEMBERS_MAX;
		s->job[i].weight = v >> 24;
		bad |= v >> 24 > PROTO_WEIGHT_JOB_MAX;
		if (i >= s->njobs && !is_zero(&s->job[i], sizeof(s->job[i])))
			bad = 1;	/* an unused entry is zero */
	}
	return bad ? -1 : 0;
}

static int
dec_job(struct rbuf *r, struct proto_job *j)
{
	int	 bad;

	j->index = get32(r);
	j->count = get32(r);
	bad = get_job(r, j->job);
	j->slot_ns = get64(r);
	j->stopped_ns = get64(r);
	j->cpu_ns = get64(r);
	j->members = get32(r);
	j->running = get32(r);
	bad |= j->count > PROTO_JOBS_MAX || j->running > 1;
	if (j->index >= j->count && (j->slot_ns != 0 ||
	    j->stopped_ns != 0 || j->cpu_ns != 0 || j->members != 0 ||
	    j->running != 0 || !is_zero(j->job, sizeof(j->job))))
		bad = 1;	/* no job: all zero */
	return bad ? -1 : 0;
}

static int
dec_job_mem(struct rbuf *r, struct proto_job_mem *j)
{
	int	 bad;

	j->index = get32(r);
	j->count = get32(r);
	bad = get_job(r, j->job);
	j->mem_bytes = get64(r);
	j->swap_bytes = get64(r);
	j->oom_kills = get64(r);
	j->reclaimed_bytes = get64(r);
	bad |= j->count > PROTO_JOBS_MAX;
	if (j->index >= j->count && (j->mem_bytes != 0 ||
	    j->swap_bytes != 0 || j->oom_kills != 0 ||
	    j->reclaimed_bytes != 0 || !is_zero(j->job, sizeof(j->job))))
		bad = 1;	/* no job: all zero */
	return bad ? -1 : 0;
}

/*
 * The layout: pad zero, the name NUL terminated and padded within its
 * field, count at most PROTO_WEIGHTS_MAX, index below it, and no entry
 * (all zero after count) if count is 0.  The values are
 * proto_check_weight's, after the tag.
 */
static int
dec_weight(struct rbuf *r, struct proto_weight *p)
{
	int	 bad;

	p->gen = get32(r);
	p->index = get16(r);
	p->count = get16(r);
	p->kind = get8(r);
	bad = get_pad(r, sizeof(p->pad));
	p->weight = get32(r);
	bad |= get_name(r, p->name, sizeof(p->name));
	bad |= p->count > PROTO_WEIGHTS_MAX;
	if (p->count == 0)
		bad |= p->index != 0 || p->kind != WEIGHT_KIND_NONE ||
		    p->weight != 0 || p->name[0] != '\0';
	else
		bad |= p->index >= p->count;
	return bad ? -1 : 0;
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
		if (dec_status(&r, &m->u.status) == -1)
			return reject(why, REJ_RANGE);
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
	case PROTO_JOB_REQ:
		m->u.job_req.index = get32(&r);
		if (get_pad(&r, sizeof(m->u.job_req.pad)) == -1)
			return reject(why, REJ_RANGE);
		break;
	case PROTO_JOB:
		if (dec_job(&r, &m->u.job) == -1)
			return reject(why, REJ_RANGE);
		break;
	case PROTO_JOB_MEM_REQ:
		m->u.job_mem_req.index = get32(&r);
		if (get_pad(&r, sizeof(m->u.job_mem_req.pad)) == -1)
			return reject(why, REJ_RANGE);
		break;
	case PROTO_JOB_MEM:
		if (dec_job_mem(&r, &m->u.job_mem) == -1)
			return reject(why, REJ_RANGE);
		break;
	case PROTO_WEIGHT:
		if (dec_weight(&r, &m->u.weight) == -1)
			return reject(why, REJ_RANGE);
		break;
	}
	return 0;
}

/* ---- ranges -------------------------------------------------------- */

/*
 * The held jobs after the slots: each a valid job name, named by no slot
 * and no other held entry, start and length zero.  0, or -1 with a line.
 */
static int
check_held(const struct proto_schedule *s, char *buf, size_t len)
{
	const struct proto_slot *a;
	char		 why[128];
	unsigned	 i, j;

	for (i = s->nslots; i < (unsigned)s->nslots + s->nheld; i++) {
		a = &s->slot[i];
		if (job_name_check(a->job, why, sizeof(why)) == -1) {
			snprintf(buf, len, "held job %u: %s", i - s->nslots,
			    why);
			return -1;
		}
		if (a->start_us != 0 || a->len_us != 0) {
			snprintf(buf, len, "held job %u (%s) has a slot",
			    i - s->nslots, a->job);
			return -1;
		}
		for (j = 0; j < i; j++)
			if (strcmp(a->job, s->slot[j].job) == 0) {
				snprintf(buf, len, "held job %u (%s) is named "
				    "twice", i - s->nslots, a->job);
				return -1;
			}
	}
	return 0;
}

/*
 * The slot table: nslots <= PROTO_JOBS_MAX, unused slots zero, each used
 * slot a valid job name not named before, of length > 0, within the PS,
 * and no two overlapping (in any order).  0, or -1 with a line in buf.
 */
static int
check_slots(const struct proto_schedule *s, char *buf, size_t len)
{
	const struct proto_slot *a, *b;
	char		 why[128];
	uint64_t	 end_a, end_b;
	unsigned	 i, j;

	if (s->nslots > PROTO_JOBS_MAX) {
		snprintf(buf, len, "%u slots, more than the %d a SCHEDULE "
		    "holds", s->nslots, PROTO_JOBS_MAX);
		return -1;
	}
	if (s->nheld > PROTO_JOBS_MAX - s->nslots) {
		snprintf(buf, len, "%u slots and %u held jobs, more than the "
		    "%d a SCHEDULE holds", s->nslots, s->nheld,
		    PROTO_JOBS_MAX);
		return -1;
	}
	for (i = s->nslots + s->nheld; i < PROTO_JOBS_MAX; i++)
		if (!is_zero(&s->slot[i], sizeof(s->slot[i]))) {
			snprintf(buf, len, "slot %u is unused (%u slots) but "
			    "not zero", i, s->nslots + s->nheld);
			return -1;
		}
	if (check_held(s, buf, len) == -1)
		return -1;
	for (i = 0; i < s->nslots; i++) {
		a = &s->slot[i];
		end_a = (uint64_t)a->start_us + a->len_us;
		if (job_name_check(a->job, why, sizeof(why)) == -1) {
			snprintf(buf, len, "slot %u: %s", i, why);
			return -1;
		}
		if (a->len_us == 0) {
			snprintf(buf, len, "slot %u (%s) has a length of 0 us",
			    i, a->job);
			return -1;
		}
		if (end_a > s->ps_us) {
			snprintf(buf, len, "slot %u (%s) ends at %llu us, past "
			    "the PS of %u us", i, a->job,
			    (unsigned long long)end_a, s->ps_us);
			return -1;
		}
		for (j = 0; j < i; j++) {
			b = &s->slot[j];
			end_b = (uint64_t)b->start_us + b->len_us;
			if (strcmp(a->job, b->job) == 0) {
				snprintf(buf, len, "slot %u (%s) names the job "
				    "of slot %u again", i, a->job, j);
				return -1;
			}
			if (a->start_us < end_b && b->start_us < end_a) {
				snprintf(buf, len, "slot %u (%s) overlaps slot "
				    "%u (%s)", i, a->job, j, b->job);
				return -1;
			}
		}
	}
	return 0;
}

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
	    rules_check_origin(s->origin_ns, buf, sizeof(buf)) == -1 ||
	    check_slots(s, buf, sizeof(buf)) == -1)
		*err = buf;
	else
		return 0;
	return -1;
}

/* A STATUS's job list: at most PROTO_JOBS_MAX, valid names, none twice. */
static int
check_status(const struct proto_status *s)
{
	char		 why[128];
	unsigned	 i, j;

	if (s->njobs > PROTO_JOBS_MAX)
		return -1;
	for (i = 0; i < s->njobs; i++) {
		if (job_name_check(s->job[i].job, why, sizeof(why)) == -1)
			return -1;
		for (j = 0; j < i; j++)
			if (strcmp(s->job[i].job, s->job[j].job) == 0)
				return -1;
	}
	return 0;
}

/* A JOB reply: a job's valid name, or none (index >= count). */
static int
check_job(const struct proto_job *j)
{
	char	 why[128];

	if (j->count > PROTO_JOBS_MAX || j->running > 1)
		return -1;
	if (j->index >= j->count)
		return 0;
	return job_name_check(j->job, why, sizeof(why));
}

/* A JOB_MEM reply: the same. */
static int
check_job_mem(const struct proto_job_mem *j)
{
	char	 why[128];

	if (j->count > PROTO_JOBS_MAX)
		return -1;
	if (j->index >= j->count)
		return 0;
	return job_name_check(j->job, why, sizeof(why));
}

int
proto_weight_name_check(unsigned kind, const char *name, char *err,
    size_t len)
{
	char		 job[PROTO_JOB_LEN] = { 0 };
	size_t		 i, n = strnlen(name, PROTO_WEIGHT_NAME_LEN);

	if (kind == WEIGHT_KIND_JOB) {
		if (n >= PROTO_JOB_LEN) {
			snprintf(err, len, "job name \"%.20s...\" is too long "
			    "(at most %d bytes)", name, PROTO_JOB_LEN - 1);
			return -1;
		}
		memcpy(job, name, n);
		return job_name_check(job, err, len);
	}
	if (kind != WEIGHT_KIND_HOST) {
		snprintf(err, len, "unknown kind of weight %u", kind);
		return -1;
	}
	if (n == 0 || n >= PROTO_WEIGHT_NAME_LEN) {
		snprintf(err, len, "a host name is 1 to %d bytes",
		    PROTO_WEIGHT_NAME_LEN - 1);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (name[i] <= ' ' || name[i] > '~' || name[i] == ':') {
			snprintf(err, len, "host name \"%.*s\" has a byte that "
			    "is not printable, a space or ':'", (int)n, name);
			return -1;
		}
	return 0;
}

int
proto_check_weight(const struct proto_weight *w, const char **err)
{
	static _Thread_local char buf[160];
	uint32_t	 max;

	if (w->count > PROTO_WEIGHTS_MAX || (w->count > 0 &&
	    w->index >= w->count) || (w->count == 0 && (w->index != 0 ||
	    w->kind != WEIGHT_KIND_NONE || w->weight != 0 ||
	    w->name[0] != '\0'))) {
		snprintf(buf, sizeof(buf), "entry %u of %u", w->index,
		    w->count);
		*err = buf;
		return -1;
	}
	if (w->count == 0)
		return 0;
	if (proto_weight_name_check(w->kind, w->name, buf,
	    sizeof(buf)) == -1) {
		*err = buf;
		return -1;
	}
	max = (w->kind == WEIGHT_KIND_HOST ? PROTO_WEIGHT_HOST_MAX :
	    PROTO_WEIGHT_JOB_MAX) * PROTO_WEIGHT_UNIT;
	if (w->weight == 0 || w->weight > max || (w->kind == WEIGHT_KIND_JOB &&
	    w->weight % PROTO_WEIGHT_UNIT != 0)) {
		snprintf(buf, sizeof(buf), "%s weight %u millionths is out of "
		    "range", w->kind == WEIGHT_KIND_HOST ? "a host's" :
		    "a job's", w->weight);
		*err = buf;
		return -1;
	}
	return 0;
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

/* proto_verify's, with the replay check at the peer's entry e or, NULL,
 * in r's table */
static int
verify(const struct auth_key *k, struct replay *r, struct replay_entry *e,
    const uint8_t *buf, size_t len, struct proto_msg *msg,
    enum proto_reject *why)
{
	size_t		 tag = proto_tag_len(msg->hdr.type);
	const char	*err;
	int		 rc;

	/* read requests: proto_verify_read's only */
	if (proto_is_command(msg->hdr.type) && msg->hdr.key_id == AUTH_READ_ID)
		return reject(why, REJ_MAC);
	if (auth_tag_check(k, proto_is_command(msg->hdr.type),
	    msg->hdr.key_id, buf, len - tag, buf + len - tag) == -1)
		return reject(why, REJ_MAC);
	rc = e != NULL ? replay_check_entry(r, e, msg->hdr.sender,
	    msg->hdr.seq) : replay_check(r, msg->hdr.sender, msg->hdr.seq);
	if (rc == -1)
		return reject(why, REJ_REPLAY);
	if (msg->hdr.type == PROTO_SCHEDULE &&
	    proto_check_schedule(&msg->u.schedule, &err) == -1)
		return reject(why, REJ_RANGE);
	if (msg->hdr.type == PROTO_STATUS && check_status(&msg->u.status) == -1)
		return reject(why, REJ_RANGE);
	if (msg->hdr.type == PROTO_JOB && check_job(&msg->u.job) == -1)
		return reject(why, REJ_RANGE);
	if (msg->hdr.type == PROTO_JOB_MEM &&
	    check_job_mem(&msg->u.job_mem) == -1)
		return reject(why, REJ_RANGE);
	if (msg->hdr.type == PROTO_WEIGHT &&
	    proto_check_weight(&msg->u.weight, &err) == -1)
		return reject(why, REJ_RANGE);
	return 0;
}

int
proto_verify(const struct auth_key *k, struct replay *r, const uint8_t *buf,
    size_t len, struct proto_msg *msg, enum proto_reject *why)
{
	return verify(k, r, NULL, buf, len, msg, why);
}

int
proto_verify_peer(const struct auth_key *k, struct replay *r,
    struct replay_entry *e, const uint8_t *buf, size_t len,
    struct proto_msg *msg, enum proto_reject *why)
{
	return verify(k, r, e, buf, len, msg, why);
}

/* The two types a read request may have. */
static int
readable(unsigned type)
{
	return type == PROTO_STATUS_REQ || type == PROTO_JOB_REQ;
}

int
proto_seal_read(const uint8_t rk[AUTH_KEY_LEN], struct seqgen *g,
    uint64_t mono_us, struct proto_msg *msg, uint8_t *buf, size_t cap)
{
	int	 n;

	if (!readable(msg->hdr.type))
		return -1;
	msg->hdr.sender = g->sender;
	msg->hdr.seq = seqgen_next(g, mono_us);
	msg->hdr.key_id = AUTH_READ_ID;
	n = proto_encode(msg, buf, cap);
	if (n == -1 || (size_t)n + PROTO_SIG_LEN > cap)
		return -1;
	auth_read_tag(rk, buf, (size_t)n, buf + n);
	return n + PROTO_SIG_LEN;
}

/*
 * A read request, framed: its type, the node takes them, the tag under
 * one of k's read keys (*which), fresh.  Nothing is remembered: the
 * replay table is not touched.
 */
int
proto_verify_read(const struct auth_key *k, const struct replay *r,
    const uint8_t *buf, size_t len, const struct proto_msg *msg, int *which,
    enum proto_reject *why)
{
	*which = -1;
	if (!readable(msg->hdr.type) || msg->hdr.key_id != AUTH_READ_ID ||
	    !k->reads || k->insecure || len < PROTO_SIG_LEN)
		return reject(why, REJ_MAC);
	if ((*which = auth_read_check(k, buf, len - PROTO_SIG_LEN,
	    buf + len - PROTO_SIG_LEN)) == -1)
		return reject(why, REJ_MAC);
	if (!replay_fresh(r, msg->hdr.seq))
		return reject(why, REJ_REPLAY);
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
