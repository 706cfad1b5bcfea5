/*
 * owd.c - UDP one-way delay and arrival spread between the hosts of a
 * test cluster (network namespaces that share one CLOCK_REALTIME), for
 * bench-sync.sh.
 *
 *   owd send [-r RTPRIO] [-i INTERVAL_US] SECONDS ADDR PORT
 *   owd recv [-r RTPRIO] SECONDS PORT OUT.csv
 *
 * send: for SECONDS, one datagram every INTERVAL_US (default 10000, on
 *   absolute CLOCK_MONOTONIC deadlines) to ADDR:PORT, with SO_BROADCAST
 *   set, so ADDR may be the subnet's broadcast address (as dts-console
 *   sends its schedules).  Payload: a magic number, a sequence number and
 *   the CLOCK_REALTIME time read just before sendto.  stdout: "owd sent=N".
 * recv: binds PORT on every address with SO_TIMESTAMPNS; for every probe
 *   it records its sequence number, the sender's time (tx_ns), the
 *   kernel's receive stamp (rx_ns, CLOCK_REALTIME) and the time recvmsg
 *   returned (user_ns, CLOCK_REALTIME), and at the end writes OUT.csv:
 *   seq,tx_ns,rx_ns,user_ns.  stdout: "owd received=N".
 * One-way delay = rx_ns - tx_ns; the spread of one broadcast across hosts
 * = the difference of their rx_ns for the same seq; user_ns - rx_ns is
 * the receiver's own wake-up.  -r RTPRIO > 0: SCHED_FIFO RTPRIO and
 * mlockall (default 0: the policy it was started with).  SIGTERM or SIGINT
 * end either early (recv still writes what it has).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "burn.h"

#define OWD_MAGIC 0x4f574431u	/* "OWD1" */

struct probe {
	uint32_t magic, seq;
	int64_t tx;
};

struct rec {
	int64_t tx, rx, user;
	uint32_t seq;
};

static volatile sig_atomic_t quit;

static void
on_term(int sig)
{
	(void)sig;
	quit = 1;
}

static void
usage(void)
{
	fprintf(stderr, "usage: owd send [-r RTPRIO] [-i INTERVAL_US] SECONDS ADDR PORT\n"
		"       owd recv [-r RTPRIO] SECONDS PORT OUT.csv\n");
	exit(2);
}

static void
realtime(int prio)
{
	if (prio <= 0)
		return;
	if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
		perror("mlockall");
	struct sched_param sp = { .sched_priority = prio };
	if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
		perror("sched_setscheduler FIFO");
}

static void
normal(int prio)
{
	if (prio <= 0)
		return;
	struct sched_param sp = { .sched_priority = 0 };
	sched_setscheduler(0, SCHED_OTHER, &sp);
}

static int
port_arg(const char *s)
{
	int p = atoi(s);

	if (p <= 0 || p > 65535)
		usage();
	return p;
}

static int
do_send(int prio, int64_t interval, double secs, const char *addr, int port)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int on = 1, fd;

	if (inet_pton(AF_INET, addr, &to.sin_addr) != 1)
		usage();
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &on, sizeof(on)) < 0) {
		perror("socket");
		return 1;
	}
	realtime(prio);
	uint32_t seq = 0;
	int64_t dl = ns(CLOCK_MONOTONIC) + interval, end = dl + (int64_t)(secs * 1e9);
	for (; !quit && dl < end; dl += interval) {
		struct timespec ts = { dl / 1000000000LL, dl % 1000000000LL };
		while (!quit && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		if (quit)
			break;
		struct probe p = { .magic = OWD_MAGIC, .seq = seq };
		p.tx = ns(CLOCK_REALTIME);
		if (sendto(fd, &p, sizeof(p), 0, (const struct sockaddr *)&to, sizeof(to)) < 0)
			perror("sendto");	/* a lost probe is a gap in seq */
		seq++;
		/* a late wake-up: skip the missed slots, no burst */
		int64_t now = ns(CLOCK_MONOTONIC);
		while (dl + interval < now)
			dl += interval;
	}
	normal(prio);
	close(fd);
	printf("owd sent=%u\n", seq);
	return 0;
}

static int
do_recv(int prio, double secs, int port, const char *out)
{
	struct sockaddr_in me = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
	    .sin_addr.s_addr = htonl(INADDR_ANY) };
	struct timeval tv = { 0, 100000 };	/* look at the clock and quit 10 times a second */
	int on = 1, fd;

	size_t max = (size_t)(secs * 2000) + 16, n = 0;
	struct rec *r = calloc(max, sizeof(*r));
	if (r == NULL) {
		perror("calloc");
		return 1;
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    bind(fd, (const struct sockaddr *)&me, sizeof(me)) < 0) {
		perror("socket");
		return 1;
	}
	realtime(prio);
	int64_t end = ns(CLOCK_MONOTONIC) + (int64_t)(secs * 1e9);
	while (!quit && ns(CLOCK_MONOTONIC) < end && n < max) {
		struct probe p;
		union {
			char buf[CMSG_SPACE(sizeof(struct timespec))];
			struct cmsghdr align;
		} ctl;
		struct iovec iov = { &p, sizeof(p) };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
		    .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf) };
		ssize_t len = recvmsg(fd, &m, 0);
		int64_t user = ns(CLOCK_REALTIME), rx = -1;
		if (len < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				continue;
			perror("recvmsg");
			break;
		}
		if (len != (ssize_t)sizeof(p) || p.magic != OWD_MAGIC)
			continue;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c != NULL; c = CMSG_NXTHDR(&m, c)) {
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
				struct timespec ts;
				memcpy(&ts, CMSG_DATA(c), sizeof(ts));
				rx = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
			}
		}
		if (rx < 0)
			continue;	/* no kernel stamp: no figure */
		r[n].seq = p.seq;
		r[n].tx = p.tx;
		r[n].rx = rx;
		r[n].user = user;
		n++;
	}
	normal(prio);
	close(fd);
	FILE *f = fopen(out, "w");
	if (f == NULL) {
		perror(out);
		return 1;
	}
	fprintf(f, "seq,tx_ns,rx_ns,user_ns\n");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%u,%lld,%lld,%lld\n", r[i].seq, (long long)r[i].tx,
			(long long)r[i].rx, (long long)r[i].user);
	if (fclose(f) != 0) {
		perror(out);
		return 1;
	}
	printf("owd received=%zu\n", n);
	return 0;
}

int
main(int argc, char **argv)
{
	int prio = 0, c;
	int64_t interval = 10000000;

	if (argc < 2)
		usage();
	const char *cmd = argv[1];
	argc--;
	argv++;
	while ((c = getopt(argc, argv, "r:i:")) != -1) {
		if (c == 'r')
			prio = atoi(optarg);
		else if (c == 'i' && strcmp(cmd, "send") == 0)
			interval = atoll(optarg) * 1000LL;
		else
			usage();
	}
	if (prio < 0 || prio > sched_get_priority_max(SCHED_FIFO) || interval <= 0)
		usage();

	struct sigaction sa = { .sa_handler = on_term };	/* no SA_RESTART */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	if (strcmp(cmd, "send") == 0 && argc - optind == 3) {
		double secs = atof(argv[optind]);
		if (secs <= 0)
			usage();
		return do_send(prio, interval, secs, argv[optind + 1], port_arg(argv[optind + 2]));
	}
	if (strcmp(cmd, "recv") == 0 && argc - optind == 3) {
		double secs = atof(argv[optind]);
		if (secs <= 0)
			usage();
		return do_recv(prio, secs, port_arg(argv[optind + 1]), argv[optind + 2]);
	}
	usage();
	return 2;
}
