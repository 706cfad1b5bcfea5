/*
 * job.h - a job's name: "USER:LABEL", the same on every node.
 *
 * A node runs up to max_jobs gangs, one a job (dts(8), "JOBS").  The job
 * key is the user (by name, so that it is the same job on every node)
 * and a label: dts-run --job LABEL, else $DTS_JOB, else JOB_LABEL_DEFAULT.
 * Not PVM_VMID: a slave pvmd learns it from the master's handshake, after
 * it was adopted, so the VM would be USER:VMID on the master's host and
 * USER:pvm on the others; a user's one VM is USER:pvm everywhere.
 */
#ifndef DTS_JOB_H
#define DTS_JOB_H

#include <stddef.h>

#include "proto.h"

#define JOB_ENV            "DTS_JOB"
#define JOB_LABEL_DEFAULT  "pvm"
#define ADOPT_JOB_LINE     "JOB"     /* the request's line: "JOB LABEL" */

/*
 * A label: 1 to 15 bytes of [A-Za-z0-9._-].  0, or -1 with a one-line
 * reason in err ("job label \"...\" is too long (at most 15 bytes)", or
 * "... has a byte that is not a letter, digit, '.', '_' or '-'").
 */
int job_label_check(const char *label, char *err, size_t errlen);

/*
 * The label a program gets from its options and environment: opt (from
 * --job) if not NULL, else getenv(JOB_ENV),
 * else JOB_LABEL_DEFAULT; empty strings count as unset.  Not checked.
 */
const char *job_label_pick(const char *opt);

/*
 * "USER:LABEL" into out (PROTO_JOB_LEN bytes).  user: printable, no ':',
 * '/' nor space.  0, or -1 with err (too long, bad byte, bad label).
 */
int job_name_make(char out[PROTO_JOB_LEN], const char *user,
    const char *label, char *err, size_t errlen);

/*
 * A name from the wire (PROTO_JOB_LEN bytes, maybe not NUL terminated):
 * NUL terminated within the field, NUL padded, "USER:LABEL" as above.
 * 0, or -1 with err.
 */
int job_name_check(const char name[PROTO_JOB_LEN], char *err, size_t errlen);

/* Job names a and b ("USER:LABEL", PROTO_JOB_LEN bytes at most): of the
 * same user?  1 or 0. */
int job_same_user(const char *a, const char *b);

#endif /* DTS_JOB_H */
