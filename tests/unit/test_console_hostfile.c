/*
 * test_console_hostfile.c - MPI host files for the console's `hosts FILE`:
 * Open MPI and MPICH lines, comments, blank lines, duplicates, every kind
 * of bad line (one-line error naming file and line, nothing changed), and
 * the command itself (destinations, known nodes, output, errors).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <unistd.h>

#include "cmds.h"
#include "console_fixture.h"
#include "hostfile.h"

/* A resolver without DNS: nodeK -> 10.9.0.K, addresses as they are. */
static int
fake_resolve(const char *name, struct in_addr *out, char *err, size_t errlen)
{
	int	 k;

	if (inet_pton(AF_INET, name, out) == 1)
		return 0;
	if (sscanf(name, "node%d", &k) == 1 && k >= 0 && k < 256) {
		char a[32];

		snprintf(a, sizeof(a), "10.9.0.%d", k);
		inet_pton(AF_INET, a, out);
		return 0;
	}
	snprintf(err, errlen, "Name or service not known");
	return -1;
}

/* Parse one line: rc, and name/slots/err into statics. */
static char p_name[HOST_NAME_MAX_], p_err[256];
static int p_slots;

static int
parse(const char *line)
{
	p_name[0] = p_err[0] = '\0';
	p_slots = -1;
	return hostfile_parse_line(line, p_name, sizeof(p_name), &p_slots,
	    p_err, sizeof(p_err));
}

static void
test_line_formats(void **state)
{
	(void)state;
	assert_int_equal(parse("node1"), 1);
	assert_string_equal(p_name, "node1");
	assert_int_equal(p_slots, 0);
	assert_int_equal(parse("node1 slots=4"), 1);	/* Open MPI */
	assert_string_equal(p_name, "node1");
	assert_int_equal(p_slots, 4);
	assert_int_equal(parse("  node2\tslots=2 max_slots=8  \n"), 1);
	assert_string_equal(p_name, "node2");
	assert_int_equal(p_slots, 2);
	assert_int_equal(parse("node3 max-slots=3"), 1);
	assert_int_equal(p_slots, 0);
	assert_int_equal(parse("node3 count=5"), 1);
	assert_int_equal(p_slots, 5);
	assert_int_equal(parse("node3 cpu=6 slots_max=6"), 1);
	assert_int_equal(p_slots, 6);
	assert_int_equal(parse("node4:8"), 1);		/* MPICH */
	assert_string_equal(p_name, "node4");
	assert_int_equal(p_slots, 8);
	assert_int_equal(parse("10.0.0.5:2\r\n"), 1);	/* CRLF */
	assert_string_equal(p_name, "10.0.0.5");
	assert_int_equal(p_slots, 2);
	assert_int_equal(parse("h-1.example.org slots=1 # the head node"), 1);
	assert_string_equal(p_name, "h-1.example.org");
	assert_int_equal(p_slots, 1);
	assert_int_equal(parse("node_7#no space before the comment"), 1);
	assert_string_equal(p_name, "node_7");
}

static void
test_line_skipped(void **state)
{
	(void)state;
	assert_int_equal(parse(""), 0);
	assert_int_equal(parse("\n"), 0);
	assert_int_equal(parse("   \t \r\n"), 0);
	assert_int_equal(parse("# a comment"), 0);
	assert_int_equal(parse("   # indented: node9 slots=2"), 0);
	assert_string_equal(p_err, "");
}

static void
test_line_errors(void **state)
{
	char	 longline[HOSTFILE_LINE_MAX + 16];

	(void)state;
	assert_int_equal(parse("node1 slots=0"), -1);
	assert_string_equal(p_err, "bad count \"0\" in \"slots=0\" (1 to "
	    "1000000)");
	assert_int_equal(parse("node1 slots=x"), -1);
	assert_int_equal(parse("node1 slots="), -1);
	assert_int_equal(parse("node1 slots=-2"), -1);
	assert_int_equal(parse("node1 slots=1000001"), -1);
	assert_int_equal(parse("node1 slots=99999999999999999999"), -1);
	assert_int_equal(parse("node1:"), -1);
	assert_string_equal(p_err, "bad slot count \"\" after \"node1:\" (1 to "
	    "1000000; Open MPI: host slots=N; MPICH: host:N)");
	assert_int_equal(parse("node1:two"), -1);
	assert_int_equal(parse("node1:2:3"), -1);
	assert_int_equal(parse(":4"), -1);
	assert_int_equal(parse("slots=4"), -1);
	assert_string_equal(p_err, "no host name before \"slots=4\" (Open MPI: "
	    "host slots=N; MPICH: host:N)");
	assert_int_equal(parse("node1 4"), -1);
	assert_string_equal(p_err, "\"4\" after the host is not KEY=N (Open "
	    "MPI: host slots=N; MPICH: host:N)");
	assert_int_equal(parse("node1 user=bob"), -1);
	assert_string_equal(p_err, "unknown option \"user\" (slots, max_slots; "
	    "Open MPI: host slots=N; MPICH: host:N)");
	assert_int_equal(parse("node1:2 slots=2"), -1);
	assert_string_equal(p_err, "slots given twice (host:N and slots=)");
	assert_int_equal(parse("node1 slots=4 max_slots=2"), -1);
	assert_string_equal(p_err, "slots=4 more than max_slots=2");
	assert_int_equal(parse("bob@node1"), -1);
	assert_string_equal(p_err, "bad host name \"bob@node1\" (letters, "
	    "digits, '.', '-', '_', or an IPv4 address)");
	assert_int_equal(parse("-node1"), -1);
	assert_int_equal(parse(".node1"), -1);
	assert_int_equal(parse("node/1"), -1);
	assert_int_equal(parse("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), -1);
	assert_non_null(strstr(p_err, "longer than 63 bytes"));
	memset(longline, 'a', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	assert_int_equal(parse(longline), -1);
	assert_string_equal(p_err, "line longer than 1024 bytes");
	/* a long error stays one line */
	assert_int_equal(parse("node1 slots=1 slots=1 slots=1 slots=1 "
	    "slots=1 slots=1 slots=1 slots=1 slots=1 slots=1 slots=1 slots=1 "
	    "slots=1 slots=1 slots=1 slots=1 slots=1"), -1);
	assert_null(strchr(p_err, '\n'));
}

/* hostfile_read on len bytes of text. */
static int
read_buf(const char *text, size_t len, struct hostfile *hf, char *err,
    size_t errlen)
{
	FILE	*f = fmemopen((void *)text, len, "r");
	int	 rc;

	assert_non_null(f);
	rc = hostfile_read(f, "hf", fake_resolve, hf, err, errlen);
	fclose(f);
	return rc;
}

static int
read_str(const char *text, struct hostfile *hf, char *err, size_t errlen)
{
	return read_buf(text, strlen(text), hf, err, errlen);
}

static void
test_read_file(void **state)
{
	struct hostfile	*hf = calloc(1, sizeof(*hf));
	char		 err[512], a[INET_ADDRSTRLEN];

	(void)state;
	assert_non_null(hf);
	assert_int_equal(read_str(
	    "# an Open MPI host file\n"
	    "\n"
	    "node1 slots=2\n"
	    "node2 slots=2   # second\n"
	    "10.9.0.3\n"
	    "node1 slots=1\n"		/* again: slots add up */
	    "node4:4", hf, err, sizeof(err)), 0);	/* no newline at end */
	assert_string_equal(hf->path, "hf");
	assert_int_equal(hf->n, 4);
	assert_string_equal(hf->v[0].name, "node1");
	assert_int_equal(hf->v[0].slots, 3);
	assert_int_equal(hf->v[0].line, 3);
	inet_ntop(AF_INET, &hf->v[0].addr, a, sizeof(a));
	assert_string_equal(a, "10.9.0.1");
	assert_string_equal(hf->v[1].name, "node2");
	assert_string_equal(hf->v[2].name, "10.9.0.3");
	assert_int_equal(hf->v[2].slots, 0);
	assert_string_equal(hf->v[3].name, "node4");
	assert_int_equal(hf->v[3].slots, 4);
	assert_int_equal(hf->v[3].line, 7);
	/* node3 and 10.9.0.3 are one node: the first name stays */
	assert_int_equal(read_str("10.9.0.3:1\nnode3:2\n", hf, err,
	    sizeof(err)), 0);
	assert_int_equal(hf->n, 1);
	assert_string_equal(hf->v[0].name, "10.9.0.3");
	assert_int_equal(hf->v[0].slots, 3);
	free(hf);
}

static void
test_read_errors_change_nothing(void **state)
{
	struct hostfile	*hf = calloc(1, sizeof(*hf));
	char		 err[512], big[NODES_MAX * 16 + 64];
	size_t		 off = 0;

	(void)state;
	assert_non_null(hf);
	assert_int_equal(read_str("node1:2\nnode2:2\n", hf, err, sizeof(err)), 0);
	assert_int_equal(hf->n, 2);

	assert_int_equal(read_str("node5\n# ok so far\nnode6 slots=two\n", hf,
	    err, sizeof(err)), -1);
	assert_string_equal(err, "hf:3: bad count \"two\" in \"slots=two\" (1 "
	    "to 1000000)");
	assert_int_equal(hf->n, 2);			/* unchanged */
	assert_string_equal(hf->v[0].name, "node1");

	assert_int_equal(read_str("node1\nnowhere.invalid:2\n", hf, err,
	    sizeof(err)), -1);
	assert_string_equal(err, "hf:2: cannot resolve \"nowhere.invalid\": "
	    "Name or service not known");
	assert_int_equal(hf->n, 2);

	assert_int_equal(read_str("# only comments\n\n   \n", hf, err,
	    sizeof(err)), -1);
	assert_string_equal(err, "hf: no host in the file (Open MPI: host "
	    "slots=N; MPICH: host:N)");
	assert_int_equal(read_str("", hf, err, sizeof(err)), -1);
	assert_int_equal(hf->n, 2);

	assert_int_equal(read_buf("node1\nnode\0x\n", 13, hf, err,
	    sizeof(err)), -1);
	assert_string_equal(err, "hf:2: a NUL byte: not a text file");
	assert_int_equal(read_str("node1 slots=999999\nnode1 slots=2\n", hf,
	    err, sizeof(err)), -1);
	assert_string_equal(err, "hf:2: more than 1000000 slots on node1");

	/* one host more than the table holds */
	for (int i = 0; i <= NODES_MAX; i++)
		off += (size_t)snprintf(big + off, sizeof(big) - off,
		    "10.8.%d.%d\n", i / 256, i % 256);
	assert_int_equal(read_str(big, hf, err, sizeof(err)), -1);
	assert_string_equal(err, "hf:257: more than 256 hosts");
	assert_int_equal(hf->n, 2);
	assert_string_equal(hf->v[1].name, "node2");
	free(hf);
}

static void
test_load_missing(void **state)
{
	struct hostfile	*hf = calloc(1, sizeof(*hf));
	char		 err[512];

	(void)state;
	assert_non_null(hf);
	assert_int_equal(hostfile_load("/nonexistent/hosts", fake_resolve, hf,
	    err, sizeof(err)), -1);
	assert_string_equal(err, "/nonexistent/hosts: No such file or "
	    "directory");
	assert_int_equal(hostfile_load("/", fake_resolve, hf, err,
	    sizeof(err)), -1);
	assert_string_equal(err, "/: Is a directory");
	assert_int_equal(hf->n, 0);
	free(hf);
}

/* ---- the console command ------------------------------------------------ */

static const char *
tmpfile_with(const char *text)
{
	static char	 path[64];
	int		 fd;

	snprintf(path, sizeof(path), "/tmp/dts-hostfile.XXXXXX");
	assert_true((fd = mkstemp(path)) != -1);
	assert_int_equal(write(fd, text, strlen(text)), (int)strlen(text));
	close(fd);
	return path;
}

static void
test_cmd_hosts(void **state)
{
	struct fixture	*f = *state;
	struct in_addr	 dst[8];
	char		 cmd[128], a[INET_ADDRSTRLEN];
	const char	*path, *out;
	int		 n, sent;

	/* no file yet: the destinations of the configuration */
	assert_int_equal(cmds_exec(&f->c, "hosts"), 0);
	assert_contains(fixture_output(f), "no host file read; the console "
	    "sends to console.nodes: 127.0.0.1, port 476");

	path = tmpfile_with("# MPICH style\n127.0.0.2:2\n127.0.0.3:1\n");
	snprintf(cmd, sizeof(cmd), "hosts %s", path);
	assert_int_equal(cmds_exec(&f->c, cmd), 0);
	out = fixture_output(f);
	assert_contains(out, "2 hosts from ");
	assert_contains(out, ": the console drives them from now on\n");
	assert_contains(out, "127.0.0.2                127.0.0.2       2\n");
	assert_int_equal(f->c.net.how, NET_HOSTFILE);
	n = net_destinations(&f->c.net, dst, 8);
	assert_int_equal(n, 2);
	inet_ntop(AF_INET, &dst[1], a, sizeof(a));
	assert_string_equal(a, "127.0.0.3");
	/* both are known nodes now, named after the file, not heard */
	assert_int_equal(f->c.nodes.n, 2);
	assert_string_equal(f->c.nodes.v[0].name, "127.0.0.2");
	assert_int_equal(f->c.nodes.v[0].heard, 0);

	/* listed again */
	assert_int_equal(cmds_exec(&f->c, "hosts"), 0);
	out = fixture_output(f);
	assert_contains(out, "2 hosts from /tmp/dts-hostfile.");
	assert_contains(out, "127.0.0.3                127.0.0.3       1\n");
	assert_int_equal(cmds_exec(&f->c, "show"), 0);
	assert_contains(fixture_output(f), "hosts of /tmp/dts-hostfile.");

	/* once started, a new file gets the schedule at once */
	assert_int_equal(cmds_exec(&f->c, "start"), 0);
	fixture_output(f);
	unlink(path);
	path = tmpfile_with("127.0.0.4 slots=4\n");
	snprintf(cmd, sizeof(cmd), "hosts %s", path);
	sent = (int)f->c.net.sent;
	assert_int_equal(cmds_exec(&f->c, cmd), 0);
	assert_contains(fixture_output(f), "1 host from ");
	assert_int_equal((int)f->c.net.sent, sent + 1);
	unlink(path);

	/* a bad line: one line naming file and line; nothing changes */
	path = tmpfile_with("127.0.0.5:2\n127.0.0.6 slots=x\n");
	snprintf(cmd, sizeof(cmd), "hosts %s", path);
	assert_int_equal(cmds_exec(&f->c, cmd), -1);
	snprintf(cmd, sizeof(cmd), "hosts: %s:2: bad count \"x\" in "
	    "\"slots=x\" (1 to 1000000)", path);
	assert_string_equal(f->c.out.err, cmd);
	assert_string_equal(fixture_output(f), "");
	n = net_destinations(&f->c.net, dst, 8);
	assert_int_equal(n, 1);
	inet_ntop(AF_INET, &dst[0], a, sizeof(a));
	assert_string_equal(a, "127.0.0.4");
	unlink(path);
	assert_int_equal(cmds_exec(&f->c, "hosts /nonexistent/hf"), -1);
	assert_string_equal(f->c.out.err, "hosts: /nonexistent/hf: No such "
	    "file or directory");
	assert_int_equal(cmds_exec(&f->c, "hosts a b"), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_formats),
		cmocka_unit_test(test_line_skipped),
		cmocka_unit_test(test_line_errors),
		cmocka_unit_test(test_read_file),
		cmocka_unit_test(test_read_errors_change_nothing),
		cmocka_unit_test(test_load_missing),
		cmocka_unit_test_setup_teardown(test_cmd_hosts,
		    fixture_setup, fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
