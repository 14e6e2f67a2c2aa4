/*
 * unitcheck.h -- the pass/fail counters of the standalone unit tests: CHECK(cond,
 * fmt, ...) counts a check and prints "not ok - <message>" when it fails;
 * unitcheck_report() prints the last line "N passed, M failed" and returns the exit
 * status (0 when nothing failed).
 */
#ifndef DPOBJ_UNITCHECK_H
#define DPOBJ_UNITCHECK_H

#include <stdio.h>

static int	npass,
			nfail;

#define CHECK(cond, ...) \
	do { \
		if (cond) npass++; \
		else { nfail++; printf("not ok - "); printf(__VA_ARGS__); printf("\n"); } \
	} while (0)

static inline int
unitcheck_report(void)
{
	printf("%d passed, %d failed\n", npass, nfail);
	return nfail == 0 ? 0 : 1;
}

#endif							/* DPOBJ_UNITCHECK_H */
