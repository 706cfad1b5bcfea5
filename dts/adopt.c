/*
 * adopt.c - the adoption socket.  See adopt.h and common/adopt_msg.h.
 *
 * What one connection costs: accept4 and SO_PEERCRED, then either its
 * turn now (read, check, answer) or a place in the park until its uid's
 * turn.  Nothing is read, parsed, looked up (NSS) or logged before the
 * uid's budget allowed it; the log of refusals has a budget of its own
 * (refuse_log).
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "adopt.h"
#include "adopt_check.h"
#include "adopt_msg.h"
#include "cgroup.h"
#include "evfd.h"
#include "job.h"
#include "jobs.h"
#include "log.h"
#include "proc.h"
#include "scheduler.h"
#include "timeutil.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77		/* Linux 6.5: a pidfd of the peer */
#endif

/* Every uid together: connections accepted a second, and a burst. */
#define ACCEPT_RATE   300
#define ACCEPT_BURST  16
/* Over that, the socket is not polled for at least this long. */
#define ACCEPT_PAUSE  (20 * NS_PER_MS)
/* One uid: requests served a second, and a burst; the gang's uid and
 * root more (dts-pvmjoin's JOINs when many tasks start at once). */
#define UID_RATE      10
#define UID_BURST     10
#define GANG_RATE     100
#define GANG_BURST    50
/* A connection whose turn is further off than this is refused at once
 * ("busy"), as is one that finds the park full. */
#define TURN_MAX      (2 * NS_PER_SEC)
/* Refusal lines: a second, and a burst. */
#define LOG_RATE      2
#define LOG_BURST     30
/* listen(2): connections the kernel queues while dts does not accept. */
#define ADOPT_BACKLOG 8

#define NS_EACH(rate) (NS_PER_SEC / (rate))

static int64_t
now_boot_ns(void)
{
	struct timespec	 t;

	clock_gettime(CLOCK_BOOTTIME, &t);
	return (int64_t)t.tv_sec * NS_PER_SEC + t.tv_nsec;
}

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
    struct jobs *J, char *err, size_t errlen)
{
	struct sockaddr_un	 sun;

	memset(a, 0, sizeof(*a));
	a->fd = a->tfd = a->epfd = -1;
	for (int i = 0; i < ADOPT_CONN_MAX; i++)
		a->conn[i].fd = -1;
	for (int i = 0; i < ADOPT_LIFT_MAX; i++)
		a->lift[i].fd = -1;
	a->conf = c;
	a->jobs = J;
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
	    chmod(path, 0666) == -1 || listen(a->fd, ADOPT_BACKLOG) == -1 ||
	    (a->tfd = evfd_timer(CLOCK_MONOTONIC)) == -1) {
		snprintf(err, errlen, "socket %s: %s", path, strerror(errno));
		if (a->fd != -1)
			close(a->fd);
		a->fd = -1;
		return -1;
	}
	snprintf(a->path, sizeof(a->path), "%s", path);
	return 0;
}

int
adopt_start(struct adopt *a, int epfd, struct sched *s)
{
	a->epfd = epfd;
	a->sched = s;
	if (evfd_watch(epfd, a->tfd, EPOLLIN) == -1 ||
	    evfd_watch(epfd, a->fd, EPOLLIN) == -1)
		return -1;
	a->polling = 1;
	return 0;
}

int
adopt_owns(const struct adopt *a, int fd)
{
	if (fd == -1)
		return 0;
	if (fd == a->fd || fd == a->tfd)
		return 1;
	for (int i = 0; i < ADOPT_CONN_MAX; i++)
		if (a->conn[i].fd == fd)
			return 1;
	for (int i = 0; i < ADOPT_LIFT_MAX; i++)
		if (a->lift[i].fd == fd)
			return 1;
	return 0;
}

/* ---- the log of refusals ------------------------------------------------ */

/*
 * One refusal line, within the log's budget (LOG_RATE a second after a
 * burst of LOG_BURST); the lines over it are counted, and the count goes
 * with the next line (or, on the timer, alone).  The one place that
 * decides: a shared rate limit of the log (common/log.h) can take over
 * here.
 */
static void __attribute__((format(printf, 2, 3)))
refuse_log(struct adopt *a, const char *fmt, ...)
{
	char	 msg[ADOPT_MSG_MAX + 128];
	int64_t	 now = now_mono_ns();
	va_list	 ap;

	if (adopt_rate_when(&a->log, now, NS_EACH(LOG_RATE), LOG_BURST) > now) {
		a->log_dropped++;
		return;
	}
	adopt_rate_take(&a->log, now, NS_EACH(LOG_RATE));
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (a->log_dropped > 0)
		log_warnx("%s (and %u refusal(s) before it not logged: at "
		    "most %d lines a second)", msg, a->log_dropped, LOG_RATE);
	else
		log_warnx("%s", msg);
	a->log_dropped = 0;
}

/* The count of the lines left out, once the log's budget allows. */
static void
refuse_log_flush(struct adopt *a, int64_t now)
{
	if (a->log_dropped == 0 ||
	    adopt_rate_when(&a->log, now, NS_EACH(LOG_RATE), LOG_BURST) > now)
		return;
	adopt_rate_take(&a->log, now, NS_EACH(LOG_RATE));
	log_warnx("adoption socket: %u refusal(s) not logged (at most %d "
	    "lines a second)", a->log_dropped, LOG_RATE);
	a->log_dropped = 0;
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

/* ---- processes through pidfds ------------------------------------------- */

/*
 * A process as dts acts on it: a pidfd holds it, and its pid number is
 * used only while the pidfd says that the process still has it (a
 * number is reused only after the process has been reaped, and then the
 * pidfd says -1 for good).
 */
struct proc_ref {
	int	 pidfd;
	pid_t	 pid;
	uid_t	 ids[4];		/* real, effective, saved, fs */
};

static int
pidfd_open_pid(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* The pid of the process pidfd holds, or -1 once it was reaped. */
static pid_t
pidfd_pid(int pidfd)
{
	char	 path[64], buf[512];
	pid_t	 pid;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	if (proc_read_small(path, buf, sizeof(buf)) == -1 ||
	    adopt_parse_fdinfo_pid(buf, &pid) == -1)
		return -1;
	return pid;
}

/*
 * The start of process pid (field 22 of /proc/PID/stat, clock ticks since
 * boot) in ns of CLOCK_BOOTTIME, or -1.
 */
static int64_t
start_boot_ns(pid_t pid)
{
	char		 path[64], buf[1024];
	const char	*p;
	unsigned long long ticks;
	long		 hz = sysconf(_SC_CLK_TCK);

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (proc_read_small(path, buf, sizeof(buf)) == -1 ||
	    (p = strrchr(buf, ')')) == NULL || hz <= 0)
		return -1;
	for (int field = 2; field < 22; field++)	/* ')' ends field 2 */
		if ((p = strchr(p + 1, ' ')) == NULL)
			return -1;
	if (sscanf(p, " %llu", &ticks) != 1)
		return -1;
	return (int64_t)(ticks * (NS_PER_SEC / (unsigned long long)hz));
}

/*
 * Take hold of process pid (not a thread of another process): r with its
 * pidfd and uids.  0, or -1 with the reason in why.
 */
static int
ref_pid(pid_t pid, struct proc_ref *r, char *why, size_t whylen)
{
	char	 path[64], st[4096];
	pid_t	 tgid;

	r->pid = pid;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((r->pidfd = pidfd_open_pid(pid)) == -1) {
		/* a thread: EINVAL, ENOENT since 6.9 */
		if (proc_read_small(path, st,
		    sizeof(st)) == 0 && adopt_parse_status(st, &tgid,
		    r->ids) == 0 && tgid != pid)
			snprintf(why, whylen, "pid %d is a thread of process "
			    "%d: only a whole process joins (ask for %d)",
			    (int)pid, (int)tgid, (int)tgid);
		else
			snprintf(why, whylen, "no process %d", (int)pid);
		return -1;
	}
	if (proc_read_small(path, st, sizeof(st)) == -1 ||
	    adopt_parse_status(st, &tgid, r->ids) == -1 ||
	    pidfd_pid(r->pidfd) != pid) {	/* the status was not its */
		snprintf(why, whylen, "no process %d", (int)pid);
		close(r->pidfd);
		r->pidfd = -1;
		return -1;
	}
	return 0;
}

/*
 * Take hold of the process that connected on c, as it was at connect():
 * SO_PEERPIDFD.  A kernel before 6.5 has none: then pidfd_open of the
 * SO_PEERCRED pid, and a process that started after dts accepted the
 * connection is not the one that connected.  (The residual risk of that
 * fallback: the pid reused between connect() and the accept; dts(8).)
 * 0, or -1 with the reason in why.
 */
static int
ref_peer(const struct adopt_conn *c, struct proc_ref *r, char *why,
    size_t whylen)
{
	socklen_t	 len = sizeof(r->pidfd);
	char		 path[64], st[4096];
	pid_t		 tgid;
	int64_t		 start;

	r->pidfd = -1;
	if (getsockopt(c->fd, SOL_SOCKET, SO_PEERPIDFD, &r->pidfd,
	    &len) == -1) {
		r->pidfd = -1;
		if ((errno == ENOPROTOOPT || errno == EOPNOTSUPP) &&
		    (r->pidfd = pidfd_open_pid(c->pid)) != -1 &&
		    ((start = start_boot_ns(c->pid)) == -1 || start > c->at)) {
			close(r->pidfd);
			r->pidfd = -1;
		}
	}
	r->pid = r->pidfd == -1 ? -1 : pidfd_pid(r->pidfd);
	if (r->pid > 0) {
		snprintf(path, sizeof(path), "/proc/%d/status", (int)r->pid);
		if (proc_read_small(path, st, sizeof(st)) == -1 ||
		    adopt_parse_status(st, &tgid, r->ids) == -1 ||
		    pidfd_pid(r->pidfd) != r->pid)
			r->pid = -1;
	}
	if (r->pid <= 0) {
		snprintf(why, whylen, "the process that connected (pid %d) "
		    "has exited: only the process that connects is adopted",
		    (int)c->pid);
		if (r->pidfd != -1)
			close(r->pidfd);
		r->pidfd = -1;
		return -1;
	}
	return 0;
}

static void
unref(struct proc_ref *r)
{
	if (r->pidfd != -1)
		close(r->pidfd);
	r->pidfd = -1;
}

/* After a move: did r still have its pid (the pidfd says)?  0 or -1. */
static int
moved(const struct proc_ref *r, char *why, size_t whylen)
{
	if (pidfd_pid(r->pidfd) != r->pid) {
		snprintf(why, whylen, "pid %d ended while it was moved into "
		    "the gang", (int)r->pid);
		return -1;
	}
	return 0;
}

/*
 * Move r into job j's gang: the cgroup write takes a pid number, so the
 * pidfd is asked after it that the process still had that number (it
 * had it before: ref_*).  Only the move holds the scheduler's lock.  0,
 * or -1 with the reason in why.
 */
static int
move_in(struct adopt *a, struct job *j, struct proc_ref *r, char *why,
    size_t whylen)
{
	if (jobs_adopt(a->jobs, j, r->pid) == -1) {
		snprintf(why, whylen, "cannot move pid %d into %s: %s",
		    (int)r->pid, j->gang.cg, strerror(errno));
		return -1;
	}
	return moved(r, why, whylen);
}

static int lifted_pid(const struct adopt *, pid_t);
static struct adopt_uid *uid_slot(struct adopt *, uid_t, int64_t);

/*
 * The checks, in order: a well-formed request (more: its lines after the
 * first, or NULL; full: all of it), the process that connected (still
 * alive, all its uids the connection's), a user the config allows, a
 * job name of that user and the request's label; the job if it runs
 * (its user's: the name says so, and its uid must be the caller's), else
 * a free place (max_jobs), a pvmd that exists; then the move (a new
 * job's gang made first).  Returns NULL when adopted (*jp its job), or
 * the reason.  The caller may leave another job of its own user (dts(8),
 * JOBS); nothing of another user's job changes either way.
 */
static const char *
decide(struct adopt *a, const struct adopt_conn *c, const char *req,
    const char *more, const char *full, int *state, struct job **jp,
    struct proc_ref *peer, char *name, size_t namelen, char *why,
    size_t whylen)
{
	struct passwd	*pw;
	struct job	*j;
	char		 label[16], job[PROTO_JOB_LEN];
	const char	*bad;
	int		 weight;

	*jp = NULL;
	if ((bad = adopt_check_request(req, more, full, state, label, &weight,
	    why, whylen)) != NULL)
		return bad;
	if (weight > a->conf->max_job_weight) {
		snprintf(why, whylen, "weight %d is above this node's "
		    "max_job_weight = %d", weight, a->conf->max_job_weight);
		return why;
	}
	if (ref_peer(c, peer, why, whylen) == -1)
		return why;
	pw = adopt_ids_are(peer->ids, c->uid) ? getpwuid(c->uid) : NULL;
	snprintf(name, namelen, "%s", pw ? pw->pw_name : "?");
	if ((bad = adopt_check_user(c->uid, peer->pid, peer->ids, pw,
	    &a->conf->users, label, job, why, whylen)) != NULL ||
	    (bad = adopt_check_job(j = jobs_find(a->jobs, job), c->uid, why,
	    whylen)) != NULL)
		return bad;
	if (lifted_pid(a, peer->pid)) {
		snprintf(why, whylen, "pid %d is lifted for a command: it "
		    "asks again once its lift has ended", (int)peer->pid);
		return why;
	}
	if (strcmp(req, "ADOPT pvmd") == 0 &&
	    access(conf_pvmd(a->conf), X_OK) == -1) {
		snprintf(why, whylen, "pvmd %s: %s (dts.conf: pvmd)",
		    conf_pvmd(a->conf), strerror(errno));
		return why;
	}
	if (j == NULL) {
		if ((j = jobs_start(a->jobs, job, c->uid, peer->pid, why,
		    whylen)) == NULL || moved(peer, why, whylen) == -1)
			return why;
	} else if (move_in(a, j, peer, why, whylen) == -1)
		return why;
	if (weight > 0)
		jobs_set_weight(a->jobs, j, weight);
	*jp = j;
	return NULL;
}

/*
 * "JOIN <pid>": a gang member (dts-pvmjoin) asks for a task of its pvmd
 * that was started outside the gang.  The checks, in order: a well-formed
 * request; an asker (the process that connected, still alive) in a job's
 * gang, of that job's uid; a job that is not root's (a root gang could
 * pull in any root process); a target that is a whole process (not a
 * thread of another one: the move takes every thread of its process),
 * in no job yet, and whose real, effective, saved and filesystem uids are
 * all the job's; then the move into the asker's job.  Asker and target
 * are held by pidfds, so neither can be another process that got its pid
 * since.  Returns NULL when joined (*jp the job), or the reason.
 */
static const char *
decide_join(struct adopt *a, const struct adopt_conn *c, const char *req,
    struct proc_ref *asker, struct proc_ref *t, struct job **jp, char *why,
    size_t whylen)
{
	struct job	*j;
	const char	*bad;
	pid_t		 pid;

	*jp = NULL;
	if (adopt_parse_join(req, &pid) == -1)
		return "malformed request (expected \"JOIN <pid>\", the pid "
		    "in decimal from 1 to 4194304)";
	if (ref_peer(c, asker, why, whylen) == -1)
		return why;
	j = jobs_of_pid(a->jobs, asker->pid);
	if (pidfd_pid(asker->pidfd) != asker->pid) {
		snprintf(why, whylen, "the process that connected (pid %d) "
		    "has exited", (int)asker->pid);
		return why;
	}
	if (j != NULL && lifted_pid(a, asker->pid))
		j = NULL;	/* lifted for a command: not a member */
	if ((bad = adopt_check_asker(c->uid, asker->pid, j, why,
	    whylen)) != NULL)
		return bad;
	if (ref_pid(pid, t, why, whylen) == -1)
		return why;
	if ((bad = adopt_check_target(j, pid, jobs_of_pid(a->jobs, pid),
	    t->ids, why, whylen)) != NULL)
		return bad;
	if (move_in(a, j, t, why, whylen) == -1)
		return why;
	*jp = j;
	return NULL;
}

static void
answer_join(struct adopt *a, const struct adopt_conn *c, const char *req)
{
	char			 why[ADOPT_MSG_MAX], comm[64] = "?";
	const char		*refused;
	struct proc_ref		 asker = { .pidfd = -1 }, t = { .pidfd = -1 };
	struct job		*j;

	refused = decide_join(a, c, req, &asker, &t, &j, why, sizeof(why));
	if (refused != NULL) {
		a->refused++;
		reply(c->fd, "ERR %s", refused);
		refuse_log(a, "join refused: asked by pid %d, uid %d: %s",
		    (int)(asker.pidfd != -1 ? asker.pid : c->pid), (int)c->uid,
		    refused);
	} else {
		a->joined++;
		reply(c->fd, "OK");
		(void)proc_pid_comm(t.pid, comm, sizeof(comm));
		log_info("joined pid %d (%s, uid %d) into %s, asked by pid %d",
		    (int)t.pid, comm, (int)c->uid, j->gang.cg,
		    (int)asker.pid);
	}
	unref(&asker);
	unref(&t);
}

/* more: the request's lines after the first, or NULL; full: all of it. */
static void
answer_adopt(struct adopt *a, const struct adopt_conn *c, const char *req,
    const char *more, const char *full)
{
	char			 why[ADOPT_MSG_MAX], name[64] = "?";
	const char		*refused, *exe;
	struct proc_ref		 peer = { .pidfd = -1 };
	struct job		*j;
	int			 state = 0;

	refused = decide(a, c, req, more, full, &state, &j, &peer, name,
	    sizeof(name), why, sizeof(why));
	if (refused != NULL) {
		a->refused++;
		reply(c->fd, "ERR %s", refused);
		refuse_log(a, "adoption refused: pid %d, uid %d: %s",
		    (int)(peer.pidfd != -1 ? peer.pid : c->pid), (int)c->uid,
		    refused);
		unref(&peer);
		return;
	}
	a->adopted++;
	exe = strcmp(req, "ADOPT pvmd") == 0 ? conf_pvmd(a->conf) : "";
	if (state && j->state.map != NULL)
		reply(c->fd, "OK %s\n" ADOPT_STATE_LINE " %s", exe,
		    j->state_path);
	else
		reply(c->fd, "OK %s", exe);
	log_info("adopted pid %d (user %s) into %s: %s (job %s)",
	    (int)peer.pid, name, j->gang.cg, req + 6, j->name);
	unref(&peer);
}

/* ---- lifts (dts(8), LIFTS) ---------------------------------------------- */

/* Is pid lifted now (then it is no member of its job's gang)? */
static int
lifted_pid(const struct adopt *a, pid_t pid)
{
	for (int i = 0; i < ADOPT_LIFT_MAX; i++)
		if (a->lift[i].fd != -1 && a->lift[i].pid == pid)
			return 1;
	return 0;
}

/*
 * The end of lift l (how: why, for the log): pvmd's level no longer its,
 * every thread back to SCHED_OTHER while it is still in the gang (so
 * frozen if the gang is), then into the cgroup it came from (through the
 * file dts opened when it lifted it); its uid's credit settled, the
 * connection closed.  A process that has exited needs nothing.
 *
 * A thread clones in two steps (cg_set_policy_all): a child that took
 * RR from its creator before the passes may be listed only after them,
 * and would leave the gang at RR, to hand RR down to every thread it
 * makes.  So a running gang (v2) is frozen for the change (a clone not
 * at its end is undone, and made again after the thaw at the new
 * policy), and the process is written into the gang's cgroup.procs
 * first: the kernel lets that write through only once every clone
 * under way has ended, so the passes list every thread.  The freeze
 * takes a task only when it next runs, so the end waits for it (up to
 * LIFT_FROZEN_MS): a thread that runs on may still clone until then.
 */
#define LIFT_FROZEN_MS	10
static void
lift_end(struct adopt *a, struct adopt_lift *l, int64_t now, const char *how)
{
	struct job	*j = jobs_find(a->jobs, l->job);
	char		 text[32];
	int		 alive = pidfd_pid(l->pidfd) == l->pid, rc = 0, e = 0;
	int		 frozen = 0;

	snprintf(text, sizeof(text), "%d\n", (int)l->pid);
	(void)sched_lock_quiet(a->jobs->sched, SCHED_QUIET_WAIT);
	if (j != NULL)
		(void)gang_lift(&j->gang, l->pid, 0);
	if (alive) {
		if (j != NULL) {
			frozen = !j->gang.stopped && j->gang.thaw_fd != -1 &&
			    cg_write_fd(j->gang.thaw_fd, "1") == 0;
			/* the freeze takes each task as it next runs: until
			 * then one may still clone (bounded: the edges wait
			 * on the lock meanwhile) */
			if (frozen && cg_wait_frozen(j->gang.cg,
			    LIFT_FROZEN_MS) == 0)
				log_info("%s: not frozen within %d ms at a "
				    "lift's end: its threads are looked at "
				    "again at home", j->gang.cg,
				    LIFT_FROZEN_MS);
			(void)cg_write(j->gang.cg, "cgroup.procs", text);
		}
		(void)cg_set_policy_pid(j != NULL ? j->gang.cg : "lift",
		    l->pid, SCHED_OTHER, 0);
		rc = cg_write_fd(l->home_fd, text);
		e = errno;
		/* once more at home, every thread looked at again: one born
		 * at RR while the first passes ran (a gang that did not
		 * freeze in time) is caught before it runs on */
		if (rc == 0)
			(void)cg_set_policy_pid("home", l->pid, SCHED_OTHER,
			    0);
		if (frozen && cg_write_fd(j->gang.thaw_fd, "0") == -1)
			log_warn("%s: thaw after a lift's end", j->gang.cg);
	}
	sched_unlock(a->jobs->sched);
	/* ESRCH: it exited between the check and the write (the command
	 * ended, which is what closed the connection): nothing to put back */
	if (alive && rc == -1 && e != ESRCH)
		log_warnx("lift of pid %d: cannot put it back into its own "
		    "cgroup (%s): it stays in job %s at SCHED_OTHER", (int)l->pid,
		    strerror(e), l->job);
	lift_credit_settle(&uid_slot(a, l->uid, now)->cr, now,
	    l->reserved, now - l->start);
	log_debug("lift of pid %d (uid %d, job %s) ended after %.1f ms: %s",
	    (int)l->pid, (int)l->uid, l->job, (double)(now - l->start) /
	    NS_PER_MS, how);
	(void)epoll_ctl(a->epfd, EPOLL_CTL_DEL, l->fd, NULL);
	close(l->fd);
	close(l->pidfd);
	close(l->home_fd);
	l->fd = l->pidfd = l->home_fd = -1;
}

/*
 * "LIFT": the checks, in order: a well-formed request (more, full: as
 * decide's; JOB only), the freezer backend (a SIGSTOP would show in the
 * console's shell), the process that connected (alive, all its uids the
 * connection's), a user the config allows, the job of that user and the
 * request's label, running and of that uid; a process in no job and not
 * lifted, at SCHED_OTHER; a place (GANG_LIFTS a job); its uid's credit;
 * its own cgroup, opened for the way back; then the move (gang_lift and
 * gang_adopt under the lock).  NULL when lifted (*jp its job, *home_fd,
 * *len the lift's length), or the reason.
 */
static const char *
decide_lift(struct adopt *a, const struct adopt_conn *c, const char *more,
    const char *full, struct proc_ref *peer, struct job **jp, int *home_fd,
    int64_t *len, char *why, size_t whylen)
{
	struct passwd		*pw;
	struct job		*j, *other;
	struct adopt_uid	*u;
	char			 label[16], job[PROTO_JOB_LEN], mnt[CG_PATH_MAX];
	char			 rel[CG_PATH_MAX], home[2 * CG_PATH_MAX];
	const char		*bad;
	int64_t			 now = now_mono_ns(), wait;
	int			 state, weight, n = 0, rc;

	*jp = NULL;
	*home_fd = -1;
	if ((bad = adopt_check_more(more, full, &state, label, &weight, why,
	    whylen)) != NULL)
		return bad;
	if (state)
		return "malformed request (a LIFT has no STATE line)";
	if (weight)
		return "malformed request (a LIFT has no WEIGHT line)";
	if (a->jobs->tmpl.be != &gang_freezer_backend)
		return "lifts need the freezer backend (dts.conf: backend): "
		    "the signal backend's stops would show in the console's "
		    "shell";
	if (ref_peer(c, peer, why, whylen) == -1)
		return why;
	pw = adopt_ids_are(peer->ids, c->uid) ? getpwuid(c->uid) : NULL;
	if ((bad = adopt_check_user(c->uid, peer->pid, peer->ids, pw,
	    &a->conf->users, label, job, why, whylen)) != NULL)
		return bad;
	if ((j = jobs_find(a->jobs, job)) == NULL) {
		snprintf(why, whylen, "no job %s runs on this node: nothing "
		    "to lift into", job);
		return why;
	}
	if (j->uid != c->uid) {
		snprintf(why, whylen, "job %s runs as uid %d, not as uid %d: "
		    "only its user lifts into it", job, (int)j->uid,
		    (int)c->uid);
		return why;
	}
	if ((other = jobs_of_pid(a->jobs, peer->pid)) != NULL ||
	    lifted_pid(a, peer->pid)) {
		snprintf(why, whylen, "pid %d is %s %s already", (int)peer->pid,
		    other ? "in job" : "lifted", other ? other->name : "");
		return why;
	}
	if (sched_getscheduler(peer->pid) != SCHED_OTHER) {
		snprintf(why, whylen, "pid %d is not at SCHED_OTHER: only a "
		    "process at the normal policy is lifted", (int)peer->pid);
		return why;
	}
	for (int i = 0; i < ADOPT_LIFT_MAX; i++)
		if (a->lift[i].fd != -1 && strcmp(a->lift[i].job, job) == 0)
			n++;
	if (n >= GANG_LIFTS) {
		snprintf(why, whylen, "%d processes are lifted into job %s "
		    "already: this command runs unlifted", n, job);
		return why;
	}
	u = uid_slot(a, c->uid, now);
	if ((*len = lift_credit_grant(&u->cr, now, &wait)) == 0) {
		snprintf(why, whylen, "uid %d has spent its lift budget (lifts "
		    "take at most %d%% of the time, %d ms at once): again in "
		    "%d ms", (int)c->uid, LIFT_SHARE_PCT, (int)(LIFT_BURST_NS /
		    NS_PER_MS), (int)(wait / NS_PER_MS) + 1);
		return why;
	}
	if (proc_pid_cgroup(peer->pid, rel, sizeof(rel)) == -1 ||
	    cg_mount(mnt, sizeof(mnt)) == -1) {
		snprintf(why, whylen, "no cgroup of pid %d", (int)peer->pid);
		goto refund;
	}
	snprintf(home, sizeof(home), "%s%s", mnt, rel);
	if ((*home_fd = cg_open(home, "cgroup.procs", O_WRONLY)) == -1) {
		snprintf(why, whylen, "pid %d's cgroup %s is not one dts may put "
		    "it back into (%s): not lifted", (int)peer->pid, rel,
		    strerror(errno));
		goto refund;
	}
	(void)sched_lock_quiet(a->jobs->sched, SCHED_QUIET_WAIT);
	if ((rc = gang_lift(&j->gang, peer->pid, 1)) == 0 &&
	    (rc = gang_adopt(&j->gang, peer->pid)) == -1)
		(void)gang_lift(&j->gang, peer->pid, 0);
	sched_unlock(a->jobs->sched);
	if (rc == -1) {
		snprintf(why, whylen, "cannot move pid %d into %s: %s",
		    (int)peer->pid, j->gang.cg, strerror(errno));
		goto refund;
	}
	*jp = j;
	return NULL;
refund:
	if (*home_fd != -1)
		close(*home_fd);
	*home_fd = -1;
	lift_credit_settle(&u->cr, now, *len, 0);
	return why;
}

/* 1 if c's connection is now a lift's (kept), else 0 (refused). */
static int
answer_lift(struct adopt *a, const struct adopt_conn *c, const char *more,
    const char *full)
{
	char			 why[ADOPT_MSG_MAX];
	const char		*refused = NULL;
	struct proc_ref		 peer = { .pidfd = -1 };
	struct adopt_lift	*l = NULL;
	struct job		*j = NULL;
	int			 home_fd = -1;
	int64_t			 len = 0;

	for (int i = 0; i < ADOPT_LIFT_MAX && l == NULL; i++)
		if (a->lift[i].fd == -1)
			l = &a->lift[i];
	if (l == NULL)
		refused = ADOPT_BUSY ": too many lifts at once; this command "
		    "runs unlifted";
	else
		refused = decide_lift(a, c, more, full, &peer, &j, &home_fd,
		    &len, why, sizeof(why));
	if (refused != NULL) {
		a->refused++;
		reply(c->fd, "ERR %s", refused);
		refuse_log(a, "lift refused: pid %d, uid %d: %s",
		    (int)(peer.pidfd != -1 ? peer.pid : c->pid), (int)c->uid,
		    refused);
		unref(&peer);
		return 0;
	}
	*l = (struct adopt_lift){ .fd = c->fd, .pidfd = peer.pidfd,
	    .pid = peer.pid, .uid = c->uid, .home_fd = home_fd,
	    .start = now_mono_ns(), .reserved = len };
	l->end = l->start + len;
	snprintf(l->job, sizeof(l->job), "%s", j->name);
	a->lifted++;
	if (evfd_watch(a->epfd, c->fd, EPOLLIN) == -1) {
		log_warn("adoption socket: epoll");
		lift_end(a, l, now_mono_ns(), "no epoll");
		return 1;
	}
	reply(c->fd, "OK %d", (int)(len / NS_PER_MS));
	log_debug("lifted pid %d (uid %d) into %s for at most %d ms",
	    (int)l->pid, (int)l->uid, j->gang.cg, (int)(len / NS_PER_MS));
	return 1;
}

/* ---- intake: budgets, the park, the timer ------------------------------- */

static void
drop_conn(struct adopt *a, int fd)
{
	for (int i = 0; i < ADOPT_CONN_MAX; i++)
		if (a->conn[i].fd == fd)
			a->conn[i].fd = -1;
	close(fd);
}

/*
 * A free slot, or when every one is taken, the one with the oldest
 * connection (slots are reused in any order: a freed slot takes the next
 * connection).
 */
static int
oldest_slot(const struct adopt *a)
{
	int	 i, old = 0;

	for (i = 0; i < ADOPT_CONN_MAX; i++) {
		if (a->conn[i].fd == -1)
			return i;
		if (a->conn[i].at < a->conn[old].at)
			old = i;
	}
	return old;
}

/*
 * c's turn: read its request and answer, or, when it has not arrived
 * yet, wait for it in a slot (epoll).  A client that connects and says
 * nothing must not lock others out: when every slot is taken, the oldest
 * connection is closed for the new one.
 */
static void
serve(struct adopt *a, const struct adopt_conn *c)
{
	char	 req[ADOPT_MSG_MAX + 1], full[ADOPT_MSG_MAX + 1];
	char	*more;
	ssize_t	 n;
	int	 i;

	n = recv(c->fd, req, ADOPT_MSG_MAX, MSG_DONTWAIT);
	if (n == -1 && (errno == EAGAIN || errno == EINTR)) {
		i = oldest_slot(a);
		if (a->conn[i].fd != -1) {
			reply(a->conn[i].fd, ADOPT_BUSY ": try again");
			close(a->conn[i].fd);	/* and out of epoll */
		}
		a->conn[i] = *c;
		if (evfd_watch(a->epfd, c->fd, EPOLLIN) == -1) {
			log_warn("adoption socket: epoll");
			drop_conn(a, c->fd);
		}
		return;
	}
	if (n > 0) {
		req[n] = '\0';
		memcpy(full, req, (size_t)n + 1);
		if ((more = strchr(req, '\n')) != NULL)
			*more++ = '\0';
		if (strncmp(req, "JOIN", 4) == 0)
			answer_join(a, c, req);
		else if (strcmp(req, ADOPT_LIFT_LINE) == 0) {
			if (answer_lift(a, c, more, full))
				return;		/* the lift keeps it */
		} else
			answer_adopt(a, c, req, more, full);
	}
	drop_conn(a, c->fd);
}

/* The budgets of uid (requests, lifts): its slot, or the least recently
 * used one (a new slot: both full). */
static struct adopt_uid *
uid_slot(struct adopt *a, uid_t uid, int64_t now)
{
	struct adopt_uid	*u = &a->uids[0];

	for (int i = 0; i < ADOPT_UID_MAX; i++) {
		if (a->uids[i].used != 0 && a->uids[i].uid == uid) {
			u = &a->uids[i];
			goto found;
		}
		if (a->uids[i].used < u->used)
			u = &a->uids[i];
	}
	memset(u, 0, sizeof(*u));
	u->uid = uid;
found:
	u->used = now;
	return u;
}

/* The timer: at the earliest of a parked connection's turn, the end of a
 * pause, and the count of unlogged refusals. */
static void
arm(struct adopt *a, int64_t now)
{
	int64_t	 at = 0;

	for (int i = 0; i < a->nparked; i++)
		if (at == 0 || a->park[i].due < at)
			at = a->park[i].due;
	for (int i = 0; i < ADOPT_LIFT_MAX; i++)
		if (a->lift[i].fd != -1 && (at == 0 || a->lift[i].end < at))
			at = a->lift[i].end;
	if (!a->polling) {
		int64_t resume = adopt_rate_when(&a->accepts, now,
		    NS_EACH(ACCEPT_RATE), ACCEPT_BURST);

		if (resume < now + ACCEPT_PAUSE)
			resume = now + ACCEPT_PAUSE;
		if (at == 0 || resume < at)
			at = resume;
	}
	if (a->log_dropped > 0) {
		int64_t l = adopt_rate_when(&a->log, now, NS_EACH(LOG_RATE),
		    LOG_BURST);

		if (at == 0 || l < at)
			at = l;
	}
	if (at != 0 && at <= now)
		at = now + 1;
	if (at == a->armed)
		return;
	if (evfd_timer_set(a->tfd, at, 1) == -1)
		log_warn("adoption socket: timer");
	a->armed = at;
}

/*
 * A new connection, before anything of it is read: its uid's turn now,
 * later (parked, unread), or, if that is too far off or the park is full,
 * "busy" at once.
 */
static void
intake(struct adopt *a, int fd, int64_t now)
{
	struct ucred		 cr;
	socklen_t		 len = sizeof(cr);
	struct adopt_conn	 c = { .fd = fd };
	struct adopt_uid	*u;
	int64_t			 each = NS_EACH(UID_RATE), turn;
	int			 burst = UID_BURST;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == -1) {
		close(fd);
		return;
	}
	c.uid = cr.uid;
	c.pid = cr.pid;
	c.at = now_boot_ns();
	if (cr.uid == 0 || jobs_has_uid(a->jobs, cr.uid)) {
		each = NS_EACH(GANG_RATE);
		burst = GANG_BURST;
	}
	u = uid_slot(a, cr.uid, now);
	turn = adopt_rate_when(&u->rate, now, each, burst);
	if (turn > now && (turn - now > TURN_MAX ||
	    a->nparked == ADOPT_PARK_MAX)) {
		a->busy++;
		reply(fd, ADOPT_BUSY ": too many requests of uid %d; try "
		    "again later", (int)cr.uid);
		close(fd);
		refuse_log(a, "adoption socket: uid %d asks too often: "
		    "refused (%u so far)", (int)cr.uid, a->busy);
		return;
	}
	adopt_rate_take(&u->rate, turn, each);
	if (turn <= now) {
		serve(a, &c);
		return;
	}
	c.due = turn;
	a->park[a->nparked++] = c;
	a->parked++;
}

/* Stop polling the listening socket until the accept budget allows. */
static void
pause_accepts(struct adopt *a)
{
	if (epoll_ctl(a->epfd, EPOLL_CTL_DEL, a->fd, NULL) == 0)
		a->polling = 0;
}

static void
accept_some(struct adopt *a, int64_t now)
{
	for (int n = 0; n < ACCEPT_BURST; n++) {
		int fd;

		if (adopt_rate_when(&a->accepts, now, NS_EACH(ACCEPT_RATE),
		    ACCEPT_BURST) > now) {
			pause_accepts(a);
			return;
		}
		fd = accept4(a->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd == -1)
			return;
		adopt_rate_take(&a->accepts, now, NS_EACH(ACCEPT_RATE));
		intake(a, fd, now);
	}
}

static void
timer(struct adopt *a, int64_t now)
{
	uint64_t	 n;
	int		 i = 0;

	if (read(a->tfd, &n, sizeof(n)) == -1 && errno != EAGAIN)
		log_warn("adoption socket: timer");
	a->armed = 0;		/* expired */
	for (int k = 0; k < ADOPT_LIFT_MAX; k++)
		if (a->lift[k].fd != -1 && a->lift[k].end <= now) {
			a->lift_cut++;
			log_info("lift of pid %d (job %s): its %d ms are up; "
			    "the command goes on unlifted", (int)a->lift[k].pid,
			    a->lift[k].job, (int)((a->lift[k].end -
			    a->lift[k].start) / NS_PER_MS));
			lift_end(a, &a->lift[k], now, "time up");
		}
	while (i < a->nparked) {
		if (a->park[i].due <= now) {
			struct adopt_conn c = a->park[i];

			memmove(a->park + i, a->park + i + 1,
			    (size_t)(a->nparked - i - 1) * sizeof(a->park[0]));
			a->nparked--;
			serve(a, &c);
		} else {
			i++;
		}
	}
	if (!a->polling && adopt_rate_when(&a->accepts, now,
	    NS_EACH(ACCEPT_RATE), ACCEPT_BURST) <= now) {
		if (evfd_watch(a->epfd, a->fd, EPOLLIN) == 0)
			a->polling = 1;
	}
	refuse_log_flush(a, now);
}

void
adopt_event(struct adopt *a, int fd)
{
	int64_t	 now = now_mono_ns();

	if (fd == a->fd) {
		if (a->polling)
			accept_some(a, now);
	} else if (fd == a->tfd) {
		timer(a, now);
	} else {
		for (int i = 0; i < ADOPT_LIFT_MAX; i++)
			if (a->lift[i].fd == fd)
				lift_end(a, &a->lift[i], now,
				    "the console let go");
		for (int i = 0; i < ADOPT_CONN_MAX; i++) {
			if (a->conn[i].fd == fd) {
				struct adopt_conn c = a->conn[i];

				a->conn[i].fd = -1;
				(void)epoll_ctl(a->epfd, EPOLL_CTL_DEL, fd,
				    NULL);
				serve(a, &c);
				break;
			}
		}
	}
	arm(a, now_mono_ns());
}

void
adopt_close(struct adopt *a)
{
	for (int i = 0; i < ADOPT_LIFT_MAX; i++)
		if (a->lift[i].fd != -1)
			lift_end(a, &a->lift[i], now_mono_ns(), "dts exits");
	for (int i = 0; i < ADOPT_CONN_MAX; i++)
		if (a->conn[i].fd != -1)
			close(a->conn[i].fd);
	for (int i = 0; i < a->nparked; i++)
		close(a->park[i].fd);
	a->nparked = 0;
	if (a->log_dropped > 0)
		log_warnx("adoption socket: %u refusal(s) not logged",
		    a->log_dropped);
	a->log_dropped = 0;
	if (a->tfd != -1)
		close(a->tfd);
	a->tfd = -1;
	if (a->fd != -1) {
		close(a->fd);
		(void)unlink(a->path);
	}
	a->fd = -1;
}
