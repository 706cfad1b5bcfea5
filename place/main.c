/*
 * main.c - dts-place: runs a PVM program so that the tasks it spawns with
 * no host named go where the cluster has room (dts-place(1), dts(8)
 * PLACEMENT).
 *
 *   dts-place [-f CONF] [-l LOG] [-r RECORD] [-j LABEL] [-v] [--] PROG ARG...
 *   dts-place -n [-f CONF]
 *
 * PROG runs with libdtsplace.so in LD_PRELOAD (preload.c), which asks
 * this process for a plan at each such pvm_spawn, over a socket pair.
 * This process asks every host's dts for its STATUS (poll.c), ranks the
 * hosts (goodness.c), answers, and writes each decision to the record
 * and the per-host counters to RECORD.prom.  It exits with PROG's status.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pvm3.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "conf.h"
#include "job.h"
#include "log.h"
#include "poll.h"
#include "timeutil.h"

#ifndef PKGLIBEXECDIR
#define PKGLIBEXECDIR "/usr/local/libexec/dts"
#endif
#define PLACE_LIB PKGLIBEXECDIR "/libdtsplace.so"
#define MSG_MAX 65536

const char cli_prog[] = "dts-place";

struct opts {
	const char	*conf;
	int		 explicit_conf;
	const char	*log;
	const char	*record;
	const char	*label;
	int		 verbose;
	int		 check;
};

struct place {
	struct hosts	 t;
	char		 record[512];
	int		 sp;          /* our end of the socket pair */
	pid_t		 child;
	int		 circle_said;
	int		 start;       /* where PVM's circle would go next */
	int64_t		 wait_ns;
	int64_t		 interval_ns;
	uint64_t	 spawns, circles, tasks;
	/* the last decision's hosts, recorded once the program says which
	 * tids they got (TIDS), or at the next spawn or the end without */
	struct {
		char		 file[256];
		int64_t		 at;
		int		 n;
		int		 cnt[PLACE_HOSTS_MAX];
		struct place_host h[PLACE_HOSTS_MAX];
	} pend;
};

static void
usage(void)
{
	fprintf(stderr, "usage: dts-place [-v] [-f conf] [-l log] "
	    "[-r record] [-j label] [--] program [arg ...]\n"
	    "       dts-place -n [-f conf]\n");
	exit(2);
}

static void
parse(int argc, char **argv, struct opts *o)
{
	int	 ch;

	o->conf = SYSCONFDIR "/dts/dts.conf";
	while ((ch = getopt(argc, argv, "+f:l:r:j:nvh")) != -1)
		switch (ch) {
		case 'f': o->conf = optarg; o->explicit_conf = 1; break;
		case 'l': o->log = optarg; break;
		case 'r': o->record = optarg; break;
		case 'j': o->label = optarg; break;
		case 'n': o->check = 1; break;
		case 'v': o->verbose = 1; break;
		default: usage();
		}
	if (!o->check && optind >= argc)
		usage();
}

/* The record's path: -r, place.record, or dts-place.UID in PVM_TMP. */
static void
record_path(struct place *p, const struct opts *o, const struct dts_conf *c)
{
	const char	*dir = getenv("PVM_TMP");

	if (o->record != NULL)
		snprintf(p->record, sizeof(p->record), "%s", o->record);
	else if (c->place.record[0] != '\0')
		snprintf(p->record, sizeof(p->record), "%s", c->place.record);
	else
		snprintf(p->record, sizeof(p->record), "%s/dts-place.%u",
		    dir != NULL && *dir == '/' ? dir : "/tmp",
		    (unsigned)getuid());
}

/* The per-host counters, Prometheus text, written whole (RECORD.prom). */
static void
write_metrics(const struct place *p)
{
	char	 path[600], tmp[620];
	FILE	*f;
	int	 i;

	snprintf(path, sizeof(path), "%s.prom", p->record);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if ((f = fopen(tmp, "we")) == NULL)
		return;
	fprintf(f, "# HELP dts_place_spawns_total spawns that named no host\n"
	    "# TYPE dts_place_spawns_total counter\n"
	    "dts_place_spawns_total %llu\n"
	    "# HELP dts_place_circle_total of them left to PVM's circle\n"
	    "# TYPE dts_place_circle_total counter\n"
	    "dts_place_circle_total %llu\n"
	    "# HELP dts_place_tasks_total tasks placed on the host\n"
	    "# TYPE dts_place_tasks_total counter\n",
	    (unsigned long long)p->spawns, (unsigned long long)p->circles);
	for (i = 0; i < p->t.n; i++)
		fprintf(f, "dts_place_tasks_total{host=\"%s\"} %llu\n",
		    p->t.h[i].name, (unsigned long long)p->t.h[i].total);
	fprintf(f, "# HELP dts_place_goodness the host's goodness at the "
	    "last spawn\n# TYPE dts_place_goodness gauge\n");
	for (i = 0; i < p->t.n; i++)
		fprintf(f, "dts_place_goodness{host=\"%s\",class=\"%s\"} "
		    "%.4f\n", p->t.h[i].name,
		    place_class_names[p->t.h[i].cls], p->t.h[i].good);
	if (fclose(f) != 0 || rename(tmp, path) != 0)
		unlink(tmp);
}

/*
 * One line per host of a decision: "TIME PID FILE HOST N good=G ...
 * tids=T,T" (the tids in hexadecimal, when the program said them).
 */
static void
record(const struct place *p, int64_t at, const char *file,
    const struct place_host *h, int count, const char *tids)
{
	FILE	*f;
	int	 fd;

	fd = open(p->record, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW |
	    O_CLOEXEC, 0644);
	if (fd == -1 || (f = fdopen(fd, "a")) == NULL) {
		if (fd != -1)
			close(fd);
		return;
	}
	fprintf(f, "%lld %d %s %s %d good=%.3f class=%s runnable=%.2f "
	    "load=%.2f ncpu=%d ram=%u users=%d gangs=%d own=%d%s%s\n",
	    (long long)(at / NS_PER_SEC), (int)p->child, file,
	    h->name, count, h->good, place_class_names[h->cls], h->runnable,
	    h->q, h->ncpu, h->mem_mib, h->users, h->rt, h->own,
	    tids != NULL && *tids != '\0' ? " tids=" : "",
	    tids != NULL ? tids : "");
	fclose(f);
}

/*
 * The pending decision into the record, each host with the tids that
 * msg ("HOST TID TID ..." lines, TIDS's body; NULL: none known) gives
 * it: a host's first line not used yet.
 */
static void
flush(struct place *p, char *msg)
{
	static char	*line[PLACE_HOSTS_MAX];
	static char	 tids[MSG_MAX];
	char		*save, *s, *tok, *end;
	size_t		 len, nl;
	int		 n = 0, k, i;
	unsigned long	 t;

	for (s = msg != NULL ? strtok_r(msg, "\n", &save) : NULL;
	    s != NULL && n < PLACE_HOSTS_MAX; s = strtok_r(NULL, "\n", &save))
		line[n++] = s;
	for (k = 0; k < p->pend.n; k++) {
		tids[0] = '\0';
		nl = strlen(p->pend.h[k].name);
		for (i = 0; i < n; i++)
			if (line[i] != NULL && strncmp(line[i],
			    p->pend.h[k].name, nl) == 0 && line[i][nl] == ' ')
				break;
		if (i < n) {
			len = 0;
			tok = strtok_r(line[i] + nl, " ", &save);
			for (; tok != NULL; tok = strtok_r(NULL, " ", &save)) {
				errno = 0;
				t = strtoul(tok, &end, 16);
				if (*end != '\0' || errno != 0 || t == 0 ||
				    t > 0x7fffffffUL ||
				    len + 12 >= sizeof(tids))
					continue;
				len += (size_t)snprintf(tids + len,
				    sizeof(tids) - len, "%s%lx",
				    len > 0 ? "," : "", t);
			}
			line[i] = NULL;
		}
		record(p, p->pend.at, p->pend.file, &p->pend.h[k],
		    p->pend.cnt[k], tids);
	}
	p->pend.n = 0;
}

/*
 * The reply to req ("SPAWN N FILE" and "H NAME SPEED" lines) into out:
 * "PLAN" and "HOST COUNT" lines, or "CIRCLE REASON".
 */
static int
decide(struct place *p, char *req, char *out, size_t cap)
{
	static int		 idx[PLACE_HOSTS_MAX], plan[4096];
	static struct place_host view[PLACE_HOSTS_MAX], before[PLACE_HOSTS_MAX];
	char			 file[256], name[PLACE_NAME_LEN], *line, *save;
	const char		*why;
	int			 ntask = 0, n = 0, i, j, k, speed, len, cnt;
	int			 even;

	if (p->pend.n > 0)
		flush(p, NULL);
	line = strtok_r(req, "\n", &save);
	if (line == NULL || sscanf(line, "SPAWN %d %255s", &ntask, file) != 2
	    || ntask <= 0)
		return snprintf(out, cap, "CIRCLE bad request\n");
	while ((line = strtok_r(NULL, "\n", &save)) != NULL && n <
	    PLACE_HOSTS_MAX)
		if (sscanf(line, "H %63s %d", name, &speed) == 2 &&
		    (i = hosts_find(&p->t, name, speed)) != -1)
			idx[n++] = i;
	p->spawns++;
	if (ntask > (int)(sizeof(plan) / sizeof(plan[0]))) {
		why = "more tasks than dts-place plans at once";
		goto circle;
	}
	/* fresh reports for the next spawn; a host not heard yet is waited
	 * for (place.wait) */
	hosts_read(&p->t);
	hosts_ask(&p->t, idx, n);
	hosts_wait(&p->t, idx, n, p->wait_ns);
	for (i = 0; i < n; i++)
		view[i] = p->t.h[idx[i]];
	place_eval(view, n, &p->t.pc);
	for (i = 0; i < n; i++) {
		before[i] = view[i];
		log_debug("%s: %s %s: class %s goodness %.3f runnable %.2f "
		    "(load %.2f x %d CPUs, other gangs %d, own %d, sent %d) "
		    "free RAM %u MiB, users %d, W %.2f", __func__, file,
		    view[i].name, place_class_names[view[i].cls], view[i].good,
		    view[i].runnable, view[i].q, view[i].ncpu, view[i].rt,
		    view[i].own, view[i].placed, view[i].mem_mib,
		    view[i].users, view[i].w);
	}
	if (place_plan(view, n, &p->t.pc, ntask, n > 0 ? p->start % n : 0,
	    now_mono_ns(), plan, &why) == -1)
		goto circle;
	for (i = 0; i < n; i++)
		p->t.h[idx[i]] = view[i];
	p->start = n > 0 ? (p->start + ntask) % n : 0;
	p->tasks += (uint64_t)ntask;
	len = snprintf(out, cap, "PLAN\n");
	even = ntask % n == 0;
	snprintf(p->pend.file, sizeof(p->pend.file), "%s", file);
	p->pend.at = now_real_ns();
	/* hosts in the order the plan first uses them */
	for (k = 0; k < ntask; k++) {
		for (j = 0; j < k; j++)
			if (plan[j] == plan[k])
				break;
		if (j < k)
			continue;
		for (cnt = 0, j = k; j < ntask; j++)
			cnt += plan[j] == plan[k];
		even &= cnt == ntask / n;
		len += snprintf(out + len, cap - (size_t)len, "%s %d\n",
		    view[plan[k]].name, cnt);
		log_info("%s: %d of %d task%s to %s (goodness %.3f, %s)",
		    file, cnt, ntask, ntask > 1 ? "s" : "", view[plan[k]].name,
		    before[plan[k]].good,
		    place_class_names[before[plan[k]].cls]);
		p->pend.h[p->pend.n] = before[plan[k]];
		p->pend.cnt[p->pend.n++] = cnt;
		if ((size_t)len >= cap)
			return -1;
	}
	write_metrics(p);
	/* every host of the VM gets as many: PVM's circle spawns the same
	 * in one call, not one a host */
	if (even)
		return snprintf(out, cap, "SAME as the circle\n");
	return len;
circle:
	p->circles++;
	if (!p->circle_said++)
		log_info("%s: PVM's circle places the tasks: %s%s%s (said "
		    "once)", file, why, p->t.why[0] ? ": " : "", p->t.why);
	else
		log_debug("%s: PVM's circle: %s", file, why);
	write_metrics(p);
	return snprintf(out, cap, "CIRCLE %s\n", why);
}

/*
 * A request from the program: answer it; or the tids a plan's spawn
 * returned ("TIDS" and "HOST TID ..." lines, no answer): record them.
 * 0 if there was none.
 */
static int
serve(struct place *p)
{
	static char	 req[MSG_MAX], out[MSG_MAX];
	ssize_t		 n;
	int		 len;

	n = recv(p->sp, req, sizeof(req) - 1, MSG_DONTWAIT);
	if (n <= 0)
		return 0;
	req[n] = '\0';
	if (strncmp(req, "TIDS\n", 5) == 0 || strcmp(req, "TIDS") == 0) {
		flush(p, req[4] != '\0' ? req + 5 : NULL);
		return 1;
	}
	len = decide(p, req, out, sizeof(out));
	if (len <= 0 || (size_t)len >= sizeof(out))
		len = snprintf(out, sizeof(out), "CIRCLE no room for the plan\n");
	if (send(p->sp, out, (size_t)len, MSG_NOSIGNAL) == -1)
		log_debug("%s: reply: %s", __func__, strerror(errno));
	return 1;
}

/*
 * The VM's hosts at the start, so that their loads are known (and checked
 * again and again) before the first spawn: pvm_config in a child of ours
 * (libpvm3 blocks while pvmd is stopped in LS, and exits a process of
 * root's without PVM_ALLOW_ROOT), its "NAME SPEED" lines on a pipe that
 * the loop reads (hosts_pipe).  The read end, or -1.
 */
static int
vm_hosts(void)
{
	struct pvmhostinfo	*hi;
	int			 nhost, narch, i, fd[2];
	pid_t			 pid;
	FILE			*f;

	if (pipe2(fd, O_CLOEXEC) == -1)
		return -1;
	if ((pid = fork()) == -1) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid > 0) {
		close(fd[1]);
		return fd[0];
	}
	close(fd[0]);
	if ((getuid() == 0 && getenv("PVM_ALLOW_ROOT") == NULL) ||
	    (f = fdopen(fd[1], "w")) == NULL)
		_exit(0);
	pvm_setopt(PvmRoute, PvmDontRoute);
	if (pvm_setopt(PvmAutoErr, 0) < 0 || pvm_mytid() < 0)
		_exit(0);
	if (pvm_config(&nhost, &narch, &hi) >= 0)
		for (i = 0; i < nhost; i++)
			fprintf(f, "%s %d\n", hi[i].hi_name, hi[i].hi_speed);
	fclose(f);
	pvm_exit();
	_exit(0);
}

/* The helper's lines, once it has written them all: the hosts, asked at
 * once.  Returns the fd, or -1 once it is done. */
static int
hosts_pipe(struct place *p, int fd)
{
	static char	 buf[MSG_MAX];
	static size_t	 len;
	char		 name[PLACE_NAME_LEN], *line, *save;
	ssize_t		 n;
	int		 speed;

	n = read(fd, buf + len, sizeof(buf) - 1 - len);
	if (n > 0) {
		len += (size_t)n;
		if (len < sizeof(buf) - 1)
			return fd;
	} else if (n == -1 && errno == EINTR)
		return fd;
	close(fd);
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%63s %d", name, &speed) == 2)
			(void)hosts_find(&p->t, name, speed);
	hosts_ask(&p->t, NULL, 0);
	return -1;
}

static pid_t
start(char **argv, int fd, const sigset_t *old)
{
	const char	*lib = getenv("DTS_PLACE_LIB"), *pre;
	char		 env[4096], num[16];
	pid_t		 pid;
	int		 cfd;

	if (lib == NULL || *lib == '\0')
		lib = PLACE_LIB;
	if ((pid = fork()) != 0)
		return pid;
	sigprocmask(SIG_SETMASK, old, NULL);
	if ((cfd = dup(fd)) == -1)	/* without FD_CLOEXEC */
		_exit(127);
	snprintf(num, sizeof(num), "%d", cfd);
	pre = getenv("LD_PRELOAD");
	if (pre != NULL && *pre != '\0')
		snprintf(env, sizeof(env), "%s:%s", lib, pre);
	else
		snprintf(env, sizeof(env), "%s", lib);
	if (setenv("LD_PRELOAD", env, 1) == -1 ||
	    setenv("DTS_PLACE_FD", num, 1) == -1)
		_exit(127);
	execvp(argv[0], argv);
	fprintf(stderr, "dts-place: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* Serve until the program ends; its exit status. */
static int
loop(struct place *p, int sfd, int hfd)
{
	struct pollfd		 pf[4];
	struct signalfd_siginfo	 si;
	int64_t			 next = now_mono_ns(), left;
	int			 st, rc;

	for (;;) {
		if (now_mono_ns() >= next) {
			hosts_ask(&p->t, NULL, 0);
			next = now_mono_ns() + p->interval_ns;
		}
		pf[0] = (struct pollfd){ .fd = p->sp, .events = POLLIN };
		pf[1] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		pf[2] = (struct pollfd){ .fd = p->t.fd, .events = POLLIN };
		pf[3] = (struct pollfd){ .fd = hfd, .events = POLLIN };
		left = next - now_mono_ns();
		rc = poll(pf, 4, left > 0 ? (int)(left / NS_PER_MS) + 1 : 0);
		if (rc == -1 && errno != EINTR)
			fatal("poll");
		if (hfd != -1 && (pf[3].revents & (POLLIN | POLLHUP)))
			hfd = hosts_pipe(p, hfd);
		if (pf[2].revents & POLLIN)
			hosts_read(&p->t);
		if (pf[0].revents & POLLIN)
			serve(p);
		if (pf[1].revents & POLLIN && read(sfd, &si, sizeof(si)) ==
		    sizeof(si) && si.ssi_signo != SIGCHLD)
			kill(p->child, (int)si.ssi_signo);
		while ((rc = waitpid(-1, &st, WNOHANG)) > 0)
			if (rc == p->child)
				return WIFEXITED(st) ? WEXITSTATUS(st) :
				    128 + WTERMSIG(st);
	}
}

int
main(int argc, char **argv)
{
	struct opts		 o = { 0 };
	struct dts_conf		 c;
	static struct place	 p;
	struct passwd		*pw;
	sigset_t		 set, old;
	char			 err[512], job[PROTO_JOB_LEN];
	int			 sv[2], sfd, hfd, rc;

	parse(argc, argv, &o);
	conf_defaults(&c);
	if (conf_load(&c, o.conf, !o.explicit_conf, err, sizeof(err)) == -1)
		cli_die(1, "%s", err);
	if (o.check) {
		printf("configuration OK\n");
		return 0;
	}
	if (log_init("dts-place", o.log ? LOG_TO_FILE : LOG_TO_STDERR, o.log,
	    o.verbose ? LOG_LVL_DEBUG : LOG_LVL_INFO) == -1)
		cli_die(1, "log file %s: %s", o.log, log_file_why());
	if ((pw = getpwuid(getuid())) == NULL ||
	    job_name_make(job, pw->pw_name, job_label_pick(o.label), err,
	    sizeof(err)) == -1)
		cli_die(1, "job name: %s", pw == NULL ? "who am I?" : err);
	if (hosts_init(&p.t, &c, job, err, sizeof(err)) == -1)
		cli_die(1, "%s", err);
	record_path(&p, &o, &c);
	p.wait_ns = c.place.wait_ns;
	p.interval_ns = c.place.interval_ns;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1)
		cli_die(1, "socket pair: %s", strerror(errno));
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &old);
	if ((sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) == -1)
		cli_die(1, "signalfd: %s", strerror(errno));
	p.sp = sv[0];
	if ((p.child = start(argv + optind, sv[1], &old)) == -1)
		cli_die(1, "fork: %s", strerror(errno));
	close(sv[1]);
	hfd = vm_hosts();	/* while the program starts */
	log_debug("%s: %s (pid %d), job %s, %d host%s known, record %s",
	    __func__, argv[optind], (int)p.child, job, p.t.n,
	    p.t.n == 1 ? "" : "s", p.record);
	rc = loop(&p, sfd, hfd);
	while (serve(&p))	/* what the program said before it ended */
		;
	flush(&p, NULL);
	return rc;
}
