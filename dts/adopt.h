/*
 * adopt.h - dts's side of the adoption socket (common/adopt_msg.h).
 *
 * A launcher connects, sends one request and waits.  dts reads the peer's
 * pid and uid from SO_PEERCRED, checks that the user may run a gang here
 * (config `users`) and that no other gang runs, moves the peer into the
 * gang cgroup at the gang's priority and answers.  The launcher then execs
 * the daemon, which so starts inside the gang.
 *
 * A gang member may also ask for another process of the gang's user to
 * join (dts-pvmjoin does, for the PVM tasks started outside pvmd); dts
 * checks both sides (decide_join) and never takes in a process for a
 * root gang.
 */
#ifndef DTS_ADOPT_H
#define DTS_ADOPT_H

#include <sys/types.h>

#include "conf.h"
#include "gang.h"

#define ADOPT_CONN_MAX 8	/* requests waiting to be read */

struct adopt {
	int    fd;                       /* listening socket */
	int    conn[ADOPT_CONN_MAX];     /* accepted, -1 if free */
	char   path[108];
	const struct dts_conf *conf;
	struct gang *gang;
	uid_t  gang_uid;                 /* who the running gang belongs to */
	unsigned adopted, joined, refused;
};

/*
 * Bind path (mode 0666: anyone may ask; SO_PEERCRED says who asked).
 * Refuses if another dts answers on it.  0, or -1 with err.
 */
int  adopt_open(struct adopt *a, const char *path, const struct dts_conf *c,
		struct gang *g, char *err, size_t errlen);

/*
 * The listening socket is readable: accept.  Returns a new fd or -1; when
 * all ADOPT_CONN_MAX slots were taken, the oldest connection was dropped
 * to make room and *evicted is its fd (the caller closes it), else -1.
 */
int  adopt_accept(struct adopt *a, int *evicted);

/* fd (from adopt_accept) is readable: answer and close it (1), or 0 if
 * its request has not arrived yet. */
int  adopt_input(struct adopt *a, int fd);

void adopt_close(struct adopt *a);

#endif /* DTS_ADOPT_H */
