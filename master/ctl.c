/*
 * ctl.c - dts-master's control socket.  See ctl.h.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "log.h"
#include "master.h"

/* The directory of path, made (0755) if missing: /run/dts at boot. */
static void
make_dir(const char *path)
{
	char	 d[sizeof(((struct ctl *)0)->path)];
	char	*slash;

	snprintf(d, sizeof(d), "%s", path);
	if ((slash = strrchr(d, '/')) == NULL || slash == d)
		return;
	*slash = '\0';
	if (mkdir(d, 0755) == -1 && errno != EEXIST)
		log_warn("mkdir %s", d);
}

/* 1 if something answers on path. */
static int
live(const struct sockaddr_un *a)
{
	int	 fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int	 ok;

	if (fd == -1)
		return 0;
	ok = connect(fd, (const struct sockaddr *)a, sizeof(*a)) == 0;
	close(fd);
	return ok;
}

static int
op_group(struct ctl *t, const char *name, char *err, size_t errlen)
{
	struct group	*g;

	if (*name == '\0')
		return 0;
	errno = 0;
	if ((g = getgrnam(name)) == NULL) {
		snprintf(err, errlen, "console.operator_group \"%s\": no such "
		    "group", name);
		return -1;
	}
	t->have_op = 1;
	t->op_gid = g->gr_gid;
	snprintf(t->op_name, sizeof(t->op_name), "%s", name);
	return 0;
}

int
ctl_open(struct ctl *t, const struct dts_conf *conf, char *err,
    size_t errlen)
{
	struct sockaddr_un	 a = { .sun_family = AF_UNIX };
	const char		*path = conf->console.master_socket;
	mode_t			 um;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->running = -1;
	for (int i = 0; i < CTL_CLIENTS; i++)
		t->cl[i].fd = -1;
	if (op_group(t, conf->console.operator_group, err, errlen) == -1)
		return -1;
	if (*path == '\0')
		return 0;
	if (strlen(path) >= sizeof(a.sun_path)) {
		snprintf(err, errlen, "console.master_socket \"%s\": path too "
		    "long", path);
		return -1;
	}
	strcpy(a.sun_path, path);
	if (live(&a)) {
		snprintf(err, errlen, "another master answers on %s: this one "
		    "opens no control socket", path);
		return 1;
	}
	make_dir(path);
	(void)unlink(path);
	if ((t->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC |
	    SOCK_NONBLOCK, 0)) == -1)
		goto fail;
	um = umask(0);
	if (bind(t->fd, (struct sockaddr *)&a, sizeof(a)) == -1) {
		umask(um);
		goto fail;
	}
	umask(um);
	if (chmod(path, 0666) == -1 || listen(t->fd, 16) == -1)
		goto fail;
	snprintf(t->path, sizeof(t->path), "%s", path);
	return 0;
fail:
	snprintf(err, errlen, "console.master_socket %s: %s", path,
	    strerror(errno));
	if (t->fd != -1)
		close(t->fd);
	t->fd = -1;
	return -1;
}

static void
drop(struct ctl *t, int i)
{
	struct ctl_client	*k = &t->cl[i];

	if (k->fd != -1)
		close(k->fd);
	free(k->out);
	memset(k, 0, sizeof(*k));
	k->fd = -1;
}

void
ctl_close(struct ctl *t)
{
	for (int i = 0; i < CTL_CLIENTS; i++)
		if (t->cl[i].state != CTL_FREE)
			drop(t, i);
	if (t->mem != NULL) {
		fclose(t->mem);
		free(t->membuf);
		t->mem = NULL;
	}
	if (t->fd != -1) {
		close(t->fd);
		(void)unlink(t->path);
		t->fd = -1;
	}
}

int
ctl_allowed(const struct ctl *t, uid_t uid, gid_t gid, int kind)
{
	struct passwd	 pw, *res = NULL;
	char		 buf[4096];
	gid_t		 groups[256];
	int		 n = 256;

	if (kind != MCTL_WRITE || uid == 0)
		return 1;
	if (!t->have_op)
		return 0;
	if (gid == t->op_gid)
		return 1;
	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) != 0 || res == NULL ||
	    getgrouplist(pw.pw_name, pw.pw_gid, groups, &n) == -1)
		return 0;
	for (int i = 0; i < n; i++)
		if (groups[i] == t->op_gid)
			return 1;
	return 0;
}

int
ctl_pollfds(const struct ctl *t, struct pollfd *p)
{
	int	 n = 0, free_slot = 0;

	for (int i = 0; i < CTL_CLIENTS; i++) {
		const struct ctl_client	*k = &t->cl[i];
		short			 ev = k->state == CTL_READING ?
		    POLLIN : k->state == CTL_WRITING ? POLLOUT : 0;

		free_slot |= k->state == CTL_FREE;
		p[n++] = (struct pollfd){ ev != 0 ? k->fd : -1, ev, 0 };
	}
	p[n++] = (struct pollfd){ free_slot ? t->fd : -1, POLLIN, 0 };
	return n;
}

/* Set client i's reply: rc, the output, the error; to be written. */
static void
reply(struct ctl *t, int i, int rc, const char *out, size_t outlen,
    const char *err, int64_t now)
{
	struct ctl_client	*k = &t->cl[i];
	char			 head[MCTL_HEAD_MAX];
	size_t			 elen = rc != 0 ? strnlen(err, MCTL_REQ_MAX) : 0;
	int			 h;

	if (outlen > MCTL_OUT_MAX)
		outlen = MCTL_OUT_MAX;
	h = mctl_reply_head(head, sizeof(head), rc, outlen, elen);
	if (h < 0 || (k->out = malloc((size_t)h + outlen + elen)) == NULL) {
		log_warnx("control socket: out of memory for a reply");
		drop(t, i);
		return;
	}
	memcpy(k->out, head, (size_t)h);
	if (outlen > 0)
		memcpy(k->out + h, out, outlen);
	if (elen > 0)
		memcpy(k->out + h + outlen, err, elen);
	k->outlen = (size_t)h + outlen + elen;
	k->outoff = 0;
	k->state = CTL_WRITING;
	k->since = now;
}

static void
accept_one(struct ctl *t, int64_t now)
{
	struct ucred	 cr;
	socklen_t	 len = sizeof(cr);
	int		 fd, i;

	if ((fd = accept4(t->fd, NULL, NULL, SOCK_CLOEXEC |
	    SOCK_NONBLOCK)) == -1) {
		if (errno != EAGAIN && errno != EINTR)
			log_warn("control socket: accept");
		return;
	}
	for (i = 0; i < CTL_CLIENTS && t->cl[i].state != CTL_FREE; i++)
		;
	if (i == CTL_CLIENTS || getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr,
	    &len) == -1) {
		close(fd);
		return;
	}
	t->cl[i] = (struct ctl_client){ .fd = fd, .state = CTL_READING,
	    .uid = cr.uid, .gid = cr.gid, .pid = cr.pid, .since = now };
}

/*
 * hello: what the client checks before it sends a command, the signing
 * key's public half ("-" if none): a console whose key differs does not
 * take this master for its own.
 */
static int
hello(struct engine *c, FILE *f)
{
	char	 pub[2 * AUTH_PUB_LEN + 1] = "-";

	if (c->net.key.can_sign)
		auth_signer_public(&c->net.key, pub);
	fprintf(f, "dts-master %s pid %d key %s role %s\n", PACKAGE_VERSION,
	    (int)getpid(), pub, *standby_role_name(&c->sb) != '\0' ?
	    standby_role_name(&c->sb) : "master");
	return 0;
}

/* Client i is readable: a whole line is parsed and queued, or refused. */
static void
read_one(struct ctl *t, struct engine *c, int i, int64_t now)
{
	struct ctl_client	*k = &t->cl[i];
	char			 err[OUT_ERR_MAX];
	ssize_t			 r;

	r = read(k->fd, k->in + k->inlen, sizeof(k->in) - k->inlen);
	if (r == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (r <= 0) {
		drop(t, i);
		return;
	}
	k->inlen += (size_t)r;
	if (memchr(k->in, '\n', k->inlen) == NULL) {
		if (k->inlen < sizeof(k->in))
			return;		/* more to come */
	} else
		k->inlen = (size_t)((char *)memchr(k->in, '\n', k->inlen) -
		    k->in) + 1;
	if (mctl_parse(k->in, k->inlen, k->cmd, sizeof(k->cmd), &k->kind,
	    err, sizeof(err)) == -1) {
		t->refused++;
		reply(t, i, 1, NULL, 0, err, now);
		return;
	}
	if (!ctl_allowed(t, k->uid, k->gid, k->kind)) {
		t->refused++;
		snprintf(err, sizeof(err), "%s: changes the schedule, which "
		    "only root%s%s may (you are uid %u)", k->cmd, t->have_op ?
		    " and group " : "", t->have_op ? t->op_name : "",
		    (unsigned)k->uid);
		log_info("control socket: refused uid %u pid %d: %s",
		    (unsigned)k->uid, (int)k->pid, k->cmd);
		reply(t, i, 1, NULL, 0, err, now);
		return;
	}
	if (strcmp(k->cmd, "hello") == 0) {
		char	*b = NULL;
		size_t	 n = 0;
		FILE	*f = open_memstream(&b, &n);

		if (f != NULL) {
			hello(c, f);
			fclose(f);
		}
		reply(t, i, f == NULL, b, n, "out of memory", now);
		free(b);
		return;
	}
	k->state = CTL_QUEUED;
	k->order = ++t->order;
	k->since = now;
}

static void
write_one(struct ctl *t, int i)
{
	struct ctl_client	*k = &t->cl[i];
	ssize_t			 w;

	w = send(k->fd, k->out + k->outoff, k->outlen - k->outoff,
	    MSG_NOSIGNAL);
	if (w == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (w <= 0) {
		drop(t, i);
		return;
	}
	k->outoff += (size_t)w;
	if (k->outoff == k->outlen) {
		t->served++;
		drop(t, i);
	}
}

void
ctl_events(struct ctl *t, struct engine *c, const struct pollfd *p, int n,
    int64_t now)
{
	for (int i = 0; i < CTL_CLIENTS && i < n; i++) {
		struct ctl_client	*k = &t->cl[i];

		if (k->state == CTL_READING && (p[i].revents & (POLLIN |
		    POLLHUP | POLLERR)))
			read_one(t, c, i, now);
		else if (k->state == CTL_WRITING && (p[i].revents & (POLLOUT |
		    POLLHUP | POLLERR)))
			write_one(t, i);
		if ((k->state == CTL_READING && now - k->since > CTL_READ_NS) ||
		    (k->state == CTL_WRITING && now - k->since > CTL_WRITE_NS)) {
			t->dropped++;
			drop(t, i);
		}
	}
	if (n > CTL_CLIENTS && (p[CTL_CLIENTS].revents & POLLIN))
		accept_one(t, now);
}

/* The running command ended with rc: its output is the reply. */
static void
finish(struct ctl *t, struct engine *c, int rc, int64_t now)
{
	int	 i = t->running;

	fflush(t->mem);
	c->out.f = t->saved;
	reply(t, i, rc != 0, t->membuf, t->memlen, c->out.err, now);
	fclose(t->mem);
	free(t->membuf);
	t->mem = NULL;
	t->membuf = NULL;
	t->running = -1;
}

void
ctl_run(struct ctl *t, struct engine *c, ctl_exec_fn *exec, void *arg,
    int64_t now)
{
	int	 rc;

	if (t->running != -1) {
		if (t->cl[t->running].state != CTL_RUNNING)
			return;
		if (!master_done(c, &rc))
			return;
		finish(t, c, rc, now);
	}
	while (t->running == -1) {
		int	 next = -1;

		for (int i = 0; i < CTL_CLIENTS; i++)
			if (t->cl[i].state == CTL_QUEUED && (next == -1 ||
			    t->cl[i].order < t->cl[next].order))
				next = i;
		if (next == -1)
			return;
		if ((t->mem = open_memstream(&t->membuf, &t->memlen)) ==
		    NULL) {
			reply(t, next, 1, NULL, 0, "out of memory", now);
			continue;
		}
		if (t->cl[next].kind == MCTL_WRITE)
			log_info("control socket: uid %u pid %d: %s",
			    (unsigned)t->cl[next].uid, (int)t->cl[next].pid,
			    t->cl[next].cmd);
		t->saved = c->out.f;
		c->out.f = t->mem;
		t->running = next;
		t->cl[next].state = CTL_RUNNING;
		rc = exec(arg, t->cl[next].cmd);
		if (!master_busy(c))
			finish(t, c, rc, now);
	}
}

int
ctl_busy(const struct ctl *t)
{
	return t->running != -1;
}
