/*
 * test_state.c - the state file (dts/state.c): its fixed layout, the
 * values the scheduler's on_phase hook writes as dts/scheduler.c slices a
 * fake gang, the counts a new dts takes over, files it refuses (and one
 * that another dts keeps), the sequence lock against a reader in another
 * thread, and what the hook costs (printed, not asserted).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "fake_gang.h"
#include "log.h"
#include "names.h"
#include "proto.h"
#include "scheduler.h"
#include "state.h"
#include "timeutil.h"

#define MS(x)	((int64_t)(x) * NS_PER_MS)

static int64_t mono_now = 1000 * NS_PER_SEC;

static int64_t
fake_mono(void)
{
	return mono_now;
}

struct fixture {
	char		 dir[64];
	char		 path[96];
	struct state	 st;
	struct sched	 s;
	struct gang	 g;
};

static int
setup(void **state)
{
	struct fixture	*f = calloc(1, sizeof(*f));

	if (f == NULL)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/test_state.XXXXXX");
	if (mkdtemp(f->dir) == NULL)
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/state", f->dir);
	fake_gang_init(&f->g);
	fake_gang.can_idle = 1;
	sched_init(&f->s, &f->g, NULL, 3 * NS_PER_SEC);
	f->s.mono = fake_mono;
	f->s.real = fake_mono;
	f->s.rt.runtime_us = 950000;
	f->s.rt.period_us = 1000000;
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture	*f = *state;

	state_close(&f->st);
	pthread_mutex_destroy(&f->s.mu);
	(void)unlink(f->path);
	(void)rmdir(f->dir);
	free(f);
	return 0;
}

/* The whole file, as a reader gets it: one read. */
static size_t
slurp(const char *path, char *buf, size_t len)
{
	int	 fd = open(path, O_RDONLY);
	ssize_t	 n;

	assert_true(fd != -1);
	n = read(fd, buf, len - 1);
	close(fd);
	assert_true(n > 0);
	buf[n] = '\0';
	return (size_t)n;
}

static void
read_state(const char *path, uint64_t v[STATE_FIELDS])
{
	char	 buf[STATE_READ_MAX + 1];
	size_t	 n = slurp(path, buf, sizeof(buf));

	if (state_parse(buf, n, v) == -1)
		fail_msg("not a whole state file: %s", buf);
}

static off_t
file_size(const char *path)
{
	struct stat	 sb;

	assert_int_equal(stat(path, &sb), 0);
	return sb.st_size;
}

static void
apply(struct fixture *f, int mode, int flags, uint32_t ps_us, uint32_t ip_us)
{
	struct proto_schedule	 p = { .mode = (uint8_t)mode,
	    .sync = SYNC_CLOCK, .flags = (uint8_t)(SCHED_F_ACTIVE | flags),
	    .ps_us = ps_us, .ip_us = ip_us, .si_us = 1000000,
	    .origin_ns = (uint64_t)mono_now };
	const char		*err = NULL;

	assert_int_equal(sched_apply(&f->s, &p, mono_now, mono_now, &err), 0);
}

/* One line per field, "key value", numbers of STATE_DIGITS digits. */
static void
test_layout(void **state)
{
	struct fixture	*f = *state;
	char		 buf[STATE_READ_MAX + 1], *line, *save = NULL;
	uint64_t	 v[STATE_FIELDS];
	size_t		 n;
	int		 i = 0;

	assert_int_equal(state_map(&f->st, f->path, NULL, 0), 0);
	n = slurp(f->path, buf, sizeof(buf));
	assert_int_equal(n, f->st.size);
	assert_true(n < STATE_READ_MAX);
	assert_int_equal(file_size(f->path), (off_t)f->st.size);
	assert_int_equal(strncmp(buf, "seq 00000000000000000001\nphase none\n",
	    36), 0);
	assert_string_equal(buf + n - 25, "end 00000000000000000001\n");
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save), i++) {
		const char *key = state_key((enum state_field)i);

		assert_true(i < STATE_FIELDS);
		assert_int_equal(strncmp(line, key, strlen(key)), 0);
		assert_int_equal(line[strlen(key)], ' ');
		assert_int_equal(strlen(line) - strlen(key) - 1,
		    f->st.width[i]);
	}
	assert_int_equal(i, STATE_FIELDS);
	read_state(f->path, v);
	assert_int_equal(v[STATE_PHASE], PHASE_NONE);
	assert_int_equal(v[STATE_STOPPED_NS], 0);
	/* the longest names fit: "distributed", the phases' "none" */
	assert_true(f->st.width[STATE_MODE] >= strlen("distributed"));
	assert_true(f->st.width[STATE_PHASE] >= strlen("none"));
}

/* The hook writes what scheduler.c counts, the PS before the gang runs. */
static void
test_follows_sched(void **state)
{
	struct fixture	*f = *state;
	uint64_t	 v[STATE_FIELDS], seq;
	off_t		 size;

	assert_int_equal(state_map(&f->st, f->path, NULL, 0), 0);
	size = file_size(f->path);
	f->s.on_phase = state_hook;
	f->s.on_phase_arg = &f->st;
	apply(f, MODE_STATIC, 0, 50000, 100000);
	read_state(f->path, v);
	assert_int_equal(v[STATE_PHASE], PHASE_PS);
	assert_int_equal(v[STATE_MODE], MODE_STATIC);
	assert_int_equal(v[STATE_LS_POLICY], LS_STOP);
	assert_int_equal(v[STATE_PS_US], 50000);
	assert_int_equal(v[STATE_IP_US], 100000);
	assert_int_equal(v[STATE_AT_NS], mono_now);
	seq = v[STATE_SEQ];

	mono_now += MS(50);			/* LS */
	sched_timer(&f->s, mono_now);
	assert_int_equal(f->g.stopped, 1);
	read_state(f->path, v);
	assert_int_equal(v[STATE_PHASE], PHASE_LS);
	assert_int_equal(v[STATE_PS_NS], MS(50));
	assert_int_equal(v[STATE_STOPPED_NS], 0);
	assert_true(v[STATE_SEQ] > seq);

	mono_now += MS(50);			/* PS: the LS counted */
	sched_timer(&f->s, mono_now);
	read_state(f->path, v);
	assert_int_equal(v[STATE_PHASE], PHASE_PS);
	assert_int_equal(v[STATE_LS_NS], MS(50));
	assert_int_equal(v[STATE_STOPPED_NS], MS(50));
	assert_int_equal(v[STATE_AT_NS], mono_now);

	/* huge counts: the size does not change */
	f->s.st.stopped_ns = UINT64_MAX - f->st.base_stopped;
	state_hook(&f->st, &f->s);
	read_state(f->path, v);
	assert_int_equal(v[STATE_STOPPED_NS], UINT64_MAX);
	assert_int_equal(file_size(f->path), size);

	/* ls_policy idle; DISTRIBUTED's own PS; OFF: phase none */
	apply(f, MODE_STATIC, SCHED_F_LS_IDLE, 50000, 100000);
	read_state(f->path, v);
	assert_int_equal(v[STATE_LS_POLICY], LS_IDLE);
	apply(f, MODE_DISTRIBUTED, 0, 50000, 100000);
	read_state(f->path, v);
	assert_int_equal(v[STATE_MODE], MODE_DISTRIBUTED);
	assert_int_equal(v[STATE_PS_US], f->s.sl.ps / NS_PER_US);
	apply(f, MODE_OFF, 0, 50000, 100000);
	read_state(f->path, v);
	assert_int_equal(v[STATE_PHASE], PHASE_NONE);
	assert_int_equal(v[STATE_MODE], MODE_OFF);
	assert_int_equal(file_size(f->path), size);
	f->s.on_phase = NULL;
}

/* A new dts goes on from the counts of the file it finds. */
static void
test_take_over(void **state)
{
	struct fixture	*f = *state;
	uint64_t	 v[STATE_FIELDS] = { 0 }, w[STATE_FIELDS];
	int		 fd;

	assert_int_equal(state_map(&f->st, f->path, NULL, 0), 0);
	v[STATE_STOPPED_NS] = 7000;
	v[STATE_PS_NS] = 9000;
	v[STATE_LS_NS] = 8000;
	v[STATE_AT_NS] = (uint64_t)now_mono_ns();
	state_put(&f->st, v);
	state_put(&f->st, v);
	state_close(&f->st);

	assert_int_equal(state_map(&f->st, f->path, NULL, 0), 0);
	read_state(f->path, w);
	assert_int_equal(w[STATE_SEQ], 4);		/* 1, 2, 3, then 4 */
	assert_int_equal(w[STATE_STOPPED_NS], 7000);
	assert_int_equal(w[STATE_PHASE], PHASE_NONE);
	f->s.st.stopped_ns = 100;
	f->s.st.ps_ns = 200;
	f->s.st.ls_ns = 300;
	state_hook(&f->st, &f->s);
	read_state(f->path, w);
	assert_int_equal(w[STATE_STOPPED_NS], 7100);
	assert_int_equal(w[STATE_PS_NS], 9200);
	assert_int_equal(w[STATE_LS_NS], 8300);

	/* counted after our clock's now: another boot's; start at 0 */
	v[STATE_AT_NS] = (uint64_t)now_mono_ns() + (uint64_t)NS_PER_SEC * 3600;
	state_put(&f->st, v);
	state_close(&f->st);
	assert_int_equal(state_map(&f->st, f->path, NULL, 0), 0);
	assert_int_equal(f->st.base_stopped, 0);
	assert_int_equal(f->st.seq, 1);
	state_close(&f->st);

	/* garbage, longer than the file: sized again, counts from 0 */
	fd = open(f->path, O_WRONLY | O_TRUNC);
	assert_true(fd != -1);
	for (int i = 0; i < 100; i++)
		assert_int_equal(write(fd, "stopped_ns 99\n", 14), 14);
	close(fd);
	assert_int_equal(state_map(&f->st, f->path, NULL, 0), 0);
	assert_int_equal(file_size(f->path), (off_t)f->st.size);
	read_state(f->path, w);
	assert_int_equal(w[STATE_STOPPED_NS], 0);
}

/* Not a regular file of ours: refused, with the reason. */
static void
test_refused(void **state)
{
	struct fixture	*f = *state;
	struct state	 other;
	char		 err[256], link[128];

	assert_int_equal(mkdir(f->path, 0755), 0);
	assert_int_equal(state_map(&f->st, f->path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, f->path));
	assert_null(f->st.map);
	assert_int_equal(rmdir(f->path), 0);

	snprintf(link, sizeof(link), "%s/link", f->dir);
	assert_int_equal(symlink("/etc/passwd", link), 0);
	assert_int_equal(state_map(&f->st, link, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "link"));
	(void)unlink(link);

	assert_int_equal(state_map(&f->st, "/nonexistent/dir/state", err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "No such file"));

	/* one dts a file: another is refused while the first keeps it */
	assert_int_equal(state_map(&f->st, f->path, err, sizeof(err)), 0);
	assert_int_equal(state_map(&other, f->path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "another dts keeps it"));
	state_close(&f->st);
	assert_int_equal(state_map(&other, f->path, err, sizeof(err)), 0);
	state_close(&other);
}

/*
 * The sequence lock: a writer thread puts values that all follow from
 * the seq they get, a reader reads the file as a program would; every
 * read it accepts (seq equal to end) is one write whole.
 */
struct race {
	struct state	*st;
	volatile int	 stop;
};

static void
values_for(uint64_t seq, uint64_t v[STATE_FIELDS])
{
	v[STATE_PHASE] = seq % PHASE_COUNT;
	v[STATE_LS_POLICY] = seq % 2;
	v[STATE_MODE] = seq % MODE_COUNT;
	v[STATE_PS_US] = seq * 7;
	v[STATE_IP_US] = seq * 11;
	v[STATE_STOPPED_NS] = seq * 999999937;	/* every digit moves */
	v[STATE_PS_NS] = UINT64_MAX - seq;
	v[STATE_LS_NS] = seq * seq;
	v[STATE_AT_NS] = seq << 20;
}

static void *
writer(void *arg)
{
	struct race	*r = arg;
	uint64_t	 v[STATE_FIELDS];

	while (!r->stop) {
		values_for(r->st->seq + 1, v);
		state_put(r->st, v);
	}
	return NULL;
}

static void
test_seqlock(void **state)
{
	struct fixture	*f = *state;
	struct race	 r = { &f->st, 0 };
	pthread_t	 t;
	char		 buf[STATE_READ_MAX];
	uint64_t	 v[STATE_FIELDS], want[STATE_FIELDS];
	int64_t		 end;
	unsigned	 good = 0, torn = 0;
	ssize_t		 n;
	int		 fd;

	assert_int_equal(state_map(&f->st, f->path, NULL, 0), 0);
	fd = open(f->path, O_RDONLY);
	assert_true(fd != -1);
	assert_int_equal(pthread_create(&t, NULL, writer, &r), 0);
	end = now_mono_ns() + MS(300);
	while (now_mono_ns() < end || good < 100) {
		n = pread(fd, buf, sizeof(buf), 0);
		assert_int_equal(n, (ssize_t)f->st.size);
		if (state_parse(buf, (size_t)n, v) == -1) {
			torn++;
			continue;
		}
		good++;
		if (v[STATE_SEQ] == 1)		/* state_map's own */
			continue;
		values_for(v[STATE_SEQ], want);
		for (int i = STATE_SEQ + 1; i < STATE_END; i++)
			if (v[i] != want[i])
				fail_msg("seq %llu: %s is %llu, want %llu",
				    (unsigned long long)v[STATE_SEQ],
				    state_key((enum state_field)i),
				    (unsigned long long)v[i],
				    (unsigned long long)want[i]);
	}
	r.stop = 1;
	pthread_join(t, NULL);
	close(fd);
	print_message("seqlock: %u whole reads, %u torn ones read again, "
	    "%llu writes\n", good, torn, (unsigned long long)f->st.seq);
}

/* What the hook costs, against snprintf of the same text (printed). */
static void
test_cost(void **state)
{
	struct fixture	*f = *state;
	char		 buf[STATE_READ_MAX];
	const int	 rounds = 100000;
	int64_t		 t0, t1, t2;
	int		 i, len = 0;

	assert_int_equal(state_map(&f->st, f->path, NULL, 0), 0);
	apply(f, MODE_STATIC, 0, 50000, 100000);
	t0 = now_mono_ns();
	for (i = 0; i < rounds; i++) {
		f->s.st.stopped_ns += 12345;
		f->s.st.acct_at += 12345;
		state_hook(&f->st, &f->s);
	}
	t1 = now_mono_ns();
	for (i = 0; i < rounds; i++) {
		f->s.st.stopped_ns += 12345;
		len = snprintf(buf, sizeof(buf), "seq %020llu\nphase %-4s\n"
		    "ls_policy %-4s\nmode %-11s\nps_us %020llu\n"
		    "ip_us %020llu\nstopped_ns %020llu\nps_ns %020llu\n"
		    "ls_ns %020llu\nat_ns %020llu\nend %020llu\n",
		    (unsigned long long)i, proto_phase_name(1),
		    conf_ls_policy_names[0], proto_mode_name(1), 50000ULL,
		    100000ULL, (unsigned long long)f->s.st.stopped_ns,
		    (unsigned long long)f->s.st.ps_ns,
		    (unsigned long long)f->s.st.ls_ns,
		    (unsigned long long)f->s.st.acct_at,
		    (unsigned long long)i);
	}
	t2 = now_mono_ns();
	assert_int_equal(len, (int)f->st.size);
	print_message("state_hook: %.1f ns a call; snprintf of the same "
	    "text: %.1f ns\n", (double)(t1 - t0) / rounds,
	    (double)(t2 - t1) / rounds);
}

#define T(fn)	cmocka_unit_test_setup_teardown(fn, setup, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_layout),
		T(test_follows_sched),
		T(test_take_over),
		T(test_refused),
		T(test_seqlock),
		T(test_cost),
	};

	log_init("test_state", LOG_TO_STDERR, NULL, LOG_LVL_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
