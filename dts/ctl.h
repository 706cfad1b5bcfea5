/*
 * ctl.h - what dts does with control datagrams (main thread).
 *
 * The intake thread (intake.h) checks every datagram; ctl applies the
 * commands that pass: SCHEDULE to the scheduler, STATUS_REQ, TRACE_REQ and
 * METRICS_REQ and JOB_REQ answered, and LOAD reports sent to the console that commands
 * us.
 *
 * One master: the console whose SCHEDULE a node follows.  Others are
 * refused (REJ_MASTER) until one sends SCHED_F_TAKEOVER (the console's
 * `takeover`), or the master falls silent (below).
 *
 * Dead-man switch: a console that stops speaking must not leave the
 * cluster in its last mode (HPDT, or a long PS) for good.  When no
 * SCHEDULE has come for `silence` (dts.conf; 0 = three SIs of the last
 * schedule), dts goes back to the schedule of its own configuration, logs
 * it and says so in STATUS (STATUS_F_OWN).
 */
#ifndef DTS_CTL_H
#define DTS_CTL_H

#include <netinet/in.h>
#include <stdint.h>

#include "intake.h"
#include "scheduler.h"

struct ctl {
	struct intake		 in;
	/* the console that commands us, and its key_id; have_console: it is
	 * the master (else the node is on its own schedule) */
	struct sockaddr_in	 console;
	uint32_t		 console_key;
	int			 have_console;
	uint64_t		 foreign;	/* others' schedules refused */
	uint32_t		 master_changes; /* a console became master */
	int64_t			 started;	/* mono ns, at ctl_open */
	int64_t			 pushed;	/* mono ns, last ctl_push_status */
	int			 deadman_tfd;	/* fires after `silence` */
	int64_t			 silence_conf;	/* 0: 3 SI */
	struct proto_schedule	 own;		/* the configured schedule */
};

/*
 * Bind addr:port and create the dead-man timer.  own: the schedule to go
 * back to.  0 or -1 with err.
 */
int ctl_open(struct ctl *c, const char *addr, int port,
    const struct auth_key *key, int64_t replay_window, int64_t silence,
    const struct proto_schedule *own, char *err, size_t errlen);

/* Join the multicast group of dts.conf (intake_join): the interfaces
 * joined, or -1 with err. */
int ctl_join(struct ctl *c, const char *group, char *err, size_t errlen);

/* Start the intake thread at SCHED_FIFO prio (after privileges are
 * dropped).  0 or -1. */
int ctl_start(struct ctl *c, int prio);

/* The main loop's fds: commands waiting, dead-man expired. */
int ctl_cmd_fd(const struct ctl *c);
int ctl_deadman_fd(const struct ctl *c);

/* Apply the commands the intake thread queued. */
void ctl_input(struct ctl *c, struct sched *s);

/* The dead-man timer fired: back to the configured schedule. */
void ctl_deadman(struct ctl *c, struct sched *s);

/*
 * Tell the master this node's STATUS now, unasked (its jobs changed), so
 * that its matrix has a new or ended job within the round trip, not at
 * the next SI's reply.  At most one in CTL_PUSH_GAP_NS: a user who starts
 * jobs in a loop costs the master one STATUS that often.  Only in
 * STATIC and BALANCED, where the master builds slot tables from jobs.  0 (sent, or no
 * master to tell), or -1: too soon, ask again later (the next event of
 * the main loop; it has one every second).
 */
#define CTL_PUSH_GAP_NS	(100 * 1000 * 1000)
int  ctl_push_status(struct ctl *c, struct sched *s);

/* Tell the console about a new load index (threshold crossed). */
void ctl_send_load(struct ctl *c, uint32_t load_milli, uint32_t ncpu);

void ctl_close(struct ctl *c);

#endif /* DTS_CTL_H */
