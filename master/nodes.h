/*
 * nodes.h - what the console knows about every node (a dts that has
 * answered), keyed by IPv4 address, and the cached PVM host table.
 *
 * A node is live while it was heard within the timeout; a silent node
 * stays in the table (status shows when it was last heard) but leaves the
 * RLA until it is heard again.  Times are CLOCK_MONOTONIC ns passed in by
 * the caller, so tests can inject them.
 */
#ifndef DTS_MASTER_NODES_H
#define DTS_MASTER_NODES_H

#include <netinet/in.h>
#include <stdint.h>

#include "proto.h"

/*
 * NODES_MAX bounds the small tables: PVM's hosts, a host file, a trace
 * round.  The node table itself grows as nodes answer, up to
 * NODES_TABLE_MAX (console.nodes can name that many; see net.h).
 */
#define NODES_MAX       256
#define NODES_TABLE_MAX 16384
#define HOST_NAME_MAX_  64

/*
 * A job's memory on a node, from its last JOB_MEM (any round: `jobs`,
 * metrics, or a master's room, nodes_mem_note), and whether the node
 * lacks room for it: its free RAM (STATUS mem_mib) under what the job
 * has in swap there plus console.resume_reserve (dts(8), MEMORY).
 */
struct node_mem {
	char		 job[PROTO_JOB_LEN];	/* "": a free entry */
	uint64_t	 mem_bytes, swap_bytes;
	int64_t		 at;			/* its arrival */
	int		 lack;
};

struct node {
	struct in_addr	 addr;
	char		 name[PROTO_NAME_LEN];	/* from STATUS, "" until then */
	struct proto_status st;			/* last STATUS */
	int		 have_status;
	double		 q;			/* latest load index */
	int		 have_q;
	int64_t		 heard;			/* last datagram */
	int64_t		 status_at;		/* last STATUS */
	struct proto_metrics met;		/* last METRICS */
	int64_t		 metrics_at;		/* its arrival, 0: none */
	struct proto_job jobs[PROTO_JOBS_MAX];	/* JOB replies of the */
	int		 njobs;			/* ... metrics round at */
	int64_t		 jobs_at;		/* ... jobs_at (its METRICS) */
	struct proto_job_mem mem[PROTO_JOBS_MAX]; /* JOB_MEM replies: */
	unsigned	 mem_ok;		/* ... bit i: mem[i] is jobs[i]'s */
	unsigned	 mem_asked;	/* ... bit i: JOB_MEM_REQ i sent */
	struct node_mem	 jm[PROTO_JOBS_MAX];	/* every JOB_MEM, by job */
	int64_t		 jm_asked;		/* room's JOB_MEM_REQs sent */
	int		 sent_nslots;		/* the slot table last sent */
	struct proto_slot sent[PROTO_JOBS_MAX];	/* ... to it (master.c) */
};

/* Zeroed: empty.  v is allocated by nodes_get, freed by nodes_free. */
struct nodes {
	int		 n, cap;
	struct node	*v;			/* sorted by address */
};

/* A host of the PVM virtual machine, as pvm_config gave it. */
struct vm_host {
	char		 name[HOST_NAME_MAX_];
	char		 arch[16];
	int		 tid;
	int		 speed;
	struct in_addr	 addr;
	int		 have_addr;
};

struct vm_hosts {
	int		 n;
	struct vm_host	 v[NODES_MAX];
};

/*
 * The node at addr, added if new (NULL if the table is full or out of
 * memory).  A binary search: a round of N replies costs N log N, not N².
 * Adding a node may move the table: a node pointer is good until the
 * next nodes_get (and nodes_status, _load, _metrics, _job).
 */
struct node *nodes_get(struct nodes *ns, struct in_addr addr);

/* The node at addr or NULL, never added. */
struct node *nodes_find(const struct nodes *ns, struct in_addr addr);

/* Its index in ns->v, or -1. */
int nodes_index(const struct nodes *ns, struct in_addr addr);

void nodes_free(struct nodes *ns);

/* Record a STATUS or a LOAD from addr at now. */
struct node *nodes_status(struct nodes *ns, struct in_addr addr,
    const struct proto_status *st, int64_t now);
struct node *nodes_load(struct nodes *ns, struct in_addr addr,
    const struct proto_load *l, int64_t now);

/* Record a METRICS from addr at now: its counters, and the node's name
 * and Q as a STATUS gives them. */
struct node *nodes_metrics(struct nodes *ns, struct in_addr addr,
    const struct proto_metrics *m, int64_t now);

/*
 * Record a JOB from addr (a reply in the metrics round that began with
 * its METRICS): job number index of count.  Returns the index to ask for
 * next, or -1 when the node has no more (or the reply is out of range).
 */
int nodes_job(struct nodes *ns, struct in_addr addr,
    const struct proto_job *j, int64_t now);

/*
 * After nodes_job: 1 if j is the JOB recorded for its index and its
 * memory was not asked yet in this round (then marked asked), else 0.
 */
int nodes_job_mem_due(struct nodes *ns, struct in_addr addr,
    const struct proto_job *j);

/*
 * Record a JOB_MEM from addr in the same round: kept if it names the job
 * of the JOB of its index.  0, or -1 (dropped).
 */
int nodes_job_mem(struct nodes *ns, struct in_addr addr,
    const struct proto_job_mem *j, int64_t now);

/*
 * Room (dts(8), MEMORY): a node lacks room for a job it has something
 * of in swap while its free RAM is under that swap plus reserve bytes;
 * a node that gives no free RAM (mem_mib 0) or no JOB_MEM never lacks.
 */
int nodes_lacks(const struct node *n, const struct node_mem *m,
    uint64_t reserve);

/*
 * Record a JOB_MEM from addr (any round) under its job's name: the
 * entry of that name, else a free or the oldest one.  1 if the node's
 * room for that job changed (nodes_lacks), else 0; -1: dropped (no
 * name, or the table is full).
 */
int nodes_mem_note(struct nodes *ns, struct in_addr addr,
    const struct proto_job_mem *j, uint64_t reserve, int64_t now);

/* After a STATUS (its mem_mib): each entry's room again, with no swap
 * if the STATUS says none of its jobs has any (no STATUS_F_SWAP); 1 if
 * one changed. */
int nodes_room(struct node *n, uint64_t reserve);

/* The entry of job on n, or NULL. */
const struct node_mem *nodes_mem_of(const struct node *n, const char *job);

/* Heard within timeout of now. */
int nodes_live(const struct node *n, int64_t now, int64_t timeout);

/* The earliest moment after now at which a live node times out, or 0. */
int64_t nodes_next_expiry(const struct nodes *ns, int64_t now,
    int64_t timeout);

/*
 * Skew of a PS start t against a reference PS start ref on a grid of ip:
 * (t - ref) modulo ip, mapped into (-ip/2, ip/2].
 */
int64_t nodes_skew(int64_t t, int64_t ref, int64_t ip);

/*
 * The reference for skews among the nodes that answered since `since`:
 * the lowest address with a PS start; NULL if none.
 */
const struct node *nodes_reference(const struct nodes *ns, int64_t since);

/* Does the PVM host h stand for node n (same name, short name or address)? */
int nodes_host_match(const struct node *n, const struct vm_host *h);

/* "vm.example.org" and "vm" are the same host. */
int nodes_name_match(const char *a, const char *b);

#endif /* DTS_MASTER_NODES_H */
