/*
 * users.h - who may start a gang on this node (dts.conf: users).
 *
 * Each entry of the list is a user name ("alice"), a group whose members
 * may ("@dts": primary or supplementary members, as getgrouplist()
 * reports them), or "*" (every user).  Root may always.  The default is
 * ["@dts"]: the group the package creates (adduser alice dts).  An empty
 * list lets nobody but root.
 *
 * users_allowed() asks NSS (getgrnam_r, getgrouplist): it may block on a
 * slow name service, so call it with no lock held that the slice edges
 * need.
 */
#ifndef DTS_USERS_H
#define DTS_USERS_H

#include <stddef.h>
#include <sys/types.h>

#include "strlist.h"

#define USERS_ALL      "*"
#define USERS_GROUP    '@'	/* "@group" */
#define USERS_DEFAULT  "@dts"

/*
 * May the user (uid, primary gid, name) start a gang?  1; or 0 with one
 * line for that user in why: who the list lets in and how to get in
 * ("not in group dts: an administrator adds you with adduser alice dts").
 */
int users_allowed(const struct conf_strlist *l, uid_t uid, gid_t gid,
    const char *name, char *why, size_t whylen);

/* One entry well formed: a user name, "@" and a group name, or "*". */
int users_entry_valid(const char *s, char *why, size_t whylen);

/*
 * An entry of dts.conf's user_weights, "USER:W": a user name and a whole
 * weight from 1 to USERS_WEIGHT_MAX.  0 with the name into user (len
 * bytes at most, NUL included; user may be NULL) and the weight into *w
 * (may be NULL), or -1 with one line in why.
 */
#define USERS_WEIGHT_MAX 100
int users_weight_parse(const char *s, char *user, size_t len, int *w,
    char *why, size_t whylen);

/*
 * The groups of the list that do not exist on this system, into buf
 * ("dts, hpc"; "" if none): for a warning at start-up.  The count.
 */
int users_missing_groups(const struct conf_strlist *l, char *buf,
    size_t len);

#endif /* DTS_USERS_H */
