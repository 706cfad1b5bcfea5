/*
 * run.c - dts-run: ask the node's dts to adopt this process into the gang,
 * then exec the daemon or command, which so starts inside the gang.
 *
 *   dts-run [-S socket] --pvmd [--] [pvmd-arguments ...]
 *   dts-run [-S socket] -- command [arguments ...]
 *
 * The PVM launch script is `exec dts-run --pvmd -- "$@"`: dts names the
 * real pvmd (its root-owned config decides, not the caller).  dts-run
 * never reads stdin or writes stdout, which belong to PVM's start-up
 * handshake; a refusal is one line on stderr and exit status 126.
 */
#include <config.h>

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "adopt_msg.h"

#define RUN_EXIT_REFUSED 126
#define RUN_EXIT_NOEXEC  127

static void __attribute__((noreturn, format(printf, 2, 3)))
die(int rc, const char *fmt, ...)
{
	va_list ap;

	fputs("dts-run: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(rc);
}

static void __attribute__((noreturn))
usage(int rc)
{
	fprintf(rc ? stderr : stdout,
	    "usage: dts-run [-S socket] --pvmd [--] [pvmd-arguments ...]\n"
	    "       dts-run [-S socket] -- command [arguments ...]\n");
	exit(rc);
}

/* One request, one reply (NUL terminated into reply). */
static void
ask(const char *path, const char *req, char *reply, size_t len)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct pollfd p;
	ssize_t n;
	int fd;

	if (strlen(path) >= sizeof(sun.sun_path))
		die(RUN_EXIT_REFUSED, "socket path too long: %s", path);
	memcpy(sun.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0)) == -1)
		die(RUN_EXIT_REFUSED, "socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1)
		die(RUN_EXIT_REFUSED, "cannot reach the DTS service at %s: %s "
		    "(is dts running? systemctl start dts, or dts -d)", path,
		    strerror(errno));
	if (send(fd, req, strlen(req), MSG_NOSIGNAL) == -1)
		die(RUN_EXIT_REFUSED, "%s: %s", path, strerror(errno));
	p.fd = fd;
	p.events = POLLIN;
	if (poll(&p, 1, ADOPT_REPLY_WAIT_MS) != 1)
		die(RUN_EXIT_REFUSED, "no answer from dts at %s", path);
	if ((n = recv(fd, reply, len - 1, 0)) <= 0)
		die(RUN_EXIT_REFUSED, "dts at %s closed the connection", path);
	reply[n] = '\0';
	close(fd);
}

int
main(int argc, char **argv)
{
	const char *sock = getenv(ADOPT_SOCKET_ENV);
	char reply[ADOPT_MSG_MAX + 1];
	int i, pvmd = 0;

	if (sock == NULL || sock[0] == '\0')
		sock = ADOPT_SOCKET_DEFAULT;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--pvmd") == 0)
			pvmd = 1;
		else if (strcmp(argv[i], "-S") == 0 && i + 1 < argc)
			sock = argv[++i];
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
	ask(sock, pvmd ? "ADOPT pvmd" : "ADOPT run", reply, sizeof(reply));
	if (strncmp(reply, "OK ", 3) != 0 && strcmp(reply, "OK") != 0)
		die(RUN_EXIT_REFUSED, "%s", strncmp(reply, "ERR ", 4) == 0 ?
		    reply + 4 : "malformed answer from dts");
	if (pvmd) {
		/* argv[i-1] becomes pvmd's argv[0] */
		argv[i - 1] = reply + 3;
		execv(reply + 3, argv + i - 1);
		die(RUN_EXIT_NOEXEC, "cannot run pvmd %s: %s", reply + 3,
		    strerror(errno));
	}
	execvp(argv[i], argv + i);
	die(RUN_EXIT_NOEXEC, "cannot run %s: %s", argv[i], strerror(errno));
}
