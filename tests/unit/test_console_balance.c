/*
 * test_console_balance.c - pure logic of BALANCED mode and of the node
 * table: RLA (mean, max) with power weights, Table 2.1 with hysteresis,
 * node timeouts on injected time, skew arithmetic, host name matching.
 */
#include <arpa/inet.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "balance.h"
#include "conf.h"
#include "nodes.h"
#include "timeutil.h"

#define SEC NS_PER_SEC

static struct in_addr
ip4(const char *s)
{
	struct in_addr	 a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a;
}

static void
heard(struct nodes *ns, const char *addr, const char *name, double q,
    int64_t now)
{
	struct proto_status	 st;

	memset(&st, 0, sizeof(st));
	st.load_milli = (uint32_t)lround(q * 1000);
	snprintf(st.name, sizeof(st.name), "%s", name);
	assert_non_null(nodes_status(ns, ip4(addr), &st, now));
}

static const struct load_table *
table21(void)
{
	static struct dts_conf	 c;

	conf_defaults(&c);
	return &c.load.table;
}

static void
test_table21(void **state)
{
	const struct load_table *t = table21();

	(void)state;
	assert_int_equal(loadtab_ls_pct(t, 0), 10);
	assert_int_equal(loadtab_ls_pct(t, 0.5), 10);
	assert_int_equal(loadtab_ls_pct(t, 0.51), 20);
	assert_int_equal(loadtab_ls_pct(t, 1.0), 20);
	assert_int_equal(loadtab_ls_pct(t, 2.2), 50);
	assert_int_equal(loadtab_ls_pct(t, 4.0), 80);
	assert_int_equal(loadtab_ls_pct(t, 4.01), 90);
	assert_int_equal(loadtab_ls_pct(t, 100), 90);
}

/* The thesis's example: Q 2 at W 1 and Q 1 at W 0.5 are equally loaded. */
static void
test_rla_weights(void **state)
{
	struct nodes	 ns = { 0 };
	struct weights	 ws = { 0 };
	struct vm_hosts	 hs = { 0 };
	struct rla	 r;
	const char	*src;

	(void)state;
	heard(&ns, "10.0.0.1", "m", 2.0, SEC);
	heard(&ns, "10.0.0.2", "n", 1.0, SEC);
	assert_int_equal(bal_weight_set(&ws, "n", 0.5), 0);
	bal_rla(&ns, &ws, &hs, SEC, 30 * SEC, &r);
	assert_int_equal(r.nlive, 2);
	assert_true(fabs(r.mean - 2.0) < 1e-9);
	assert_true(fabs(r.max - 2.0) < 1e-9);
	/* weights from the PVM host speed: the fastest host has 1 */
	ws.n = 0;
	hs.n = 2;
	snprintf(hs.v[0].name, HOST_NAME_MAX_, "m.example.org");
	hs.v[0].speed = 2000;
	snprintf(hs.v[1].name, HOST_NAME_MAX_, "10.0.0.2");
	hs.v[1].addr = ip4("10.0.0.2");
	hs.v[1].have_addr = 1;
	hs.v[1].speed = 500;
	assert_true(bal_weight(&ws, &hs, &ns.v[0], &src) == 1.0);
	assert_string_equal(src, "pvm");
	assert_true(bal_weight(&ws, &hs, &ns.v[1], &src) == 0.25);
	bal_rla(&ns, &ws, &hs, SEC, 30 * SEC, &r);
	assert_true(fabs(r.mean - 3.0) < 1e-9);	/* (2/1 + 1/0.25) / 2 */
	assert_true(fabs(r.max - 4.0) < 1e-9);
	/* configured beats PVM; by address too; unknown is 1 */
	assert_int_equal(bal_weight_set(&ws, "10.0.0.2", 2), 0);
	assert_true(bal_weight(&ws, &hs, &ns.v[1], &src) == 2.0);
	assert_string_equal(src, "set");
	hs.n = 0;
	assert_true(bal_weight(&ws, &hs, &ns.v[0], &src) == 1.0);
	assert_string_equal(src, "1");
	assert_int_equal(bal_weight_set(&ws, "10.0.0.2", 0), 0);
	assert_int_equal(ws.n, 0);
	nodes_free(&ns);
}

/* |RLA - RLA_prev| > h acts, then RLA_prev = RLA; <= h does nothing. */
static void
test_hysteresis(void **state)
{
	const struct load_table *t = table21();
	struct bal	 b;

	(void)state;
	bal_reset(&b);
	assert_int_equal(b.ls_pct, -1);
	assert_int_equal(bal_step(&b, 0.3, t, 0.5), 1);	/* first: always */
	assert_int_equal(b.ls_pct, 10);
	assert_int_equal(bal_step(&b, 0.8, t, 0.5), 0);	/* moved 0.5 */
	assert_int_equal(b.ls_pct, 10);
	assert_true(b.rla_prev == 0.3);
	assert_int_equal(bal_step(&b, 0.81, t, 0.5), 1);	/* moved 0.51 */
	assert_int_equal(b.ls_pct, 20);
	assert_true(b.rla_prev == 0.81);
	assert_int_equal(bal_step(&b, 1.3, t, 0.5), 0);	/* 0.49 */
	assert_int_equal(bal_step(&b, 2.2, t, 0.5), 1);
	assert_int_equal(b.ls_pct, 50);
	assert_int_equal(bal_step(&b, 1.6, t, 0.5), 1);	/* down too */
	assert_int_equal(b.ls_pct, 40);
	/* past the hysteresis but in the same band: RLA_prev moves */
	assert_int_equal(bal_step(&b, 1.9, t, 0.2), 0);
	assert_int_equal(b.ls_pct, 40);
	assert_true(b.rla_prev == 1.9);
	assert_int_equal(bal_step(&b, 2.05, t, 0.2), 0);	/* 0.15 */
	assert_int_equal(b.ls_pct, 40);
	assert_int_equal(bal_step(&b, 5.0, t, 0), 1);
	assert_int_equal(b.ls_pct, 90);
	assert_int_equal(bal_step(&b, NAN, t, 0), 0);
	assert_int_equal(b.ls_pct, 90);
}

/* A node silent past the timeout leaves the RLA and comes back. */
static void
test_timeout(void **state)
{
	struct nodes	 ns = { 0 };
	struct weights	 ws = { 0 };
	struct vm_hosts	 hs = { 0 };
	struct rla	 r;
	int64_t		 to = 30 * SEC;

	(void)state;
	heard(&ns, "10.0.0.1", "a", 1.0, 100 * SEC);
	heard(&ns, "10.0.0.2", "b", 3.0, 110 * SEC);
	bal_rla(&ns, &ws, &hs, 120 * SEC, to, &r);
	assert_int_equal(r.nlive, 2);
	assert_true(r.mean == 2.0 && r.max == 3.0);
	assert_int_equal(nodes_next_expiry(&ns, 120 * SEC, to),
	    130 * SEC + 1);
	bal_rla(&ns, &ws, &hs, 130 * SEC, to, &r);	/* exactly 30 s */
	assert_int_equal(r.nlive, 2);
	bal_rla(&ns, &ws, &hs, 130 * SEC + 1, to, &r);
	assert_int_equal(r.nlive, 1);
	assert_true(r.mean == 3.0 && r.max == 3.0);
	assert_int_equal(nodes_next_expiry(&ns, 130 * SEC + 1, to),
	    140 * SEC + 1);
	bal_rla(&ns, &ws, &hs, 200 * SEC, to, &r);
	assert_int_equal(r.nlive, 0);
	assert_int_equal(nodes_next_expiry(&ns, 200 * SEC, to), 0);
	/* heard again, by a LOAD datagram */
	struct proto_load l = { .load_milli = 500, .ncpu = 1 };
	assert_non_null(nodes_load(&ns, ip4("10.0.0.1"), &l, 201 * SEC));
	bal_rla(&ns, &ws, &hs, 201 * SEC, to, &r);
	assert_int_equal(r.nlive, 1);
	assert_true(r.mean == 0.5);
	nodes_free(&ns);
}

static void
test_node_table(void **state)
{
	struct nodes	 ns = { 0 };

	(void)state;
	heard(&ns, "10.0.0.9", "c", 0, SEC);
	heard(&ns, "10.0.0.10", "d", 0, SEC);
	heard(&ns, "9.255.0.1", "a", 0, SEC);
	heard(&ns, "10.0.0.9", "c2", 1, 2 * SEC);
	assert_int_equal(ns.n, 3);
	assert_string_equal(ns.v[0].name, "a");	/* sorted by address */
	assert_string_equal(ns.v[1].name, "c2");
	assert_string_equal(ns.v[2].name, "d");
	assert_int_equal(ns.v[1].heard, 2 * SEC);
	assert_true(nodes_live(&ns.v[1], 3 * SEC, SEC));
	assert_false(nodes_live(&ns.v[1], 3 * SEC + 1, SEC));
	nodes_free(&ns);
}

static void
test_skew(void **state)
{
	const int64_t	 ip = 100;

	(void)state;
	assert_int_equal(nodes_skew(1000, 1000, ip), 0);
	assert_int_equal(nodes_skew(1003, 1000, ip), 3);
	assert_int_equal(nodes_skew(997, 1000, ip), -3);
	assert_int_equal(nodes_skew(1203, 1000, ip), 3);	/* whole IPs */
	assert_int_equal(nodes_skew(797, 1000, ip), -3);
	assert_int_equal(nodes_skew(1050, 1000, ip), 50);	/* (-IP/2, IP/2] */
	assert_int_equal(nodes_skew(950, 1000, ip), 50);
	assert_int_equal(nodes_skew(1051, 1000, ip), -49);
	assert_int_equal(nodes_skew(1049, 1000, ip), 49);
	assert_int_equal(nodes_skew(2, 1, 3), 1);
	assert_int_equal(nodes_skew(3, 1, 3), -1);
	assert_int_equal(nodes_skew(5, 1, 0), 0);
	/* real numbers: 100 ms grid, 1.7 s apart plus 250 us */
	assert_int_equal(nodes_skew(1700000000000250000LL + 250000,
	    1700000000000250000LL - 1700000000LL, 100000000), 250000);
}

static void
test_reference(void **state)
{
	struct nodes		 ns = { 0 };
	struct proto_status	 st;

	(void)state;
	memset(&st, 0, sizeof(st));
	nodes_status(&ns, ip4("10.0.0.1"), &st, SEC);	/* no PS start */
	st.last_ps_ns = 5;
	nodes_status(&ns, ip4("10.0.0.3"), &st, SEC);
	nodes_status(&ns, ip4("10.0.0.2"), &st, 2 * SEC);
	assert_ptr_equal(nodes_reference(&ns, 0), &ns.v[1]);
	assert_ptr_equal(nodes_reference(&ns, 2 * SEC), &ns.v[1]);
	assert_string_equal(inet_ntoa(nodes_reference(&ns, 0)->addr),
	    "10.0.0.2");
	assert_null(nodes_reference(&ns, 3 * SEC));
	nodes_free(&ns);
}

static void
test_names(void **state)
{
	(void)state;
	assert_true(nodes_name_match("vm", "vm"));
	assert_true(nodes_name_match("vm", "vm.example.org"));
	assert_true(nodes_name_match("vm.example.org", "vm"));
	assert_false(nodes_name_match("vm.a", "vm.b"));
	assert_false(nodes_name_match("vm", "vm2"));
	assert_false(nodes_name_match("10.0.0.1", "10.0.0.2"));
	assert_false(nodes_name_match("10", "10.0.0.2"));
	assert_false(nodes_name_match("", ""));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table21),
		cmocka_unit_test(test_rla_weights),
		cmocka_unit_test(test_hysteresis),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_node_table),
		cmocka_unit_test(test_skew),
		cmocka_unit_test(test_reference),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
