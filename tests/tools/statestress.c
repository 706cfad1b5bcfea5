/*
 * statestress.c - the state file's reader rule under stress: a writer
 * thread rewrites a state file as fast as it can (dts's own state_put),
 * with values that all follow from the write's seq, and one reader
 * thread per CPU, pinned, reads it until READS reads were accepted in
 * all; every accepted read whose values are not those of its seq is
 * torn.
 *
 *   statestress [-o] [-n READS] DIR
 *   statestress -w DIR		(the writer alone, until SIGTERM)
 *   statestress -c < OUTPUT	(check dts-state's output)
 *
 * The readers use the reader of dts-state (state_reader_read in
 * common/state_file.c), or with -o the rule dts(8) taught before: one
 * pread(2) of the file, accepted when seq equals end.  Prints one line:
 *   rule R readers N reads N torn T retried R writes W seconds S
 * and exits 1 if any read was torn (2: a usage or set-up error).
 * With -w, the file is DIR/state, for dts-state processes to read; -c
 * checks what they printed (every line of each read, seq first) the same
 * way, and prints "reads N torn T".
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "log.h"
#include "proto.h"
#include "state.h"
#include "state_pattern.h"

static struct state	 st;
static char		 path[512];
static int		 old_rule;
static unsigned long	 reads_wanted = 10000000;
static unsigned long	 reads_done, torn, retried;	/* atomics */
static volatile sig_atomic_t stop;

static void *
writer(void *arg)
{
	uint64_t	 v[STATE_FIELDS];

	(void)arg;
	while (!stop) {
		values_for(st.seq + 1, v);
		state_put(&st, v);
	}
	return NULL;
}

/* One accepted read into v; -1 on an error (printed). */
static int
read_old(int fd, uint64_t v[STATE_FIELDS])
{
	char	 buf[STATE_READ_MAX];
	ssize_t	 n;

	for (;;) {
		if ((n = pread(fd, buf, sizeof(buf), 0)) <= 0) {
			perror("pread");
			return -1;
		}
		if (state_parse(buf, (size_t)n, v) == 0)
			return 0;
		__atomic_fetch_add(&retried, 1, __ATOMIC_RELAXED);
	}
}

/* The values of a read, v[f] for f of the read, not those of its seq:
 * the first that is not, else -1. */
static int
torn_field(const uint64_t v[STATE_FIELDS])
{
	uint64_t	 want[STATE_FIELDS];
	int		 i;

	if (v[STATE_SEQ] <= 1)		/* 1: state_map's own */
		return -1;
	values_for(v[STATE_SEQ], want);
	for (i = STATE_SEQ + 1; i < STATE_END; i++)
		if (v[i] != want[i])
			return i;
	return v[STATE_END] == v[STATE_SEQ] ? -1 : STATE_END;
}

/* -c: "key value" lines from dts-state, seq first. */
static int
check_output(void)
{
	uint64_t		 v[STATE_FIELDS];
	const char *const	*names;
	unsigned long		 n = 0, bad = 0;
	unsigned long long	 x;
	char			 line[256], key[64], val[64];
	int			 f, seen = 0, i;

	while (fgets(line, sizeof(line), stdin) != NULL) {
		if (sscanf(line, "%63s %63s", key, val) != 2 ||
		    (f = state_field_find(key)) == -1) {
			fprintf(stderr, "statestress: not dts-state's: %s",
			    line);
			return 2;
		}
		if ((names = state_names((enum state_field)f)) != NULL) {
			for (i = 0; names[i] != NULL; i++)
				if (strcmp(names[i], val) == 0)
					break;
			v[f] = (uint64_t)i;
		} else if (sscanf(val, "%llu", &x) == 1)
			v[f] = x;
		seen |= 1 << f;
		if (f != STATE_END)
			continue;
		if (seen != (1 << STATE_FIELDS) - 1) {
			fprintf(stderr, "statestress: a read without every "
			    "key\n");
			return 2;
		}
		n++;
		if ((i = torn_field(v)) != -1 && bad++ < 3)
			fprintf(stderr, "torn: seq %llu: %s\n",
			    (unsigned long long)v[STATE_SEQ],
			    state_key((enum state_field)i));
		seen = 0;
	}
	printf("reads %lu torn %lu\n", n, bad);
	return n == 0 ? 2 : bad > 0;
}

static void
on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void *
reader(void *arg)
{
	struct state_reader	 r;
	uint64_t		 v[STATE_FIELDS], want[STATE_FIELDS];
	char			 err[512];
	unsigned long		 mine = 0, bad = 0;
	int			 fd = -1, i, rc = 0;

	(void)arg;
	if (old_rule) {
		if ((fd = open(path, O_RDONLY)) == -1) {
			perror(path);
			return (void *)1;
		}
	} else if (state_reader_open(&r, path, err, sizeof(err)) == -1) {
		fprintf(stderr, "statestress: %s\n", err);
		return (void *)1;
	}
	while (__atomic_load_n(&reads_done, __ATOMIC_RELAXED) < reads_wanted) {
		if (old_rule ? read_old(fd, v) :
		    state_reader_read(&r, v, err, sizeof(err))) {
			if (!old_rule)
				fprintf(stderr, "statestress: %s\n", err);
			rc = 1;
			break;
		}
		if ((i = torn_field(v)) != -1 && bad++ < 3) {
			values_for(v[STATE_SEQ], want);
			fprintf(stderr, "torn: seq %llu: %s is %llu, want "
			    "%llu\n", (unsigned long long)v[STATE_SEQ],
			    state_key((enum state_field)i),
			    (unsigned long long)v[i],
			    (unsigned long long)want[i]);
		}
		mine++;
		if (mine % 1024 == 0)
			__atomic_fetch_add(&reads_done, 1024, __ATOMIC_RELAXED);
	}
	__atomic_fetch_add(&reads_done, mine % 1024, __ATOMIC_RELAXED);
	__atomic_fetch_add(&torn, bad, __ATOMIC_RELAXED);
	if (old_rule)
		close(fd);
	else {
		__atomic_fetch_add(&retried, r.torn, __ATOMIC_RELAXED);
		state_reader_close(&r);
	}
	return (void *)(intptr_t)rc;
}

int
main(int argc, char **argv)
{
	pthread_t	 w, rd[64];
	pthread_attr_t	 attr;
	cpu_set_t	 cpus;
	struct timespec	 t0, t1;
	char		 err[512], lock[sizeof(path) + 8], *end;
	void		*ret;
	long		 ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int		 c, i, failed = 0, write_only = 0;

	while ((c = getopt(argc, argv, "cwon:")) != -1) {
		switch (c) {
		case 'c':
			return check_output();
		case 'w':
			write_only = 1;
			break;
		case 'o':
			old_rule = 1;
			break;
		case 'n':
			errno = 0;
			reads_wanted = strtoul(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || reads_wanted == 0) {
				fprintf(stderr, "statestress: bad -n %s\n",
				    optarg);
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: statestress [-o] [-n READS] "
			    "DIR | -w DIR | -c\n");
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: statestress [-o] [-n READS] DIR\n");
		return 2;
	}
	if (ncpu < 1)
		ncpu = 1;
	if (ncpu > 64)
		ncpu = 64;
	log_init("statestress", LOG_TO_STDERR, NULL, LOG_LVL_ERR);
	snprintf(path, sizeof(path), "%s/state", argv[optind]);
	if (state_map(&st, path, err, sizeof(err)) == -1) {
		fprintf(stderr, "statestress: %s\n", err);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (write_only) {
		signal(SIGTERM, on_term);
		signal(SIGINT, on_term);
		writer(NULL);
		ncpu = 0;
	} else if (pthread_create(&w, NULL, writer, NULL) != 0)
		return 2;
	for (i = 0; i < ncpu; i++) {
		pthread_attr_init(&attr);
		CPU_ZERO(&cpus);
		CPU_SET(i, &cpus);
		pthread_attr_setaffinity_np(&attr, sizeof(cpus), &cpus);
		if (pthread_create(&rd[i], &attr, reader, NULL) != 0)
			return 2;
		pthread_attr_destroy(&attr);
	}
	for (i = 0; i < ncpu; i++) {
		pthread_join(rd[i], &ret);
		failed |= ret != NULL;
	}
	stop = 1;
	if (!write_only)
		pthread_join(w, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("rule %s readers %ld reads %lu torn %lu retried %lu writes "
	    "%llu seconds %.1f\n", old_rule ? "read(2)" : "dts-state",
	    ncpu, reads_done, torn, retried,
	    (unsigned long long)st.seq - 1,
	    (double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	state_close(&st);
	(void)unlink(path);
	snprintf(lock, sizeof(lock), "%s.lock", path);
	(void)unlink(lock);
	return failed ? 2 : torn > 0 ? 1 : 0;
}
