/*
 * unit_util.h - helpers the unit tests share (linked from unit_util.c):
 * a file's whole contents, and a datagram sealed now.  One copy each.
 */
#ifndef UNIT_UTIL_H
#define UNIT_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "wire.h"

/*
 * The whole file at path, NUL-terminated, in memory of its own (the
 * caller frees it); its length in *len unless len is NULL.  NULL if the
 * file cannot be opened or read.
 */
char	*tu_slurp(const char *path, size_t *len);

/*
 * m sealed with k (its seq from g) into buf, at now_mono_us(): the
 * datagram's length.  Fails the test if proto_seal() refuses.
 */
int	 tu_seal(const struct auth_key *k, struct seqgen *g,
	    struct proto_msg *m, uint8_t buf[PROTO_MAX_DGRAM]);

#endif
