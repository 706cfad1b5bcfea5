/*
 * test_state.c - the state file (dts/state.c, common/state_file.c): its
 * fixed layout, the values the scheduler's on_phase hook writes as
 * dts/scheduler.c slices a fake gang, the counts a new dts takes over,
 * files it refuses (and one that another dts keeps, while a reader's
 * flock does not keep it), the reader of dts-state on files that are not
 * whole, the sequence lock against that reader in another thread (a
 * short run: tests/system/t59-state-stress.sh makes 10^7 reads), and
 * what the hook costs (printed, not asserted).
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
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "log.h"
#include "names.h"
#include "proto.h"
#include "sched_fixture.h"
#include "scheduler.h"
#include "state.h"
#include "state_pattern.h"
#include "timeutil.h"
#include "unit_util.h"

#define MS(x)	((int64_t)(x) * NS_PER_MS)

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
	sched_fixture_init(&f->s, NULL);
	(void)sched_fixture_job(&f->s, &f->g);
	f->s.real = fake_mono;		/* one clock: the file's times */
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture	*f = *state;

	char		 lock[sizeof(f->path) + 8];

	state_close(&f->st);
	sched_fixture_fini(&f->s);
	(void)unlink(f->path);
	snprintf(lock, sizeof(lock), "%s.lock", f->path);
	(void)unlink(lock);
	if (rmdir(f->dir) == -1)
		fprintf(stderr, "teardown: rmdir %s: %m\n", f->dir);
	free(f);
	return 0;
}

static void
read_state(const char *path, uint64_t v[STATE_FIELDS])
{
	size_t	 n;
	char	*buf = tu_slurp(path, &n);

	assert_non_null(buf);
	if (state_parse(buf, n, v) == -1)
		fail_msg("not a whole state file: %s", buf);
	free(buf);
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
	char		*buf, *line, *save = NULL;
	uint64_t	 v[STATE_FIELDS];
	size_t		 n;
	int		 i = 0;

	assert_int_equal(state_map(&f->st, f->path, NULL, 0), 0);
	assert_non_null(buf = tu_slurp(f->path, &n));
	assert_int_equal(n, f->st.l.size);
	assert_true(n < STATE_READ_MAX);
	assert_int_equal(file_size(f->path), (off_t)f->st.l.size);
	assert_int_equal(strncmp(buf, "seq 00000000000000000001\nphase none\n",
	    36), 0);
	/* the lock words: seq's and end's low 8 digits, each one word */
	assert_int_equal(f->st.l.seq_word * STATE_WORD,
	    f->st.l.off[STATE_SEQ] + STATE_DIGITS - STATE_LOCK_DIGITS);
	assert_int_equal(f->st.l.end_word * STATE_WORD,
	    f->st.l.off[STATE_END] + STATE_DIGITS - STATE_LOCK_DIGITS);
	assert_int_equal(f->st.l.end_line * STATE_WORD, n - 25);
	assert_int_equal(f->st.l.words, n / STATE_WORD);
	assert_string_equal(buf + n - 25, "end 00000000000000000001\n");
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save), i++) {
		const char *key = state_key((enum state_field)i);

		assert_true(i < STATE_FIELDS);
		assert_int_equal(strncmp(line, key, strlen(key)), 0);
		assert_int_equal(line[strlen(key)], ' ');
		assert_int_equal(strlen(line) - strlen(key) - 1,
		    f->st.l.width[i]);
	}
	assert_int_equal(i, STATE_FIELDS);
	free(buf);
	read_state(f->path, v);
	assert_int_equal(v[STATE_PHASE], PHASE_NONE);
	assert_int_equal(v[STATE_STOPPED_NS], 0);
	/* the longest names fit: "distributed", the phases' "none" */
	assert_true(f->st.l.width[STATE_MODE] >= strlen("distributed"));
	assert_true(f->st.l.width[STATE_PHASE] >= strlen("none"));
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

	/* memory and swap: every job's in the node's file (a free place's
	 * old numbers not counted) */
	for (int i = 0; i < PROTO_JOBS_MAX; i++) {
		f->s.job[i].mem_bytes = f->s.job[i].gang != NULL ? 3 << 20 :
		    1 << 20;
		f->s.job[i].swap_bytes = f->s.job[i].gang != NULL ? 5 << 20 :
		    1 << 20;
	}
	state_hook(&f->st, &f->s);
	read_state(f->path, v);
	assert_int_equal(v[STATE_MEM_BYTES], 3 << 20);
	assert_int_equal(v[STATE_SWAP_BYTES], 5 << 20);
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
	assert_int_equal(file_size(f->path), (off_t)f->st.l.size);
	read_state(f->path, w);
	assert_int_equal(w[STATE_STOPPED_NS], 0);
	state_close(&f->st);

	/* a dts of the layout before mem_bytes and swap_bytes: its counts
	 * go on (and a torn one of that layout does not) */
	for (int torn = 0; torn < 2; torn++) {
		char	 old[512];
		int	 len;

		len = snprintf(old, sizeof(old), "seq %020d\nphase PS  \n"
		    "ls_policy stop\nmode static     \nps_us %020d\n"
		    "ip_us %020d\nstopped_ns %020d\nps_ns %020d\n"
		    "ls_ns %020d\nat_ns %020llu\nend %020d\n", 9, 50000,
		    100000, 7000, 9000, 8000,
		    (unsigned long long)now_mono_ns(), torn ? 8 : 9);
		fd = open(f->path, O_WRONLY | O_TRUNC);
		assert_true(fd != -1);
		assert_int_equal(write(fd, old, (size_t)len), len);
		close(fd);
		assert_int_equal(state_map(&f->st, f->path, NULL, 0), 0);
		read_state(f->path, w);
		assert_int_equal(w[STATE_STOPPED_NS], torn ? 0 : 7000);
		assert_int_equal(w[STATE_LS_NS], torn ? 0 : 8000);
		assert_int_equal(w[STATE_SEQ], torn ? 1 : 10);
		state_close(&f->st);
	}
	assert_int_equal(state_map(&f->st, f->path, NULL, 0), 0);
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
	snprintf(link, sizeof(link), "%s/link.lock", f->dir);
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
 * The lock is on path.lock, 0600: a reader's flock on the file itself,
 * which any user may take, keeps no dts from it; a lock file that is a
 * link is refused.
 */
static void
test_lock_file(void **state)
{
	struct fixture	*f = *state;
	struct stat	 sb;
	char		 err[256], lock[128];
	int		 fd;

	snprintf(lock, sizeof(lock), "%s.lock", f->path);
	assert_int_equal(state_map(&f->st, f->path, err, sizeof(err)), 0);
	assert_int_equal(stat(lock, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);
	assert_int_equal(stat(f->path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0644);
	state_close(&f->st);

	fd = open(f->path, O_RDONLY);
	assert_true(fd != -1);
	assert_int_equal(flock(fd, LOCK_SH | LOCK_NB), 0);
	assert_int_equal(state_map(&f->st, f->path, err, sizeof(err)), 0);
	state_close(&f->st);
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
	assert_int_equal(state_map(&f->st, f->path, err, sizeof(err)), 0);
	state_close(&f->st);
	close(fd);

	assert_int_equal(unlink(lock), 0);
	assert_int_equal(symlink("/etc/passwd", lock), 0);
	assert_int_equal(state_map(&f->st, f->path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ".lock"));
	assert_null(f->st.map);
	assert_int_equal(unlink(lock), 0);
}

/* Replace the file with len bytes of buf (root's test file). */
static void
put_file(const char *path, const char *buf, size_t len)
{
	int	 fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd != -1);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

/* The reader of dts-state: a whole file read; the others refused. */
static void
test_reader(void **state)
{
	struct fixture		*f = *state;
	struct state_reader	 r;
	uint64_t		 v[STATE_FIELDS] = { 0 };
	char			 err[256], text[STATE_READ_MAX];
	size_t			 size;

	assert_int_equal(state_reader_open(&r, f->path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "No such file"));
	assert_int_equal(state_reader_open(&r, f->dir, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a regular file"));

	assert_int_equal(state_map(&f->st, f->path, NULL, 0), 0);
	v[STATE_STOPPED_NS] = 123456789;
	v[STATE_MODE] = MODE_DISTRIBUTED;
	state_put(&f->st, v);
	assert_int_equal(state_reader_open(&r, f->path, err, sizeof(err)), 0);
	memset(v, 0xff, sizeof(v));
	assert_int_equal(state_reader_read(&r, v, err, sizeof(err)), 0);
	assert_int_equal(v[STATE_SEQ], 2);
	assert_int_equal(v[STATE_END], 2);
	assert_int_equal(v[STATE_STOPPED_NS], 123456789);
	assert_int_equal(v[STATE_MODE], MODE_DISTRIBUTED);
	assert_int_equal(r.torn, 0);
	state_reader_close(&r);
	size = f->st.l.size;
	memcpy(text, f->st.map, size);
	state_close(&f->st);

	/* another size: not this layout */
	put_file(f->path, text, size - 1);
	assert_int_equal(state_reader_open(&r, f->path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a state file"));

	/* end's lock word not seq's: a writer stopped mid-write */
	text[size - 2] = '9';
	put_file(f->path, text, size);
	assert_int_equal(state_reader_open(&r, f->path, err, sizeof(err)), 0);
	r.wait_ns = MS(1);
	assert_int_equal(state_reader_read(&r, v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "torn for 0.001 s"));
	assert_true(r.torn > 100);
	state_reader_close(&r);

	/* the lock words agree, the rest is not a state file */
	memset(text, ' ', size);
	put_file(f->path, text, size);
	assert_int_equal(state_reader_open(&r, f->path, err, sizeof(err)), 0);
	r.wait_ns = MS(1);
	assert_int_equal(state_reader_read(&r, v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "garbled"));
	state_reader_close(&r);

	/* keys and fields */
	assert_int_equal(state_field_find("stopped_ns"), STATE_STOPPED_NS);
	assert_int_equal(state_field_find("end"), STATE_END);
	assert_int_equal(state_field_find("stopped"), -1);
	assert_null(state_names(STATE_AT_NS));
	assert_non_null(state_names(STATE_PHASE));
}

/*
 * The sequence lock: a writer thread puts values that all follow from
 * the seq they get, as fast as it can; a reader maps the file as
 * dts-state does (state_reader_read); every read it accepts is one write
 * whole.  300 ms, and 100 reads at least (valgrind runs it too).
 */
struct race {
	struct state	*st;
	volatile int	 stop;
};

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
	struct fixture		*f = *state;
	struct race		 r = { &f->st, 0 };
	struct state_reader	 rd;
	pthread_t		 t;
	uint64_t		 v[STATE_FIELDS], want[STATE_FIELDS];
	char			 err[256], bad[256] = "";
	int64_t			 end;
	unsigned		 good = 0;

	assert_int_equal(state_map(&f->st, f->path, NULL, 0), 0);
	assert_int_equal(state_reader_open(&rd, f->path, err, sizeof(err)), 0);
	assert_int_equal(pthread_create(&t, NULL, writer, &r), 0);
	end = now_mono_ns() + MS(300);
	while (bad[0] == '\0' && (now_mono_ns() < end || good < 100)) {
		if (state_reader_read(&rd, v, err, sizeof(err)) == -1) {
			snprintf(bad, sizeof(bad), "%s", err);
			break;
		}
		good++;
		if (v[STATE_SEQ] == 1)		/* state_map's own */
			continue;
		values_for(v[STATE_SEQ], want);
		for (int i = STATE_SEQ + 1; i < STATE_END; i++)
			if (v[i] != want[i]) {
				snprintf(bad, sizeof(bad), "seq %llu: %s is "
				    "%llu, want %llu",
				    (unsigned long long)v[STATE_SEQ],
				    state_key((enum state_field)i),
				    (unsigned long long)v[i],
				    (unsigned long long)want[i]);
				break;
			}
	}
	r.stop = 1;
	pthread_join(t, NULL);
	if (bad[0] != '\0')
		fail_msg("%s", bad);
	print_message("seqlock: %u whole reads, %lu torn copies made again, "
	    "%llu writes\n", good, rd.torn, (unsigned long long)f->st.seq);
	state_reader_close(&rd);
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
		    "ls_policy %-4s\nmode %-*s\nps_us %020llu\n"
		    "ip_us %020llu\nstopped_ns %020llu\nps_ns %020llu\n"
		    "ls_ns %020llu\nat_ns %020llu\nmem_bytes %020llu\n"
		    "swap_bytes %020llu\nend %020llu\n",
		    (unsigned long long)i, proto_phase_name(1),
		    conf_ls_policy_names[0], (int)f->st.l.width[STATE_MODE],
		    proto_mode_name(1), 50000ULL,
		    100000ULL, (unsigned long long)f->s.st.stopped_ns,
		    (unsigned long long)f->s.st.ps_ns,
		    (unsigned long long)f->s.st.ls_ns,
		    (unsigned long long)f->s.st.acct_at, 0ULL, 0ULL,
		    (unsigned long long)i);
	}
	t2 = now_mono_ns();
	assert_int_equal(len, (int)f->st.l.size);
	print_message("state_hook: %.1f ns a call; snprintf of the same "
	    "text: %.1f ns\n", (double)(t1 - t0) / rounds,
	    (double)(t2 - t1) / rounds);
}

/* dts-state's default path is the one dts.conf's state_file defaults to. */
static void
test_default_path(void **state)
{
	struct dts_conf	*c = calloc(1, sizeof(*c));

	(void)state;
	assert_non_null(c);
	conf_defaults(c);
	assert_string_equal(c->state_file, STATE_FILE_DEFAULT);
	free(c);
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
		T(test_lock_file),
		T(test_reader),
		T(test_seqlock),
		T(test_cost),
		cmocka_unit_test(test_default_path),
	};

	log_init("test_state", LOG_TO_STDERR, NULL, LOG_LVL_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
