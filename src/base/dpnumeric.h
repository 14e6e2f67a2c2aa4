/*-------------------------------------------------------------------------
 *
 * dpnumeric.h
 *	  The numeric conversions and comparison that budgets, requests and the
 *	  accountant's exact arithmetic share.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_DPNUMERIC_H
#define DPOBJ_DPNUMERIC_H

#include "postgres.h"

#include "utils/numeric.h"

/* a <=> b for numerics (-1, 0, 1) */
extern int	dp_numeric_cmp(Numeric a, Numeric b);

/* a numeric of a float8 (finite) or of numeric text */
extern Numeric dp_numeric_of_float8(double f);
extern Numeric dp_numeric_of_text(const char *text);

/*
 * The float8 handed to the mechanism for a charged numeric: the largest
 * float8 not above it, so that the noise is calibrated for at most what is
 * charged.  0 is 0; other values outside (1e-300, 1e300) are refused with
 * a hint (what names the argument).
 */
extern double dp_numeric_to_float8_down(Numeric n, const char *what);

/*
 * A budget amount (numeric text) for a message: DP_BUDGET_DIGITS significant
 * digits, cut toward zero, never rounded up (a remaining budget shown must
 * not suggest that a run fits when it does not), trailing zeros dropped;
 * "at least x" when digits were cut
 */
#define DP_BUDGET_DIGITS 4
extern char *dp_budget_text(const char *num);

/*
 * n zeroed exact accumulators (__int128), 16-byte aligned: palloc's alignment
 * is 8 and the compiler may use aligned 16-byte loads and stores on them;
 * *chunk (unless chunk is NULL) is the allocation to pfree
 */
extern __int128 *dp_palloc0_int128(Size n, void **chunk);

#endif							/* DPOBJ_DPNUMERIC_H */
