/*
 * dts_spank.c - dts_spank.so, a SPANK plugin: every task of a Slurm job
 * step joins the DTS job USER:sJOBID on its node before it execs, through
 * the node's adoption socket, as dts-run does (run/run.c): the plugin is
 * only a client of that socket, and dts makes every check (dts(8)).
 *
 * plugstack.conf (man/dts_spank.8):
 *   required PATH/dts_spank.so [default=on|off] [socket=PATH] [conf=PATH]
 *       [qos_weight=QOS:W,...] [weight_max=W]
 * "%h" in socket= and conf= is the node's host name.  srun, sbatch and
 * salloc get --dts[=on|off]; without it the operator's default= holds.
 * They get --dts-weight=W too: the job's weight in the master's gang
 * matrix (at most weight_max=), else its QOS's (qos_weight=, the QOS as
 * Slurm puts it in the task's environment, SLURM_JOB_QOS), else none
 * (the master's default).  It goes with the adoption (WEIGHT, adopt_msg.h).
 *
 * Callbacks: slurm_spank_init (every context) registers --dts (srun,
 * sbatch, salloc, slurmstepd) and reads the plugstack arguments;
 * slurm_spank_task_init (remote: in the task, as the job's user, after
 * setuid and before exec) asks dts to adopt the task.  When no dts
 * answers, dts.conf's no_service decides, as for dts-run: refuse (the
 * task exits 126 before its exec; one line, slurm_error) or run
 * unmanaged (one line on the task's stderr).  The job
 * ends when its last member exits; dts then removes it.
 */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#pragma GCC visibility push(default)
#include <slurm/spank.h>
SPANK_PLUGIN(dts, 1);
#pragma GCC visibility pop

#include "adopt_msg.h"
#include "conf.h"
#include "job.h"

#define CONF_DEFAULT	SYSCONFDIR "/dts/dts.conf"
#define PATH_ARG_MAX	256
#define REFUSED_EXIT	126		/* as dts-run's */

#define QOS_MAX		32		/* qos_weight= entries */
#define QOS_NAME_MAX	64

static int	opt_dts = -1;			/* --dts: 1 on, 0 off, -1 none */
static int	opt_weight;			/* --dts-weight; 0: none */
static int	weight_max = 1;				/* weight_max= */
static int	nqos;				/* qos_weight= */
static char	qos_name[QOS_MAX][QOS_NAME_MAX];
static int	qos_w[QOS_MAX];
static int	def_dts;			/* default= */
static char	sock_arg[PATH_ARG_MAX] = ADOPT_SOCKET_DEFAULT;
static char	conf_arg[PATH_ARG_MAX] = CONF_DEFAULT;

/* "on", "off" (and yes/no, 1/0): 1 or 0; else -1. */
static int
onoff(const char *s)
{
	if (strcmp(s, "on") == 0 || strcmp(s, "yes") == 0 ||
	    strcmp(s, "1") == 0)
		return 1;
	if (strcmp(s, "off") == 0 || strcmp(s, "no") == 0 ||
	    strcmp(s, "0") == 0)
		return 0;
	return -1;
}

static int
opt_cb(int val, const char *optarg, int remote)
{
	(void)val;
	(void)remote;
	/* sbatch hands "--dts" without a value to the job's sruns as the
	 * text "(null)" (SLURM_SPANK__SLURM_SPANK_OPTION_dts_dts) */
	if (optarg == NULL || *optarg == '\0' ||
	    strcmp(optarg, "(null)") == 0) {
		opt_dts = 1;
		return 0;
	}
	if ((opt_dts = onoff(optarg)) == -1) {
		slurm_error("dts: --dts=%s: expected on or off", optarg);
		return -1;
	}
	return 0;
}

/* --dts-weight=W: refused in one line (Slurm then refuses the job). */
static int
weight_cb(int val, const char *optarg, int remote)
{
	char	 err[128];
	int	 w;

	(void)val;
	(void)remote;
	if (optarg == NULL || adopt_weight_check(optarg, &w, err,
	    sizeof(err)) == -1) {
		slurm_error("dts: --dts-weight: %s", optarg == NULL ?
		    "a weight is needed" : err);
		return -1;
	}
	if (w > weight_max) {
		slurm_error("dts: --dts-weight=%d: above %d, this cluster's "
		    "most (plugstack.conf: weight_max)", w, weight_max);
		return -1;
	}
	opt_weight = w;
	return 0;
}

/* registered in slurm_spank_init: a spank_options table reaches no
 * sbatch or salloc (spank.h) */
static struct spank_option dts_option = {
	"dts", "[on|off]", "coschedule this job's tasks with DTS on every "
	    "node (default: the operator's, plugstack.conf)", 2, 0, opt_cb
};
static struct spank_option weight_option = {
	"dts-weight", "W", "this job's weight in DTS's gang matrix, a whole "
	    "number from 1 to 100 (default: its QOS's, plugstack.conf)", 1, 0,
	    weight_cb
};

/*
 * qos_weight=QOS:W[,QOS:W...] into the table: 0, or -1 with one line
 * logged (nothing kept).
 */
static int
qos_arg(const char *arg, const char *val)
{
	char		 buf[1024], err[128], *tok, *save = NULL, *colon;
	int		 n = 0, w, k;

	if (*val == '\0' || strlen(val) >= sizeof(buf)) {
		slurm_error("dts: plugstack.conf: %s: empty or too long", arg);
		return -1;
	}
	memcpy(buf, val, strlen(val) + 1);
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		if ((colon = strrchr(tok, ':')) == NULL || colon == tok ||
		    (size_t)(colon - tok) >= QOS_NAME_MAX) {
			slurm_error("dts: plugstack.conf: %s: \"%s\": expected "
			    "QOS:W (a QOS name of 1 to %d bytes)", arg, tok,
			    QOS_NAME_MAX - 1);
			return -1;
		}
		*colon = '\0';
		if (adopt_weight_check(colon + 1, &w, err, sizeof(err)) == -1) {
			slurm_error("dts: plugstack.conf: %s: QOS %s: %s", arg,
			    tok, err);
			return -1;
		}
		for (k = 0; k < n; k++)
			if (strcmp(qos_name[k], tok) == 0) {
				slurm_error("dts: plugstack.conf: %s: QOS %s "
				    "twice", arg, tok);
				return -1;
			}
		if (n == QOS_MAX) {
			slurm_error("dts: plugstack.conf: %s: more than %d "
			    "QOS", arg, QOS_MAX);
			return -1;
		}
		memcpy(qos_name[n], tok, strlen(tok) + 1);
		qos_w[n++] = w;
	}
	nqos = n;
	return 0;
}

/* The job's weight: --dts-weight, else its QOS's, else 0 (none). */
static int
job_weight(spank_t sp)
{
	char	 qos[QOS_NAME_MAX];
	int	 k;

	if (opt_weight > 0)
		return opt_weight;
	if (nqos == 0 || spank_getenv(sp, "SLURM_JOB_QOS", qos,
	    sizeof(qos)) != ESPANK_SUCCESS)
		return 0;
	for (k = 0; k < nqos; k++)
		if (strcmp(qos_name[k], qos) == 0)
			return qos_w[k];
	return 0;
}

/* key=value into dst (PATH_ARG_MAX): 0, or -1 with one line logged. */
static int
path_arg(char *dst, const char *arg, const char *val)
{
	if (*val == '\0' || strlen(val) >= PATH_ARG_MAX) {
		slurm_error("dts: plugstack.conf: %s: an empty or too long "
		    "path", arg);
		return -1;
	}
	memcpy(dst, val, strlen(val) + 1);
	return 0;
}

int
slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t	 ctx = spank_context();
	spank_err_t	 e;
	int		 i;

	for (i = 0; i < ac; i++) {
		if (strncmp(av[i], "default=", 8) == 0) {
			if ((def_dts = onoff(av[i] + 8)) == -1) {
				slurm_error("dts: plugstack.conf: %s: "
				    "expected default=on or default=off",
				    av[i]);
				return -1;
			}
		} else if (strncmp(av[i], "socket=", 7) == 0) {
			if (path_arg(sock_arg, av[i], av[i] + 7) == -1)
				return -1;
		} else if (strncmp(av[i], "conf=", 5) == 0) {
			if (path_arg(conf_arg, av[i], av[i] + 5) == -1)
				return -1;
		} else if (strncmp(av[i], "qos_weight=", 11) == 0) {
			if (qos_arg(av[i], av[i] + 11) == -1)
				return -1;
		} else if (strncmp(av[i], "weight_max=", 11) == 0) {
			char	 err[128];

			if (adopt_weight_check(av[i] + 11, &weight_max, err,
			    sizeof(err)) == -1) {
				slurm_error("dts: plugstack.conf: %s: %s",
				    av[i], err);
				return -1;
			}
		} else {
			slurm_error("dts: plugstack.conf: unknown argument "
			    "\"%s\" (default=on|off, socket=PATH, conf=PATH, "
			    "qos_weight=QOS:W,..., weight_max=W)", av[i]);
			return -1;
		}
	}
	/* after the arguments: --dts-weight's check needs weight_max */
	if (ctx == S_CTX_LOCAL || ctx == S_CTX_REMOTE ||
	    ctx == S_CTX_ALLOCATOR) {
		if ((e = spank_option_register(sp, &dts_option)) !=
		    ESPANK_SUCCESS ||
		    (e = spank_option_register(sp, &weight_option)) !=
		    ESPANK_SUCCESS) {
			slurm_error("dts: cannot register --dts and "
			    "--dts-weight: %s", spank_strerror(e));
			return -1;
		}
	}
	return 0;
}

/* tmpl with every "%h" the host name, "%%" a '%': 0, or -1 (too long). */
static int
expand(char *out, size_t len, const char *tmpl)
{
	char	 host[256];
	size_t	 n = 0, k;
	const char	*add;

	if (gethostname(host, sizeof(host)) == -1)
		return -1;
	host[sizeof(host) - 1] = '\0';
	for (; *tmpl != '\0'; tmpl++) {
		char	 c[2] = { *tmpl, '\0' };

		add = c;
		if (tmpl[0] == '%' && tmpl[1] == 'h') {
			add = host;
			tmpl++;
		} else if (tmpl[0] == '%' && tmpl[1] == '%')
			tmpl++;
		if ((k = strlen(add)) >= len - n)
			return -1;
		memcpy(out + n, add, k);
		n += k;
	}
	out[n] = '\0';
	return 0;
}

/*
 * No dts answers on sock: dts.conf's no_service.  0: the task runs
 * unmanaged (one line); -1: refused (one line).
 */
static int
no_service(spank_t sp, const char *sock, const char *host)
{
	static struct dts_conf	 c;
	char			 path[PATH_ARG_MAX], err[512];

	if (expand(path, sizeof(path), conf_arg) == -1) {
		slurm_error("dts: DTS is not running on %s (nothing answers "
		    "on %s), and conf=%s is too long: task not started",
		    host, sock, conf_arg);
		return -1;
	}
	conf_defaults(&c);
	if (conf_load(&c, path, 1, err, sizeof(err)) == -1) {
		slurm_error("dts: DTS is not running on %s (nothing answers "
		    "on %s), and its configuration cannot say whether the "
		    "task may run without it: %s", host, sock, err);
		return -1;
	}
	if (c.no_service == NO_SERVICE_REFUSE) {
		slurm_error("dts: DTS is not running on %s (nothing answers "
		    "on %s): task not started (dts.conf: no_service = "
		    "\"refuse\")", host, sock);
		return -1;
	}
	/* the task's stderr, as dts-run's line (slurm_info reaches no one) */
	fprintf(stderr, "dts: DTS is not running on %s (nothing answers on "
	    "%s): the task runs unmanaged, not coscheduled (dts.conf: "
	    "no_service)\n", host, sock);
	spank_unsetenv(sp, STATE_ENV);
	return 0;
}

/*
 * One request, one reply.  0 (reply set), 1 (no dts: no_service said
 * run), or -1 (refused, logged).
 */
static int
ask(spank_t sp, const char *sock, const char *host, const char *req,
    char *reply, size_t len)
{
	char	 err[ADOPT_MSG_MAX];

	if (adopt_ask(sock, req, reply, len, ADOPT_REPLY_WAIT_MS, err,
	    sizeof(err)) == 0)
		return 0;
	if (adopt_service_absent(sock))
		return no_service(sp, sock, host) == 0 ? 1 : -1;
	slurm_error("dts: %s: task not started", err);
	return -1;
}

/* "OK ...[\nSTATE path]": STATE_ENV for the task, as dts-run does. */
static void
take_state(spank_t sp, const char *reply)
{
	const char	*s = strstr(reply, "\n" ADOPT_STATE_LINE " ");

	if (s != NULL)
		spank_setenv(sp, STATE_ENV, s + strlen(ADOPT_STATE_LINE) + 2,
		    1);
	else
		spank_unsetenv(sp, STATE_ENV);
}

/* The task into its job's gang: 0, or -1 refused (one line logged). */
static int
adopt_task(spank_t sp)
{
	uint32_t	 jobid;
	char		 label[16], sock[PATH_ARG_MAX], host[256];
	char		 req[ADOPT_MSG_MAX], reply[ADOPT_MSG_MAX], err[256];
	int		 rc, w;

	if (gethostname(host, sizeof(host)) == -1)
		snprintf(host, sizeof(host), "this node");
	host[sizeof(host) - 1] = '\0';
	if (spank_get_item(sp, S_JOB_ID, &jobid) != ESPANK_SUCCESS) {
		slurm_error("dts: no job id from Slurm: task not started");
		return -1;
	}
	snprintf(label, sizeof(label), "s%u", (unsigned)jobid);
	if (job_label_check(label, err, sizeof(err)) == -1) {
		slurm_error("dts: job %s: %s: task not started", label, err);
		return -1;
	}
	if (expand(sock, sizeof(sock), sock_arg) == -1) {
		slurm_error("dts: socket=%s: too long: task not started",
		    sock_arg);
		return -1;
	}
	if ((w = job_weight(sp)) > weight_max) {
		slurm_error("dts: job %s: weight %d above %d, this cluster's "
		    "most (plugstack.conf: weight_max): task not started",
		    label, w, weight_max);
		return -1;
	}
	snprintf(req, sizeof(req), "ADOPT run\n%s\n%s %s", ADOPT_STATE_LINE,
	    ADOPT_JOB_LINE, label);
	if (w > 0)
		snprintf(req + strlen(req), sizeof(req) - strlen(req),
		    "\n%s %d", ADOPT_WEIGHT_LINE, w);
	if ((rc = ask(sp, sock, host, req, reply, sizeof(reply))) != 0)
		return rc == 1 ? 0 : -1;
	if (w > 0 && strcmp(reply, ADOPT_REFUSAL_NO_WEIGHT) == 0) {
		/* a dts from before WEIGHT: the job without its weight */
		fprintf(stderr, "dts: the DTS on %s takes no job weight "
		    "(older): job %s runs with the master's default\n", host,
		    label);
		*strrchr(req, '\n') = '\0';
		if ((rc = ask(sp, sock, host, req, reply, sizeof(reply))) != 0)
			return rc == 1 ? 0 : -1;
	}
	if (strcmp(reply, ADOPT_REFUSAL_OLD) == 0) {
		/* a dts from before the JOB line: its one gang */
		snprintf(req, sizeof(req), "ADOPT run\n%s", ADOPT_STATE_LINE);
		if ((rc = ask(sp, sock, host, req, reply, sizeof(reply))) != 0)
			return rc == 1 ? 0 : -1;
	}
	if (strncmp(reply, "OK", 2) != 0 || (reply[2] != '\0' &&
	    reply[2] != ' ' && reply[2] != '\n')) {
		slurm_error("dts: %s: %s: task not started", host,
		    strncmp(reply, "ERR ", 4) == 0 ? reply + 4 : reply);
		return -1;
	}
	take_state(sp, reply);
	spank_setenv(sp, JOB_ENV, label, 1);
	return 0;
}

/*
 * In the task, before its exec.  A refused task ends here, with
 * REFUSED_EXIT: Slurm ignores the return of a plugin that plugstack.conf
 * calls optional, and a task the operator said to refuse must not run.
 */
int
slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (!spank_remote(sp) || (opt_dts == -1 ? def_dts : opt_dts) == 0)
		return 0;
	if (adopt_task(sp) == -1) {
		fflush(NULL);
		_exit(REFUSED_EXIT);
	}
	return 0;
}
