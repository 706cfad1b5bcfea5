/*
 * lanswitch.c - a user-space Ethernet switch that emulates a LAN between
 * the hosts of a test cluster (tests/system/cluster.sh, C_LAN=tap): every
 * link adds a delay with jitter, loses frames and has a finite rate.
 *
 *   lanswitch [-b BUSY_US] [-d DELAY_US] [-j JITTER_US] [-l LOSS] [-r RATE]
 *             [-s SEED] [-S STATSFILE] [-R RTPRIO] [-q QUEUE] TAP...
 *
 * It creates one TAP device per name (TUNSETIFF, IFF_TAP|IFF_NO_PI, not
 * persistent: the device goes away with lanswitch), prints "ready" on
 * stdout and then switches frames between them: it learns source MACs
 * and sends a unicast frame to the port its destination was learned on,
 * or floods it (broadcast, multicast, unknown) to every other port.  The
 * caller may move a device to another network namespace (`ip link set
 * TAP netns NS name eth0`) after "ready": the fd stays attached to it.
 *
 * Every frame crosses two links, host -> switch and switch -> host.
 * Each link, independently:
 *   - drops it with probability LOSS (default 0.001);
 *   - serialises it at RATE bits/s (default 1g; suffixes k, m, g): a frame
 *     of B bytes occupies the link B*8e9/RATE ns, the next frame on the
 *     same link waits for it;
 *   - then delays it by a time drawn uniformly in [DELAY-JITTER,
 *     DELAY+JITTER] µs (defaults 100 and 50);
 *   - keeps its frames in order (a wire: a frame never leaves before the
 *     one ahead of it, whatever its own draw).
 * A frame is written to the host's TAP at its computed time (ppoll with a
 * 1 ns timer slack); a VM's timer wake-ups can come 50-100 µs late, so
 * -b BUSY_US > 0 sleeps only until BUSY_US before a departure and polls
 * from there on (costs CPU: up to BUSY_US per frame; default 0).  At most QUEUE
 * frames (default 512) wait per output port, more are dropped and counted
 * as "full".  -s SEED: the random draws (default from the time and pid).
 * -R RTPRIO > 0: SCHED_FIFO RTPRIO and mlockall (whoever starts it must
 * end it).
 *
 * Counters per port: in (frames the host sent), up_lost (lost on the link
 * host -> switch), down (frames the switch tried to send to the host),
 * down_lost (lost on switch -> host), out (written to the TAP), full,
 * werr (write errors).  On SIGTERM/SIGINT it writes them (to STATSFILE
 * if given, else stderr) and exits 0; SIGUSR1 writes STATSFILE now.
 * Format, one line per port then a total:
 *   port=K tap=NAME in=N up_lost=N down=N down_lost=N out=N full=N werr=N
 *   total links=N lost=N loss=F late_avg_us=F late_max_us=F
 * where links = in + down (link crossings tried), lost = up_lost +
 * down_lost, and late_* how long after its computed time a frame was
 * written to its TAP (mean, max: this machine's timer wake-ups).  Bad arguments: a one-line error, exit 2; a failure to set
 * up: exit 1.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "xorshift.h"

#define MAX_PORTS 64
#define FRAME_MAX 2048		/* MTU 1500 + header; no offloads (no vnet hdr) */
#define MAC_SLOTS 256

struct frame {
	int64_t due;		/* CLOCK_MONOTONIC ns */
	uint16_t len;
	unsigned char data[FRAME_MAX];
};

struct port {
	int fd;
	char name[IFNAMSIZ];
	int dead;
	/* host -> switch link */
	int64_t up_free, up_last;
	/* switch -> host link and its queue (a ring, in due order) */
	int64_t down_free, down_last;
	struct frame *q;
	unsigned head, count;
	uint64_t in, up_lost, down, down_lost, out, full, werr;
};

struct mac_entry {
	unsigned char mac[6];
	int port;		/* -1: empty */
};

static struct port ports[MAX_PORTS];
static int nports;
static unsigned qcap = 512;
static struct mac_entry macs[MAC_SLOTS];
static int64_t delay_ns = 100000, jitter_ns = 50000, busy_ns;
static double loss = 0.001;
static double rate = 1e9;
static uint64_t rng;
static const char *stats_file;
static volatile sig_atomic_t quit, dump;
static int64_t late_sum, late_max;	/* written - due, ns */
static uint64_t late_n;

static void
on_term(int sig)
{
	(void)sig;
	quit = 1;
}

static void
on_usr1(int sig)
{
	(void)sig;
	dump = 1;
}

static void __attribute__((noreturn))
usage(const char *why)
{
	fprintf(stderr, "lanswitch: %s (usage: lanswitch [-b BUSY_US] [-d DELAY_US] "
	    "[-j JITTER_US] [-l LOSS] [-r RATE] [-s SEED] [-S STATSFILE] [-R RTPRIO] [-q QUEUE] TAP...)\n",
	    why);
	exit(2);
}

static int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* xorshift64*: reproducible with -s */
static uint64_t
rnd(void)
{
	return xorshift64s(&rng);
}

static double
rnd01(void)
{
	return (double)(rnd() >> 11) / 9007199254740992.0;	/* [0, 1) */
}

static int64_t
link_delay(void)
{
	if (jitter_ns == 0)
		return delay_ns;
	return delay_ns - jitter_ns + (int64_t)(rnd01() * (double)(2 * jitter_ns + 1));
}

static int
lost(void)
{
	return loss > 0 && rnd01() < loss;
}

static int64_t
wire_ns(size_t len)
{
	return (int64_t)((double)len * 8e9 / rate + 0.5);
}

/*
 * One link crossing of a frame of len bytes that is ready to go at t:
 * when it has fully arrived at the other end.
 */
static int64_t
cross(int64_t *free_at, int64_t *last, int64_t t, size_t len)
{
	int64_t start = t > *free_at ? t : *free_at, arrive;

	*free_at = start + wire_ns(len);
	arrive = *free_at + link_delay();
	if (arrive < *last)
		arrive = *last;	/* no overtaking on a wire */
	*last = arrive;
	return arrive;
}

static int
parse_double(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return errno == 0 && end != s && *end == '\0' && *v == *v;
}

static int
parse_ll(const char *s, long long min, long long max, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 10);
	return errno == 0 && end != s && *end == '\0' && *v >= min && *v <= max;
}

static int
parse_rate(const char *s, double *v)
{
	char buf[64], *end;
	double m = 1;
	size_t n = strlen(s);

	if (n == 0 || n >= sizeof(buf))
		return 0;
	memcpy(buf, s, n + 1);
	switch (buf[n - 1]) {
	case 'k': case 'K': m = 1e3; break;
	case 'm': case 'M': m = 1e6; break;
	case 'g': case 'G': m = 1e9; break;
	default: break;
	}
	if (m != 1)
		buf[n - 1] = '\0';
	errno = 0;
	*v = strtod(buf, &end) * m;
	return errno == 0 && end != buf && *end == '\0' && *v >= 1e3 && *v <= 1e12;
}

static int
tap_open(const char *name)
{
	struct ifreq ifr;
	int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "lanswitch: /dev/net/tun: %s\n", strerror(errno));
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		fprintf(stderr, "lanswitch: TUNSETIFF %s: %s\n", name, strerror(errno));
		close(fd);
		return -1;
	}
	if (fcntl(fd, F_SETFL, O_NONBLOCK) < 0) {
		fprintf(stderr, "lanswitch: O_NONBLOCK: %s\n", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static unsigned
mac_hash(const unsigned char *m)
{
	unsigned h = 2166136261u;
	int i;

	for (i = 0; i < 6; i++)
		h = (h ^ m[i]) * 16777619u;
	return h % MAC_SLOTS;
}

static void
mac_learn(const unsigned char *m, int port)
{
	unsigned i = mac_hash(m), n;

	if (m[0] & 1)
		return;		/* a group address is no source */
	for (n = 0; n < MAC_SLOTS; n++, i = (i + 1) % MAC_SLOTS) {
		if (macs[i].port < 0 || memcmp(macs[i].mac, m, 6) == 0) {
			memcpy(macs[i].mac, m, 6);
			macs[i].port = port;
			return;
		}
	}
	/* table full (never with a test cluster): the frame floods */
}

static int
mac_find(const unsigned char *m)
{
	unsigned i = mac_hash(m), n;

	for (n = 0; n < MAC_SLOTS; n++, i = (i + 1) % MAC_SLOTS) {
		if (macs[i].port < 0)
			return -1;
		if (memcmp(macs[i].mac, m, 6) == 0)
			return macs[i].port;
	}
	return -1;
}

/* the frame reaches the switch at t: onto the link to port j */
static void
enqueue(int j, const unsigned char *data, size_t len, int64_t t)
{
	struct port *p = &ports[j];
	struct frame *f;

	if (p->dead)
		return;
	p->down++;
	if (lost()) {
		p->down_lost++;
		return;
	}
	if (p->count == qcap) {
		p->full++;
		return;
	}
	f = &p->q[(p->head + p->count) % qcap];
	f->due = cross(&p->down_free, &p->down_last, t, len);
	f->len = (uint16_t)len;
	memcpy(f->data, data, len);
	p->count++;
}

static void
receive(int i, int64_t now)
{
	unsigned char buf[FRAME_MAX];
	struct port *p = &ports[i];
	int64_t at;
	ssize_t n;
	int j, k;

	for (k = 0; k < 64; k++) {	/* a burst, then the others' turn */
		n = read(p->fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			/* the device is gone (its namespace was deleted) */
			p->dead = 1;
			return;
		}
		if (n < 14)
			continue;
		p->in++;
		if (lost()) {
			p->up_lost++;
			continue;
		}
		/*
		 * Every decision is taken now: the frame's switch arrival is
		 * known, and each output link is a FIFO in due order.
		 */
		at = cross(&p->up_free, &p->up_last, now, (size_t)n);
		mac_learn(buf + 6, i);
		j = (buf[0] & 1) ? -1 : mac_find(buf);
		if (j == i)
			continue;	/* a real switch filters it */
		if (j >= 0) {
			enqueue(j, buf, (size_t)n, at);
		} else {
			for (j = 0; j < nports; j++)
				if (j != i)
					enqueue(j, buf, (size_t)n, at);
		}
	}
}

static void
send_due(int64_t now)
{
	int j;

	for (j = 0; j < nports; j++) {
		struct port *p = &ports[j];

		while (p->count > 0 && p->q[p->head].due <= now) {
			struct frame *f = &p->q[p->head];

			if (!p->dead) {
				if (write(p->fd, f->data, f->len) == (ssize_t)f->len)
					p->out++;
				else
					p->werr++;
				late_sum += now - f->due;
				late_max = now - f->due > late_max ? now - f->due : late_max;
				late_n++;
			}
			p->head = (p->head + 1) % qcap;
			p->count--;
		}
	}
}

static void
write_stats(FILE *fp)
{
	uint64_t links = 0, lostn = 0;
	int i;

	for (i = 0; i < nports; i++) {
		struct port *p = &ports[i];

		fprintf(fp, "port=%d tap=%s in=%llu up_lost=%llu down=%llu down_lost=%llu "
		    "out=%llu full=%llu werr=%llu\n", i, p->name,
		    (unsigned long long)p->in, (unsigned long long)p->up_lost,
		    (unsigned long long)p->down, (unsigned long long)p->down_lost,
		    (unsigned long long)p->out, (unsigned long long)p->full,
		    (unsigned long long)p->werr);
		links += p->in + p->down;
		lostn += p->up_lost + p->down_lost;
	}
	fprintf(fp, "total links=%llu lost=%llu loss=%.6f late_avg_us=%.1f late_max_us=%.1f\n",
	    (unsigned long long)links, (unsigned long long)lostn,
	    links ? (double)lostn / (double)links : 0.0,
	    late_n ? (double)late_sum / (double)late_n / 1e3 : 0.0, (double)late_max / 1e3);
}

static void
dump_stats(void)
{
	char tmp[4096];
	FILE *fp;

	if (!stats_file) {
		write_stats(stderr);
		return;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", stats_file);
	fp = fopen(tmp, "w");
	if (!fp) {
		fprintf(stderr, "lanswitch: %s: %s\n", tmp, strerror(errno));
		return;
	}
	write_stats(fp);
	if (fclose(fp) != 0 || rename(tmp, stats_file) != 0)
		fprintf(stderr, "lanswitch: %s: %s\n", stats_file, strerror(errno));
}

int
main(int argc, char **argv)
{
	struct pollfd pfd[MAX_PORTS];
	struct sigaction sa;
	sigset_t block, none;
	long long v, rtprio = 0, seed = -1;
	int c, i, live;

	while ((c = getopt(argc, argv, "b:d:j:l:r:s:S:R:q:")) != -1) {
		switch (c) {
		case 'b':
			if (!parse_ll(optarg, 0, 10000, &v))
				usage("bad -b (µs, 0..10000)");
			busy_ns = v * 1000;
			break;
		case 'd':
			if (!parse_ll(optarg, 0, 10000000, &v))
				usage("bad -d (µs, 0..10000000)");
			delay_ns = v * 1000;
			break;
		case 'j':
			if (!parse_ll(optarg, 0, 10000000, &v))
				usage("bad -j (µs, 0..10000000)");
			jitter_ns = v * 1000;
			break;
		case 'l':
			if (!parse_double(optarg, &loss) || loss < 0 || loss > 1)
				usage("bad -l (a probability, 0..1)");
			break;
		case 'r':
			if (!parse_rate(optarg, &rate))
				usage("bad -r (bits/s, 1k..1000g, e.g. 1g or 100m)");
			break;
		case 's':
			if (!parse_ll(optarg, 0, INT64_MAX, &seed))
				usage("bad -s (a non-negative integer)");
			break;
		case 'S':
			stats_file = optarg;
			break;
		case 'R':
			if (!parse_ll(optarg, 0, 99, &rtprio))
				usage("bad -R (0..99)");
			break;
		case 'q':
			if (!parse_ll(optarg, 1, 65536, &v))
				usage("bad -q (1..65536)");
			qcap = (unsigned)v;
			break;
		default:
			usage("bad option");
		}
	}
	if (jitter_ns > delay_ns)
		usage("-j must not exceed -d");
	if (optind >= argc)
		usage("no TAP named");
	if (argc - optind > MAX_PORTS)
		usage("too many TAPs (at most 64)");
	for (i = optind; i < argc; i++)
		if (argv[i][0] == '\0' || strlen(argv[i]) >= IFNAMSIZ)
			usage("bad TAP name");

	rng = seed >= 0 ? (uint64_t)seed : (uint64_t)now_ns() ^ ((uint64_t)getpid() << 32);
	rng = rng * 0x9E3779B97F4A7C15ULL + 1;
	if (rng == 0)
		rng = 1;
	for (i = 0; i < MAC_SLOTS; i++)
		macs[i].port = -1;
	for (i = optind; i < argc; i++) {
		struct port *p = &ports[nports];

		snprintf(p->name, sizeof(p->name), "%s", argv[i]);
		p->fd = tap_open(argv[i]);
		if (p->fd < 0)
			return 1;
		p->q = calloc(qcap, sizeof(*p->q));
		if (!p->q) {
			fprintf(stderr, "lanswitch: out of memory\n");
			return 1;
		}
		nports++;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &none);	/* delivered in ppoll only */

	/* timer slack 1 ns: ppoll's deadline is the frame's departure */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	if (rtprio > 0) {
		struct sched_param sp = { .sched_priority = (int)rtprio };

		if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0 ||
		    sched_setscheduler(0, SCHED_FIFO, &sp) != 0) {
			fprintf(stderr, "lanswitch: SCHED_FIFO %lld: %s\n", rtprio, strerror(errno));
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);

	while (!quit) {
		int64_t now = now_ns(), next = -1;
		struct timespec ts, *tp = NULL;

		send_due(now);
		live = 0;
		for (i = 0; i < nports; i++) {
			pfd[i].fd = ports[i].dead ? -1 : ports[i].fd;
			pfd[i].events = POLLIN;
			pfd[i].revents = 0;
			live += !ports[i].dead;
			if (ports[i].count > 0 &&
			    (next < 0 || ports[i].q[ports[i].head].due < next))
				next = ports[i].q[ports[i].head].due;
		}
		if (live == 0)
			break;
		if (next >= 0) {
			int64_t d = next - now;

			/* the last busy_ns before a departure: no sleep */
			d = d > busy_ns ? d - busy_ns : 0;
			ts.tv_sec = (time_t)(d / 1000000000);
			ts.tv_nsec = (long)(d % 1000000000);
			tp = &ts;
		}
		c = ppoll(pfd, (nfds_t)nports, tp, &none);
		if (dump) {
			dump = 0;
			dump_stats();
		}
		if (c <= 0)
			continue;
		now = now_ns();
		for (i = 0; i < nports; i++) {
			if (pfd[i].revents & POLLIN)
				receive(i, now);
			else if (pfd[i].revents & (POLLERR | POLLHUP | POLLNVAL))
				ports[i].dead = 1;
		}
	}
	dump_stats();
	return 0;
}
