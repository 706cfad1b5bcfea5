/*
 * conf_nodes.h - console.nodes: the console's destinations, each entry an
 * IPv4 address ("10.0.0.1"), a range in CIDR notation ("10.1.0.0/20":
 * its hosts, without the network and broadcast addresses unless /31 or
 * /32), or a node file ("@/etc/dts/nodes": one address or range a line,
 * "#" starts a comment).  dts.conf checks the entries' form; the console
 * reads the files and expands everything when it starts.
 */
#ifndef DTS_CONF_NODES_H
#define DTS_CONF_NODES_H

#include <netinet/in.h>
#include <stddef.h>

#include "conf.h"

#define CONF_NODES_MAX 16384	/* addresses, all entries together */

/* One entry's form (a file is not read).  0, or -1 with a reason. */
int confnodes_entry_valid(const char *s, char *why, size_t len);

/*
 * Every address of the list, in its order, into out (room for cap).
 * The count, or -1 with a one-line reason: a file that cannot be read, a
 * bad line (its file and number), an address named twice, more than cap.
 */
int confnodes_expand(const struct conf_strlist *l, struct in_addr *out,
    int cap, char *why, size_t len);

#endif /* DTS_CONF_NODES_H */
