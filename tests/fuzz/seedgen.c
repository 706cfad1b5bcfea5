/*
 * seedgen.c - write one valid datagram of each type as the fuzzer's seed
 * corpus: `seedgen DIR`.  Commands are signed with the key pair of a
 * fixed seed (fuzz_proto.c's node obeys it), replies have zero tags.
 */
#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "auth.h"
#include "wire.h"

static void
emit(const char *dir, const char *name, struct proto_msg *m)
{
	static const struct auth_key none = { .insecure = 1 };
	static struct auth_key con;
	struct seqgen g = { .sender = 42, .last = 0 };
	uint8_t seed[crypto_sign_SEEDBYTES] = { 42 }, pk[crypto_sign_PUBLICKEYBYTES];
	uint8_t buf[PROTO_MAX_DGRAM];
	char path[512];
	int n;

	crypto_sign_seed_keypair(pk, con.sk, seed);
	con.sign_id = auth_key_id(pk);
	con.can_sign = 1;
	n = proto_seal(proto_is_command(m->hdr.type) ? &con : &none, &g, 1000,
	    m, buf, sizeof(buf));
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (n < 0 || (f = fopen(path, "wb")) == NULL)
		return;
	fwrite(buf, 1, (size_t)n, f);
	fclose(f);
}

int
main(int argc, char **argv)
{
	struct proto_msg m;

	if (argc != 2)
		return 2;
	memset(&m, 0, sizeof(m));
	m.hdr.type = PROTO_SCHEDULE;
	m.u.schedule = (struct proto_schedule){ .mode = MODE_STATIC, .flags = 3,
	    .ps_us = 80000, .ip_us = 100000, .si_us = 10000000, .origin_ns = 1 };
	emit(argv[1], "schedule", &m);
	memset(&m, 0, sizeof(m));
	m.hdr.type = PROTO_STATUS_REQ;
	emit(argv[1], "status_req", &m);
	m.hdr.type = PROTO_STATUS;
	strcpy(m.u.status.name, "node");
	emit(argv[1], "status", &m);
	memset(&m, 0, sizeof(m));
	m.hdr.type = PROTO_LOAD;
	m.u.load.load_milli = 1500;
	emit(argv[1], "load", &m);
	memset(&m, 0, sizeof(m));
	m.hdr.type = PROTO_METRICS_REQ;
	emit(argv[1], "metrics_req", &m);
	m.hdr.type = PROTO_METRICS;
	m.u.metrics.slices = 10;
	m.u.metrics.late.n[0] = 20;
	strcpy(m.u.metrics.name, "node");
	emit(argv[1], "metrics", &m);
	/* v5: a slot table, a job list, one job's counters */
	memset(&m, 0, sizeof(m));
	m.hdr.type = PROTO_SCHEDULE;
	m.u.schedule = (struct proto_schedule){ .mode = MODE_STATIC, .flags = 3,
	    .ps_us = 80000, .ip_us = 100000, .si_us = 10000000, .origin_ns = 1,
	    .nslots = 2 };
	strcpy(m.u.schedule.slot[0].job, "alice:vm1");
	m.u.schedule.slot[0].len_us = 40000;
	strcpy(m.u.schedule.slot[1].job, "bob:pvm");
	m.u.schedule.slot[1].start_us = 40000;
	m.u.schedule.slot[1].len_us = 40000;
	emit(argv[1], "schedule_slots", &m);
	memset(&m, 0, sizeof(m));
	m.hdr.type = PROTO_STATUS;
	strcpy(m.u.status.name, "node");
	m.u.status.njobs = 2;
	strcpy(m.u.status.job[0].job, "alice:vm1");
	m.u.status.job[0].members = 2;
	strcpy(m.u.status.job[1].job, "bob:pvm");
	m.u.status.job[1].members = 1;
	emit(argv[1], "status_jobs", &m);
	memset(&m, 0, sizeof(m));
	m.hdr.type = PROTO_JOB_REQ;
	m.u.job_req.index = 1;
	emit(argv[1], "job_req", &m);
	m.hdr.type = PROTO_JOB;
	m.u.job = (struct proto_job){ .index = 1, .count = 2, .job = "bob:pvm",
	    .slot_ns = 5, .members = 1, .running = 1 };
	emit(argv[1], "job", &m);
	/* a master console's weight, to its standby */
	memset(&m, 0, sizeof(m));
	m.hdr.type = PROTO_WEIGHT;
	m.u.weight = (struct proto_weight){ .gen = 3, .index = 1, .count = 2,
	    .kind = WEIGHT_KIND_HOST, .weight = 1500000, .name = "node2" };
	emit(argv[1], "weight", &m);
	return 0;
}
