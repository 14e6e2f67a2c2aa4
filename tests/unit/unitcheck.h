/*
 * unitcheck.h -- the pass/fail counters of the standalone unit tests: CHECK(cond,
 * fmt, ...) counts a check and prints "not ok - <message>" when it fails;
 * unitcheck_report() prints the last line "N passed, M failed" and returns the exit
 * status (0 when nothing failed); unitcheck_next64(), a test's pseudo-random stream
 * (xorshift64*, the same on every run).
 */
#ifndef DPOBJ_UNITCHECK_H
#define DPOBJ_UNITCHECK_H

#include <stdint.h>
#include <stdio.h>

static int	npass,
			nfail;

#define CHECK(cond, ...) \
	do { \
		if (cond) npass++; \
		else { nfail++; printf("not ok - "); printf(__VA_ARGS__); printf("\n"); } \
	} while (0)

/* xorshift64*: enough for a test's keys, shuffles and cases */
static inline uint64_t
unitcheck_next64(void)
{
	static uint64_t state = 88172645463325252ULL;

	state ^= state >> 12;
	state ^= state << 25;
	state ^= state >> 27;
	return state * 2685821657736338717ULL;
}

static inline int
unitcheck_report(void)
{
	printf("%d passed, %d failed\n", npass, nfail);
	return nfail == 0 ? 0 : 1;
}

#endif							/* DPOBJ_UNITCHECK_H */
