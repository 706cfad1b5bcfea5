/*
 * adopt.c - the adoption socket.  See adopt.h and common/adopt_msg.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "adopt.h"
#include "adopt_msg.h"
#include "cgroup.h"
#include "log.h"
#include "proc.h"
#include "users.h"

static int
addr_of(const char *path, struct sockaddr_un *sun)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun->sun_path))
		return -1;
	memcpy(sun->sun_path, path, strlen(path) + 1);
	return 0;
}

/* Does a server answer on path? */
static int
someone_listens(const struct sockaddr_un *sun)
{
	int	 fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0), ok;

	if (fd == -1)
		return 0;
	ok = connect(fd, (const struct sockaddr *)sun, sizeof(*sun)) == 0;
	close(fd);
	return ok;
}

/* The socket's directory: created 0755 if missing, must be root's. */
static int
socket_dir(const char *path, char *err, size_t errlen)
{
	char	 dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char	*slash;

	snprintf(dir, sizeof(dir), "%s", path);
	if ((slash = strrchr(dir, '/')) == NULL || slash == dir)
		return 0;
	*slash = '\0';
	return conf_dir_make_trusted(dir, "socket directory", err, errlen);
}

int
adopt_open(struct adopt *a, const char *path, const struct dts_conf *c,
    struct gang *g, char *err, size_t errlen)
{
	struct sockaddr_un	 sun;

	memset(a, 0, sizeof(*a));
	a->fd = -1;
	for (int i = 0; i < ADOPT_CONN_MAX; i++)
		a->conn[i] = -1;
	a->conf = c;
	a->gang = g;
	a->gang_uid = (uid_t)-1;
	if (path[0] != '/' || addr_of(path, &sun) == -1) {
		snprintf(err, errlen, "socket \"%s\": not an absolute path "
		    "shorter than %zu bytes", path, sizeof(sun.sun_path));
		return -1;
	}
	if (socket_dir(path, err, errlen) == -1)
		return -1;
	if (someone_listens(&sun)) {
		snprintf(err, errlen, "another dts is running (it answers on "
		    "%s)", path);
		return -1;
	}
	(void)unlink(path);
	a->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0);
	if (a->fd == -1 ||
	    bind(a->fd, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    chmod(path, 0666) == -1 || listen(a->fd, ADOPT_CONN_MAX) == -1) {
		snprintf(err, errlen, "socket %s: %s", path, strerror(errno));
		if (a->fd != -1)
			close(a->fd);
		a->fd = -1;
		return -1;
	}
	snprintf(a->path, sizeof(a->path), "%s", path);
	return 0;
}

/*
 * A launcher sends its request right after connecting.  A client that
 * connects and says nothing must not lock others out: when every slot is
 * taken, the oldest connection is closed for the new one.  The caller
 * learns which fd went through *evicted (-1 if none).
 */
int
adopt_accept(struct adopt *a, int *evicted)
{
	int	 fd = accept4(a->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	*evicted = -1;
	if (fd == -1)
		return -1;
	for (int i = 0; i < ADOPT_CONN_MAX; i++) {
		if (a->conn[i] == -1) {
			a->conn[i] = fd;
			return fd;
		}
	}
	*evicted = a->conn[0];
	(void)send(*evicted, "ERR dts is busy: try again", 26,
	    MSG_NOSIGNAL | MSG_DONTWAIT);
	memmove(a->conn, a->conn + 1,
	    (ADOPT_CONN_MAX - 1) * sizeof(a->conn[0]));
	a->conn[ADOPT_CONN_MAX - 1] = fd;
	return fd;
}

static void __attribute__((format(printf, 2, 3)))
reply(int fd, const char *fmt, ...)
{
	char	 msg[ADOPT_MSG_MAX];
	va_list	 ap;
	int	 n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(msg))
		n = (int)sizeof(msg) - 1;
	(void)send(fd, msg, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* dts.conf's users (users.h): 1, or 0 with the line for the user. */
static int
user_allowed(const struct dts_conf *c, const struct passwd *pw, char *why,
    size_t whylen)
{
	return users_allowed(&c->users, pw->pw_uid, pw->pw_gid, pw->pw_name,
	    why, whylen);
}

/*
 * The checks, in order: a well-formed request (more: its second line, or
 * NULL), a known peer, a user the config allows, no other gang, a pvmd
 * that exists; then the move.  Returns NULL when adopted, or the reason.
 */
static const char *
decide(struct adopt *a, const char *req, const char *more,
    const struct ucred *cr, const char **name, char *why, size_t whylen)
{
	struct passwd	*pw;
	int		 members;

	if ((strcmp(req, "ADOPT pvmd") != 0 && strcmp(req, "ADOPT run") != 0) ||
	    (more != NULL && more[0] != '\0' &&
	    strcmp(more, ADOPT_STATE_LINE) != 0))
		return "malformed request (expected \"ADOPT pvmd\", "
		    "\"ADOPT run\" or \"JOIN <pid>\")";
	pw = getpwuid(cr->uid);
	*name = pw ? pw->pw_name : "?";
	if (pw == NULL) {
		snprintf(why, whylen, "uid %d has no user name: it may not run "
		    "a gang on this node", (int)cr->uid);
		return why;
	}
	if (!user_allowed(a->conf, pw, why, whylen))
		return why;
	if ((members = gang_members(a->gang)) > 0) {
		snprintf(why, whylen, "a gang is already running on this node "
		    "(%d process(es) of uid %d): one gang at a time",
		    members, (int)a->gang_uid);
		return why;
	}
	if (strcmp(req, "ADOPT pvmd") == 0 &&
	    access(conf_pvmd(a->conf), X_OK) == -1) {
		snprintf(why, whylen, "pvmd %s: %s (dts.conf: pvmd)",
		    conf_pvmd(a->conf), strerror(errno));
		return why;
	}
	if (gang_adopt(a->gang, cr->pid) == -1) {
		snprintf(why, whylen, "cannot move pid %d into %s: %s",
		    (int)cr->pid, a->gang->cg, strerror(errno));
		return why;
	}
	return NULL;
}

/* The gang's uid for one member, into an owner_arg. */
struct owner_arg {
	uid_t	 uid;
	int	 n, mixed;
};

static void
owner_one(pid_t pid, void *arg)
{
	struct owner_arg	*oa = arg;
	uid_t			 ids[4];

	if (proc_pid_uids(pid, ids) == -1)
		return;
	if (oa->n++ == 0)
		oa->uid = ids[0];
	else if (ids[0] != oa->uid)
		oa->mixed = 1;
}

/*
 * The gang's uid: the one it was adopted for; after a takeover (this dts
 * found the gang running) the one uid all its members have.  0 or -1.
 */
static int
gang_owner(struct adopt *a, uid_t *uid)
{
	struct owner_arg	 oa = { 0, 0, 0 };

	if (a->gang_uid == (uid_t)-1) {
		(void)cg_foreach(a->gang->cg, "cgroup.procs", owner_one, &oa);
		if (oa.n == 0 || oa.mixed)
			return -1;
		a->gang_uid = oa.uid;
	}
	*uid = a->gang_uid;
	return 0;
}

/*
 * "JOIN <pid>": a gang member (dts-pvmjoin) asks for a task of its pvmd
 * that was started outside the gang.  The checks, in order: a well-formed
 * request; an asker in the gang, of the gang's uid; a gang that is not
 * root's (a root gang could pull in any root process); a target that
 * exists, is not in the gang yet, and whose real, effective, saved and
 * filesystem uids are all the gang's; then the move.  Returns NULL when
 * joined, or the reason.  (Between the checks and the move the target
 * could only be another process if its pid came round again: the whole
 * pid space would have to be used up within this call.)
 */
static const char *
decide_join(struct adopt *a, const char *req, const struct ucred *cr,
    pid_t *pid, char *why, size_t whylen)
{
	uid_t	 owner, id[4];

	if (adopt_parse_join(req, pid) == -1)
		return "malformed request (expected \"JOIN <pid>\", the pid "
		    "in decimal from 1 to 4194304)";
	if (!gang_has(a->gang, cr->pid)) {
		snprintf(why, whylen, "pid %d is not in the gang: only a gang "
		    "member may ask for a join", (int)cr->pid);
		return why;
	}
	if (gang_owner(a, &owner) == -1)
		return "the gang's user is unknown (its members run as "
		    "different users)";
	if (cr->uid != owner) {
		snprintf(why, whylen, "uid %d may not ask: the gang is uid "
		    "%d's", (int)cr->uid, (int)owner);
		return why;
	}
	if (owner == 0)
		return "the gang runs as root, and a root gang takes nobody "
		    "in (start a root program in it with dts-run -- COMMAND)";
	if (proc_pid_uids(*pid, id) == -1) {
		snprintf(why, whylen, "no process %d", (int)*pid);
		return why;
	}
	if (gang_has(a->gang, *pid)) {
		snprintf(why, whylen, "pid %d is already in the gang",
		    (int)*pid);
		return why;
	}
	if (id[0] != owner || id[1] != owner || id[2] != owner ||
	    id[3] != owner) {
		snprintf(why, whylen, "pid %d runs as uid %d/%d/%d/%d (real/"
		    "effective/saved/fs), not as the gang's uid %d", (int)*pid,
		    (int)id[0], (int)id[1], (int)id[2], (int)id[3],
		    (int)owner);
		return why;
	}
	if (gang_adopt(a->gang, *pid) == -1) {
		snprintf(why, whylen, "cannot move pid %d into %s: %s",
		    (int)*pid, a->gang->cg, strerror(errno));
		return why;
	}
	return NULL;
}

static void
answer_join(struct adopt *a, int fd, const char *req, const struct ucred *cr)
{
	char		 why[ADOPT_MSG_MAX], comm[64] = "?";
	const char	*refused;
	pid_t		 pid = 0;

	if ((refused = decide_join(a, req, cr, &pid, why,
	    sizeof(why))) != NULL) {
		a->refused++;
		log_warnx("join refused: asked by pid %d, uid %d: %s",
		    (int)cr->pid, (int)cr->uid, refused);
		reply(fd, "ERR %s", refused);
		return;
	}
	a->joined++;
	(void)proc_pid_comm(pid, comm, sizeof(comm));
	log_info("joined pid %d (%s, uid %d) into %s, asked by pid %d",
	    (int)pid, comm, (int)cr->uid, a->gang->cg, (int)cr->pid);
	reply(fd, "OK");
}

/* more: the request's second line, or NULL (adopt_msg.h). */
static void
answer_adopt(struct adopt *a, int fd, const char *req, const char *more,
    const struct ucred *cr)
{
	char		 why[ADOPT_MSG_MAX];
	const char	*refused, *name = "?", *exe;

	if ((refused = decide(a, req, more, cr, &name, why,
	    sizeof(why))) != NULL) {
		a->refused++;
		log_warnx("adoption refused: pid %d, uid %d: %s",
		    (int)cr->pid, (int)cr->uid, refused);
		reply(fd, "ERR %s", refused);
		return;
	}
	a->adopted++;
	a->gang_uid = cr->uid;
	log_info("adopted pid %d (user %s) into %s: %s", (int)cr->pid, name,
	    a->gang->cg, req + 6);
	exe = strcmp(req, "ADOPT pvmd") == 0 ? conf_pvmd(a->conf) : "";
	if (more != NULL && strcmp(more, ADOPT_STATE_LINE) == 0 &&
	    a->conf->state_file[0] != '\0')
		reply(fd, "OK %s\n" ADOPT_STATE_LINE " %s", exe,
		    a->conf->state_file);
	else
		reply(fd, "OK %s", exe);
}

int
adopt_input(struct adopt *a, int fd)
{
	char		 req[ADOPT_MSG_MAX + 1];
	char		*more;
	struct ucred	 cr;
	socklen_t	 len = sizeof(cr);
	ssize_t		 n;

	n = recv(fd, req, ADOPT_MSG_MAX, MSG_DONTWAIT);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return 0;	/* not yet */
	if (n > 0 && getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0) {
		req[n] = '\0';
		if ((more = strchr(req, '\n')) != NULL)
			*more++ = '\0';
		if (strncmp(req, "JOIN", 4) == 0)
			answer_join(a, fd, req, &cr);
		else
			answer_adopt(a, fd, req, more, &cr);
	}
	for (int i = 0; i < ADOPT_CONN_MAX; i++)
		if (a->conn[i] == fd)
			a->conn[i] = -1;
	close(fd);
	return 1;
}

void
adopt_close(struct adopt *a)
{
	for (int i = 0; i < ADOPT_CONN_MAX; i++)
		if (a->conn[i] != -1)
			close(a->conn[i]);
	if (a->fd != -1) {
		close(a->fd);
		(void)unlink(a->path);
	}
	a->fd = -1;
}
