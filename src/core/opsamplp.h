/*-------------------------------------------------------------------------
 *
 * opsamplp.h
 *	  OPSamp's LP in GLPK (plain C): its construction, the simplex's
 *	  settings, and a bound on GLPK's memory for it.
 *
 * The LP over nobs distinct observations (x_k, y_k) with counts c_k and
 * p weights w (src/families/glm/opsamp.c, docs/PRIVACY.md "OPSamp"), with
 * a_k = y_k x_k / (1 + R_1) and b = 1 / (1 + R_1):
 *   min  sum_k c_k xi_k - <sigma, w>
 *   s.t. xi_k + <a_k, w> >= b,  xi_k >= 0,  -1 <= w_j <= 1,
 * is solved in its dual form (multipliers u_k of the rows):
 *   max  b sum_k u_k - sum_j (v_j^+ + v_j^-)
 *   s.t. sum_k a_kj u_k - v_j^+ + v_j^- = -sigma_j   (j = 1..p)
 *        0 <= u_k <= c_k,  v^+, v^- >= 0
 * (the Lagrangian's minimum over xi >= 0 needs u_k <= c_k, that over the
 * box is -||sum_k a_k u_k + sigma||_1).  Both are feasible and bounded;
 * by LP duality the dual values of the p rows at an optimal basis are an
 * optimal w of the first LP, its unique one when that is unique (with
 * probability 1, sigma having a density).
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
 * with a margin (an observation: 250 + 81 p bytes on dense rows; one
 * observation in all: 20 kB at p = 3, 80 kB at p = 51, 1.4 MB at
 * p = 1024, the p rows and 2p columns v^+, v^- and their simplex arrays,
 * about 1.25 kB each of p); tests/unit/test_opsamplp.c checks them at
 * several sizes and p, docs/SCALING.md has the numbers.
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
	double		a = 32768.0 + 1024.0 * (double) p;
	double		b = 1536.0 * (double) p;

	return a > b ? a : b;
}

/*
 * The LP over X (nobs x p, row-major), counts cnt and labels y (+-1), rows
 * clipped to ||x||_1 <= R1, with sigma = 0 and opsamp_lp_start_basis's
 * basis.  NULL when it cannot be built: more columns than GLPK's int
 * indices hold, or out of memory.  GLPK's error hook must be set by the
 * caller.
 */
extern glp_prob *opsamp_lp_build(const double *X, const double *cnt, const double *y,
								 int64_t nobs, int p, double R1);

/*
 * Sets the LP's basis to the start: the p rows basic (w = 0), every u_k at
 * its upper bound c_k (every hinge term on at w = 0), the v at zero.  Dual
 * feasible for every sigma (the reduced costs are b > 0 at the upper and
 * -1 at the lower bounds), so no solve from it needs a phase 1.
 */
extern void opsamp_lp_start_basis(glp_prob *lp, int p);

/* the perturbation sigma (p values) of the next solve: the rows' bounds */
extern void opsamp_lp_set_sigma(glp_prob *lp, int p, const double *sigma);

/* w_j (j = 0..p-1) at the last optimum: row j's dual value, kept in [-1, 1] */
extern double opsamp_lp_w(glp_prob *lp, int j);

/* the simplex's settings: no presolve, no output, time slices of tm_lim ms */
extern void opsamp_lp_smcp(glp_smcp *smcp, int tm_lim);

#endif							/* DPOBJ_OPSAMPLP_H */
