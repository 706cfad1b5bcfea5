/*
 * daemonpipe.c - daemonize through a pipe.  See daemonpipe.h.
 */
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemonpipe.h"
#include "spawn.h"

/* The parent: copy the child's lines to stderr until "ready" (0) or the
 * pipe's end (1). */
static int
wait_ready(const char *prog, int fd, pid_t child, int wait_s,
    const char *what)
{
	char		 buf[1024], *line, *nl;
	size_t		 have = 0;
	ssize_t		 n;
	int		 said = 0, status;
	struct pollfd	 pfd = { .fd = fd, .events = POLLIN };

	for (;;) {
		int r = poll(&pfd, 1, wait_s * 1000);

		if (r == -1 && errno == EINTR)
			continue;
		if (r == 0) {
			fprintf(stderr, "%s: pid %d is not %s after %d s (see "
			    "the log); not waiting any longer\n", prog,
			    (int)child, what, wait_s);
			return 1;
		}
		n = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = '\0';
		for (line = buf; (nl = strchr(line, '\n')) != NULL;
		    line = nl + 1) {
			*nl = '\0';
			if (strcmp(line, DAEMONPIPE_READY) == 0)
				return 0;
			if (line[0] == '+') {	/* news, not a failure */
				printf("%s: %s\n", prog, line + 1);
				fflush(stdout);
				continue;
			}
			fprintf(stderr, "%s: %s\n", prog, line);
			said = 1;
		}
		have = strlen(line);
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1)	/* a line too long: cut */
			have = 0;
	}
	if (waitpid(child, &status, 0) == child && !said) {
		if (WIFSIGNALED(status))
			fprintf(stderr, "%s: start-up failed: killed by "
			    "signal %d\n", prog, WTERMSIG(status));
		else
			fprintf(stderr, "%s: start-up failed: exit status %d "
			    "(see the log)\n", prog, WEXITSTATUS(status));
	} else if (!said)
		fprintf(stderr, "%s: start-up failed (see the log)\n", prog);
	return 1;
}

int
daemonpipe_detach(const char *prog, int wait_s, const char *what)
{
	int	 p[2];
	pid_t	 pid;

	if (pipe2(p, O_CLOEXEC) == -1)
		return -1;
	fflush(NULL);
	if ((pid = fork()) == -1) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid > 0) {
		close(p[1]);
		_exit(wait_ready(prog, p[0], pid, wait_s, what));
	}
	close(p[0]);
	(void)signal(SIGPIPE, SIG_IGN);	/* a parent gone: EPIPE, no death */
	(void)setsid();
	if (chdir("/") == -1 || spawn_devnull() == -1) {
		daemonpipe_say(p[1], strerror(errno));
		_exit(1);
	}
	return p[1];
}

void
daemonpipe_say(int fd, const char *msg)
{
	if (fd != -1)
		(void)dprintf(fd, "%s\n", msg);
}

void
daemonpipe_ready(int *fd)
{
	if (*fd == -1)
		return;
	daemonpipe_say(*fd, DAEMONPIPE_READY);
	close(*fd);
	*fd = -1;
}
