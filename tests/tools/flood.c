/*
 * flood.c - floods one dts control port with forged datagrams, for the
 * flood benchmark (tests/bench/bench-flood.sh).
 *
 *   flood [-a ADDR] -p PORT [-t SECONDS] [-r RATE] [-b BATCH]
 *         [-T schedule|slots|status|trace|job] [-i KEY_ID] [-J JOB]
 *         [-S SRC:SPORT]
 *
 *   -a ADDR     destination address (default 127.0.0.1)
 *   -p PORT     destination UDP port (required)
 *   -t SECONDS  how long to send, decimals allowed (default 1)
 *   -r RATE     datagrams per second; 0 (the default) = as fast as possible
 *   -b BATCH    datagrams per sendmmsg() call, 1..1024 (default 64)
 *   -T TYPE     message type, one the node accepts: schedule (default),
 *               slots (a SCHEDULE whose slot table gives the whole PS to
 *               the job -J names), status (STATUS_REQ), trace (TRACE_REQ)
 *               or job (JOB_REQ, index 0)
 *   -J JOB      the job of -T slots, USER:LABEL (default "root:pvm")
 *   -i KEY_ID   the key_id to claim, 8 hexadecimal digits: the real
 *               console key's (its public key's first 8 digits), so that
 *               every forgery costs the node a signature check
 *   -S SRC:SPORT  forge the source too: every datagram from SRC port
 *               SPORT (e.g. the master console's), through a raw socket
 *               (root; IP and UDP headers written here, UDP checksum 0)
 *
 * Every datagram is what a forger without the key sends: correctly
 * framed by proto_encode() (magic, version, the type, its payload length,
 * key_id as -i says) with a valid, in-range payload (a SCHEDULE that
 * proto_check_schedule() accepts: static, PS 50 ms, IP 100 ms), a fresh
 * random sender id and a current sequence (the sender's CLOCK_REALTIME in
 * µs, as a real sender's), followed by a command's tag length
 * (PROTO_SIG_LEN) of random bytes as the signature.  So a receiver can
 * reject it only at the signature check (or, before that, for its rate).
 * Nothing is ever signed.
 *
 * At the end it prints one line:
 *   flood: sent=N seconds=S rate=R size=BYTES errors=E
 * (R = N / S, datagrams per second; E = send calls that failed, e.g.
 * ECONNREFUSED while nothing listens on the port).
 *
 * Exit status: 0 done, 1 error (socket, or nothing could be sent),
 * 2 bad usage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "proto.h"
#include "timeutil.h"
#include "wire.h"
#include "xorshift.h"

#define BATCH_MAX 1024
#define SPOOF_HDR ((size_t)(sizeof(struct iphdr) + sizeof(struct udphdr)))

static void __attribute__((noreturn, format(printf, 1, 2)))
die_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "flood: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (usage: flood [-a ADDR] -p PORT [-t SECONDS] [-r RATE]"
		" [-b BATCH] [-T schedule|slots|status|trace|job] [-J JOB]"
		" [-S SRC:SPORT])\n");
	exit(2);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "flood: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* A non-negative decimal (fractions allowed if frac); -1 if not one. */
static double
parse_num(const char *s, int frac)
{
	char *end;
	double v;

	if (*s == '\0' || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || v != v || v > 1e12)
		return -1;
	if (!frac && v != (double)(uint64_t)v)
		return -1;
	return v;
}

/* xorshift64*: the random sender ids and tags (fast, seeded once). */
static uint64_t rng;

static uint64_t
rnd(void)
{
	return xorshift64s(&rng);
}

/* -T slots: a SCHEDULE with a slot table (type_parse's own code). */
#define T_SLOTS 1000

static int
type_parse(const char *s)
{
	if (strcmp(s, "schedule") == 0)
		return PROTO_SCHEDULE;
	if (strcmp(s, "slots") == 0)
		return T_SLOTS;
	if (strcmp(s, "job") == 0)
		return PROTO_JOB_REQ;
	if (strcmp(s, "status") == 0)
		return PROTO_STATUS_REQ;
	if (strcmp(s, "trace") == 0)
		return PROTO_TRACE_REQ;
	return -1;
}

/* The template message: a valid payload of the type. */
static void
template_msg(struct proto_msg *m, int type, const char *job)
{
	const char *err;
	int slots = type == T_SLOTS;

	memset(m, 0, sizeof(*m));
	if (slots)
		type = PROTO_SCHEDULE;
	m->hdr.type = (uint8_t)type;
	if (type == PROTO_SCHEDULE) {
		m->u.schedule.mode = MODE_STATIC;
		m->u.schedule.sync = SYNC_ARRIVAL;
		m->u.schedule.flags = SCHED_F_ACTIVE | SCHED_F_SYNC;
		m->u.schedule.ps_us = 50000;
		m->u.schedule.ip_us = 100000;
		m->u.schedule.si_us = 1000000;
		m->u.schedule.origin_ns = (uint64_t)now_real_ns();
		if (slots) {	/* the whole PS to one job */
			if (strlen(job) >= PROTO_JOB_LEN)
				die("-J %s: a job name is at most %d bytes", job,
				    PROTO_JOB_LEN - 1);
			m->u.schedule.nslots = 1;
			memcpy(m->u.schedule.slot[0].job, job, strlen(job));
			m->u.schedule.slot[0].start_us = 0;
			m->u.schedule.slot[0].len_us = m->u.schedule.ps_us;
		}
		if (proto_check_schedule(&m->u.schedule, &err) < 0)
			die("the forged SCHEDULE is out of range: %s", err);
	} else if (type == PROTO_TRACE_REQ) {
		m->u.trace_req.since_ns = (uint64_t)now_real_ns();
	}
}

/*
 * One forged datagram into buf: the template with a fresh sender and
 * sequence, encoded, and a random tag.  Returns its length.
 */
static size_t
forge(struct proto_msg *m, uint64_t seq, uint8_t *buf)
{
	size_t tag = proto_tag_len(m->hdr.type);
	int n;

	m->hdr.sender = (uint32_t)(rnd() >> 32);
	m->hdr.seq = seq;
	n = proto_encode(m, buf, PROTO_MAX_DGRAM - tag);
	if (n < 0)
		die("cannot encode a datagram of type %u", m->hdr.type);
	for (size_t i = 0; i < tag; i += 8) {
		uint64_t r = rnd();
		size_t k = tag - i < 8 ? tag - i : 8;
		memcpy(buf + n + i, &r, k);
	}
	return (size_t)n + tag;
}

static int
open_socket(const char *addr, const char *port)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_DGRAM };
	struct addrinfo *ai;
	int fd, rc;

	if ((rc = getaddrinfo(addr, port, &hints, &ai)) != 0)
		die("%s port %s: %s", addr, port, gai_strerror(rc));
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen) < 0)
		die("%s port %s: %s", addr, port, strerror(errno));
	freeaddrinfo(ai);
	return fd;
}

/* -S: a raw socket connected to addr; *dst, the destination. */
static int
open_raw(const char *addr, const char *port, struct sockaddr_in *dst)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_DGRAM };
	struct addrinfo *ai;
	int fd, rc;

	if ((rc = getaddrinfo(addr, port, &hints, &ai)) != 0)
		die("%s port %s: %s", addr, port, gai_strerror(rc));
	*dst = *(struct sockaddr_in *)ai->ai_addr;
	freeaddrinfo(ai);
	fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	if (fd < 0 || connect(fd, (struct sockaddr *)dst, sizeof(*dst)) < 0)
		die("raw socket to %s: %s", addr, strerror(errno));
	return fd;
}

/* The IP and UDP headers of a datagram of len bytes from src to dst. */
static void
spoof_hdr(uint8_t *p, size_t len, const struct sockaddr_in *src,
    const struct sockaddr_in *dst)
{
	struct iphdr ip = {
		.version = 4, .ihl = 5, .ttl = 64, .protocol = IPPROTO_UDP,
		.tot_len = htons((uint16_t)(SPOOF_HDR + len)),
		.saddr = src->sin_addr.s_addr, .daddr = dst->sin_addr.s_addr,
	};
	struct udphdr udp = {
		.source = src->sin_port, .dest = dst->sin_port,
		.len = htons((uint16_t)(sizeof(udp) + len)),
	};

	memcpy(p, &ip, sizeof(ip));
	memcpy(p + sizeof(ip), &udp, sizeof(udp));
}

static void
sleep_until(int64_t mono_ns)
{
	struct timespec ts = {
		.tv_sec = mono_ns / NS_PER_SEC, .tv_nsec = mono_ns % NS_PER_SEC
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

int
main(int argc, char **argv)
{
	static uint8_t bufs[BATCH_MAX][SPOOF_HDR + PROTO_MAX_DGRAM];
	static struct mmsghdr mm[BATCH_MAX];
	static struct iovec iov[BATCH_MAX];
	const char *addr = "127.0.0.1", *port = NULL, *job = "root:pvm";
	double secs = 1, rate = 0, v;
	unsigned batch = 64;
	int opt, fd, type = PROTO_SCHEDULE;
	uint32_t key_id = 0;
	char *end_id;
	uint64_t sent = 0, errors = 0, seq_last = 0;
	int64_t t0, end, now;
	size_t len = 0;
	struct proto_msg m;
	struct sockaddr_in src = { .sin_family = AF_INET }, dst;
	const char *spoof = NULL;
	size_t off = 0;

	opterr = 0;
	while ((opt = getopt(argc, argv, ":a:p:t:r:b:T:i:J:S:")) != -1) {
		switch (opt) {
		case 'a': addr = optarg; break;
		case 'p':
			v = parse_num(optarg, 0);
			if (v < 1 || v > 65535)
				die_usage("-p: bad port '%s'", optarg);
			port = optarg;
			break;
		case 't':
			if ((secs = parse_num(optarg, 1)) <= 0 || secs > 86400)
				die_usage("-t: bad duration '%s' (seconds, > 0)", optarg);
			break;
		case 'r':
			if ((rate = parse_num(optarg, 0)) < 0 || rate > 1e9)
				die_usage("-r: bad rate '%s' (datagrams per second, 0 = max)",
					  optarg);
			break;
		case 'b':
			v = parse_num(optarg, 0);
			if (v < 1 || v > BATCH_MAX)
				die_usage("-b: bad batch '%s' (1..%d)", optarg, BATCH_MAX);
			batch = (unsigned)v;
			break;
		case 'T':
			if ((type = type_parse(optarg)) < 0)
				die_usage("-T: bad type '%s'", optarg);
			break;
		case 'J': job = optarg; break;
		case 'S': {
			char a[INET_ADDRSTRLEN];
			const char *colon = strchr(optarg, ':');

			spoof = optarg;
			v = colon != NULL ? parse_num(colon + 1, 0) : -1;
			if (colon == NULL || (size_t)(colon - optarg) >= sizeof(a) ||
			    v < 1 || v > 65535)
				die_usage("-S: bad source '%s' (ADDR:PORT)", optarg);
			memcpy(a, optarg, (size_t)(colon - optarg));
			a[colon - optarg] = '\0';
			if (inet_pton(AF_INET, a, &src.sin_addr) != 1)
				die_usage("-S: bad address '%s'", a);
			src.sin_port = htons((uint16_t)v);
			break;
		}
		case 'i':
			errno = 0;
			key_id = (uint32_t)strtoul(optarg, &end_id, 16);
			if (errno != 0 || *end_id != '\0' || strlen(optarg) != 8)
				die_usage("-i: bad key id '%s' (8 hexadecimal digits)",
					  optarg);
			break;
		case ':':
			die_usage("-%c needs a value", optopt);
		default:
			die_usage("unknown option -%c", optopt);
		}
	}
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	if (port == NULL)
		die_usage("-p PORT missing");

	if (getrandom(&rng, sizeof(rng), 0) != sizeof(rng))
		die("getrandom: %s", strerror(errno));
	rng |= 1;
	if (spoof != NULL) {
		fd = open_raw(addr, port, &dst);
		off = SPOOF_HDR;
	} else
		fd = open_socket(addr, port);
	template_msg(&m, type, job);
	m.hdr.key_id = key_id;
	for (unsigned i = 0; i < batch; i++) {
		iov[i].iov_base = bufs[i];
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}

	t0 = now_mono_ns();
	end = t0 + (int64_t)(secs * 1e9);
	while ((now = now_mono_ns()) < end) {
		uint64_t due = batch, seq;
		unsigned n;
		int r;

		if (rate > 0) {
			/* datagrams due by now; else sleep until a chunk is due
			   (at most about 1000 wake-ups a second) */
			due = (uint64_t)((double)(now - t0) * rate / 1e9) + 1;
			due = due > sent ? due - sent : 0;
			if (due == 0) {
				double chunk = rate / 1000 < 1 ? 1 : rate / 1000;
				int64_t at = t0 + (int64_t)(((double)sent + chunk) * 1e9 / rate);
				sleep_until(at < end ? at : end);
				continue;
			}
			if (due > batch)
				due = batch;
		}
		n = (unsigned)due;
		/* a current sequence, strictly increasing as a real sender's */
		seq = now_real_us();
		if (seq <= seq_last)
			seq = seq_last + 1;
		for (unsigned i = 0; i < n; i++) {
			len = forge(&m, seq + i, bufs[i] + off);
			if (spoof != NULL)
				spoof_hdr(bufs[i], len, &src, &dst);
			iov[i].iov_len = off + len;
		}
		seq_last = seq + n - 1;
		r = sendmmsg(fd, mm, n, 0);
		if (r < 0) {
			errors++;
			if (errno == ENOBUFS || errno == EAGAIN)
				usleep(100);	/* the device queue is full */
			continue;
		}
		sent += (uint64_t)r;
	}
	now = now_mono_ns();
	close(fd);
	secs = (double)(now - t0) / 1e9;
	printf("flood: sent=%" PRIu64 " seconds=%.3f rate=%.0f size=%zu errors=%" PRIu64 "\n",
	       sent, secs, (double)sent / secs, len, errors);
	return sent > 0 ? 0 : 1;
}
