/*
 * net.c - the console's datagrams.  See net.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sodium.h>

#include "conf_nodes.h"
#include "log.h"
#include "net.h"
#include "timeutil.h"
#include "wire.h"

static int
peer_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct net_peer *)a)->addr.s_addr;
	uint32_t y = ((const struct net_peer *)b)->addr.s_addr;

	return x < y ? -1 : x > y;
}

/*
 * console.group: the group's datagrams leave by the interface of the
 * address ifaddr ("" = the route's), with TTL 1 (the kernel's default:
 * no router forwards them), and come back to this host's own sockets
 * (loop: nodes on this host, and simnodes, are in the group too).
 */
static int
group_socket(struct net *n, const char *ifaddr, char *err, size_t errlen)
{
	struct ip_mreqn	 mr = { .imr_ifindex = 0 };

	if (*ifaddr == '\0')
		return 0;
	if (inet_pton(AF_INET, ifaddr, &mr.imr_address) != 1 ||
	    setsockopt(n->fd, IPPROTO_IP, IP_MULTICAST_IF, &mr,
	    sizeof(mr)) == -1) {
		snprintf(err, errlen, "console.group_if %s: %s", ifaddr,
		    strerror(errno));
		return -1;
	}
	return 0;
}

/* console.nodes: an entry for every address of the list, sorted once, so
 * that a round of replies inserts nothing */
static void
peers_seed(struct net *n)
{
	int	 i, k = 0;

	for (i = 0; i < n->nlist; i++)
		n->peer[i] = (struct net_peer){ .addr = n->list[i] };
	qsort(n->peer, (size_t)n->nlist, sizeof(*n->peer), peer_cmp);
	for (i = 0; i < n->nlist; i++)
		if (k == 0 || n->peer[i].addr.s_addr != n->peer[k - 1].addr.s_addr)
			n->peer[k++] = n->peer[i];
	n->npeer = k;
}

/* The index of a's entry, or -(where it goes) - 1. */
static int
peer_find(const struct net *n, struct in_addr a)
{
	int	 lo = 0, hi = n->npeer;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (n->peer[mid].addr.s_addr == a.s_addr)
			return mid;
		if (n->peer[mid].addr.s_addr < a.s_addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -lo - 1;
}

/*
 * A keyless console: the read keys of the console keys the nodes obey
 * (console_keys: the same dts.conf, mode 0644), for status and jobs.
 */
static void
read_keys(struct net *n, const struct dts_conf *c)
{
	char	 err[200];
	int	 i;

	if (c->console_keys.n == 0)
		snprintf(n->read_why, sizeof(n->read_why), "console_keys is "
		    "empty in %.180s too, so there is no read key either",
		    c->file[0] != '\0' ? c->file : "the configuration");
	for (i = 0; i < c->console_keys.n; i++)
		if (auth_pub_add(&n->rkey, c->console_keys.s[i], err,
		    sizeof(err)) == -1) {
			snprintf(n->read_why, sizeof(n->read_why),
			    "console_keys: %s", err);
			sodium_memzero(&n->rkey, sizeof(n->rkey));
			return;
		}
}

static void size_rcvbuf(struct net *);

int
net_init(struct net *n, const struct dts_conf *c, int open_socket,
    char *err, size_t errlen)
{
	struct sockaddr_in	 sin = { .sin_family = AF_INET };
	char			 why[300];
	int			 i, on = 1;

	memset(n, 0, sizeof(*n));
	n->fd = -1;
	n->port = c->port;
	n->key.insecure = c->insecure;
	if (!c->insecure && auth_key_load(&n->key, c->console.node_secret,
	    err, errlen) == -1) {
		n->keyless = 1;
		snprintf(n->keyless_why, sizeof(n->keyless_why),
		    "console.node_secret: %.200s", err);
	} else if (!c->insecure && auth_signer_load(&n->key,
	    c->console.sign_key, err, errlen) == -1) {
		n->keyless = 1;
		snprintf(n->keyless_why, sizeof(n->keyless_why),
		    "console.sign_key: %.200s", err);
	}
	if (n->keyless)
		sodium_memzero(&n->key, sizeof(n->key));
	if (n->keyless)
		read_keys(n, c);
	n->key.derive = 1;	/* each node's replies under its own key */
	seqgen_init(&n->seq);
	replay_init(&n->replay, now_real_us(), now_mono_us(),
	    (uint64_t)(c->replay_window_ns / NS_PER_US));
	if ((n->list = calloc(NET_DST_MAX, sizeof(*n->list))) == NULL ||
	    (n->peer = calloc(NET_DST_MAX, sizeof(*n->peer))) == NULL) {
		free(n->list);
		n->list = NULL;
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (c->console.nodes.n > 0) {
		n->how = NET_LIST;
		if ((i = confnodes_expand(&c->console.nodes, n->list,
		    NET_DST_MAX, why, sizeof(why))) == -1) {
			snprintf(err, errlen, "console.nodes: %s", why);
			net_close(n);
			return -1;
		}
		n->nlist = i;
		peers_seed(n);
	} else
		n->how = c->console.unicast ? NET_UNICAST : NET_BROADCAST;
	/* the schema checked both: a multicast address, an IPv4 one */
	n->have_group = inet_pton(AF_INET, c->console.group, &n->group) == 1;
	if (!open_socket)
		return 0;
	n->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (n->fd == -1 || setsockopt(n->fd, SOL_SOCKET, SO_BROADCAST, &on,
	    sizeof(on)) == -1 || bind(n->fd, (struct sockaddr *)&sin,
	    sizeof(sin)) == -1) {
		snprintf(err, errlen, "UDP socket: %s", strerror(errno));
		net_close(n);
		return -1;
	}
	/* DF: no datagram of ours is larger than PROTO_MAX_DGRAM, and the
	 * kernel then skips the IP id's hash at each of 10,000 sends an SI
	 * (__ip_select_ident: 2 % of the master's time in bench-scale) */
	(void)setsockopt(n->fd, IPPROTO_IP, IP_MTU_DISCOVER,
	    &(int){ IP_PMTUDISC_DO }, sizeof(int));
	if (n->have_group && group_socket(n, c->console.group_if, err,
	    errlen) == -1) {
		net_close(n);
		return -1;
	}
	if ((n->rx = calloc(1, sizeof(*n->rx))) == NULL) {
		snprintf(err, errlen, "out of memory");
		net_close(n);
		return -1;
	}
	size_rcvbuf(n);
	return 0;
}

/*
 * The receive buffer holds a whole round: every destination answers a
 * SCHEDULE or a request at once, and a reply is about NET_RCV_PER_NODE
 * bytes of kernel memory (a 488-byte datagram in its buffer).  The
 * kernel's default (212992 bytes) holds about 160: at 1,000 nodes most
 * of each SI's replies would be dropped.  SO_RCVBUFFORCE (root) passes
 * net.core.rmem_max; else SO_RCVBUF, up to it.
 */
static void
size_rcvbuf(struct net *n)
{
	int	 want, have = 0;
	socklen_t len = sizeof(have);

	if (n->fd == -1)
		return;
	want = (n->nlist > NODES_MAX ? n->nlist : NODES_MAX) *
	    NET_RCV_PER_NODE;
	if (getsockopt(n->fd, SOL_SOCKET, SO_RCVBUF, &have, &len) == 0 &&
	    have / 2 >= want)	/* the kernel doubles what it is given */
		return;
	if (setsockopt(n->fd, SOL_SOCKET, SO_RCVBUFFORCE, &want,
	    sizeof(want)) == -1 && setsockopt(n->fd, SOL_SOCKET, SO_RCVBUF,
	    &want, sizeof(want)) == -1)
		log_debug("SO_RCVBUF %d: %s", want, strerror(errno));
}

void
net_set_hosts(struct net *n, const struct vm_hosts *h)
{
	int	 i;

	if (n->how != NET_UNICAST)
		return;
	n->nlist = 0;
	for (i = 0; i < h->n && n->nlist < NET_DST_MAX; i++)
		if (h->v[i].have_addr)
			n->list[n->nlist++] = h->v[i].addr;
	size_rcvbuf(n);
}

void
net_set_list(struct net *n, const struct in_addr *a, int k, const char *from)
{
	int	 i;

	n->how = NET_HOSTFILE;
	n->have_group = 0;	/* its hosts replace every destination */
	n->nlist = 0;
	for (i = 0; i < k && n->nlist < NET_DST_MAX; i++)
		n->list[n->nlist++] = a[i];
	snprintf(n->list_from, sizeof(n->list_from), "%s", from);
	size_rcvbuf(n);
}

static int
broadcast_addrs(struct in_addr *out, int cap)
{
	struct ifaddrs	*ifs, *i;
	int		 k, n = 0;

	if (getifaddrs(&ifs) == -1)
		return 0;
	for (i = ifs; i != NULL && n < cap; i = i->ifa_next) {
		if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET ||
		    !(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK) ||
		    !(i->ifa_flags & IFF_BROADCAST) ||
		    i->ifa_broadaddr == NULL)
			continue;
		out[n] = ((struct sockaddr_in *)(void *)i->ifa_broadaddr)->
		    sin_addr;
		for (k = 0; k < n; k++)	/* two addresses on one subnet */
			if (out[k].s_addr == out[n].s_addr)
				break;
		if (k == n)
			n++;
	}
	freeifaddrs(ifs);
	return n;
}

int
net_destinations(const struct net *n, struct in_addr *out, int cap)
{
	int	 i, k;

	if (n->how != NET_BROADCAST) {
		k = n->nlist < cap ? n->nlist : cap;
		for (i = 0; i < k; i++)
			out[i] = n->list[i];
		return k;
	}
	if ((k = broadcast_addrs(out, cap)) == 0 && cap > 0) {
		out[0].s_addr = htonl(INADDR_LOOPBACK);
		k = 1;
	}
	return k;
}

/* Send one sealed datagram to dst; 0 or -1 (counted). */
static int
send_sealed(struct net *n, struct in_addr dst, const uint8_t *buf, int len)
{
	struct sockaddr_in	 to = { .sin_family = AF_INET, .sin_addr = dst };

	to.sin_port = htons((uint16_t)n->port);
	n->sent++;
	if (n->fd == -1)
		return 0;
	if (sendto(n->fd, buf, (size_t)len, 0, (struct sockaddr *)&to,
	    sizeof(to)) == -1) {
		n->send_errors++;
		log_debug("sendto %s: %s", inet_ntoa(dst), strerror(errno));
		return -1;
	}
	return 0;
}

int
net_send_to(struct net *n, struct in_addr dst, struct proto_msg *msg)
{
	uint8_t			 buf[PROTO_MAX_DGRAM];
	int			 len;

	if (n->keyless)
		return -1;
	if (n->tap != NULL)
		n->tap(n->tap_arg, dst, msg);
	len = proto_seal(&n->key, &n->seq, now_mono_us(), msg, buf,
	    sizeof(buf));
	if (len < 0)
		return -1;
	return send_sealed(n, dst, buf, len);
}

/*
 * Send buf[i] (len[i] bytes) to dst[i], k of them, NET_BATCH a system
 * call (sendmmsg): one SI's datagrams leave back to back, not one
 * sendto() and its wake-ups apart.  Returns the datagrams sent.
 */
static int
send_many(struct net *n, const struct in_addr *dst,
    const uint8_t *const *buf, const int *len, int k)
{
	struct mmsghdr		 mm[NET_BATCH];
	struct iovec		 iov[NET_BATCH];
	struct sockaddr_in	 to[NET_BATCH];
	int			 i = 0, b, done, r, ok = 0;

	while (i < k) {
		for (b = 0; b < NET_BATCH && i < k; i++) {
			if (len[i] <= 0)
				continue;
			to[b] = (struct sockaddr_in){ .sin_family = AF_INET,
			    .sin_addr = dst[i],
			    .sin_port = htons((uint16_t)n->port) };
			iov[b].iov_base = (void *)(uintptr_t)buf[i];
			iov[b].iov_len = (size_t)len[i];
			memset(&mm[b], 0, sizeof(mm[b]));
			mm[b].msg_hdr.msg_name = &to[b];
			mm[b].msg_hdr.msg_namelen = sizeof(to[b]);
			mm[b].msg_hdr.msg_iov = &iov[b];
			mm[b].msg_hdr.msg_iovlen = 1;
			b++;
		}
		n->sent += (uint64_t)b;
		if (n->fd == -1) {
			ok += b;
			continue;
		}
		for (done = 0; done < b; ) {
			r = sendmmsg(n->fd, mm + done, (unsigned)(b - done), 0);
			if (r > 0) {
				ok += r;
				done += r;
			} else if (r == -1 && errno == EINTR)
				continue;
			else {	/* this one failed: count it, go on */
				n->send_errors++;
				log_debug("sendto %s: %s", inet_ntoa(to[done].
				    sin_addr), strerror(errno));
				done++;
			}
		}
	}
	return ok;
}

/*
 * buf (len bytes, sealed once, or len < 0 if the seal failed) to every
 * destination, the tap told of msg for each.  The count sent, or -1.
 */
static int
send_all(struct net *n, const struct proto_msg *msg, const uint8_t *buf,
    int len)
{
	struct in_addr		*dst;
	const uint8_t		**bufs;
	int			*lens, i, nd, ok;

	dst = calloc(NET_DST_MAX, sizeof(*dst));
	bufs = calloc(NET_DST_MAX, sizeof(*bufs));
	lens = calloc(NET_DST_MAX, sizeof(*lens));
	nd = dst == NULL || bufs == NULL || lens == NULL ? 0 :
	    net_destinations(n, dst, NET_DST_MAX);
	ok = 0;
	if (len >= 0 && nd > 0) {
		/* one signature for every destination */
		for (i = 0; i < nd; i++) {
			if (n->tap != NULL)
				n->tap(n->tap_arg, dst[i], msg);
			bufs[i] = buf;
			lens[i] = len;
		}
		ok = send_many(n, dst, bufs, lens, nd);
	}
	free(dst);
	free(bufs);
	free(lens);
	if (len < 0 || nd == 0)
		return -1;
	return ok > 0 ? ok : -1;
}

int
net_send(struct net *n, struct proto_msg *msg)
{
	uint8_t			 buf[PROTO_MAX_DGRAM];

	if (n->keyless)
		return -1;
	return send_all(n, msg, buf, proto_seal(&n->key, &n->seq,
	    now_mono_us(), msg, buf, sizeof(buf)));
}

/*
 * The messages of one net_send_each sealed last, by content (header
 * fields the seal sets left out): nodes with the same slot table get the
 * same datagram.
 */
#define SEALED_MAX 8
struct sealed {
	int	 n, next;
	int	 idx[SEALED_MAX];	/* its index in the batch */
	int	 len[SEALED_MAX];
	uint8_t	 enc[SEALED_MAX][PROTO_MAX_DGRAM];
	int	 last_len;		/* sealed_before's encoding, */
	uint8_t	 last[PROTO_MAX_DGRAM];	/* for sealed_note */
};

/* The index of an earlier message with the same content, or -1. */
static int
sealed_before(struct sealed *s, const struct proto_msg *m)
{
	struct proto_msg	 t = *m;

	t.hdr.sender = 0;
	t.hdr.seq = 0;
	t.hdr.key_id = 0;
	s->last_len = proto_encode(&t, s->last, sizeof(s->last));
	for (int j = 0; s->last_len > 0 && j < s->n; j++)
		if (s->len[j] == s->last_len && memcmp(s->enc[j], s->last,
		    (size_t)s->last_len) == 0)
			return s->idx[j];
	return -1;
}

/* Message i was sealed: remember its content. */
static void
sealed_note(struct sealed *s, int i)
{
	if (s->last_len <= 0)
		return;
	memcpy(s->enc[s->next], s->last, (size_t)s->last_len);
	s->len[s->next] = s->last_len;
	s->idx[s->next] = i;
	s->next = (s->next + 1) % SEALED_MAX;
	if (s->n < SEALED_MAX)
		s->n++;
}

/*
 * The distinct messages idx[0..ng) of a send, sealed: SCHEDULEs that
 * differ in their tables only under one signature (proto_seal_tree),
 * anything else one by one.
 */
static void
seal_group(struct net *n, struct proto_msg *msg, const int *idx, int ng,
    uint8_t (*buf)[PROTO_MAX_DGRAM], int *len)
{
	struct proto_msg	 g[PROTO_TREE_LEAVES];
	uint8_t			 (*gb)[PROTO_MAX_DGRAM];
	int			 gl[PROTO_TREE_LEAVES], i;

	for (i = 0; i < ng; i++)
		g[i] = msg[idx[i]];
	if (ng > 1 && (gb = calloc((size_t)ng, sizeof(*gb))) != NULL) {
		if (proto_seal_tree(&n->key, &n->seq, now_mono_us(), g, ng,
		    gb, gl) == 0) {
			for (i = 0; i < ng; i++) {
				memcpy(buf[idx[i]], gb[i], (size_t)gl[i]);
				len[idx[i]] = gl[i];
			}
			free(gb);
			return;
		}
		free(gb);
	}
	for (i = 0; i < ng; i++)
		len[idx[i]] = proto_seal(&n->key, &n->seq, now_mono_us(),
		    &msg[idx[i]], buf[idx[i]], sizeof(buf[idx[i]]));
}

/*
 * Two SCHEDULEs with one base (all but the slot table and the tree):
 * they may share a signature.
 */
static int
same_base(const struct proto_msg *a, const struct proto_msg *b)
{
	const struct proto_schedule *x = &a->u.schedule, *y = &b->u.schedule;

	return a->hdr.type == PROTO_SCHEDULE && b->hdr.type ==
	    PROTO_SCHEDULE && x->mode == y->mode && x->sync == y->sync &&
	    x->flags == y->flags && x->reserved == y->reserved &&
	    x->ps_us == y->ps_us && x->ip_us == y->ip_us &&
	    x->si_us == y->si_us && x->origin_ns == y->origin_ns;
}

int
net_send_each(struct net *n, const struct in_addr *dst,
    struct proto_msg *msg, int k)
{
	uint8_t		(*buf)[PROTO_MAX_DGRAM];
	const uint8_t	**bufs;
	struct sealed	*seen;
	int		*len, *same, i, j, ok = 0, ng = 0;
	int		 grp[PROTO_TREE_LEAVES];

	if (k <= 0 || n->keyless)
		return -1;
	buf = malloc((size_t)k * sizeof(*buf));	/* each one sealed */
	bufs = calloc((size_t)k, sizeof(*bufs));
	len = calloc((size_t)k, sizeof(*len));
	same = calloc((size_t)k, sizeof(*same));
	seen = calloc(1, sizeof(*seen));
	if (buf == NULL || bufs == NULL || len == NULL || same == NULL ||
	    seen == NULL) {
		free(buf);
		free(bufs);
		free(len);
		free(same);
		free(seen);
		return -1;
	}
	/* the same bytes as an earlier one, or a leaf of the group being
	 * filled: PROTO_TREE_LEAVES tables a signature, not one a table */
	for (i = 0; i < k; i++) {
		if (n->tap != NULL)
			n->tap(n->tap_arg, dst[i], &msg[i]);
		if ((same[i] = sealed_before(seen, &msg[i])) >= 0)
			continue;
		same[i] = i;
		if (ng > 0 && (ng == PROTO_TREE_LEAVES ||
		    !same_base(&msg[grp[0]], &msg[i]))) {
			seal_group(n, msg, grp, ng, buf, len);
			ng = 0;
		}
		grp[ng++] = i;
		sealed_note(seen, i);
	}
	if (ng > 0)
		seal_group(n, msg, grp, ng, buf, len);
	for (i = 0; i < k; i++) {
		j = same[i];
		bufs[i] = buf[j];	/* the same bytes, signed once */
		len[i] = len[j];
	}
	ok = send_many(n, dst, bufs, len, k);
	free(buf);
	free(bufs);
	free(len);
	free(same);
	free(seen);
	return ok > 0 ? ok : -1;
}

/*
 * A keyless console takes the answers to its read requests: a STATUS or
 * a JOB under one of its read keys (a MAC failure is tried with the next
 * key and touches no state).  Anyone who knows the read key could have
 * made it (master.c says so beside what it prints).
 */
static int
read_accept(struct net *n, struct replay_entry *e, const uint8_t *buf,
    size_t len, struct proto_msg *msg)
{
	enum proto_reject	 why = REJ_MAC;
	struct auth_key		 k = { 0 };
	int			 i, rc = -1;

	if (msg->hdr.type != PROTO_STATUS && msg->hdr.type != PROTO_JOB) {
		n->dropped[REJ_TYPE]++;
		return -1;
	}
	for (i = 0; i < n->rkey.npub && rc == -1; i++) {
		memcpy(k.key, n->rkey.read[i], sizeof(k.key));
		rc = proto_verify_peer(&k, &n->replay, e, buf, len, msg,
		    &why);
		if (rc == -1 && why != REJ_MAC)
			break;
	}
	sodium_memzero(&k, sizeof(k));
	if (rc == -1) {
		n->dropped[why]++;
		return -1;
	}
	n->received++;
	return 0;
}

int
net_accept(struct net *n, const uint8_t *buf, size_t len,
    struct in_addr from, struct proto_msg *msg)
{
	enum proto_reject	 why;
	struct auth_key		 k = { .insecure = n->key.insecure };
	struct net_peer		 p;
	int			 i, rc;

	if (proto_frame(buf, len, PROTO_ACCEPT_CONSOLE, msg, &why) == -1) {
		/* a broadcast of ours, heard back: not an attack */
		if (why == REJ_TYPE && msg->hdr.sender == n->seq.sender)
			n->own++;
		else
			n->dropped[why]++;
		return -1;
	}
	n->stepped_us += replay_clock(&n->replay, now_real_us(), now_mono_us());
	/* the node's entry, or a new one that is kept only once the reply
	 * is good, so that forged sources fill nothing */
	i = peer_find(n, from);
	if (i < 0 && n->npeer == NET_DST_MAX) {
		n->dropped[REJ_REPLAY]++;	/* no room to follow it */
		return -1;
	}
	p = i >= 0 ? n->peer[i] : (struct net_peer){ .addr = from };
	if (n->keyless)
		rc = read_accept(n, &p.e, buf, len, msg);
	else {
		/* the key of the node at that address, derived once: no node
		 * speaks for another */
		if (!p.keyed) {
			auth_for_node(&n->key, from.s_addr, &k);
			memcpy(p.key, k.key, sizeof(p.key));
			p.keyed = 1;
		}
		memcpy(k.key, p.key, sizeof(k.key));
		rc = proto_verify_peer(&k, &n->replay, &p.e, buf, len, msg,
		    &why);
		if (rc == -1)
			n->dropped[why]++;
		else
			n->received++;
	}
	/* a known node's entry as the checks left it (its sequence is taken
	 * only by a reply that passed the replay check, as in a table); a
	 * new node's, only if its reply was good */
	if (i < 0 && rc == 0) {
		i = -i - 1;
		memmove(&n->peer[i + 1], &n->peer[i],
		    (size_t)(n->npeer - i) * sizeof(*n->peer));
		n->npeer++;
	}
	if (i >= 0)
		n->peer[i] = p;
	sodium_memzero(&k, sizeof(k));
	sodium_memzero(&p, sizeof(p));
	return rc;
}

/* Read what the socket holds, NET_RX_BATCH at most: 0 if nothing. */
static int
rx_fill(struct net *n)
{
	struct net_rx	*rx = n->rx;
	struct mmsghdr	 mm[NET_RX_BATCH];
	struct iovec	 iov[NET_RX_BATCH];
	int		 i, got;

	memset(mm, 0, sizeof(mm));
	for (i = 0; i < NET_RX_BATCH; i++) {
		iov[i].iov_base = rx->buf[i];
		iov[i].iov_len = sizeof(rx->buf[i]);
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
		mm[i].msg_hdr.msg_name = &rx->from[i];
		mm[i].msg_hdr.msg_namelen = sizeof(rx->from[i]);
	}
	rx->n = rx->next = 0;
	got = recvmmsg(n->fd, mm, NET_RX_BATCH, MSG_TRUNC, NULL);
	if (got < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			log_warn("recvmmsg");
		return 0;
	}
	for (i = 0; i < got; i++)	/* MSG_TRUNC: the datagram's length */
		rx->len[i] = mm[i].msg_len;
	rx->n = got;
	return got;
}

int
net_pending(const struct net *n)
{
	return n->rx != NULL ? n->rx->n - n->rx->next : 0;
}

int
net_recv(struct net *n, struct proto_msg *msg, struct sockaddr_in *from)
{
	struct net_rx	*rx = n->rx;
	int		 i;

	if (n->fd == -1 || rx == NULL)
		return 0;
	if (rx->next == rx->n && rx_fill(n) == 0)
		return 0;
	i = rx->next++;
	*from = rx->from[i];
	if (rx->len[i] > PROTO_MAX_DGRAM) {
		n->dropped[REJ_LONG]++;
		return 2;
	}
	return net_accept(n, rx->buf[i], rx->len[i], from->sin_addr, msg) ==
	    0 ? 1 : 2;
}

const char *
net_describe(const struct net *n, char *buf, size_t len)
{
	struct in_addr	 dst[NET_DST_MAX];
	char		 a[INET_ADDRSTRLEN];
	size_t		 off;
	int		 i, nd = net_destinations(n, dst, NET_DST_MAX);

	if (n->how == NET_HOSTFILE)
		off = (size_t)snprintf(buf, len, "hosts of %s", n->list_from);
	else
		off = (size_t)snprintf(buf, len, "%s", n->how == NET_LIST ?
		    "console.nodes" : n->how == NET_UNICAST ? "unicast to the "
		    "PVM hosts" : "broadcast");
	if (off >= len)
		off = len - 1;
	if (nd == 0)
		snprintf(buf + off, len - off, " (no destination yet)");
	if (nd > 8) {		/* a cluster: how many, the first, the last */
		inet_ntop(AF_INET, &dst[0], a, sizeof(a));
		off += (size_t)snprintf(buf + off, len - off, ": %d addresses, "
		    "%s", nd, a);
		inet_ntop(AF_INET, &dst[nd - 1], a, sizeof(a));
		if (off < len)
			off += (size_t)snprintf(buf + off, len - off, " ... %s",
			    a);
		nd = 0;
	}
	for (i = 0; i < nd && off < len; i++) {
		inet_ntop(AF_INET, &dst[i], a, sizeof(a));
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
		    i == 0 ? ": " : ", ", a);
	}
	if (off < len)
		snprintf(buf + off, len - off, ", port %d", n->port);
	return buf;
}

int
net_keyless(const struct net *n, const char *what, char *err, size_t errlen)
{
	if (!n->keyless)
		return 0;
	snprintf(err, errlen, "%s%sno console key (%s): this console runs "
	    "the PVM commands, and status and jobs read-only (see KEYS in "
	    "dts-console(1))",
	    what != NULL ? what : "", what != NULL ? ": " : "",
	    n->keyless_why);
	return -1;
}

int
net_reader(const struct net *n, const char *what, char *err, size_t errlen)
{
	if (!n->keyless)
		return 0;
	if (n->rkey.npub > 0)
		return 1;
	snprintf(err, errlen, "%s: no console key (%.100s), and %s", what,
	    n->keyless_why, n->read_why[0] != '\0' ? n->read_why :
	    "no console_keys, so no read key either");
	return -1;
}

int
net_send_read(struct net *n, struct proto_msg *msg)
{
	uint8_t			 buf[PROTO_MAX_DGRAM];

	if (!n->keyless || n->rkey.npub == 0)
		return -1;
	return send_all(n, msg, buf, proto_seal_read(n->rkey.read[0], &n->seq,
	    now_mono_us(), msg, buf, sizeof(buf)));
}

uint64_t
net_dropped_total(const struct net *n)
{
	uint64_t	 t = 0;
	int		 i;

	for (i = 0; i < REJ_COUNT; i++)
		t += n->dropped[i];
	return t;
}

_Static_assert(NET_DST_MAX == CONF_NODES_MAX, "console.nodes fits");

void
net_close(struct net *n)
{
	if (n->fd != -1)
		close(n->fd);
	n->fd = -1;
	free(n->list);
	n->list = NULL;
	n->nlist = 0;
	if (n->peer != NULL)
		sodium_memzero(n->peer, NET_DST_MAX * sizeof(*n->peer));
	free(n->peer);
	n->peer = NULL;
	n->npeer = 0;
	free(n->rx);
	n->rx = NULL;
}
