/*
 * spawn.c - fork and exec a child.  See spawn.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"

#define SPAWN_WHY_MAX 160	/* the child's reason, "step: strerror" */

/* In the child: default dispositions first, then an empty mask. */
static void
reset_signals(void)
{
	sigset_t	 none;
	int		 sig;

	for (sig = 1; sig < NSIG; sig++)
		(void)signal(sig, SIG_DFL);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
}

/* In the child: tell the parent which step failed, and end. */
static void __attribute__((noreturn))
child_fail(int fd, const char *step)
{
	char	 msg[SPAWN_WHY_MAX];
	int	 n;

	n = snprintf(msg, sizeof(msg), "%s: %s", step, strerror(errno));
	if (n > 0 && write(fd, msg, (size_t)n) == -1)
		(void)0;	/* nobody left to tell */
	_exit(SPAWN_EXIT_FAIL);
}

static void __attribute__((noreturn))
child(int errfd, const char *path, char *const argv[],
    spawn_setup_fn setup, void *arg)
{
	const char	*step;

	reset_signals();
	if (setup != NULL && (step = setup(arg)) != NULL)
		child_fail(errfd, step);
	execv(path, argv);
	child_fail(errfd, "exec");
}

/* The child's reason, if it wrote one before ending: its length, or 0. */
static ssize_t
read_why(int fd, char *why, size_t len)
{
	ssize_t	 n;

	do
		n = read(fd, why, len - 1);
	while (n == -1 && errno == EINTR);
	if (n <= 0)
		return 0;
	why[n] = '\0';
	return n;
}

pid_t
spawn(const char *path, char *const argv[], spawn_setup_fn setup,
    void *arg, char *err, size_t errlen)
{
	char		 why[SPAWN_WHY_MAX];
	sigset_t	 all, old;
	int		 ep[2], saved;
	pid_t		 pid;

	if (pipe2(ep, O_CLOEXEC) == -1) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	sigfillset(&all);
	(void)sigprocmask(SIG_SETMASK, &all, &old);
	if ((pid = fork()) == 0) {
		close(ep[0]);
		child(ep[1], path, argv, setup, arg);
	}
	saved = errno;
	(void)sigprocmask(SIG_SETMASK, &old, NULL);
	close(ep[1]);
	if (pid == -1) {
		close(ep[0]);
		snprintf(err, errlen, "fork: %s", strerror(saved));
		return -1;
	}
	/* end of file: exec closed the pipe */
	if (read_why(ep[0], why, sizeof(why)) > 0) {
		close(ep[0]);
		snprintf(err, errlen, "cannot run %s: %s", path, why);
		while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
			;
		return -1;
	}
	close(ep[0]);
	return pid;
}

int
spawn_devnull(void)
{
	int	 fd, rc = 0;

	/* not O_CLOEXEC: it may itself become 0, 1 or 2 */
	if ((fd = open("/dev/null", O_RDWR)) == -1)
		return -1;
	for (int i = STDIN_FILENO; i <= STDERR_FILENO; i++)
		if (dup2(fd, i) == -1)
			rc = -1;
	if (fd > STDERR_FILENO)
		close(fd);
	return rc;
}
