/*
 * gang.c - the gang cgroup and backend-independent gang control.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "gang.h"
#include "log.h"
#include "proc.h"
#include "timeutil.h"

/*
 * Under systemd (Delegate=yes) the service's own cgroup is ours, but a
 * cgroup with children may hold no processes once controllers are on:
 * dts moves itself into base/daemon.
 */
static int
choose_base(struct gang *g, const char *where, char *err, size_t errlen)
{
	char	 mnt[CG_PATH_MAX], own[CG_PATH_MAX];
	int	 systemd = 0;

	if (cg_mount(mnt, sizeof(mnt)) == -1) {
		snprintf(err, errlen, "no cgroup v2 hierarchy is mounted "
		    "(dts needs one for the gang)");
		return -1;
	}
	if (strcmp(where, "auto") == 0) {
		systemd = getenv("INVOCATION_ID") != NULL &&
		    proc_pid_cgroup(0, own, sizeof(own)) == 0 &&
		    strcmp(own, "/") != 0;
		where = systemd ? own : "/dts";
	}
	if (where[0] != '/' || strstr(where, "..") != NULL ||
	    (size_t)snprintf(g->base, sizeof(g->base), "%s%s", mnt,
	    strcmp(where, "/") == 0 ? "" : where) >= sizeof(g->base) - 16) {
		snprintf(err, errlen, "cgroup \"%s\": not a path under the "
		    "cgroup2 mount", where);
		return -1;
	}
	if (conf_dir_make_trusted(g->base, "cgroup", err, errlen) == -1)
		return -1;
	if (systemd) {
		char daemon[CG_PATH_MAX + 8], pid[32];
		snprintf(daemon, sizeof(daemon), "%.*s/daemon",
		    (int)sizeof(g->base) - 16, g->base);
		snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
		if (conf_dir_make_trusted(daemon, "cgroup", err,
		    errlen) == -1 || cg_write(daemon, "cgroup.procs",
		    pid) == -1) {
			snprintf(err, errlen, "cgroup %s: cannot move dts "
			    "there: %s", daemon, strerror(errno));
			return -1;
		}
	}
	return 0;
}

int
gang_setup(struct gang *g, const char *where, int backend, int rt_prio,
    char *err, size_t errlen)
{
	char	 frozen[8] = "";

	memset(g, 0, sizeof(*g));
	g->freeze_fd = -1;
	g->procs_fd = -1;
	g->thaw_fd = -1;
	g->hold_fd = -1;
	g->held_fd = -1;
	g->rt_prio = rt_prio;
	g->ncpu = proc_ncpu();
	g->be = backend == BACKEND_FREEZER ? &gang_freezer_backend
	    : &gang_signal_backend;
	if (choose_base(g, where, err, errlen) == -1)
		return -1;
	snprintf(g->jobs, sizeof(g->jobs), "%.*s/%s",
	    (int)sizeof(g->base) - 16, g->base, CG_JOBS);
	if (conf_dir_make_trusted(g->jobs, "cgroup", err, errlen) == -1)
		return -1;
	/* a dts that died in an LS, and no dts-load after it: the gangs
	 * are released before base/jobs thaws (nothing left at RT) */
	if (cg_read(g->jobs, "cgroup.freeze", frozen, sizeof(frozen)) == 0 &&
	    frozen[0] == '1') {
		log_warnx("%s was frozen: every gang released", g->jobs);
		cg_release_jobs(g->base);
	}
	if (backend == BACKEND_FREEZER &&
	    (g->hold_fd = cg_open(g->jobs, "cgroup.freeze", O_WRONLY)) == -1)
		log_warn("%s/cgroup.freeze: each gang stops by itself",
		    g->jobs);
	if (g->hold_fd != -1)
		g->held_fd = cg_open(g->jobs, "cgroup.events", O_RDONLY);
	return 0;
}

int
gang_hold(const struct gang *t, int on)
{
	if (t->hold_fd == -1) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return cg_write_fd(t->hold_fd, on ? "1" : "0");
}

int
gang_held(const struct gang *t)
{
	char	 buf[128];
	ssize_t	 n;

	if (t->held_fd == -1 ||
	    (n = pread(t->held_fd, buf, sizeof(buf) - 1, 0)) <= 0)
		return -1;
	buf[n] = '\0';
	return strstr(buf, "frozen 1") != NULL;
}

static void
demote_one(const char *cg, const char *name, void *arg)
{
	(void)name;
	*(int *)arg += cg_rt_to_other(cg);
}

int
gang_demote_all(const struct gang *t)
{
	int	 n = 0;

	if (t != NULL)
		(void)cg_foreach_job(t->base, demote_one, &n);
	return n;
}

int
gang_open(struct gang *g, const struct gang *t, const char *name, char *err,
    size_t errlen)
{
	char	 mnt[CG_PATH_MAX];

	return gang_open_at(g, t, name, cg_mount(mnt, sizeof(mnt)) == 0 ? mnt :
	    NULL, err, errlen);
}

int
gang_open_at(struct gang *g, const struct gang *t, const char *name,
    const char *mnt, char *err, size_t errlen)
{
	*g = *t;
	g->cg[0] = g->rel[0] = '\0';
	g->freeze_fd = g->procs_fd = g->thaw_fd = g->hold_fd = -1;
	g->held_fd = -1;
	g->sig_stopped = (struct pidset){ NULL, 0, 0 };
	g->stopped = g->rt = g->idle = g->fill = 0;
	g->unidle = 0;
	g->pvmd_pid = 0;
	g->scan_next = 0;
	g->count = 0;
	g->count_at = 0;
	memset(g->lifted, 0, sizeof(g->lifted));
	memset(&g->rr, 0, sizeof(g->rr));
	if (strchr(name, '/') != NULL || name[0] == '.' ||
	    (size_t)snprintf(g->cg, sizeof(g->cg), "%s/%s", t->jobs,
	    name) >= sizeof(g->cg)) {
		snprintf(err, errlen, "cgroup %s/%s: not a name for a cgroup",
		    t->jobs, name);
		g->cg[0] = '\0';
		return -1;
	}
	if (mnt == NULL || strncmp(g->cg, mnt, strlen(mnt)) != 0) {
		snprintf(err, errlen, "cgroup %s: not under the cgroup2 mount",
		    g->cg);
		g->cg[0] = '\0';
		return -1;
	}
	snprintf(g->rel, sizeof(g->rel), "%s", g->cg + strlen(mnt));
	if (conf_dir_make_trusted(g->cg, "cgroup", err, errlen) == -1) {
		g->cg[0] = g->rel[0] = '\0';
		return -1;
	}
	/* without it (no cgroup.freeze before Linux 5.2) a switch to
	 * SCHED_IDLE only sweeps */
	g->thaw_fd = cg_open(g->cg, "cgroup.freeze", O_WRONLY);
	if (g->be->open(g) == -1) {
		snprintf(err, errlen, "gang backend %s: cannot use %s",
		    g->be->name, g->cg);
		gang_close(g);
		return -1;
	}
	return 0;
}

int
gang_close(struct gang *g)
{
	int	 rc = 0;

	if (g->cg[0] == '\0')
		return 0;
	gang_release(g);
	g->be->close(g);
	if (g->thaw_fd != -1)
		close(g->thaw_fd);
	g->thaw_fd = -1;
	if (cg_count(g->cg, NULL) == 0 && cg_remove(g->cg) == -1 &&
	    errno != ENOENT)
		rc = -1;
	g->cg[0] = g->rel[0] = '\0';
	return rc;
}

void
gang_set_pvmd(struct gang *g, const char *path)
{
	const char	*base = strrchr(path, '/');

	/* the kernel's comm: the file's name, at most 15 bytes */
	snprintf(g->pvmd_comm, sizeof(g->pvmd_comm), "%.15s",
	    base != NULL ? base + 1 : path);
}

/*
 * Is pid pvmd?  By its name (/proc/PID/comm): its executable would be
 * surer, but reading /proc/PID/exe of a root pvmd needs a capability dts
 * does not keep.  A task that calls itself pvmd gains one priority over
 * its own gang's tasks, still below dts-load and dts: nothing over the
 * owner's promise.
 */
static int
is_pvmd(const struct gang *g, pid_t pid)
{
	char	 comm[32];

	return g->pvmd_comm[0] != '\0' &&
	    proc_pid_comm(pid, comm, sizeof(comm)) == 0 &&
	    strcmp(comm, g->pvmd_comm) == 0;
}

/* The RT priority of a member: pvmd's, or one below for a task; every
 * member's while the gang fills another job's slot. */
static int
want_prio(const struct gang *g, int pvmd)
{
	return g->fill ? GANG_FILL_PRIO(g) : pvmd ? g->rt_prio :
	    g->rt_prio - 1;
}

static int
is_lifted(const struct gang *g, pid_t pid)
{
	for (int i = 0; i < GANG_LIFTS; i++)
		if (g->lifted[i] == pid)
			return 1;
	return 0;
}

int
gang_lift(struct gang *g, pid_t pid, int on)
{
	for (int i = 0; i < GANG_LIFTS; i++)
		if (g->lifted[i] == (on ? 0 : pid)) {
			g->lifted[i] = on ? pid : 0;
			return 0;
		}
	return on ? -1 : 0;
}

/*
 * The RR policy of pid: a lifted process's threads carry
 * SCHED_RESET_ON_FORK, so a thread they make is born at SCHED_OTHER.  A
 * clone still under way when the lift ends (after the passes that put
 * the process's threads back to SCHED_OTHER) cannot leave a thread at
 * RR outside the gang; the flag cannot be cleared without CAP_SYS_NICE.
 */
static int
rr_of(const struct gang *g, pid_t pid)
{
	return is_lifted(g, pid) ? SCHED_RR | SCHED_RESET_ON_FORK : SCHED_RR;
}

/* pvmd's level: pvmd, and a lifted process (gang_lift) */
static int
prio_of(const struct gang *g, pid_t pid)
{
	return want_prio(g, is_pvmd(g, pid) || is_lifted(g, pid));
}

struct scan {
	const struct gang	*g;
	pid_t			 pvmd, known;	/* known: the last scan's, still
						   pvmd (no name read) */
	struct gang_fix		*fix;
	int			 n, max, at, from, to;
	pid_t			 task[GANG_ROT_MAX];	/* the tasks at RR */
	uint64_t		 delay[GANG_ROT_MAX];	/* their run_delay */
	int			 ntask, more;	/* more: tasks past task[] */
};

/*
 * A member at RR at a priority not its own: noted (no change here).
 * Only the members from..to of the list (GANG_SCAN_MAX of them): a
 * job's size does not make a scan longer.
 */
static void
scan_one(pid_t pid, void *arg)
{
	struct scan		*sc = arg;
	struct sched_param	 sp;
	int			 pvmd, want, at = sc->at++;

	if (at < sc->from || at >= sc->to)
		return;
	pvmd = sc->known > 0 ? pid == sc->known : is_pvmd(sc->g, pid);
	if (pvmd)
		sc->pvmd = pid;
	pvmd = pvmd || is_lifted(sc->g, pid);	/* its level */
	want = want_prio(sc->g, pvmd);
	if ((sched_getscheduler(pid) & ~SCHED_RESET_ON_FORK) != SCHED_RR)
		return;
	if (!pvmd && sc->ntask == GANG_ROT_MAX)
		sc->more = 1;
	else if (!pvmd &&
	    proc_pid_run_delay(pid, &sc->delay[sc->ntask]) == 0)
		sc->task[sc->ntask++] = pid;
	if (sc->n == sc->max ||
	    sched_getparam(pid, &sp) == -1 || sp.sched_priority == want)
		return;
	sc->fix[sc->n].pid = pid;
	sc->fix[sc->n++].pvmd = pvmd;
}

static void rr_note(struct gang_rr *, const struct scan *, int);

int
gang_prio_scan(struct gang *g, pid_t *pvmd, struct gang_fix *fix, int max)
{
	struct scan	 sc = { .g = g, .fix = fix, .max = max,
	    .from = g->scan_next, .to = g->scan_next + GANG_SCAN_MAX };
	int		 n;

	if (g->pvmd_pid > 0 && is_pvmd(g, g->pvmd_pid))
		sc.known = sc.pvmd = g->pvmd_pid;
	n = cg_foreach(g->cg, "cgroup.procs", scan_one, &sc);
	/* the next members next time; from the start once past the end
	 * (the list may have moved meanwhile: each is reached in time) */
	g->scan_next = n > sc.to ? sc.to : 0;
	if (n > 0 && sc.from >= n)
		g->scan_next = 0;
	*pvmd = sc.pvmd;
	rr_note(&g->rr, &sc, n <= GANG_SCAN_MAX && !sc.more);
	return sc.n;
}

/*
 * The tasks that waited on a run queue since the last scan (their
 * run_delay grew; one not seen then: any wait) into rr->wait.  Only a
 * scan of the whole gang whose tasks all fit (whole): of a larger gang
 * the scans see a part at a time, and its tasks take no turns.
 */
static void
rr_note(struct gang_rr *rr, const struct scan *sc, int whole)
{
	rr->nwait = 0;
	for (int i = 0; whole && i < sc->ntask; i++) {
		int	 k = i < rr->nseen && rr->seen[i] == sc->task[i] ? i : -1;

		for (int j = 0; k == -1 && j < rr->nseen; j++)
			if (rr->seen[j] == sc->task[i])
				k = j;
		if (k == -1 ? sc->delay[i] > 0 : sc->delay[i] > rr->delay[k])
			rr->wait[rr->nwait++] = sc->task[i];
	}
	rr->nseen = whole ? sc->ntask : 0;
	memcpy(rr->seen, sc->task, sizeof(pid_t) * (size_t)rr->nseen);
	memcpy(rr->delay, sc->delay, sizeof(uint64_t) * (size_t)rr->nseen);
}

int
gang_rr_changed(const struct gang *g)
{
	return g->rr.nwait != g->rr.n || memcmp(g->rr.wait, g->rr.pid,
	    sizeof(pid_t) * (size_t)g->rr.n) != 0;
}

/* Which of pids[0..n) are in g's cgroup.procs now: found[i].  One read,
 * whatever n.  (Read only when a fix or a turn is due.) */
struct listed_arg {
	const pid_t	*pid;
	int		 n, *found;
};

static void
listed_one(pid_t pid, void *arg)
{
	struct listed_arg	*la = arg;

	for (int i = 0; i < la->n; i++)
		la->found[i] |= la->pid[i] == pid;
}

static void
listed_all(const struct gang *g, const pid_t *pid, int n, int *found)
{
	struct listed_arg	 la = { pid, n, found };

	memset(found, 0, sizeof(int) * (size_t)n);
	(void)cg_foreach(g->cg, "cgroup.procs", listed_one, &la);
}

/* Is pid in g's cgroup.procs now? */
static int
listed(const struct gang *g, pid_t pid)
{
	int	 found;

	listed_all(g, &pid, 1, &found);
	return found;
}

int
gang_rotate(struct gang *g, int64_t now)
{
	struct gang_rr		*rr = &g->rr;
	pid_t			 pid[GANG_ROT_MAX];
	int			 found[GANG_ROT_MAX];
	struct sched_param	 own = { .sched_priority = want_prio(g, 0) };
	struct sched_param	 up = { .sched_priority = g->rt_prio };
	struct sched_param	 down = { .sched_priority = own.sched_priority - 1 };
	int			 full = rr->n <= GANG_ROT_FULL, m, moved = 0;

	if (rr->n < 2 || !g->rt || g->idle || g->fill || g->stopped ||
	    down.sched_priority < 1 || now - rr->at < GANG_ROT_NS)
		return 0;
	rr->at = now;
	/* the turn's order: from next, each waiting task (full), or the next
	 * ncpu of them */
	m = full ? rr->n : g->ncpu < rr->n ? g->ncpu : rr->n;
	for (int i = 0; i < m; i++)
		pid[i] = rr->pid[(rr->next + i) % rr->n];
	rr->next = (rr->next + (g->ncpu < rr->n ? g->ncpu : 1)) % rr->n;
	/* still members, not lifted (a lift is at pvmd's level): the list
	 * is up to a second old, and a pid may have gone or left */
	listed_all(g, pid, m, found);
	for (int i = 0; i < m; i++) {
		if (!found[i] || is_lifted(g, pid[i]))
			continue;
		/* full: down and up again, to the tail of its level's queue,
		 * in the turn's order; else up and down again, to the head */
		if (sched_setscheduler(pid[i], SCHED_RR, full ? &down : &up) == 0 &&
		    sched_setscheduler(pid[i], SCHED_RR, &own) == 0)
			moved++;
	}
	return moved;
}

int
gang_prio_apply(struct gang *g, pid_t pvmd, const struct gang_fix *fix,
    int n)
{
	int	 changed = 0;

	g->pvmd_pid = pvmd;
	if (gang_rr_changed(g)) {
		memcpy(g->rr.pid, g->rr.wait, sizeof(pid_t) *
		    (size_t)g->rr.nwait);
		g->rr.n = g->rr.nwait;
		if (g->rr.next >= g->rr.n)
			g->rr.next = 0;
	}
	if (!g->rt || g->idle)	/* the policy moved since the scan */
		return 0;
	for (int i = 0; i < n; i++)	/* (fill may have moved too) */
		/* still a member: the scan ran without the lock, and a
		 * lift's end may have moved the process home since (at
		 * SCHED_OTHER, where RR would be outside DTS) */
		if (listed(g, fix[i].pid) &&
		    cg_set_policy_pid(g->cg, fix[i].pid, rr_of(g, fix[i].pid),
		    want_prio(g, fix[i].pvmd)) > 0)
			changed++;
	return changed;
}

/*
 * Every member to the gang's policy: at RR, the tasks one below pvmd (all
 * threads first, then pvmd's, as the last scan found it, raised; it stays
 * below dts-load).  No walk of the members beyond cg_set_policy_all's: an
 * idle LS does this at every PS edge.  Away from RR, a gang whose
 * threads clone faster than the passes go may be frozen (not if it is
 * stopped already: a stopped thread clones nothing), so that no thread is
 * left at RR.
 */
static int
policy_all(struct gang *g, int policy)
{
	int	 n;

	if (policy != SCHED_RR)
		return cg_set_policy_all(g->cg, policy, 0,
		    g->stopped ? -1 : g->thaw_fd);
	n = cg_set_policy_all(g->cg, SCHED_RR, want_prio(g, 0), -1);
	if (!g->fill && g->pvmd_pid > 0 && is_pvmd(g, g->pvmd_pid))
		(void)cg_set_policy_pid(g->cg, g->pvmd_pid, SCHED_RR,
		    g->rt_prio);
	for (int i = 0; !g->fill && i < GANG_LIFTS; i++)
		if (g->lifted[i] > 0)
			(void)cg_set_policy_pid(g->cg, g->lifted[i],
			    SCHED_RR | SCHED_RESET_ON_FORK, g->rt_prio);
	return n;
}

/*
 * The hard limit called name ("Max nice priority") of pid, from
 * /proc/PID/limits: prlimit(2) on another user's process needs
 * CAP_SYS_RESOURCE, which dts does not keep.  0 if unknown; "unlimited"
 * is ULONG_MAX.
 */
static unsigned long
hard_limit(pid_t pid, const char *name)
{
	char	 path[64], line[256], soft[32], hard[32];
	FILE	*f;
	size_t	 n = strlen(name);
	unsigned long v = 0;

	snprintf(path, sizeof(path), "/proc/%d/limits", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, name, n) == 0 && line[n] == ' ') {
			if (sscanf(line + n, "%31s %31s", soft, hard) == 2)
				v = strcmp(hard, "unlimited") == 0 ? ULONG_MAX :
				    strtoul(hard, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/*
 * A newcomer that may leave SCHED_IDLE by itself: SCHED_IDLE counts as
 * nice 20, and a thread may go back to SCHED_OTHER (or, with
 * RLIMIT_RTPRIO too, to SCHED_RR) if its RLIMIT_NICE allows that nice;
 * one above 0 is enough once it has set itself nice 19.  pam_limits
 * grants it (an audio group, say), and only CAP_SYS_RESOURCE can take it
 * back.  Such a gang is stopped in LS instead (and at once if it is in an
 * idle LS now), until it is released.
 */
static void
check_limits(struct gang *g, pid_t pid)
{
	unsigned long	 nice = hard_limit(pid, "Max nice priority"),
			 rtprio = hard_limit(pid, "Max realtime priority");

	if (rtprio > 0)
		log_warnx("adopt %d: RLIMIT_RTPRIO %lu: its threads may take "
		    "real-time priorities up to that of their own", (int)pid,
		    rtprio);
	if (nice == 0)
		return;
	if (g->unidle == 0)
		log_warnx("adopt %d: RLIMIT_NICE %lu would let it leave "
		    "SCHED_IDLE: ls_policy idle stops the gang in LS instead",
		    (int)pid, nice);
	g->unidle = pid;
}

/*
 * Stopped first, then the policy: a newcomer set to SCHED_RR during an LS
 * must not run at that priority before its stop.
 */
int
gang_adopt(struct gang *g, pid_t pid)
{
	int	 rt = g->rt && !g->idle;
	char	 text[32];

	snprintf(text, sizeof(text), "%d\n", (int)pid);
	if (cg_write(g->cg, "cgroup.procs", text) == -1)
		return -1;
	check_limits(g, pid);
	if (g->unidle && g->idle && !g->stopped && gang_stop(g) == -1)
		log_warn("stop gang");
	if (g->stopped && g->be->join != NULL)
		g->be->join(g, pid);
	if (cg_set_policy_pid(g->cg, pid, g->idle ? SCHED_IDLE : rt ?
	    rr_of(g, pid) : SCHED_OTHER, rt ? prio_of(g, pid) : 0) == 0)
		log_warnx("adopt %d: no thread took the gang's policy (did "
		    "it end?)", (int)pid);
	return 0;
}

int
gang_has(const struct gang *g, pid_t pid)
{
	char	 cg[CG_PATH_MAX];

	return g->rel[0] != '\0' && proc_pid_cgroup(pid, cg, sizeof(cg)) == 0 &&
	    strcmp(cg, g->rel) == 0;
}

int
gang_stop(struct gang *g)
{
	if (g->be->stop(g) == -1)
		return -1;
	g->stopped = 1;
	return 0;
}

int
gang_cont(struct gang *g)
{
	if (g->be->cont(g) == -1)
		return -1;
	g->stopped = 0;
	return 0;
}

void
gang_set_rt(struct gang *g, int rt)
{
	int	 n;

	if (g->rt == rt)
		return;
	g->rt = rt;
	if (g->idle)	/* an idle LS: applied when it ends */
		return;
	n = policy_all(g, rt ? SCHED_RR : SCHED_OTHER);
	if (n > 0)
		log_info("gang: %d thread(s) now at %s", n,
		    rt ? "SCHED_RR" : "SCHED_OTHER");
}

void
gang_reapply(struct gang *g)
{
	if (g->rt && !g->idle)
		(void)policy_all(g, SCHED_RR);
}

void
gang_set_fill(struct gang *g, int fill)
{
	if (g->fill == fill)
		return;
	g->fill = fill;
	if (g->rt && !g->idle)
		(void)policy_all(g, SCHED_RR);
}

void
gang_set_idle(struct gang *g, int idle)
{
	if (idle && g->unidle) {	/* a member could leave SCHED_IDLE */
		if (!g->stopped && gang_stop(g) == -1)
			log_warn("stop gang");
		return;
	}
	if (g->idle == idle)
		return;
	g->idle = idle;
	(void)policy_all(g, idle ? SCHED_IDLE : g->rt ? SCHED_RR :
	    SCHED_OTHER);
}

int
gang_recheck_idle(struct gang *g)
{
	if (!g->idle || g->stopped)
		return 0;
	return cg_policy_recheck(g->cg, SCHED_IDLE, 0);
}

int
gang_can_idle(const struct gang *g, char *why, size_t len)
{
	char	 text[256], mnt[CG_PATH_MAX], where[CG_PATH_MAX];
	size_t	 m = strlen(g->cg) - strlen(g->rel);

	if (proc_read_small("/proc/sys/kernel/sched_autogroup_enabled", text,
	    sizeof(text)) == 0 && text[0] == '1') {
		snprintf(why, len, "kernel.sched_autogroup_enabled is 1, so "
		    "every session is a CPU group of its own");
		return 0;
	}
	snprintf(mnt, sizeof(mnt), "%.*s", (int)m, g->cg);
	if (cg_cpu_group(mnt, g->cg, NULL, where, sizeof(where))) {
		snprintf(why, len, "the gang's cgroup is in a CPU group of its "
		    "own (cpu controller on %s)", where);
		return 0;
	}
	return 1;
}

void
gang_release(struct gang *g)
{
	if (g->cg[0] == '\0')
		return;
	cg_release(g->cg);
	g->stopped = 0;
	g->rt = 0;
	g->idle = 0;
	g->fill = 0;
	g->unidle = 0;
}

void
gang_forget(struct gang *g)
{
	g->stopped = 0;
	g->rt = 0;
	g->idle = 0;
	g->fill = 0;
}

int
gang_members(const struct gang *g)
{
	struct gang	*c = (struct gang *)g;	/* its cache, not the gang */
	int64_t		 now = now_mono_ns();

	if (g->cg[0] == '\0')
		return 0;
	if (g->count_at == 0 || now - g->count_at >= GANG_COUNT_NS) {
		c->count = cg_count(g->cg, NULL);
		c->count_at = now;
	}
	return g->count;
}

