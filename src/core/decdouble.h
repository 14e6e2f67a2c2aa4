/*-------------------------------------------------------------------------
 *
 * decdouble.h
 *	  A decimal number given as base-10000 digits (the layout of
 *	  PostgreSQL's numeric) as a feature value: dropped when |x| >= 1e300,
 *	  0 when |x| < 1e-300, else the double nearest x (ties to even, what
 *	  strtod returns) when one exact IEEE operation gives it (Clinger's
 *	  fast path); otherwise the caller converts x itself.  Plain C.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_DECDOUBLE_H
#define DPOBJ_DECDOUBLE_H

#include <stdbool.h>

typedef enum DecDouble
{
	DECDOUBLE_VALUE,			/* *out is the feature value */
	DECDOUBLE_DROP,				/* |x| >= 1e300: no value (the row is dropped) */
	DECDOUBLE_SLOW				/* within range, but no exact fast path: convert x */
} DecDouble;

/*
 * x = (negative ? -1 : 1) * sum_{i < ndigits} d_i * 10000^(weight - i), the
 * digits d_i (0..9999, leading and trailing zero digits allowed) read as
 * native int16 from digits (any alignment).  A digit outside 0..9999 gives
 * DECDOUBLE_SLOW.  0 < |x| < 1e-300 and x = 0 give +0.
 */
extern DecDouble decdouble_feature(const void *digits, int ndigits, int weight,
								   bool negative, double *out);

#endif							/* DPOBJ_DECDOUBLE_H */
