/*
 * poll.h - dts-place's view of the hosts: their STATUS, asked with a read
 * request (the read key of dts.conf's console_keys, as a keyless
 * dts-console asks) every place.interval, taken through the history
 * factor (goodness.h).
 */
#ifndef DTS_PLACE_POLL_H
#define DTS_PLACE_POLL_H

#include <netinet/in.h>

#include "auth.h"
#include "conf.h"
#include "goodness.h"
#include "proto.h"

#define PLACE_HOSTS_MAX 256

struct hosts {
	struct place_host	 h[PLACE_HOSTS_MAX];
	struct in_addr		 addr[PLACE_HOSTS_MAX];  /* 0: unresolved */
	struct replay_entry	 e[PLACE_HOSTS_MAX];
	int			 n;
	struct place_conf	 pc;
	int			 port;
	int			 fd;         /* UDP, -1 if no read key */
	char			 why[256];   /* why no load can be known */
	struct auth_key		 rkey;
	struct seqgen		 seq;
	struct replay		 replay;
	char			 job[PROTO_JOB_LEN]; /* our own job */
	/* members of our job on host self that are not tasks (a console
	 * lifted into the gang while it asks): not counted as its own */
	char			 self[PLACE_NAME_LEN];
	int			 self_extra;
	int64_t			 last_round;
};

/* From the configuration; 0, or -1 with err (the UDP socket). */
int  hosts_init(struct hosts *t, const struct dts_conf *c, const char *job,
    char *err, size_t errlen);

/* The host called name (added, and resolved, if new): its index, or -1
 * when the table is full. */
int  hosts_find(struct hosts *t, const char *name, int speed);

/* Ask every resolved host (or only those of idx[0..k) if idx). */
void hosts_ask(struct hosts *t, const int *idx, int k);

/* Take every reply the socket holds. */
void hosts_read(struct hosts *t);

/* Wait at most wait_ns for every host of idx[0..k) to have a report
 * (that came at since or later, on the monotonic clock; 0: any). */
void hosts_wait(struct hosts *t, const int *idx, int k, int64_t wait_ns,
    int64_t since);

void hosts_fini(struct hosts *t);

#endif
