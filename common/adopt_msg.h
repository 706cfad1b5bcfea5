/*
 * adopt_msg.h - the local adoption socket: how a launcher (the PVM launch
 * script through dts-run, or dts-run -- CMD) asks the node's dts to take
 * the calling process into the gang before it execs the daemon, and how a
 * gang member (dts-pvmjoin) asks it to take in a task that was started
 * outside pvmd.
 *
 * Unix socket, SOCK_SEQPACKET, one request and one reply a connection,
 * text, lines separated by "\n":
 *
 *   request   "ADOPT pvmd"     adopt me; tell me which pvmd to exec
 *             "ADOPT run"      adopt me; I exec a command of my own
 *             "JOIN <pid>"     move process <pid> into the gang of the
 *                              asker's job (the asker is a member; see
 *                              dts(8)); a JOIN has no other line
 *   reply     "OK <path>"      adopted; for pvmd, the real pvmd to exec
 *             "OK"             joined
 *             "ERR <reason>"   refused, one line for the user
 *
 * After its first line an ADOPT request may have, in any order, each at
 * most once:
 *   "STATE"          tell me the state file too.  The reply then has a
 *                    second line "STATE <path>" when dts keeps one
 *                    (dts.conf: state_file), which dts-run hands to the
 *                    gang in STATE_ENV.
 *   "JOB <label>"    adopt me into the job USER:<label> (job.h; the
 *                    label 1 to 15 bytes of [A-Za-z0-9._-]).  Without
 *                    it, the job USER:JOB_LABEL_DEFAULT.
 *   "WEIGHT <w>"     the job's weight in its master's gang matrix
 *                    (dts-console(1), jobs): a whole 1 to
 *                    PROTO_WEIGHT_JOB_MAX in decimal, no sign or leading
 *                    zero.  dts keeps the last one given with the job and
 *                    tells its master in STATUS; the operator's `set
 *                    weight` wins there.  The SPANK plugin sends it
 *                    (--dts-weight, qos_weight=).
 * dts-run sends "ADOPT pvmd\nSTATE\nJOB <label>" (or "ADOPT run\n...").
 * A dts-run from before sends no JOB line (its process goes into the
 * default job) and reads "OK <path>" as always.  A dts from before the
 * JOB line refuses any line but STATE with ADOPT_REFUSAL_OLD; dts-run
 * then asks again without the JOB line (one gang a node, as that dts
 * runs).  A dts from before the WEIGHT line refuses it with
 * ADOPT_REFUSAL_NO_WEIGHT, word for word; the client asks again without
 * it (the job then has the master's default weight).
 *
 * A LIFT (dts(8), LIFTS) keeps its connection: the process that connected
 * (SO_PEERPIDFD; never another one) runs in the gang of its user's job
 * USER:<label> at pvmd's real-time level, frozen with the gang in every
 * LS, until it closes the connection (or sends anything more), exits,
 * or <ms> have passed; then dts puts it back into its own cgroup at
 * SCHED_OTHER and closes its side.  Each uid's lifts have a budget
 * (LIFT_SHARE_PCT of the time, LIFT_BURST_NS at once, each counted at
 * least LIFT_MIN_NS).  A dts from before LIFT answers ADOPT_REFUSAL_OLD:
 * the client then runs unlifted and need not ask again.
 *
 * dts learns who asks from SO_PEERCRED (pid, uid), never from the request.
 */
#ifndef DTS_ADOPT_MSG_H
#define DTS_ADOPT_MSG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define ADOPT_SOCKET_DEFAULT "/run/dts/dts.sock"
#define ADOPT_SOCKET_ENV     "DTS_SOCKET"   /* dts-run: another socket */
#define ADOPT_MSG_MAX        512            /* request or reply, bytes */
#define ADOPT_REPLY_WAIT_MS  10000          /* dts-run gives up after this */
#define ADOPT_PID_MAX        4194304        /* the kernel's PID_MAX_LIMIT */

/* dts-run --pvmd starts this helper (dts(8), "Tasks started outside
 * pvmd"); the variable names another one. */
#define PVMJOIN_ENV          "DTS_PVMJOIN"

/* The state file, for the gang (dts(8), "SUSPEND AWARENESS"): dts-run
 * sets it to what dts names, and unsets it when dts names none. */
#define STATE_ENV            "DTS_STATE"
#define ADOPT_STATE_LINE     "STATE"        /* a request's line (above) */
/* What a dts from before the JOB line answers to any line
 * it does not know, word for word: dts-run asks it again without JOB. */
#define ADOPT_REFUSAL_OLD    "ERR malformed request (expected " \
	"\"ADOPT pvmd\", \"ADOPT run\" or \"JOIN <pid>\")"
/* What a dts from before the WEIGHT line answers to a request that has
 * one, word for word: ask again without it. */
#define ADOPT_REFUSAL_NO_WEIGHT "ERR malformed request (a line after the " \
	"first that is neither \"STATE\" nor \"JOB <label>\")"
#define ADOPT_WEIGHT_LINE    "WEIGHT"       /* "WEIGHT <w>" */
/* The start of dts's answer to a request it will not serve now (its
 * budget for the asking uid, or its park, is full): ask again later. */
#define ADOPT_BUSY	"ERR dts is busy"

/* Lifts (dts(8), LIFTS). */
#define ADOPT_LIFT_LINE      "LIFT"
#define LIFT_MAX_NS          (250LL * 1000 * 1000)	/* one lift at most */
#define LIFT_SHARE_PCT       10		/* a uid's lifts: of the time */
#define LIFT_BURST_NS        (1000LL * 1000 * 1000)	/* credit, rested */
#define LIFT_MIN_NS          (10LL * 1000 * 1000)	/* a lift costs this */
#define LIFT_WAIT_MS         200	/* a client waits this for dts's OK */

/*
 * A uid's credit of lifted time (ns; times on any one clock): it grows
 * LIFT_SHARE_PCT of the time that passes, up to LIFT_BURST_NS.  A new
 * credit (at 0) is full.  lift_credit_grant: the length of a lift that
 * starts at now (at most LIFT_MAX_NS), reserved from the credit; 0 if
 * less than LIFT_MIN_NS is left, and *wait then how long until there is.
 * lift_credit_settle: the lift that reserved `reserved` ended after
 * `used`: what it did not use (but LIFT_MIN_NS at least counts) comes
 * back, and what it used past its reservation (an end that came late) is
 * charged too, so that the credit may go below 0.  A loop of lifts that
 * asks for more than the credit gives is cut first (its lifts get
 * shorter, down to LIFT_MIN_NS) and then refused until the credit is
 * back at LIFT_MIN_NS.
 */
struct lift_credit {
	int64_t	 credit;
	int64_t	 at;			/* credit as of; 0: new */
};

int64_t lift_credit_grant(struct lift_credit *c, int64_t now, int64_t *wait);
void    lift_credit_settle(struct lift_credit *c, int64_t now,
	    int64_t reserved, int64_t used);

/*
 * The client's side of a LIFT: "LIFT" (and "JOB <label>" if label is not
 * NULL) over the socket at path, waiting up to wait_ms.  1 and *fd the
 * connection to keep (close it to end the lift) and *ms the lift's
 * length; 0 if a dts from before LIFT answered (nothing to tell the
 * user); -1 with dts's one-line reason in err (refused); -2 with the
 * reason in err when no dts answered (none runs: nothing to lift into).
 */
int adopt_lift(const char *path, const char *label, int wait_ms, int *fd,
	    int *ms, char *err, size_t errlen);

/*
 * "JOIN <pid>": exactly one space, then 1 to ADOPT_PID_MAX in decimal
 * without sign or leading zero.  0 and *pid, or -1.
 */
int adopt_parse_join(const char *req, pid_t *pid);

/*
 * The label of the request's "JOB <label>" line (req: the whole request,
 * or its lines after the first; NULL: none), checked with
 * job_label_check(); no JOB line: JOB_LABEL_DEFAULT.  A line is a JOB
 * line when it is "JOB" or starts with "JOB ".  0, or -1 with a one-line
 * err (no label, a bad label, two JOB lines).  Other lines are the
 * caller's to judge.
 */
int adopt_parse_job(const char *req, char label[16], char *err,
	    size_t errlen);

/*
 * A weight as the WEIGHT line and --dts-weight give it: a whole 1 to
 * PROTO_WEIGHT_JOB_MAX in decimal, no sign, space or leading zero.  0
 * and *w, or -1 with a one-line err.
 */
int adopt_weight_check(const char *s, int *w, char *err, size_t errlen);

/*
 * The weight of the request's "WEIGHT <w>" line (req as for
 * adopt_parse_job), checked with adopt_weight_check; no WEIGHT line:
 * *w 0 (none given).  0, or -1 with a one-line err (a bad weight, two
 * WEIGHT lines).
 */
int adopt_parse_weight(const char *req, int *w, char *err, size_t errlen);

/*
 * One request, one reply (NUL terminated into reply) over the socket at
 * path, waiting up to wait_ms in all for the connection and the answer.
 * 0, or -1 with a one-line reason in err.
 */
int adopt_ask(const char *path, const char *req, char *reply, size_t len,
	      int wait_ms, char *err, size_t errlen);

/*
 * connect(2) fd to the Unix socket at sun, waiting at most wait_ms while
 * its backlog is full (a stopped or swamped dts: a plain connect() would
 * wait for ever).  0, or -1 with errno (EAGAIN: still full).
 */
struct sockaddr_un;
int adopt_connect(int fd, const struct sockaddr_un *sun, int wait_ms);

/*
 * No dts at path: nothing there, or a socket nobody accepts on (a dts
 * that died).  A dts that does not answer within ADOPT_ABSENT_WAIT_MS is
 * not absent, nor one whose backlog is full.  1 or 0.  dts-run's and the
 * SPANK plugin's test before no_service.
 */
#define ADOPT_ABSENT_WAIT_MS 100
int adopt_service_absent(const char *path);

/*
 * dts's side: the pure parts of its intake and of its checks, apart so
 * that they can be tested (tests/unit/test_join.c).
 *
 * A rate with a burst (the generic cell rate algorithm, times in ns on
 * any one clock): tat is the time at which the budget is full again.  A
 * unit conforms at now when tat - now <= (burst - 1) * interval.
 * adopt_rate_when: the first time >= now at which one more unit
 * conforms; adopt_rate_take: spend one at that time.
 */
struct adopt_rate {
	int64_t	 tat;
};

int64_t adopt_rate_when(const struct adopt_rate *r, int64_t now,
	    int64_t interval, int burst);
void    adopt_rate_take(struct adopt_rate *r, int64_t at, int64_t interval);

/*
 * The "Tgid:" and "Uid:" lines of a /proc/PID/status text: the thread
 * group (the process) the id belongs to, and its real, effective, saved
 * and filesystem uids.  0, or -1 if a line is missing.
 */
int adopt_parse_status(const char *status, pid_t *tgid, uid_t uids[4]);

/*
 * The "Pid:" line of a pidfd's /proc/self/fdinfo/FD text: the pid of the
 * process the pidfd refers to in dts's namespace, -1 once it has been
 * reaped (its number may then belong to another process).  0, or -1 if
 * there is no such line (not a pidfd).
 */
int adopt_parse_fdinfo_pid(const char *text, pid_t *pid);

#endif /* DTS_ADOPT_MSG_H */
