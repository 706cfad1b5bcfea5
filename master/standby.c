/*
 * standby.c - a master and standby pair of consoles.  See standby.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "standby.h"
#include "timeutil.h"

/*
 * Datagrams a second, and at once, that a source other than the peer's
 * known sender may have checked (a signature each): the peer's first,
 * and a restarted peer's; a flood of forgeries spends them, not the
 * console's CPU.
 */
#define PEER_RATE 100
#include "wire.h"

/* A snapshot holds every weight a console can hold, each in its entry. */
_Static_assert(WEIGHTS_MAX + JOBW_MAX <= PROTO_WEIGHTS_MAX,
    "a snapshot holds both tables");
_Static_assert(HOST_NAME_MAX_ <= PROTO_WEIGHT_NAME_LEN, "a host name fits");
_Static_assert((int)WEIGHT_MAX == PROTO_WEIGHT_HOST_MAX &&
    MATRIX_WEIGHT_MAX == PROTO_WEIGHT_JOB_MAX, "the wire's ranges are ours");

int64_t
standby_due(int64_t heard, int64_t si)
{
	if (heard == 0 || si <= 0)
		return 0;
	return heard + si + si / 2;
}

int
standby_yields(int takeover, int yours, int64_t since_took, int64_t si,
    uint32_t own_id, uint32_t peer_id)
{
	if (!takeover)
		return yours == 0;
	if (since_took >= 0 && since_took < si)
		return peer_id > own_id;
	return 1;
}

/* console.peer: ADDR[:PORT] (conf_schema.c checked it). */
static int
peer_parse(const char *s, int defport, struct sockaddr_in *sin)
{
	char		 a[INET_ADDRSTRLEN];
	const char	*colon = strchr(s, ':');
	size_t		 n = colon != NULL ? (size_t)(colon - s) : strlen(s);

	if (n >= sizeof(a))
		return -1;
	memcpy(a, s, n);
	a[n] = '\0';
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons((uint16_t)(colon != NULL ? atoi(colon + 1) :
	    defport));
	return inet_pton(AF_INET, a, &sin->sin_addr) == 1 ? 0 : -1;
}

int
standby_init(struct standby *sb, int standby, char *err, size_t len)
{
	struct sockaddr_in	 sin = { .sin_family = AF_INET };
	char			 hex[2 * AUTH_PUB_LEN + 1];
	struct standby		 keep = *sb;
	int			 one = 1, rcvbuf = 1 << 20;

	memset(sb, 0, sizeof(*sb));
	sb->conf = keep.conf;
	sb->sch = keep.sch;
	sb->net = keep.net;
	sb->nodes = keep.nodes;
	sb->weights = keep.weights;
	sb->jobw = keep.jobw;
	sb->out = keep.out;
	sb->arg = keep.arg;
	sb->node_timeout = keep.node_timeout;
	sb->take = keep.take;
	sb->follow = keep.follow;
	sb->fd = -1;
	if (sb->conf->console.peer[0] == '\0') {
		if (standby) {
			snprintf(err, len, "--standby: no console.peer (the "
			    "master console's address) in the configuration");
			return -1;
		}
		return 0;
	}
	if (peer_parse(sb->conf->console.peer, sb->conf->console.peer_port,
	    &sb->peer) == -1) {
		snprintf(err, len, "console.peer: \"%s\" is not ADDRESS[:PORT]",
		    sb->conf->console.peer);
		return -1;
	}
	if (sb->net->keyless) {
		snprintf(err, len, "console.peer: a master and standby pair "
		    "needs the console key pair (%s)", sb->net->keyless_why);
		return -1;
	}
	sb->key.insecure = sb->net->key.insecure;
	if (!sb->key.insecure) {
		auth_signer_public(&sb->net->key, hex);
		if (auth_pub_add(&sb->key, hex, err, len) == -1)
			return -1;
	}
	replay_init(&sb->replay, now_real_us(), now_mono_us(),
	    (uint64_t)(sb->conf->replay_window_ns / NS_PER_US));
	sin.sin_port = htons((uint16_t)sb->conf->console.peer_port);
	/* connected: the kernel drops every datagram from another source */
	sb->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (sb->fd == -1 || bind(sb->fd, (struct sockaddr *)&sin,
	    sizeof(sin)) == -1 || connect(sb->fd, (struct sockaddr *)&sb->peer,
	    sizeof(sb->peer)) == -1) {
		snprintf(err, len, "console.peer_port %d: %s",
		    sb->conf->console.peer_port, strerror(errno));
		standby_close(sb);
		return -1;
	}
	/* the kernel's count of datagrams it dropped because the socket
	 * was full (standby_timer: a flood that forges the peer's address
	 * and port may push its copies out), and room for 1 MiB of them */
	(void)setsockopt(sb->fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one));
	(void)setsockopt(sb->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
	    sizeof(rcvbuf));
	if (sb->conf->console.peer_port >= conf_unprivileged_port_start())
		log_warnx("console.peer_port %d: any local user may bind this "
		    "port (only root may bind one below %d): one who takes it "
		    "first keeps this console from starting (dts-console(1))",
		    sb->conf->console.peer_port, conf_unprivileged_port_start());
	sb->role = standby ? SB_STANDBY : SB_MASTER;
	return 0;
}

void
standby_close(struct standby *sb)
{
	if (sb->fd != -1)
		close(sb->fd);
	sb->fd = -1;
}

int
standby_following(const struct standby *sb)
{
	return sb->role == SB_STANDBY;
}

const char *
standby_role_name(const struct standby *sb)
{
	return sb->role == SB_MASTER ? "master" : sb->role == SB_STANDBY ?
	    "standby" : "";
}

/* m, sealed with the console key, to the peer. */
static void
peer_send(struct standby *sb, struct proto_msg *m)
{
	uint8_t		 buf[PROTO_MAX_DGRAM];
	int		 n;

	if ((n = proto_seal(&sb->net->key, &sb->net->seq, now_mono_us(), m,
	    buf, sizeof(buf))) < 0)
		return;
	if (sendto(sb->fd, buf, (size_t)n, 0, (struct sockaddr *)&sb->peer,
	    sizeof(sb->peer)) == -1)
		log_debug("standby: copy to the peer: %s", strerror(errno));
}

/* Entry i of the snapshot: the hosts' weights, then the jobs'. */
static void
weight_entry(const struct standby *sb, int i, struct proto_weight *p)
{
	const char	*name;

	if (i < sb->weights->n) {
		p->kind = WEIGHT_KIND_HOST;
		p->weight = bal_weight_micro(sb->weights->v[i].w);
		name = sb->weights->v[i].host;
	} else {
		i -= sb->weights->n;
		p->kind = WEIGHT_KIND_JOB;
		p->weight = (uint32_t)sb->jobw->w[i] * PROTO_WEIGHT_UNIT;
		name = sb->jobw->name[i];
	}
	memset(p->name, 0, sizeof(p->name));
	snprintf(p->name, sizeof(p->name), "%s", name);
}

/* The whole snapshot of our weights, generation w.own, to the peer. */
static void
weights_send(struct standby *sb, int64_t now)
{
	struct proto_msg	 m;
	struct proto_weight	*p = &m.u.weight;
	int			 i, n = sb->weights->n + sb->jobw->n;

	if (sb->role != SB_MASTER || sb->fd == -1)
		return;
	sb->w.next = now + sb->sch->si / 2;
	memset(&m, 0, sizeof(m));
	m.hdr.type = PROTO_WEIGHT;
	p->gen = sb->w.own;
	p->count = (uint16_t)n;
	if (n == 0) {
		peer_send(sb, &m);	/* both tables empty: no entry */
		return;
	}
	for (i = 0; i < n; i++) {
		p->index = (uint16_t)i;
		weight_entry(sb, i, p);
		peer_send(sb, &m);
	}
}

void
standby_forward(struct standby *sb, const struct proto_msg *m)
{
	struct proto_msg copy = *m;
	int64_t		 now = now_mono_ns();

	if (sb->role != SB_MASTER || sb->fd == -1)
		return;
	peer_send(sb, &copy);
	/* the SI's copy takes the snapshot along; a schedule sent more
	 * often (BALANCED, changes) does at most twice an SI */
	if (now >= sb->w.next)
		weights_send(sb, now);
}

void
standby_weights_changed(struct standby *sb, int64_t now)
{
	sb->w.own++;
	weights_send(sb, now);
}

/* The schedule p, the peer's, becomes ours (not sent: we follow). */
static void
follow(struct standby *sb, const struct proto_schedule *p)
{
	struct sch	*s = sb->sch;

	s->mode = p->mode;
	s->sync = p->sync;
	s->ls_idle = (p->flags & SCHED_F_LS_IDLE) != 0;
	s->ip = (int64_t)p->ip_us * NS_PER_US;
	s->si = (int64_t)p->si_us * NS_PER_US;
	s->ps = (int64_t)p->ps_us * NS_PER_US;
	s->ps_pct = -1;
	s->bal_ls_pct = -1;	/* the PS the master chose, as it is */
	s->started = (p->flags & SCHED_F_ACTIVE) != 0;
	s->spoken = 1;
	s->origin_ns = (int64_t)p->origin_ns;
	if (sb->follow != NULL)
		sb->follow(sb->arg);	/* no SI broadcast of ours */
}

/* Live nodes that say this console is their master. */
static int
yours(const struct standby *sb, int64_t now)
{
	const struct node	*n;
	int			 i, k = 0;

	for (i = 0; i < sb->nodes->n; i++) {
		n = &sb->nodes->v[i];
		k += n->have_status && nodes_live(n, now,
		    sb->node_timeout(sb->arg)) &&
		    (n->st.flags & STATUS_F_YOURS) != 0;
	}
	return k;
}

static const char *
addr_text(const struct sockaddr_in *a, char *buf, size_t len)
{
	char	 ip[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &a->sin_addr, ip, sizeof(ip));
	snprintf(buf, len, "%s:%d", ip, ntohs(a->sin_port));
	return buf;
}

/* A checked SCHEDULE from the peer. */
static void
peer_schedule(struct standby *sb, const struct proto_msg *m, int64_t now)
{
	const struct proto_schedule *p = &m->u.schedule;
	int		 takeover = (p->flags & SCHED_F_TAKEOVER) != 0;
	char		 a[64];

	sb->copies++;
	sb->heard = now;
	sb->drops_at = sb->drops;
	sb->drops_said = 0;
	sb->peer_si = (int64_t)p->si_us * NS_PER_US;
	sb->peer_id = m->hdr.sender;
	/* poll at the peer's SI, not at a poll timed by our own (10 s by
	 * default): the nodes' jobs, and the matrix we take over with, are
	 * at most an SI old */
	if (sb->peer_si > 0 && sb->next_poll > now + sb->peer_si)
		sb->next_poll = now + sb->peer_si;
	if (sb->role == SB_MASTER) {
		if (!standby_yields(takeover, yours(sb, now), sb->took != 0 ?
		    now - sb->took : -1, sb->sch->si, sb->net->seq.sender,
		    m->hdr.sender))
			return;	/* the peer yields when it hears us */
		sb->role = SB_STANDBY;
		sb->yields++;
		sb->next_poll = now;
		out_notice(sb->out, "standby: the console at %s %s: this "
		    "console is standby from now on", addr_text(&sb->peer, a,
		    sizeof(a)), takeover ? "took over" : "commands the nodes");
	}
	follow(sb, p);
}

/* Generation a is newer than b (serial numbers: they wrap). */
static int
gen_newer(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

/* Collect generation p->gen of p->count entries from scratch. */
static void
weights_start(struct sb_weights *w, const struct proto_weight *p)
{
	w->collecting = 1;
	w->gen = p->gen;
	w->count = p->count;
	w->have = 0;
	memset(w->got, 0, sizeof(w->got));
}

/*
 * Every entry of generation w->gen is in: it replaces both tables.  A
 * snapshot that does not fit them (a name twice is once, but more than
 * WEIGHTS_MAX hosts or JOBW_MAX jobs) changes nothing.
 */
static void
weights_apply(struct standby *sb)
{
	struct sb_weights	*w = &sb->w;
	struct weights		 ws = { 0 };
	struct jobw		 jw = { 0 };
	const struct proto_weight *p;
	int			 i, rc = 0;

	for (i = 0; i < w->count && rc == 0; i++) {
		p = &w->e[i];
		if (p->kind == WEIGHT_KIND_HOST)
			rc = bal_weight_set(&ws, p->name, (double)p->weight /
			    PROTO_WEIGHT_UNIT);
		else
			rc = jobw_set(&jw, p->name, (int)(p->weight /
			    PROTO_WEIGHT_UNIT));
	}
	w->collecting = 0;
	w->done = 1;		/* not collected again, applied or not */
	w->last = w->gen;
	if (rc == -1) {
		log_warnx("standby: the master's weights (generation %u) do "
		    "not fit this console's tables: kept its own", w->gen);
		return;
	}
	*sb->weights = ws;
	*sb->jobw = jw;
	w->applied++;
	w->own++;		/* what we send as master is newer */
	out_notice(sb->out, "standby: the master's weights (generation %u): "
	    "%d host%s, %d job%s", w->gen, ws.n, ws.n == 1 ? "" : "s", jw.n,
	    jw.n == 1 ? "" : "s");
}

/* A checked WEIGHT from the peer: a standby collects its generation. */
static void
peer_weight(struct standby *sb, const struct proto_msg *m)
{
	struct sb_weights		*w = &sb->w;
	const struct proto_weight	*p = &m->u.weight;

	if (sb->role != SB_STANDBY)
		return;		/* a master's weights are its own */
	if (!w->heard || m->hdr.sender != w->sender) {
		/* another run of the peer: its generations start over */
		w->heard = 1;
		w->sender = m->hdr.sender;
		w->done = w->collecting = 0;
	}
	if (w->done && !gen_newer(p->gen, w->last))
		return;		/* the one applied again, or older */
	if (w->collecting && gen_newer(w->gen, p->gen))
		return;		/* older than the one being collected */
	if (!w->collecting || p->gen != w->gen || p->count != w->count)
		weights_start(w, p);
	if (p->count > 0 && !w->got[p->index]) {
		w->got[p->index] = 1;
		w->e[p->index] = *p;
		w->have++;
	}
	if (w->have == w->count)
		weights_apply(sb);
}

/* A checked datagram from the peer. */
static void
peer_input(struct standby *sb, const struct proto_msg *m, int64_t now)
{
	if (m->hdr.type == PROTO_SCHEDULE)
		peer_schedule(sb, m, now);
	else
		peer_weight(sb, m);
}

void
standby_input(struct standby *sb, int64_t now)
{
	struct sockaddr_in	 from;
	struct proto_msg	 m;
	enum proto_reject	 why;
	uint8_t			 buf[PROTO_MAX_DGRAM + 1];
	union {
		char		 b[CMSG_SPACE(sizeof(uint32_t))];
		struct cmsghdr	 align;
	}			 cbuf;
	struct msghdr		 mh;
	struct iovec		 iov;
	struct cmsghdr		*cm;
	ssize_t			 r;
	int			 i, pinned;

	if (sb->bucket.rate == 0)
		buckets_init(&sb->bucket, PEER_RATE, PEER_RATE, PEER_RATE,
		    PEER_RATE, now_mono_ns());
	for (i = 0; i < 64 && sb->fd != -1; i++) {
		iov.iov_base = buf;
		iov.iov_len = sizeof(buf);
		memset(&mh, 0, sizeof(mh));
		mh.msg_name = &from;
		mh.msg_namelen = sizeof(from);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = cbuf.b;
		mh.msg_controllen = sizeof(cbuf.b);
		r = recvmsg(sb->fd, &mh, 0);
		if (r == -1)
			return;	/* EAGAIN, or nothing we can do */
		for (cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh,
		    cm))
			if (cm->cmsg_level == SOL_SOCKET &&
			    cm->cmsg_type == SO_RXQ_OVFL &&
			    cm->cmsg_len >= CMSG_LEN(sizeof(uint32_t)))
				memcpy(&sb->drops, CMSG_DATA(cm),
				    sizeof(uint32_t));
		(void)replay_clock(&sb->replay, now_real_us(), now_mono_us());
		if (from.sin_addr.s_addr != sb->peer.sin_addr.s_addr ||
		    proto_frame(buf, (size_t)r, PROTO_ACCEPT_PEER, &m,
		    &why) == -1) {
			sb->refused++;
			continue;
		}
		/* the peer's sender, newer than its last that passed: checked
		 * whatever the bucket says, which a flood that forges the
		 * peer's address and port spends (cheap checks first) */
		pinned = sb->pinned && m.hdr.sender == sb->pin_id &&
		    m.hdr.seq > sb->pin_seq;
		if ((!pinned && buckets_take(&sb->bucket, from.sin_addr.s_addr,
		    1, now_mono_ns()) == -1) || proto_verify(&sb->key,
		    &sb->replay, buf, (size_t)r, &m, &why) == -1) {
			sb->refused++;
			continue;
		}
		sb->pinned = 1;
		sb->pin_id = m.hdr.sender;
		sb->pin_seq = m.hdr.seq;
		peer_input(sb, &m, now);
	}
}

int
standby_take(struct standby *sb, const char *why, int64_t now)
{
	char		 a[64], ps[32], ip[32];
	int		 i, n, live = 0, was = sb->role;

	if (sb->role == SB_NONE)
		return out_err(sb->out, "%s: no console.peer", why);
	if (!sb->sch->spoken)
		return out_err(sb->out, "%s: nothing heard from the master at "
		    "%s yet: no schedule to take over", why,
		    addr_text(&sb->peer, a, sizeof(a)));
	sb->role = SB_MASTER;
	if (sb->take == NULL || (n = sb->take(sb->arg, now)) < 0) {
		sb->role = was;
		return sb->take == NULL ? out_err(sb->out, "%s: no master "
		    "loop", why) : -1;
	}
	sb->took = now;
	sb->takeovers++;
	for (i = 0; i < sb->nodes->n; i++)
		live += sb->nodes->v[i].have_status &&
		    nodes_live(&sb->nodes->v[i], now, sb->node_timeout(sb->arg));
	out_notice(sb->out, "standby: %s: this console is the master now "
	    "(%s, %s, PS %s of IP %s; sent to %d destination%s; %d of %d "
	    "nodes' jobs known)", why,
	    proto_mode_name((unsigned)sb->sch->mode), sb->sch->started ?
	    "started" : "stopped", duration_format(sch_ps(sb->sch), ps,
	    sizeof(ps)), duration_format(sb->sch->ip, ip, sizeof(ip)), n,
	    n == 1 ? "" : "s", live, sb->nodes->n);
	return n;
}

void
standby_timer(struct standby *sb, int64_t now)
{
	struct proto_msg	 q = { .hdr.type = PROTO_STATUS_REQ };
	int64_t			 due = standby_due(sb->heard, sb->peer_si);
	char			 a[64], w[32], why[160];

	if (sb->role != SB_STANDBY)
		return;
	if (due != 0 && now >= due && sb->fd != -1) {
		/* a copy may wait in the socket, read after poll() while a
		 * round of replies was: read it before the master is called
		 * silent */
		standby_input(sb, now);
		due = standby_due(sb->heard, sb->peer_si);
	}
	if (due != 0 && now >= due && sb->drops != sb->drops_at) {
		/* the kernel dropped datagrams of the peer's address and port
		 * since its last copy (a flood that forges them: only those
		 * reach this connected socket): its copies may be among
		 * them, so its silence says nothing; not while they drop */
		if (!sb->drops_said)
			log_warnx("standby: no copy from the master at %s for "
			    "%s, but %u datagrams from its address were "
			    "dropped with a full socket meanwhile (a flood "
			    "that forges it?): no takeover while that lasts",
			    addr_text(&sb->peer, a, sizeof(a)),
			    duration_format(now - sb->heard, w, sizeof(w)),
			    sb->drops - sb->drops_at);
		sb->drops_said = 1;
		sb->heard = now;	/* again in 1.5 SI */
		sb->drops_at = sb->drops;
		sb->postponed++;
		return;
	}
	if (due != 0 && now >= due) {
		snprintf(why, sizeof(why), "the master at %s was silent for %s",
		    addr_text(&sb->peer, a, sizeof(a)), duration_format(now -
		    sb->heard, w, sizeof(w)));
		if (standby_take(sb, why, now) < 0) {
			log_warnx("standby: %s", sb->out->err);
			sb->heard = now;	/* again in 1.5 SI */
		}
		return;
	}
	if (now >= sb->next_poll) {
		/* the nodes' jobs, for the slot tables we may have to send */
		(void)net_send(sb->net, &q);
		sb->next_poll = now + (sb->peer_si > 0 ? sb->peer_si :
		    sb->sch->si);
	}
}

int64_t
standby_deadline(const struct standby *sb)
{
	int64_t			 due;

	if (sb->role != SB_STANDBY)
		return 0;
	due = standby_due(sb->heard, sb->peer_si);
	if (due == 0 || (sb->next_poll != 0 && sb->next_poll < due))
		return sb->next_poll != 0 ? sb->next_poll : 1;
	return due;
}
