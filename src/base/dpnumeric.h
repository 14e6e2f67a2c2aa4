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

#endif							/* DPOBJ_DPNUMERIC_H */
