/*
 * pvm.h - the PVM side of the console, through libpvm3.
 *
 * At start-up the console connects to the local pvmd; if none runs it
 * starts the master pvmd through the launch script (console.launcher),
 * which asks the node's dts service to adopt it into the gang and execs
 * the real pvmd: fork+exec in a new session with PVM_TMP (a private one
 * unless configured) and PVM_DPATH = console.launcher, so that slaves
 * added later take the same path; the first line of pvmd's stdout (its
 * task socket) says it is up.  `add` passes "HOST dx=LAUNCHER" to
 * pvm_addhosts for the same reason.
 *
 * The host table (pvm_config) is cached in p->hosts and refreshed only on
 * start-up and when a PVM command runs; pvm_hostsync is never called.
 * libpvm3 calls block while the local pvmd is stopped in its LS (up to
 * LS): the PVM commands are synchronous, the master loop's timers wait
 * for them.  This header does not include pvm3.h.
 */
#ifndef DTS_CONSOLE_PVM_H
#define DTS_CONSOLE_PVM_H

#include <stdint.h>
#include <sys/types.h>

#include "conf.h"
#include "net.h"
#include "nodes.h"
#include "out.h"

struct cpvm {
	const struct dts_conf *conf;	/* console.launcher, pvm_tmp, ... */
	struct vm_hosts	*hosts;		/* the cached host table */
	struct net	*net;		/* unicast goes to the hosts */
	struct out	*out;		/* errors and notices */
	int	 off;			/* -n: never touch PVM */
	int	 connected;
	int	 tid;
	pid_t	 master_pid;		/* the master pvmd we started, 0 if none */
	pid_t	 pvmd_pid;		/* the pvmd we talk to, 0 if unknown */
	char	 tmp[CONF_STR_MAX];	/* PVM_TMP */
	int64_t	 halt_at;		/* our own halt: pvmd's SIGTERM follows */
	int	 lift_fd;		/* a lift's connection to dts; -1 */
	int	 lift_old;		/* dts knows no lifts: never ask */
	int	 lift_refused;		/* the last lift was refused (said) */
};

/* PVM, off or not, for a console whose parts these are; not connected. */
void cpvm_init(struct cpvm *p, const struct dts_conf *conf,
    struct vm_hosts *hosts, struct net *net, struct out *out, int off);

/*
 * Choose PVM_TMP (console.pvm_tmp, $PVM_TMP, else /tmp/dts-console.UID,
 * created 0700) and put it in our environment.  0, or -1 with p->out->err.
 */
int cpvm_setup(struct cpvm *p);

/* Connect to the local pvmd, starting dts if none runs (start = 1). */
int cpvm_connect(struct cpvm *p, int start);

/*
 * Around a PVM command: ask the node's dts to lift this process into its
 * job's gang (dts(8), LIFTS), so that its round trips to pvmd do not wait
 * for the LS; and let go.  A refusal is one notice (then silence until a
 * lift is granted again); without dts, or with one that knows no lifts,
 * the command runs unlifted, silently.
 */
void cpvm_lift(struct cpvm *p);
void cpvm_unlift(struct cpvm *p);

/* Refresh the cached host table (and the unicast destinations). */
int cpvm_refresh(struct cpvm *p);

/* SIGCHLD: reap the dts we started. */
void cpvm_reap(struct cpvm *p);

/* After a halt: wait up to max ns for the dts we started to end. */
void cpvm_wait_master(struct cpvm *p, int64_t max);

/*
 * A SIGTERM from sender at now: is it pvmd ending its tasks because the
 * VM halts (then the console stays, disconnected from PVM)?
 */
int cpvm_halt_signal(struct cpvm *p, pid_t sender, int64_t now);

/* The pvmd is gone or going: leave PVM (pvm_exit) and forget it. */
void cpvm_drop(struct cpvm *p);

/* Leave PVM (pvm_exit) if connected. */
void cpvm_fini(struct cpvm *p);

#endif /* DTS_CONSOLE_PVM_H */
