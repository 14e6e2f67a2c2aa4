/*-------------------------------------------------------------------------
 *
 * gdp.h
 *	  Gaussian differential privacy (Dong, Roth, Su 2019): the privacy
 *	  profile of mu-GDP and the largest mu an (eps, delta) holds.  Plain C,
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
 * A mu at and below which mu-GDP is (eps, delta)-DP: the largest mu a search
 * (from the classical Gaussian mechanism's mu, up in 5 % steps or halving,
 * doubling, then 100 bisection steps) finds whose computed delta_mu(eps) is a number at most
 * delta (1 - 1e-6); 0 where it finds none.  delta_mu(eps) grows with mu, so
 * [0, returned mu] is valid even where the computation cannot be trusted.
 * eps > 0, 0 < delta < 1; else 0.
 */
extern double gdp_mu_threshold(double eps, double delta);

/*
 * The mu of discrete Gaussian releases of total zCDP cost rho (an upper
 * bound on rho, >= 0), rounded up: sqrt(2 rho / (1 - rho 2^-19) (1 + 1e-14))
 * (1 + 1e-15) (docs/PRIVACY.md, "Composition: one filter for every mechanism"); NaN when rho is not
 * finite or rho 2^-19 >= 1/2 (the coupling's factor is not small).
 */
extern double gdp_mu_of_rho(double rho);

/*
 * The epsilon mu-GDP spends at delta, from above: the least eps a 60-step
 * bisection of [0, hi] finds with mu <= gdp_mu_threshold(eps, delta); hi
 * when it finds none (also for a NaN mu).  hi: an epsilon known to hold.
 */
extern double gdp_epsilon_below(double mu, double delta, double hi);

#endif							/* DPOBJ_GDP_H */
