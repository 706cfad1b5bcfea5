/*
 * adopt_check.h - what the adoption socket (adopt.c) decides, on the
 * facts adopt.c gathered: who may be adopted into which job, and who may
 * join whom.  No I/O and no lookup here (adopt.c holds the processes by
 * pidfds, asks NSS and finds the jobs), so that each refusal can be
 * tested on its own (tests/unit/test_adopt.c).  Each function returns
 * NULL (go on), or the reason (in why, or a constant) that adopt.c
 * answers and logs.
 */
#ifndef DTS_ADOPT_CHECK_H
#define DTS_ADOPT_CHECK_H

#include <pwd.h>
#include <stddef.h>
#include <sys/types.h>

#include "conf.h"
#include "jobs.h"
#include "proto.h"

/* Are all four uids (real, effective, saved, fs) uid? */
int  adopt_ids_are(const uid_t ids[4], uid_t uid);

/*
 * An ADOPT request (req: its first line; more: its lines after the
 * first, or NULL; full: all of it): "ADOPT pvmd" or "ADOPT run", then
 * STATE, "JOB <label>" and "WEIGHT <w>", each at most once, in any
 * order.  The label into label (JOB_LABEL_DEFAULT without a JOB line),
 * *state 1 if STATE was asked, *weight the WEIGHT (0: none).
 */
const char *adopt_check_request(const char *req, const char *more,
		const char *full, int *state, char label[16], int *weight,
		char *why, size_t whylen);
/* The lines after a request's first alone (ADOPT's and LIFT's). */
const char *adopt_check_more(const char *more, const char *full,
		int *state, char label[16], int *weight, char *why,
		size_t whylen);

/*
 * The process pid that connected as uid, its uids ids, whose passwd entry
 * is pw (NULL: none), asks for the job of label: all its uids the
 * connection's, a user the config's users list allows, and a job name of
 * that user and label, into job.
 */
const char *adopt_check_user(uid_t uid, pid_t pid, const uid_t ids[4],
		const struct passwd *pw, const struct conf_strlist *users,
		const char *label, char job[PROTO_JOB_LEN], char *why,
		size_t whylen);

/* The job of that name runs (j; NULL: it does not): is it uid's? */
const char *adopt_check_job(const struct job *j, uid_t uid, char *why,
		size_t whylen);

/*
 * JOIN: the process asker (in job j, NULL: in none) connected as uid.
 * It must be in a job of that uid, and not root's: a root gang could
 * pull in any root process.
 */
const char *adopt_check_asker(uid_t uid, pid_t asker, const struct job *j,
		char *why, size_t whylen);

/*
 * JOIN: process pid (in job other, NULL: in none; its uids ids) into
 * job j: in no job yet, and all its uids the job's.
 */
const char *adopt_check_target(const struct job *j, pid_t pid,
		const struct job *other, const uid_t ids[4], char *why,
		size_t whylen);

#endif /* DTS_ADOPT_CHECK_H */
