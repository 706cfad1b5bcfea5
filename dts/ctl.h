/*
 * ctl.h - the UDP control socket of dts.
 *
 * Receives SCHEDULE and STATUS_REQ datagrams from the console, checks each
 * one in the fixed order of proto_open() (length, magic/version, type,
 * payload length, MAC, replay, ranges), counts every drop by reason and
 * answers with STATUS.  Sends LOAD to the console that spoke last.
 */
#ifndef DTS_CTL_H
#define DTS_CTL_H

#include <netinet/in.h>
#include <stdint.h>

#include "auth.h"
#include "sched.h"

struct ctl {
	int      fd;
	struct auth_key key;
	struct replay replay;
	struct seqgen seq;
	uint32_t rejected[REJ_MAX];
	struct sockaddr_in console;   /* last authenticated sender */
	int      have_console;
	char     name[PROTO_NAME_LEN];
};

/* Bind addr:port.  0 or -1 with err. */
int  ctl_open(struct ctl *c, const char *addr, int port, int64_t replay_window,
	      char *err, size_t errlen);

/* Drain the socket, applying what arrives to s. */
void ctl_input(struct ctl *c, struct sched *s);

/* Tell the console about a new load index (threshold crossed). */
void ctl_send_load(struct ctl *c, uint32_t load_milli, uint32_t ncpu);

void ctl_close(struct ctl *c);

#endif /* DTS_CTL_H */
