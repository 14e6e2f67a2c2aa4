/*-------------------------------------------------------------------------
 *
 * rowclip.h
 *	  A feature vector's norm and its clipping to a norm bound: x becomes
 *	  x * min(1, R / ||x||), with the l2 norm (or the l1 norm), computed with
 *	  scaling so that huge finite values do not overflow.  A fixed per-row
 *	  map: the continuous mechanisms' sensitivity analyses hold for any
 *	  data.  Plain C.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_ROWCLIP_H
#define DPOBJ_ROWCLIP_H

#include <stdbool.h>

/* ||x|| (l2, or l1 when l1), scaled by the largest |x_j|: finite for finite x */
extern double rowclip_norm(const double *x, int d, bool l1);

/*
 * ||x|| summed plainly, without scaling: the norm rowclip_apply() guarantees
 * (it checks this one after scaling); rowclip_norm may differ in the last bits
 */
extern double rowclip_plain_norm(const double *x, int d, bool l1);

/*
 * Clips x (in place) to norm <= R (R > 0; +inf leaves x as it is); -0.0
 * becomes 0.0, so that equal clipped rows are equal bit for bit.
 */
extern void rowclip_apply(double *x, int d, double R, bool l1);

/*
 * True only if ||x||^2 <= R^2 (1 - 2^-21) (exact, real numbers), from one
 * unscaled sum of squares: a cheap certificate that a row needs no clip to R.
 * False when it cannot tell (the sum is near or above the bound, overflows,
 * R is outside [2^-200, 2^200] or d > 2^20).
 */
extern bool rowclip_certainly_within(const double *x, int d, double R);

#endif							/* DPOBJ_ROWCLIP_H */
