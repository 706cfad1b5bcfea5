/*
 * run.c - dts-run: ask the node's dts to adopt this process into the gang,
 * then exec the daemon or command, which so starts inside the gang.
 *
 *   dts-run [-S socket] [--job label] --pvmd [--] [pvmd-arguments ...]
 *   dts-run [-S socket] [--job label] -- command [arguments ...]
 *
 * The PVM launch script is `exec dts-run --pvmd -- "$@"`: dts names the
 * real pvmd (its root-owned config decides, not the caller).  dts-run
 * never reads stdin or writes stdout, which belong to PVM's start-up
 * handshake; a refusal is one line on stderr and exit status 126.  With
 * --pvmd it also starts dts-pvmjoin (start_joiner) before the exec.
 * The daemon or command gets the path of dts's state file in STATE_ENV
 * (dts(8), "SUSPEND AWARENESS"), and so does everything it starts.
 * The process goes into the gang of its job, USER:LABEL (job.h): the
 * label from --job, else DTS_JOB, else "pvm"; dts-run
 * checks it before it asks dts, sends it as the request's JOB line, and
 * exports it in DTS_JOB, so that what the command starts is of its job.
 *
 * When no dts runs on the node (its socket is missing, or nobody accepts
 * on it), dts.conf's no_service decides (no_service()): run the command,
 * or the pvmd dts.conf names, unmanaged with one line on stderr, or
 * refuse.  dts-run reads dts.conf ($DTS_CONF, else the installed one)
 * only then, as the user: it grants nothing (the user could run pvmd
 * directly), it only says what the administrator wants.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "adopt_msg.h"
#include "cli.h"
#include "conf.h"
#include "job.h"
#include "spawn.h"

#define CONF_ENV "DTS_CONF"	/* dts.conf for no_service, if not ours */
#define HOOK_MARK "DTS launch script"

#define RUN_EXIT_REFUSED 126
#define RUN_EXIT_NOEXEC  127

const char cli_prog[] = "dts-run";

static void __attribute__((noreturn))
usage(int rc)
{
	fprintf(rc ? stderr : stdout,
	    "usage: dts-run [-S socket] [--job label] --pvmd [--] "
	    "[pvmd-arguments ...]\n"
	    "       dts-run [-S socket] [--job label] -- command "
	    "[arguments ...]\n");
	exit(rc);
}

/* path is the launch script (the hook's pvmd), not a pvmd: 1. */
static int
is_launch_script(const char *path)
{
	char	 buf[512];
	ssize_t	 n;
	int	 fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd == -1)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strncmp(buf, "#!", 2) == 0 && strstr(buf, HOOK_MARK) != NULL;
}

/*
 * No dts answers on sock: what dts.conf's no_service says.  "run": one
 * line on stderr, then exec the command, or the real pvmd (dts.conf:
 * pvmd), unmanaged: not in a gang, at the caller's own (normal)
 * priority, no dts-pvmjoin, no STATE_ENV.  "refuse", or a dts.conf that
 * cannot be read: one line, exit RUN_EXIT_REFUSED.
 */
static void __attribute__((noreturn))
no_service(const char *sock, int pvmd, char **argv)
{
	static struct dts_conf	 c;
	const char		*path = getenv(CONF_ENV), *what;
	char			 err[512];

	if (path == NULL || path[0] == '\0')
		path = SYSCONFDIR "/dts/dts.conf";
	what = pvmd ? "pvmd" : argv[0];
	conf_defaults(&c);
	if (conf_load(&c, path, 1, err, sizeof(err)) == -1)
		cli_die(RUN_EXIT_REFUSED, "DTS is not running on this node "
		    "(nothing answers on %s), and its configuration cannot say "
		    "whether %s may run without it: %s", sock, what, err);
	if (c.no_service == NO_SERVICE_REFUSE)
		cli_die(RUN_EXIT_REFUSED, "DTS is not running on this node "
		    "(nothing answers on %s): %s not started (dts.conf: "
		    "no_service = \"refuse\"; systemctl start dts, or dts -d)",
		    sock, what);
	if (pvmd && is_launch_script(conf_pvmd(&c)))
		cli_die(RUN_EXIT_REFUSED, "DTS is not running on this node, and "
		    "pvmd %s is the launch script itself (dts.conf: pvmd)",
		    conf_pvmd(&c));
	fprintf(stderr, "dts-run: DTS is not running on this node (nothing "
	    "answers on %s): %s runs unmanaged, at normal priority, not "
	    "coscheduled (dts.conf: no_service)\n", sock, what);
	if (unsetenv(STATE_ENV) == -1)
		cli_die(RUN_EXIT_REFUSED, "%s: %s", STATE_ENV, strerror(errno));
	if (pvmd) {
		argv[0] = (char *)conf_pvmd(&c);
		execv(argv[0], argv);
		cli_die(RUN_EXIT_NOEXEC, "cannot run pvmd %s: %s", argv[0],
		    strerror(errno));
	}
	execvp(argv[0], argv);
	cli_die(RUN_EXIT_NOEXEC, "cannot run %s: %s", argv[0], strerror(errno));
}

/*
 * One request, one reply (NUL terminated into reply); no dts at all:
 * no_service() (argv: the command, or pvmd's argv with argv[0] its own).
 */
static void
ask(const char *path, const char *req, char *reply, size_t len, int pvmd,
    char **argv)
{
	char	 err[ADOPT_MSG_MAX];

	if (adopt_ask(path, req, reply, len, ADOPT_REPLY_WAIT_MS, err,
	    sizeof(err)) == -1) {
		if (adopt_service_absent(path))
			no_service(path, pvmd, argv);
		cli_die(RUN_EXIT_REFUSED, "%s", err);
	}
}

/*
 * The job's label (job_label_pick), checked: a bad one is refused here
 * in one line naming where it came from, before dts is asked.  Exported
 * in JOB_ENV for what the command starts.
 */
static const char *
job_label(const char *opt)
{
	const char	*label = job_label_pick(opt), *from;
	char		 err[256];

	if (opt != NULL && *opt != '\0')
		from = "--job";
	else if (label == getenv(JOB_ENV))
		from = JOB_ENV;
	else
		from = "the default";
	if (job_label_check(label, err, sizeof(err)) == -1)
		cli_die(RUN_EXIT_REFUSED, "%s: %s; not started", from, err);
	if (setenv(JOB_ENV, label, 1) == -1)
		cli_die(RUN_EXIT_REFUSED, "%s: %s", JOB_ENV, strerror(errno));
	return getenv(JOB_ENV);	/* label may have been that variable's */
}

/*
 * Adoption into the job label: "ADOPT pvmd|run", "STATE", "JOB label".
 * A dts from before the JOB line refuses it with ADOPT_REFUSAL_OLD, word
 * for word: asked again without it, that dts adopts into its one gang.
 */
static void
adopt(const char *path, const char *label, char *reply, size_t len,
    int pvmd, char **argv)
{
	const char	*first = pvmd ? "ADOPT pvmd" : "ADOPT run";
	char		 req[ADOPT_MSG_MAX];

	snprintf(req, sizeof(req), "%s\n%s\n%s %s", first, ADOPT_STATE_LINE,
	    ADOPT_JOB_LINE, label);
	ask(path, req, reply, len, pvmd, argv);
	if (strcmp(reply, ADOPT_REFUSAL_OLD) != 0)
		return;
	snprintf(req, sizeof(req), "%s\n%s", first, ADOPT_STATE_LINE);
	ask(path, req, reply, len, pvmd, argv);
}

/*
 * Every task of this pvmd joins the gang, however it was started: the
 * helper dts-pvmjoin watches pvmd's task list and asks dts to take in the
 * tasks it finds outside (dts(8), "Tasks started outside pvmd").  It is
 * started here, adopted already, so it runs in the gang as this user.
 * Forked twice, so that pvmd never sees it as a child of its own; its
 * stdin, stdout and stderr are /dev/null and it holds no other fd: ours
 * are PVM's start-up handshake.  A root gang pulls nobody in (dts
 * refuses), so root gets no helper.  Nothing here can stop pvmd.
 */
/*
 * In the child: fork again and leave, so that the joiner's parent is not
 * pvmd; then nothing but /dev/null.  Our other fds close on exec.
 */
static const char *
joiner_setup(void *arg)
{
	pid_t	 pid;

	(void)arg;
	if ((pid = fork()) == -1)
		return "fork";
	if (pid != 0)
		_exit(0);
	if (spawn_devnull() == -1)
		return "/dev/null";
	/* before Linux 5.11: closed now, and a failed exec goes unreported */
	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == -1)
		(void)close_range(3, ~0U, 0);
	return NULL;
}

static void
start_joiner(const char *sock)
{
	const char	*path = getenv(PVMJOIN_ENV);
	char		 me[32], err[256];
	char		*argv[] = { "dts-pvmjoin", "-p", me, "-S", (char *)sock,
	    NULL };
	pid_t		 pid;

	if (getuid() == 0 || geteuid() == 0)
		return;
	if (path == NULL || path[0] == '\0')
		path = PKGLIBEXECDIR "/dts-pvmjoin";
	if (access(path, X_OK) == -1) {
		fprintf(stderr, "dts-run: %s: %s: PVM tasks started outside "
		    "pvmd will not join the gang\n", path, strerror(errno));
		return;
	}
	snprintf(me, sizeof(me), "%d", (int)getpid());	/* soon pvmd */
	if ((pid = spawn(path, argv, joiner_setup, NULL, err,
	    sizeof(err))) == -1) {
		fprintf(stderr, "dts-run: %s: PVM tasks started outside pvmd "
		    "will not join the gang\n", err);
		return;
	}
	(void)waitpid(pid, NULL, 0);	/* the first child, gone already */
}

/*
 * The lines after the first of dts's "OK" (cut off here): STATE_ENV is
 * the state file dts names, or unset if it names none (an older dts, or
 * state_file = "").  Lines it does not know are left alone.
 */
static void
state_env(char *reply)
{
	const char	*path = NULL;
	char		*line = strchr(reply, '\n'), *next;
	size_t		 klen = strlen(ADOPT_STATE_LINE);

	if (line != NULL)
		*line++ = '\0';
	for (; line != NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (strncmp(line, ADOPT_STATE_LINE, klen) == 0 &&
		    line[klen] == ' ' && line[klen + 1] == '/')
			path = line + klen + 1;
	}
	if (path != NULL ? setenv(STATE_ENV, path, 1) == -1 :
	    unsetenv(STATE_ENV) == -1)
		cli_die(RUN_EXIT_REFUSED, "%s: %s", STATE_ENV, strerror(errno));
}

int
main(int argc, char **argv)
{
	const char	*sock = getenv(ADOPT_SOCKET_ENV), *job = NULL, *label;
	char		 reply[ADOPT_MSG_MAX + 1];
	int		 i, pvmd = 0;

	if (sock == NULL || sock[0] == '\0')
		sock = ADOPT_SOCKET_DEFAULT;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--pvmd") == 0)
			pvmd = 1;
		else if (strcmp(argv[i], "-S") == 0 && i + 1 < argc)
			sock = argv[++i];
		else if (strcmp(argv[i], "--job") == 0 && i + 1 < argc)
			job = argv[++i];
		else if (strncmp(argv[i], "--job=", 6) == 0)
			job = argv[i] + 6;
		else if (strcmp(argv[i], "-h") == 0)
			usage(0);
		else if (strcmp(argv[i], "-V") == 0) {
			printf("dts-run %s\n", PACKAGE_VERSION);
			return 0;
		} else if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		} else if (pvmd)
			break;	/* pvmd's own arguments start here */
		else
			usage(2);
	}
	if (!pvmd && i >= argc)
		usage(2);
	if (job != NULL && *job == '\0')
		cli_die(RUN_EXIT_REFUSED, "--job: the label is empty; not started");
	label = job_label(job);
	adopt(sock, label, reply, sizeof(reply), pvmd,
	    pvmd ? argv + i - 1 : argv + i);
	if (strncmp(reply, "OK ", 3) != 0 && strncmp(reply, "OK\n", 3) != 0 &&
	    strcmp(reply, "OK") != 0)
		cli_die(RUN_EXIT_REFUSED, "%s", strncmp(reply, "ERR ", 4) == 0 ?
		    reply + 4 : "malformed answer from dts");
	state_env(reply);
	if (pvmd) {
		if (reply[2] != ' ' || reply[3] != '/')
			cli_die(RUN_EXIT_REFUSED, "malformed answer from dts");
		if (is_launch_script(reply + 3))	/* it would exec us */
			cli_die(RUN_EXIT_REFUSED, "pvmd %s, as dts names it, is "
			    "the launch script itself (dts.conf: pvmd); not "
			    "started", reply + 3);
		start_joiner(sock);
		/* argv[i-1] becomes pvmd's argv[0] */
		argv[i - 1] = reply + 3;
		execv(reply + 3, argv + i - 1);
		cli_die(RUN_EXIT_NOEXEC, "cannot run pvmd %s: %s", reply + 3,
		    strerror(errno));
	}
	execvp(argv[i], argv + i);
	cli_die(RUN_EXIT_NOEXEC, "cannot run %s: %s", argv[i], strerror(errno));
}
