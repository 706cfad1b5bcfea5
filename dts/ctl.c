/*
 * ctl.c - control datagrams.  See ctl.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ctl.h"
#include "log.h"
#include "timeutil.h"
#include "trace.h"

int
ctl_open(struct ctl *c, const char *addr, int port, int64_t replay_window,
	 char *err, size_t errlen)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int on = 1;

	memset(c->rejected, 0, sizeof(c->rejected));
	c->have_console = 0;
	if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1) {
		snprintf(err, errlen, "bind address \"%s\" is not an IPv4 address", addr);
		return -1;
	}
	c->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0 ||
	    setsockopt(c->fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)) < 0 ||
	    setsockopt(c->fd, SOL_SOCKET, SO_BROADCAST, &on, sizeof(on)) < 0 ||
	    bind(c->fd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
		snprintf(err, errlen, "control socket %s:%d: %s", addr, port, strerror(errno));
		if (c->fd >= 0)
			close(c->fd);
		c->fd = -1;
		return -1;
	}
	replay_init(&c->replay, now_real_us(), (uint64_t)(replay_window / NS_PER_US));
	seqgen_init(&c->seq);
	if (gethostname(c->name, sizeof(c->name) - 1) < 0)
		snprintf(c->name, sizeof(c->name), "?");
	return 0;
}

static void
reply(struct ctl *c, struct proto_msg *m, const struct sockaddr_in *to)
{
	uint8_t buf[PROTO_MAX_DGRAM];
	int n = proto_seal(&c->key, &c->seq, now_real_us(), m, buf, sizeof(buf));

	if (n > 0 && sendto(c->fd, buf, (size_t)n, 0, (const struct sockaddr *)to,
	    sizeof(*to)) < 0)
		log_debug("reply to %s: %s", inet_ntoa(to->sin_addr), strerror(errno));
}

static void
send_status(struct ctl *c, struct sched *s, const struct sockaddr_in *to)
{
	struct proto_msg m = { .hdr.type = PROTO_STATUS };

	sched_status(s, &m.u.status, now_mono_ns());
	memcpy(m.u.status.rejected, c->rejected, sizeof(c->rejected));
	snprintf(m.u.status.name, sizeof(m.u.status.name), "%s", c->name);
	reply(c, &m, to);
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
	struct proto_msg m = { .hdr.type = PROTO_TRACE };
	struct trace_edge e[PROTO_TRACE_MAX];
	int more, n = trace_since((int64_t)since, e, PROTO_TRACE_MAX, &more);

	m.u.trace.count = (uint32_t)n;
	m.u.trace.more = (uint32_t)more;
	for (int i = 0; i < n; i++) {
		m.u.trace.edge[i].real_ns = (uint64_t)e[i].real;
		m.u.trace.edge[i].late_ns = sat32(e[i].late);
		m.u.trace.edge[i].op_ns = sat32(e[i].op);
		m.u.trace.edge[i].phase = e[i].phase;
	}
	reply(c, &m, to);
}

/* Kernel receive time (SO_TIMESTAMPNS, CLOCK_REALTIME), or now. */
static int64_t
rx_time(struct msghdr *mh)
{
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec ts;
			memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
			return ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
		}
	}
	return now_real_ns();
}

static void
handle(struct ctl *c, struct sched *s, const uint8_t *buf, size_t len,
       const struct sockaddr_in *from, int64_t rx_real)
{
	struct proto_msg m;
	enum proto_reject why;
	int64_t now_real = now_real_ns(), now_mono = now_mono_ns();
	const char *err;

	if (proto_open(&c->key, &c->replay, (uint64_t)(now_real / NS_PER_US),
	    buf, len, &m, &why) < 0) {
		c->rejected[why]++;
		log_debug("dropped datagram from %s: %s", inet_ntoa(from->sin_addr),
		    proto_reject_name(why));
		return;
	}
	switch (m.hdr.type) {
	case PROTO_SCHEDULE:
		/* the arrival instant, on the monotonic clock */
		if (sched_apply(s, &m.u.schedule, now_mono - (now_real - rx_real),
		    rx_real, &err) < 0) {
			c->rejected[REJ_RANGE]++;
			log_warnx("schedule from %s rejected: %s",
			    inet_ntoa(from->sin_addr), err);
			return;
		}
		s->last_console = now_mono;	/* a console synchronized us */
		c->console = *from;	/* load reports go to the master */
		c->have_console = 1;
		break;
	case PROTO_STATUS_REQ:
		break;
	case PROTO_TRACE_REQ:	/* answered with TRACE only */
		send_trace(c, m.u.trace_req.since_ns, from);
		return;
	default:	/* STATUS, LOAD and TRACE are for consoles */
		c->rejected[REJ_TYPE]++;
		return;
	}
	send_status(c, s, from);
}

void
ctl_input(struct ctl *c, struct sched *s)
{
	uint8_t buf[PROTO_MAX_DGRAM + 1];
	char cbuf[CMSG_SPACE(sizeof(struct timespec))];

	for (int i = 0; i < 64; i++) {
		struct sockaddr_in from;
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct msghdr mh = {
			.msg_name = &from, .msg_namelen = sizeof(from),
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
		};
		ssize_t n = recvmsg(c->fd, &mh, MSG_TRUNC);

		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				log_warn("recvmsg");
			return;
		}
		if ((size_t)n > PROTO_MAX_DGRAM || (mh.msg_flags & MSG_TRUNC)) {
			c->rejected[REJ_LONG]++;
			continue;
		}
		handle(c, s, buf, (size_t)n, &from, rx_time(&mh));
	}
}

void
ctl_send_load(struct ctl *c, uint32_t load_milli, uint32_t ncpu)
{
	struct proto_msg m = { .hdr.type = PROTO_LOAD };

	if (!c->have_console)
		return;
	m.u.load.load_milli = load_milli;
	m.u.load.ncpu = ncpu;
	reply(c, &m, &c->console);
}

void
ctl_close(struct ctl *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}
