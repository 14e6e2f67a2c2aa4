/*-------------------------------------------------------------------------
 *
 * synthci.h
 *	  95 % intervals for the counts of a marginal of the synthesizer's model
 *	  (what dpobj.marginal() will answer), from the released measurements
 *	  and the rounds' public record only.  Plain C.
 *
 *	  Supported marginal (some measurement's set holds r): the first such
 *	  measurement in release order, m, summed to r.  Whether m is the first
 *	  depends only on the selections before it, which its noise does not
 *	  influence, so given that, each cell's noise is a sum of n_m(x) fresh
 *	  discrete Gaussians of variance proxy s_m^2 each (CKS20: the discrete
 *	  Gaussian is s-subgaussian), and P(|noise| >= h) <= 2 exp(-h^2 / (2
 *	  n s^2)) = 0.05 at h = s sqrt(2 n ln 40).  The interval [y - h, y + h]
 *	  is widened to hold the model's estimate and clamped at 0: it still
 *	  holds the true count with probability >= 95 %.  (A later, less noisy
 *	  measurement cannot be chosen the same way: whether it exists depends
 *	  on the earlier noise.)
 *
 *	  Unsupported marginal that was a candidate in the last round T: the
 *	  exponential mechanism's tail (AIM, section 5): with probability >= 1 -
 *	  lambda1 every candidate's loss is at least the chosen one's minus
 *	  (ln |C_T| + ln(1/lambda1)) / gamma_T; the chosen one's private part is
 *	  bounded by its measurement plus its noise's l1 norm, at most s sqrt(2
 *	  n (n ln 2 + ln(1/lambda2))) with probability >= 1 - lambda2 (the same
 *	  subgaussian bound on sum |Z_i|); the lattice roundings are added; then
 *	  ||c_r - mu_r(final)||_1 <= that + ||mu_r(T-1) - mu_r(final)||_1.
 *	  lambda1 = lambda2 = 0.025.  Every cell: the model's estimate +- the
 *	  bound, clamped at 0.  Else no interval.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SYNTHCI_H
#define DPOBJ_SYNTHCI_H

#include "core/synthaim.h"

typedef enum SynthIntervalKind
{
	SYNTH_CI_NONE = 0,			/* not a candidate of the last round, not measured */
	SYNTH_CI_MEASURED,			/* from a measurement */
	SYNTH_CI_SELECTION			/* from the last round's selection */
} SynthIntervalKind;

/* the half-width of a sum of n discrete Gaussians of variance proxy s2 at 95 % */
extern double synth_ci_halfwidth(double s2, double n);

/* the l1 norm of n such draws exceeds this with probability <= lambda */
extern double synth_ci_l1_bound(double s2, double n, double lambda);

/*
 * The model's marginal over r (total rows) and 95 % intervals [lo, hi] for
 * each of its cells (r's cells; all three malloc'd by the caller).
 */
extern SynthStatus synth_ci_marginal(const SynthResult *res, SynthSet r, double *est,
									 double *lo, double *hi, SynthIntervalKind *kind);

#endif							/* DPOBJ_SYNTHCI_H */
