/*
 * master.c - SI broadcasts, BALANCED, status rounds.  See master.h.
 */
#include <arpa/inet.h>
#include <string.h>

#include "console.h"
#include "log.h"
#include "report.h"
#include "timeutil.h"

void
master_init(struct console *c)
{
	memset(&c->m, 0, sizeof(c->m));
}

int
master_send(struct console *c, int64_t now)
{
	return master_send_flags(c, 0, now);
}

int
master_send_flags(struct console *c, int flags, int64_t now)
{
	struct proto_msg	 m = { .hdr.type = PROTO_SCHEDULE };
	int			 n;

	sch_message(&c->sch, SCHED_F_SYNC, &m.u.schedule);
	m.u.schedule.flags |= (uint8_t)(flags & SCHED_F_TAKEOVER);
	/* on a grid: a late wake-up does not delay every later SI (with
	 * arrival sync each delay would move every node's slices) */
	if (c->m.next_si != 0 && now >= c->m.next_si &&
	    now - c->m.next_si < c->sch.si)
		c->m.next_si += c->sch.si;
	else
		c->m.next_si = now + c->sch.si;
	if ((n = net_send(&c->net, &m)) < 0)
		return con_err(c, "no destination to send the schedule to "
		    "(see console.nodes, console.unicast)");
	return n;
}

void
master_changed(struct console *c, int rebase, int64_t now)
{
	if (rebase)
		sch_rebase(&c->sch, now_real_ns());
	if (c->sch.spoken && master_send(c, now) < 0)
		con_notice(c, "%s", c->err);
}

int
master_status(struct console *c, int load, int verbose, int64_t now)
{
	struct proto_msg	 m = { .hdr.type = PROTO_STATUS_REQ };

	if (net_send(&c->net, &m) < 0)
		return con_err(c, "%s: no destination to ask (see "
		    "console.nodes, console.unicast)", load ? "load" : "status");
	c->m.status_load = load;
	c->m.status_since = now;
	c->m.status_until = now + c->conf.console.status_wait_ns;
	c->m.status_verbose = verbose;
	return 0;
}

int
master_busy(const struct console *c)
{
	return c->m.status_until != 0 || c->m.trace.state != TRACE_IDLE;
}

/*
 * A node that followed this console now names another master: some
 * console took it over.  Say so once (the node refuses our schedules from
 * now on; `takeover` takes it back).
 */
static void
master_lost(struct console *c, struct in_addr from,
    const struct proto_status *st)
{
	struct node	*n = nodes_get(&c->nodes, from);
	struct in_addr	 m = { .s_addr = htonl(st->master) };
	char		 a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN];

	if (n == NULL || !n->have_status || !(n->st.flags & STATUS_F_YOURS) ||
	    (st->flags & STATUS_F_YOURS) || st->master == 0)
		return;
	inet_ntop(AF_INET, &from, a, sizeof(a));
	inet_ntop(AF_INET, &m, b, sizeof(b));
	con_notice(c, "node %s (%s) now follows the console at %s: this "
	    "console no longer commands it (takeover takes it back)",
	    n->name[0] != '\0' ? n->name : a, a, b);
}

void
master_datagram(struct console *c, const struct proto_msg *m,
    struct in_addr from, int64_t now)
{
	switch (m->hdr.type) {
	case PROTO_STATUS:
		master_lost(c, from, &m->u.status);
		nodes_status(&c->nodes, from, &m->u.status, now);
		break;
	case PROTO_LOAD:
		nodes_load(&c->nodes, from, &m->u.load, now);
		break;
	case PROTO_TRACE:
		trace_datagram(c, &m->u.trace, from, now);
		return;
	default:
		return;
	}
	if (c->sch.mode == MODE_BALANCED)
		master_balance(c, now);
}

void
master_input(struct console *c, int64_t now)
{
	struct proto_msg	 m;
	struct sockaddr_in	 from;
	int			 i, rc;

	for (i = 0; i < 256; i++) {
		rc = net_recv(&c->net, &m, &from);
		if (c->net.stepped_us != 0) {
			con_notice(c, "the real-time clock was stepped by "
			    "%+.3f s: nodes already heard are not affected",
			    (double)c->net.stepped_us / 1e6);
			c->net.stepped_us = 0;
		}
		if (rc == 0)
			return;
		if (rc == 1)
			master_datagram(c, &m, from.sin_addr, now);
	}
}

void
master_balance(struct console *c, int64_t now)
{
	char	 err[512], rla[32], ps[32];
	double	 x;
	int	 old = c->sch.bal_ls_pct;

	bal_rla(&c->nodes, &c->weights, &c->hosts, now,
	    con_node_timeout(c), &c->m.rla);
	c->m.expiry = nodes_next_expiry(&c->nodes, now, con_node_timeout(c));
	if (c->sch.mode != MODE_BALANCED || c->m.rla.nlive == 0)
		return;
	x = c->conf.console.rla == RLA_MAX ? c->m.rla.max : c->m.rla.mean;
	if (!bal_step(&c->bal, x, &c->sch.table, c->conf.console.hysteresis))
		return;
	if (sch_set_balanced_ls(&c->sch, c->bal.ls_pct, err,
	    sizeof(err)) == -1) {
		con_notice(c, "%s", err);	/* cannot happen: mode checked */
		return;
	}
	if (old == c->sch.bal_ls_pct)
		return;
	snprintf(rla, sizeof(rla), "%.2f", x);
	con_notice(c, "balanced: RLA %s over %d node%s: LS %d%%, PS %s", rla,
	    c->m.rla.nlive, c->m.rla.nlive == 1 ? "" : "s",
	    c->sch.bal_ls_pct, duration_format(sch_ps(&c->sch), ps,
	    sizeof(ps)));
	master_changed(c, 1, now);
}

void
master_mode_changed(struct console *c, int64_t now)
{
	bal_reset(&c->bal);
	if (c->sch.mode == MODE_BALANCED)
		master_balance(c, now);
}

void
master_timer(struct console *c, int64_t now)
{
	if (c->m.status_until != 0 && now >= c->m.status_until) {
		c->m.status_until = 0;
		if (c->m.status_load) {
			report_load(c, now);
			c->m.async_rc = 0;
		} else
			c->m.async_rc = report_status(c, c->m.status_since,
			    c->m.status_verbose, now);
		c->m.async_done = 1;
	}
	if (c->sch.spoken && c->m.next_si != 0 && now >= c->m.next_si &&
	    master_send(c, now) < 0)
		log_warnx("%s", c->err);
	if (c->m.expiry != 0 && now >= c->m.expiry)
		master_balance(c, now);
	trace_timer(c, now);
}

static int64_t
earliest(int64_t a, int64_t b)
{
	if (a == 0)
		return b;
	if (b == 0)
		return a;
	return a < b ? a : b;
}

int64_t
master_deadline(const struct console *c)
{
	int64_t	 t = 0;

	if (c->sch.spoken)
		t = earliest(t, c->m.next_si);
	t = earliest(t, c->m.status_until);
	t = earliest(t, trace_deadline(c));
	return earliest(t, c->m.expiry);
}
