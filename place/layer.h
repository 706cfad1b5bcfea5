/*
 * layer.h - the spawning side of a placement, shared by libdtsplace.so
 * (preload.c) and dts-console's spawn: the request a spawn sends to the
 * placement (plan.h), and the spawn by its reply.
 *
 * The request is "SPAWN NTASK FILE" and one "H NAME SPEED" line per host
 * of the virtual machine; the reply "PLAN" and one "HOST COUNT" line per
 * host, or "SAME ..." (PVM's circle spawns as the plan would, in one
 * call), or "CIRCLE REASON".  After a PLAN or SAME spawn the caller
 * hands the placement the TIDS message built here: "TIDS" and a line
 * "HOST TID TID ..." per host (hexadecimal).
 */
#ifndef DTS_PLACE_LAYER_H
#define DTS_PLACE_LAYER_H

#include <stddef.h>
#include <pvm3.h>

#define PLACE_MSG_MAX 65536

typedef int (*place_spawn_fn)(char *, char **, int, char *, int, int *);
typedef int (*place_tidtohost_fn)(int);

/* The request for ntask tasks of file over hi[0..nhost) into buf; its
 * length, or -1 if it does not fit. */
int  place_request(char *buf, size_t cap, const char *file, int ntask,
    const struct pvmhostinfo *hi, int nhost);

/*
 * Spawn by the PLAN in reply (cut up by strtok_r), one PvmTaskHost spawn
 * a host; the tids into tids in the plan's order, the error codes after
 * them; the total started, as pvm_spawn returns.  msg (of cap bytes, *len
 * used, starting "TIDS") gets the tids each host got.
 */
int  place_by_plan(place_spawn_fn spawn, char *reply, char *file,
    char **argv, int flags, int ntask, int *tids, char *msg, size_t cap,
    size_t *len);

/* The tids[0..n) of PVM's own spawn, by host of hi[0..nhost), to msg. */
void place_by_host(const struct pvmhostinfo *hi, int nhost,
    place_tidtohost_fn tidtohost, const int *tids, int n, char *msg,
    size_t cap, size_t *len);

#endif /* DTS_PLACE_LAYER_H */
