/*
 * hostfile.h - MPI host files, for the console's `hosts FILE`: the nodes
 * of an MPI job (or of any other gang) that the console drives.
 *
 * One host a line, in either launcher's format:
 *
 *   node1 slots=4          Open MPI (also max_slots=N, count=N, cpu=N;
 *   node2                    max-slots, slots_max, slots-max)
 *   node3:2                MPICH (hydra): host:N
 *   # a comment            from # to the end of the line, anywhere
 *
 * Blank lines are skipped; a host named twice is one host (its slots
 * add up, as Open MPI counts them).  A host is a name ([A-Za-z0-9._-],
 * starting with a letter or digit) or an IPv4 address.  Anything else is
 * an error naming the file and the line; a file with an error, or
 * without a host, changes nothing.
 */
#ifndef DTS_CONSOLE_HOSTFILE_H
#define DTS_CONSOLE_HOSTFILE_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>

#include "nodes.h"

#define HOSTFILE_SLOTS_MAX 1000000
#define HOSTFILE_LINE_MAX  1024
#define HOSTFILE_PATH_MAX  512

struct hostfile_host {
	char		 name[HOST_NAME_MAX_];
	int		 slots;		/* 0: not given */
	struct in_addr	 addr;
	int		 line;		/* where it first appeared */
};

struct hostfile {
	char		 path[HOSTFILE_PATH_MAX];	/* "" if none read */
	int		 n;
	struct hostfile_host v[NODES_MAX];
};

/*
 * Resolve name to an IPv4 address: 0, or -1 with a reason (at most
 * errlen bytes) in err.  hostfile_resolve is the real one (getaddrinfo).
 */
typedef int (*hostfile_resolver)(const char *name, struct in_addr *out,
    char *err, size_t errlen);
int hostfile_resolve(const char *name, struct in_addr *out, char *err,
    size_t errlen);

/*
 * One line: 1 with the host's name and slots (0 if none given), 0 for a
 * blank or comment line, -1 with a reason in err.
 */
int hostfile_parse_line(const char *line, char *name, size_t namelen,
    int *slots, char *err, size_t errlen);

/*
 * Read a whole file from f (named path in messages) into *hf, resolving
 * each host with resolve: 0, or -1 with "PATH:LINE: reason" (or "PATH:
 * reason") in err and *hf unchanged.
 */
int hostfile_read(FILE *f, const char *path, hostfile_resolver resolve,
    struct hostfile *hf, char *err, size_t errlen);

/* hostfile_read on the file at path. */
int hostfile_load(const char *path, hostfile_resolver resolve,
    struct hostfile *hf, char *err, size_t errlen);

#endif /* DTS_CONSOLE_HOSTFILE_H */
