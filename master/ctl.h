/*
 * ctl.h - dts-master's control socket (console.master_socket; the
 * protocol is mctl.h).
 *
 * A Unix stream socket, mode 0666: any local user may connect.  Each
 * connection carries one request.  Requests run one at a time, in the
 * order they were read, through the engine's command table, with the
 * engine's output going to the reply; a status round (status, jobs,
 * load, metrics) answers when the round is over, and meanwhile the
 * master loop goes on.  The peer's credentials (SO_PEERCRED) decide:
 * a command that changes the schedule runs for root, or a member of
 * console.operator_group; any other is refused in one line and changes
 * nothing.  A client that sends no whole line within CTL_READ_NS, or
 * that does not take its reply within CTL_WRITE_NS, is dropped.
 */
#ifndef DTS_MASTER_CTL_H
#define DTS_MASTER_CTL_H

#include <sys/types.h>

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "conf.h"
#include "mctl.h"

struct engine;

/* Runs one command line; 0, or -1 with the engine's out.err. */
typedef int ctl_exec_fn(void *arg, const char *line);

#define CTL_CLIENTS	32
#define CTL_READ_NS	(5LL * 1000000000)
#define CTL_WRITE_NS	(5LL * 1000000000)

enum ctl_state { CTL_FREE = 0, CTL_READING, CTL_QUEUED, CTL_RUNNING,
	CTL_WRITING };

struct ctl_client {
	int		 fd;
	int		 state;		/* enum ctl_state */
	uid_t		 uid;
	gid_t		 gid;
	pid_t		 pid;
	uint64_t	 order;		/* queued: first come, first run */
	int64_t		 since;		/* state began (CLOCK_MONOTONIC) */
	char		 in[MCTL_REQ_MAX + 1];
	size_t		 inlen;
	char		 cmd[MCTL_REQ_MAX];
	int		 kind;
	char		*out;		/* the reply */
	size_t		 outlen, outoff;
};

struct ctl {
	int		 fd;		/* listening, or -1 */
	char		 path[108];
	int		 have_op;	/* console.operator_group set */
	gid_t		 op_gid;
	char		 op_name[CONF_STR_MAX];
	struct ctl_client cl[CTL_CLIENTS];
	int		 running;	/* cl[] whose command runs, or -1 */
	uint64_t	 order;
	FILE		*mem;		/* the running command's output */
	char		*membuf;
	size_t		 memlen;
	FILE		*saved;		/* the engine's output before it */
	uint64_t	 served, refused, dropped;
};

/*
 * From conf: console.master_socket (none if ""), console.operator_group.
 * A live socket at the path (another master's) is left alone: 1, and
 * err says so (the caller logs it; this master has no socket).  0, or -1
 * with err (the group does not exist, the socket cannot be made).
 */
int ctl_open(struct ctl *t, const struct dts_conf *conf, char *err,
    size_t errlen);
void ctl_close(struct ctl *t);

/* Its descriptors to poll into p (at most 1 + CTL_CLIENTS); how many. */
int ctl_pollfds(const struct ctl *t, struct pollfd *p);

/* After poll: accept, read, write, drop (the same p as ctl_pollfds); a
 * hello is answered at once, never queued behind a status round. */
void ctl_events(struct ctl *t, struct engine *c, const struct pollfd *p,
    int n, int64_t now);

/*
 * Run what is queued while the engine is free (after the start-up
 * commands), and answer a status round that ended: the caller calls it
 * once a loop, and not master_done() itself while ctl_busy().
 */
void ctl_run(struct ctl *t, struct engine *c, ctl_exec_fn *exec, void *arg,
    int64_t now);
int ctl_busy(const struct ctl *t);

/* Whether the peer (uid, gid) may run a command of kind (mctl.h). */
int ctl_allowed(const struct ctl *t, uid_t uid, gid_t gid, int kind);

#endif /* DTS_MASTER_CTL_H */
