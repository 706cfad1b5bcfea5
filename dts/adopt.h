/*
 * adopt.h - dts's side of the adoption socket (common/adopt_msg.h).
 *
 * A launcher connects, sends one request and waits.  dts learns the peer
 * from SO_PEERCRED (uid) and SO_PEERPIDFD (the process that connected,
 * as a pidfd: a pid number could have been reused since), checks that
 * the user may run a gang here (config `users`), finds the job of the
 * request (the user's name and the request's label: jobs.h) or starts it
 * if max_jobs allows, moves the peer into the job's gang cgroup at the
 * gang's priority and answers.  The launcher then execs the daemon, which so starts inside the
 * gang.
 *
 * A gang member may also ask for another process of the gang's user to
 * join its job (dts-pvmjoin does, for the PVM tasks started outside
 * pvmd); dts checks both sides (decide_join) and never takes in a process
 * for a root gang, nor one of another job.
 *
 * The socket is open to every local user, and dts's main thread runs at
 * real-time priority: what a user's loop on it may cost is bounded
 * (dts(8), SECURITY).  dts accepts at most ACCEPT_RATE connections a
 * second in all (beyond that it stops polling the socket for a while, and
 * the kernel's backlog makes connect() wait); each uid is served at most
 * UID_RATE requests a second, and its further connections wait, parked
 * and unread, for their turn (so a loop waits too instead of spinning on
 * refusals); refusals are logged at most LOG_RATE a second, with the
 * count of the lines left out.  Only the move into the gang itself runs
 * under the scheduler's lock; names (NSS) and the log never do.
 *
 * A user's console may ask for a lift ("LIFT", adopt_msg.h): its own
 * process, for one command, into its own running job's gang at pvmd's
 * level, frozen with the gang, within a budget of time (dts(8), LIFTS).
 */
#ifndef DTS_ADOPT_H
#define DTS_ADOPT_H

#include <stdint.h>
#include <sys/types.h>

#include "adopt_msg.h"
#include "conf.h"
#include "jobs.h"

#define ADOPT_CONN_MAX 8	/* served, their request not read yet */
#define ADOPT_PARK_MAX 64	/* accepted, waiting for their uid's turn */
#define ADOPT_UID_MAX  32	/* uids with a budget of their own */

struct sched;

struct adopt_conn {
	int	 fd;			/* -1: free */
	uid_t	 uid;			/* SO_PEERCRED */
	pid_t	 pid;
	int64_t	 at;			/* accepted (CLOCK_BOOTTIME ns) */
	int64_t	 due;			/* parked: its turn (CLOCK_MONOTONIC) */
};

/* A uid's budgets: requests (rate) and lifts (cr). */
struct adopt_uid {
	uid_t		 uid;
	struct adopt_rate rate;
	struct lift_credit cr;
	int64_t		 used;		/* last use: the least recent goes */
};

#define ADOPT_LIFT_MAX 16	/* lifts at once, every uid (dts(8), LIFTS) */

/* A lift: a console's process in its job's gang for one command. */
struct adopt_lift {
	int	 fd;			/* the connection; -1: free */
	int	 pidfd;			/* the lifted process */
	pid_t	 pid;
	uid_t	 uid;
	int	 home_fd;		/* its own cgroup's cgroup.procs, opened
					   when it was lifted: where it goes back */
	char	 job[PROTO_JOB_LEN];
	int64_t	 start, end;		/* CLOCK_MONOTONIC ns */
	int64_t	 reserved;		/* of its uid's credit */
};

struct adopt {
	int	 fd;			/* listening socket */
	int	 tfd;			/* timerfd: resume polling, turns */
	int64_t	 armed;			/* tfd's expiry (0: none) */
	int	 epfd;			/* the caller's epoll (adopt_start) */
	int	 polling;		/* fd is in epfd */
	struct sched *sched;		/* its lock, around a move only */
	struct adopt_conn conn[ADOPT_CONN_MAX];
	struct adopt_conn park[ADOPT_PARK_MAX];
	int	 nparked;
	struct adopt_uid uids[ADOPT_UID_MAX];
	struct adopt_rate accepts;	/* every uid */
	struct adopt_rate log;		/* refusal lines */
	unsigned log_dropped;		/* refusal lines not logged */
	char	 path[108];
	const struct dts_conf *conf;
	struct jobs *jobs;		/* the gangs, one a job */
	unsigned adopted, joined, refused, parked, busy;
	struct adopt_lift lift[ADOPT_LIFT_MAX];
	unsigned lifted, lift_cut;	/* lifts; those the cap ended */
};

/*
 * Bind path (mode 0666: anyone may ask; SO_PEERCRED says who asked).
 * Refuses if another dts answers on it.  0, or -1 with err.
 */
int  adopt_open(struct adopt *a, const char *path, const struct dts_conf *c,
		struct jobs *J, char *err, size_t errlen);

/*
 * Watch the socket (and adopt's timer) in epoll set epfd, each fd as its
 * own data; s's lock is taken around each move into the gang.  0 or -1.
 */
int  adopt_start(struct adopt *a, int epfd, struct sched *s);

/* Is fd one of adopt's (then adopt_event takes it)? */
int  adopt_owns(const struct adopt *a, int fd);

/* fd (adopt_owns) is ready.  The caller holds no lock. */
void adopt_event(struct adopt *a, int fd);

void adopt_close(struct adopt *a);

#endif /* DTS_ADOPT_H */
