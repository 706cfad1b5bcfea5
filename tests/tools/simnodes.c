/*
 * simnodes - one process that plays N DTS nodes, for the master's scale
 * benchmark (tests/bench/bench-scale.sh).
 *
 *   simnodes -f CONF -n N [-b 127.1.0.1] [-d SECONDS] [-o PREFIX]
 *            [-l T:FRACTION:Q]... [-j JOBS | -J FILE] [-V]
 *            [-g GROUP[@IFADDR]]
 *
 * Node i has the address base + i (every 127.0.0.0/8 address can be
 * bound on loopback) and its own UDP socket bound to CONF's port there.
 * Its key is the one a real node keeps in its key_file: auth_node_key()
 * of console.node_secret and its address, as `dts-console -N ADDRESS`
 * prints it; it obeys the consoles of console_keys.  Every datagram goes
 * through the intake of a real node (dts/intake.c): proto_frame(), the
 * node's token buckets (the master exempt), replay_clock() and
 * proto_verify() (the console's signature, the node's replay state, the
 * schedule's ranges: proto_check_schedule), then the one-master rule of
 * dts/ctl.c (a SCHEDULE from another console is refused, unless it takes
 * over or the node has no master).  Nothing is skipped: N nodes cost N
 * signature checks a SCHEDULE.  With -V, a datagram whose signed bytes
 * (proto_signed_bytes: a SCHEDULE's header, base and the root that its
 * own table folds up to) and signature passed the check at another node
 * (one of the last 8 that did) is not checked again: every node holds
 * the same console keys, so the
 * answer is the same; its replay and range checks are still the node's
 * own.  N nodes then cost one check a SCHEDULE, and one process keeps
 * up with 10,000 nodes on a small machine (counted: verify_full,
 * verify_shared).
 *
 * -g: every node also joins the multicast group GROUP (dts.conf group) on
 * the interface of IFADDR (default 127.0.0.1: loopback must have the
 * MULTICAST flag), with a second socket bound to GROUP and the port, as
 * a dts node's control socket bound to 0.0.0.0 hears it.  The kernel
 * gives each of the N sockets its own copy of a datagram to the group.
 *
 * Answers as a node does: STATUS to SCHEDULE and STATUS_REQ (mode,
 * PS/IP/SI, phase, master, the scripted jobs), METRICS, JOB, TRACE (no
 * edges).  A node without a SCHEDULE for `silence` (0: 3 SI, at least 2
 * SI) falls back to its own schedule and forgets its master (counted).
 * Load: every node's Q is 0 until a -l T:FRACTION:Q, which at T seconds
 * gives the first FRACTION of the nodes load Q and sends a LOAD to their
 * master, as dts does when dts-load reports a change.
 *
 * -J FILE: the jobs of a cluster (the gang matrix's bench), one a line:
 *   NAME FROM TO NODES
 * NAME USER:LABEL; the job runs from FROM to TO seconds after the start
 * (TO 0: to the end); NODES node indices from 0, "3,7,10-73".  A node
 * lists its jobs that run (members 1) in STATUS and JOB, and when one of
 * them starts or ends it sends its master a STATUS at once, as dts does
 * (ctl_push_status).  Each SCHEDULE's slot table is checked against the
 * node's jobs (from the node's 3rd SCHEDULE on; a job that started or
 * ended within the last 2 SIs is let be): a job that runs there and has
 * no slot, or a slot of a job that does not run there, is a bad table
 * (tables_bad, tables_bad_nodes); a job whose slot differs between two
 * of its nodes in the same send (SCHEDULEs of a kind, an SI's or a table
 * change's, sealed less than 50 ms apart) is a broken gang
 * (tables_split).  For a job with FROM or TO: at each of its nodes, the
 * first table that names it after it started, and the first that does
 * not after it ended (job_K_in_got, job_K_in_max_ms, ...).  The
 * receive times of the first and the last bad table
 * (tables_bad_first_real_ns, tables_bad_last_real_ns: after a takeover,
 * whether the new master's first send had them).
 *
 * Counted: datagrams received, accepted, refused by reason, and the
 * kernel's receive time (SO_TIMESTAMPNS) of every accepted SCHEDULE.  At
 * the end (-d, SIGTERM or SIGINT) the SCHEDULEs are grouped by SI (their
 * sequence, the console's clock when it sealed them, more than SI/4
 * apart: a new SI) and written:
 *   PREFIX.si.csv     si,seq_us,nodes,missed,spread_p50_us,spread_p99_us,
 *                     spread_max_us,owd_min_us,owd_p50_us
 *   PREFIX.nodes.csv  addr,received,accepted,refused,schedules,status_req,
 *                     metrics_req,fallbacks,gap_max_us,switch_real_ns
 *   stdout            key=value lines (the summary; the first and the
 *                     last SI, cut by the run's start and end, left out)
 * spread: a node's arrival after the SI's first; owd: arrival less the
 * console's sealing time (the same host's CLOCK_REALTIME).
 * For a master and standby pair: a node's longest time between two
 * SCHEDULEs it followed (gap_max_us; gap_over_2si: the nodes whose
 * longest gap passed 2 of their SIs, one SI missed and more), and when
 * the console that sends them changed (hdr.sender: another console, or
 * the same one restarted; switched, switch_first/last_real_ns).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "auth.h"
#include "bucket.h"
#include "conf.h"
#include "proto.h"
#include "timeutil.h"
#include "wire.h"

#define LOADS_MAX 16

struct sim {
	int		 fd;
	int		 gfd;		/* -g: the group's socket, or -1 */
	struct in_addr	 addr;
	struct auth_key	 key;		/* own key, the consoles' public keys */
	struct replay	 replay;
	struct buckets	 buckets;
	struct seqgen	 seq;
	/* the state a node reports */
	struct proto_schedule sch;	/* in force */
	int		 have_master;
	struct sockaddr_in master;
	uint32_t	 master_key;
	int64_t		 last_console;	/* MONOTONIC ns of the last SCHEDULE */
	int64_t		 active_real;	/* REALTIME ns its slicing began */
	uint32_t	 load_milli;
	uint32_t	 master_changes;
	/* a master and standby pair (the standby round of bench-scale) */
	uint32_t	 sender;	/* hdr.sender of the last SCHEDULE */
	int64_t		 gap_max;	/* longest between two SCHEDULEs, ns */
	int64_t		 switch_real;	/* REALTIME ns the sender last
					   changed (a new console), 0 = never */
	/* counters */
	uint64_t	 received, accepted, refused, schedules, status_req,
			 metrics_req, fallbacks;
	uint32_t	 rejected[REJ_COUNT];
};

struct event {		/* an accepted SCHEDULE */
	uint64_t	 seq;		/* the console's, µs */
	int64_t		 rx_real;	/* kernel receive time, ns */
	int32_t		 node;
	uint32_t	 si_us;
	uint32_t	 ps_us;		/* the PS it set */
};

struct load_step {
	double		 t, frac, q;
	int		 done;
	int64_t		 real;		/* REALTIME ns its LOADs went out */
};

#define GROUP_BIT 0x80000000u	/* epoll data: the node's group socket */

/* -J: a job of the cluster */
struct simjob {
	char		 name[PROTO_JOB_LEN];
	double		 from, to;	/* s after the start; to 0: the end */
	int		 nnodes;
	int		*nodes;
	int		 on;		/* runs now */
	int		 entered, left;
	int64_t		 changed;	/* MONOTONIC ns it started or ended */
	int64_t		 enter_real, leave_real;
	int64_t		*in_at, *out_at;	/* a node's first table with
					   it after its start, without it
					   after its end (REALTIME ns) */
	/* the gang: its slot in the send seen last */
	uint64_t	 slot_send;
	uint32_t	 slot_start, slot_len;
};

static struct simjob	*jobs;
static int		 nsjobs;
static uint64_t		 tables_checked, tables_bad, tables_split;
static int64_t		 bad_first_real, bad_last_real;	/* rx stamps */


/* a node's jobs (-J) */
struct simnode_jobs {
	int		 n;
	int		 job[PROTO_JOBS_MAX];	/* index in jobs[] */
	int		 pos[PROTO_JOBS_MAX];	/* the node's in the job's */
	uint64_t	 bad;			/* its bad tables */
};

static struct simnode_jobs *nodejobs;

static volatile sig_atomic_t stop;
static struct sim	*sims;
static int		 nsim;
static struct event	*ev;
static size_t		 nev, capev;
static struct dts_conf	 conf;
static struct proto_schedule own;	/* the configured schedule */
static int		 njobs;
static int		 share_verify;	/* -V */
#define CHECKED_MAX 8	/* -V: the last datagrams whose tag held */
static struct {
	uint8_t		 b[PROTO_MAX_DGRAM];
	size_t		 len;
} checked[CHECKED_MAX];
static unsigned		 checked_next;
static uint64_t		 verify_full, verify_shared;
static uint64_t		 refused_total[REJ_COUNT];

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void __attribute__((format(printf, 1, 2), noreturn))
die(const char *fmt, ...)
{
	va_list	 ap;

	fprintf(stderr, "simnodes: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void
record(int node, uint64_t seq, int64_t rx_real, uint32_t si_us,
    uint32_t ps_us)
{
	if (nev == capev) {
		capev = capev ? 2 * capev : 65536;
		if ((ev = realloc(ev, capev * sizeof(*ev))) == NULL)
			die("%s", "out of memory");
	}
	ev[nev++] = (struct event){ .seq = seq, .rx_real = rx_real,
	    .node = node, .si_us = si_us, .ps_us = ps_us };
}

/* As dts/ctl.c's deadman_arm: silence, at least 2 SI. */
static int64_t
silence_of(const struct sim *s)
{
	int64_t	 si = (int64_t)s->sch.si_us * NS_PER_US;
	int64_t	 q = conf.silence_ns != 0 ? conf.silence_ns : 3 * si;

	return q < 2 * si ? 2 * si : q;
}

static void
seal_send(struct sim *s, struct proto_msg *m, const struct sockaddr_in *to)
{
	uint8_t	 buf[PROTO_MAX_DGRAM];
	int	 n;

	n = proto_seal(&s->key, &s->seq, now_mono_us(), m, buf, sizeof(buf));
	if (n > 0)
		(void)sendto(s->fd, buf, (size_t)n, 0,
		    (const struct sockaddr *)to, sizeof(*to));
}

/* STATUS as sched_status and ctl.c's status_of fill it. */
static void
fill_status(const struct sim *s, const struct sockaddr_in *to,
    uint32_t key_id, struct proto_status *st, int64_t now_mono)
{
	int64_t	 now_real = now_real_ns(), ip = (int64_t)s->sch.ip_us *
	    NS_PER_US, k;
	int	 slicing = (s->sch.flags & SCHED_F_ACTIVE) &&
	    (s->sch.mode == MODE_STATIC || s->sch.mode == MODE_BALANCED);

	memset(st, 0, sizeof(*st));
	st->mode = s->sch.mode;
	st->sync = s->sch.sync;
	if (slicing)
		st->flags |= SCHED_F_ACTIVE;
	if (s->last_console && now_mono - s->last_console <= silence_of(s))
		st->flags |= STATUS_F_HEARD;
	if (!s->have_master)
		st->flags |= STATUS_F_OWN;
	st->ps_us = s->sch.ps_us;
	st->ip_us = s->sch.ip_us;
	st->si_us = s->sch.si_us;
	st->load_milli = s->load_milli;
	if (slicing && ip > 0 && s->active_real != 0) {
		k = (now_real - s->active_real) / ip;
		st->slices = (uint64_t)k + 1;
		st->last_ps_ns = (uint64_t)(s->active_real + k * ip);
		st->phase = now_real - (int64_t)st->last_ps_ns <
		    (int64_t)s->sch.ps_us * NS_PER_US ? PHASE_PS : PHASE_LS;
	}
	for (int j = 0; nodejobs == NULL && j < njobs && j < PROTO_JOBS_MAX;
	    j++) {
		snprintf(st->job[j].job, PROTO_JOB_LEN, "sim:j%d", j);
		st->job[j].members = 1;
		st->members++;
		st->njobs++;
	}
	for (int j = 0; nodejobs != NULL && j < nodejobs[s - sims].n; j++) {
		const struct simjob *sj = &jobs[nodejobs[s - sims].job[j]];

		if (!sj->on)
			continue;
		memcpy(st->job[st->njobs].job, sj->name, PROTO_JOB_LEN);
		st->job[st->njobs].members = 1;
		st->members++;
		st->njobs++;
	}
	memcpy(st->rejected, s->rejected, sizeof(st->rejected));
	if (s->have_master) {
		st->master = ntohl(s->master.sin_addr.s_addr);
		if (to->sin_addr.s_addr == s->master.sin_addr.s_addr &&
		    key_id == s->master_key)
			st->flags |= STATUS_F_YOURS;
	}
	snprintf(st->name, sizeof(st->name), "sim%d", (int)(s - sims));
}

static void
send_status(struct sim *s, const struct sockaddr_in *to, uint32_t key_id,
    int64_t now_mono)
{
	struct proto_msg	 m = { .hdr.type = PROTO_STATUS };

	fill_status(s, to, key_id, &m.u.status, now_mono);
	seal_send(s, &m, to);
}

static void
send_metrics(struct sim *s, const struct sockaddr_in *to, uint32_t key_id,
    int64_t now_mono)
{
	struct proto_msg	 m = { .hdr.type = PROTO_METRICS };
	struct proto_status	 st;
	struct proto_metrics	*p = &m.u.metrics;

	fill_status(s, to, key_id, &st, now_mono);
	proto_metrics_of_status(p, &st);
	p->uptime_ns = (uint64_t)now_mono;
	p->master_changes = s->master_changes;
	memcpy(p->rejected, s->rejected, sizeof(p->rejected));
	memcpy(p->name, st.name, sizeof(p->name));
	seal_send(s, &m, to);
}

static void
send_job(struct sim *s, const struct sockaddr_in *to, uint32_t index)
{
	struct proto_msg	 m = { .hdr.type = PROTO_JOB };

	m.u.job.index = index;
	m.u.job.count = (uint32_t)njobs;
	if (nodejobs == NULL && index < (uint32_t)njobs) {
		snprintf(m.u.job.job, PROTO_JOB_LEN, "sim:j%u", index);
		m.u.job.members = 1;
	}
	if (nodejobs != NULL) {
		const struct simnode_jobs *nj = &nodejobs[s - sims];
		uint32_t	 n = 0;

		for (int j = 0; j < nj->n; j++) {
			const struct simjob *sj = &jobs[nj->job[j]];

			if (!sj->on)
				continue;
			if (n++ == index) {
				memcpy(m.u.job.job, sj->name, PROTO_JOB_LEN);
				m.u.job.members = 1;
			}
		}
		m.u.job.count = n;
	}
	seal_send(s, &m, to);
}

/*
 * The master's sends, of two kinds: an SI's (SCHED_F_SYNC) and a table
 * change's (MASTER_TABLES: no SYNC), which can follow each other closely.
 * A SCHEDULE whose seq (its sealing time, µs) is more than SEND_GAP_US
 * after every one of its kind before starts a new send: a send's
 * datagrams are sealed back to back, and two sends of a kind are 250 ms
 * apart at least (an SI; MASTER_TABLES_GAP_NS).  send_start[kind][]:
 * their first seqs; a send is named by its first seq and its kind.
 */
#define SEND_GAP_US	50000
static uint64_t		*send_start[2], send_max[2];
static size_t		 nsend[2], capsend[2];

/* The send seq of kind belongs to: its first seq * 2 + kind. */
static uint64_t
send_of(uint64_t seq, int kind)
{
	uint64_t	*v;
	size_t		 i;

	if (nsend[kind] == 0 || seq > send_max[kind] + SEND_GAP_US) {
		if (nsend[kind] == capsend[kind]) {
			capsend[kind] = capsend[kind] ? 2 * capsend[kind] :
			    1024;
			if ((send_start[kind] = realloc(send_start[kind],
			    capsend[kind] * sizeof(uint64_t))) == NULL)
				die("%s", "out of memory");
		}
		send_start[kind][nsend[kind]++] = seq;
	}
	if (seq > send_max[kind])
		send_max[kind] = seq;
	v = send_start[kind];
	for (i = nsend[kind]; i > 1 && v[i - 1] > seq; i--)
		;
	return v[i - 1] * 2 + (uint64_t)kind;
}

/*
 * -J: node s's slot table in SCHEDULE p (its seq), against its jobs:
 * tables_bad, tables_split, and the first tables after a job's start
 * and end.
 */
static void
check_table(struct sim *s, const struct proto_schedule *p, uint64_t seq,
    int64_t now_mono, int64_t rx_real)
{
	struct simnode_jobs	*nj = &nodejobs[s - sims];
	int64_t			 settle = 2 * (int64_t)p->si_us * NS_PER_US;
	uint64_t		 send = send_of(seq,
	    (p->flags & SCHED_F_SYNC) != 0);
	int			 named[PROTO_JOBS_MAX] = { 0 }, bad = 0, i, k;

	if (!(p->flags & SCHED_F_ACTIVE) || (p->mode != MODE_STATIC &&
	    p->mode != MODE_BALANCED))
		return;
	for (i = 0; i < p->nslots && i < PROTO_JOBS_MAX; i++) {
		const struct proto_slot *sl = &p->slot[i];
		struct simjob	*sj;

		for (k = 0; k < nj->n && strncmp(jobs[nj->job[k]].name,
		    sl->job, PROTO_JOB_LEN) != 0; k++)
			;
		if (k == nj->n) {	/* not a job of this node's */
			bad = 1;
			continue;
		}
		named[k] = 1;
		sj = &jobs[nj->job[k]];
		if (sj->slot_send == send && (sj->slot_start !=
		    sl->start_us || sj->slot_len != sl->len_us))
			tables_split++;
		sj->slot_send = send;
		sj->slot_start = sl->start_us;
		sj->slot_len = sl->len_us;
	}
	for (k = 0; k < nj->n; k++) {
		struct simjob	*sj = &jobs[nj->job[k]];

		if (sj->entered && named[k] && sj->in_at != NULL &&
		    sj->in_at[nj->pos[k]] == 0)
			sj->in_at[nj->pos[k]] = rx_real;
		if (sj->left && !named[k] && sj->out_at != NULL &&
		    sj->out_at[nj->pos[k]] == 0)
			sj->out_at[nj->pos[k]] = rx_real;
		if (now_mono - sj->changed >= settle && named[k] != sj->on)
			bad = 1;
	}
	if (s->schedules < 3)
		return;
	tables_checked++;
	if (bad) {
		tables_bad++;
		if (bad_first_real == 0)
			bad_first_real = rx_real;
		bad_last_real = rx_real;
		nj->bad++;
	}
}

/* ctl.c's from_master and schedule(): 1 if the SCHEDULE is followed. */
static int
schedule(struct sim *s, const struct proto_msg *m,
    const struct sockaddr_in *from, int64_t now_mono, int64_t rx_real)
{
	struct proto_schedule	 p = m->u.schedule;
	int			 mine = s->have_master &&
	    s->master.sin_addr.s_addr == from->sin_addr.s_addr &&
	    s->master_key == m->hdr.key_id;

	if (!mine && s->have_master && !(p.flags & SCHED_F_TAKEOVER)) {
		s->rejected[REJ_MASTER]++;
		refused_total[REJ_MASTER]++;
		s->refused++;
		return 0;
	}
	if (!mine)
		s->master_changes++;
	p.flags &= (uint8_t)~SCHED_F_TAKEOVER;
	if (s->last_console != 0 && now_mono - s->last_console > s->gap_max)
		s->gap_max = now_mono - s->last_console;
	if (s->sender != 0 && m->hdr.sender != s->sender)
		s->switch_real = rx_real;
	s->sender = m->hdr.sender;
	if ((p.flags & SCHED_F_ACTIVE) && (!(s->sch.flags & SCHED_F_ACTIVE) ||
	    (p.flags & SCHED_F_SYNC) || s->active_real == 0))
		s->active_real = rx_real;
	s->sch = p;
	s->last_console = now_mono;
	s->master = *from;
	s->master_key = m->hdr.key_id;
	s->have_master = 1;
	s->schedules++;
	record((int)(s - sims), m->hdr.seq, rx_real, p.si_us, p.ps_us);
	if (nodejobs != NULL)
		check_table(s, &p, m->hdr.seq, now_mono, rx_real);
	return 1;
}

/*
 * -V: what a command's signature covers (proto_signed_bytes: a SCHEDULE's
 * header, base and the root its own table folds up to) and the signature,
 * in k (PROTO_MAX_DGRAM bytes); its length, 0 if too short.
 */
static size_t
signed_key(const uint8_t *buf, size_t len, uint8_t *k)
{
	size_t	 n;

	if (len < PROTO_HDR_LEN + PROTO_SIG_LEN)
		return 0;
	n = proto_signed_bytes(buf, len - PROTO_SIG_LEN, k);
	memcpy(k + n, buf + len - PROTO_SIG_LEN, PROTO_SIG_LEN);
	return n + PROTO_SIG_LEN;
}

/* -V: these signed bytes passed a full check lately. */
static int
was_checked(const uint8_t *k, size_t len)
{
	for (int i = 0; i < CHECKED_MAX; i++)
		if (len > 0 && checked[i].len == len &&
		    memcmp(checked[i].b, k, len) == 0)
			return 1;
	return 0;
}

/* One datagram to node s, in the order of dts/intake.c's check(). */
static void
intake(struct sim *s, const uint8_t *buf, size_t len, int truncated,
    const struct sockaddr_in *from, int64_t rx_real)
{
	struct proto_msg	 m;
	enum proto_reject	 why;
	int64_t			 now_mono = now_mono_ns();
	uint8_t			 key[PROTO_MAX_DGRAM];
	size_t			 klen = 0;
	int			 master;

	s->received++;
	if (truncated) {
		why = REJ_LONG;
		goto refused;
	}
	if (proto_frame(buf, len, PROTO_ACCEPT_NODE, &m, &why) == -1)
		goto refused;
	master = s->have_master &&
	    from->sin_addr.s_addr == s->master.sin_addr.s_addr;
	if (buckets_take(&s->buckets, from->sin_addr.s_addr, master,
	    now_mono) == -1) {
		why = REJ_RATE;
		goto refused;
	}
	(void)replay_clock(&s->replay, now_real_us(), now_mono_us());
	if (share_verify)
		klen = signed_key(buf, len, key);
	if (share_verify && was_checked(key, klen)) {
		/* -V: these signed bytes (with this node's own table folded
		 * up its path) passed the signature check at another node
		 * (every node holds the same console keys); the replay state
		 * and the ranges are still this node's own */
		struct auth_key k = s->key;

		k.insecure = 1;
		verify_shared++;
		if (proto_verify(&k, &s->replay, buf, len, &m, &why) == -1)
			goto refused;
	} else {
		verify_full++;
		if (proto_verify(&s->key, &s->replay, buf, len, &m, &why) ==
		    -1)
			goto refused;
		if (share_verify) {	/* a node's socket holds an SI's
					   SCHEDULE and a round's request */
			memcpy(checked[checked_next].b, key, klen);
			checked[checked_next].len = klen;
			checked_next = (checked_next + 1) % CHECKED_MAX;
		}
	}
	s->accepted++;
	switch (m.hdr.type) {
	case PROTO_SCHEDULE:
		(void)schedule(s, &m, from, now_mono, rx_real);
		send_status(s, from, m.hdr.key_id, now_mono);
		break;
	case PROTO_STATUS_REQ:
		s->status_req++;
		send_status(s, from, m.hdr.key_id, now_mono);
		break;
	case PROTO_METRICS_REQ:
		s->metrics_req++;
		send_metrics(s, from, m.hdr.key_id, now_mono);
		break;
	case PROTO_JOB_REQ:
		send_job(s, from, m.u.job_req.index);
		break;
	case PROTO_TRACE_REQ: {
		struct proto_msg t = { .hdr.type = PROTO_TRACE };

		seal_send(s, &t, from);
		break;
	}
	default:
		break;
	}
	return;
refused:
	s->rejected[why]++;
	refused_total[why]++;
	s->refused++;
}

static void
drain(struct sim *s, int fd)
{
	uint8_t			 buf[PROTO_MAX_DGRAM + 1];
	char			 cbuf[CMSG_SPACE(sizeof(struct timespec))];
	struct sockaddr_in	 from;
	struct iovec		 iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr		 mh;
	ssize_t			 n;

	for (;;) {
		memset(&mh, 0, sizeof(mh));
		mh.msg_name = &from;
		mh.msg_namelen = sizeof(from);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		if ((n = recvmsg(fd, &mh, MSG_DONTWAIT)) < 0)
			return;
		intake(s, buf, (size_t)n, (size_t)n > PROTO_MAX_DGRAM ||
		    (mh.msg_flags & MSG_TRUNC), &from, rx_real_ns(&mh));
	}
}

/* Dead-man switch and scripted loads, about every 10 ms. */
static void
tick(struct load_step *ls, int nls, int64_t t0)
{
	int64_t	 now = now_mono_ns();
	double	 t = (double)(now - t0) / NS_PER_SEC;

	for (int i = 0; i < nsim; i++) {
		struct sim *s = &sims[i];

		if (s->have_master && now - s->last_console > silence_of(s)) {
			s->have_master = 0;
			s->sch = own;
			s->active_real = 0;
			s->fallbacks++;
		}
	}
	for (int k = 0; k < nsjobs; k++) {
		struct simjob *sj = &jobs[k];
		int	 on = t >= sj->from && (sj->to <= 0 || t < sj->to);

		if (on == sj->on)
			continue;
		sj->on = on;
		sj->changed = now;
		if (on && !sj->entered) {
			sj->entered = 1;
			sj->enter_real = now_real_ns();
		} else if (!on && sj->entered) {
			sj->left = 1;
			sj->leave_real = now_real_ns();
		}
		if (sj->from <= 0 && on)	/* there from the start */
			continue;
		for (int i = 0; i < sj->nnodes; i++) {	/* as ctl_push_status */
			struct sim *s = &sims[sj->nodes[i]];

			if (s->have_master)
				send_status(s, &s->master, s->master_key, now);
		}
		printf("job=%s %s mono_ns=%" PRId64 "\n", sj->name, on ?
		    "started" : "ended", now);
		fflush(stdout);
	}
	for (int k = 0; k < nls; k++) {
		int	 n;

		if (ls[k].done || t < ls[k].t)
			continue;
		ls[k].done = 1;
		ls[k].real = now_real_ns();
		n = (int)(ls[k].frac * nsim + 0.5);
		for (int i = 0; i < n && i < nsim; i++) {
			struct sim *s = &sims[i];
			struct proto_msg m = { .hdr.type = PROTO_LOAD };

			s->load_milli = (uint32_t)(ls[k].q * 1000);
			if (!s->have_master)
				continue;
			m.u.load.load_milli = s->load_milli;
			m.u.load.ncpu = 1;
			seal_send(s, &m, &s->master);
		}
		printf("load_step=%.3f:%d:%.3f mono_ns=%" PRId64 "\n", ls[k].t,
		    n, ls[k].q, now_mono_ns());
		fflush(stdout);
	}
}

static int
cmp_seq(const void *a, const void *b)
{
	const struct event *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t	 x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int64_t
pct(const int64_t *v, size_t n, double p)
{
	size_t	 i = (size_t)(p * (double)(n - 1) + 0.5);

	return n == 0 ? 0 : v[i < n ? i : n - 1];
}

static struct load_step	 steps[LOADS_MAX];
static int		 nsteps;

/*
 * For each load step: the PS the nodes had before it (the last SCHEDULE
 * a node got before its LOADs went out), and how long after them every
 * node had got a SCHEDULE with another PS (BALANCED's answer), or -1.
 * Events are sorted by sequence (the console's clock at sealing).
 */
static void
load_report(void)
{
	for (int k = 0; k < nsteps; k++) {
		int64_t	 t = steps[k].real, last = -1, delay;
		uint32_t before = 0;
		int	 changed = 0;
		uint8_t	*got;

		if (!steps[k].done)
			continue;
		if ((got = calloc((size_t)nsim, 1)) == NULL)
			die("%s", "out of memory");
		for (size_t i = 0; i < nev; i++) {
			if ((int64_t)ev[i].seq * 1000 < t) {
				before = ev[i].ps_us;
				continue;
			}
			if (ev[i].ps_us == before || got[ev[i].node])
				continue;
			got[ev[i].node] = 1;
			changed++;
			if (ev[i].rx_real > last)
				last = ev[i].rx_real;
		}
		delay = changed == nsim ? last - t : -1;
		printf("load_step_%d_ps_before_us=%u\nload_step_%d_changed=%d\n"
		    "load_step_%d_all_ms=%.1f\n", k, before, k, changed, k,
		    delay < 0 ? -1.0 : delay / 1e6);
		free(got);
	}
}

/* The SIs: PREFIX.si.csv and the summary. */
static void
report(const char *prefix, double secs)
{
	char		 path[512];
	FILE		*f = NULL;
	int64_t		*sp, *owd;
	uint8_t		*got;
	size_t		 i, j, k, g = 0, inner = 0;
	uint64_t	 missed = 0, missed_inner = 0;
	int64_t		 p99max = 0, p50sum = 0, owdmin = INT64_MAX, maxmax = 0;

	qsort(ev, nev, sizeof(*ev), cmp_seq);
	sp = calloc(nsim + 1, sizeof(*sp));
	owd = calloc(nsim + 1, sizeof(*owd));
	got = calloc(nsim, 1);
	if (sp == NULL || owd == NULL || got == NULL)
		die("%s", "out of memory");
	if (prefix != NULL) {
		snprintf(path, sizeof(path), "%s.si.csv", prefix);
		if ((f = fopen(path, "w")) == NULL)
			die("cannot write %s", path);
		fprintf(f, "si,seq_us,nodes,missed,spread_p50_us,spread_p99_us,"
		    "spread_max_us,owd_min_us,owd_p50_us\n");
	}
	/* count the groups first: the first and the last are cut */
	size_t ngroups = 0;
	for (i = 0; i < nev; i = j) {
		uint64_t gap = ev[i].si_us / 4 > 0 ? ev[i].si_us / 4 : 1000;

		for (j = i + 1; j < nev && ev[j].seq - ev[j - 1].seq <= gap; j++)
			;
		ngroups++;
	}
	for (i = 0; i < nev; i = j, g++) {
		uint64_t gap = ev[i].si_us / 4 > 0 ? ev[i].si_us / 4 : 1000;
		int64_t first = INT64_MAX;
		size_t n = 0;

		for (j = i + 1; j < nev && ev[j].seq - ev[j - 1].seq <= gap; j++)
			;
		memset(got, 0, (size_t)nsim);
		for (k = i; k < j; k++)
			if (ev[k].rx_real < first)
				first = ev[k].rx_real;
		for (k = i; k < j; k++) {
			if (got[ev[k].node])
				continue;	/* twice in one SI: once */
			got[ev[k].node] = 1;
			sp[n] = ev[k].rx_real - first;
			owd[n] = ev[k].rx_real - (int64_t)ev[k].seq * 1000;
			n++;
		}
		qsort(sp, n, sizeof(*sp), cmp_i64);
		qsort(owd, n, sizeof(*owd), cmp_i64);
		if (f != NULL)
			fprintf(f, "%zu,%" PRIu64 ",%zu,%zu,%.1f,%.1f,%.1f,%.1f,"
			    "%.1f\n", g, ev[i].seq, n, (size_t)nsim - n,
			    pct(sp, n, .5) / 1e3, pct(sp, n, .99) / 1e3,
			    sp[n - 1] / 1e3, owd[0] / 1e3,
			    pct(owd, n, .5) / 1e3);
		missed += (size_t)nsim - n;
		if (g == 0 || g + 1 == ngroups)
			continue;
		inner++;
		missed_inner += (size_t)nsim - n;
		if (pct(sp, n, .99) > p99max)
			p99max = pct(sp, n, .99);
		if (sp[n - 1] > maxmax)
			maxmax = sp[n - 1];
		p50sum += pct(sp, n, .99);
		if (owd[0] < owdmin)
			owdmin = owd[0];
	}
	if (f != NULL)
		fclose(f);
	load_report();
	printf("nodes=%d\nseconds=%.1f\nsis=%zu\nsis_inner=%zu\n"
	    "missed_inner=%" PRIu64 "\nmissed_all=%" PRIu64 "\n"
	    "spread_p99_max_us=%.1f\nspread_p99_mean_us=%.1f\n"
	    "spread_max_us=%.1f\nowd_min_us=%.1f\n", nsim, secs, ngroups,
	    inner, missed_inner, missed, p99max / 1e3,
	    inner ? (double)p50sum / (double)inner / 1e3 : 0.0, maxmax / 1e3,
	    owdmin == INT64_MAX ? 0.0 : owdmin / 1e3);
	free(sp);
	free(owd);
	free(got);
}

static void
report_nodes(const char *prefix)
{
	char		 path[512], a[INET_ADDRSTRLEN];
	FILE		*f;
	uint64_t	 rx = 0, acc = 0, ref = 0, st = 0, me = 0, fb = 0;
	int64_t		 gap = 0, sw0 = 0, sw1 = 0;
	int		 over = 0, sw = 0;

	for (int i = 0; i < nsim; i++) {
		rx += sims[i].received;
		acc += sims[i].accepted;
		ref += sims[i].refused;
		st += sims[i].status_req;
		me += sims[i].metrics_req;
		fb += sims[i].fallbacks;
		if (sims[i].gap_max > gap)
			gap = sims[i].gap_max;
		over += sims[i].gap_max > 2 * (int64_t)sims[i].sch.si_us *
		    NS_PER_US;
		if (sims[i].switch_real != 0) {
			sw++;
			if (sw0 == 0 || sims[i].switch_real < sw0)
				sw0 = sims[i].switch_real;
			if (sims[i].switch_real > sw1)
				sw1 = sims[i].switch_real;
		}
	}
	printf("received=%" PRIu64 "\naccepted=%" PRIu64 "\nrefused=%" PRIu64
	    "\nstatus_req=%" PRIu64 "\nmetrics_req=%" PRIu64 "\nfallbacks=%"
	    PRIu64 "\nverify_full=%" PRIu64 "\nverify_shared=%" PRIu64 "\n",
	    rx, acc, ref, st, me, fb, verify_full, verify_shared);
	printf("gap_max_us=%.1f\ngap_over_2si=%d\nswitched=%d\n"
	    "switch_first_real_ns=%" PRId64 "\nswitch_last_real_ns=%" PRId64
	    "\n", gap / 1e3, over, sw, sw0, sw1);
	for (int r = 0; r < REJ_COUNT; r++)
		if (refused_total[r] != 0)
			printf("refused_%s=%" PRIu64 "\n", proto_reject_name(
			    (unsigned)r), refused_total[r]);
	if (prefix == NULL)
		return;
	snprintf(path, sizeof(path), "%s.nodes.csv", prefix);
	if ((f = fopen(path, "w")) == NULL)
		die("cannot write %s", path);
	fprintf(f, "addr,received,accepted,refused,schedules,status_req,"
	    "metrics_req,fallbacks,gap_max_us,switch_real_ns\n");
	for (int i = 0; i < nsim; i++) {
		const struct sim *s = &sims[i];

		inet_ntop(AF_INET, &s->addr, a, sizeof(a));
		fprintf(f, "%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		    ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.1f,%" PRId64 "\n",
		    a, s->received, s->accepted, s->refused, s->schedules,
		    s->status_req, s->metrics_req, s->fallbacks,
		    s->gap_max / 1e3, s->switch_real);
	}
	fclose(f);
}

/* -J's report: the tables and each scripted job's start and end. */
static void
report_jobs(void)
{
	int	 bad_nodes = 0, k, i, n = 0;

	if (nodejobs == NULL)
		return;
	for (i = 0; i < nsim; i++)
		bad_nodes += nodejobs[i].bad > 0;
	printf("jobs=%d\ntables_checked=%" PRIu64 "\ntables_bad=%" PRIu64
	    "\ntables_bad_nodes=%d\ntables_split=%" PRIu64 "\n", nsjobs,
	    tables_checked, tables_bad, bad_nodes, tables_split);
	printf("tables_bad_first_real_ns=%" PRId64 "\ntables_bad_last_real_ns=%"
	    PRId64 "\n", bad_first_real, bad_last_real);
	for (k = 0; k < nsjobs; k++) {
		const struct simjob *sj = &jobs[k];
		int64_t	 in_max = -1, out_max = -1;
		int	 in_got = 0, out_got = 0;

		if (sj->in_at == NULL)
			continue;
		for (i = 0; i < sj->nnodes; i++) {
			if (sj->entered && sj->in_at[i] != 0) {
				in_got++;
				if (sj->in_at[i] - sj->enter_real > in_max)
					in_max = sj->in_at[i] - sj->enter_real;
			}
			if (sj->left && sj->out_at[i] != 0) {
				out_got++;
				if (sj->out_at[i] - sj->leave_real > out_max)
					out_max = sj->out_at[i] -
					    sj->leave_real;
			}
		}
		printf("job_%d_name=%s\njob_%d_nodes=%d\njob_%d_in_got=%d\n"
		    "job_%d_in_max_ms=%.1f\njob_%d_out_got=%d\n"
		    "job_%d_out_max_ms=%.1f\n", n, sj->name, n, sj->nnodes,
		    n, sj->entered ? in_got : -1, n, in_max < 0 ? -1.0 :
		    in_max / 1e6, n, sj->left ? out_got : -1, n, out_max < 0 ?
		    -1.0 : out_max / 1e6);
		n++;
	}
}

/* Node index spec "3,7,10-73" into sj->nodes (each < nsim). */
static void
parse_nodes(struct simjob *sj, char *spec, int line)
{
	char	*tok, *save = NULL, *dash, *end;
	long	 a, b;

	for (tok = strtok_r(spec, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		a = strtol(tok, &end, 10);
		b = a;
		if ((dash = strchr(tok, '-')) != NULL && end == dash)
			b = strtol(dash + 1, &end, 10);
		if (*end != '\0' || a < 0 || b < a || b >= nsim)
			die("-J line %d: bad node \"%s\" (0..%d)", line, tok,
			    nsim - 1);
		for (long i = a; i <= b; i++) {
			if ((sj->nnodes & (sj->nnodes + 1)) == 0 &&
			    (sj->nodes = realloc(sj->nodes, (size_t)(2 *
			    sj->nnodes + 2) * sizeof(int))) == NULL)
				die("%s", "out of memory");
			sj->nodes[sj->nnodes++] = (int)i;
		}
	}
}

/* -J FILE: the jobs, onto their nodes. */
static void
load_jobs(const char *path)
{
	FILE	*f = fopen(path, "r");
	char	*ln = NULL, name[PROTO_JOB_LEN + 1], *spec;
	size_t	 cap = 0;
	int	 line = 0, cap_j = 0, off;

	if (f == NULL)
		die("-J %s: %s", path, strerror(errno));
	if ((nodejobs = calloc((size_t)nsim, sizeof(*nodejobs))) == NULL)
		die("%s", "out of memory");
	while (getline(&ln, &cap, f) > 0) {
		struct simjob	*sj;

		line++;
		if (ln[0] == '#' || ln[0] == '\n')
			continue;
		if (nsjobs == cap_j) {
			cap_j = cap_j ? 2 * cap_j : 1024;
			if ((jobs = realloc(jobs, (size_t)cap_j *
			    sizeof(*jobs))) == NULL)
				die("%s", "out of memory");
		}
		sj = &jobs[nsjobs];
		memset(sj, 0, sizeof(*sj));
		if (sscanf(ln, "%32s %lf %lf %n", name, &sj->from, &sj->to,
		    &off) != 3 || strlen(name) >= PROTO_JOB_LEN ||
		    strchr(name, ':') == NULL)
			die("-J line %d: NAME FROM TO NODES", line);
		memcpy(sj->name, name, strlen(name));
		spec = ln + off;
		spec[strcspn(spec, " \t\n")] = '\0';
		parse_nodes(sj, spec, line);
		if (sj->from > 0 || sj->to > 0) {
			sj->in_at = calloc((size_t)sj->nnodes, sizeof(int64_t));
			sj->out_at = calloc((size_t)sj->nnodes,
			    sizeof(int64_t));
			if (sj->in_at == NULL || sj->out_at == NULL)
				die("%s", "out of memory");
		}
		for (int i = 0; i < sj->nnodes; i++) {
			struct simnode_jobs *nj = &nodejobs[sj->nodes[i]];

			if (nj->n == PROTO_JOBS_MAX)
				die("-J line %d: node %d has %d jobs already",
				    line, sj->nodes[i], PROTO_JOBS_MAX);
			nj->pos[nj->n] = i;
			nj->job[nj->n++] = nsjobs;
		}
		nsjobs++;
	}
	free(ln);
	fclose(f);
}

static void
usage(void)
{
	fprintf(stderr, "usage: simnodes -f CONF -n N [-b 127.1.0.1] "
	    "[-d SECONDS] [-o PREFIX] [-l T:FRACTION:Q]... [-j JOBS | -J FILE] "
	    "[-V] "
	    "[-g GROUP[@IFADDR]]\n");
	exit(2);
}

/* -g GROUP[@IFADDR] into mr; 0 or -1 */
static int
group_parse(char *arg, struct ip_mreqn *mr)
{
	char	*at = strchr(arg, '@');

	memset(mr, 0, sizeof(*mr));
	if (at != NULL)
		*at++ = '\0';
	return inet_pton(AF_INET, arg, &mr->imr_multiaddr) == 1 &&
	    IN_MULTICAST(ntohl(mr->imr_multiaddr.s_addr)) &&
	    inet_pton(AF_INET, at != NULL ? at : "127.0.0.1",
	    &mr->imr_address) == 1 ? 0 : -1;
}

/* A node's socket on the group: bound to GROUP:port (SO_REUSEADDR, as
 * every node's is), joined on mr's interface. */
static int
group_socket(const struct ip_mreqn *mr, int port)
{
	struct sockaddr_in	 sin = { .sin_family = AF_INET,
	    .sin_port = htons((uint16_t)port), .sin_addr = mr->imr_multiaddr };
	int			 fd, on = 1;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on,
	    sizeof(on)) == -1 || setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS,
	    &on, sizeof(on)) == -1 || bind(fd, (struct sockaddr *)&sin,
	    sizeof(sin)) == -1 || setsockopt(fd, IPPROTO_IP,
	    IP_ADD_MEMBERSHIP, mr, sizeof(*mr)) == -1)
		die("group socket: %s", strerror(errno));
	return fd;
}

int
main(int argc, char **argv)
{
	const char		*cf = NULL, *prefix = NULL, *base = "127.1.0.1";
	const char		*jobfile = NULL;
	char			*group = NULL;
	struct ip_mreqn		 gmr;
	struct auth_key		 secret = { 0 };
	struct epoll_event	 ee, evs[256];
	struct rlimit		 rl;
	struct in_addr		 b;
	char			 err[512];
	double			 dur = 0;
	int64_t			 t0, end = 0, last_tick = 0;
	int			 c, ep, on = 1;

	while ((c = getopt(argc, argv, "J:Vb:d:f:g:j:l:n:o:")) != -1) {
		switch (c) {
		case 'b': base = optarg; break;
		case 'd': dur = atof(optarg); break;
		case 'f': cf = optarg; break;
		case 'j': njobs = atoi(optarg); break;
		case 'J': jobfile = optarg; break;
		case 'l':
			if (nsteps == LOADS_MAX || sscanf(optarg,
			    "%lf:%lf:%lf", &steps[nsteps].t,
			    &steps[nsteps].frac, &steps[nsteps].q) != 3)
				usage();
			steps[nsteps++].done = 0;
			break;
		case 'n': nsim = atoi(optarg); break;
		case 'o': prefix = optarg; break;
		case 'V': share_verify = 1; break;
		case 'g': group = optarg; break;
		default: usage();
		}
	}
	if (cf == NULL || nsim <= 0 || njobs < 0 || njobs > PROTO_JOBS_MAX ||
	    inet_pton(AF_INET, base, &b) != 1 ||
	    (group != NULL && group_parse(group, &gmr) == -1) ||
	    (jobfile != NULL && njobs != 0))
		usage();
	if (jobfile != NULL)
		load_jobs(jobfile);
	if (sodium_init() < 0)
		die("%s", "sodium_init failed");
	conf_defaults(&conf);
	if (conf_load(&conf, cf, 0, err, sizeof(err)) == -1)
		die("%s", err);
	if (!conf.insecure && auth_key_load(&secret, conf.console.node_secret,
	    err, sizeof(err)) == -1)
		die("console.node_secret: %s", err);
	/* a socket a node (two with -g), and a few more; root may not raise
	 * the hard limit everywhere (20000 here): then up to it */
	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		die("getrlimit RLIMIT_NOFILE: %s", strerror(errno));
	rl.rlim_cur = (rlim_t)nsim * (group != NULL ? 2 : 1) + 64;
	if (rl.rlim_cur > rl.rlim_max && setrlimit(RLIMIT_NOFILE,
	    &(struct rlimit){ rl.rlim_cur, rl.rlim_cur }) == 0)
		rl.rlim_max = rl.rlim_cur;
	if (rl.rlim_cur > rl.rlim_max)
		rl.rlim_cur = rl.rlim_max;
	if ((rlim_t)nsim * (group != NULL ? 2 : 1) + 16 > rl.rlim_cur)
		die("%d nodes need %d descriptors; the limit is %lu", nsim,
		    nsim * (group != NULL ? 2 : 1) + 16,
		    (unsigned long)rl.rlim_cur);
	if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
		die("setrlimit RLIMIT_NOFILE: %s", strerror(errno));
	if ((sims = calloc((size_t)nsim, sizeof(*sims))) == NULL)
		die("%s", "out of memory");
	own.mode = (uint8_t)conf.mode;
	own.sync = (uint8_t)conf.sync;
	own.ps_us = (uint32_t)(conf.ps_ns / NS_PER_US);
	own.ip_us = (uint32_t)(conf.ip_ns / NS_PER_US);
	own.si_us = (uint32_t)(conf.si_ns / NS_PER_US);
	if ((ep = epoll_create1(EPOLL_CLOEXEC)) == -1)
		die("epoll: %s", strerror(errno));
	for (int i = 0; i < nsim; i++) {
		struct sim		*s = &sims[i];
		struct sockaddr_in	 sin = { .sin_family = AF_INET,
		    .sin_port = htons((uint16_t)conf.port) };

		s->addr.s_addr = htonl(ntohl(b.s_addr) + (uint32_t)i);
		sin.sin_addr = s->addr;
		/* the node's key_file: what dts-console -N prints */
		s->key.insecure = conf.insecure;
		if (!conf.insecure)
			auth_node_key(secret.key, s->addr.s_addr, s->key.key);
		for (int k = 0; k < conf.console_keys.n; k++)
			if (auth_pub_add(&s->key, conf.console_keys.s[k], err,
			    sizeof(err)) == -1)
				die("console_keys: %s", err);
		replay_init(&s->replay, now_real_us(), now_mono_us(),
		    (uint64_t)(conf.replay_window_ns / NS_PER_US));
		buckets_init(&s->buckets, BUCKET_RATE, BUCKET_BURST,
		    BUCKET_RATE_ALL, BUCKET_BURST_ALL, now_mono_ns());
		seqgen_init(&s->seq);
		s->sch = own;
		s->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, 0);
		if (s->fd == -1 || setsockopt(s->fd, SOL_SOCKET,
		    SO_TIMESTAMPNS, &on, sizeof(on)) == -1 ||
		    bind(s->fd, (struct sockaddr *)&sin, sizeof(sin)) == -1) {
			inet_ntop(AF_INET, &s->addr, err, sizeof(err));
			die("node %s: cannot bind its control port", err);
		}
		ee.events = EPOLLIN;
		ee.data.u32 = (uint32_t)i;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, s->fd, &ee) == -1)
			die("epoll_ctl: %s", strerror(errno));
		s->gfd = -1;
		if (group == NULL)
			continue;
		s->gfd = group_socket(&gmr, conf.port);
		ee.data.u32 = (uint32_t)i | GROUP_BIT;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, s->gfd, &ee) == -1)
			die("epoll_ctl: %s", strerror(errno));
	}
	sodium_memzero(&secret, sizeof(secret));
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	t0 = now_mono_ns();
	for (int k = 0; k < nsjobs; k++)	/* there from the start */
		if (jobs[k].from <= 0 && jobs[k].to <= 0) {
			jobs[k].on = jobs[k].entered = 1;
			jobs[k].changed = t0;
		}
	if (dur > 0)
		end = t0 + (int64_t)(dur * NS_PER_SEC);
	printf("ready=%d\n", nsim);
	fflush(stdout);
	while (!stop) {
		int	 n = epoll_wait(ep, evs, 256, 10);
		int64_t	 now;

		for (int i = 0; i < n; i++) {
			struct sim *s = &sims[evs[i].data.u32 & ~GROUP_BIT];

			drain(s, evs[i].data.u32 & GROUP_BIT ? s->gfd : s->fd);
		}
		now = now_mono_ns();
		if (now - last_tick >= 10 * NS_PER_MS) {
			tick(steps, nsteps, t0);
			last_tick = now;
		}
		if (end != 0 && now >= end)
			break;
	}
	/* what arrived before the end is counted, even if not read yet */
	for (int i = 0; i < nsim; i++) {
		drain(&sims[i], sims[i].fd);
		if (sims[i].gfd != -1)
			drain(&sims[i], sims[i].gfd);
	}
	report(prefix, (double)(now_mono_ns() - t0) / NS_PER_SEC);
	report_nodes(prefix);
	report_jobs();
	return 0;
}
