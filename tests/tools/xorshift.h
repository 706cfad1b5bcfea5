/*
 * xorshift.h - xorshift64*: a small, fast generator for the test tools'
 * random draws (loss, jitter, junk datagrams), reproducible from a seed.
 * Not for anything an attacker must not guess.  *state must not be 0.
 */
#ifndef DTS_TESTS_XORSHIFT_H
#define DTS_TESTS_XORSHIFT_H

#include <stdint.h>

static inline uint64_t
xorshift64s(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 2685821657736338717ULL;
}

#endif /* DTS_TESTS_XORSHIFT_H */
