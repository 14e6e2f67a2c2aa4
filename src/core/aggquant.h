/*-------------------------------------------------------------------------
 *
 * aggquant.h
 *	  dpobj.aggregate()'s quantiles and their 95 % intervals from two
 *	  noisy histograms (docs/PRIVACY.md, "Private statistics"): B equal
 *	  leaves of [lo, hi] and coarse bins of g consecutive leaves (none when
 *	  g = B), each count plus independent discrete Laplace noise of rate
 *	  r (P(Y = y) proportional to exp(-r |y|)), r_leaf for the leaves and
 *	  r_coarse for the coarse bins.  Everything here is post-processing of
 *	  those counts with public parameters.  Shared by the run
 *	  (protected/aggrun.c) and its accuracy before any run
 *	  (protected/aggplan.c).  Plain C + GSL, unit-tested in
 *	  tests/unit/test_aggquant.c.
 *
 *	  At edge k (between leaves k - 1 and k, 1 <= k < B) the test
 *	  statistic is T_k = (1 - q) P_k - q S_k, P_k the noisy rows below the
 *	  edge and S_k those above it, each a sum of disjoint noisy counts:
 *	  T_k = (#rows below - q n) + W_k, W_k = (1 - q) U - q V with U and V
 *	  independent sums of the counts' noises.  The q-quantile x_(t), t =
 *	  ceil(q n), lies at or above edge k iff #rows below < q n.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_AGGQUANT_H
#define DPOBJ_AGGQUANT_H

#include <stdbool.h>

/* the public shape of one quantile statistic's release */
typedef struct AggquantShape
{
	int			nleaves;		/* B >= 2 */
	int			group;			/* g leaves per coarse bin; g = B: no coarse bins */
	double		rate_leaf;		/* a leaf count's noise rate (den / num) */
	double		rate_coarse;	/* a coarse count's (unused when g = B) */
} AggquantShape;

/* the number of coarse bins of a shape: 0 when g = B, else ceil(B / g) */
extern int	aggquant_ncoarse(const AggquantShape *s);

/* the noise laws of one shape, computed on demand and kept (NULL: out of memory) */
typedef struct AggquantLaw AggquantLaw;
extern AggquantLaw *aggquant_law_new(const AggquantShape *s);
extern void aggquant_law_free(AggquantLaw *law);

/*
 * One q's interval and estimate from a cell's noisy leaf counts (B) and
 * coarse counts (ncoarse), as edge indices 0 .. B (edge k is the lower
 * edge of leaf k, edge B the upper bound): [*lo, *hi] holds the leaf of
 * x_(t) w.p. >= 1 - 2 alpha on every table (each end errs only when the
 * test at one edge, fixed by the rows, rejects wrongly: its p-value, an
 * upper bound of the noise law's tail, <= alpha); [*est_lo, *est_hi] the
 * same rule at the noise's median (the test's sign), inside [*lo, *hi].
 */
extern void aggquant_interval(AggquantLaw *law, const double *leaf, const double *coarse,
							  double q, double alpha, int *lo, int *hi, int *est_lo, int *est_hi);

/*
 * The interval's reach in rows at q: the largest, over the edges where
 * the test's noise is widest, of the least h with P(W_k < -h) <= alpha
 * (its bound); an end lies at most about h rows beyond rank t plus a leaf
 */
extern double aggquant_reach(AggquantLaw *law, double q, double alpha);

#endif							/* DPOBJ_AGGQUANT_H */
