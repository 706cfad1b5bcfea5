/*
 * adopt_check.c - the adoption socket's decisions.  See adopt_check.h.
 */
#include <stdio.h>
#include <string.h>

#include "adopt_check.h"
#include "adopt_msg.h"
#include "job.h"
#include "users.h"

int
adopt_ids_are(const uid_t id[4], uid_t uid)
{
	return id[0] == uid && id[1] == uid && id[2] == uid && id[3] == uid;
}

const char *
adopt_check_request(const char *req, const char *more, const char *full,
    int *state, char label[16], int *weight, char *why, size_t whylen)
{
	*state = 0;
	*weight = 0;
	if (strcmp(req, "ADOPT pvmd") != 0 && strcmp(req, "ADOPT run") != 0)
		return "malformed request (expected \"ADOPT pvmd\", "
		    "\"ADOPT run\" or \"JOIN <pid>\")";
	return adopt_check_more(more, full, state, label, weight, why,
	    whylen);
}

/* Line p (n bytes) is "KEY" or starts with "KEY " (adopt_parse_job's). */
static int
keyed(const char *p, size_t n, const char *key)
{
	size_t	 k = strlen(key);

	return n >= k && strncmp(p, key, k) == 0 && (n == k || p[k] == ' ');
}

const char *
adopt_check_more(const char *more, const char *full, int *state,
    char label[16], int *weight, char *why, size_t whylen)
{
	const char	*p = more, *nl;
	size_t		 n;

	*state = 0;
	*weight = 0;
	for (; p != NULL && *p != '\0'; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		n = nl ? (size_t)(nl - p) : strlen(p);
		if (n == strlen(ADOPT_STATE_LINE) &&
		    strncmp(p, ADOPT_STATE_LINE, n) == 0) {
			if ((*state)++)
				return "malformed request (two STATE lines)";
		} else if (!keyed(p, n, ADOPT_JOB_LINE) &&
		    !keyed(p, n, ADOPT_WEIGHT_LINE)) {
			return "malformed request (a line after the first "
			    "that is neither \"STATE\", \"JOB <label>\" nor "
			    "\"WEIGHT <w>\")";
		}
	}
	if (adopt_parse_job(full, label, why, whylen) == -1 ||
	    adopt_parse_weight(full, weight, why, whylen) == -1)
		return why;
	return NULL;
}

const char *
adopt_check_user(uid_t uid, pid_t pid, const uid_t ids[4],
    const struct passwd *pw, const struct conf_strlist *users,
    const char *label, char job[PROTO_JOB_LEN], char *why, size_t whylen)
{
	if (!adopt_ids_are(ids, uid)) {
		snprintf(why, whylen, "pid %d runs as uid %d/%d/%d/%d (real/"
		    "effective/saved/fs), not as uid %d, which connected",
		    (int)pid, (int)ids[0], (int)ids[1], (int)ids[2],
		    (int)ids[3], (int)uid);
		return why;
	}
	if (pw == NULL) {
		snprintf(why, whylen, "uid %d has no user name: it may not run "
		    "a gang on this node", (int)uid);
		return why;
	}
	if (!users_allowed(users, pw->pw_uid, pw->pw_gid, pw->pw_name, why,
	    whylen))
		return why;
	if (job_name_make(job, pw->pw_name, label, why, whylen) == -1)
		return why;
	return NULL;
}

const char *
adopt_check_job(const struct job *j, uid_t uid, char *why, size_t whylen)
{
	if (j != NULL && j->uid != uid) {
		snprintf(why, whylen, "job %s runs as uid %d, not as uid %d: "
		    "only its user joins it", j->name, (int)j->uid, (int)uid);
		return why;
	}
	return NULL;
}

const char *
adopt_check_asker(uid_t uid, pid_t asker, const struct job *j, char *why,
    size_t whylen)
{
	if (j == NULL) {
		snprintf(why, whylen, "pid %d is not in the gang: only a gang "
		    "member may ask for a join", (int)asker);
		return why;
	}
	if (uid != j->uid) {
		snprintf(why, whylen, "uid %d may not ask: the gang is uid "
		    "%d's", (int)uid, (int)j->uid);
		return why;
	}
	if (j->uid == 0)
		return "the gang runs as root, and a root gang takes nobody "
		    "in (start a root program in it with dts-run -- COMMAND)";
	return NULL;
}

const char *
adopt_check_target(const struct job *j, pid_t pid, const struct job *other,
    const uid_t ids[4], char *why, size_t whylen)
{
	if (other == j) {
		snprintf(why, whylen, "pid %d is already in the gang",
		    (int)pid);
		return why;
	}
	if (other != NULL) {
		snprintf(why, whylen, "pid %d is in job %s: a process stays "
		    "in its job", (int)pid, other->name);
		return why;
	}
	if (!adopt_ids_are(ids, j->uid)) {
		snprintf(why, whylen, "pid %d runs as uid %d/%d/%d/%d (real/"
		    "effective/saved/fs), not as the gang's uid %d", (int)pid,
		    (int)ids[0], (int)ids[1], (int)ids[2], (int)ids[3],
		    (int)j->uid);
		return why;
	}
	return NULL;
}
