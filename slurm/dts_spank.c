/*
 * dts_spank.c - dts_spank.so, a SPANK plugin: every task of a Slurm job
 * step joins the DTS job USER:sJOBID on its node before it execs, through
 * the node's adoption socket, as dts-run does (run/run.c): the plugin is
 * only a client of that socket, and dts makes every check (dts(8)).
 *
 * plugstack.conf (man/dts_spank.8):
 *   required PATH/dts_spank.so [default=on|off] [socket=PATH] [conf=PATH]
 * "%h" in socket= and conf= is the node's host name.  srun, sbatch and
 * salloc get --dts[=on|off]; without it the operator's default= holds.
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

static int	opt_dts = -1;			/* --dts: 1 on, 0 off, -1 none */
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

/* registered in slurm_spank_init: a spank_options table reaches no
 * sbatch or salloc (spank.h) */
static struct spank_option dts_option = {
	"dts", "[on|off]", "coschedule this job's tasks with DTS on every "
	    "node (default: the operator's, plugstack.conf)", 2, 0, opt_cb
};

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

	if ((ctx == S_CTX_LOCAL || ctx == S_CTX_REMOTE ||
	    ctx == S_CTX_ALLOCATOR) &&
	    (e = spank_option_register(sp, &dts_option)) != ESPANK_SUCCESS) {
		slurm_error("dts: cannot register --dts: %s",
		    spank_strerror(e));
		return -1;
	}
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
		} else {
			slurm_error("dts: plugstack.conf: unknown argument "
			    "\"%s\" (default=on|off, socket=PATH, conf=PATH)",
			    av[i]);
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
	int		 rc;

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
	snprintf(req, sizeof(req), "ADOPT run\n%s\n%s %s", ADOPT_STATE_LINE,
	    ADOPT_JOB_LINE, label);
	if ((rc = ask(sp, sock, host, req, reply, sizeof(reply))) != 0)
		return rc == 1 ? 0 : -1;
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
