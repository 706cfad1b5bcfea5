/*
 * hog.c - a local CPU hog, the "interactive user" of the system tests.
 *
 *   hog [-c CPU] [-t SECONDS] [-p FILE]
 *
 * Spins at SCHED_OTHER (set explicitly) for SECONDS of wall-clock time (0, the default:
 * until SIGTERM or SIGINT), optionally pinned to one CPU.  -p writes its
 * pid to FILE (atomically, via a rename) before it starts spinning.
 * Prints nothing unless something fails (exit 1; bad usage exits 2).
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "timeutil.h"

static volatile sig_atomic_t stop;
static volatile uint64_t sink;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: hog [-c CPU] [-t SECONDS] [-p FILE]\n");
	exit(2);
}

static int
pin(long cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET((int)cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		fprintf(stderr, "hog: cannot pin to CPU %ld: %s\n", cpu, strerror(errno));
		return -1;
	}
	return 0;
}

/* Always the normal class, even when started from a real-time parent. */
static int
normal_policy(void)
{
	struct sched_param sp = { .sched_priority = 0 };

	if (sched_setscheduler(0, SCHED_OTHER, &sp) < 0) {
		fprintf(stderr, "hog: cannot set SCHED_OTHER: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static int
write_pid(const char *path)
{
	char tmp[4096];
	FILE *f;

	if (snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid()) >=
	    (int)sizeof(tmp))
		return -1;
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	fprintf(f, "%ld\n", (long)getpid());
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

static void
spin(int64_t end_ns)
{
	uint64_t i, x = sink;

	while (!stop && (end_ns == 0 || now_mono_ns() < end_ns)) {
		for (i = 0; i < 200000; i++) /* well under a millisecond */
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		sink = x;
	}
}

struct opts {
	const char *pidfile;
	double      secs;
	long        cpu;  /* -1: not pinned */
};

static void
parse_args(int argc, char **argv, struct opts *o)
{
	char *end;
	int c;

	o->pidfile = NULL;
	o->secs = 0;
	o->cpu = -1;
	while ((c = getopt(argc, argv, "c:t:p:")) != -1) {
		errno = 0;
		switch (c) {
		case 'c':
			o->cpu = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || o->cpu < 0 ||
			    o->cpu >= CPU_SETSIZE)
				usage();
			break;
		case 't':
			o->secs = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(o->secs >= 0) ||
			    o->secs > 1e8)
				usage();
			break;
		case 'p':
			o->pidfile = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
}

int
main(int argc, char **argv)
{
	struct sigaction sa;
	struct opts o;

	parse_args(argc, argv, &o);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (normal_policy() < 0 || (o.cpu >= 0 && pin(o.cpu) < 0))
		return 1;
	if (o.pidfile && write_pid(o.pidfile) < 0) {
		fprintf(stderr, "hog: cannot write %s: %s\n", o.pidfile, strerror(errno));
		return 1;
	}
	spin(o.secs > 0 ? now_mono_ns() + (int64_t)(o.secs * 1e9) : 0);
	return 0;
}
