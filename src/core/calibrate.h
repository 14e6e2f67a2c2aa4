/*-------------------------------------------------------------------------
 *
 * calibrate.h
 *	  Noise calibration shared by the mechanisms: plain C + GSL, no
 *	  PostgreSQL headers, so the unit tests and the benchmarks link the very
 *	  same code as the extension.  Derivations: docs/PRIVACY.md.
 *
 * The "radial shift" bound.  OPDisc and RSPM (Neel, Roth, Vietri, Wu, ICML
 * 2020, Algorithm 1 and Algorithm 3; docs/ALGORITHMS.md, "OPDisc" and "RSPM") are
 * argmins of a perturbed objective.  Their privacy proofs map the noise
 * eta ~ N(0, sigma^2 I_k) that produces output w under dataset D to
 * eta + v(w), which produces w under a neighbour D', with ||v(w)|| <= c.
 * Because v depends on the output, the privacy loss at eta is only bounded
 * by c ||eta|| / sigma^2 + c^2 / (2 sigma^2) (Cauchy-Schwarz), and
 *
 *   delta(eps, sigma) <= E[ (1 - exp(eps - c rho / sigma - c^2 / (2 sigma^2)))_+ ],
 *   rho = ||eta|| / sigma ~ chi_k,
 *
 * a one-dimensional integral that dpobj evaluates numerically; sigma is the
 * smallest value (found by bisection) whose bound is at most delta.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_CALIBRATE_H
#define DPOBJ_CALIBRATE_H

#include <stdbool.h>

/*
 * Every numeric search here is bounded (at most DP_CALIB_MAX_EVALS
 * evaluations of its condition) and reports what became of it.  A long
 * search calls the interrupt hook between two evaluations -- never inside
 * GSL, and with nothing allocated -- so the hook may also leave by longjmp
 * (the extension's hook runs CHECK_FOR_INTERRUPTS(), calibsql.c); a hook
 * that returns true stops the search with DP_CALIB_INTERRUPTED.
 */
typedef enum DPCalibStatus
{
	DP_CALIB_OK = 0,
	DP_CALIB_INVALID,			/* arguments outside the domain */
	DP_CALIB_INFEASIBLE,		/* no value meets the condition (eps too small) */
	DP_CALIB_NUMERIC,			/* quadrature failure, overflow, bound reached */
	DP_CALIB_INTERRUPTED		/* the interrupt hook asked to stop */
} DPCalibStatus;

#define DP_CALIB_MAX_EVALS	400

typedef bool (*DPCalibInterrupt) (void *arg);

/* NULL: no hook (the default) */
extern void dp_calib_set_interrupt(DPCalibInterrupt hook, void *arg);

/*
 * The status of the last dp_shift_sigma() or zcdp_rho() call, also through
 * opdisc_sigma(), rspm_sigma() and objgauss_sigma() (DP_CALIB_OK for the
 * closed forms): why a NAN was returned.
 */
extern DPCalibStatus dp_calib_last_status(void);
extern const char *dp_calib_status_name(DPCalibStatus status);

/*
 * Upper bound on delta at eps for shift length c and noise N(0, sigma^2 I_k):
 * the integral above.  NAN when the arguments are invalid or the quadrature
 * fails.
 */
extern double dp_shift_delta(double eps, double sigma, double c, int k);

/*
 * Smallest sigma (to relative precision 1e-9, rounded up) with
 * dp_shift_delta(eps, sigma, c, k) <= delta.  Returns NAN when no sigma
 * could be calibrated (invalid arguments, numerical failure): the caller
 * refuses the run before charging.  The last 8 results are kept, keyed by
 * the exact arguments (calibrate.c): a repeated call costs no quadrature.
 */
extern double dp_shift_sigma(double eps, double delta, double c, int k);

/*
 * dp_shift_sigma() in two parts, for a caller that must know before it
 * commits whether the search can fail ("R": "private" of dp_logistic):
 * dp_shift_sigma_start() is its start, the closed form below, NAN (and its
 * status) exactly where dp_shift_sigma() refuses without searching (invalid
 * arguments; not a finite positive double; not admitted by the quadrature).
 * From a finite start s, dp_shift_sigma() returns a value in
 * [dp_shift_sigma_floor(s), s] -- or NAN when the interrupt hook stops it,
 * or when that floor is 0 (an underflow) -- and nothing else.
 */
extern double dp_shift_sigma_start(double eps, double delta, double c, int k);
extern double dp_shift_sigma_floor(double start);

/*
 * Noise drawn exactly on a lattice (dpnoise_objective_lattice) instead of
 * N(0, sigma^2 I_k), k <= DP_LATTICE_MAX_K (Objective-Gauss: p <= 1025;
 * OPDisc d + 1, RSPM 2d <= 512): dp_lattice_cost() is the epsilon the
 * coupling costs (2 eta) and sets *delta0, the delta left;
 * dp_shift_sigma_lattice() is dp_shift_sigma() at (eps - 2 eta - omega,
 * delta0) (docs/PRIVACY.md "Lattice noise in an objective").  OPDisc, RSPM
 * and Objective-Gauss use them.
 */
#define DP_LATTICE_MAX_K 2048
extern double dp_lattice_cost(double eps, double delta, double *delta0);
extern double dp_shift_sigma_lattice(double eps, double delta, double c, int k);

/*
 * The closed-form upper bound that dp_shift_sigma() improves on: with
 * a = sqrt(k) + sqrt(2 ln(1/delta)) (Gaussian norm concentration,
 * P[||eta|| > sigma a] <= delta),
 *   sigma = (c a + sqrt(c^2 a^2 + 2 eps c^2)) / (2 eps).
 */
extern double dp_shift_sigma_closed(double eps, double delta, double c, int k);

/* Which calibration a halfspace mechanism uses (model params "calibration"). */
typedef enum DPCalibration
{
	DP_CALIBRATION_SOUND = 0,	/* dp_shift_sigma(): every (eps, delta) covered */
	DP_CALIBRATION_PAPER		/* the paper's closed form; direct aggregates only */
} DPCalibration;

extern const char *dp_calibration_name(DPCalibration cal);

/* "sound" or "paper" into *cal; false for any other name */
extern bool dp_calibration_parse(const char *name, DPCalibration *cal);

/*
 * OPDisc (Algorithm 1, tau = 1, G = 1/tau): shift c = 4 G D^2 / tau for
 * replace-one neighbours, noise dimension k = d + 1.
 * Paper: sigma = 7 G D^2 sqrt(ln(1/delta)) / (tau eps).
 */
extern double opdisc_sigma(double eps, double delta, int d, int D2, DPCalibration cal);

/*
 * RSPM (Algorithm 3) with m = 2d separators: shift c = 2 sqrt(m) for
 * replace-one neighbours, noise dimension k = m.
 * Paper: sigma = 7 sqrt(m ln(1/delta)) / eps.
 */
extern double rspm_sigma(double eps, double delta, int d, DPCalibration cal);

/*
 * Objective-Gauss (Kifer, Smith, Thakurta 2012 Thm 2; docs/ALGORITHMS.md,
 * "L2-regularised GLMs")
 * for replace-one neighbours, sum form  sum_i l(<theta, x_i>; y_i) +
 * (Lambda/2) ||theta||^2 + <b, theta>,  b ~ N(0, sigma^2 I):
 *   - the noise that yields theta under D' is b + v, v = grad l_i(theta) -
 *     grad l_i'(theta): ||v|| <= zeta = 2 L R and v lies in span{x_i, x_i'},
 *     a plane fixed by the two rows, so the radial-shift bound applies with
 *     c = 2 L R and k = 2 (not the number of parameters);
 *   - the Jacobians of theta -> b differ by at most a factor
 *     1 + beta R^2 / Lambda (the Hessians share sum_{j != i} l_j'' x_j x_j^T
 *     + Lambda I >= Lambda I and differ by two rank-one terms of norm
 *     <= beta R^2, one on each side), i.e. eps_J = ln(1 + beta R^2 / Lambda);
 *   sigma = dp_shift_sigma(eps - eps_J, delta, 2 L R, 2).  NAN when
 *   eps <= eps_J or the arguments are invalid.
 */
extern double objgauss_sigma(double eps, double delta, double L, double R,
							 double beta, double Lambda);

/*
 * The same three calibrations (sound only) for privacy units: neighbours
 * whose selections differ in up to k rows -- every row of one unit, at most
 * k after bounding, replaced, added or removed (docs/PRIVACY.md, "Privacy
 * units").  The data term of the objective changes by at most k times one
 * row's change, so the shift grows k-fold: OPDisc c = 4 k D^2, RSPM
 * c = 2 k sqrt(m); Objective-Gauss c = 2 k L R in the span of the 2k
 * changed rows' gradients (noise dimension min(2k, p), at least 2) and
 * eps_J = k ln(1 + beta R^2 / Lambda) (the Hessians differ by at most k
 * rank-one terms per side).  k = 1 gives the functions above.
 */
/*
 * The regulariser's privacy cost k ln(1 + beta R^2 / Lambda) (Objective-Gauss's
 * eps_J; CMS's with k = 2), rounded up: at least the exact value for the
 * double inputs, so that the noise's share eps - eps_J is never an ulp over.
 */
extern double dp_jacobian_epsilon(double beta, double R, double Lambda, int k);

/*
 * eps / k rounded down (exactly: e * k <= eps): what a pure-epsilon
 * mechanism whose score moves by at most 1 per row may use when k rows
 * change (exponential mechanism, private evaluation).  k <= 1: eps.
 */
extern double dp_epsilon_per_row(double eps, int k);

/*
 * Budget splits rounded to the safe side, exactly (docs/PRIVACY.md
 * "Neighbours"): dp_budget_part(), total / k rounded down so that k parts sum
 * to at most total; dp_budget_rest(), total - used rounded down so that
 * used + rest <= total; dp_budget_fits(), a + b <= total for the exact sum;
 * dp_scale_up(), num / eps rounded up (a noise scale).  All for finite
 * non-negative inputs, eps > 0.
 */
extern double dp_budget_part(double total, int k);
extern double dp_budget_rest(double total, double used);
extern bool dp_budget_fits(double a, double b, double total);
extern double dp_scale_up(double num, double eps);

extern double opdisc_sigma_rows(double eps, double delta, int d, int D2, int k);
extern double rspm_sigma_rows(double eps, double delta, int d, int k);
extern double objgauss_sigma_rows(double eps, double delta, double L, double R,
								  double beta, double Lambda, int k, int p);

/*
 * objgauss_sigma_rows()'s search start (dp_shift_sigma_start()): NAN exactly
 * where it refuses without searching; k = 1 (any p) is objgauss_sigma()'s.
 */
extern double objgauss_sigma_start(double eps, double delta, double L, double R,
								   double beta, double Lambda, int k, int p);

/*
 * zCDP to (eps, delta)-DP.  zcdp_eps: the eps that rho-zCDP guarantees at
 * delta by the conversion of Balle et al. 2020 (Thm 21; Canonne, Kamath,
 * Steinke 2020, Prop 12), minimised over a fixed grid of Renyi orders.
 * zcdp_rho: the largest rho (bisection, to 1e-15 relative) with
 * zcdp_eps(rho, delta) <= eps -- what the snapped discrete Gaussian releases
 * (Output-Gauss, noisy GD; glm.c, noisysgd.c) are calibrated to; NAN when
 * none exists: eps at most zcdp_eps(0, delta), the smallest eps the grid of
 * orders reaches (about (ln(1/delta) - 15) / 10^6; DP_CALIB_INFEASIBLE), or
 * eps or delta outside (0, inf) x (0, 1) (DP_CALIB_INVALID).
 * zcdp_rho_bun_steinke: the closed form of Bun and Steinke 2016, Prop 1.3
 * (eps = rho + 2 sqrt(rho ln(1/delta))), smaller; kept for comparison.
 */
extern double zcdp_eps(double rho, double delta);

/*
 * One Renyi order.  rdp_conversion: the term that (alpha, tau)-RDP adds to
 * tau in the same conversion, (ln(1/delta) + (alpha - 1) ln(1 - 1/alpha)
 * - ln alpha) / (alpha - 1).  rdp_best_order: the order of the grid with
 * the largest rho admissible at (eps, delta), (eps - rdp_conversion) / alpha
 * -- the order at which zcdp_eps(rho, delta) <= eps is decided.
 */
extern double rdp_conversion(double alpha, double delta);
extern double rdp_best_order(double eps, double delta);
extern double zcdp_rho(double eps, double delta);
extern double zcdp_rho_bun_steinke(double eps, double delta);

#endif							/* DPOBJ_CALIBRATE_H */
