/*
 * state.c - the state file.  See state.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include "conf.h"
#include "log.h"
#include "names.h"
#include "proto.h"
#include "state.h"
#include "timeutil.h"

/* Two digits at a time: 10 divisions by a constant for a number. */
static const char two_digits[] =
	"00010203040506070809101112131415161718192021222324"
	"25262728293031323334353637383940414243444546474849"
	"50515253545556575859606162636465666768697071727374"
	"75767778798081828384858687888990919293949596979899";

/* Five digits of x < 100000. */
static void
put5(char *p, uint32_t x)
{
	p[0] = (char)('0' + x / 10000);
	x %= 10000;
	memcpy(p + 1, two_digits + 2 * (x / 100), 2);
	memcpy(p + 3, two_digits + 2 * (x % 100), 2);
}

/*
 * STATE_DIGITS (20) digits, zero-padded: four independent groups of five
 * in 32-bit arithmetic, not a chain of twenty divisions (a third of the
 * time).
 */
static void
put_num(char *p, uint64_t v)
{
	uint64_t	 hi = v / 10000000000ULL, lo = v % 10000000000ULL;

	put5(p, (uint32_t)(hi / 100000));
	put5(p + 5, (uint32_t)(hi % 100000));
	put5(p + 10, (uint32_t)(lo / 100000));
	put5(p + 15, (uint32_t)(lo % 100000));
}

/* A name left-aligned in width, padded with spaces; "?" past the table. */
static void
put_name(char *p, size_t width, const char *const *names, uint64_t v)
{
	const char	*n = v <= UINT32_MAX ? names_get(names, (unsigned)v) :
	    "?";
	size_t		 len = strlen(n);

	if (len > width)
		len = width;
	memcpy(p, n, len);
	memset(p + len, ' ', width - len);
}

/* The text in st->text, then into the file (state_publish: the
 * sequence lock of state_file.h). */
void
state_put(struct state *st, const uint64_t v[STATE_FIELDS])
{
	char		*t = (char *)st->text;
	const char *const *names;
	uint64_t	 seq = ++st->seq;
	int		 f;

	put_num(t + st->l.off[STATE_END], seq);
	for (f = STATE_SEQ + 1; f < STATE_END; f++) {
		if (st->put > 0 && v[f] == st->last[f])
			continue;	/* the same text is there */
		st->last[f] = v[f];
		if ((names = state_names((enum state_field)f)) != NULL)
			put_name(t + st->l.off[f], st->l.width[f], names, v[f]);
		else
			put_num(t + st->l.off[f], v[f]);
	}
	put_num(t + st->l.off[STATE_SEQ], seq);
	state_publish(st->map, &st->l, t);
	st->put++;
}

void
state_put_sched(struct state *st, const struct sched *s, int phase,
    uint64_t stopped_ns, uint64_t ps_ns, uint64_t mem, uint64_t swap)
{
	uint64_t	 v[STATE_FIELDS];

	v[STATE_PHASE] = (uint64_t)phase;
	v[STATE_LS_POLICY] = s->ls_idle ? LS_IDLE : LS_STOP;
	v[STATE_MODE] = (uint64_t)(s->mode < 0 ? MODE_OFF : s->mode);
	v[STATE_PS_US] = (uint64_t)((s->slicing ? s->sl.ps : s->ps) /
	    NS_PER_US);
	v[STATE_IP_US] = (uint64_t)(s->ip / NS_PER_US);
	v[STATE_STOPPED_NS] = st->base_stopped + stopped_ns;
	v[STATE_PS_NS] = st->base_ps + ps_ns;
	v[STATE_LS_NS] = st->base_ls + s->st.ls_ns;
	v[STATE_AT_NS] = (uint64_t)s->st.acct_at;
	v[STATE_MEM_BYTES] = mem;
	v[STATE_SWAP_BYTES] = swap;
	state_put(st, v);
}

void
state_hook(void *arg, const struct sched *s)
{
	uint64_t	 mem = 0, swap = 0;

	/* every job's, as jobs.c's last look found them */
	for (int i = 0; i < PROTO_JOBS_MAX; i++)
		if (s->job[i].gang != NULL) {
			mem += __atomic_load_n(&s->job[i].mem_bytes,
			    __ATOMIC_RELAXED);
			swap += __atomic_load_n(&s->job[i].swap_bytes,
			    __ATOMIC_RELAXED);
		}
	state_put_sched(arg, s, s->phase, s->st.stopped_ns, s->st.ps_ns, mem,
	    swap);
}

/* Keys, spaces and newlines; the values come from state_put(). */
static void
render(struct state *st)
{
	char	*t = (char *)st->text;
	size_t	 klen;
	int	 f;

	for (f = 0; f < STATE_FIELDS; f++) {
		klen = strlen(state_key((enum state_field)f));
		memcpy(t + st->l.off[f] - klen - 1,
		    state_key((enum state_field)f), klen);
		t[st->l.off[f] - 1] = ' ';
		t[st->l.off[f] + st->l.width[f]] = '\n';
	}
}

/*
 * A file of another layout (a dts before or after this one's, with
 * lines added or taken away): the numbers of the keys this one knows,
 * wherever they are.  0 if seq, end and the counts are there and seq
 * equals end; -1 otherwise.
 */
static int
parse_other(const char *buf, size_t len, uint64_t v[STATE_FIELDS])
{
	const char	*p = buf, *end = buf + len, *nl, *sp;
	unsigned	 seen = 0, need;
	char		 key[32];
	uint64_t	 x;
	int		 f;

	memset(v, 0, STATE_FIELDS * sizeof(v[0]));
	for (; p < end && (nl = memchr(p, '\n', (size_t)(end - p))) != NULL;
	    p = nl + 1) {
		if ((sp = memchr(p, ' ', (size_t)(nl - p))) == NULL ||
		    (size_t)(sp - p) >= sizeof(key))
			continue;
		memcpy(key, p, (size_t)(sp - p));
		key[sp - p] = '\0';
		if ((f = state_field_find(key)) == -1 ||
		    state_names((enum state_field)f) != NULL)
			continue;
		for (x = 0, sp++; sp < nl && *sp >= '0' && *sp <= '9' &&
		    x <= (UINT64_MAX - 9) / 10; sp++)
			x = x * 10 + (uint64_t)(*sp - '0');
		if (sp != nl)
			return -1;
		v[f] = x;
		seen |= 1u << f;
	}
	need = 1u << STATE_SEQ | 1u << STATE_END | 1u << STATE_STOPPED_NS |
	    1u << STATE_PS_NS | 1u << STATE_LS_NS | 1u << STATE_AT_NS;
	return (seen & need) == need && v[STATE_SEQ] == v[STATE_END] ? 0 : -1;
}

/*
 * The counts of the file found there, if it is a consistent state file
 * of this boot (its at_ns not after our clock): a new dts goes on from
 * them, even from a file of another layout (parse_other).  Else they
 * start at 0.
 */
static void
take_over(struct state *st, int fd, uint64_t v[STATE_FIELDS])
{
	char	 old[STATE_READ_MAX];
	ssize_t	 n = pread(fd, old, sizeof(old), 0);

	if (n <= 0 || (state_parse(old, (size_t)n, v) == -1 &&
	    parse_other(old, (size_t)n, v) == -1) ||
	    v[STATE_AT_NS] > (uint64_t)now_mono_ns()) {
		memset(v, 0, STATE_FIELDS * sizeof(v[0]));
		return;
	}
	st->seq = v[STATE_SEQ];
	st->base_stopped = v[STATE_STOPPED_NS];
	st->base_ps = v[STATE_PS_NS];
	st->base_ls = v[STATE_LS_NS];
}

/*
 * path.lock, root's (ours) and 0600, flock()ed: one dts a state file.
 * No other user can open it, so none can hold the lock.  The fd, or -1
 * with err.
 */
static int
lock_file(const char *path, char *err, size_t errlen)
{
	char		 lock[CONF_STR_MAX + 8];
	struct stat	 sb;
	int		 fd;

	if ((size_t)snprintf(lock, sizeof(lock), "%s.lock", path) >=
	    sizeof(lock)) {
		snprintf(err, errlen, "state file %s: path too long", path);
		return -1;
	}
	fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
	    0600);
	if (fd == -1) {
		snprintf(err, errlen, "state file lock %s: %s", lock,
		    strerror(errno));
		return -1;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    sb.st_uid != geteuid() || fchmod(fd, 0600) == -1) {
		snprintf(err, errlen, "state file lock %s: not a regular file "
		    "of uid %d", lock, (int)geteuid());
		close(fd);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		snprintf(err, errlen, "state file %s: %s", path,
		    errno == EWOULDBLOCK ? "another dts keeps it (it holds "
		    "the lock on its .lock)" : strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int
state_map(struct state *st, const char *path, char *err, size_t errlen)
{
	uint64_t	 v[STATE_FIELDS];
	struct stat	 sb;
	struct statfs	 fs;
	void		*m;
	int		 fd, lock_fd;

	memset(st, 0, sizeof(*st));
	st->fd = st->lock_fd = -1;
	state_layout(&st->l);
	if ((lock_fd = lock_file(path, err, errlen)) == -1)
		return -1;
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
	    0644);
	if (fd == -1) {
		snprintf(err, errlen, "state file %s: %s", path,
		    strerror(errno));
		close(lock_fd);
		return -1;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    sb.st_uid != geteuid()) {
		snprintf(err, errlen, "state file %s: not a regular file of "
		    "uid %d", path, (int)geteuid());
		goto fail;
	}
	take_over(st, fd, v);
	if (fchmod(fd, 0644) == -1 || ftruncate(fd, (off_t)st->l.size) == -1 ||
	    (m = mmap(NULL, st->l.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
	    0)) == MAP_FAILED) {
		snprintf(err, errlen, "state file %s: %s", path,
		    strerror(errno));
		goto fail;
	}
	if (fstatfs(fd, &fs) == 0 && fs.f_type != TMPFS_MAGIC &&
	    fs.f_type != RAMFS_MAGIC)
		log_warnx("state file %s is not on a tmpfs: writing it on a "
		    "slice edge may wait for the disk", path);
	st->fd = fd;
	st->lock_fd = lock_fd;	/* open, and locked, while we keep it */
	st->map = m;
	render(st);
	v[STATE_PHASE] = PHASE_NONE;
	v[STATE_LS_POLICY] = LS_STOP;
	v[STATE_MODE] = MODE_OFF;
	v[STATE_PS_US] = v[STATE_IP_US] = 0;
	state_put(st, v);
	return 0;
fail:
	close(fd);
	close(lock_fd);
	return -1;
}

int
state_open(struct state *st, const char *path, char *err, size_t errlen)
{
	char	 dir[CONF_STR_MAX];
	char	*slash;

	snprintf(dir, sizeof(dir), "%s", path);
	if ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
		*slash = '\0';
		if (conf_dir_make_trusted(dir, "state file directory", err,
		    errlen) == -1)
			return -1;
	}
	return state_map(st, path, err, errlen);
}

void
state_close(struct state *st)
{
	if (st->map != NULL) {
		(void)munmap(st->map, st->l.size);
		close(st->fd);
		close(st->lock_fd);
	}
	st->map = NULL;
}
