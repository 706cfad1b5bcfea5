/*
 * state_read.c - dts-state: read the node's state file safely (the
 * sequence lock of state_file.h, which no shell reader can follow) and
 * print it, or some of its values.
 *
 *   dts-state [-f file] [key ...]
 *   dts-state -h | -V
 *
 * The file: -f, else $DTS_STATE, else the default state_file.  With no
 * key, every line "key value", numbers without their leading zeros and
 * names without their padding; with keys, their values one a line, in
 * the order asked.  A missing, torn or garbled file, or an unknown key:
 * one line on stderr, exit 1 (2 for a usage error).
 */
#include <config.h>

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adopt_msg.h"
#include "cli.h"
#include "names.h"
#include "state_file.h"

static sigjmp_buf	 bus_jmp;

const char cli_prog[] = "dts-state";

static void __attribute__((noreturn))
usage(int rc)
{
	fprintf(rc ? stderr : stdout, "usage: dts-state [-f file] [key ...]\n"
	    "       dts-state -h | -V\n");
	exit(rc);
}

/* The file shrank under the mapping: only root can do that. */
static void
on_bus(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

static void
print_value(enum state_field f, uint64_t v)
{
	const char *const	*names = state_names(f);

	if (names != NULL)
		printf("%s\n", v <= 255 ? names_get(names, (unsigned)v) : "?");
	else
		printf("%llu\n", (unsigned long long)v);
}

/* One whole read of path into v, or exit 1 with why. */
static void
read_state(const char *path, uint64_t v[STATE_FIELDS])
{
	static struct state_reader	 r;
	struct sigaction		 sa;
	char				 err[512];

	if (state_reader_open(&r, path, err, sizeof(err)) == -1)
		cli_die(1, "%s", err);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_bus;
	sigemptyset(&sa.sa_mask);
	(void)sigaction(SIGBUS, &sa, NULL);
	if (sigsetjmp(bus_jmp, 1) != 0)
		cli_die(1, "%s: the file shrank as it was read", path);
	if (state_reader_read(&r, v, err, sizeof(err)) == -1)
		cli_die(1, "%s: %s", path, err);
	state_reader_close(&r);
}

int
main(int argc, char **argv)
{
	const char		*path = NULL;
	uint64_t		 v[STATE_FIELDS];
	int			 c, i, f, want[STATE_FIELDS];

	while ((c = getopt(argc, argv, "f:hV")) != -1) {
		switch (c) {
		case 'f':
			path = optarg;
			break;
		case 'h':
			usage(0);
		case 'V':
			printf("dts-state %s\n", PACKAGE_VERSION);
			return 0;
		default:
			usage(2);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > STATE_FIELDS)
		cli_die(2, "%d keys: the file has %d", argc, STATE_FIELDS);
	for (i = 0; i < argc; i++)
		if ((want[i] = state_field_find(argv[i])) == -1)
			cli_die(2, "no key %s in a state file", argv[i]);
	if (path != NULL && path[0] == '\0')
		cli_die(2, "-f: the file name is empty");
	if (path == NULL && (path = getenv(STATE_ENV)) == NULL)
		path = STATE_FILE_DEFAULT;
	if (path[0] == '\0')	/* dts-run unsets it when there is none */
		cli_die(1, "%s is empty: it names no state file", STATE_ENV);

	read_state(path, v);
	if (argc == 0) {
		for (f = 0; f < STATE_FIELDS; f++) {
			printf("%s ", state_key((enum state_field)f));
			print_value((enum state_field)f, v[f]);
		}
	} else {
		for (i = 0; i < argc; i++)
			print_value((enum state_field)want[i], v[want[i]]);
	}
	if (fflush(stdout) == EOF || ferror(stdout))
		cli_die(1, "stdout: write error");
	return 0;
}
