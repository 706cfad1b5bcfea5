/*
 * conf_schema.c - the dts.conf schema: every key with its type, range,
 * default, unit and help text, and what each key accepts (range, lists,
 * validators).
 *
 * To add a key: one entry in confkey_schema[], a field in struct dts_conf,
 * a paragraph in dts.conf(5).  A new group ("console.timeout") needs nothing
 * more: groups are the prefixes of the paths in the table, and conf_print()
 * writes consecutive keys of one group as one "group = { ... };" block.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adopt_msg.h"
#include "auth.h"
#include "conf_nodes.h"
#include "conf_schema.h"
#include "log.h"
#include "memsize.h"
#include "names.h"
#include "proto.h"
#include "rules.h"
#include "timeutil.h"
#include "users.h"

#ifndef SYSCONFDIR
#define SYSCONFDIR "/usr/local/etc"
#endif
#ifndef PVMD_PATH
#define PVMD_PATH "/usr/bin/pvmd"
#endif
#ifndef PKGLIBEXECDIR
#define PKGLIBEXECDIR "/usr/local/libexec/dts"
#endif

#define OFF(f)	offsetof(struct dts_conf, f)
#define US(x)	((double)(x) * NS_PER_US)
#define MS(x)	((double)(x) * NS_PER_MS)
#define SEC(x)	((double)(x) * NS_PER_SEC)

const char *const conf_backend_names[] = {
	[BACKEND_SIGNAL] = "signal", [BACKEND_FREEZER] = "freezer", NULL
};
const char *const conf_rla_names[] = {
	[RLA_MEAN] = "mean", [RLA_MAX] = "max", NULL
};
const char *const conf_ls_policy_names[] = {
	[LS_STOP] = "stop", [LS_IDLE] = "idle", NULL
};
const char *const conf_no_service_names[] = {
	[NO_SERVICE_RUN] = "run", [NO_SERVICE_REFUSE] = "refuse", NULL
};
const char *const conf_share_names[] = {
	[SHARE_USER] = "user", [SHARE_JOB] = "job", NULL
};

static int valid_ipv4(const void *, char *, size_t);
static int valid_group(const void *, char *, size_t);
static int valid_group_name(const void *, char *, size_t);
static int valid_ipv4_or_empty(const void *, char *, size_t);
static int valid_node_entry(const void *, char *, size_t);
static int valid_path(const void *, char *, size_t);
static int valid_path_or_empty(const void *, char *, size_t);
static int valid_peer(const void *, char *, size_t);
static int valid_rt_priority(const void *, char *, size_t);
static int valid_home_path(const void *, char *, size_t);
static int valid_users_entry(const void *, char *, size_t);
static int valid_user_weight(const void *, char *, size_t);
static int valid_public_key(const void *, char *, size_t);
static int valid_cgroup(const void *, char *, size_t);
static int valid_memsize(const void *, char *, size_t);
static int valid_size(const void *, char *, size_t);
static int valid_path_or_auto(const void *, char *, size_t);

const struct conf_key confkey_schema[] = {
	{ .path = "mode", .type = CT_ENUM, .def = "static", .off = OFF(mode),
	  .names = proto_mode_names,
	  .help = "schedule used until a console speaks" },
	{ .path = "ip", .type = CT_DURATION, .min = RULE_IP_MIN,
	  .max = RULE_IP_MAX,
	  .def = "100ms", .unit = "s", .off = OFF(ip_ns),
	  .help = "iteration period IP = PS + LS" },
	{ .path = "ps", .type = CT_SLICE, .min = RULE_PS_MIN,
	  .max = RULE_IP_MAX,
	  .def = "80%", .unit = "s or %", .off = OFF(ps_ns),
	  .off2 = OFF(ps_pct_milli),
	  .help = "parallel slice: a duration, or a share of ip" },
	{ .path = "si", .type = CT_DURATION, .min = RULE_SI_MIN,
	  .max = RULE_SI_MAX,
	  .def = "10s", .unit = "s", .off = OFF(si_ns),
	  .help = "synchronization interval (console)" },
	{ .path = "sync", .type = CT_ENUM, .def = "arrival", .off = OFF(sync),
	  .names = proto_sync_names,
	  .help = "PS starts when a datagram arrives, or on the clock" },
	{ .path = "ls_policy", .type = CT_ENUM, .def = "stop",
	  .off = OFF(ls_policy), .names = conf_ls_policy_names,
	  .help = "LS: stop the gang, or run it at SCHED_IDLE (idle CPU "
	  "goes to the parallel job)" },
	{ .path = "silence", .type = CT_DURATION, .min = 0,
	  .max = SEC(3600), .def = "0", .unit = "s", .off = OFF(silence_ns),
	  .help = "no command from the console this long: back to this "
	  "file's schedule (dead-man switch); 0 = 3 SI of the console's" },
	{ .path = "port", .type = CT_INT, .min = 1, .max = 65535,
	  .def = "476", .off = OFF(port), .help = "UDP control port" },
	{ .path = "bind", .type = CT_STRING, .def = "0.0.0.0", .off = OFF(bind),
	  .valid = valid_ipv4, .help = "IPv4 address of the control socket" },
	{ .path = "group", .type = CT_STRING, .def = "", .off = OFF(group),
	  .valid = valid_group, .help = "IPv4 multicast group the control "
	  "socket joins (the console's console.group); \"\" = none" },
	{ .path = "key_file", .type = CT_STRING, .def = SYSCONFDIR
	  "/dts/dts.key", .off = OFF(key_file), .valid = valid_path,
	  .help = "this node's own key, which authenticates its replies: 64 "
	  "hex digits, mode 0600 (dts-console -N ADDRESS)" },
	{ .path = "console_keys", .type = CT_STRLIST, .def = "",
	  .off = OFF(console_keys), .valid = valid_public_key,
	  .help = "public keys of the consoles whose signed commands this "
	  "node obeys (dts-console -k); two while they change" },
	{ .path = "read_requests", .type = CT_BOOL, .def = "true",
	  .off = OFF(read_requests),
	  .help = "answer status and jobs read requests, which any local "
	  "user of a cluster host can make (dts(8) SECURITY)" },
	{ .path = "insecure", .type = CT_BOOL, .def = "false",
	  .off = OFF(insecure),
	  .help = "run without a key (datagrams unauthenticated)" },
	{ .path = "replay_window", .type = CT_DURATION, .min = SEC(1),
	  .max = SEC(3600), .def = "30s", .unit = "s",
	  .off = OFF(replay_window_ns),
	  .help = "accept datagrams stamped at most this far from our clock" },
	{ .path = "pvmd", .type = CT_STRING, .def = "auto", .off = OFF(pvmd),
	  .valid = valid_path_or_auto,
	  .help = "the real pvmd; \"auto\" = " PVMD_PATH ".real if the "
	  "PVM hook moved it there, else " PVMD_PATH },
	{ .path = "load_agent", .type = CT_STRING, .def = PKGLIBEXECDIR
	  "/dts-load", .off = OFF(load_agent), .valid = valid_path,
	  .help = "the Load agent" },
	{ .path = "users", .type = CT_STRLIST, .def = USERS_DEFAULT,
	  .off = OFF(users), .valid = valid_users_entry,
	  .help = "who may start a gang here besides root: user names, "
	  "\"@group\" (its members), \"*\" (every user); [] = root only" },
	{ .path = "max_jobs", .type = CT_INT, .min = 1,
	  .max = PROTO_JOBS_MAX, .def = "8", .off = OFF(max_jobs),
	  .help = "jobs (one gang each) this node runs at once; a new job "
	  "beyond them is refused" },
	{ .path = "max_jobs_user", .type = CT_INT, .min = 0,
	  .max = PROTO_JOBS_MAX, .def = "0", .off = OFF(max_jobs_user),
	  .help = "of them, one user's jobs at most; 0 = half of max_jobs, "
	  "rounded up" },
	{ .path = "max_job_weight", .type = CT_INT, .min = 1,
	  .max = PROTO_WEIGHT_JOB_MAX, .def = "1",
	  .off = OFF(max_job_weight),
	  .help = "the largest weight an adoption may give its job for the "
	  "master's gang matrix (dts_spank --dts-weight); a larger one is "
	  "refused" },
	{ .path = "share", .type = CT_ENUM, .def = "user", .off = OFF(share),
	  .names = conf_share_names,
	  .help = "the PS where no slot table splits it: equally among the "
	  "users with jobs here, then among each one's jobs; or among the "
	  "jobs" },
	{ .path = "user_weights", .type = CT_STRLIST, .def = "",
	  .off = OFF(user_weights), .valid = valid_user_weight,
	  .help = "share = \"user\": a user's part in proportion to its "
	  "weight, \"USER:W\" (W 1..100; others 1)" },
	{ .path = "no_service", .type = CT_ENUM, .def = "run",
	  .off = OFF(no_service), .names = conf_no_service_names,
	  .help = "no dts answers here: dts-run runs pvmd (or the command) "
	  "unmanaged at normal priority, saying so on stderr, or refuses it" },
	{ .path = "socket", .type = CT_STRING, .def = ADOPT_SOCKET_DEFAULT,
	  .off = OFF(socket), .valid = valid_path,
	  .help = "adoption socket the launch script asks (dts-run)" },
	{ .path = "state_file", .type = CT_STRING, .def = "/run/dts/state",
	  .off = OFF(state_file), .valid = valid_path_or_empty,
	  .help = "the gang's phase and stopped time for programs in it, "
	  "named to them in " STATE_ENV "; \"\" = none" },
	{ .path = "cgroup", .type = CT_STRING, .def = "auto",
	  .off = OFF(cgroup), .valid = valid_cgroup,
	  .help = "dts's cgroup v2 subtree: \"auto\" (systemd's, else /dts) "
	  "or a path under the cgroup2 mount" },
	{ .path = "backend", .type = CT_ENUM, .def = "freezer",
	  .off = OFF(backend), .names = conf_backend_names,
	  .help = "how the gang is stopped: the cgroup freezer, or SIGSTOP to "
	  "each member (its own user can undo that with SIGCONT)" },
	{ .path = "rt_priority", .type = CT_INT, .min = 0, .max = 99,
	  .def = "0", .off = OFF(rt_priority), .valid = valid_rt_priority,
	  .help = "SCHED_FIFO priority of dts (0 = the maximum); dts-load "
	  "runs at this-1, pvmd at this-2, the PVM tasks at this-3" },
	{ .path = "memory", .type = CT_STRING, .def = "50%",
	  .off = OFF(memory), .valid = valid_memsize,
	  .help = "memory of every job of this node together: a share of "
	  "RAM (\"50%\") or a size (\"12G\"); the rest is the owner's" },
	{ .path = "job_memory", .type = CT_STRING, .def = "",
	  .off = OFF(job_memory), .valid = valid_memsize,
	  .help = "memory of each job: a share of RAM or a size; \"\" = "
	  "all of memory" },
	{ .path = "max_tasks", .type = CT_INT, .min = 16, .max = 4194304,
	  .def = "1024", .off = OFF(max_tasks),
	  .help = "tasks (processes and threads) of each job at most; a "
	  "fork beyond them fails" },
	{ .path = "memory_pressure", .type = CT_FLOAT, .min = 0, .max = 100,
	  .def = "10", .unit = "%", .off = OFF(memory_pressure),
	  .help = "memory pressure (PSI some avg10) above which every job "
	  "stops until it falls under half of it; 0 = never" },
	{ .path = "memory_reclaim_after", .type = CT_DURATION, .min = 0,
	  .max = SEC(3600), .def = "2s", .unit = "s",
	  .off = OFF(memory_reclaim_ns),
	  .help = "a job stopped this long without a break gives its memory "
	  "back to swap, where the node has swap; 0 = never" },
	{ .path = "log_file", .type = CT_STRING, .def = "",
	  .off = OFF(log_file), .valid = valid_path_or_empty,
	  .help = "log to this file; \"\" = syslog" },
	{ .path = "log_level", .type = CT_ENUM, .def = "info",
	  .off = OFF(log_level), .names = log_level_names,
	  .help = "least important messages logged" },
	{ .path = "load.sample", .type = CT_DURATION, .min = MS(1),
	  .max = SEC(60), .def = "1s", .unit = "s", .off = OFF(load.sample_ns),
	  .help = "run-queue sampling period" },
	{ .path = "load.interval", .type = CT_DURATION, .min = MS(1),
	  .max = SEC(3600), .def = "10s", .unit = "s",
	  .off = OFF(load.interval_ns),
	  .help = "LI: a new load index every LI" },
	{ .path = "load.window", .type = CT_DURATION, .min = MS(1),
	  .max = SEC(86400), .def = "60s", .unit = "s",
	  .off = OFF(load.window_ns),
	  .help = "W of the smoothing, d = exp(-LI/W)" },
	{ .path = "load.threshold", .type = CT_FLOAT, .min = 0, .max = 1000,
	  .def = "1", .unit = "tasks", .off = OFF(load.threshold),
	  .help = "report when the index moved this much" },
	{ .path = "load.per_cpu", .type = CT_BOOL, .def = "true",
	  .off = OFF(load.per_cpu),
	  .help = "divide the run-queue length by the online CPUs" },
	{ .path = "load.table_step", .type = CT_FLOAT, .min = 0, .max = 100,
	  .flags = CF_MIN_OPEN, .def = "0.5", .unit = "tasks",
	  .off = OFF(load.table.step),
	  .help = "load covered by each entry of load.table" },
	{ .path = "load.table", .type = CT_INTLIST, .min = 1, .max = 99,
	  .def = "10,20,30,40,50,60,70,80,90", .unit = "% of ip",
	  .off = OFF(load.table),
	  .help = "LS as a share of IP by load (Table 2.1)" },
	{ .path = "place.history", .type = CT_FLOAT, .min = 0, .max = 0.99,
	  .def = "0.5", .off = OFF(place.history),
	  .help = "history factor: a host's load is this much its last "
	  "value and the rest the new report's" },
	{ .path = "place.threshold", .type = CT_FLOAT, .min = 0, .max = 1000,
	  .def = "1", .unit = "tasks", .off = OFF(place.threshold),
	  .help = "participation: a host whose runnable count is over the "
	  "hosts' mean by more than this takes no task" },
	{ .path = "place.reserve", .type = CT_FLOAT, .min = 0, .max = 1000,
	  .def = "0.5", .unit = "tasks", .off = OFF(place.reserve),
	  .help = "owner active: a host with a logged-in user and a local "
	  "load over this is placed last" },
	{ .path = "place.load_weight", .type = CT_FLOAT, .min = 0,
	  .max = 1000, .def = "1", .off = OFF(place.load_weight),
	  .help = "a local runnable process, in tasks, in the goodness" },
	{ .path = "place.rt_weight", .type = CT_FLOAT, .min = 0, .max = 1000,
	  .def = "1", .off = OFF(place.rt_weight),
	  .help = "a member of another job's gang, in tasks, in the goodness" },
	{ .path = "place.mem_min", .type = CT_INT, .min = 0, .max = 1 << 30,
	  .def = "1", .unit = "MiB", .off = OFF(place.mem_min_mib),
	  .help = "a host with less free RAM takes no task (MOSIX's 1 MB)" },
	{ .path = "place.checks", .type = CT_INT, .min = 1, .max = 100,
	  .def = "3", .off = OFF(place.checks),
	  .help = "reports in a row that a host is over the threshold or its "
	  "owner active before it is treated so" },
	{ .path = "place.stale", .type = CT_DURATION, .min = 0,
	  .max = SEC(3600), .def = "2s", .unit = "s",
	  .off = OFF(place.stale_ns),
	  .help = "a report this soon after a spawn to the host does not "
	  "replace dts-place's own count of the tasks sent there" },
	{ .path = "place.interval", .type = CT_DURATION, .min = MS(10),
	  .max = SEC(3600), .def = "1s", .unit = "s",
	  .off = OFF(place.interval_ns),
	  .help = "dts-place asks every host for its STATUS this often" },
	{ .path = "place.wait", .type = CT_DURATION, .min = MS(1),
	  .max = SEC(10), .def = "300ms", .unit = "s",
	  .off = OFF(place.wait_ns),
	  .help = "at a spawn with a host not heard yet, wait this long for "
	  "its STATUS" },
	{ .path = "place.record", .type = CT_STRING, .def = "",
	  .off = OFF(place.record), .valid = valid_path_or_empty,
	  .help = "the placement record; \"\" = dts-place.UID in $PVM_TMP "
	  "or /tmp" },
	{ .path = "console.launcher", .type = CT_STRING, .def = PKGLIBEXECDIR
	  "/pvmd", .off = OFF(console.launcher), .valid = valid_path,
	  .help = "launch script of every pvmd: the master the console "
	  "starts, and slaves (PVM_DPATH, dx=)" },
	{ .path = "console.sign_key", .type = CT_STRING, .def = SYSCONFDIR
	  "/dts/console.key", .off = OFF(console.sign_key),
	  .valid = valid_path,
	  .help = "this console's key pair, which signs its commands "
	  "(dts-console -k FILE)" },
	{ .path = "console.node_secret", .type = CT_STRING, .def = SYSCONFDIR
	  "/dts/nodes.key", .off = OFF(console.node_secret),
	  .valid = valid_path,
	  .help = "the secret every node's key derives from, to check their "
	  "replies (dts -k FILE)" },
	{ .path = "console.pvm_tmp", .type = CT_STRING, .def = "",
	  .off = OFF(console.pvm_tmp), .valid = valid_path_or_empty,
	  .help = "PVM_TMP of the master; \"\" = $PVM_TMP, else "
	  "/tmp/dts-console.UID" },
	{ .path = "console.history", .type = CT_STRING,
	  .def = "~/.dts_history", .off = OFF(console.history),
	  .valid = valid_home_path,
	  .help = "command history file; \"\" = none" },
	{ .path = "console.start_wait", .type = CT_DURATION, .min = MS(100),
	  .max = SEC(600), .def = "30s", .unit = "s",
	  .off = OFF(console.start_wait_ns),
	  .help = "wait this long for a master pvmd started by the console" },
	{ .path = "console.timeout", .type = CT_DURATION, .min = MS(10),
	  .max = SEC(86400), .def = "30s", .unit = "s",
	  .off = OFF(console.timeout_ns),
	  .help = "a node silent this long leaves the RLA" },
	{ .path = "console.status_wait", .type = CT_DURATION, .min = MS(1),
	  .max = SEC(60), .def = "300ms", .unit = "s",
	  .off = OFF(console.status_wait_ns),
	  .help = "how long status collects replies" },
	{ .path = "console.unicast", .type = CT_BOOL, .def = "false",
	  .off = OFF(console.unicast),
	  .help = "send to each PVM host instead of subnet broadcast" },
	{ .path = "console.nodes", .type = CT_STRLIST, .def = "",
	  .off = OFF(console.nodes), .valid = valid_node_entry,
	  .help = "send to these addresses, ranges (a.b.c.0/24), @files" },
	{ .path = "console.group", .type = CT_STRING, .def = "",
	  .off = OFF(console.group), .valid = valid_group,
	  .help = "send each SCHEDULE once, to this multicast group that the "
	  "nodes join (their group), when no node has a slot table" },
	{ .path = "console.group_if", .type = CT_STRING, .def = "",
	  .off = OFF(console.group_if), .valid = valid_ipv4_or_empty,
	  .help = "the address of the interface the group's datagrams leave "
	  "by; \"\" = the route's" },
	{ .path = "console.rla", .type = CT_ENUM, .def = "mean",
	  .off = OFF(console.rla), .names = conf_rla_names,
	  .help = "balanced: RLA is the mean or the max of Q/W" },
	{ .path = "console.hysteresis", .type = CT_FLOAT, .min = 0,
	  .max = 100, .def = "0.5", .unit = "tasks",
	  .off = OFF(console.hysteresis),
	  .help = "balanced: act when the RLA moved more than this" },
	{ .path = "console.peer", .type = CT_STRING, .def = "",
	  .off = OFF(console.peer), .valid = valid_peer,
	  .help = "the other console of a master and standby pair, "
	  "ADDRESS[:PORT]; \"\" = none" },
	{ .path = "console.peer_port", .type = CT_INT, .min = 1, .max = 65535,
	  .def = "477", .off = OFF(console.peer_port),
	  .help = "UDP port of a master and standby pair (this console's, and "
	  "the peer's unless console.peer names one)" },
	{ .path = "console.master_socket", .type = CT_STRING,
	  .def = "/run/dts/master.sock", .off = OFF(console.master_socket),
	  .valid = valid_path_or_empty,
	  .help = "dts-master's control socket, which dts-console talks to; "
	  "\"\" = none" },
	{ .path = "console.operator_group", .type = CT_STRING, .def = "",
	  .off = OFF(console.operator_group), .valid = valid_group_name,
	  .help = "a group whose members may change the master's schedule "
	  "over its socket, as root may; \"\" = root only" },
	{ .path = "console.resume_reserve", .type = CT_STRING, .def = "256M",
	  .off = OFF(console.resume_reserve), .valid = valid_size,
	  .help = "the master holds a job while a node of it has less free "
	  "RAM than the job's swap there plus this (a size, \"256M\")" },
};
const size_t confkey_nkeys = sizeof(confkey_schema) /
    sizeof(confkey_schema[0]);

/* ---- validators ------------------------------------------------------ */

static int
valid_ipv4(const void *p, char *why, size_t len)
{
	struct in_addr	 a;

	if (inet_pton(AF_INET, p, &a) == 1)
		return 0;
	snprintf(why, len, "\"%s\" is not an IPv4 address (e.g. 0.0.0.0)",
	    (const char *)p);
	return -1;
}

/* group, console.group: "", or an IPv4 multicast address (224.0.0.0/4) */
static int
valid_group(const void *p, char *why, size_t len)
{
	struct in_addr	 a;

	if (*(const char *)p == '\0')
		return 0;
	if (inet_pton(AF_INET, p, &a) == 1 && IN_MULTICAST(ntohl(a.s_addr)))
		return 0;
	snprintf(why, len, "\"%s\" is not an IPv4 multicast address "
	    "(224.0.0.0 to 239.255.255.255; e.g. 239.255.77.46)",
	    (const char *)p);
	return -1;
}

/* console.operator_group: "", or a group name (it need not exist until
 * dts-master starts) */
static int
valid_group_name(const void *p, char *why, size_t len)
{
	const char	*s = p;

	for (size_t i = 0; s[i] != '\0'; i++)
		if (!isalnum((unsigned char)s[i]) && strchr("._-", s[i]) ==
		    NULL) {
			snprintf(why, len, "\"%s\" is not a group name "
			    "(letters, digits, '.', '_', '-')", s);
			return -1;
		}
	return 0;
}

/* console.group_if: "", or an IPv4 address */
static int
valid_ipv4_or_empty(const void *p, char *why, size_t len)
{
	return *(const char *)p == '\0' ? 0 : valid_ipv4(p, why, len);
}

/* console.peer: "", or an IPv4 address with an optional :PORT */
static int
valid_peer(const void *p, char *why, size_t len)
{
	const char	*s = p, *colon = strchr(s, ':');
	char		 a[INET_ADDRSTRLEN];
	struct in_addr	 in;
	char		*end;
	long		 port;

	if (*s == '\0')
		return 0;
	if (colon != NULL && (size_t)(colon - s) < sizeof(a)) {
		memcpy(a, s, (size_t)(colon - s));
		a[colon - s] = '\0';
		errno = 0;
		port = strtol(colon + 1, &end, 10);
		if (inet_pton(AF_INET, a, &in) == 1 && colon[1] != '\0' &&
		    *end == '\0' && errno == 0 && port >= 1 && port <= 65535)
			return 0;
	} else if (colon == NULL && inet_pton(AF_INET, s, &in) == 1)
		return 0;
	snprintf(why, len, "\"%s\" is not ADDRESS[:PORT] (e.g. 10.0.0.2 or "
	    "10.0.0.2:477)", s);
	return -1;
}

/* console.nodes: an address, a range or a node file (conf_nodes.h) */
static int
valid_node_entry(const void *p, char *why, size_t len)
{
	return confnodes_entry_valid(p, why, len);
}

static int
valid_users_entry(const void *p, char *why, size_t len)
{
	return users_entry_valid(p, why, len);
}

static int
valid_user_weight(const void *p, char *why, size_t len)
{
	return users_weight_parse(p, NULL, 0, NULL, why, len);
}

static int
valid_public_key(const void *p, char *why, size_t len)
{
	uint8_t	 pk[AUTH_PUB_LEN];

	return auth_pub_parse(p, pk, why, len);
}

static int
valid_memsize(const void *p, char *why, size_t len)
{
	uint64_t	 v;

	return memsize_parse(p, 1ULL << 40, &v, why, len);
}

/* console.resume_reserve: a size, not a share of a node's RAM */
static int
valid_size(const void *p, char *why, size_t len)
{
	uint64_t	 v;

	if (strchr(p, '%') != NULL) {
		snprintf(why, len, "\"%s\" is a share of RAM; give a size "
		    "(\"256M\")", (const char *)p);
		return -1;
	}
	return memsize_parse(p, 0, &v, why, len);
}

static int
valid_cgroup(const void *p, char *why, size_t len)
{
	const char	*s = p;

	if (strcmp(s, "auto") == 0 || (s[0] == '/' && strstr(s, "..") == NULL))
		return 0;
	snprintf(why, len, "\"%s\" is neither \"auto\" nor an absolute "
	    "path without \"..\"", s);
	return -1;
}

static int
valid_path_or_auto(const void *p, char *why, size_t len)
{
	if (strcmp(p, "auto") == 0)
		return 0;
	return valid_path(p, why, len);
}

static int
valid_path(const void *p, char *why, size_t len)
{
	if (((const char *)p)[0] == '/')
		return 0;
	snprintf(why, len, "\"%s\" is not an absolute path", (const char *)p);
	return -1;
}

static int
valid_path_or_empty(const void *p, char *why, size_t len)
{
	return ((const char *)p)[0] == '\0' ? 0 : valid_path(p, why, len);
}

/* "", an absolute path, or one under the home directory ("~/x"). */
static int
valid_home_path(const void *p, char *why, size_t len)
{
	if (strncmp(p, "~/", 2) == 0)
		return 0;
	return valid_path_or_empty(p, why, len);
}

static int
valid_rt_priority(const void *p, char *why, size_t len)
{
	int	 v = *(const int *)p;

	if (v < 1 || v > 4)
		return 0;
	snprintf(why, len, "%d is too low: dts-load runs at rt_priority-1, "
	    "pvmd at rt_priority-2, its tasks at rt_priority-3 and a job that "
	    "fills another's slot at rt_priority-4, so use 0 (the maximum) or "
	    "5..99", v);
	return -1;
}

/* ---- lookup -------------------------------------------------------------- */

const struct conf_key *
confkey_find(const char *path)
{
	size_t	 i;

	for (i = 0; i < confkey_nkeys; i++)
		if (strcmp(confkey_schema[i].path, path) == 0)
			return &confkey_schema[i];
	return NULL;
}

/* ---- checks of one key ------------------------------------------------- */

int
confkey_out_of_range(const struct conf_key *k, double v, char *why,
    size_t len)
{
	char	 val[32], rng[80];

	if (v <= k->max && (v > k->min || (v == k->min &&
	    !(k->flags & CF_MIN_OPEN))))
		return 0;
	snprintf(why, len, "%s is out of range %s",
	    conffmt_bound(k, v, val, sizeof(val)),
	    conffmt_range(k, rng, sizeof(rng)));
	return -1;
}

static int
list_check(const struct conf_key *k, const struct load_table *t, char *why,
    size_t len)
{
	char	 rng[80];
	int	 i;

	if (t->n < 1 || t->n > LOADTAB_MAX) {
		snprintf(why, len, "has %d entries; it needs 1 to %d", t->n,
		    LOADTAB_MAX);
		return -1;
	}
	for (i = 0; i < t->n; i++)
		if (t->ls_pct[i] < k->min || t->ls_pct[i] > k->max) {
			snprintf(why, len, "entry %d is %d, out of range %s",
			    i + 1, t->ls_pct[i],
			    conffmt_range(k, rng, sizeof(rng)));
			return -1;
		}
	return 0;
}

static int
strlist_check(const struct conf_key *k, const struct conf_strlist *l,
    char *why, size_t len)
{
	char	 w[200];
	int	 i;

	if (l->n < 0 || l->n > CONF_LIST_MAX) {
		snprintf(why, len, "has %d entries; at most %d", l->n,
		    CONF_LIST_MAX);
		return -1;
	}
	for (i = 0; i < l->n && k->valid != NULL; i++)
		if (k->valid(l->s[i], w, sizeof(w)) == -1) {
			snprintf(why, len, "entry %d: %s", i + 1, w);
			return -1;
		}
	return 0;
}

/* Range and validity of the value stored in c; -1 with a reason. */
int
confkey_check(const struct conf_key *k, const struct dts_conf *c, char *why,
    size_t len)
{
	const void	*p = CFLD(c, k->off, char);
	char		 buf[32];
	int32_t		 pct;

	switch (k->type) {
	case CT_INT:
		if (confkey_out_of_range(k, *(const int *)p, why, len) == -1)
			return -1;
		break;
	case CT_FLOAT:
		if (confkey_out_of_range(k, *(const double *)p, why, len) == -1)
			return -1;	/* NaN too */
		break;
	case CT_DURATION:
		return confkey_out_of_range(k, (double)*(const int64_t *)p,
		    why, len);
	case CT_SLICE:
		pct = *CFLD(c, k->off2, int32_t);
		if (pct < 0)
			return confkey_out_of_range(k,
			    (double)*(const int64_t *)p, why, len);
		if (pct == 0 || pct >= 100000) {
			snprintf(why, len, "%s is not between 0%% and 100%%",
			    conffmt_pct(pct, buf, sizeof(buf)));
			return -1;
		}
		break;
	case CT_INTLIST:
		return list_check(k, p, why, len);
	case CT_STRLIST:
		return strlist_check(k, p, why, len);
	case CT_ENUM:
		if (*(const int *)p < 0 ||
		    (size_t)*(const int *)p >= names_count(k->names)) {
			snprintf(why, len, "%d is not a valid value",
			    *(const int *)p);
			return -1;
		}
		break;
	case CT_BOOL:
	case CT_STRING:
		break;
	}
	return k->valid != NULL ? k->valid(p, why, len) : 0;
}
