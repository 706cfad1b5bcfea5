/*
 * proto.h - every datagram DTS sends, on the wire and between dts and dts-load.
 *
 * All multi-byte fields are fixed width and travel in network byte order.
 * A wire datagram is
 *
 *   struct proto_hdr | payload (hdr.length bytes) | tag
 *
 * and the tag covers the header and the payload.  Commands (console ->
 * node) carry an Ed25519 signature (64 bytes) by a console key, named by
 * hdr.key_id; replies (node -> console) an HMAC-SHA256 tag (32 bytes)
 * under the replying node's own key.  doc/protocol.txt has the byte
 * diagram.  The structs below describe the layout; code never sends a
 * struct as is: wire.h's proto_encode() and proto_decode() convert field
 * by field, and proto_seal() and proto_open() add and check the tag.
 * This header holds the wire's types and constants only (as chrony's
 * candm.h does) and depends on no other module but hist.h.
 *
 * Version history (bump PROTO_VERSION whenever the size or meaning of any
 * field or message changes):
 *   1  first version: SCHEDULE, STATUS_REQ, STATUS, LOAD.
 *   2  TRACE_REQ and TRACE: a node's slice edges, for Gantt charts.
 *   3  commands signed (Ed25519, hdr.key_id), replies under per-node
 *      keys; rate drops counted in STATUS; one master per node
 *      (SCHED_F_TAKEOVER, STATUS master).  Not compatible with 2.
 *   4  METRICS_REQ and METRICS: what a node counted since it started,
 *      for Prometheus.  Not compatible with 3.
 *   5  several jobs a node (the gang matrix): SCHEDULE carries the
 *      node's slot table, STATUS lists the node's jobs, JOB_REQ and JOB
 *      carry one job's counters.  Not compatible with 4.
 *      Read requests (auth.h): a STATUS_REQ or JOB_REQ with key_id
 *      AUTH_READ_ID, tagged under a read key, answered under it.
 *      WEIGHT, between a master and standby pair of consoles only: no
 *      node takes it (REJ_TYPE, as an unknown type), and no message a
 *      node sees changed, so the version stays 5.
 *      JOB_MEM_REQ and JOB_MEM: one job's memory (bytes, swap, OOM
 *      kills, reclaimed bytes).  New types, signed requests only; no
 *      message changed, so the version stays 5: a node before them drops
 *      the request (REJ_TYPE), and its console shows no memory.
 *      STATUS's users, ncpu and mem_mib (dts-place(1)): bytes of its
 *      former pad, zero from a node before them (unknown); a console
 *      before them drops a STATUS that has them (REJ_RANGE: the pad was
 *      checked to be zero).  Size unchanged, so the version stays 5.
 *      STATUS's job weights: the high byte of each job's members word
 *      (members saturate at 2^24 - 1), zero from a node before them
 *      (none given); a console before them reads a weighted job's
 *      members as that word (more than 2^24: members all the same).
 *      Size unchanged, so the version stays 5.
 *      SCHEDULE's nheld (held jobs after the slots): a byte of its
 *      former pad, non-zero only while the master holds a job of the
 *      node; a node before it drops such a SCHEDULE (REJ_RANGE) and
 *      keeps its last one.  Size unchanged, so the version stays 5.
 *      STATUS_F_SWAP: a flag bit, which a console before it ignores
 *      (STATUS flags are not range-checked).
 */
#ifndef DTS_PROTO_H
#define DTS_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "hist.h"

#define PROTO_MAGIC     0x44545331u /* "DTS1" */
#define PROTO_VERSION   5
#define PROTO_MAC_LEN   32          /* HMAC-SHA256: node -> console */
#define PROTO_SIG_LEN   64          /* Ed25519: console -> node */
#define PROTO_NAME_LEN  32          /* host name in STATUS, NUL padded */
#define PROTO_MAX_DGRAM 512         /* nothing larger is ever valid */
/*
 * A job's name: "USER:LABEL", the job's user's name and its label
 * (dts-run --job, DTS_JOB, PVM_VMID, or JOB_LABEL_DEFAULT), at most
 * PROTO_JOB_LEN - 1 printable bytes, NUL padded on the wire.  The same
 * job has the same name on every node (job.h checks and builds names).
 */
#define PROTO_JOB_LEN   32
#define PROTO_JOBS_MAX  8           /* jobs a node, slots a SCHEDULE */

/*
 * End markers are named apart from values: X_COUNT is one past the last
 * value of an enum that starts at 0 (a table's size, and v < X_COUNT its
 * range), PROTO_TYPE_LAST the last message type.  Neither is a value that
 * travels.
 */

/* Message types. */
enum proto_type {
	PROTO_SCHEDULE    = 1, /* console -> node: full desired state */
	PROTO_STATUS_REQ  = 2, /* console -> node: send me your status */
	PROTO_STATUS      = 3, /* node -> console: reply to 1 and 2; to the
				  master unasked when a job starts or ends */
	PROTO_LOAD        = 4, /* node -> console: Q crossed the threshold */
	PROTO_TRACE_REQ   = 5, /* console -> node: your slice edges after T */
	PROTO_TRACE       = 6, /* node -> console: <= PROTO_TRACE_MAX edges */
	PROTO_METRICS_REQ = 7, /* console -> node: send me your counters */
	PROTO_METRICS     = 8, /* node -> console: reply to 7 */
	PROTO_JOB_REQ     = 9, /* console -> node: job number i's counters */
	PROTO_JOB         = 10, /* node -> console: reply to 9 */
	PROTO_WEIGHT      = 11, /* console -> its peer console: one weight */
	PROTO_JOB_MEM_REQ = 12, /* console -> node: job number i's memory */
	PROTO_JOB_MEM     = 13, /* node -> console: reply to 12 */
	PROTO_TYPE_LAST   = PROTO_JOB_MEM
};

/* Which types a receiver takes (proto_frame's accept mask). */
#define PROTO_TYPE_BIT(t)   ((t) < 32 ? 1u << (t) : 0u)
#define PROTO_ACCEPT_NODE   (PROTO_TYPE_BIT(PROTO_SCHEDULE) | \
			     PROTO_TYPE_BIT(PROTO_STATUS_REQ) | \
			     PROTO_TYPE_BIT(PROTO_TRACE_REQ) | \
			     PROTO_TYPE_BIT(PROTO_METRICS_REQ) | \
			     PROTO_TYPE_BIT(PROTO_JOB_REQ) | \
			     PROTO_TYPE_BIT(PROTO_JOB_MEM_REQ))
#define PROTO_ACCEPT_CONSOLE (PROTO_TYPE_BIT(PROTO_STATUS) | \
			     PROTO_TYPE_BIT(PROTO_LOAD) | \
			     PROTO_TYPE_BIT(PROTO_TRACE) | \
			     PROTO_TYPE_BIT(PROTO_METRICS) | \
			     PROTO_TYPE_BIT(PROTO_JOB) | \
			     PROTO_TYPE_BIT(PROTO_JOB_MEM))
/* A console from its peer (console.peer_port): the copies, the weights. */
#define PROTO_ACCEPT_PEER   (PROTO_TYPE_BIT(PROTO_SCHEDULE) | \
			     PROTO_TYPE_BIT(PROTO_WEIGHT))

/* Scheduling modes.  BALANCED is STATIC with PS chosen by the console. */
enum proto_mode {
	MODE_OFF         = 0, /* gang at normal priority, never stopped */
	MODE_STATIC      = 1,
	MODE_BALANCED    = 2,
	MODE_DISTRIBUTED = 3,
	MODE_HPDT        = 4, /* gang at RT priority, never stopped */
	MODE_COUNT
};

enum proto_sync {
	SYNC_ARRIVAL = 0, /* PS starts when the datagram arrives */
	SYNC_CLOCK   = 1, /* PS starts at origin + k*IP, CLOCK_REALTIME */
	SYNC_COUNT
};

enum proto_phase {
	PHASE_NONE = 0, /* not slicing: gang runs (hpdt, off, stopped) */
	PHASE_PS   = 1,
	PHASE_LS   = 2,
	PHASE_COUNT
};

/* SCHEDULE flags */
#define SCHED_F_ACTIVE 0x01 /* slice (start); clear = release the gang (stop) */
#define SCHED_F_SYNC   0x02 /* jump to sync_point now */
#define SCHED_F_TAKEOVER 0x04 /* the sender becomes the node's master */
#define SCHED_F_LS_IDLE 0x08 /* ls_policy idle: in LS the gang runs at
				SCHED_IDLE instead of being stopped */
#define SCHED_F_ALL    (SCHED_F_ACTIVE | SCHED_F_SYNC | SCHED_F_TAKEOVER | \
			SCHED_F_LS_IDLE)

/*
 * STATUS flags.  The low two bits are SCHEDULE's with a meaning of their
 * own: SCHED_F_ACTIVE, the node is slicing; STATUS_F_HEARD (the bit of
 * SCHED_F_SYNC), a console's command arrived within silence, so the
 * dead-man switch has not put the node back on its own schedule.
 */
#define STATUS_F_HEARD 0x02 /* a console was heard within silence */
#define STATUS_F_OWN   0x04 /* on its configured schedule (none, or silent) */
#define STATUS_F_YOURS 0x08 /* the receiver of this reply is its master */
#define STATUS_F_LS_IDLE 0x10 /* ls_policy idle in force */
#define STATUS_F_SWAP  0x20 /* a job of the node has pages in swap (its
				last JOB_MEM's swap_bytes > 0: dts(8),
				MEMORY, Room); 0 from a node before it */

/* Why a received datagram was dropped; counted per reason in STATUS. */
enum proto_reject {
	REJ_SHORT = 0,   /* shorter than header + tag */
	REJ_LONG,        /* longer than PROTO_MAX_DGRAM */
	REJ_MAGIC,       /* bad magic or version */
	REJ_TYPE,        /* unknown type, or not accepted by this receiver */
	REJ_LENGTH,      /* payload length wrong for the type */
	REJ_RATE,        /* the source's token bucket was empty */
	REJ_MAC,         /* authentication failed */
	REJ_REPLAY,      /* sequence not newer, or outside the time window */
	REJ_RANGE,       /* a field out of range */
	REJ_MASTER,      /* a SCHEDULE from a console that is not the master */
	REJ_COUNT
};

/* ---- wire layout ---------------------------------------------------- */

struct proto_hdr {
	uint32_t magic;
	uint8_t  version;
	uint8_t  type;
	uint16_t length;   /* payload bytes, without header and tag */
	uint32_t sender;   /* random id chosen by the sender at start */
	uint32_t key_id;   /* commands: the signing console key's id
			      (auth.h); replies: must be zero */
	uint64_t seq;      /* sender's CLOCK_REALTIME in µs, strictly increasing */
};

/*
 * One slot of a PS: job runs at RT from start_us after the PS start for
 * len_us.  The slots of a SCHEDULE do not overlap and end within ps_us;
 * a node runs a slot whose job it does not have (or whose job has no
 * member) with its other jobs (work-conserving), never as LS.
 */
struct proto_slot {
	char     job[PROTO_JOB_LEN];  /* NUL padded; "" in unused slots */
	uint32_t start_us;   /* from the PS start */
	uint32_t len_us;
};

struct proto_schedule {
	uint8_t  mode;       /* enum proto_mode */
	uint8_t  sync;       /* enum proto_sync */
	uint8_t  flags;      /* SCHED_F_* */
	uint8_t  reserved;
	uint32_t ps_us;      /* parallel slice */
	uint32_t ip_us;      /* iteration period; LS = IP - PS */
	uint32_t si_us;      /* synchronization interval (informational) */
	uint64_t origin_ns;  /* SYNC_CLOCK: a PS start, CLOCK_REALTIME */
	/* v5: the slot table of this node's jobs; nslots 0: the node splits
	 * its PS equally among its own jobs, round robin */
	uint8_t  nslots;     /* <= PROTO_JOBS_MAX; the rest zero */
	/* v5, held jobs (dts(8), MEMORY): slot[nslots .. nslots + nheld)
	 * name jobs that stay stopped in the PS as in the LS (start_us and
	 * len_us zero); nslots + nheld <= PROTO_JOBS_MAX */
	uint8_t  nheld;
	uint8_t  pad[6];     /* zero */
	struct proto_slot slot[PROTO_JOBS_MAX];
};

struct proto_status_req {
	uint8_t  pad[424];   /* a request is never smaller than its reply */
};

/*
 * A job of a node, in STATUS.  On the wire members and weight share one
 * 32-bit word: weight in its high byte.
 */
#define PROTO_MEMBERS_MAX 0xffffffu /* members saturate here */
struct proto_job_brief {
	char     job[PROTO_JOB_LEN];
	uint32_t members : 24; /* processes in its gang */
	uint32_t weight : 8; /* its weight as its adoption gave it (dts(8),
				adopt_msg.h WEIGHT), 1 to
				PROTO_WEIGHT_JOB_MAX; 0: none given */
};

struct proto_status {
	uint8_t  mode;
	uint8_t  sync;
	uint8_t  flags;      /* SCHED_F_ACTIVE if slicing */
	uint8_t  phase;      /* enum proto_phase */
	uint32_t ps_us;
	uint32_t ip_us;
	uint32_t si_us;
	uint32_t load_milli; /* smoothed load index Q * 1000 */
	uint32_t members;    /* processes in the gang */
	uint64_t slices;     /* PS starts since dts started */
	uint64_t overruns;   /* slice edges skipped because of late wake-ups */
	uint64_t last_ps_ns; /* last PS start, CLOCK_REALTIME */
	uint32_t rejected[REJ_COUNT];
	uint32_t queue_full; /* checked commands or replies dropped: a queue
				between dts's threads was full */
	uint32_t master;     /* IPv4 address of its master (a host-order
				integer, as every field), 0 if none */
	char     name[PROTO_NAME_LEN];
	/* v5: the node's jobs (members: every job's together) */
	uint8_t  njobs;      /* <= PROTO_JOBS_MAX; the rest zero */
	/* v5, the host facts for placement (dts-place(1)); 0 = unknown */
	uint8_t  users;      /* logged-in users (utmp), saturated at 255 */
	uint8_t  ncpu;       /* online CPUs, saturated at 255 */
	uint8_t  pad;
	uint32_t mem_mib;    /* free RAM (MemAvailable, or the room left in
				dts's memory cgroup if less), MiB, >= 1 */
	struct proto_job_brief job[PROTO_JOBS_MAX];
};

struct proto_load {
	uint32_t load_milli; /* Q * 1000 */
	uint32_t ncpu;       /* online CPUs the index was divided by (1 if not) */
};

#define PROTO_TRACE_MAX 16   /* edges per TRACE datagram */

struct proto_edge {
	uint64_t real_ns;    /* CLOCK_REALTIME when the gang op was done */
	uint32_t late_ns;    /* wake-up after the deadline (saturated) */
	uint32_t op_ns;      /* the gang operation (saturated) */
	uint8_t  phase;      /* PHASE_PS or PHASE_LS: what began, or
	                        TRACE_SLOT: a slot edge inside the PS */
	uint8_t  pad[3];
};
#define TRACE_SLOT 3         /* proto_edge.phase: another job's slot began */

struct proto_trace_req {
	uint64_t since_ns;   /* edges after this CLOCK_REALTIME instant */
	uint8_t  pad[8 + 20 * PROTO_TRACE_MAX - 8]; /* never smaller than TRACE */
};

struct proto_trace {
	uint32_t count;      /* edges that follow, <= PROTO_TRACE_MAX */
	uint32_t more;       /* 1 if the node has more after these */
	struct proto_edge edge[PROTO_TRACE_MAX];
};

/*
 * What a node counted since dts started, for Prometheus (dts-console's
 * `metrics`).  Times are CLOCK_MONOTONIC ns; ps_us to members and flags
 * as in STATUS.  The u32 counters wrap.
 */
struct proto_metrics {
	uint64_t uptime_ns;  /* since dts started */
	uint64_t slices;     /* as STATUS */
	uint64_t overruns;   /* as STATUS */
	uint64_t ps_ns;      /* slicing, in PS */
	uint64_t ls_ns;      /* slicing, in LS */
	uint64_t stopped_ns; /* the gang stopped or frozen, for any reason */
	uint64_t gang_cpu_ns; /* CPU time the gang cgroup's processes got
				(its cpu.stat usage_usec * 1000); 0 if
				unknown */
	uint8_t  mode;
	uint8_t  phase;
	uint8_t  flags;      /* STATUS's */
	uint8_t  reserved;
	uint32_t ps_us;      /* in force: DISTRIBUTED, the node's own */
	uint32_t ip_us;
	uint32_t load_milli;
	uint32_t members;
	uint32_t failsafe;   /* times dts-load released the gang */
	uint32_t master_changes; /* times a console became the master */
	uint32_t queue_full; /* as STATUS */
	uint32_t rejected[REJ_COUNT];
	struct hist late;    /* slice edges: wake-up after the deadline */
	struct hist op;      /* slice edges: the gang operation */
	char     name[PROTO_NAME_LEN];
};

struct proto_metrics_req {
	uint8_t  pad[272];   /* a request is never smaller than its reply */
};

/*
 * v5: one job's counters (the `job` label of dts-console's metrics).
 * A console asks for index 0, 1, ... until index >= count.  Times are
 * CLOCK_MONOTONIC ns since the job's gang was made on this node.
 */
struct proto_job_req {
	uint32_t index;
	uint8_t  pad[68];    /* a request is never smaller than its reply */
};

struct proto_job {
	uint32_t index;      /* as asked */
	uint32_t count;      /* the node's jobs now; index >= count: none */
	char     job[PROTO_JOB_LEN];  /* "" if none */
	uint64_t slot_ns;    /* in its slots (PS time it was given) */
	uint64_t stopped_ns; /* stopped or frozen */
	uint64_t cpu_ns;     /* its cgroup's cpu.stat usage_usec * 1000 */
	uint32_t members;
	uint32_t running;    /* 1 if it runs at RT now */
};

/*
 * One job's memory (dts(8), MEMORY), index and count as in JOB: what its
 * memory cgroup holds (page cache included) and has in swap, the OOM
 * kills of its own limit, and the bytes dts reclaimed from it while it
 * was parked, as of dts's last look (once a second).  A node without a
 * memory controller sends zeros.
 */
struct proto_job_mem_req {
	uint32_t index;
	uint8_t  pad[68];    /* zero; never smaller than its reply */
};

struct proto_job_mem {
	uint32_t index;
	uint32_t count;
	char     job[PROTO_JOB_LEN];  /* "" if none */
	uint64_t mem_bytes;
	uint64_t swap_bytes;
	uint64_t oom_kills;
	uint64_t reclaimed_bytes;
};

/*
 * WEIGHT: one entry of the snapshot of a master console's weights, to
 * its standby (standby.h): the hosts' power weights (`set weight HOST
 * W`, BALANCED's RLA) and the jobs' weights (`set weight JOB W`, the gang
 * matrix).  A snapshot is count datagrams of one gen, entry index each;
 * the master bumps gen whenever either table changes.  count 0: both
 * tables are empty, and the one datagram (index 0) carries no entry:
 * kind, weight and name zero.  Weights are fixed point, in millionths
 * (PROTO_WEIGHT_UNIT): a host's in (0, PROTO_WEIGHT_HOST_MAX], a job's
 * a whole 1 .. PROTO_WEIGHT_JOB_MAX.
 */
#define PROTO_WEIGHT_NAME_LEN 64    /* a host name or a job name */
#define PROTO_WEIGHT_UNIT     1000000u
#define PROTO_WEIGHT_HOST_MAX 1000  /* the console's WEIGHT_MAX */
#define PROTO_WEIGHT_JOB_MAX  100   /* the console's MATRIX_WEIGHT_MAX */
#define PROTO_WEIGHTS_MAX     128   /* entries: 64 hosts' and 64 jobs' */

enum proto_weight_kind {
	WEIGHT_KIND_NONE = 0,	/* count 0: no entry */
	WEIGHT_KIND_HOST = 1,
	WEIGHT_KIND_JOB  = 2,
	WEIGHT_KIND_COUNT
};

struct proto_weight {
	uint32_t gen;
	uint16_t index;      /* < count, or 0 if count is 0 */
	uint16_t count;      /* <= PROTO_WEIGHTS_MAX */
	uint8_t  kind;       /* enum proto_weight_kind */
	uint8_t  pad[3];     /* zero */
	uint32_t weight;     /* millionths */
	char     name[PROTO_WEIGHT_NAME_LEN]; /* NUL terminated and padded */
};

/* Sizes on the wire: checked so a change cannot go unnoticed. */
#define PROTO_HDR_LEN        24
#define PROTO_SLOT_LEN       40
#define PROTO_SCHEDULE_LEN   (24 + 8 + PROTO_SLOT_LEN * PROTO_JOBS_MAX)
#define PROTO_JOB_BRIEF_LEN  36
#define PROTO_STATUS_LEN     (128 + 8 + PROTO_JOB_BRIEF_LEN * PROTO_JOBS_MAX)
#define PROTO_STATUS_REQ_LEN PROTO_STATUS_LEN
#define PROTO_JOB_LEN_WIRE   72
#define PROTO_JOB_REQ_LEN    PROTO_JOB_LEN_WIRE
#define PROTO_JOB_MEM_LEN    72
#define PROTO_JOB_MEM_REQ_LEN PROTO_JOB_MEM_LEN
#define PROTO_LOAD_LEN       8
#define PROTO_EDGE_LEN       20   /* on the wire: no padding after pad[3] */
#define PROTO_TRACE_LEN      (8 + PROTO_EDGE_LEN * PROTO_TRACE_MAX)
#define PROTO_TRACE_REQ_LEN  PROTO_TRACE_LEN
#define PROTO_HIST_LEN       (4 * HIST_BUCKETS + 8)
#define PROTO_METRICS_LEN    272
#define PROTO_METRICS_REQ_LEN PROTO_METRICS_LEN
#define PROTO_WEIGHT_LEN     (16 + PROTO_WEIGHT_NAME_LEN)

_Static_assert(sizeof(struct proto_hdr) == PROTO_HDR_LEN, "hdr size");
_Static_assert(offsetof(struct proto_hdr, seq) == 16, "hdr layout");
_Static_assert(sizeof(struct proto_schedule) == PROTO_SCHEDULE_LEN,
    "schedule size");
_Static_assert(offsetof(struct proto_schedule, origin_ns) == 16,
    "schedule layout");
_Static_assert(sizeof(struct proto_status) == PROTO_STATUS_LEN, "status size");
_Static_assert(offsetof(struct proto_status, rejected) == 48, "status layout");
_Static_assert(offsetof(struct proto_status, job) == 136, "status layout");
_Static_assert(sizeof(struct proto_slot) == PROTO_SLOT_LEN, "slot size");
_Static_assert(offsetof(struct proto_schedule, slot) == 32, "schedule layout");
_Static_assert(sizeof(struct proto_job_brief) == PROTO_JOB_BRIEF_LEN,
    "job brief size");
_Static_assert(sizeof(struct proto_job) == PROTO_JOB_LEN_WIRE, "job size");
_Static_assert(sizeof(struct proto_job_req) == PROTO_JOB_REQ_LEN,
    "job_req size");
_Static_assert(sizeof(struct proto_job_mem) == PROTO_JOB_MEM_LEN,
    "job_mem size");
_Static_assert(offsetof(struct proto_job_mem, mem_bytes) == 40,
    "job_mem layout");
_Static_assert(sizeof(struct proto_job_mem_req) == PROTO_JOB_MEM_REQ_LEN,
    "job_mem_req size");
_Static_assert(PROTO_JOB_MEM_REQ_LEN >= PROTO_JOB_MEM_LEN,
    "no amplification");
_Static_assert(PROTO_HDR_LEN + PROTO_STATUS_REQ_LEN + PROTO_SIG_LEN <=
    PROTO_MAX_DGRAM, "the status request fits");
_Static_assert(PROTO_HDR_LEN + PROTO_SCHEDULE_LEN + PROTO_SIG_LEN <=
    PROTO_MAX_DGRAM, "the schedule fits");
_Static_assert(sizeof(struct proto_status_req) == PROTO_STATUS_REQ_LEN,
    "status_req size");
_Static_assert(PROTO_STATUS_REQ_LEN >= PROTO_STATUS_LEN, "no amplification");
_Static_assert(sizeof(struct proto_load) == PROTO_LOAD_LEN, "load size");
_Static_assert(sizeof(struct proto_trace_req) == PROTO_TRACE_REQ_LEN,
    "trace_req size");
_Static_assert(PROTO_TRACE_REQ_LEN >= PROTO_TRACE_LEN, "no amplification");
_Static_assert(sizeof(struct hist) == PROTO_HIST_LEN, "hist size");
_Static_assert(sizeof(struct proto_metrics) == PROTO_METRICS_LEN,
    "metrics size");
_Static_assert(offsetof(struct proto_metrics, rejected) == 88,
    "metrics layout");
_Static_assert(offsetof(struct proto_metrics, name) == 88 + 4 * REJ_COUNT +
    2 * PROTO_HIST_LEN, "metrics layout");
_Static_assert(sizeof(struct proto_metrics_req) == PROTO_METRICS_REQ_LEN,
    "metrics_req size");
_Static_assert(PROTO_METRICS_REQ_LEN >= PROTO_METRICS_LEN,
    "no amplification");
_Static_assert(PROTO_HDR_LEN + PROTO_TRACE_REQ_LEN + PROTO_SIG_LEN <=
    PROTO_MAX_DGRAM, "the largest datagram fits");
_Static_assert(PROTO_HDR_LEN + PROTO_METRICS_REQ_LEN + PROTO_SIG_LEN <=
    PROTO_MAX_DGRAM, "the metrics request fits");
_Static_assert(sizeof(struct proto_weight) == PROTO_WEIGHT_LEN,
    "weight size");
_Static_assert(offsetof(struct proto_weight, name) == 16, "weight layout");
_Static_assert(PROTO_WEIGHT_NAME_LEN >= PROTO_JOB_LEN, "a job name fits");
_Static_assert((uint64_t)PROTO_WEIGHT_HOST_MAX * PROTO_WEIGHT_UNIT <=
    UINT32_MAX, "the heaviest weight fits");

/* A decoded datagram, in host order. */
struct proto_msg {
	struct proto_hdr hdr;
	union {
		struct proto_schedule   schedule;
		struct proto_status     status;
		struct proto_load       load;
		struct proto_trace_req  trace_req;
		struct proto_trace      trace;
		struct proto_metrics    metrics;
		struct proto_job_req    job_req;
		struct proto_job        job;
		struct proto_weight     weight;
		struct proto_job_mem_req job_mem_req;
		struct proto_job_mem    job_mem;
	} u;
};

/* Payload length a type must have, or -1 for an unknown type. */
int proto_payload_len(unsigned type);

/* 1 for the types a console sends, signed (SCHEDULE, the *_REQ and
 * WEIGHT). */
int proto_is_command(unsigned type);

/* Tag length of a type: PROTO_SIG_LEN for commands, else PROTO_MAC_LEN. */
size_t proto_tag_len(unsigned type);

/* METRICS's fields that are STATUS's (counters, mode, phase, flags, PS,
 * IP, load, members), from st: a node fills both from one status. */
void proto_metrics_of_status(struct proto_metrics *p,
    const struct proto_status *st);

/*
 * The one name table of each enum above (names.h): dts.conf's mode and
 * sync, the console and every message use these.  _name() is "?" for a
 * value out of range; _parse() takes any case and is -1 if unknown.
 */
extern const char *const proto_mode_names[MODE_COUNT + 1];
extern const char *const proto_sync_names[SYNC_COUNT + 1];
extern const char *const proto_phase_names[PHASE_COUNT + 1];
extern const char *const proto_reject_names[REJ_COUNT + 1];

const char *proto_mode_name(unsigned mode);
int proto_mode_parse(const char *s);
const char *proto_sync_name(unsigned sync);
int proto_sync_parse(const char *s);
const char *proto_phase_name(unsigned phase);
/* A TRACE edge's phase: PS, LS, or slot (TRACE_SLOT). */
const char *proto_edge_name(unsigned phase);
const char *proto_reject_name(unsigned why);

/* ---- dts <-> dts-load (SOCK_SEQPACKET socketpair, host order) ------- */

/* dts-load -> dts: a new load index every LI. */
struct agent_report {
	uint32_t magic;      /* AGENT_MAGIC, or AGENT_MAGIC_RELEASED */
	uint32_t load_milli; /* Q * 1000 */
	uint32_t q_milli;    /* this interval's mean run-queue sample * 1000 */
	uint32_t ls_pct;     /* Table 2.1 for Q (DISTRIBUTED mode) */
	uint32_t notify;     /* 1 if |Q - Q_last_reported| >= threshold */
	uint32_t samples;    /* samples that went into q */
};
#define AGENT_MAGIC          0x4c4f4144u /* "LOAD" */
/* dts-load -> dts: dts missed its edges, so the agent released the gang
 * (continued, SCHED_OTHER); dts must apply its phase again.  No fields. */
#define AGENT_MAGIC_RELEASED 0x52454c53u /* "RELS" */

#define AGENT_GANG_MAX 256   /* the gang cgroup's path, NUL included */

/*
 * Shared page (memfd, mapped read-only by dts-load): dts writes, dts-load
 * reads.  Plain stores by dts on the slice-edge path; no system call.
 * beat_ns is the liveness the fail-safe watches: while active, dts-load
 * releases the gang when beat_ns is older than limit_ns.
 */
struct agent_shared {
	volatile int64_t  beat_ns;  /* CLOCK_MONOTONIC of dts's last slice edge */
	volatile int64_t  limit_ns; /* max(2 IP, 50 ms) while slicing */
	volatile uint32_t phase;    /* enum proto_phase */
	volatile uint32_t mode;     /* enum proto_mode */
	volatile uint32_t active;   /* 1 while slicing */
	volatile uint32_t ls_idle;  /* LS runs the gang at SCHED_IDLE */
	char     gang[AGENT_GANG_MAX]; /* the gang cgroup directory */
};

#endif /* DTS_PROTO_H */
