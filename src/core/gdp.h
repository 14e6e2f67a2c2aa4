/*-------------------------------------------------------------------------
 *
 * gdp.h
 *	  Gaussian differential privacy (Dong, Roth, Su 2019): the privacy
 *	  profile of mu-GDP and the epsilon it guarantees at a delta.  Plain C,
 *	  no PostgreSQL headers.  The accountant composes the Gaussian runs of a
 *	  budget's zCDP part in it (docs/PRIVACY.md, "Composition").
 *
 * mu-GDP is (eps, delta_mu(eps))-DP for every eps >= 0, and no better:
 *
 *	 delta_mu(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)
 *
 * (DRS19, Corollary 2.13).  It decreases in eps and grows with mu.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_GDP_H
#define DPOBJ_GDP_H

#include <stdbool.h>

/*
 * delta_mu(eps) in double, or NaN where double precision cannot be trusted
 * to 1e-9 relative: the two terms cancel to fewer than three digits, a term
 * is below 1e-290 (near the subnormals) or not finite.  Where it returns a
 * number, its relative error is below 1e-9 (tests/unit/test_gdp.c checks it
 * against 60-digit references).
 */
extern double gdp_delta(double mu, double eps);

/*
 * An upper bound on the smallest eps with delta_mu(eps) <= delta: the least
 * eps of a bisection (100 steps) whose computed delta_mu is a number at most
 * delta (1 - 1e-6), and never above the zCDP bound zcdp_eps(mu^2 / 2,
 * delta) (mu-GDP is mu^2/2-zCDP), which is also the answer where no computed
 * point qualifies.  mu > 0, 0 < delta < 1; else NaN.
 */
extern double gdp_eps(double mu, double delta);

#endif							/* DPOBJ_GDP_H */
