/*-------------------------------------------------------------------------
 *
 * tunecalib.h
 *	  Private hyperparameter tuning by random stopping (Papernot and
 *	  Steinke, "Hyperparameter Tuning with Renyi Differential Privacy",
 *	  ICLR 2022, Theorem 2 with eta = 1: the geometric number of runs of
 *	  Liu and Talwar 2019).  A run Q is rho-zCDP; A runs Q K times, K ~
 *	  Geometric(gamma) on {1, 2, ...} (E[K] = 1/gamma), and releases the best
 *	  output.  For every lambda > 1 and lambda-hat > 1 A is (lambda, e)-RDP,
 *	    e = rho lambda + 2 rho (lambda-hat - 1) + 2 ln(1/gamma) / lambda-hat
 *	        + ln(1/gamma) / (lambda - 1),
 *	  and the conversion of calibrate.h gives (eps, delta0)-DP.  K is capped
 *	  at a public K_max, which costs (1 + e^eps) (1 - gamma)^K_max more delta.
 *	  Plain C; derivation: docs/PRIVACY.md, "Private hyperparameter tuning".
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_TUNECALIB_H
#define DPOBJ_TUNECALIB_H

#include <stdint.h>

#include <gsl/gsl_rng.h>

/* gamma is the rational num / TUNE_GAMMA_DEN (exact for the Bernoulli coin) */
#define TUNE_GAMMA_BITS		20
#define TUNE_GAMMA_DEN		((uint64_t) 1 << TUNE_GAMMA_BITS)

/*
 * min over lambda-hat of 2 rho (lambda-hat - 1) + 2 ln(1/gamma) / lambda-hat,
 * lambda-hat - 1 on calibrate.c's grid of orders: the price of the best of K.
 */
extern double tune_extra(double rho, double gamma);

/*
 * The eps at which A, built on a rho-zCDP Q, is (eps, delta0)-DP: the
 * theorem's RDP curve converted at its best order (zcdp_eps at delta0 gamma,
 * since ln(1/gamma) / (lambda - 1) joins the conversion's ln(1/delta0) /
 * (lambda - 1)) plus tune_extra.  Grows with rho.
 */
extern double tune_eps(double rho, double gamma, double delta0);

/*
 * The largest rho (bisection, to 1e-12 relative, rounded down) with
 * tune_eps(rho, gamma, delta0) <= eps; NAN when none exists (eps too small
 * for gamma and delta0) or the arguments are invalid.  Deterministic.
 */
extern double tune_rho(double eps, double gamma, double delta0);

/*
 * The smallest K_max >= 1 with (1 + e^eps) (1 - gamma)^K_max <= delta_t
 * (1 when gamma = 1); 0 when it would exceed TUNE_MAX_RUNS.
 */
#define TUNE_MAX_RUNS		1000000
extern int64_t tune_kmax(double eps, double gamma, double delta_t);

/*
 * gamma_num / TUNE_GAMMA_DEN from a public gamma in (0, 1]: rounded up to
 * the grid (fewer runs), at least 1.
 */
extern uint64_t tune_gamma_num(double gamma);

/*
 * Whether to stop after a run: Bernoulli(gamma_num / TUNE_GAMMA_DEN),
 * exact.  Stopping after the first success gives K ~ Geometric(gamma).
 */
extern int	tune_stop(gsl_rng *rng, uint64_t gamma_num);

/* min(K, kmax), K ~ Geometric(gamma) on {1, 2, ...}: what tune_stop yields */
extern int64_t tune_geometric(gsl_rng *rng, uint64_t gamma_num, int64_t kmax);

/*
 * The tuning score's row count of an observation from its count c times its
 * label's class weight w in [2^-10, 1] (glmstate_observations: fl(c w)),
 * exactly min(c, 2^TUNE_ROW_COUNT_BITS): for c <= 2^48, fl(fl(c w) / w) is
 * within c 2^-52 < 1/16 of c (nothing subnormal), and every step is monotone
 * in c; so 1-Lipschitz in c whatever c is (docs/PRIVACY.md, "Private
 * hyperparameter tuning", the weighted score).
 */
#define TUNE_ROW_COUNT_BITS	48
extern int64_t tune_row_count(double cnt, double w);

#endif							/* DPOBJ_TUNECALIB_H */
