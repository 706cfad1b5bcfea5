/*
 * fuzz_proto.c - libFuzzer harness for the datagram decoder: every input
 * goes through proto_decode() and the whole receiver path proto_open():
 * insecure, as a node (Ed25519 signatures of commands, looked up by
 * key_id: the fuzzer finds the id in the seed) and as a console (a
 * node's HMAC); it must never crash, and a decoded datagram must
 * re-encode to the same bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "auth.h"
#include "proto.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct replay r;
	static const struct auth_key none = { .insecure = 1 };
	static struct auth_key keyed = { .key = { 1, 2, 3 } }, node;
	static int node_init;
	struct proto_msg m;
	enum proto_reject why;
	uint8_t again[PROTO_MAX_DGRAM];
	const char *err;

	if (!node_init++) {	/* the seed's key: seedgen.c's fixed seed */
		uint8_t seed[crypto_sign_SEEDBYTES] = { 42 };

		crypto_sign_seed_keypair(node.pub[0], node.sk, seed);
		node.pub_id[0] = auth_key_id(node.pub[0]);
		node.npub = 1;
	}
	replay_init(&r, 0, 1ull << 40, UINT64_MAX / 4);
	(void)replay_clock(&r, 1ull << 40, 1ull << 40);
	if (proto_decode(data, size, &m, &why) == 0) {
		int n = proto_encode(&m, again, sizeof(again));
		/* STATUS_REQ padding and a host name without NUL are
		 * normalised; job names, pads and unused entries are
		 * decoded only if they are as the encoder writes them */
		if (m.hdr.type == PROTO_SCHEDULE || m.hdr.type == PROTO_LOAD ||
		    m.hdr.type == PROTO_JOB_REQ || m.hdr.type == PROTO_JOB ||
		    m.hdr.type == PROTO_WEIGHT) {
			if (n < 0 || memcmp(again, data, (size_t)n) != 0)
				abort();
		}
		if (m.hdr.type == PROTO_SCHEDULE)
			(void)proto_check_schedule(&m.u.schedule, &err);
		if (m.hdr.type == PROTO_WEIGHT)
			(void)proto_check_weight(&m.u.weight, &err);
	} else if (why >= REJ_COUNT) {
		abort();
	}
	(void)proto_open(&none, &r, PROTO_ACCEPT_NODE, data, size,
	    &m, &why);
	(void)proto_open(&node, &r, PROTO_ACCEPT_NODE, data, size,
	    &m, &why);
	(void)proto_open(&node, &r, PROTO_ACCEPT_PEER, data, size,
	    &m, &why);	/* a standby console */
	(void)proto_open(&keyed, &r, PROTO_ACCEPT_CONSOLE, data,
	    size, &m, &why);
	return 0;
}
