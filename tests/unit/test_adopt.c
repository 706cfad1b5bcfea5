/*
 * test_adopt.c - the adoption socket's decisions (dts/adopt_check.h), on
 * facts as adopt.c gathers them: which requests are well formed, who may
 * be adopted into which job (all uids the caller's, a user name, the
 * `users` list, a good label, a job of that user), and who may ask for
 * whom to JOIN (a member of a job of its own uid, not root's; a target
 * in no job, all uids the job's); and a node that runs max_jobs jobs
 * already starts no other (jobs_start, before it touches anything).
 * The pidfds, NSS and the moves are adopt.c's and the system tests'.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pwd.h>
#include <stdio.h>
#include <string.h>

#include "adopt_check.h"
#include "adopt_msg.h"
#include "job.h"

#define ALICE	1001
#define BOB	1002

static char why[512];
static int last_weight;		/* request()'s */

static const char *
request(const char *full, int *state, char label[16])
{
	char	 first[256], *more;

	snprintf(first, sizeof(first), "%s", full);
	if ((more = strchr(first, '\n')) != NULL)
		*more++ = '\0';
	memset(label, 0, 16);
	*state = -1;
	last_weight = -1;
	return adopt_check_request(first, more, full, state, label,
	    &last_weight, why, sizeof(why));
}

static void
request_ok(const char *full, int want_state, const char *want_label)
{
	char		 label[16];
	int		 state;
	const char	*bad = request(full, &state, label);

	if (bad != NULL)
		fail_msg("\"%s\" refused: %s", full, bad);
	assert_int_equal(state, want_state);
	assert_string_equal(label, want_label);
}

static void
request_bad(const char *full, const char *want)
{
	char		 label[16];
	int		 state;
	const char	*bad = request(full, &state, label);

	if (bad == NULL)
		fail_msg("\"%s\" accepted", full);
	assert_string_equal(bad, want);
}

static void
test_request(void **state)
{
	(void)state;
	request_ok("ADOPT pvmd", 0, JOB_LABEL_DEFAULT);
	request_ok("ADOPT run", 0, "pvm");
	request_ok("ADOPT run\nSTATE", 1, "pvm");
	request_ok("ADOPT pvmd\nJOB vm1\nSTATE", 1, "vm1");
	request_ok("ADOPT pvmd\nSTATE\nJOB vm1", 1, "vm1");
	request_bad("ADOPT", "malformed request (expected \"ADOPT pvmd\", "
	    "\"ADOPT run\" or \"JOIN <pid>\")");
	request_bad("ADOPT pvmd2", "malformed request (expected \"ADOPT "
	    "pvmd\", \"ADOPT run\" or \"JOIN <pid>\")");
	request_bad("adopt run", "malformed request (expected \"ADOPT pvmd\", "
	    "\"ADOPT run\" or \"JOIN <pid>\")");
	request_bad("ADOPT run\nSTATE\nSTATE",
	    "malformed request (two STATE lines)");
	request_bad("ADOPT run\nSTATES", "malformed request (a line after the "
	    "first that is neither \"STATE\", \"JOB <label>\" nor "
	    "\"WEIGHT <w>\")");
	request_bad("ADOPT run\nJOBS x", "malformed request (a line after the "
	    "first that is neither \"STATE\", \"JOB <label>\" nor "
	    "\"WEIGHT <w>\")");
	request_bad("ADOPT run\nUID 0", "malformed request (a line after the "
	    "first that is neither \"STATE\", \"JOB <label>\" nor "
	    "\"WEIGHT <w>\")");
	/* a bad label */
	request_bad("ADOPT run\nJOB a:b", "job label \"a:b\" has a byte that "
	    "is not a letter, digit, '.', '_' or '-'");
	request_bad("ADOPT run\nJOB ../x", "job label \"../x\" has a byte "
	    "that is not a letter, digit, '.', '_' or '-'");
	request_bad("ADOPT run\nJOB", "a JOB line without a label");
	request_bad("ADOPT run\nJOB x\nJOB y", "two JOB lines in one request");
}

/* WEIGHT <w>: a whole 1 to 100, once; none: 0 */
static void
test_request_weight(void **state)
{
	char		 label[16];
	int		 st;

	(void)state;
	request_ok("ADOPT run\nSTATE\nJOB s12", 1, "s12");
	assert_int_equal(last_weight, 0);
	request_ok("ADOPT run\nSTATE\nJOB s12\nWEIGHT 3", 1, "s12");
	assert_int_equal(last_weight, 3);
	request_ok("ADOPT run\nWEIGHT 100\nJOB s1", 0, "s1");
	assert_int_equal(last_weight, 100);
	request_ok("ADOPT pvmd\nWEIGHT 1", 0, JOB_LABEL_DEFAULT);
	assert_int_equal(last_weight, 1);
	request_bad("ADOPT run\nWEIGHT 0", "weight \"0\": expected a whole "
	    "number from 1 to 100");
	request_bad("ADOPT run\nWEIGHT 101", "weight \"101\": expected a "
	    "whole number from 1 to 100");
	request_bad("ADOPT run\nWEIGHT 03", "weight \"03\": expected a whole "
	    "number from 1 to 100");
	request_bad("ADOPT run\nWEIGHT 1.5", "weight \"1.5\": expected a "
	    "whole number from 1 to 100");
	request_bad("ADOPT run\nWEIGHT -2", "weight \"-2\": expected a "
	    "whole number from 1 to 100");
	request_bad("ADOPT run\nWEIGHT", "a WEIGHT line without a weight");
	request_bad("ADOPT run\nWEIGHT ", "a WEIGHT line without a weight");
	request_bad("ADOPT run\nWEIGHT 2\nWEIGHT 2",
	    "two WEIGHT lines in one request");
	request_bad("ADOPT run\nWEIGHTS 2", "malformed request (a line after "
	    "the first that is neither \"STATE\", \"JOB <label>\" nor "
	    "\"WEIGHT <w>\")");
	/* a refused request names no weight */
	assert_non_null(request("ADOPT run\nJOB a:b\nWEIGHT 3", &st, label));
	/* the client's fallback: what a dts before WEIGHT answered, word for
	 * word, is ADOPT_REFUSAL_NO_WEIGHT without its "ERR " */
	assert_string_equal(ADOPT_REFUSAL_NO_WEIGHT + 4, "malformed request (a "
	    "line after the first that is neither \"STATE\" nor \"JOB "
	    "<label>\")");
}

/* users: the list of dts.conf (names and "*" only: no NSS here) */
static const struct conf_strlist *
users(int n, const char *a, const char *b)
{
	static struct conf_strlist l;

	memset(&l, 0, sizeof(l));
	l.n = n;
	if (a != NULL)
		snprintf(l.s[0], sizeof(l.s[0]), "%s", a);
	if (b != NULL)
		snprintf(l.s[1], sizeof(l.s[1]), "%s", b);
	return &l;
}

static struct passwd alice = { .pw_name = "alice", .pw_uid = ALICE,
	.pw_gid = ALICE };
static struct passwd root = { .pw_name = "root", .pw_uid = 0, .pw_gid = 0 };

static void
test_user(void **state)
{
	uid_t		 ids[4] = { ALICE, ALICE, ALICE, ALICE };
	char		 job[PROTO_JOB_LEN];

	(void)state;
	assert_null(adopt_check_user(ALICE, 42, ids, &alice,
	    users(1, "alice", NULL), "pvm", job, why, sizeof(why)));
	assert_string_equal(job, "alice:pvm");
	assert_null(adopt_check_user(ALICE, 42, ids, &alice,
	    users(2, "bob", "*"), "vm1", job, why, sizeof(why)));
	assert_string_equal(job, "alice:vm1");
	/* root always, even with an empty list */
	memset(ids, 0, sizeof(ids));
	assert_null(adopt_check_user(0, 42, ids, &root, users(0, NULL, NULL),
	    "pvm", job, why, sizeof(why)));
	assert_string_equal(job, "root:pvm");
}

/* a pid of another user, or one with a uid it could switch to */
static void
test_user_ids(void **state)
{
	uid_t		 ids[4] = { BOB, BOB, BOB, BOB };
	char		 job[PROTO_JOB_LEN] = "untouched";
	const char	*bad;

	(void)state;
	bad = adopt_check_user(ALICE, 42, ids, &alice, users(1, "*", NULL),
	    "pvm", job, why, sizeof(why));
	assert_non_null(bad);
	assert_string_equal(bad, "pid 42 runs as uid 1002/1002/1002/1002 "
	    "(real/effective/saved/fs), not as uid 1001, which connected");
	assert_string_equal(job, "untouched");
	for (int i = 0; i < 4; i++) {
		uid_t one[4] = { ALICE, ALICE, ALICE, ALICE };

		one[i] = 0;
		assert_non_null(adopt_check_user(ALICE, 42, one, &alice,
		    users(1, "*", NULL), "pvm", job, why, sizeof(why)));
	}
}

static void
test_user_refused(void **state)
{
	uid_t		 ids[4] = { ALICE, ALICE, ALICE, ALICE };
	char		 job[PROTO_JOB_LEN] = "untouched";

	(void)state;
	assert_string_equal(adopt_check_user(ALICE, 42, ids, NULL,
	    users(1, "*", NULL), "pvm", job, why, sizeof(why)),
	    "uid 1001 has no user name: it may not run a gang on this node");
	assert_string_equal(adopt_check_user(ALICE, 42, ids, &alice,
	    users(0, NULL, NULL), "pvm", job, why, sizeof(why)),
	    "user alice (uid 1001) may not run a gang on this node: only "
	    "root may (dts.conf: users = [])");
	assert_non_null(adopt_check_user(ALICE, 42, ids, &alice,
	    users(2, "bob", "alice2"), "pvm", job, why, sizeof(why)));
	assert_non_null(strstr(why, "user alice (uid 1001) may not run a gang "
	    "on this node"));
	assert_null(strchr(why, '\n'));
	assert_string_equal(job, "untouched");
}

static struct job *
job(struct job *j, const char *name, uid_t uid)
{
	memset(j, 0, sizeof(*j));
	j->used = 1;
	snprintf(j->name, sizeof(j->name), "%s", name);
	j->uid = uid;
	return j;
}

static void
test_job(void **state)
{
	struct job	 j;

	(void)state;
	assert_null(adopt_check_job(NULL, ALICE, why, sizeof(why)));
	assert_null(adopt_check_job(job(&j, "alice:pvm", ALICE), ALICE, why,
	    sizeof(why)));
	/* a user renamed, another with its old name: the uid decides */
	assert_string_equal(adopt_check_job(job(&j, "alice:pvm", BOB), ALICE,
	    why, sizeof(why)), "job alice:pvm runs as uid 1002, not as uid "
	    "1001: only its user joins it");
}

static void
test_asker(void **state)
{
	struct job	 j;

	(void)state;
	assert_null(adopt_check_asker(ALICE, 7, job(&j, "alice:pvm", ALICE),
	    why, sizeof(why)));
	assert_string_equal(adopt_check_asker(ALICE, 7, NULL, why,
	    sizeof(why)), "pid 7 is not in the gang: only a gang member may "
	    "ask for a join");
	assert_string_equal(adopt_check_asker(BOB, 7, &j, why, sizeof(why)),
	    "uid 1002 may not ask: the gang is uid 1001's");
	assert_string_equal(adopt_check_asker(0, 7, &j, why, sizeof(why)),
	    "uid 0 may not ask: the gang is uid 1001's");
	assert_string_equal(adopt_check_asker(0, 7, job(&j, "root:pvm", 0),
	    why, sizeof(why)), "the gang runs as root, and a root gang takes "
	    "nobody in (start a root program in it with dts-run -- COMMAND)");
}

static void
test_target(void **state)
{
	struct job	 j, other;
	uid_t		 ids[4] = { ALICE, ALICE, ALICE, ALICE };

	(void)state;
	job(&j, "alice:pvm", ALICE);
	job(&other, "alice:vm2", ALICE);
	assert_null(adopt_check_target(&j, 9, NULL, ids, why, sizeof(why)));
	assert_string_equal(adopt_check_target(&j, 9, &j, ids, why,
	    sizeof(why)), "pid 9 is already in the gang");
	assert_string_equal(adopt_check_target(&j, 9, &other, ids, why,
	    sizeof(why)), "pid 9 is in job alice:vm2: a process stays in its "
	    "job");
	/* another user's pid, or a set-uid one of alice's */
	ids[0] = ids[1] = ids[2] = ids[3] = BOB;
	assert_string_equal(adopt_check_target(&j, 9, NULL, ids, why,
	    sizeof(why)), "pid 9 runs as uid 1002/1002/1002/1002 (real/"
	    "effective/saved/fs), not as the gang's uid 1001");
	ids[0] = ids[1] = ids[3] = ALICE;
	ids[2] = 0;
	assert_string_equal(adopt_check_target(&j, 9, NULL, ids, why,
	    sizeof(why)), "pid 9 runs as uid 1001/1001/0/1001 (real/"
	    "effective/saved/fs), not as the gang's uid 1001");
}

/* a full node: max_jobs jobs run, a new one is refused before anything
 * of it is made; one of them is found by its name */
static void
test_full_node(void **state)
{
	static struct jobs	 J;
	static struct dts_conf	 c;
	char			 err[512] = "";

	(void)state;
	memset(&J, 0, sizeof(J));
	memset(&c, 0, sizeof(c));
	c.max_jobs = 2;
	J.conf = &c;
	job(&J.job[0], "alice:pvm", ALICE);
	job(&J.job[3], "bob:vm1", BOB);
	assert_int_equal(jobs_count(&J), 2);
	assert_null(jobs_start(&J, "alice:vm2", ALICE, 42, err, sizeof(err)));
	assert_string_equal(err, "this node runs max_jobs = 2 jobs already: "
	    "alice:pvm, bob:vm1 (dts.conf: max_jobs)");
	assert_int_equal(jobs_count(&J), 2);
	assert_ptr_equal(jobs_find(&J, "bob:vm1"), &J.job[3]);
	assert_null(jobs_find(&J, "bob:pvm"));
	assert_true(jobs_has_uid(&J, BOB));
	assert_false(jobs_has_uid(&J, 0));
}

/* a user who runs max_jobs_user jobs starts no other, on a node with
 * room; another user does (up to jobs_start's cgroup, not made here) */
static void
test_user_full(void **state)
{
	static struct jobs	 J;
	static struct dts_conf	 c;
	char			 err[512] = "";

	(void)state;
	memset(&J, 0, sizeof(J));
	memset(&c, 0, sizeof(c));
	c.max_jobs = 8;
	J.conf = &c;
	job(&J.job[0], "alice:a", ALICE);
	job(&J.job[1], "bob:vm1", BOB);
	job(&J.job[2], "alice:b", ALICE);
	job(&J.job[5], "alice:c", ALICE);
	job(&J.job[6], "alice:d", ALICE);
	assert_null(jobs_start(&J, "alice:e", ALICE, 42, err, sizeof(err)));
	assert_string_equal(err, "user alice runs max_jobs_user = 4 jobs on "
	    "this node already: alice:a, alice:b, alice:c, alice:d (dts.conf: "
	    "max_jobs_user)");
	assert_int_equal(jobs_count(&J), 5);
	c.max_jobs_user = 3;	/* a takeover left more */
	assert_null(jobs_start(&J, "alice:e", ALICE, 42, err, sizeof(err)));
	assert_string_equal(err, "user alice runs max_jobs_user = 3 jobs on "
	    "this node already (4 of them): alice:a, alice:b, alice:c, "
	    "alice:d (dts.conf: max_jobs_user)");
	assert_int_equal(jobs_count(&J), 5);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request),
		cmocka_unit_test(test_request_weight),
		cmocka_unit_test(test_user),
		cmocka_unit_test(test_user_ids),
		cmocka_unit_test(test_user_refused),
		cmocka_unit_test(test_job),
		cmocka_unit_test(test_asker),
		cmocka_unit_test(test_target),
		cmocka_unit_test(test_full_node),
		cmocka_unit_test(test_user_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
