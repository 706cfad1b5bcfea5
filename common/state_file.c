/*
 * state_file.c - the state file's format and its reader.  See
 * state_file.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "names.h"
#include "proto.h"
#include "state_file.h"

/* The lines: a key, and the name table of its value (NULL: a number). */
static const struct {
	const char		*key;
	const char *const	*names;
} fields[STATE_FIELDS] = {
	[STATE_SEQ] =		{ "seq", NULL },
	[STATE_PHASE] =		{ "phase", proto_phase_names },
	[STATE_LS_POLICY] =	{ "ls_policy", conf_ls_policy_names },
	[STATE_MODE] =		{ "mode", proto_mode_names },
	[STATE_PS_US] =		{ "ps_us", NULL },
	[STATE_IP_US] =		{ "ip_us", NULL },
	[STATE_STOPPED_NS] =	{ "stopped_ns", NULL },
	[STATE_PS_NS] =		{ "ps_ns", NULL },
	[STATE_LS_NS] =		{ "ls_ns", NULL },
	[STATE_AT_NS] =		{ "at_ns", NULL },
	[STATE_MEM_BYTES] =	{ "mem_bytes", NULL },
	[STATE_SWAP_BYTES] =	{ "swap_bytes", NULL },
	[STATE_END] =		{ "end", NULL },
};

const char *
state_key(enum state_field f)
{
	return (unsigned)f < STATE_FIELDS ? fields[f].key : "?";
}

int
state_field_find(const char *key)
{
	int	 f;

	for (f = 0; f < STATE_FIELDS; f++)
		if (strcmp(key, fields[f].key) == 0)
			return f;
	return -1;
}

const char *const *
state_names(enum state_field f)
{
	return (unsigned)f < STATE_FIELDS ? fields[f].names : NULL;
}

static size_t
names_width(const char *const *names)
{
	size_t	 w = 1, i;

	for (i = 0; names[i] != NULL; i++)
		if (strlen(names[i]) > w)
			w = strlen(names[i]);
	return w;
}

/* The lock word of the number whose value starts at off. */
static size_t
lock_word(size_t off)
{
	return (off + STATE_DIGITS - STATE_LOCK_DIGITS) / STATE_WORD;
}

static void
place(struct state_layout *l)
{
	size_t	 off = 0;
	int	 f;

	for (f = 0; f < STATE_FIELDS; f++) {
		off += strlen(fields[f].key) + 1;
		l->off[f] = off;
		off += l->width[f] + 1;
	}
	l->size = off;
}

/*
 * Each line where the last one left it; mode's name padded further so
 * that end's line starts on a word, and its lock word is one word (seq's
 * is: "seq " is 4 bytes).
 */
void
state_layout(struct state_layout *l)
{
	size_t	 line;
	int	 f;

	memset(l, 0, sizeof(*l));
	for (f = 0; f < STATE_FIELDS; f++)
		l->width[f] = fields[f].names != NULL ?
		    names_width(fields[f].names) : STATE_DIGITS;
	place(l);
	line = l->off[STATE_END] - strlen(fields[STATE_END].key) - 1;
	l->width[STATE_MODE] += (STATE_WORD - line % STATE_WORD) % STATE_WORD;
	place(l);
	l->end_line = (l->off[STATE_END] - strlen(fields[STATE_END].key) - 1) /
	    STATE_WORD;
	l->seq_word = lock_word(l->off[STATE_SEQ]);
	l->end_word = lock_word(l->off[STATE_END]);
	l->words = l->size / STATE_WORD;
}

/* One value of len bytes, trailing spaces allowed, into *out. */
static int
parse_value(int f, const char *p, size_t len, uint64_t *out)
{
	char		 name[32];
	uint64_t	 v = 0;
	size_t		 i;
	int		 k;

	while (len > 0 && p[len - 1] == ' ')
		len--;
	if (len == 0)
		return -1;
	if (fields[f].names != NULL) {
		if (len >= sizeof(name))
			return -1;
		memcpy(name, p, len);
		name[len] = '\0';
		if ((k = names_find(fields[f].names, name)) == -1)
			return -1;
		*out = (uint64_t)k;
		return 0;
	}
	for (i = 0; i < len; i++) {
		if (p[i] < '0' || p[i] > '9' ||
		    v > (UINT64_MAX - (uint64_t)(p[i] - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(p[i] - '0');
	}
	*out = v;
	return 0;
}

int
state_parse(const char *buf, size_t len, uint64_t v[STATE_FIELDS])
{
	const char	*p = buf, *end = buf + len, *nl;
	size_t		 klen;
	int		 f;

	for (f = 0; f < STATE_FIELDS; f++) {
		klen = strlen(fields[f].key);
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL ||
		    (size_t)(nl - p) < klen + 2 ||
		    memcmp(p, fields[f].key, klen) != 0 || p[klen] != ' ' ||
		    parse_value(f, p + klen + 1, (size_t)(nl - p) - klen - 1,
		    &v[f]) == -1)
			return -1;
		p = nl + 1;
	}
	return v[STATE_SEQ] == v[STATE_END] ? 0 : -1;
}

int
state_copy(const char *map, const struct state_layout *l, char *buf)
{
	const uint64_t	*w = (const uint64_t *)(const void *)map;
	uint64_t	*o = (uint64_t *)(void *)buf;
	uint64_t	 s;
	size_t		 i;

	s = __atomic_load_n(&w[l->seq_word], __ATOMIC_ACQUIRE);
	o[l->seq_word] = s;
	for (i = 0; i < l->end_line; i++)
		if (i != l->seq_word)
			o[i] = __atomic_load_n(&w[i], __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	for (i = l->end_line; i < l->words; i++)
		o[i] = __atomic_load_n(&w[i], __ATOMIC_RELAXED);
	for (i = l->words * STATE_WORD; i < l->size; i++)
		buf[i] = __atomic_load_n(&map[i], __ATOMIC_RELAXED);
	return o[l->end_word] == s ? 0 : -1;
}

void
state_publish(char *map, const struct state_layout *l, const char *buf)
{
	uint64_t	*w = (uint64_t *)(void *)map;
	const uint64_t	*b = (const uint64_t *)(const void *)buf;
	size_t		 i;

	for (i = l->end_line; i < l->words; i++)
		__atomic_store_n(&w[i], b[i], __ATOMIC_RELAXED);
	for (i = l->words * STATE_WORD; i < l->size; i++)
		__atomic_store_n(&map[i], buf[i], __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (i = 0; i < l->end_line; i++)
		if (i != l->seq_word)
			__atomic_store_n(&w[i], b[i], __ATOMIC_RELAXED);
	__atomic_store_n(&w[l->seq_word], b[l->seq_word], __ATOMIC_RELEASE);
}

/* ---- the reader ----------------------------------------------------------- */

int
state_reader_open(struct state_reader *r, const char *path, char *err,
    size_t errlen)
{
	struct stat	 sb;
	void		*m;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->wait_ns = STATE_READ_WAIT_NS;
	state_layout(&r->l);
	if ((r->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(r->fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    sb.st_size != (off_t)r->l.size) {
		snprintf(err, errlen, "%s: not a state file (%s, want %zu "
		    "bytes)", path, S_ISREG(sb.st_mode) ? "size differs" :
		    "not a regular file", r->l.size);
		goto fail;
	}
	m = mmap(NULL, r->l.size, PROT_READ, MAP_SHARED, r->fd, 0);
	if (m == MAP_FAILED) {
		snprintf(err, errlen, "%s: mmap: %s", path, strerror(errno));
		goto fail;
	}
	r->map = m;
	return 0;
fail:
	close(r->fd);
	r->fd = -1;
	return -1;
}

static int64_t
mono_ns(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int
state_reader_read(struct state_reader *r, uint64_t v[STATE_FIELDS],
    char *err, size_t errlen)
{
	uint64_t	 buf[STATE_READ_MAX / sizeof(uint64_t)];
	int64_t		 until = 0;
	unsigned	 tries;
	int		 whole;

	for (tries = 0;; tries++) {
		whole = state_copy(r->map, &r->l, (char *)buf) == 0;
		if (whole && state_parse((const char *)buf, r->l.size, v) == 0)
			return 0;
		/* torn, or a dts making the file: wait for it, a while */
		if (whole == 0)
			r->torn++;
		if (tries < 100)
			continue;
		if (until == 0)
			until = mono_ns() + r->wait_ns;
		else if (tries >= 200 && mono_ns() > until)
			break;
		(void)nanosleep(&(struct timespec){ 0, 100000 }, NULL);
	}
	snprintf(err, errlen, whole ? "not a state file (garbled)" :
	    "torn for %.3g s: its writer stopped in the middle of a write",
	    (double)r->wait_ns / 1e9);
	return -1;
}

void
state_reader_close(struct state_reader *r)
{
	if (r->map != NULL)
		(void)munmap((void *)(uintptr_t)r->map, r->l.size);
	if (r->fd != -1)
		close(r->fd);
	r->map = NULL;
	r->fd = -1;
}
