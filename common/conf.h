/*
 * conf.h - dts.conf, read with libconfig and checked against one schema.
 *
 * The schema (conf_schema.c, confkey_schema[]) gives every key its type, range,
 * default, unit and help text; conf_load() walks it, rejects unknown keys
 * and bad values with "file:line: key: reason", and fills struct dts_conf.
 * dts.conf(5) documents the same table.
 */
#ifndef DTS_CONF_H
#define DTS_CONF_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "loadtab.h"
#include "strlist.h"

#define CONF_STR_MAX   256

enum conf_backend { BACKEND_SIGNAL = 0, BACKEND_FREEZER = 1 };

/*
 * How the console folds the nodes' Q/W into one RLA: their mean, or their
 * maximum.  RLA_MAX is a value ("max"); end markers are named X_COUNT.
 */
enum conf_rla { RLA_MEAN = 0, RLA_MAX = 1 };

/*
 * What dts-run does when no dts answers on this node (dts.conf:
 * no_service): run the command (pvmd) unmanaged, at normal priority, with
 * one line on its stderr; or refuse it.
 */
enum conf_no_service { NO_SERVICE_RUN = 0, NO_SERVICE_REFUSE = 1 };

/* What the gang does in LS: stopped (the thesis), or at SCHED_IDLE. */
enum ls_policy { LS_STOP = 0, LS_IDLE = 1 };

/*
 * How a node splits its PS among its jobs where no slot table says
 * (dts.conf: share): equally among the users that have jobs here, each
 * user's part equally among that user's jobs; or equally among the jobs.
 */
enum conf_share { SHARE_USER = 0, SHARE_JOB = 1 };

/*
 * The one name table of each enum above, as dts.conf writes them (names.h);
 * mode and sync use proto.h's, log_level log.h's.
 */
extern const char *const conf_backend_names[];
extern const char *const conf_rla_names[];
extern const char *const conf_ls_policy_names[];
extern const char *const conf_no_service_names[];
extern const char *const conf_share_names[];

struct dts_conf {
	char    file[CONF_STR_MAX];   /* where it came from, "" for defaults */

	/* schedule used until a console speaks */
	int     mode;                 /* enum proto_mode */
	int64_t ip_ns;
	int64_t ps_ns;                /* resolved from ps_pct_milli if given as % */
	int32_t ps_pct_milli;         /* -1 if ps was a duration */
	int64_t si_ns;
	int     sync;                 /* enum proto_sync */
	int     ls_policy;            /* enum ls_policy */
	int64_t silence_ns;           /* dead-man: console silent this long
					 (0 = 3 SI): back to this schedule */

	/* network and security */
	int     port;
	char    bind[CONF_STR_MAX];
	char    group[CONF_STR_MAX];      /* multicast group to join, "" none */
	char    key_file[CONF_STR_MAX];
	int     insecure;
	int64_t replay_window_ns;
	int     read_requests;        /* take read requests (STATUS, JOB)
					 under the consoles' read keys */

	/* processes */
	char    pvmd[CONF_STR_MAX];
	char    load_agent[CONF_STR_MAX];
	struct conf_strlist users;    /* may start a gang besides root:
					 names, "@group", "*" (users.h) */
	int     max_jobs;             /* jobs (gangs) at once, 1..8 */
	int     max_jobs_user;        /* of them one user's; 0 = half of
					 max_jobs, rounded up (conf_jobs_user) */
	int     max_job_weight;       /* an adoption's WEIGHT at most */
	int     share;                /* enum conf_share */
	struct conf_strlist user_weights; /* "USER:W" (users.h) */
	int     no_service;           /* enum conf_no_service (dts-run) */
	struct conf_strlist console_keys; /* public keys of the consoles
					     whose signed commands we obey */
	char    socket[CONF_STR_MAX]; /* adoption socket */
	char    state_file[CONF_STR_MAX]; /* for the gang; "" = none */
	char    cgroup[CONF_STR_MAX]; /* "auto" or a path under cgroup2 */
	int     backend;              /* enum conf_backend */
	int     rt_priority;          /* dts; dts-load -1, pvmd -2, tasks -3; 0 = max */

	/* the memory contract and the tasks bound (dts/job_limits.h) */
	char    memory[CONF_STR_MAX];     /* every job together: "50%" of
					     RAM or a size (memsize.h) */
	char    job_memory[CONF_STR_MAX]; /* each job; "" = memory */
	int     max_tasks;            /* pids.max of a job */
	double  memory_pressure;      /* % PSI some avg10: the jobs stop;
					 0 = never */
	int64_t memory_reclaim_ns;    /* a job parked this long gives its
					 memory back (swap); 0 = never */

	/* logging */
	char    log_file[CONF_STR_MAX]; /* "" = syslog */
	int     log_level;            /* enum log_level */

	/* load agent */
	struct {
		int64_t sample_ns;
		int64_t interval_ns;  /* LI */
		int64_t window_ns;    /* W: smoothing window */
		double  threshold;
		int     per_cpu;
		struct load_table table;
	} load;

	/* placement of spawns (dts-place only; dts and dts-load ignore them) */
	struct {
		double  history;      /* weight of the past in a host's load */
		double  threshold;    /* runnable over the mean + this: left out */
		double  reserve;      /* owner active: users and load over it */
		double  load_weight;  /* a local runnable process, in tasks */
		double  rt_weight;    /* a member of another job's gang */
		int     mem_min_mib;  /* free RAM under it: no task */
		int     checks;       /* reports in a row before acting */
		int64_t stale_ns;     /* a report this soon after a spawn
					 there is not trusted over the count */
		int64_t interval_ns;  /* ask every host this often */
		int64_t wait_ns;      /* at a spawn, wait this for replies */
		char    record[CONF_STR_MAX]; /* "" = $PVM_TMP or /tmp,
						 dts-place.UID */
	} place;

	/* master console (dts-console only; dts and dts-load ignore them) */
	struct {
		char    launcher[CONF_STR_MAX]; /* launch script of every pvmd */
		char    pvm_tmp[CONF_STR_MAX];  /* "" = $PVM_TMP or a private dir */
		char    history[CONF_STR_MAX];  /* "" = no history file */
		char    sign_key[CONF_STR_MAX]; /* this console's key pair */
		char    node_secret[CONF_STR_MAX]; /* the nodes' keys derive
						      from it */
		int64_t start_wait_ns;        /* wait for the master pvmd */
		int64_t timeout_ns;           /* node silent: out of the RLA */
		int64_t status_wait_ns;       /* collect STATUS replies */
		int     unicast;              /* to each PVM host, not broadcast */
		struct conf_strlist nodes;    /* explicit destinations */
		char    group[CONF_STR_MAX];  /* SCHEDULEs to this multicast
						 group, "" = to each node */
		char    group_if[CONF_STR_MAX]; /* ... out of this address's
						   interface, "" = the route's */
		int     rla;                  /* enum conf_rla */
		double  hysteresis;           /* |RLA - RLA_prev| to act on */
		char    peer[CONF_STR_MAX];   /* the other console of a master
						 and standby pair, ADDR[:PORT];
						 "" = none */
		int     peer_port;            /* the pair's port on this host */
		char    master_socket[CONF_STR_MAX]; /* dts-master's control
						       socket, "" = none */
		char    operator_group[CONF_STR_MAX]; /* may change the
							schedule there */
		char    resume_reserve[CONF_STR_MAX]; /* a held job resumes
							where free RAM >= its
							swap + this */
	} console;
};

/* Fill c with the schema's defaults. */
void conf_defaults(struct dts_conf *c);

/*
 * Load path over the defaults.  Returns 0, or -1 with a one-line
 * "file:line: key: reason" (or "file: reason") in err.  If missing_ok and
 * the file does not exist, c keeps the defaults and 0 is returned.
 */
int conf_load(struct dts_conf *c, const char *path, int missing_ok,
	      char *err, size_t errlen);

/*
 * For a root service: path belongs to root, is not writable by group or
 * others (secret: nor readable by others), and neither is its directory
 * (unless sticky).  what names it in the error ("configuration").
 */
int conf_file_trusted(const char *path, const char *what, int secret,
		      char *err, size_t errlen);

/*
 * A directory a root service creates or keeps (its socket's, its cgroups):
 * made 0755 if missing, and then it must belong to root and not be
 * writable by group or others.  0, or -1 with err.
 */
int conf_dir_make_trusted(const char *dir, const char *what, char *err,
			  size_t errlen);

/* conf_load() of a trusted file; the key file must be trusted too. */
int conf_load_trusted(struct dts_conf *c, const char *path, int missing_ok,
		      char *err, size_t errlen);

/*
 * The real pvmd: the `pvmd` key, or for "auto" PVMD_PATH.real when the
 * PVM hook (make install-pvm-hook) moved PVM's pvmd there, else PVMD_PATH.
 */
const char *conf_pvmd(const struct dts_conf *c);

/* The jobs one user may run here: max_jobs_user, or for 0 half of
 * max_jobs rounded up; at most max_jobs. */
int conf_jobs_user(const struct dts_conf *c);

/* Checks across keys (PS < IP, RT budget, table); 0 or -1 with err. */
int conf_check(const struct dts_conf *c, char *err, size_t errlen);

/*
 * The lowest port that a local user may bind: the kernel's
 * net.ipv4.ip_unprivileged_port_start (1024 unless lowered; 1024 if
 * unreadable).  A port below it is root's alone (dts(8) SECURITY).
 */
int conf_unprivileged_port_start(void);

/* Print every key with its effective value, in dts.conf syntax. */
void conf_print(const struct dts_conf *c, FILE *out);

/* Print the schema (key, type, range, default, unit, help), one per line. */
void conf_schema_print(FILE *out);

/*
 * One key at a time, by its full path ("console.timeout"), for a program
 * that changes a key at run time (the console's `set`) without seeing
 * the schema's insides.
 *
 * conf_value_format(): the key's value in c as a user types it, the one
 * formatter of values (conf_print() writes the same, quoted and bracketed
 * where dts.conf does): "30s", "80%", "mean", "0.5", "10, 20"; "?" if
 * there is no such key.  conf_value_set() reads it back.
 * conf_value_set(): text into the key's field of c, checked against the
 * key's type, range and validator (not across keys: conf_check()).  0,
 * or -1 with a one-line why and c unchanged.
 * conf_key_type(): the key's type as dts.conf(5) names it ("duration",
 * "enum", ...), or NULL if there is no such key; conf_key_names(): an
 * enum key's names in value order (NULL-terminated), else NULL.
 */
const char *conf_value_format(const struct dts_conf *c, const char *path,
    char *buf, size_t len);
int conf_value_set(struct dts_conf *c, const char *path, const char *text,
    char *why, size_t len);
const char *conf_key_type(const char *path);
const char *const *conf_key_names(const char *path);

#endif /* DTS_CONF_H */
