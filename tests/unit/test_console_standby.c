/*
 * test_console_standby.c - a master and standby pair of consoles
 * (standby.h): when a standby takes over, when a master yields, what a
 * standby sends (nothing) and what it takes over with (the schedule it
 * followed, with TAKEOVER), the copies between the two over loopback,
 * and console.peer's checks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <sodium.h>

#include <sys/socket.h>
#include <unistd.h>

#include "auth.h"
#include "cmds.h"
#include "console_fixture.h"
#include "standby.h"
#include "unit_util.h"
#include "wire.h"

/* ---- the decisions --------------------------------------------------- */

static void
test_due(void **state)
{
	(void)state;
	assert_int_equal(standby_due(0, SEC), 0);	/* never heard */
	assert_int_equal(standby_due(5 * SEC, 0), 0);
	assert_int_equal(standby_due(5 * SEC, SEC), 5 * SEC + 1500 * NS_PER_MS);
	/* within the nodes' shortest silence (2 SI), with half an SI to spare */
	assert_true(standby_due(1, MS(500)) - 1 < 2 * MS(500));
}

static void
test_yields(void **state)
{
	(void)state;
	/* a plain SCHEDULE from the peer: yield only if no node follows us */
	assert_int_equal(standby_yields(0, 0, -1, SEC, 1, 2), 1);
	assert_int_equal(standby_yields(0, 3, -1, SEC, 1, 2), 0);
	assert_int_equal(standby_yields(0, 3, 10, SEC, 2, 1), 0);
	/* the peer took over: yield, whatever the nodes said */
	assert_int_equal(standby_yields(1, 3, -1, SEC, 1, 2), 1);
	assert_int_equal(standby_yields(1, 3, 2 * SEC, SEC, 9, 2), 1);
	/* two takeovers within an SI: the higher sender id keeps the nodes,
	 * and both sides agree */
	assert_int_equal(standby_yields(1, 3, MS(100), SEC, 1, 2), 1);
	assert_int_equal(standby_yields(1, 3, MS(100), SEC, 2, 1), 0);
}

/* ---- a console that follows ------------------------------------------ */

struct taps {
	int			 n;
	struct proto_msg	 last;
};

static void
tap(void *arg, struct in_addr to, const struct proto_msg *m)
{
	struct taps	*t = arg;

	(void)to;
	if (m->hdr.type == PROTO_SCHEDULE) {
		t->n++;
		t->last = *m;
	}
}

/* A loopback UDP socket; its address in *a. */
static int
udp(struct sockaddr_in *a)
{
	socklen_t	 l = sizeof(*a);
	int		 fd;

	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_addr = ip4("127.0.0.1");
	assert_true((fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0)) >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)a, sizeof(*a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)a, &l), 0);
	return fd;
}

/* f's console a member of a pair on loopback: its socket, the peer's
 * (*peer_fd, at *peer). */
static void
pair(struct fixture *f, int role, int *peer_fd, struct sockaddr_in *peer)
{
	struct standby	*sb = &f->c.sb;
	struct sockaddr_in a;

	sb->role = role;
	sb->fd = udp(&a);
	sb->key.insecure = 1;
	replay_init(&sb->replay, now_real_us(), now_mono_us(), 5000000);
	*peer_fd = udp(peer);
	sb->peer = *peer;
}

/* The datagram buf[0..n) from peer_fd to f's peer socket, and f reads. */
static void
deliver(struct fixture *f, int peer_fd, const uint8_t *buf, int n)
{
	struct sockaddr_in	 to;
	socklen_t		 l = sizeof(to);

	assert_int_equal(getsockname(f->c.sb.fd, (struct sockaddr *)&to, &l),
	    0);
	assert_int_equal(sendto(peer_fd, buf, (size_t)n, 0,
	    (struct sockaddr *)&to, sizeof(to)), n);
	usleep(2000);
	standby_input(&f->c.sb, now_mono_ns());
}

/* The peer (at peer_fd) sends f a SCHEDULE (insecure: untagged). */
static void
peer_sends(struct fixture *f, int peer_fd, struct seqgen *g,
    const struct proto_schedule *p)
{
	struct proto_msg	 m = { .hdr.type = PROTO_SCHEDULE };
	struct auth_key		 k = { .insecure = 1 };
	uint8_t			 buf[PROTO_MAX_DGRAM];

	m.u.schedule = *p;
	deliver(f, peer_fd, buf, tu_seal(&k, g, &m, buf));
}

static const struct proto_schedule static80 = {
	.mode = MODE_STATIC, .sync = SYNC_CLOCK,
	.flags = SCHED_F_ACTIVE | SCHED_F_SYNC,
	.ps_us = 80000, .ip_us = 100000, .si_us = 500000,
	.origin_ns = 1234567890123456789ull
};

static void
test_follow_and_take(void **state)
{
	struct fixture		*f = *state;
	struct console		*c = &f->c;
	struct taps		 t = { 0 };
	struct sockaddr_in	 peer;
	struct seqgen		 g;
	struct replay		 r;	/* the peer's, for our copy */
	int			 pfd, n;
	int64_t			 due;

	c->net.tap = tap;
	c->net.tap_arg = &t;
	pair(f, SB_STANDBY, &pfd, &peer);
	seqgen_init(&g);
	/* nothing heard: a takeover has no schedule to take over with */
	assert_int_equal(standby_take(&c->sb, "takeover", now_mono_ns()), -1);
	assert_contains(c->out.err, "nothing heard from the master");
	assert_int_equal(c->sb.role, SB_STANDBY);

	peer_sends(f, pfd, &g, &static80);
	assert_int_equal(c->sb.copies, 1);
	assert_int_equal(c->sch.mode, MODE_STATIC);
	assert_int_equal(sch_ps(&c->sch), MS(80));
	assert_int_equal(c->sch.ip, MS(100));
	assert_int_equal(c->sch.si, MS(500));
	assert_true(c->sch.started && c->sch.spoken);

	/* a standby sends no schedule, whatever its commands do */
	assert_int_equal(master_send(&c->e, now_mono_ns()), 0);
	assert_int_equal(t.n, 0);
	assert_int_equal(c->m.next_si, 0);

	/* silent for 1.5 SI: the takeover, the schedule followed as it is */
	due = standby_due(c->sb.heard, c->sb.peer_si);
	assert_int_equal(due, c->sb.heard + MS(750));
	assert_int_equal(standby_deadline(&c->sb) <= due, 1);
	replay_init(&r, now_real_us(), now_mono_us(), 5000000);
	standby_timer(&c->sb, due - 1);
	assert_int_equal(c->sb.role, SB_STANDBY);
	standby_timer(&c->sb, due);
	assert_int_equal(c->sb.role, SB_MASTER);
	assert_int_equal(c->sb.takeovers, 1);
	assert_int_equal(t.n, 1);
	assert_true(t.last.u.schedule.flags & SCHED_F_TAKEOVER);
	assert_true(t.last.u.schedule.flags & SCHED_F_ACTIVE);
	assert_int_equal(t.last.u.schedule.mode, MODE_STATIC);
	assert_int_equal(t.last.u.schedule.sync, SYNC_CLOCK);
	assert_int_equal(t.last.u.schedule.ps_us, 80000);
	assert_int_equal(t.last.u.schedule.ip_us, 100000);
	assert_int_equal(t.last.u.schedule.si_us, 500000);
	assert_true(t.last.u.schedule.origin_ns == static80.origin_ns);
	/* from now on the SI broadcasts are ours */
	assert_int_equal(c->m.next_si, due + MS(500));

	/* the copy went to the peer, with TAKEOVER */
	{
		uint8_t			 buf[PROTO_MAX_DGRAM];
		struct proto_msg	 m;
		enum proto_reject	 why;
		struct auth_key		 k = { .insecure = 1 };

		usleep(2000);
		n = (int)recv(pfd, buf, sizeof(buf), 0);
		assert_true(n > 0);
		(void)replay_clock(&r, now_real_us(), now_mono_us());
		assert_int_equal(proto_open(&k, &r,
		    PROTO_TYPE_BIT(PROTO_SCHEDULE), buf, (size_t)n, &m, &why),
		    0);
		assert_true(m.u.schedule.flags & SCHED_F_TAKEOVER);
		assert_int_equal(m.u.schedule.ps_us, 80000);
	}
	standby_close(&c->sb);
	close(pfd);
}

/*
 * A flood that forges the peer's address and port fills the standby's
 * socket, and the kernel drops what does not fit, the peer's copies among
 * them: while the kernel drops (SO_RXQ_OVFL), silence is no takeover
 * (t112 part 4); once nothing is dropped any more, it is.
 */
static void
test_no_takeover_while_dropped(void **state)
{
	struct fixture		*f = *state;
	struct console		*c = &f->c;
	struct sockaddr_in	 peer, to;
	struct seqgen		 g;
	uint8_t			 junk[512] = { 0 };
	socklen_t		 l = sizeof(to);
	int			 pfd, i, one = 1, small = 4096;
	int64_t			 due;

	pair(f, SB_STANDBY, &pfd, &peer);
	assert_int_equal(setsockopt(c->sb.fd, SOL_SOCKET, SO_RXQ_OVFL, &one,
	    sizeof(one)), 0);
	assert_int_equal(setsockopt(c->sb.fd, SOL_SOCKET, SO_RCVBUF, &small,
	    sizeof(small)), 0);
	seqgen_init(&g);
	peer_sends(f, pfd, &g, &static80);
	assert_int_equal(c->sb.copies, 1);
	assert_int_equal(c->sb.drops, c->sb.drops_at);
	/* more than the socket holds, from the peer's own address */
	assert_int_equal(getsockname(c->sb.fd, (struct sockaddr *)&to, &l), 0);
	for (i = 0; i < 400; i++)
		(void)sendto(pfd, junk, sizeof(junk), 0,
		    (struct sockaddr *)&to, sizeof(to));
	usleep(2000);
	/* the kernel tells the count with the datagrams queued after the
	 * drops: the queue read, one more */
	standby_input(&c->sb, now_mono_ns());
	(void)sendto(pfd, junk, sizeof(junk), 0, (struct sockaddr *)&to,
	    sizeof(to));
	usleep(2000);
	due = standby_due(c->sb.heard, c->sb.peer_si);
	standby_timer(&c->sb, due);
	assert_true(c->sb.drops != 0);
	assert_int_equal(c->sb.role, SB_STANDBY);
	assert_int_equal(c->sb.takeovers, 0);
	assert_int_equal(c->sb.postponed, 1);
	assert_int_equal(c->sb.heard, due);	/* silence counted anew */
	/* the flood read away, nothing dropped since: the next silence of
	 * 1.5 SI is a takeover */
	for (i = 0; i < 20; i++)
		standby_input(&c->sb, due);
	due = standby_due(c->sb.heard, c->sb.peer_si);
	standby_timer(&c->sb, due);
	assert_int_equal(c->sb.role, SB_MASTER);
	assert_int_equal(c->sb.takeovers, 1);
	assert_int_equal(c->sb.postponed, 1);
	standby_close(&c->sb);
	close(pfd);
}

/*
 * The standby polls the nodes at the peer's SI, not at its own: a poll
 * timed before the first copy (by the console's own SI, 10 s here) is
 * brought forward to an SI after the copy, so that the jobs it takes
 * over with are at most an SI old (bench-master row 6: nodes not live
 * at the takeover lost their jobs' slots).
 */
static void
test_polls_at_peer_si(void **state)
{
	struct fixture		*f = *state;
	struct console		*c = &f->c;
	struct sockaddr_in	 peer;
	struct seqgen		 g;
	int			 pfd;
	int64_t			 now = now_mono_ns();

	pair(f, SB_STANDBY, &pfd, &peer);
	seqgen_init(&g);
	c->sch.si = MS(10000);
	standby_timer(&c->sb, now);		/* the first poll, nothing heard */
	assert_true(c->sb.next_poll >= now + MS(10000));
	peer_sends(f, pfd, &g, &static80);
	assert_true(c->sb.next_poll <= c->sb.heard + MS(500));
	assert_true(standby_deadline(&c->sb) <= c->sb.heard + MS(500));
	/* a later copy does not push the poll back */
	standby_timer(&c->sb, c->sb.next_poll);
	assert_true(c->sb.next_poll >= c->sb.heard + MS(500));
	standby_close(&c->sb);
	close(pfd);
}

static void
test_master_yields(void **state)
{
	struct fixture		*f = *state;
	struct console		*c = &f->c;
	struct taps		 t = { 0 };
	struct sockaddr_in	 peer;
	struct proto_schedule	 p = static80;
	struct seqgen		 g;
	int			 pfd;

	c->net.tap = tap;
	c->net.tap_arg = &t;
	pair(f, SB_MASTER, &pfd, &peer);
	seqgen_init(&g);
	/* a master sends */
	assert_true(master_send(&c->e, now_mono_ns()) > 0);
	assert_int_equal(t.n, 1);
	/* the peer took over: we follow it and send nothing */
	p.flags |= SCHED_F_TAKEOVER;
	peer_sends(f, pfd, &g, &p);
	assert_int_equal(c->sb.role, SB_STANDBY);
	assert_int_equal(c->sb.yields, 1);
	assert_int_equal(master_send(&c->e, now_mono_ns()), 0);
	assert_int_equal(t.n, 1);
	assert_int_equal(sch_ps(&c->sch), MS(80));
	standby_close(&c->sb);
	close(pfd);
}

static void
test_refused(void **state)
{
	struct fixture		*f = *state;
	struct console		*c = &f->c;
	struct sockaddr_in	 peer, other;
	struct seqgen		 g;
	uint8_t			 junk[40] = { 0 };
	int			 pfd, ofd;

	pair(f, SB_STANDBY, &pfd, &peer);
	seqgen_init(&g);
	/* not from the peer's address: refused */
	ofd = udp(&other);
	c->sb.peer.sin_addr = ip4("127.0.0.2");
	peer_sends(f, ofd, &g, &static80);
	assert_int_equal(c->sb.copies, 0);
	assert_int_equal(c->sb.refused, 1);
	c->sb.peer = peer;
	/* garbage from the peer: refused, nothing followed */
	{
		struct sockaddr_in	 to;
		socklen_t		 l = sizeof(to);

		assert_int_equal(getsockname(c->sb.fd, (struct sockaddr *)&to,
		    &l), 0);
		assert_int_equal(sendto(pfd, junk, sizeof(junk), 0,
		    (struct sockaddr *)&to, sizeof(to)), (ssize_t)sizeof(junk));
		usleep(2000);
		standby_input(&c->sb, now_mono_ns());
	}
	assert_int_equal(c->sb.copies, 0);
	assert_int_equal(c->sb.refused, 2);
	assert_int_equal(c->sch.spoken, 0);
	standby_close(&c->sb);
	close(pfd);
	close(ofd);
}

/* ---- the master's weights -------------------------------------------- */

/* Two fixtures' consoles, a master and a standby, peers on loopback. */
static void
couple(struct fixture *m, struct fixture *s)
{
	struct sockaddr_in	 am, as;

	m->c.sb.fd = udp(&am);
	s->c.sb.fd = udp(&as);
	m->c.sb.peer = as;
	s->c.sb.peer = am;
	m->c.sb.role = SB_MASTER;
	s->c.sb.role = SB_STANDBY;
	m->c.sb.key.insecure = s->c.sb.key.insecure = 1;
	/* started a second ago: the first stamps are newer than that */
	replay_init(&m->c.sb.replay, now_real_us() - 1000000, now_mono_us() -
	    1000000, 5000000);
	s->c.sb.replay = m->c.sb.replay;
}

/* cmds_exec() at f's console must succeed, and its peer g reads. */
static void
run(struct fixture *f, const char *line, struct fixture *g)
{
	if (cmds_exec(&f->c, line) != 0)
		fail_msg("%s: %s", line, f->c.out.err);
	usleep(2000);
	standby_input(&g->c.sb, now_mono_ns());
}

static void
test_weights_copied(void **state)
{
	struct fixture	*f = *state, *s = fixture_new();
	struct console	*m = &f->c, *sc = &s->c;
	uint64_t	 copies;

	couple(f, s);
	run(f, "set weight node1 2.5", s);
	run(f, "set weight alice:vm1 7", s);
	assert_int_equal(sc->weights.n, 1);
	assert_string_equal(sc->weights.v[0].host, "node1");
	assert_true(sc->weights.v[0].w == 2.5);
	assert_int_equal(sc->jobw.n, 1);
	assert_int_equal(jobw_get(&sc->jobw, "alice:vm1"), 7);
	/* a weight of no round millionth: the master keeps it rounded, and
	 * the standby has the very same double */
	run(f, "set weight 10.0.0.3 0.33333333", s);
	assert_true(m->weights.v[1].w == 0.333333);
	assert_int_equal(sc->weights.n, 2);
	assert_memory_equal(&sc->weights, &m->weights, sizeof(m->weights));
	/* cleared on the master, cleared on the standby */
	run(f, "set weight node1 auto", s);
	assert_int_equal(sc->weights.n, 1);
	assert_string_equal(sc->weights.v[0].host, "10.0.0.3");
	assert_int_equal(jobw_get(&sc->jobw, "alice:vm1"), 7);
	run(f, "set weight alice:vm1 1", s);	/* the operator's 1: kept */
	assert_int_equal(sc->jobw.n, 1);
	assert_int_equal(jobw_get(&sc->jobw, "alice:vm1"), 1);
	run(f, "set weight alice:vm1 auto", s);
	assert_int_equal(sc->jobw.n, 0);
	assert_int_equal(sc->weights.n, 1);
	run(f, "set weight 10.0.0.3 auto", s);
	assert_int_equal(sc->weights.n, 0);	/* count 0: both empty */
	run(f, "set weight bob:pvm 3", s);
	assert_int_equal(jobw_get(&sc->jobw, "bob:pvm"), 3);

	/* a standby refuses set weight: its master's would replace it */
	assert_int_equal(cmds_exec(sc, "set weight node1 3"), -1);
	assert_string_equal(sc->out.err, "set weight: this console is "
	    "standby: it takes its master's weights (set them there)");
	assert_int_equal(cmds_exec(sc, "set weight bob:pvm 9"), -1);
	assert_int_equal(sc->weights.n, 0);
	assert_int_equal(jobw_get(&sc->jobw, "bob:pvm"), 3);

	/* a standby started later: the snapshot goes with the SI's copy,
	 * not with every copy */
	memset(&sc->sb.w, 0, sizeof(sc->sb.w));
	memset(&sc->jobw, 0, sizeof(sc->jobw));
	copies = sc->sb.copies;
	assert_true(master_send(&m->e, now_mono_ns()) > 0);
	usleep(2000);
	standby_input(&sc->sb, now_mono_ns());
	assert_int_equal(sc->sb.copies, copies + 1);
	assert_int_equal(sc->jobw.n, 0);	/* half an SI not over */
	m->sb.w.next = now_mono_ns();		/* now it is */
	assert_true(master_send(&m->e, now_mono_ns()) > 0);
	usleep(2000);
	standby_input(&sc->sb, now_mono_ns());
	assert_int_equal(sc->sb.copies, copies + 2);
	assert_int_equal(jobw_get(&sc->jobw, "bob:pvm"), 3);

	/* the standby takes over with them; the old master hears the
	 * TAKEOVER, becomes standby and takes the new master's snapshot */
	assert_true(standby_take(&sc->sb, "test", now_mono_ns()) >= 0);
	assert_int_equal(sc->sb.role, SB_MASTER);
	assert_int_equal(jobw_get(&sc->jobw, "bob:pvm"), 3);
	memset(&m->jobw, 0, sizeof(m->jobw));
	usleep(2000);
	standby_input(&m->sb, now_mono_ns());
	assert_int_equal(m->sb.role, SB_STANDBY);
	assert_int_equal(m->sb.w.applied, 1);
	assert_int_equal(jobw_get(&m->jobw, "bob:pvm"), 3);
	/* and the new master's changes from then on */
	run(s, "set weight bob:pvm 4", f);
	assert_int_equal(jobw_get(&m->jobw, "bob:pvm"), 4);
	standby_close(&sc->sb);
	standby_close(&m->sb);
	fixture_free(s);
}

/* Entry index of count, generation gen: a host's or a job's. */
static struct proto_msg
entry(uint32_t gen, int index, int count, int kind, const char *name,
    uint32_t w)
{
	struct proto_msg	 m = { .hdr.type = PROTO_WEIGHT };

	m.u.weight = (struct proto_weight){ .gen = gen,
	    .index = (uint16_t)index, .count = (uint16_t)count,
	    .kind = (uint8_t)kind, .weight = w };
	snprintf(m.u.weight.name, sizeof(m.u.weight.name), "%s", name);
	return m;
}

/* The peer sends f m, insecure. */
static void
peer_weight(struct fixture *f, int pfd, struct seqgen *g, struct proto_msg m)
{
	struct auth_key		 k = { .insecure = 1 };
	uint8_t			 buf[PROTO_MAX_DGRAM];

	deliver(f, pfd, buf, tu_seal(&k, g, &m, buf));
}

#define UNIT PROTO_WEIGHT_UNIT

static void
test_weights_generations(void **state)
{
	struct fixture		*f = *state;
	struct console		*c = &f->c;
	struct sockaddr_in	 peer;
	struct seqgen		 g, other;
	char			 h[16];
	int			 i, pfd;

	pair(f, SB_STANDBY, &pfd, &peer);
	seqgen_init(&g);
	/* an incomplete generation is not applied, a part twice is once */
	peer_weight(f, pfd, &g, entry(5, 1, 2, WEIGHT_KIND_JOB, "a:x",
	    4 * UNIT));
	peer_weight(f, pfd, &g, entry(5, 1, 2, WEIGHT_KIND_JOB, "a:x",
	    4 * UNIT));
	assert_int_equal(c->jobw.n, 0);
	assert_int_equal(c->weights.n, 0);
	assert_int_equal(c->sb.w.applied, 0);
	peer_weight(f, pfd, &g, entry(5, 0, 2, WEIGHT_KIND_HOST, "n1",
	    UNIT / 2));
	assert_int_equal(c->sb.w.applied, 1);
	assert_int_equal(jobw_get(&c->jobw, "a:x"), 4);
	assert_int_equal(c->weights.n, 1);
	assert_true(c->weights.v[0].w == 0.5);
	/* an older generation, even whole, is ignored */
	peer_weight(f, pfd, &g, entry(4, 0, 1, WEIGHT_KIND_HOST, "n2", UNIT));
	assert_int_equal(c->sb.w.applied, 1);
	assert_string_equal(c->weights.v[0].host, "n1");
	/* and the one applied, sent again, changes nothing */
	peer_weight(f, pfd, &g, entry(5, 0, 1, WEIGHT_KIND_HOST, "n2", UNIT));
	assert_int_equal(c->sb.w.applied, 1);
	/* a newer one replaces both tables */
	peer_weight(f, pfd, &g, entry(6, 0, 1, WEIGHT_KIND_HOST, "n3", UNIT));
	assert_int_equal(c->sb.w.applied, 2);
	assert_int_equal(c->jobw.n, 0);
	assert_int_equal(c->weights.n, 1);
	assert_string_equal(c->weights.v[0].host, "n3");
	/* a part of 7, then 8 whole: the rest of 7 comes too late */
	peer_weight(f, pfd, &g, entry(7, 0, 2, WEIGHT_KIND_JOB, "b:y",
	    2 * UNIT));
	peer_weight(f, pfd, &g, entry(8, 0, 1, WEIGHT_KIND_JOB, "c:z",
	    3 * UNIT));
	assert_int_equal(c->sb.w.applied, 3);
	peer_weight(f, pfd, &g, entry(7, 1, 2, WEIGHT_KIND_HOST, "n4", UNIT));
	assert_int_equal(c->sb.w.applied, 3);
	assert_int_equal(c->weights.n, 0);
	assert_int_equal(jobw_get(&c->jobw, "c:z"), 3);
	assert_int_equal(jobw_get(&c->jobw, "b:y"), 1);
	/* count 0: both tables empty */
	peer_weight(f, pfd, &g, entry(9, 0, 0, WEIGHT_KIND_NONE, "", 0));
	assert_int_equal(c->sb.w.applied, 4);
	assert_int_equal(c->jobw.n, 0);
	/* a snapshot that does not fit the tables changes nothing */
	peer_weight(f, pfd, &g, entry(10, 0, 1, WEIGHT_KIND_JOB, "d:w",
	    5 * UNIT));
	for (i = 0; i < WEIGHTS_MAX + 1; i++) {
		snprintf(h, sizeof(h), "h%d", i);
		peer_weight(f, pfd, &g, entry(11, i, WEIGHTS_MAX + 1,
		    WEIGHT_KIND_HOST, h, UNIT));
	}
	assert_int_equal(c->sb.w.applied, 5);
	assert_int_equal(jobw_get(&c->jobw, "d:w"), 5);
	assert_int_equal(c->weights.n, 0);
	/* the peer's next run (another sender id) starts over at 1 */
	seqgen_init(&other);
	peer_weight(f, pfd, &other, entry(1, 0, 1, WEIGHT_KIND_HOST, "n5",
	    2 * UNIT));
	assert_int_equal(c->sb.w.applied, 6);
	assert_string_equal(c->weights.v[0].host, "n5");
	assert_int_equal(c->jobw.n, 0);
	/* a master keeps its own weights */
	c->sb.role = SB_MASTER;
	peer_weight(f, pfd, &other, entry(2, 0, 0, WEIGHT_KIND_NONE, "", 0));
	assert_int_equal(c->weights.n, 1);
	assert_int_equal(c->sb.refused, 0);
	standby_close(&c->sb);
	close(pfd);
}

/* The console key pair made from 32 bytes of seed, and its public key. */
static void
key_pair(uint8_t seed, struct auth_key *k, uint8_t pk[32])
{
	uint8_t	 s[32];

	assert_true(sodium_init() >= 0);
	memset(k, 0, sizeof(*k));
	memset(s, seed, sizeof(s));
	crypto_sign_seed_keypair(pk, k->sk, s);
	k->can_sign = 1;
	k->sign_id = auth_key_id(pk);
}

static void
test_weights_forged(void **state)
{
	struct fixture		*f = *state;
	struct console		*c = &f->c;
	struct sockaddr_in	 peer;
	struct auth_key		 ours, theirs;
	struct proto_msg	 m;
	struct seqgen		 g;
	uint8_t			 pk[32], pk2[32];
	uint8_t			 buf[PROTO_MAX_DGRAM], old[PROTO_MAX_DGRAM];
	int			 pfd, n, k;

	pair(f, SB_STANDBY, &pfd, &peer);
	key_pair(1, &ours, pk);
	key_pair(2, &theirs, pk2);
	memset(&c->sb.key, 0, sizeof(c->sb.key));
	c->sb.key.npub = 1;
	memcpy(c->sb.key.pub[0], pk, sizeof(pk));
	c->sb.key.pub_id[0] = ours.sign_id;
	seqgen_init(&g);
	m = entry(1, 0, 1, WEIGHT_KIND_HOST, "n1", 3 * UNIT);
	k = tu_seal(&ours, &g, &m, old);
	deliver(f, pfd, old, k);
	assert_int_equal(c->sb.refused, 0);
	assert_int_equal(c->weights.n, 1);
	/* signed with another key, even one that names ours: refused */
	m = entry(2, 0, 0, WEIGHT_KIND_NONE, "", 0);
	deliver(f, pfd, buf, tu_seal(&theirs, &g, &m, buf));
	assert_int_equal(c->sb.refused, 1);
	theirs.sign_id = ours.sign_id;
	m = entry(2, 0, 0, WEIGHT_KIND_NONE, "", 0);
	deliver(f, pfd, buf, tu_seal(&theirs, &g, &m, buf));
	assert_int_equal(c->sb.refused, 2);
	assert_int_equal(c->weights.n, 1);
	/* one byte changed after the signature: refused */
	m = entry(2, 0, 1, WEIGHT_KIND_HOST, "n1", 3 * UNIT);
	n = tu_seal(&ours, &g, &m, buf);
	buf[PROTO_HDR_LEN + 12 + 3] ^= 1;	/* the weight */
	deliver(f, pfd, buf, n);
	assert_int_equal(c->sb.refused, 3);
	assert_true(c->weights.v[0].w == 3.0);
	/* the tables cleared, then a replay of the first datagram: the
	 * replay check refuses it (a newer generation would be taken) */
	m = entry(3, 0, 0, WEIGHT_KIND_NONE, "", 0);
	deliver(f, pfd, buf, tu_seal(&ours, &g, &m, buf));
	assert_int_equal(c->sb.refused, 3);
	assert_int_equal(c->weights.n, 0);
	memset(&c->sb.w, 0, sizeof(c->sb.w));	/* forget the generations */
	deliver(f, pfd, old, k);
	assert_int_equal(c->sb.refused, 4);
	assert_int_equal(c->weights.n, 0);
	standby_close(&c->sb);
	close(pfd);
}

/* ---- console.peer ------------------------------------------------------ */

static const char *
conf_why(const char *text)
{
	static char	 err[512];
	char		 path[] = "/tmp/test_console_standby.XXXXXX";
	struct dts_conf	 c;
	FILE		*fp;
	int		 fd, rc;

	assert_true((fd = mkstemp(path)) >= 0);
	assert_non_null(fp = fdopen(fd, "w"));
	fputs(text, fp);
	fclose(fp);
	conf_defaults(&c);
	err[0] = '\0';
	rc = conf_load(&c, path, 0, err, sizeof(err));
	unlink(path);
	if (rc == 0)
		snprintf(err, sizeof(err), "ok %s %d", c.console.peer,
		    c.console.peer_port);
	else if (strncmp(err, path, strlen(path)) == 0)	/* "PATH:LINE: " */
		return err + strlen(path) + 1;
	return err;
}

static void
test_conf(void **state)
{
	(void)state;
	assert_string_equal(conf_why(""), "ok  477");
	assert_string_equal(conf_why("console = { peer = \"10.0.0.2\"; };\n"),
	    "ok 10.0.0.2 477");
	assert_string_equal(conf_why("console = { peer = \"10.0.0.2:9000\"; "
	    "peer_port = 9001; };\n"), "ok 10.0.0.2:9000 9001");
	assert_string_equal(conf_why("console = { peer = \"node2\"; };\n"),
	    "1: console.peer: \"node2\" is not ADDRESS[:PORT] (e.g. 10.0.0.2 "
	    "or 10.0.0.2:477)");
	assert_string_equal(conf_why("console = { peer = \"10.0.0.2:\"; };\n"),
	    "1: console.peer: \"10.0.0.2:\" is not ADDRESS[:PORT] (e.g. "
	    "10.0.0.2 or 10.0.0.2:477)");
	assert_string_equal(conf_why("console = { peer = \"10.0.0.2:70000\"; "
	    "};\n"), "1: console.peer: \"10.0.0.2:70000\" is not ADDRESS[:PORT] "
	    "(e.g. 10.0.0.2 or 10.0.0.2:477)");
	assert_string_equal(conf_why("console = { peer_port = 0; };\n"),
	    "1: console.peer_port: 0 is out of range [1, 65535]");
}

/* --standby without a peer, a peer without keys: one line, no start. */
static void
test_init(void **state)
{
	struct fixture	*f = *state;
	char		 err[256];

	assert_int_equal(standby_init(&f->c.sb, 1, err, sizeof(err)), -1);
	assert_string_equal(err, "--standby: no console.peer (the master "
	    "console's address) in the configuration");
	assert_int_equal(standby_init(&f->c.sb, 0, err, sizeof(err)), 0);
	assert_int_equal(f->c.sb.role, SB_NONE);
	assert_int_equal(f->c.sb.fd, -1);
	snprintf(f->c.conf.console.peer, sizeof(f->c.conf.console.peer),
	    "127.0.0.1:1");
	f->c.net.keyless = 1;
	snprintf(f->c.net.keyless_why, sizeof(f->c.net.keyless_why), "none");
	assert_int_equal(standby_init(&f->c.sb, 1, err, sizeof(err)), -1);
	assert_string_equal(err, "console.peer: a master and standby pair "
	    "needs the console key pair (none)");
	f->c.net.keyless = 0;
	f->c.conf.console.peer_port = 1;	/* privileged, or taken: */
	if (geteuid() != 0) {
		assert_int_equal(standby_init(&f->c.sb, 1, err,
		    sizeof(err)), -1);
		assert_contains(err, "console.peer_port 1: ");
	}
	standby_close(&f->c.sb);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_due),
		cmocka_unit_test(test_yields),
		cmocka_unit_test_setup_teardown(test_follow_and_take,
		    fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_no_takeover_while_dropped,
		    fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_polls_at_peer_si,
		    fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_master_yields,
		    fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_refused,
		    fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_weights_copied,
		    fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_weights_generations,
		    fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_weights_forged,
		    fixture_setup, fixture_teardown),
		cmocka_unit_test(test_conf),
		cmocka_unit_test_setup_teardown(test_init,
		    fixture_setup, fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
