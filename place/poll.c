/*
 * poll.c - the hosts' STATUS for dts-place.  See poll.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "poll.h"
#include "timeutil.h"
#include "wire.h"

int
hosts_init(struct hosts *t, const struct dts_conf *c, const char *job,
    char *err, size_t errlen)
{
	struct sockaddr_in	 sin = { .sin_family = AF_INET };
	char			 why[200];
	int			 i;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->port = c->port;
	snprintf(t->job, sizeof(t->job), "%s", job);
	t->pc = (struct place_conf){
		.history = c->place.history, .threshold = c->place.threshold,
		.reserve = c->place.reserve,
		.load_weight = c->place.load_weight,
		.rt_weight = c->place.rt_weight,
		.mem_min_mib = (uint32_t)c->place.mem_min_mib,
		.checks = c->place.checks, .stale_ns = c->place.stale_ns,
	};
	seqgen_init(&t->seq);
	replay_init(&t->replay, now_real_us(), now_mono_us(),
	    (uint64_t)(c->replay_window_ns / NS_PER_US));
	if (c->console_keys.n == 0) {
		snprintf(t->why, sizeof(t->why), "console_keys is empty in "
		    "%.180s, so there is no read key to ask the hosts with",
		    c->file[0] != '\0' ? c->file : "the configuration");
		return 0;
	}
	for (i = 0; i < c->console_keys.n; i++)
		if (auth_pub_add(&t->rkey, c->console_keys.s[i], why,
		    sizeof(why)) == -1) {
			snprintf(err, errlen, "console_keys: %s", why);
			return -1;
		}
	t->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (t->fd == -1 || bind(t->fd, (struct sockaddr *)&sin,
	    sizeof(sin)) == -1) {
		snprintf(err, errlen, "UDP socket: %s", strerror(errno));
		if (t->fd != -1)
			close(t->fd);
		t->fd = -1;
		return -1;
	}
	return 0;
}

static void
resolve(struct hosts *t, int i)
{
	struct addrinfo	 hints = { .ai_family = AF_INET,
	    .ai_socktype = SOCK_DGRAM }, *res;

	if (getaddrinfo(t->h[i].name, NULL, &hints, &res) != 0) {
		log_warnx("host %s: no IPv4 address: its load is not known",
		    t->h[i].name);
		return;
	}
	t->addr[i] = ((struct sockaddr_in *)res->ai_addr)->sin_addr;
	freeaddrinfo(res);
}

int
hosts_find(struct hosts *t, const char *name, int speed)
{
	int	 i;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->h[i].name, name) == 0)
			break;
	if (i == t->n) {
		if (t->n == PLACE_HOSTS_MAX)
			return -1;
		memset(&t->h[i], 0, sizeof(t->h[i]));
		memset(&t->e[i], 0, sizeof(t->e[i]));
		snprintf(t->h[i].name, sizeof(t->h[i].name), "%s", name);
		t->h[i].ncpu = 1;
		t->n++;
		resolve(t, i);
	}
	t->h[i].w = speed > 0 ? speed / 1000.0 : 1.0;
	return i;
}

static void
ask_one(struct hosts *t, int i)
{
	struct proto_msg	 m = { .hdr.type = PROTO_STATUS_REQ };
	struct sockaddr_in	 to = { .sin_family = AF_INET };
	uint8_t			 buf[PROTO_MAX_DGRAM];
	int			 len;

	if (t->fd == -1 || t->addr[i].s_addr == 0)
		return;
	len = proto_seal_read(t->rkey.read[0], &t->seq, now_mono_us(), &m,
	    buf, sizeof(buf));
	if (len == -1)
		return;
	to.sin_addr = t->addr[i];
	to.sin_port = htons((uint16_t)t->port);
	if (sendto(t->fd, buf, (size_t)len, 0, (struct sockaddr *)&to,
	    sizeof(to)) == -1)
		log_debug("%s: STATUS request to %s: %s", __func__,
		    t->h[i].name, strerror(errno));
}

void
hosts_ask(struct hosts *t, const int *idx, int k)
{
	int	 i;

	t->last_round = now_mono_ns();
	if (idx == NULL)
		for (i = 0; i < t->n; i++)
			ask_one(t, i);
	else
		for (i = 0; i < k; i++)
			ask_one(t, idx[i]);
}

/* A STATUS of host i: what it says for placement. */
static void
take(struct hosts *t, int i, const struct proto_status *st)
{
	struct place_report	 r = { 0 };
	unsigned		 j;

	r.q = st->load_milli / 1000.0;
	r.ncpu = st->ncpu;
	r.mem_mib = st->mem_mib;
	r.users = st->users;
	for (j = 0; j < st->njobs && j < PROTO_JOBS_MAX; j++) {
		if (strncmp(st->job[j].job, t->job, PROTO_JOB_LEN) == 0)
			r.own = st->job[j].members > 0 ?
			    (int)st->job[j].members - 1 : 0; /* not pvmd */
		else
			r.rt += (int)st->job[j].members;
	}
	if (t->self_extra > 0 && strcmp(t->h[i].name, t->self) == 0)
		r.own = r.own > t->self_extra ? r.own - t->self_extra : 0;
	place_take(&t->h[i], &t->pc, &r, now_mono_ns());
	for (j = 0; j < (unsigned)t->n; j++)
		if (!t->h[j].known && t->addr[j].s_addr != 0)
			break;
	place_check(&t->h[i], &t->pc, j < (unsigned)t->n ? NAN :
	    place_mean(t->h, t->n, -1, &t->pc));
	log_debug("%s: %s: Q %.2f ncpu %d free RAM %u MiB users %d other "
	    "gangs %d own %d -> load %.2f (history %.2f)", __func__,
	    t->h[i].name, r.q, r.ncpu, r.mem_mib, r.users, r.rt, r.own,
	    t->h[i].q, t->pc.history);
}

/* The reply in buf from a: under the read key, fresh, a STATUS. */
static void
accept_one(struct hosts *t, const uint8_t *buf, size_t len,
    struct in_addr a)
{
	enum proto_reject	 why;
	struct proto_msg	 m;
	struct auth_key		 k = { 0 };
	int			 i, j, rc = -1;

	for (i = 0; i < t->n; i++)
		if (t->addr[i].s_addr == a.s_addr)
			break;
	if (i == t->n || proto_frame(buf, len, PROTO_ACCEPT_CONSOLE, &m,
	    &why) == -1 || m.hdr.type != PROTO_STATUS)
		return;
	(void)replay_clock(&t->replay, now_real_us(), now_mono_us());
	for (j = 0; j < t->rkey.npub && rc == -1; j++) {
		memcpy(k.key, t->rkey.read[j], sizeof(k.key));
		rc = proto_verify_peer(&k, &t->replay, &t->e[i], buf, len, &m,
		    &why);
		if (rc == -1 && why != REJ_MAC)
			break;
	}
	sodium_memzero(&k, sizeof(k));
	if (rc == 0)
		take(t, i, &m.u.status);
}

void
hosts_read(struct hosts *t)
{
	uint8_t			 buf[PROTO_MAX_DGRAM + 1];
	struct sockaddr_in	 from;
	socklen_t		 fl;
	ssize_t			 n;

	if (t->fd == -1)
		return;
	for (;;) {
		fl = sizeof(from);
		n = recvfrom(t->fd, buf, sizeof(buf), 0,
		    (struct sockaddr *)&from, &fl);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		accept_one(t, buf, (size_t)n, from.sin_addr);
	}
}

static int
all_known(const struct hosts *t, const int *idx, int k, int64_t since)
{
	int	 i;

	for (i = 0; i < k; i++)
		if ((!t->h[idx[i]].known || t->h[idx[i]].report_ns < since) &&
		    t->addr[idx[i]].s_addr != 0)
			return 0;
	return 1;
}

void
hosts_wait(struct hosts *t, const int *idx, int k, int64_t wait_ns,
    int64_t since)
{
	int64_t		 end = now_mono_ns() + wait_ns, left;
	struct pollfd	 p = { .fd = t->fd, .events = POLLIN };

	if (t->fd == -1)
		return;
	while (!all_known(t, idx, k, since) && (left = end - now_mono_ns()) > 0) {
		if (poll(&p, 1, (int)(left / NS_PER_MS) + 1) > 0)
			hosts_read(t);
	}
}

void
hosts_fini(struct hosts *t)
{
	if (t->fd != -1)
		close(t->fd);
	sodium_memzero(&t->rkey, sizeof(t->rkey));
	t->fd = -1;
}
