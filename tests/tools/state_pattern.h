/*
 * state_pattern.h - the values a writer of the state file puts with a
 * given seq in the tests of the sequence lock (tests/unit/test_state.c
 * and tests/tools/statestress.c): every field follows from the seq, so a
 * reader can tell a torn read from a whole one.  Include after state.h
 * and proto.h.
 */
#ifndef DTS_STATE_PATTERN_H
#define DTS_STATE_PATTERN_H

#include <stdint.h>

static inline void
values_for(uint64_t seq, uint64_t v[STATE_FIELDS])
{
	v[STATE_PHASE] = seq % PHASE_COUNT;
	v[STATE_LS_POLICY] = seq % 2;
	v[STATE_MODE] = seq % MODE_COUNT;
	v[STATE_PS_US] = seq * 7;
	v[STATE_IP_US] = seq * 11;
	v[STATE_STOPPED_NS] = seq * 999999937;	/* every digit moves */
	v[STATE_PS_NS] = UINT64_MAX - seq;
	v[STATE_LS_NS] = seq * seq;
	v[STATE_AT_NS] = seq << 20;
	v[STATE_MEM_BYTES] = seq * 4096;
	v[STATE_SWAP_BYTES] = ~seq;
}

#endif
