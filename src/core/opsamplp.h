/*-------------------------------------------------------------------------
 *
 * opsamplp.h
 *	  OPSamp's LP in GLPK (plain C): its construction, the simplex's
 *	  settings, and a bound on GLPK's memory for it.
 *
 * The LP over nobs distinct observations (x_k, y_k) with counts c_k and
 * p weights w (src/mechanisms/opsamp.c, docs/PRIVACY.md "OPSamp"):
 *   min  sum_k c_k xi_k - <sigma, w>
 *   s.t. xi_k + y_k <x_k, w> / (1 + R_1) >= 1 / (1 + R_1),
 *        0 <= xi_k <= 2,  -1 <= w_j <= 1
 * Only sigma changes between solves.  xi_k <= 2 never binds at an optimum:
 * with ||x_k||_1 <= R_1 and w in [-1, 1]^p the row's right side minus
 * y_k <x_k, w> / (1 + R_1) is at most 1, and an optimal xi_k is the larger
 * of 0 and it (c_k > 0); so the optimal set is that of xi_k >= 0 alone,
 * and every variable is bounded, which the dual simplex's long-step ratio
 * test needs.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_OPSAMPLP_H
#define DPOBJ_OPSAMPLP_H

#include <stdint.h>

#include <glpk.h>

/*
 * GLPK's memory for the LP of nobs observations and p weights, built and
 * solved (glp_mem_usage's peak over opsamp_lp_build and repeated
 * glp_simplex calls with opsamp_lp_smcp's settings) is at most
 * opsamp_lp_fixed_bytes(p) + nobs * opsamp_lp_obs_bytes(p): measured peaks
 * (930 + 80.6 p bytes an observation on dense rows; 18 kB at p = 3 and
 * 33 kB at p = 51 for one observation) with a margin; tests/unit/test_opsamplp.c checks them at several
 * sizes and p, docs/SCALING.md has the numbers.
 */
#define OPSAMP_LP_OBS_BASE	1500.0
#define OPSAMP_LP_OBS_PER_P	120.0

static inline double
opsamp_lp_obs_bytes(int p)
{
	return OPSAMP_LP_OBS_BASE + OPSAMP_LP_OBS_PER_P * (double) p;
}

static inline double
opsamp_lp_fixed_bytes(int p)
{
	return 32768.0 + 1024.0 * (double) p;
}

/*
 * The LP over X (nobs x p, row-major), counts cnt and labels y (+-1), rows
 * clipped to ||x||_1 <= R1, with opsamp_lp_start_basis's basis.  NULL when
 * it cannot be built: more columns than GLPK's int indices hold, or out of
 * memory.  GLPK's error hook must be set by the caller.
 */
extern glp_prob *opsamp_lp_build(const double *X, const double *cnt, const double *y,
								 int64_t nobs, int p, double R1);

/*
 * Sets the LP's basis (any objective) to the primal feasible start: w at
 * its upper bounds; per observation xi_k basic where the row binds there,
 * else the row's slack.  Read from the LP's stored rows, so a solved LP
 * reset to it starts where the built one did.  0 when out of memory (the
 * basis is then unchanged).
 */
extern int	opsamp_lp_start_basis(glp_prob *lp, int p);

/* the simplex's settings: no presolve, no output, time slices of tm_lim ms */
extern void opsamp_lp_smcp(glp_smcp *smcp, int tm_lim);

#endif							/* DPOBJ_OPSAMPLP_H */
