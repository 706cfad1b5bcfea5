/*
 * intake.c - the node's UDP socket and its thread.  See intake.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "intake.h"
#include "log.h"
#include "priv.h"
#include "timeutil.h"
#include "wire.h"

#define BATCH 64                       /* datagrams per recvmmsg */
/* room for one receive time (SO_TIMESTAMPNS) */
#define RXTIME_CMSG CMSG_SPACE(sizeof(struct timespec))

/*
 * The thread runs above the gang (a command must not wait for the LS of
 * a gang that spins on dts's CPU, nor forever in HPDT) but is held to a
 * CPU budget: a token bucket of CPU time, earned at BUDGET_PCT of one
 * core and holding at most BUDGET_BURST.  When it is empty the thread
 * stops reading the shared socket until it has earned its way back, and
 * the kernel drops what does not fit in the socket's buffer: a flood
 * costs the node at most BUDGET_PCT of a core (after one burst), and the
 * console repeats its schedule every SI.
 */
#define BUDGET_PCT   3                 /* % of one core, on average */
#define BUDGET_BURST (50 * NS_PER_MS)  /* CPU time spent at once */
/*
 * Once the budget is spent, the thread sleeps until it has earned this
 * much back (33 ms at 3 %), and then drains the socket in batches until
 * it is empty or the budget spent again: under a flood it wakes some 30
 * times a second, not once per batch (a wake-up and a poll() cost more
 * than the batch they fetched).
 */
#define BUDGET_QUANTUM (1 * NS_PER_MS)
/*
 * The master's socket has a budget of its own, so that a flood of the
 * shared socket cannot keep the master's commands unread, and a flood
 * that forges the master's address and port, which only this socket
 * gets, costs at most MBUDGET_PCT of a core more.  Neither budget owes
 * more than BUDGET_BURST: a flood that ends leaves the thread at most
 * BUDGET_BURST * 100 / PCT (1.7 s) from reading again.
 */
#define MBUDGET_PCT  3
/*
 * Signature checks a second (and at once) on the master's socket for a
 * datagram that is not from the master's known sender (check()): the
 * master's first ones, or a restarted master's on the same port; a flood
 * that forges the master's address and port spends these, and the
 * master's own are checked whatever they say.
 */
#define MBUCKET_RATE 20
/*
 * After a drain that found a backlog (DRAIN_BACKLOG datagrams or more
 * waiting), and after every drain for FLOOD_HOLD after that one, the
 * thread leaves the shared socket alone for DRAIN_GAP: under a flood it
 * then reads a socket buffer full at a time instead of racing the flood,
 * one wake-up per few datagrams (also while a flood stutters, its sender
 * descheduled).  A console's command comes alone, and outside a flood
 * is read at once.
 */
#define DRAIN_GAP     (10 * NS_PER_MS)
#define DRAIN_BACKLOG 8
#define FLOOD_HOLD    (200 * NS_PER_MS)

static void
efd_post(int efd)
{
	uint64_t	 one = 1;

	if (write(efd, &one, sizeof(one)) == -1 && errno != EAGAIN)
		log_warn("eventfd write");
}

static void
efd_drain(int efd)
{
	uint64_t	 n;

	if (read(efd, &n, sizeof(n)) == -1 && errno != EAGAIN)
		log_warn("eventfd read");
}

/*
 * A socket on the control port (SO_REUSEPORT: the general one and the
 * master's share it) with kernel receive times.  The fd, or -1.
 */
static int
port_socket(const struct sockaddr_in *bound)
{
	int	 on = 1, fd;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)) == -1 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof(on)) == -1 ||
	    bind(fd, (const struct sockaddr *)bound, sizeof(*bound)) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Connect the master's socket to to, first undoing its last connect():
 * that one bound a socket of 0.0.0.0 to the address it took to reach
 * its peer, and only AF_UNSPEC lets it take another.  0, or -1 with
 * errno.
 */
static int
reconnect(int fd, const struct sockaddr_in *to)
{
	struct sockaddr	 none = { .sa_family = AF_UNSPEC };

	if (connect(fd, &none, sizeof(none)) == -1)
		return -1;
	return connect(fd, (const struct sockaddr *)to, sizeof(*to));
}

/*
 * The master's socket with no master: connected to the control port of
 * the address it is bound to (127.0.0.1 for 0.0.0.0), a source that
 * only dts itself can send from, so that it takes no share of the
 * datagrams of the port (the kernel's SO_REUSEPORT choice skips a
 * connected socket).  0, or -1 with errno.
 */
static int
park(struct intake *in)
{
	struct sockaddr_in	 self = in->bound;

	in->mlive = 0;
	if (self.sin_addr.s_addr == htonl(INADDR_ANY))
		self.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return reconnect(in->mfd, &self);
}

/* Join mr's group on the interface mr names; 0, or -1 with errno. */
static int
join(int fd, const struct ip_mreqn *mr)
{
	return setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, mr, sizeof(*mr));
}

int
intake_join(struct intake *in, const char *group, char *err, size_t errlen)
{
	struct ip_mreqn	 mr = { .imr_address = in->bound.sin_addr };
	struct ifaddrs	*ifs, *i;
	int		 done[32], n = 0, k, idx;

	if (*group == '\0')
		return 0;
	if (inet_pton(AF_INET, group, &mr.imr_multiaddr) != 1 ||
	    !IN_MULTICAST(ntohl(mr.imr_multiaddr.s_addr))) {
		snprintf(err, errlen, "group \"%s\" is not an IPv4 multicast "
		    "address", group);
		return -1;
	}
	/* bound to one address: its interface */
	if (mr.imr_address.s_addr != htonl(INADDR_ANY)) {
		if (join(in->fd, &mr) == 0)
			return 1;
		snprintf(err, errlen, "group %s: cannot join: %s", group,
		    strerror(errno));
		return -1;
	}
	/* bound to every interface: join on every one that can (no route
	 * to the group is needed), as the console broadcasts on each */
	if (getifaddrs(&ifs) == -1) {
		snprintf(err, errlen, "group %s: getifaddrs: %s", group,
		    strerror(errno));
		return -1;
	}
	for (i = ifs; i != NULL; i = i->ifa_next) {
		if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET ||
		    !(i->ifa_flags & IFF_UP) || !(i->ifa_flags & IFF_MULTICAST) ||
		    (i->ifa_flags & IFF_LOOPBACK) ||
		    (idx = (int)if_nametoindex(i->ifa_name)) == 0)
			continue;
		for (k = 0; k < n && done[k] != idx; k++)
			;	/* an interface with several addresses: once */
		if (k < n || n == (int)(sizeof(done) / sizeof(done[0])))
			continue;
		mr.imr_ifindex = idx;
		if (join(in->fd, &mr) == 0)
			done[n++] = idx;
		else
			log_warn("group %s: cannot join on %s", group,
			    i->ifa_name);
	}
	freeifaddrs(ifs);
	if (n == 0) {
		snprintf(err, errlen, "group %s: no interface to join it on "
		    "(none up with multicast and an IPv4 address)", group);
		return -1;
	}
	return n;
}

int
intake_open(struct intake *in, const char *addr, int port,
    const struct auth_key *key, int64_t replay_window, char *err,
    size_t errlen)
{
	struct sockaddr_in	 sin = { .sin_family = AF_INET,
	    .sin_port = htons((uint16_t)port) };
	int			 on = 1;

	memset(in, 0, sizeof(*in));
	in->fd = in->mfd = in->cmd_efd = in->out_efd = -1;
	if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1) {
		snprintf(err, errlen, "bind address \"%s\" is not an IPv4 "
		    "address", addr);
		return -1;
	}
	in->bound = sin;
	if ((in->fd = port_socket(&in->bound)) == -1 ||
	    setsockopt(in->fd, SOL_SOCKET, SO_BROADCAST, &on,
	    sizeof(on)) == -1 || (in->mfd = port_socket(&in->bound)) == -1 ||
	    park(in) == -1) {
		snprintf(err, errlen, "control socket %s:%d: %s", addr, port,
		    strerror(errno));
		intake_close(in);
		return -1;
	}
	in->cmd_efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	in->out_efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (in->cmd_efd == -1 || in->out_efd == -1) {
		snprintf(err, errlen, "eventfd: %s", strerror(errno));
		intake_close(in);
		return -1;
	}
	pthread_mutex_init(&in->mu, NULL);
	in->key = *key;
	replay_init(&in->replay, now_real_us(), now_mono_us(),
	    (uint64_t)(replay_window / NS_PER_US));
	replay_init(&in->rreplay, now_real_us(), now_mono_us(),
	    (uint64_t)(replay_window / NS_PER_US));
	seqgen_init(&in->seq);
	buckets_init(&in->buckets, BUCKET_RATE, BUCKET_BURST, BUCKET_RATE_ALL,
	    BUCKET_BURST_ALL, now_mono_ns());
	buckets_init(&in->mbuckets, MBUCKET_RATE, MBUCKET_RATE, MBUCKET_RATE,
	    MBUCKET_RATE, now_mono_ns());
	if (gethostname(in->name, sizeof(in->name) - 1) == -1)
		snprintf(in->name, sizeof(in->name), "?");
	return 0;
}

/* from is the master's address and port (its socket's peer). */
static int
is_master(const struct intake *in, const struct sockaddr_in *from)
{
	return from->sin_addr.s_addr == in->master.sin_addr.s_addr &&
	    from->sin_port == in->master.sin_port;
}

/* Drops seen by the thread: its own counters, no lock. */
static void
count(struct intake *in, enum proto_reject why)
{
	in->dropped[why]++;
}

/*
 * One datagram, in the documented order.  Everything before the bucket
 * is a few comparisons; the bucket is spent only by datagrams that are
 * framed right, and only those that get a token cost a MAC.  A refusal
 * costs no clock read and no system call: the bucket runs on the time
 * the batch was read (batch_ns, CLOCK_MONOTONIC), and the clocks and the
 * datagram's receive time are read only for one that passes.
 */
static void
check(struct intake *in, const uint8_t *buf, size_t len, int truncated,
    const struct sockaddr_in *from, const struct msghdr *mh, int master,
    int64_t batch_ns)
{
	struct intake_cmd	 c;
	enum proto_reject	 why;
	int64_t			 now_real, now_mono, rx_real, step;
	int			 rc, which = -1, pinned;

	if (truncated) {
		count(in, REJ_LONG);
		return;
	}
	if (proto_frame(buf, len, PROTO_ACCEPT_NODE, &c.m, &why) == -1) {
		count(in, why);
		return;
	}
	/* the master's sender, newer than its last datagram that passed,
	 * from its address and port: no bucket (a flood that forges the
	 * master's address and port spends it, and kept the master out);
	 * the master's socket has a bucket of its own: a flood from its
	 * address (other ports) cannot spend its tokens */
	pinned = in->mpinned && c.m.hdr.sender == in->msender &&
	    c.m.hdr.seq > in->mseq && is_master(in, from);
	if (!pinned && (master ? buckets_take(&in->mbuckets,
	    from->sin_addr.s_addr, 1, batch_ns) == -1 :
	    buckets_take(&in->buckets, from->sin_addr.s_addr,
	    from->sin_addr.s_addr == in->master.sin_addr.s_addr,
	    batch_ns) == -1)) {
		count(in, REJ_RATE);
		return;
	}
	now_mono = now_mono_ns();
	now_real = now_real_ns();
	step = replay_clock(&in->replay, (uint64_t)(now_real / NS_PER_US),
	    (uint64_t)(now_mono / NS_PER_US));
	if (step != 0)
		log_info("CLOCK_REALTIME was stepped by %+.6f s: the replay "
		    "floor for new senders moves with it", (double)step / 1e6);
	(void)replay_clock(&in->rreplay, (uint64_t)(now_real / NS_PER_US),
	    (uint64_t)(now_mono / NS_PER_US));
	/* a read request (auth.h) never enters the commands' replay table
	 * (proto_verify_read checks its freshness only), but a table of its
	 * own: a replayed one gets no second answer, to whatever address */
	c.read = 0;
	if (proto_is_command(c.m.hdr.type) && c.m.hdr.key_id == AUTH_READ_ID) {
		rc = proto_verify_read(&in->key, &in->replay, buf, len, &c.m,
		    &which, &why);
		if (rc == 0 && replay_check(&in->rreplay, c.m.hdr.sender,
		    c.m.hdr.seq) == -1) {
			rc = -1;
			why = REJ_REPLAY;
		}
	} else
		rc = proto_verify(&in->key, &in->replay, buf, len, &c.m, &why);
	if (rc == 0 && which >= 0)
		c.read = 1 + which;
	if (rc == -1) {
		static struct log_limit forged = LOG_LIMIT_INIT; /* this thread */

		count(in, why);
		log_limited(&forged, LOG_LVL_DEBUG, "dropped datagram from "
		    "%s: %s", inet_ntoa(from->sin_addr), proto_reject_name(why));
		return;
	}
	if (which < 0 && is_master(in, from)) {
		in->msender = c.m.hdr.sender;	/* the master's (it signed) */
		in->mseq = c.m.hdr.seq;
		in->mpinned = 1;
	}
	rx_real = rx_real_ns(mh);
	c.from = *from;
	c.rx_real = rx_real;
	c.rx_mono = now_mono - (now_real - rx_real);
	pthread_mutex_lock(&in->mu);
	if (in->cmd_n == INTAKE_RING) {
		in->overflow++;
		pthread_mutex_unlock(&in->mu);
		return;
	}
	in->cmd[(in->cmd_head + in->cmd_n++) % INTAKE_RING] = c;
	pthread_mutex_unlock(&in->mu);
	efd_post(in->cmd_efd);
}

/*
 * One recvmmsg() of up to BATCH datagrams from fd, each checked.  The
 * number read (BATCH: there may be more), or -1 (nothing waiting).
 */
static int
receive(struct intake *in, int fd)
{
	static uint8_t		 buf[BATCH][PROTO_MAX_DGRAM + 1];
	static char		 cbuf[BATCH][RXTIME_CMSG];
	static struct sockaddr_in from[BATCH];
	static struct iovec	 iov[BATCH];
	static struct mmsghdr	 mm[BATCH];
	int64_t			 batch_ns;
	int			 n;

	for (int i = 0; i < BATCH; i++) {
		iov[i] = (struct iovec){ .iov_base = buf[i],
		    .iov_len = sizeof(buf[i]) };
		mm[i].msg_hdr = (struct msghdr){
			.msg_name = &from[i], .msg_namelen = sizeof(from[i]),
			.msg_iov = &iov[i], .msg_iovlen = 1,
			.msg_control = cbuf[i],
			.msg_controllen = sizeof(cbuf[i]),
		};
	}
	n = recvmmsg(fd, mm, BATCH, MSG_DONTWAIT, NULL);
	if (n == -1) {
		if (errno != EAGAIN && errno != EINTR)
			log_warn("recvmmsg");
		return -1;
	}
	batch_ns = now_mono_ns();
	for (int i = 0; i < n; i++) {
		size_t len = mm[i].msg_len;
		int trunc = (mm[i].msg_hdr.msg_flags & MSG_TRUNC) ||
		    len > PROTO_MAX_DGRAM;

		check(in, buf[i], len, trunc, &from[i], &mm[i].msg_hdr,
		    fd == in->mfd, batch_ns);
	}
	return n;
}

/*
 * STATUS and METRICS carry the drop counters, those the main thread
 * decided (rej, qfull: read under the lock) and the thread's own, and
 * the host name.
 */
static void
stamp(struct intake *in, struct proto_msg *m, const uint32_t *rej,
    uint32_t qfull)
{
	uint32_t	*r, *q;
	char		*name;

	if (m->hdr.type == PROTO_STATUS) {
		r = m->u.status.rejected;
		q = &m->u.status.queue_full;
		name = m->u.status.name;
	} else if (m->hdr.type == PROTO_METRICS) {
		r = m->u.metrics.rejected;
		q = &m->u.metrics.queue_full;
		name = m->u.metrics.name;
	} else
		return;
	for (int i = 0; i < REJ_COUNT; i++)
		r[i] = rej[i] + in->dropped[i];
	*q = qfull;
	snprintf(name, PROTO_NAME_LEN, "%s", in->name);
}

/*
 * A reply under the node's key, or, to a read request, under the read key
 * that tagged it: the keyless console that asked can check that, and
 * only that (auth.h).
 */
static int
seal(struct intake *in, struct intake_out *o, uint8_t *buf, size_t cap)
{
	struct auth_key	 rk = { 0 };
	int		 n;

	if (o->read == 0)
		return proto_seal(&in->key, &in->seq, now_mono_us(), &o->m,
		    buf, cap);
	if (o->read > in->key.npub || (o->m.hdr.type != PROTO_STATUS &&
	    o->m.hdr.type != PROTO_JOB))
		return -1;	/* nothing else answers a read request */
	memcpy(rk.key, in->key.read[o->read - 1], sizeof(rk.key));
	n = proto_seal(&rk, &in->seq, now_mono_us(), &o->m, buf, cap);
	sodium_memzero(&rk, sizeof(rk));
	return n;
}

/* Seal and send what the main thread queued. */
static void
transmit(struct intake *in)
{
	struct intake_out	 o;
	uint8_t			 buf[PROTO_MAX_DGRAM];
	uint32_t		 rej[REJ_COUNT], qfull;

	efd_drain(in->out_efd);
	for (;;) {
		int n;

		pthread_mutex_lock(&in->mu);
		if (in->out_n == 0) {
			pthread_mutex_unlock(&in->mu);
			return;
		}
		o = in->out[in->out_head];
		in->out_head = (in->out_head + 1) % INTAKE_RING;
		in->out_n--;
		memcpy(rej, in->rejected, sizeof(rej));
		qfull = (uint32_t)in->overflow;
		pthread_mutex_unlock(&in->mu);
		stamp(in, &o.m, rej, qfull);
		n = seal(in, &o, buf, sizeof(buf));
		if (n > 0 && sendto(in->fd, buf, (size_t)n, 0,
		    (const struct sockaddr *)&o.to, sizeof(o.to)) == -1)
			log_debug("reply to %s: %s", inet_ntoa(o.to.sin_addr),
			    strerror(errno));
	}
}

static int64_t
thread_cpu_ns(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

/* b plus what earned, less spent, within [-BUDGET_BURST, BUDGET_BURST];
 * *starved as it stands after */
static void
budget_add(int64_t *b, int *starved, int64_t earned, int64_t spent)
{
	*b += earned - spent;
	if (*b > BUDGET_BURST)
		*b = BUDGET_BURST;
	if (*b < -BUDGET_BURST)
		*b = -BUDGET_BURST;
	if (*b <= 0)
		*starved = 1;
	else if (*b >= BUDGET_QUANTUM)
		*starved = 0;
}

/*
 * Count both budgets up to now: what each earned, less what it spent
 * (the master's socket's share of the thread's CPU is in mcpu).
 */
static void
budget_count(struct intake *in)
{
	int64_t	 now = now_mono_ns(), cpu = thread_cpu_ns();
	int64_t	 dt = now - in->budget_at, spent = cpu - in->budget_cpu;

	if (in->mcpu > spent)
		in->mcpu = spent;
	budget_add(&in->budget, &in->starved, dt * BUDGET_PCT / 100,
	    spent - in->mcpu);
	budget_add(&in->mbudget, &in->mstarved, dt * MBUDGET_PCT / 100,
	    in->mcpu);
	in->mcpu = 0;
	in->budget_at = now;
	in->budget_cpu = cpu;
}

/* Milliseconds until a starved budget b has earned BUDGET_QUANTUM. */
static int
until_quantum(int64_t b, int pct)
{
	return (int)((BUDGET_QUANTUM - b) * 100 / pct / NS_PER_MS) + 1;
}

/*
 * Both within their budgets: -1 (wait for anything).  Else the
 * milliseconds until the first starved one has earned BUDGET_QUANTUM
 * back; meanwhile its socket is not read.
 */
static int
budget_wait(struct intake *in)
{
	int	 w = -1, m;

	budget_count(in);
	if (in->starved)
		w = until_quantum(in->budget, BUDGET_PCT);
	if (in->mstarved) {
		m = until_quantum(in->mbudget, MBUDGET_PCT);
		if (w < 0 || m < w)
			w = m;
	}
	return w;
}

/*
 * Read the shared socket until it is empty or the budget is spent: one
 * poll() and one wake-up for many batches.
 */
static void
drain(struct intake *in)
{
	int64_t	 now;
	int	 n, total = 0;

	while ((n = receive(in, in->fd)) > 0) {
		total += n;
		if (n < BATCH)
			break;
		budget_count(in);
		if (in->starved)
			break;
	}
	now = now_mono_ns();
	if (total >= DRAIN_BACKLOG)
		in->flood_until = now + FLOOD_HOLD;
	if (now < in->flood_until)
		in->gap_until = now + DRAIN_GAP;
}

/*
 * The master's socket until it is empty or its budget is spent, the CPU
 * it takes counted to that budget; spaced as drain() spaces the shared
 * socket's under a flood (a forged one: the master sends a few a second).
 */
static void
drain_master(struct intake *in)
{
	int64_t	 c0 = thread_cpu_ns(), now;
	int	 n, total = 0;

	while ((n = receive(in, in->mfd)) > 0) {
		total += n;
		if (n < BATCH)
			break;
		in->mcpu += thread_cpu_ns() - c0;
		budget_count(in);
		c0 = thread_cpu_ns();
		if (in->mstarved)
			break;
	}
	in->mcpu += thread_cpu_ns() - c0;
	now = now_mono_ns();
	if (total >= DRAIN_BACKLOG)
		in->mflood_until = now + FLOOD_HOLD;
	if (now < in->mflood_until)
		in->mgap_until = now + DRAIN_GAP;
}

/*
 * The master's own socket: bound to the control port too (SO_REUSEPORT;
 * only root's sockets can join) and connected to the master's address
 * and port, so that the kernel puts the master's unicast datagrams there
 * and nowhere else (a connected socket wins the lookup; a broadcast goes
 * to the general socket only).  A flood from other sources fills the
 * general socket, whose reading the CPU budget limits; the master's
 * commands are read whatever that budget says.  Only a flood that forges
 * the master's address and port reaches this socket, and the master's
 * token bucket limits what that costs.
 *
 * intake_open binds it, as root, before dts drops its capabilities (the
 * default port is privileged: dts(8) SECURITY); it is parked (park())
 * until there is a master, and a new master only connects it again.
 */
static void
master_socket(struct intake *in)
{
	struct sockaddr_in	 want;
	unsigned		 gen;

	pthread_mutex_lock(&in->mu);
	gen = in->mgen;
	want = in->mwant;
	pthread_mutex_unlock(&in->mu);
	if (gen == in->mgen_have)
		return;
	in->master = want;
	in->mpinned = 0;	/* its sender: from its first datagram */
	in->mlive = reconnect(in->mfd, &want) == 0;
	if (!in->mlive) {
		log_warn("socket of the master %s:%d (its commands share the "
		    "socket of everyone else)", inet_ntoa(want.sin_addr),
		    ntohs(want.sin_port));
		(void)park(in);
	}
	__atomic_store_n(&in->mgen_have, gen, __ATOMIC_RELEASE);
}

/* A poll() timeout: wait (-1: none), or dt ns if that is sooner. */
static int
sooner(int wait, int64_t dt)
{
	int	 g = (int)((dt + NS_PER_MS - 1) / NS_PER_MS);

	return wait < 0 || g < wait ? g : wait;
}

static void *
run(void *arg)
{
	struct intake	*in = arg;
	struct pollfd	 pf[3] = {
		{ .fd = in->fd, .events = POLLIN },
		{ .fd = in->out_efd, .events = POLLIN },
		{ .fd = -1, .events = POLLIN },
	};
	int wait, gap, mgap;

	(void)pthread_setname_np(pthread_self(), "dts-intake");
	in->budget = in->mbudget = BUDGET_BURST;
	in->budget_at = now_mono_ns();
	in->budget_cpu = thread_cpu_ns();
	while (!__atomic_load_n(&in->stop, __ATOMIC_RELAXED)) {
		master_socket(in);
		wait = budget_wait(in);
		gap = !in->starved && in->gap_until > in->budget_at;
		mgap = in->mlive && !in->mstarved &&
		    in->mgap_until > in->budget_at;
		if (gap)
			wait = sooner(wait, in->gap_until - in->budget_at);
		if (mgap)
			wait = sooner(wait, in->mgap_until - in->budget_at);
		pf[0].events = !in->starved && !gap ? POLLIN : 0;
		pf[0].revents = pf[2].revents = 0;
		pf[2].fd = in->mlive && !in->mstarved && !mgap ? in->mfd : -1;
		if (poll(pf, 3, wait) == -1) {
			if (errno != EINTR)
				log_warn("intake poll");
			continue;
		}
		if (pf[2].revents & POLLERR) {
			/* an ICMP error for a reply to the master's address
			 * (it exited): clear it, or poll never waits again */
			int e;
			socklen_t el = sizeof(e);

			(void)getsockopt(in->mfd, SOL_SOCKET, SO_ERROR, &e,
			    &el);
		}
		if (pf[2].revents & POLLIN)
			drain_master(in);
		if (pf[1].revents)
			transmit(in);
		if (pf[0].revents & POLLIN)
			drain(in);
	}
	return NULL;
}

int
intake_start(struct intake *in, int prio)
{
	if (priv_rt_thread(&in->thread, prio, run, in) == -1)
		return -1;
	in->running = 1;
	return 0;
}

int
intake_next(struct intake *in, struct intake_cmd *c)
{
	int	 got = 0;

	pthread_mutex_lock(&in->mu);
	if (in->cmd_n > 0) {
		*c = in->cmd[in->cmd_head];
		in->cmd_head = (in->cmd_head + 1) % INTAKE_RING;
		in->cmd_n--;
		got = 1;
	}
	if (in->cmd_n == 0)
		efd_drain(in->cmd_efd);
	pthread_mutex_unlock(&in->mu);
	return got;
}

static int
send_as(struct intake *in, const struct proto_msg *m,
    const struct sockaddr_in *to, int read)
{
	pthread_mutex_lock(&in->mu);
	if (in->out_n == INTAKE_RING) {
		in->overflow++;
		pthread_mutex_unlock(&in->mu);
		return -1;
	}
	in->out[(in->out_head + in->out_n) % INTAKE_RING] =
	    (struct intake_out){ .m = *m, .to = *to, .read = read };
	in->out_n++;
	pthread_mutex_unlock(&in->mu);
	efd_post(in->out_efd);
	return 0;
}

int
intake_send(struct intake *in, const struct proto_msg *m,
    const struct sockaddr_in *to)
{
	return send_as(in, m, to, 0);
}

int
intake_reply(struct intake *in, const struct proto_msg *m,
    const struct intake_cmd *c)
{
	return send_as(in, m, &c->from, c->read);
}

void
intake_exempt(struct intake *in, const struct sockaddr_in *master)
{
	pthread_mutex_lock(&in->mu);
	in->mwant = *master;
	in->mgen++;
	pthread_mutex_unlock(&in->mu);
	efd_post(in->out_efd);	/* the thread opens the master's socket */
}

void
intake_reject(struct intake *in, enum proto_reject why)
{
	pthread_mutex_lock(&in->mu);
	in->rejected[why]++;
	pthread_mutex_unlock(&in->mu);
}

void
intake_close(struct intake *in)
{
	if (in->running) {
		__atomic_store_n(&in->stop, 1, __ATOMIC_RELAXED);
		efd_post(in->out_efd);
		pthread_join(in->thread, NULL);
		in->running = 0;
		pthread_mutex_destroy(&in->mu);
	}
	if (in->fd >= 0)
		close(in->fd);
	if (in->mfd >= 0)
		close(in->mfd);
	if (in->cmd_efd >= 0)
		close(in->cmd_efd);
	if (in->out_efd >= 0)
		close(in->out_efd);
	in->fd = in->mfd = in->cmd_efd = in->out_efd = -1;
}
