/*-------------------------------------------------------------------------
 *
 * calibrate.c
 *	  Noise calibration of the argmin mechanisms (OPDisc, RSPM): the
 *	  radial-shift privacy bound of calibrate.h, evaluated numerically.
 *
 * Derivation (docs/PRIVACY.md, "OPDisc" and "RSPM"; docs/ALGORITHMS.md, "OPDisc",
 * gaps (a) and (b)).  For neighbours D, D' (replace one row) and an output
 * w, the noise set E(w, D) = { eta : w is the argmin under D } is mapped
 * into E(w, D') by the translation eta -> eta + v(w), ||v(w)|| <= c.  Hence
 * for every set S of outputs
 *
 *   P_D[S] - e^eps P_D'[S] <= E_eta[ (1 - e^(eps - L(eta)))_+ ],
 *   L(eta) = ln p(eta) / p(eta + v) = <eta, v> / sigma^2 + ||v||^2 / (2 sigma^2)
 *          <= c ||eta|| / sigma^2 + c^2 / (2 sigma^2),
 *
 * the inequality because v = v(w_hat(eta)) depends on eta (gap (a): the
 * paper bounds <eta, v> as if v were fixed).  (1 - e^(eps - x))_+ grows with
 * x, so with rho = ||eta|| / sigma ~ chi_k and s = c / sigma
 *
 *   delta <= I(s) = int_{rho_0}^inf f_k(rho) (1 - e^(eps - s rho - s^2/2)) drho,
 *   rho_0 = max(0, (eps - s^2/2) / s).
 *
 * I decreases as sigma grows, so the smallest admissible sigma is found by
 * bisection, between a small value and the closed form of calibrate.h
 * (which is admissible: there L(eta) > eps only when rho > a, and
 * P[rho > a] <= delta).  Solving the exact condition instead of a closed
 * form with a constant covers every eps (gap (b)).
 *
 * Numerics: the integrand is scaled by f_k at max(rho_0, mode) so that it
 * never exceeds 1, and integrated with GSL's QAGIU to relative accuracy
 * 1e-10; a sigma is accepted only when I(s) <= delta (1 - 1e-6), which
 * leaves room for the quadrature error.
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_sf_gamma.h>

#include "core/auditmutant.h"
#include "core/calibrate.h"

#define SHIFT_QUAD_LIMIT	1000
#define SHIFT_QUAD_EPSREL	1e-10
#define SHIFT_DELTA_SLACK	(1.0 - 1e-6)
#define SHIFT_BISECT_STEPS	200
#define SHIFT_HALVINGS		60
#define SHIFT_SIGMA_RELTOL	1e-9

/* the interrupt hook and the last search's status (calibrate.h); backend-local */
static DPCalibInterrupt calib_hook = NULL;
static void *calib_hook_arg = NULL;
static DPCalibStatus calib_status = DP_CALIB_OK;

void
dp_calib_set_interrupt(DPCalibInterrupt hook, void *arg)
{
	calib_hook = hook;
	calib_hook_arg = arg;
}

DPCalibStatus
dp_calib_last_status(void)
{
	return calib_status;
}

const char *
dp_calib_status_name(DPCalibStatus status)
{
	switch (status)
	{
		case DP_CALIB_OK:
			return "ok";
		case DP_CALIB_INVALID:
			return "invalid arguments";
		case DP_CALIB_INFEASIBLE:
			return "no value meets the condition";
		case DP_CALIB_NUMERIC:
			return "numerical failure";
		case DP_CALIB_INTERRUPTED:
			return "interrupted";
	}
	return "unknown";
}

/* records a search's end; NAN unless status is DP_CALIB_OK */
static double
calib_result(DPCalibStatus status, double value)
{
	calib_status = status;
	return status == DP_CALIB_OK ? value : NAN;
}

/* between two evaluations: false when the hook asks to stop */
static bool
calib_go_on(void)
{
	return calib_hook == NULL || !calib_hook(calib_hook_arg);
}

typedef struct ShiftIntegrand
{
	double		eps;
	double		s;				/* c / sigma */
	int			k;				/* degrees of freedom */
	double		rho0;			/* lower end of the integral */
	double		log_ref;		/* log f_k at the scaling point */
	double		log_norm;		/* log of the chi_k normalising constant */
} ShiftIntegrand;

/* log of the chi_k density at rho > 0 */
static double
chi_log_density(const ShiftIntegrand *q, double rho)
{
	double		poly = (q->k == 1) ? 0.0 : (q->k - 1) * log(rho);

	return poly - 0.5 * rho * rho - q->log_norm;
}

/* integrand in u = rho - rho0, divided by f_k at the scaling point */
static double
shift_integrand(double u, void *arg)
{
	const ShiftIntegrand *q = (const ShiftIntegrand *) arg;
	double		rho = q->rho0 + u;
	double		gain;

	if (rho <= 0.0)
		return 0.0;
	gain = -expm1(q->eps - q->s * rho - 0.5 * q->s * q->s);
	if (gain <= 0.0)
		return 0.0;
	return exp(chi_log_density(q, rho) - q->log_ref) * gain;
}

double
dp_shift_delta(double eps, double sigma, double c, int k)
{
	ShiftIntegrand q;
	gsl_integration_workspace *ws;
	gsl_function fn;
	gsl_error_handler_t *old;
	double		mode;
	double		value = NAN;
	double		abserr;
	int			status;

	if (!(eps > 0.0) || !isfinite(eps) || !(sigma > 0.0) || !isfinite(sigma) ||
		!(c > 0.0) || !isfinite(c) || k < 1)
		return NAN;
	q.eps = eps;
	q.s = c / sigma;
	q.k = k;
	q.rho0 = (eps - 0.5 * q.s * q.s) / q.s;
	if (q.rho0 < 0.0)
		q.rho0 = 0.0;
	q.log_norm = (0.5 * k - 1.0) * M_LN2 + gsl_sf_lngamma(0.5 * k);
	/* scale by the density's largest value on [rho0, inf): integrand <= 1 */
	mode = sqrt((double) (k - 1));
	q.log_ref = chi_log_density(&q, q.rho0 > mode ? q.rho0 : mode);

	old = gsl_set_error_handler_off();
	ws = gsl_integration_workspace_alloc(SHIFT_QUAD_LIMIT);
	if (ws != NULL)
	{
		fn.function = shift_integrand;
		fn.params = &q;
		status = gsl_integration_qagiu(&fn, 0.0, 0.0, SHIFT_QUAD_EPSREL,
									   SHIFT_QUAD_LIMIT, ws, &value, &abserr);
		gsl_integration_workspace_free(ws);
		if (status != GSL_SUCCESS || !isfinite(value) || value < 0.0)
			value = NAN;
		else
			value *= exp(q.log_ref);
	}
	gsl_set_error_handler(old);
	return value;
}

double
dp_shift_sigma_closed(double eps, double delta, double c, int k)
{
	double		a;

	if (!(eps > 0.0) || !isfinite(eps) || !(delta > 0.0 && delta < 1.0) ||
		!(c > 0.0) || !isfinite(c) || k < 1)
		return NAN;
	a = sqrt((double) k) + sqrt(2.0 * log(1.0 / delta));
	return (c * a + sqrt(c * c * a * a + 2.0 * eps * c * c)) / (2.0 * eps);
}

/* true when sigma is admissible: the bound holds with room for quadrature error */
static bool
shift_ok(double eps, double delta, double c, int k, double sigma)
{
	double		bound = dp_shift_delta(eps, sigma, c, k);

	return !isnan(bound) && bound <= delta * SHIFT_DELTA_SLACK;
}

/*
 * Bounded: at most SHIFT_HALVINGS + SHIFT_BISECT_STEPS + 2 quadratures
 * (<= DP_CALIB_MAX_EVALS), each bounded by SHIFT_QUAD_LIMIT subintervals,
 * with the interrupt hook between two of them.
 */
double
dp_shift_sigma_start(double eps, double delta, double c, int k)
{
	double		hi = dp_shift_sigma_closed(eps, delta, c, k);

	if (isnan(hi))
		return calib_result(DP_CALIB_INVALID, NAN);
	if (!isfinite(hi) || !(hi > 0.0))
		return calib_result(DP_CALIB_NUMERIC, NAN);
	/* the closed form is admissible; if the quadrature disagrees, refuse */
	if (!shift_ok(eps, delta, c, k, hi))
		return calib_result(DP_CALIB_NUMERIC, NAN);
	return calib_result(DP_CALIB_OK, hi);
}

/*
 * The search below never goes under its start halved SHIFT_HALVINGS times:
 * lo only halves that often, every bisection point lies between lo and hi
 * (rounding is monotone), and the result is lo or such a point (divided by
 * the audit mutant's factor in its build).
 */
double
dp_shift_sigma_floor(double start)
{
	double		lo = start;

	for (int i = 0; i < SHIFT_HALVINGS; i++)
		lo *= 0.5;
#if DPOBJ_MUTANT_IS(shift)
	lo /= DPOBJ_MUTANT_FACTOR;	/* audit mutant: as the result below */
#endif
	return lo;
}

static double
shift_sigma_search(double eps, double delta, double c, int k)
{
	double		hi = dp_shift_sigma_start(eps, delta, c, k);
	double		lo;

	if (isnan(hi))
		return hi;				/* the status is the start's */
	lo = hi;
	for (int i = 0; i < SHIFT_HALVINGS && shift_ok(eps, delta, c, k, lo); i++)
	{
		if (!calib_go_on())
			return calib_result(DP_CALIB_INTERRUPTED, NAN);
		lo *= 0.5;
	}
	if (shift_ok(eps, delta, c, k, lo))
		return calib_result(lo > 0.0 ? DP_CALIB_OK : DP_CALIB_NUMERIC, lo);
	/* invariant: lo not admissible, hi admissible */
	for (int i = 0; i < SHIFT_BISECT_STEPS && hi - lo > SHIFT_SIGMA_RELTOL * hi; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (!calib_go_on())
			return calib_result(DP_CALIB_INTERRUPTED, NAN);
		if (shift_ok(eps, delta, c, k, mid))
			hi = mid;
		else
			lo = mid;
	}
#if DPOBJ_MUTANT_IS(shift)
	hi /= DPOBJ_MUTANT_FACTOR;	/* audit mutant */
#endif
	return calib_result(DP_CALIB_OK, hi);
}

/*
 * The search is a pure function of its four arguments (the same
 * quadratures in the same order), and a backend calibrates the same public
 * parameters over and over -- twice per run (train()'s check before the
 * charge, then the final function) and again in every next run: the last
 * SHIFT_MEMO_SIZE successful searches are kept, keyed by the arguments'
 * exact values, and a hit returns the very value the search would.  A
 * refusal or an interrupted search is not kept.
 */
#define SHIFT_MEMO_SIZE		8

typedef struct ShiftMemo
{
	double		eps;
	double		delta;
	double		c;
	int			k;
	double		sigma;			/* 0: unused */
} ShiftMemo;

static ShiftMemo shift_memo[SHIFT_MEMO_SIZE];
static int	shift_memo_next = 0;

double
dp_shift_sigma(double eps, double delta, double c, int k)
{
	double		sigma;

	for (int i = 0; i < SHIFT_MEMO_SIZE; i++)
	{
		const ShiftMemo *m = &shift_memo[i];

		if (m->sigma > 0.0 && m->eps == eps && m->delta == delta && m->c == c && m->k == k)
			return calib_result(DP_CALIB_OK, m->sigma);
	}
	sigma = shift_sigma_search(eps, delta, c, k);
	if (calib_status == DP_CALIB_OK && sigma > 0.0)
	{
		ShiftMemo  *m = &shift_memo[shift_memo_next];

		m->eps = eps;
		m->delta = delta;
		m->c = c;
		m->k = k;
		m->sigma = sigma;
		shift_memo_next = (shift_memo_next + 1) % SHIFT_MEMO_SIZE;
	}
	return sigma;
}

/* Objective-Gauss for replace-one neighbours (calibrate.h, docs/PRIVACY.md) */
double
objgauss_sigma(double eps, double delta, double L, double R, double beta, double Lambda)
{
	/* one row: eps_J, the shift 2 L R and the dimension 2 of objgauss_shift() */
	return objgauss_sigma_rows(eps, delta, L, R, beta, Lambda, 1, 2);
}

/*
 * Privacy units of up to k rows (calibrate.h): every radial-shift bound
 * above is in terms of the largest change of the objective's data term, which
 * k changed rows multiply by k; the Jacobian factor of Objective-Gauss is a
 * product over the k rank-one terms.
 */
double
dp_budget_part(double total, int k)
{
	double		e;

	if (k <= 1)
		return total;
	e = total / (double) k;
	/* the quotient rounded to nearest may exceed total / k: step down */
	while (e > 0.0 && fma(e, (double) k, -total) > 0.0)
		e = nextafter(e, 0.0);
	return e;
}

/* a + b <= total for the exact real sum (TwoSum: a + b = s + err exactly) */
bool
dp_budget_fits(double a, double b, double total)
{
	double		s = a + b;
	double		bb = s - a;
	double		err = (a - (s - bb)) + (b - bb);

	return s < total || (s == total && err <= 0);
}

double
dp_budget_rest(double total, double used)
{
	double		r = total - used;

	while (r > 0.0 && !dp_budget_fits(used, r, total))
		r = nextafter(r, 0.0);
	return r;
}

double
dp_scale_up(double num, double eps)
{
	double		x = num / eps;

	/* x eps >= num exactly (fma: the exact sign) */
	while (isfinite(x) && fma(x, eps, -num) < 0.0)
		x = nextafter(x, INFINITY);
	return x;
}

double
dp_epsilon_per_row(double eps, int k)
{
#if DPOBJ_MUTANT_IS(units)
	k = DPOBJ_MUTANT_COUNT(k);	/* audit mutant */
#endif
	return dp_budget_part(eps, k);
}

/*
 * OPDisc's sigma for noise on the lattice g <= sigma 2^-27: the shift
 * c = 4 k D2 (tau = G = 1) rounded to the lattice keeps the argmin when its
 * length before rounding is c + g (D + 1/2) sqrt(d + 1) (docs/PRIVACY.md
 * "Lattice noise in an objective"); calibrated for c (1 + kappa), which
 * covers that when g (D + 1/2) sqrt(d + 1) <= c kappa: the first kappa of
 * 2^-10, 2^-8, 2^-6, 2^-4 that does (larger ones only at tiny epsilon), else NAN.
 */
static double
opdisc_lattice_sigma(double eps, double delta, int d, int D2, int k)
{
	double		c = 4.0 * (double) k * (double) D2;

	for (int e = 10; e >= 4; e -= 2)
	{
		double		sigma = dp_shift_sigma_lattice(eps, delta, c * (1.0 + ldexp(1.0, -e)), d + 1);

		if (isnan(sigma))
			return sigma;		/* the status is the search's */
		if (ldexp(sigma, -27) * (sqrt((double) D2) + 0.5) * sqrt((double) d + 1.0) <=
			ldexp(c, -e))
			return sigma;
	}
	return calib_result(DP_CALIB_NUMERIC, NAN);
}

double
opdisc_sigma_rows(double eps, double delta, int d, int D2, int k)
{
	if (d < 1 || D2 < 1 || k < 1 || !(eps > 0.0) || !(delta > 0.0 && delta < 1.0))
		return calib_result(DP_CALIB_INVALID, NAN);
	return opdisc_lattice_sigma(eps, delta, d, D2, k);
}

double
rspm_sigma_rows(double eps, double delta, int d, int k)
{
	int			m = 2 * d;

	if (d < 1 || k < 1 || !(eps > 0.0) || !(delta > 0.0 && delta < 1.0))
		return calib_result(DP_CALIB_INVALID, NAN);
	return dp_shift_sigma_lattice(eps, delta, 2.0 * (double) k * sqrt((double) m), m);
}

double
dp_jacobian_epsilon(double beta, double R, double Lambda, int k)
{
	double		q = beta * R * R / Lambda;

	if (q == 0.0)
		return 0.0;
	/*
	 * q's three roundings and log1p's own error (log1p's relative error is
	 * at most q's, plus its ulp or two) stay far below 2^-48; then up
	 */
	return nextafter((double) k * log1p(q) * (1.0 + ldexp(1.0, -48)), INFINITY);
}

/*
 * Objective-Gauss's shift problem for units of up to k rows (calibrate.h):
 * eps - eps_J, the shift c and its dimension; false (a status recorded)
 * where no sigma exists.
 */
static bool
objgauss_shift(double eps, double L, double R, double beta, double Lambda, int k, int p,
			   double *eps_shift, double *c, int *dims)
{
	double		eps_j;

	if (!(L > 0.0) || !(R > 0.0) || !(beta >= 0.0) || !(Lambda > 0.0) || k < 1 || p < 1 ||
		!isfinite(L * R * k) || !isfinite(beta * R * R / Lambda))
	{
		calib_result(DP_CALIB_INVALID, NAN);
		return false;
	}
	eps_j = dp_jacobian_epsilon(beta, R, Lambda, k);
	if (!(eps > eps_j))
	{
		calib_result(DP_CALIB_INFEASIBLE, NAN);
		return false;
	}
	*eps_shift = dp_budget_rest(eps, eps_j);
	*c = 2.0 * (double) k * L * R;
	/* the shift lies in the span of the 2k changed rows' gradients */
	*dims = 2 * k < p ? 2 * k : p;
	if (*dims < 2)
		*dims = 2;
	return true;
}

/* objgauss_sigma_rows() or, start_only, its search's start (calibrate.h) */
static double
objgauss_sigma_at(double eps, double delta, double L, double R, double beta,
				  double Lambda, int k, int p, bool start_only)
{
	double		eps_shift,
				c;
	int			dims;

	if (!objgauss_shift(eps, L, R, beta, Lambda, k, p, &eps_shift, &c, &dims))
		return NAN;
	return start_only ? dp_shift_sigma_start(eps_shift, delta, c, dims) :
		dp_shift_sigma(eps_shift, delta, c, dims);
}

double
objgauss_sigma_rows(double eps, double delta, double L, double R, double beta,
					double Lambda, int k, int p)
{
	return objgauss_sigma_at(eps, delta, L, R, beta, Lambda, k, p, false);
}

double
objgauss_sigma_start(double eps, double delta, double L, double R, double beta,
					 double Lambda, int k, int p)
{
	return objgauss_sigma_at(eps, delta, L, R, beta, Lambda, k, p, true);
}

bool
dp_calibration_parse(const char *name, DPCalibration *cal)
{
	if (strcmp(name, "sound") == 0)
		*cal = DP_CALIBRATION_SOUND;
	else if (strcmp(name, "paper") == 0)
		*cal = DP_CALIBRATION_PAPER;
	else
		return false;
	return true;
}

const char *
dp_calibration_name(DPCalibration cal)
{
	return cal == DP_CALIBRATION_PAPER ? "paper" : "sound";
}

/* a closed form: only a finite, positive noise scale is one */
static double
calib_closed(double sigma)
{
	return calib_result(isfinite(sigma) && sigma > 0.0 ? DP_CALIB_OK : DP_CALIB_NUMERIC,
						sigma);
}

double
opdisc_sigma(double eps, double delta, int d, int D2, DPCalibration cal)
{
	double		tau = 1.0;
	double		G = 1.0 / tau;

	if (d < 1 || D2 < 1 || !(eps > 0.0) || !(delta > 0.0 && delta < 1.0))
		return calib_result(DP_CALIB_INVALID, NAN);
	if (cal == DP_CALIBRATION_PAPER)
		return calib_closed(7.0 * G * (double) D2 * sqrt(log(1.0 / delta)) / (tau * eps));
	return opdisc_lattice_sigma(eps, delta, d, D2, 1);
}

double
rspm_sigma(double eps, double delta, int d, DPCalibration cal)
{
	int			m = 2 * d;

	if (d < 1 || !(eps > 0.0) || !(delta > 0.0 && delta < 1.0))
		return calib_result(DP_CALIB_INVALID, NAN);
	if (cal == DP_CALIBRATION_PAPER)
		return calib_closed(7.0 * sqrt((double) m * log(1.0 / delta)) / eps);
	return dp_shift_sigma_lattice(eps, delta, 2.0 * sqrt((double) m), m);
}

/*
 * Gaussian noise of dimension k <= DP_LATTICE_MAX_K drawn as g N_Z(0, s^2), s >= 2^27
 * (dpnoise_objective_lattice), instead of N(0, sigma^2) (docs/PRIVACY.md
 * "Lattice noise in an objective"): on the box |K_j| <= m s the ratio of
 * N_Z(0, s^2)'s to the rounded Gaussian's probabilities is within e^+-eta,
 * eta = k (m^2 + 3) / (24 s^2); outside it each law has mass at most
 * tail e^-eps / 2, tail = delta 2^-20, with (m - 1)^2 = 2 (eps + ln(2 k /
 * tail)).  Returns the epsilon cost 2 eta and sets *delta0 = (delta - tail)
 * e^-eta, both rounded towards the safe side, at k = DP_LATTICE_MAX_K (so
 * the same for every dimension: a calibration does not depend on d).
 */
#define LATTICE_S2_MIN	ldexp(1.0, 54)	/* s^2 >= 2^54 (DPNOISE_OBJ_BITS = 27) */

double
dp_lattice_cost(double eps, double delta, double *delta0)
{
	double		k = DP_LATTICE_MAX_K;
	double		tail = ldexp(delta, -20);
	double		m = 1.0 + sqrt(2.0 * (eps + log(2.0 * k / tail)));
	double		eta = k * (m * m + 3.0) / (24.0 * LATTICE_S2_MIN);

	/* each factor rounded down, then the product: delta0 <= (delta - t) e^-eta */
	*delta0 = nextafter(nextafter(delta - tail, 0.0) * nextafter(exp(-eta), 0.0), 0.0);
	return nextafter(2.0 * eta, INFINITY);
}

/*
 * The radial-shift bound on the lattice: the shift's norm bound applies to
 * ||K|| / s with K ~ N_Z(0, s^2)^k, within the box e^eta times that of the
 * rounded Gaussian, whose norm is at most s ||G|| + sqrt(k) / 2: (RS) at
 * eps0 = eps - 2 eta - omega, omega = a sqrt(k) / (2 s), a = c / sigma <=
 * sqrt(2 (eps0 + 1)) (checked; it holds whenever (RS) admits sigma at a
 * delta0 below 0.63).
 */
double
dp_shift_sigma_lattice(double eps, double delta, double c, int k)
{
	double		delta0;
	double		eps1 = dp_budget_rest(eps, dp_lattice_cost(eps, delta, &delta0));
	/* four roundings (relative 2^-51 at most) covered by the factor, rounded up */
	double		omega = sqrt(2.0 * (eps1 + 1.0)) * sqrt((double) k) / (2.0 * sqrt(LATTICE_S2_MIN)) *
		(1.0 + ldexp(1.0, -48));
	double		eps0 = dp_budget_rest(eps1, omega);
	double		sigma;

	if (!(eps0 > 0.0) || !(delta0 > 0.0) || !isfinite(eps0) || k > DP_LATTICE_MAX_K)
		return calib_result(DP_CALIB_INVALID, NAN);
	sigma = dp_shift_sigma(eps0, delta0, c, k);
	if (!isnan(sigma) && !(c / sigma <= sqrt(2.0 * (eps0 + 1.0))))
		return calib_result(DP_CALIB_NUMERIC, NAN);
	return sigma;
}

double
zcdp_rho_bun_steinke(double eps, double delta)
{
	double		L = -log(delta);
	double		r = sqrt(L + eps) + sqrt(L);

	return eps * eps / (r * r);
}

/*
 * Balle et al. 2020, Thm 21 (CKS20, Prop 12): rho-zCDP is (alpha, alpha
 * rho)-RDP for every alpha > 1, which implies (eps_alpha, delta)-DP with
 *	 eps_alpha = alpha rho + (ln(1/delta) + (alpha - 1) ln(1 - 1/alpha) - ln alpha)
 *				 / (alpha - 1).
 * Every alpha gives a valid bound, so the minimum over a fixed grid (alpha - 1
 * = 10^(k/64), k = -192..384) is a valid, nearly optimal eps.
 */
/* the orders of the grid: alpha - 1 = 10^(k/64) */
#define RDP_GRID_LO		(-192)
#define RDP_GRID_HI		384

/* the conversion's term for the order alpha = 1 + am1 */
static double
rdp_conversion_am1(double am1, double delta)
{
	double		a = 1.0 + am1;

	return (-log(delta) + am1 * log(am1 / a) - log(a)) / am1;
}

double
rdp_conversion(double alpha, double delta)
{
	return rdp_conversion_am1(alpha - 1.0, delta);
}

double
zcdp_eps(double rho, double delta)
{
	double		best = INFINITY;

	for (int k = RDP_GRID_LO; k <= RDP_GRID_HI; k++)
	{
		double		am1 = pow(10.0, k / 64.0);
		double		e = (1.0 + am1) * rho + rdp_conversion_am1(am1, delta);

		if (e < best)
			best = e;
	}
	return best;
}

double
rdp_best_order(double eps, double delta)
{
	double		best = -INFINITY,
				order = 0.0;

	for (int k = RDP_GRID_LO; k <= RDP_GRID_HI; k++)
	{
		double		am1 = pow(10.0, k / 64.0);
		double		r = (eps - rdp_conversion_am1(am1, delta)) / (1.0 + am1);

		if (r > best)
		{
			best = r;
			order = 1.0 + am1;
		}
	}
	return order;
}

/*
 * Bounded.  zcdp_eps grows with rho (every order's bound does), so a rho
 * exists iff zcdp_eps(0, delta) < eps -- small eps against delta have none,
 * and searching for one never ends (a refusal, before any charge); then
 * Bun-Steinke's rho (or one of at most ZCDP_HALVINGS halvings of it) is
 * admissible and at most ZCDP_DOUBLINGS doublings find an inadmissible one
 * (each order's bound grows like alpha rho).
 */
#define ZCDP_HALVINGS	64
#define ZCDP_DOUBLINGS	64
#define ZCDP_BISECT_STEPS 100

double
zcdp_rho(double eps, double delta)
{
	double		lo,
				hi;
	int			i;

	if (!(eps > 0) || !isfinite(eps) || !(delta > 0 && delta < 1))
		return calib_result(DP_CALIB_INVALID, NAN);
	if (!(zcdp_eps(0.0, delta) < eps))
		return calib_result(DP_CALIB_INFEASIBLE, NAN);
	lo = zcdp_rho_bun_steinke(eps, delta);	/* zcdp_eps(lo) <= eps */
	for (i = 0; i < ZCDP_HALVINGS && !(zcdp_eps(lo, delta) <= eps); i++)
		lo *= 0.5;				/* not expected: the grid is fine enough */
	if (!(zcdp_eps(lo, delta) <= eps) || !(lo > 0.0))
		return calib_result(DP_CALIB_NUMERIC, NAN);
	hi = 4.0 * lo + eps;
	for (i = 0; i < ZCDP_DOUBLINGS && zcdp_eps(hi, delta) <= eps; i++)
		hi *= 2.0;
	if (zcdp_eps(hi, delta) <= eps)
		return calib_result(DP_CALIB_NUMERIC, NAN);
	for (i = 0; i < ZCDP_BISECT_STEPS && hi - lo > 1e-15 * hi; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (zcdp_eps(mid, delta) <= eps)
			lo = mid;
		else
			hi = mid;
	}
	return calib_result(isfinite(lo) ? DP_CALIB_OK : DP_CALIB_NUMERIC, lo);
}
