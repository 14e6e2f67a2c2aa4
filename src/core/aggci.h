/*-------------------------------------------------------------------------
 *
 * aggci.h
 *	  dpobj.aggregate()'s 95 % intervals from the noise's public law
 *	  (docs/PRIVACY.md, "Private statistics"): each noisy lattice value is
 *	  its true value plus independent discrete Laplace noise Y of scale
 *	  num / den lattice units, P(Y = y) = (1 - q) / (1 + q) q^|y|,
 *	  q = exp(-r), r = den / num its rate.  Shared by the run
 *	  (protected/aggrun.c) and its accuracy before any run
 *	  (protected/aggplan.c).  Plain C, unit-tested in
 *	  tests/unit/test_aggci.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_AGGCI_H
#define DPOBJ_AGGCI_H

#include <stdbool.h>

/*
 * The half-width h, in lattice units, of the central interval of level
 * 1 - alpha of discrete Laplace noise of rate r: the least h >= 0 with
 * P(|Y| > h) = 2 q^(h+1) / (1 + q) <= alpha.
 */
extern double aggci_halfwidth(double r, double alpha);

/* a statistic's declared bounds and lattice step (value = lattice x step) */
typedef struct AggciColumn
{
	double		lo;
	double		hi;
	double		step;
} AggciColumn;

/*
 * A mean from its noisy lattice sum S and count C with noise rates rs and
 * rc: a 95 % interval in [lo, hi], and unless C <= 0 (false) the estimate
 * S step / C, the interval widened to hold it.  The interval holds the
 * mean of the clamped values w.p. >= 95 % on every table: it covers each lattice
 * mean m whose test |S - m C| <= the 95 % quantile of |Z_S - m Z_C| (the
 * two noises' law) is not rejected, widened by the rounding's step / 2.
 */
extern bool aggci_mean(const AggciColumn *c, double S, double C, double rs, double rc,
					   double *est, double *ci_lo, double *ci_hi);

/*
 * The hull [ml, mh] of the lattice means m in [lo, hi] whose test is not
 * rejected (false when all are), each end within 2^-40 (hi - lo) of it
 */
extern bool aggci_mean_lattice(double S, double C, double rs, double rc, double lo, double hi,
							   double *ml, double *mh);

/*
 * A mean's half-width at a true count n > 0 (aggregate_accuracy): how far
 * its interval's ends lie from the mean when the noisy sum and count equal
 * their true values, at most, whatever the mean (at lo or hi, unclamped,
 * where the noise's law is widest), plus the search's resolution.
 */
extern double aggci_mean_halfwidth(const AggciColumn *c, double n, double rs, double rc);

/*
 * A population variance from its noisy lattice sums of squares Q (lattice
 * step^2 x units) and of values S and count C, rates rq, rs, rc: a 95 %
 * interval in [0, (hi - lo)^2 / 4], the extremes of m2 - m1^2 over the
 * means of the values and of their squares that the mean's test keeps at
 * 97.5 % each; the estimate as a mean's.
 */
extern bool aggci_variance(const AggciColumn *c, double units, double Q, double S, double C,
						   double rq, double rs, double rc,
						   double *est, double *ci_lo, double *ci_hi);

/*
 * A variance's half-width at a true count n > 0: D2 + 2 max(|lo|, |hi|) D1
 * + D1^2, D1 and D2 the reaches of its two means' intervals (at 97.5 %),
 * found as a mean's half-width
 */
extern double aggci_variance_halfwidth(const AggciColumn *c, double units, double n,
									   double rq, double rs, double rc);

#endif							/* DPOBJ_AGGCI_H */
