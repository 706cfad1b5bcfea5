/*
 * test_golden.c - the example datagrams of doc/protocol.txt, byte by
 * byte: each decodes to the field values the document gives (checked
 * here, not taken from our encoder), passes the receiver's checks with
 * the document's keys, and seals again to the same bytes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <sodium.h>

#include "auth.h"
#include "vectors.h"
#include "wire.h"

/* The document's keys. */
static void
keys(struct auth_key *con, struct auth_key *node, struct auth_key *console)
{
	uint8_t	 seed[32], pk[32];

	assert_true(sodium_init() >= 0);
	memset(con, 0, sizeof(*con));
	memset(node, 0, sizeof(*node));
	memset(console, 0, sizeof(*console));
	memset(seed, 1, sizeof(seed));
	crypto_sign_seed_keypair(pk, con->sk, seed);
	con->can_sign = 1;
	con->sign_id = auth_key_id(pk);
	assert_int_equal(con->sign_id, 0x8a88e3dd);
	memcpy(node->pub[0], pk, sizeof(pk));
	node->pub_id[0] = con->sign_id;
	node->npub = 1;
	memset(console->key, 2, sizeof(console->key));
	console->derive = 1;
	/* the node at 10.0.0.1 holds its own key */
	auth_node_key(console->key, inet_addr("10.0.0.1"), node->key);
}

/* Decode v, check its tag as its receiver would, seal it again. */
static void
check(const struct vector *v, struct proto_msg *m)
{
	struct auth_key	 con, node, console, k;
	struct replay	 r;
	struct seqgen	 g;
	struct proto_msg again;
	enum proto_reject why;
	uint8_t		 buf[PROTO_MAX_DGRAM];
	unsigned	 accept;
	int		 cmd, n;

	keys(&con, &node, &console);
	assert_int_equal(proto_decode(v->b, v->len, m, &why), 0);
	cmd = proto_is_command(m->hdr.type);
	/* WEIGHT goes to the peer console, which checks it as a node */
	accept = m->hdr.type == PROTO_WEIGHT ? PROTO_ACCEPT_PEER : cmd ?
	    PROTO_ACCEPT_NODE : PROTO_ACCEPT_CONSOLE;
	replay_init(&r, m->hdr.seq - 1, 0, 60000000);
	auth_for_node(&console, inet_addr("10.0.0.1"), &k);
	assert_int_equal(proto_open(cmd ? &node : &k, &r, accept, v->b,
	    v->len, &again, &why), 0);
	/* a reply of another node's address fails */
	if (!cmd) {
		replay_init(&r, m->hdr.seq - 1, 0, 60000000);
		auth_for_node(&console, inet_addr("10.0.0.2"), &k);
		assert_int_equal(proto_open(&k, &r,
		    PROTO_ACCEPT_CONSOLE, v->b, v->len, &again, &why), -1);
		assert_int_equal(why, REJ_MAC);
	}
	g.sender = m->hdr.sender;
	g.base_us = 0;
	g.last = m->hdr.seq - 1;
	again = *m;
	n = proto_seal(cmd ? &con : &node, &g, m->hdr.seq, &again, buf,
	    sizeof(buf));
	assert_int_equal(n, v->len);
	assert_memory_equal(buf, v->b, v->len);
}

static void
test_schedule(void **state)
{
	struct vector	 v;
	struct proto_msg m;

	vector_load("SCHEDULE", &v);
	assert_int_equal(v.len, PROTO_HDR_LEN + PROTO_SCHEDULE_LEN +
	    PROTO_SIG_LEN);
	/* the header, as the diagram says */
	assert_memory_equal(v.b, "DTS1", 4);
	assert_int_equal(v.b[4], 6);
	assert_int_equal(PROTO_VERSION, 6);
	assert_int_equal(v.b[5], PROTO_SCHEDULE);
	check(&v, &m);
	assert_int_equal(m.hdr.sender, 0x11223344);
	assert_int_equal(m.hdr.key_id, 0x8a88e3dd);
	assert_true(m.hdr.seq == 1763770000000000ull);
	assert_int_equal(m.u.schedule.mode, MODE_STATIC);
	assert_int_equal(m.u.schedule.sync, SYNC_CLOCK);
	assert_int_equal(m.u.schedule.flags, SCHED_F_ACTIVE | SCHED_F_SYNC);
	assert_int_equal(m.u.schedule.ps_us, 80000);
	assert_int_equal(m.u.schedule.ip_us, 100000);
	assert_int_equal(m.u.schedule.si_us, 10000000);
	assert_true(m.u.schedule.origin_ns == 1763770000000000000ull);
	assert_int_equal(m.u.schedule.nslots, 0);
	for (int i = 0; i < PROTO_JOBS_MAX; i++) {
		assert_string_equal(m.u.schedule.slot[i].job, "");
		assert_int_equal(m.u.schedule.slot[i].len_us, 0);
	}
}

static void
test_schedule_slots(void **state)
{
	struct vector	 v;
	struct proto_msg m;
	const struct proto_schedule *s = &m.u.schedule;

	vector_load("SCHEDULE_SLOTS", &v);
	assert_int_equal(v.len, PROTO_HDR_LEN + PROTO_SCHEDULE_LEN +
	    PROTO_SIG_LEN);
	/* the slot table where the diagram puts it: nslots at 24, slot 0's
	 * name at 32, slot 1's length at 72 + 36 */
	assert_int_equal(v.b[PROTO_HDR_LEN + 24], 2);
	assert_memory_equal(v.b + PROTO_HDR_LEN + 32, "alice:vm1", 10);
	assert_int_equal(v.b[PROTO_HDR_LEN + 72 + 36 + 2], 30000 >> 8);
	check(&v, &m);
	assert_int_equal(m.hdr.sender, 0x11223344);
	assert_true(m.hdr.seq == 1763770000000004ull);
	assert_int_equal(s->mode, MODE_STATIC);
	assert_int_equal(s->sync, SYNC_CLOCK);
	assert_int_equal(s->flags, SCHED_F_ACTIVE | SCHED_F_SYNC);
	assert_int_equal(s->ps_us, 80000);
	assert_int_equal(s->ip_us, 100000);
	assert_int_equal(s->si_us, 10000000);
	assert_true(s->origin_ns == 1763770000000000000ull);
	assert_int_equal(s->nslots, 2);
	assert_string_equal(s->slot[0].job, "alice:vm1");
	assert_int_equal(s->slot[0].start_us, 0);
	assert_int_equal(s->slot[0].len_us, 50000);
	assert_string_equal(s->slot[1].job, "bob:pvm");
	assert_int_equal(s->slot[1].start_us, 50000);
	assert_int_equal(s->slot[1].len_us, 30000);
	for (int i = 2; i < PROTO_JOBS_MAX; i++)
		assert_int_equal(s->slot[i].len_us, 0);
}

static void
test_requests(void **state)
{
	struct vector	 v;
	struct proto_msg m;

	vector_load("STATUS_REQ", &v);
	assert_int_equal(v.len, PROTO_HDR_LEN + PROTO_STATUS_REQ_LEN +
	    PROTO_SIG_LEN);
	check(&v, &m);
	assert_int_equal(m.hdr.type, PROTO_STATUS_REQ);
	assert_true(m.hdr.seq == 1763770000000001ull);
	vector_load("TRACE_REQ", &v);
	check(&v, &m);
	assert_int_equal(m.hdr.type, PROTO_TRACE_REQ);
	assert_true(m.hdr.seq == 1763770000000002ull);
	assert_true(m.u.trace_req.since_ns == 1763770000500000000ull);
	vector_load("METRICS_REQ", &v);
	assert_int_equal(v.len, PROTO_HDR_LEN + PROTO_METRICS_REQ_LEN +
	    PROTO_SIG_LEN);
	check(&v, &m);
	assert_int_equal(m.hdr.type, PROTO_METRICS_REQ);
	assert_true(m.hdr.seq == 1763770000000003ull);
	vector_load("JOB_REQ", &v);
	assert_int_equal(v.len, PROTO_HDR_LEN + PROTO_JOB_REQ_LEN +
	    PROTO_SIG_LEN);
	check(&v, &m);
	assert_int_equal(m.hdr.type, PROTO_JOB_REQ);
	assert_true(m.hdr.seq == 1763770000000005ull);
	assert_int_equal(m.u.job_req.index, 1);
}

static void
test_weight(void **state)
{
	struct vector	 v;
	struct proto_msg m;
	enum proto_reject why;

	vector_load("WEIGHT", &v);
	assert_int_equal(v.len, PROTO_HDR_LEN + PROTO_WEIGHT_LEN +
	    PROTO_SIG_LEN);
	assert_int_equal(v.b[5], 11);
	check(&v, &m);
	assert_int_equal(m.hdr.type, PROTO_WEIGHT);
	assert_int_equal(m.hdr.sender, 0x11223344);
	assert_int_equal(m.hdr.key_id, 0x8a88e3dd);
	assert_true(m.hdr.seq == 1763770000000007ull);
	assert_int_equal(m.u.weight.gen, 3);
	assert_int_equal(m.u.weight.index, 1);
	assert_int_equal(m.u.weight.count, 2);
	assert_int_equal(m.u.weight.kind, WEIGHT_KIND_JOB);
	assert_int_equal(m.u.weight.weight, 5000000);
	assert_string_equal(m.u.weight.name, "alice:vm1");
	/* a node drops it before any cryptography */
	assert_int_equal(proto_frame(v.b, v.len, PROTO_ACCEPT_NODE, &m, &why),
	    -1);
	assert_int_equal(why, REJ_TYPE);
}

static void
test_status(void **state)
{
	struct vector	 v;
	struct proto_msg m;
	const struct proto_status *s = &m.u.status;

	vector_load("STATUS", &v);
	assert_int_equal(v.len, PROTO_HDR_LEN + PROTO_STATUS_LEN +
	    PROTO_MAC_LEN);
	assert_int_equal(v.b[12] | v.b[13] | v.b[14] | v.b[15], 0);
	check(&v, &m);
	assert_int_equal(m.hdr.sender, 0x55667788);
	assert_true(m.hdr.seq == 1763770000100000ull);
	assert_int_equal(s->mode, MODE_STATIC);
	assert_int_equal(s->sync, SYNC_CLOCK);
	assert_int_equal(s->flags, SCHED_F_ACTIVE | STATUS_F_HEARD |
	    STATUS_F_YOURS);
	assert_int_equal(s->phase, PHASE_PS);
	assert_int_equal(s->ps_us, 80000);
	assert_int_equal(s->ip_us, 100000);
	assert_int_equal(s->si_us, 10000000);
	assert_int_equal(s->load_milli, 1250);
	assert_int_equal(s->members, 3);
	assert_int_equal(s->slices, 42);
	assert_int_equal(s->overruns, 1);
	assert_true(s->last_ps_ns == 1763770000400000000ull);
	for (int i = 0; i < REJ_COUNT; i++)
		assert_int_equal(s->rejected[i], i == REJ_MAC ? 7 :
		    i == REJ_MASTER ? 2 : 0);
	assert_int_equal(s->queue_full, 0);
	assert_int_equal(s->master, 0x0a0000fe);
	assert_string_equal(s->name, "node1");
	assert_int_equal(s->njobs, 1);
	assert_string_equal(s->job[0].job, "alice:pvm");
	assert_int_equal(s->job[0].members, 3);
	for (int i = 1; i < PROTO_JOBS_MAX; i++) {
		assert_string_equal(s->job[i].job, "");
		assert_int_equal(s->job[i].members, 0);
	}
}

static void
test_status_jobs(void **state)
{
	struct vector	 v;
	struct proto_msg m;
	const struct proto_status *s = &m.u.status;

	vector_load("STATUS_JOBS", &v);
	assert_int_equal(v.len, PROTO_HDR_LEN + PROTO_STATUS_LEN +
	    PROTO_MAC_LEN);
	assert_int_equal(v.b[PROTO_HDR_LEN + 128], 2);
	assert_memory_equal(v.b + PROTO_HDR_LEN + 172, "bob:pvm", 8);
	check(&v, &m);
	assert_true(m.hdr.seq == 1763770000100004ull);
	assert_int_equal(s->mode, MODE_STATIC);
	assert_int_equal(s->members, 3);
	assert_string_equal(s->name, "node1");
	assert_int_equal(s->njobs, 2);
	assert_string_equal(s->job[0].job, "alice:vm1");
	assert_int_equal(s->job[0].members, 2);
	assert_string_equal(s->job[1].job, "bob:pvm");
	assert_int_equal(s->job[1].members, 1);
	for (int i = 2; i < PROTO_JOBS_MAX; i++)
		assert_string_equal(s->job[i].job, "");
}

static void
test_job(void **state)
{
	struct vector	 v;
	struct proto_msg m;
	const struct proto_job *j = &m.u.job;

	vector_load("JOB", &v);
	assert_int_equal(v.len, PROTO_HDR_LEN + PROTO_JOB_LEN_WIRE +
	    PROTO_MAC_LEN);
	check(&v, &m);
	assert_int_equal(m.hdr.type, PROTO_JOB);
	assert_int_equal(m.hdr.sender, 0x55667788);
	assert_true(m.hdr.seq == 1763770000100005ull);
	assert_int_equal(j->index, 1);
	assert_int_equal(j->count, 2);
	assert_string_equal(j->job, "bob:pvm");
	assert_true(j->slot_ns == 1080000000000ull);
	assert_true(j->stopped_ns == 2519500000000ull);
	assert_true(j->cpu_ns == 1075000000000ull);
	assert_int_equal(j->members, 1);
	assert_int_equal(j->running, 0);
}

static void
test_job_mem(void **state)
{
	struct vector	 v;
	struct proto_msg m;
	const struct proto_job_mem *j = &m.u.job_mem;

	vector_load("JOB_MEM_REQ", &v);
	assert_int_equal(v.len, PROTO_HDR_LEN + PROTO_JOB_MEM_REQ_LEN +
	    PROTO_SIG_LEN);
	assert_int_equal(v.b[4], PROTO_VERSION);
	check(&v, &m);
	assert_int_equal(m.hdr.type, PROTO_JOB_MEM_REQ);
	assert_int_equal(m.hdr.sender, 0x11223344);
	assert_true(m.hdr.seq == 1763770000000008ull);
	assert_int_equal(m.u.job_mem_req.index, 1);

	vector_load("JOB_MEM", &v);
	assert_int_equal(v.len, PROTO_HDR_LEN + PROTO_JOB_MEM_LEN +
	    PROTO_MAC_LEN);
	check(&v, &m);
	assert_int_equal(m.hdr.type, PROTO_JOB_MEM);
	assert_int_equal(m.hdr.sender, 0x55667788);
	assert_true(m.hdr.seq == 1763770000100007ull);
	assert_int_equal(j->index, 1);
	assert_int_equal(j->count, 2);
	assert_string_equal(j->job, "bob:pvm");
	assert_true(j->mem_bytes == 1073745920ull);
	assert_true(j->swap_bytes == 268435456ull);
	assert_true(j->oom_kills == 3);
	assert_true(j->reclaimed_bytes == 966365184ull);
}

/*
 * The read request and its answer: the read key of the document's
 * console key (BLAKE2b keyed with it), the request taken by the node
 * through proto_verify_read only, the answer under the read key only.
 */
static void
test_read(void **state)
{
	static const char rk_hex[] =
	    "f832944ee4b81b184d188d32a4dae8024d6ab7205cc8d2419720e81039916f33";
	struct auth_key	 con, node, console, rk = { 0 };
	struct vector	 v;
	struct proto_msg m, again;
	struct replay	 r;
	struct seqgen	 g;
	enum proto_reject why;
	uint8_t		 want[32], buf[PROTO_MAX_DGRAM];
	int		 which, n;

	keys(&con, &node, &console);
	auth_read_key(node.pub[0], rk.key);
	assert_int_equal(sodium_hex2bin(want, sizeof(want), rk_hex,
	    strlen(rk_hex), NULL, NULL, NULL), 0);
	assert_memory_equal(rk.key, want, sizeof(want));
	memcpy(node.read[0], rk.key, sizeof(rk.key));
	node.reads = 1;

	vector_load("READ_JOB_REQ", &v);
	assert_int_equal(v.len, PROTO_HDR_LEN + PROTO_JOB_REQ_LEN +
	    PROTO_SIG_LEN);
	assert_int_equal(proto_frame(v.b, v.len, PROTO_ACCEPT_NODE, &m,
	    &why), 0);
	assert_int_equal(m.hdr.type, PROTO_JOB_REQ);
	assert_int_equal(m.hdr.sender, 0x11223344);
	assert_int_equal(m.hdr.key_id, AUTH_READ_ID);
	assert_true(m.hdr.seq == 1763770000000006ull);
	assert_int_equal(m.u.job_req.index, 0);
	for (size_t i = v.len - 32; i < v.len; i++)
		assert_int_equal(v.b[i], 0);
	replay_init(&r, m.hdr.seq - 1, 0, 60000000);
	assert_int_equal(proto_verify_read(&node, &r, v.b, v.len, &m, &which,
	    &why), 0);
	assert_int_equal(which, 0);
	assert_int_equal(r.n, 0);
	/* not a signed command */
	assert_int_equal(proto_verify(&node, &r, v.b, v.len, &m, &why), -1);
	assert_int_equal(why, REJ_MAC);
	g.sender = m.hdr.sender;
	g.base_us = 0;
	g.last = m.hdr.seq - 1;
	again = m;
	n = proto_seal_read(rk.key, &g, m.hdr.seq, &again, buf, sizeof(buf));
	assert_int_equal(n, v.len);
	assert_memory_equal(buf, v.b, v.len);

	vector_load("READ_JOB", &v);
	assert_int_equal(v.len, PROTO_HDR_LEN + PROTO_JOB_LEN_WIRE +
	    PROTO_MAC_LEN);
	replay_init(&r, 1763770000100005ull, 0, 60000000);
	assert_int_equal(proto_open(&rk, &r, PROTO_ACCEPT_CONSOLE, v.b, v.len,
	    &m, &why), 0);
	assert_int_equal(m.hdr.sender, 0x55667788);
	assert_true(m.hdr.seq == 1763770000100006ull);
	assert_int_equal(m.u.job.index, 0);
	assert_int_equal(m.u.job.count, 1);
	assert_string_equal(m.u.job.job, "alice:vm1");
	assert_true(m.u.job.slot_ns == 60000000000ull);
	assert_true(m.u.job.stopped_ns == 40000000000ull);
	assert_true(m.u.job.cpu_ns == 59000000000ull);
	assert_int_equal(m.u.job.members, 2);
	assert_int_equal(m.u.job.running, 1);
	/* the node's own key does not pass it */
	replay_init(&r, 1763770000100005ull, 0, 60000000);
	assert_int_equal(proto_open(&node, &r, PROTO_ACCEPT_CONSOLE, v.b,
	    v.len, &again, &why), -1);
	assert_int_equal(why, REJ_MAC);
	g.sender = m.hdr.sender;
	g.last = m.hdr.seq - 1;
	again = m;
	n = proto_seal(&rk, &g, m.hdr.seq, &again, buf, sizeof(buf));
	assert_int_equal(n, v.len);
	assert_memory_equal(buf, v.b, v.len);
}

static void
test_load_trace(void **state)
{
	struct vector	 v;
	struct proto_msg m;

	vector_load("LOAD", &v);
	check(&v, &m);
	assert_true(m.hdr.seq == 1763770000100001ull);
	assert_int_equal(m.u.load.load_milli, 2500);
	assert_int_equal(m.u.load.ncpu, 2);
	vector_load("TRACE", &v);
	check(&v, &m);
	assert_true(m.hdr.seq == 1763770000100002ull);
	assert_int_equal(m.u.trace.count, 2);
	assert_int_equal(m.u.trace.more, 0);
	assert_true(m.u.trace.edge[0].real_ns == 1763770000500000000ull);
	assert_int_equal(m.u.trace.edge[0].late_ns, 15000);
	assert_int_equal(m.u.trace.edge[0].op_ns, 30000);
	assert_int_equal(m.u.trace.edge[0].phase, PHASE_PS);
	assert_true(m.u.trace.edge[1].real_ns == 1763770000580000000ull);
	assert_int_equal(m.u.trace.edge[1].late_ns, 12000);
	assert_int_equal(m.u.trace.edge[1].op_ns, 25000);
	assert_int_equal(m.u.trace.edge[1].phase, PHASE_LS);
}

static void
test_metrics(void **state)
{
	static const uint32_t late[HIST_BUCKETS] = { 70000, 1500, 400, 90, 9,
	    0, 0, 0, 0, 0, 0, 1 };
	static const uint32_t op[HIST_BUCKETS] = { 71000, 900, 100 };
	struct vector	 v;
	struct proto_msg m;
	const struct proto_metrics *p = &m.u.metrics;

	vector_load("METRICS", &v);
	assert_int_equal(v.len, PROTO_HDR_LEN + PROTO_METRICS_LEN +
	    PROTO_MAC_LEN);
	check(&v, &m);
	assert_int_equal(m.hdr.sender, 0x55667788);
	assert_true(m.hdr.seq == 1763770000100003ull);
	assert_true(p->uptime_ns == 3600000000000ull);
	assert_true(p->slices == 36000 && p->overruns == 2);
	assert_true(p->ps_ns == 1800000000000ull);
	assert_true(p->ls_ns == 1799900000000ull);
	assert_true(p->stopped_ns == 1799950000000ull);
	assert_true(p->gang_cpu_ns == 1790000000000ull);
	assert_int_equal(p->mode, MODE_STATIC);
	assert_int_equal(p->phase, PHASE_LS);
	assert_int_equal(p->flags, SCHED_F_ACTIVE | STATUS_F_HEARD |
	    STATUS_F_YOURS);
	assert_int_equal(p->ps_us, 50000);
	assert_int_equal(p->ip_us, 100000);
	assert_int_equal(p->load_milli, 1250);
	assert_int_equal(p->members, 3);
	assert_int_equal(p->failsafe, 1);
	assert_int_equal(p->master_changes, 2);
	assert_int_equal(p->queue_full, 0);
	for (int i = 0; i < REJ_COUNT; i++)
		assert_int_equal(p->rejected[i], i == REJ_MAC ? 7 : 0);
	assert_memory_equal(p->late.n, late, sizeof(late));
	assert_true(p->late.sum_ns == 400000000);
	assert_memory_equal(p->op.n, op, sizeof(op));
	assert_true(p->op.sum_ns == 200000000);
	assert_string_equal(p->name, "node1");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schedule),
		cmocka_unit_test(test_requests),
		cmocka_unit_test(test_weight),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_load_trace),
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_schedule_slots),
		cmocka_unit_test(test_status_jobs),
		cmocka_unit_test(test_job),
		cmocka_unit_test(test_job_mem),
		cmocka_unit_test(test_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
