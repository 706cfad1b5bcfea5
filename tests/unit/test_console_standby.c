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

#include <sys/socket.h>
#include <unistd.h>

#include "auth.h"
#include "console_fixture.h"
#include "standby.h"
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

/* The peer (at peer_fd) sends f a SCHEDULE (insecure: untagged). */
static void
peer_sends(struct fixture *f, int peer_fd, struct seqgen *g,
    const struct proto_schedule *p)
{
	struct proto_msg	 m = { .hdr.type = PROTO_SCHEDULE };
	struct auth_key		 k = { .insecure = 1 };
	struct sockaddr_in	 to;
	socklen_t		 l = sizeof(to);
	uint8_t			 buf[PROTO_MAX_DGRAM];
	int			 n;

	m.u.schedule = *p;
	assert_true((n = proto_seal(&k, g, now_mono_us(), &m, buf,
	    sizeof(buf))) > 0);
	assert_int_equal(getsockname(f->c.sb.fd, (struct sockaddr *)&to, &l),
	    0);
	assert_int_equal(sendto(peer_fd, buf, (size_t)n, 0,
	    (struct sockaddr *)&to, sizeof(to)), n);
	usleep(2000);
	standby_input(&f->c, now_mono_ns());
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
	assert_int_equal(standby_take(c, "takeover", now_mono_ns()), -1);
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
	assert_int_equal(master_send(c, now_mono_ns()), 0);
	assert_int_equal(t.n, 0);
	assert_int_equal(c->m.next_si, 0);

	/* silent for 1.5 SI: the takeover, the schedule followed as it is */
	due = standby_due(c->sb.heard, c->sb.peer_si);
	assert_int_equal(due, c->sb.heard + MS(750));
	assert_int_equal(standby_deadline(c) <= due, 1);
	replay_init(&r, now_real_us(), now_mono_us(), 5000000);
	standby_timer(c, due - 1);
	assert_int_equal(c->sb.role, SB_STANDBY);
	standby_timer(c, due);
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
	assert_true(master_send(c, now_mono_ns()) > 0);	/* a master sends */
	assert_int_equal(t.n, 1);
	/* the peer took over: we follow it and send nothing */
	p.flags |= SCHED_F_TAKEOVER;
	peer_sends(f, pfd, &g, &p);
	assert_int_equal(c->sb.role, SB_STANDBY);
	assert_int_equal(c->sb.yields, 1);
	assert_int_equal(master_send(c, now_mono_ns()), 0);
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
		standby_input(c, now_mono_ns());
	}
	assert_int_equal(c->sb.copies, 0);
	assert_int_equal(c->sb.refused, 2);
	assert_int_equal(c->sch.spoken, 0);
	standby_close(&c->sb);
	close(pfd);
	close(ofd);
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
	assert_string_equal(conf_why(""), "ok  7747");
	assert_string_equal(conf_why("console = { peer = \"10.0.0.2\"; };\n"),
	    "ok 10.0.0.2 7747");
	assert_string_equal(conf_why("console = { peer = \"10.0.0.2:9000\"; "
	    "peer_port = 9001; };\n"), "ok 10.0.0.2:9000 9001");
	assert_string_equal(conf_why("console = { peer = \"node2\"; };\n"),
	    "1: console.peer: \"node2\" is not ADDRESS[:PORT] (e.g. 10.0.0.2 "
	    "or 10.0.0.2:7747)");
	assert_string_equal(conf_why("console = { peer = \"10.0.0.2:\"; };\n"),
	    "1: console.peer: \"10.0.0.2:\" is not ADDRESS[:PORT] (e.g. "
	    "10.0.0.2 or 10.0.0.2:7747)");
	assert_string_equal(conf_why("console = { peer = \"10.0.0.2:70000\"; "
	    "};\n"), "1: console.peer: \"10.0.0.2:70000\" is not ADDRESS[:PORT] "
	    "(e.g. 10.0.0.2 or 10.0.0.2:7747)");
	assert_string_equal(conf_why("console = { peer_port = 0; };\n"),
	    "1: console.peer_port: 0 is out of range [1, 65535]");
}

/* --standby without a peer, a peer without keys: one line, no start. */
static void
test_init(void **state)
{
	struct fixture	*f = *state;
	char		 err[256];

	assert_int_equal(standby_init(&f->c, 1, err, sizeof(err)), -1);
	assert_string_equal(err, "--standby: no console.peer (the master "
	    "console's address) in the configuration");
	assert_int_equal(standby_init(&f->c, 0, err, sizeof(err)), 0);
	assert_int_equal(f->c.sb.role, SB_NONE);
	assert_int_equal(f->c.sb.fd, -1);
	snprintf(f->c.conf.console.peer, sizeof(f->c.conf.console.peer),
	    "127.0.0.1:1");
	f->c.net.keyless = 1;
	snprintf(f->c.net.keyless_why, sizeof(f->c.net.keyless_why), "none");
	assert_int_equal(standby_init(&f->c, 1, err, sizeof(err)), -1);
	assert_string_equal(err, "console.peer: a master and standby pair "
	    "needs the console key pair (none)");
	f->c.net.keyless = 0;
	f->c.conf.console.peer_port = 1;	/* privileged, or taken: */
	if (geteuid() != 0) {
		assert_int_equal(standby_init(&f->c, 1, err, sizeof(err)), -1);
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
		cmocka_unit_test_setup_teardown(test_master_yields,
		    fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_refused,
		    fixture_setup, fixture_teardown),
		cmocka_unit_test(test_conf),
		cmocka_unit_test_setup_teardown(test_init,
		    fixture_setup, fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
