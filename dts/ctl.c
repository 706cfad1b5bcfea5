/*
 * ctl.c - control commands and the dead-man switch.  See ctl.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "ctl.h"
#include "hostfacts.h"
#include "evfd.h"
#include "log.h"
#include "timeutil.h"
#include "trace.h"

int
ctl_open(struct ctl *c, const char *addr, int port, const struct auth_key *key,
    int64_t replay_window, int64_t silence, const struct proto_schedule *own,
    char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	c->started = now_mono_ns();
	c->silence_conf = silence;
	c->own = *own;
	if ((c->deadman_tfd = evfd_timer(CLOCK_MONOTONIC)) == -1) {
		snprintf(err, errlen, "timerfd_create: %s", strerror(errno));
		return -1;
	}
	if (intake_open(&c->in, addr, port, key, replay_window, err,
	    errlen) == -1) {
		close(c->deadman_tfd);
		c->deadman_tfd = -1;
		return -1;
	}
	return 0;
}

int
ctl_join(struct ctl *c, const char *group, char *err, size_t errlen)
{
	return intake_join(&c->in, group, err, errlen);
}

int
ctl_start(struct ctl *c, int prio)
{
	return intake_start(&c->in, prio);
}

int
ctl_cmd_fd(const struct ctl *c)
{
	return c->in.cmd_efd;
}

int
ctl_deadman_fd(const struct ctl *c)
{
	return c->deadman_tfd;
}

/* The master is a console's address and key (from_master). */
static int
is_master(const struct ctl *c, const struct intake_cmd *cmd)
{
	return c->have_console &&
	    c->console.sin_addr.s_addr == cmd->from.sin_addr.s_addr &&
	    c->console_key == cmd->m.hdr.key_id;
}

/* What the scheduler says, with the master and whether cmd is from it. */
static void
status_of(const struct ctl *c, const struct sched *s,
    const struct intake_cmd *cmd, struct proto_status *st, int64_t now)
{
	static struct hostfacts	 facts;	/* read at most once a second */

	sched_status(s, st, now);
	hostfacts_get(&facts, now);
	st->users = facts.users;
	st->ncpu = facts.ncpu;
	st->mem_mib = facts.mem_mib;
	for (int i = 0; i < PROTO_JOBS_MAX; i++)
		if (s->job[i].gang != NULL && s->job[i].swap_bytes > 0)
			st->flags |= STATUS_F_SWAP;
	if (c->have_console) {
		st->master = ntohl(c->console.sin_addr.s_addr);
		if (is_master(c, cmd))
			st->flags |= STATUS_F_YOURS;
	}
}

/* A STATUS to the sender of cmd. */
static void
send_status(struct ctl *c, struct sched *s, const struct intake_cmd *cmd)
{
	struct proto_msg	 m = { .hdr.type = PROTO_STATUS };

	status_of(c, s, cmd, &m.u.status, now_mono_ns());
	(void)intake_reply(&c->in, &m, cmd);	/* a read request's: its key */
}

/*
 * A METRICS to the sender of cmd: STATUS's fields and the scheduler's
 * counters (sched_stats), the gangs' CPU time from their cgroups, every
 * job's together (read here, on the main thread: never on the edge
 * path).  The intake thread
 * adds the drop counters and the host name.
 */
static void
send_metrics(struct ctl *c, struct sched *s, const struct intake_cmd *cmd)
{
	struct proto_msg	 m = { .hdr.type = PROTO_METRICS };
	struct proto_metrics	*p = &m.u.metrics;
	struct proto_status	 st;
	struct sched_stats	 ss;
	int64_t			 now = now_mono_ns();
	uint64_t		 cpu;
	int			 i;

	status_of(c, s, cmd, &st, now);
	sched_stats(s, now, &ss);
	proto_metrics_of_status(p, &st);
	p->uptime_ns = (uint64_t)(now - c->started);
	p->ps_ns = ss.ps_ns;
	p->ls_ns = ss.ls_ns;
	p->stopped_ns = ss.stopped_ns;
	p->gang_cpu_ns = 0;
	for (i = 0; i < PROTO_JOBS_MAX; i++) {	/* every job's gang */
		if (s->job[i].gang != NULL &&
		    cg_cpu_ns(s->job[i].gang->cg, &cpu) == 0)
			p->gang_cpu_ns += cpu;
	}
	p->failsafe = ss.failsafe;
	p->master_changes = c->master_changes;
	p->late = ss.late;
	p->op = ss.op;
	(void)intake_send(&c->in, &m, &cmd->from);
}

/*
 * A JOB to the sender of cmd: the index-th job in use (in the order of
 * the scheduler's places), its counters (sched_job_stats) and its
 * cgroup's CPU time; count says how many there are, and an index at or
 * past it gets job "".
 */
static void
send_job(struct ctl *c, struct sched *s, const struct intake_cmd *cmd)
{
	struct proto_msg	 m = { .hdr.type = PROTO_JOB };
	struct proto_job	*p = &m.u.job;
	uint32_t		 want = cmd->m.u.job_req.index, n = 0;
	int64_t			 now = now_mono_ns();

	p->index = want;
	for (int i = 0; i < PROTO_JOBS_MAX; i++) {
		const struct gang *g = s->job[i].gang;

		if (g == NULL)
			continue;
		if (n++ != want)
			continue;
		memcpy(p->job, s->job[i].name, sizeof(p->job));
		p->job[sizeof(p->job) - 1] = '\0';
		sched_job_stats(s, i, now, &p->slot_ns, &p->stopped_ns);
		if (cg_cpu_ns(g->cg, &p->cpu_ns) == -1)
			p->cpu_ns = 0;
		p->members = (uint32_t)gang_members(g);
		p->running = s->job[i].run ? 1 : 0;
	}
	p->count = n;
	(void)intake_reply(&c->in, &m, cmd);	/* a read request's: its key */
}

/*
 * A JOB_MEM to the sender of cmd: the index-th job's memory, in JOB's
 * order, as jobs.c last saw it (once a second).
 */
static void
send_job_mem(struct ctl *c, struct sched *s, const struct intake_cmd *cmd)
{
	struct proto_msg	 m = { .hdr.type = PROTO_JOB_MEM };
	struct proto_job_mem	*p = &m.u.job_mem;
	uint32_t		 want = cmd->m.u.job_mem_req.index, n = 0;

	p->index = want;
	for (int i = 0; i < PROTO_JOBS_MAX; i++) {
		const struct sched_job *j = &s->job[i];

		if (j->gang == NULL || n++ != want)
			continue;
		memcpy(p->job, j->name, sizeof(p->job));
		p->job[sizeof(p->job) - 1] = '\0';
		p->mem_bytes = j->mem_bytes;
		p->swap_bytes = j->swap_bytes;
		p->oom_kills = j->oom_kills;
		p->reclaimed_bytes = j->reclaimed_bytes;
	}
	p->count = n;
	(void)intake_reply(&c->in, &m, cmd);
}

static uint32_t
sat32(int64_t v)
{
	return v < 0 ? 0 : v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* The slice edges after since, as many as one datagram holds. */
static void
send_trace(struct ctl *c, uint64_t since, const struct sockaddr_in *to)
{
	struct proto_msg	 m = { .hdr.type = PROTO_TRACE };
	struct trace_edge	 e[PROTO_TRACE_MAX];
	int			 i, more, n;

	n = trace_since((int64_t)since, e, PROTO_TRACE_MAX, &more);
	m.u.trace.count = (uint32_t)n;
	m.u.trace.more = (uint32_t)more;
	for (i = 0; i < n; i++) {
		m.u.trace.edge[i].real_ns = (uint64_t)e[i].real;
		m.u.trace.edge[i].late_ns = sat32(e[i].late);
		m.u.trace.edge[i].op_ns = sat32(e[i].op);
		m.u.trace.edge[i].phase = e[i].phase;
	}
	(void)intake_send(&c->in, &m, to);
}

/*
 * One master: a console is known by its address and its key (key_id):
 * two consoles on one host with their own key pairs are two consoles.
 * A SCHEDULE from another is refused (counted, answered with a STATUS
 * that names the master) unless it asks to take over, or we have no
 * master: none heard yet, or the dead-man switch fired.
 */
static int
from_master(struct ctl *c, const struct intake_cmd *cmd, char *why,
    size_t len)
{
	char	 old[INET_ADDRSTRLEN], new[INET_ADDRSTRLEN];

	*why = '\0';
	if (is_master(c, cmd))
		return 1;
	inet_ntop(AF_INET, &cmd->from.sin_addr, new, sizeof(new));
	if (!c->have_console) {
		snprintf(why, len, "console %s is now the master", new);
		return 1;
	}
	inet_ntop(AF_INET, &c->console.sin_addr, old, sizeof(old));
	if (cmd->m.u.schedule.flags & SCHED_F_TAKEOVER) {
		snprintf(why, len, "console %s takes over from console %s: it "
		    "is now the master", new, old);
		return 1;
	}
	intake_reject(&c->in, REJ_MASTER);
	if (++c->foreign % 100 == 1)	/* not every SI of a stray console */
		log_info("schedule from console %s refused: console %s is "
		    "the master (%" PRIu64 " refused)", new, old, c->foreign);
	return 0;
}

/* A schedule from the console: the dead-man timer starts again. */
static void
deadman_arm(struct ctl *c, struct sched *s)
{
	int64_t	 silence;

	silence = c->silence_conf != 0 ? c->silence_conf : 3 * s->si;
	/* a live console speaks every SI: one lost datagram must not trip
	 * the switch, whatever the configuration says */
	if (silence < 2 * s->si)
		silence = 2 * s->si;

	s->silence = silence;
	if (evfd_timer_set(c->deadman_tfd, silence, 0) == -1)
		log_warn("timerfd_settime");
}

/* A SCHEDULE: 1 if it is answered with a STATUS, 0 if not. */
static int
schedule(struct ctl *c, struct sched *s, const struct intake_cmd *cmd)
{
	struct proto_schedule	 p = cmd->m.u.schedule;
	const char		*err;
	char			 why[128];

	if (!from_master(c, cmd, why, sizeof(why)))
		return 1;
	p.flags &= (uint8_t)~SCHED_F_TAKEOVER;	/* not a state */
	if (sched_apply(s, &p, cmd->rx_mono, cmd->rx_real, &err) == -1) {
		intake_reject(&c->in, REJ_RANGE);
		log_warnx("schedule from %s rejected: %s",
		    inet_ntoa(cmd->from.sin_addr), err);
		return 0;
	}
	if (why[0] != '\0') {
		log_info("%s", why);
		c->master_changes++;
	}
	s->own = 0;
	s->last_console = now_mono_ns();
	deadman_arm(c, s);
	if (!c->have_console ||
	    c->console.sin_addr.s_addr != cmd->from.sin_addr.s_addr ||
	    c->console.sin_port != cmd->from.sin_port)
		intake_exempt(&c->in, &cmd->from);
	c->console = cmd->from;	/* load reports go to the master */
	c->console_key = cmd->m.hdr.key_id;
	c->have_console = 1;
	return 1;
}

static void
handle(struct ctl *c, struct sched *s, const struct intake_cmd *cmd)
{
	switch (cmd->m.hdr.type) {
	case PROTO_SCHEDULE:
		if (!schedule(c, s, cmd))
			return;
		break;
	case PROTO_STATUS_REQ:
		break;
	case PROTO_TRACE_REQ:	/* answered with TRACE only */
		send_trace(c, cmd->m.u.trace_req.since_ns, &cmd->from);
		return;
	case PROTO_METRICS_REQ:	/* answered with METRICS only */
		send_metrics(c, s, cmd);
		return;
	case PROTO_JOB_REQ:	/* answered with JOB only */
		send_job(c, s, cmd);
		return;
	case PROTO_JOB_MEM_REQ:	/* answered with JOB_MEM only */
		send_job_mem(c, s, cmd);
		return;
	default:	/* intake passes nothing else */
		return;
	}
	send_status(c, s, cmd);
}

void
ctl_input(struct ctl *c, struct sched *s)
{
	struct intake_cmd	 cmd;

	while (intake_next(&c->in, &cmd))
		handle(c, s, &cmd);
}

void
ctl_deadman(struct ctl *c, struct sched *s)
{
	struct proto_schedule	 p = c->own;
	const char		*err;
	char			 d[32];
	uint64_t		 n;

	if (read(c->deadman_tfd, &n, sizeof(n)) == -1) {
		if (errno != EAGAIN)
			log_warn("dead-man timer");
		return;
	}
	log_warnx("no command from console %s for %s: back to the configured "
	    "schedule", inet_ntoa(c->console.sin_addr),
	    duration_format(s->silence, d, sizeof(d)));
	c->have_console = 0;
	p.flags |= SCHED_F_SYNC;
	p.origin_ns = (uint64_t)now_real_ns();
	if (sched_apply(s, &p, now_mono_ns(), now_real_ns(), &err) == -1)
		log_warnx("configured schedule: %s", err);
	s->own = 1;
}

int
ctl_push_status(struct ctl *c, struct sched *s)
{
	struct intake_cmd	 to;
	int64_t			 now = now_mono_ns();

	/* only a master that slots this node (STATIC, BALANCED) builds
	 * tables from its jobs; in the other modes the next SI's reply is
	 * soon enough.  (In DISTRIBUTED a push can pull nodes that stagger
	 * their slices back onto one grid.) */
	if (!c->have_console || (s->mode != MODE_STATIC &&
	    s->mode != MODE_BALANCED))
		return 0;
	if (now - c->pushed < CTL_PUSH_GAP_NS)
		return -1;
	c->pushed = now;
	memset(&to, 0, sizeof(to));
	to.from = c->console;		/* as if the master had asked */
	to.m.hdr.key_id = c->console_key;
	send_status(c, s, &to);
	return 0;
}

void
ctl_send_load(struct ctl *c, uint32_t load_milli, uint32_t ncpu)
{
	struct proto_msg	 m = { .hdr.type = PROTO_LOAD };

	if (!c->have_console)
		return;
	m.u.load.load_milli = load_milli;
	m.u.load.ncpu = ncpu;
	(void)intake_send(&c->in, &m, &c->console);
}

void
ctl_close(struct ctl *c)
{
	intake_close(&c->in);
	if (c->deadman_tfd != -1)
		close(c->deadman_tfd);
	c->deadman_tfd = -1;
}
