/*
 * vectors.h - the example datagrams of doc/protocol.txt ("vector NAME (N
 * bytes)", hex lines "  OFFSET  xx xx ...", "end"), the one place a
 * datagram is typed: test_golden.c checks them against the document's
 * field values and keys, test_wire.c against the layout (encoder and
 * refusals).  Link vectors.c, and compile with
 * -DSRCDIR='"$(abs_top_srcdir)"'.
 */
#ifndef DTS_VECTORS_H
#define DTS_VECTORS_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

struct vector {
	char	 name[32];
	uint8_t	 b[PROTO_MAX_DGRAM];
	size_t	 len;
};

/* The vector called name into v; a cmocka failure if it is not there or
 * not as long as it says. */
void vector_load(const char *name, struct vector *v);

#endif /* DTS_VECTORS_H */
