/*-------------------------------------------------------------------------
 *
 * glm.c
 *	  L2-regularised logistic regression / Huber-SVM with Gaussian
 *	  objective perturbation (Objective-Gauss), Gaussian output perturbation
 *	  (Output-Gauss) and the pure-epsilon objective perturbation of
 *	  Chaudhuri, Monteleoni, Sarwate (CMS11 Algorithm 2):
 *	  dpobj.dp_logistic(features, label, epsilon, delta, options).
 *
 * Source: docs/ALGORITHMS.md, "L2-regularised GLMs" (Jain & Thakurta 2014 sec. 4;
 * Kifer, Smith, Thakurta 2012 Thm 2; CMS11; Balle & Wang 2018).
 *
 * Everything is written in the SUM form (multiply the papers' (1/n)-scaled
 * objectives by n; the argmin does not change):
 *
 *   J(theta) = sum_i l(y_i <theta, x_i>) + (Lambda/2) ||theta||^2
 *
 * so the option "lambda" (Lambda) is the total regularisation and every
 * calibration below is free of n (the number of rows never enters a noise
 * scale, so params can show all of them):
 *
 *   Objective-Gauss (KST12 Thm 2, with their Lambda/(2n) = our Lambda/2 / n):
 *     Lambda >= 2 beta R^2 / eps,  b ~ N(0, s^2 I),
 *     theta = argmin J(theta) + <b, theta>.  KST12's
 *     s^2 = zeta^2 (8 ln(2/delta) + 4 eps) / eps^2 is for add/remove
 *     neighbours (zeta = L R); dpobj replaces a row, so zeta = 2 L R, and s
 *     is calibrated numerically with the radial-shift bound in the plane of
 *     the two rows (objgauss_sigma(), calibrate.h; docs/PRIVACY.md).
 *   Output-Gauss: theta^ = argmin J; l2 sensitivity 2 L R / (n lambda_n)
 *     with lambda_n = Lambda / n, i.e. 2 L R / Lambda for exact argmins,
 *     Delta2 = 2 L R (1 + 2 GLM_GRAD_TOL) / Lambda for the released points;
 *     release g (round(theta^/g) + N_Z(0, s2)^p): theta^ snapped to the
 *     public lattice g = 2^(floor(log2 Delta2) - 12) plus exact discrete
 *     Gaussian noise (CKS20 Algorithm 3, dpnoise.c) of variance s2 =
 *     ceil((Delta2/g + sqrt p)^2 / (2 rho)) lattice units; the discrete
 *     Gaussian is (Delta^2 / (2 s2))-zCDP per coordinate for integer shifts
 *     (CKS20 Thm 4), Renyi divergences add over independent coordinates,
 *     rounding adds at most sqrt p to the integer shift, and rho =
 *     zcdp_rho(eps, delta) gives (eps, delta)-DP (Balle et al. 2020 Thm 21).
 *     No floating-point noise is released (Mironov 2012).
 *   CMS11 Algorithm 2 (pure eps; c = beta, the bound on l''), for rows with
 *     ||x|| <= R by the substitution x' = x/R, theta' = R theta (CMS assume
 *     ||x'|| <= 1):  eps' = eps - ln(1 + 2cR^2/Lambda + (cR^2/Lambda)^2);
 *     if eps' <= 0: Delta = cR^2/(e^(eps/4) - 1) - Lambda, eps' = eps/2,
 *     else Delta = 0;  ||b|| ~ Gamma(p, 2 L R / eps'), direction uniform;
 *     theta = argmin J(theta) + <b, theta> + (Delta/2) ||theta||^2.
 *
 * L = 1 for both losses; beta = 1/4 (logistic), 1/(2h) (Huber).  With an
 * intercept the rows are augmented with a constant 1 feature, so R above
 * is R_eff = sqrt(R^2 + 1) and the intercept is regularised like the
 * weights.  The minimisation is damped Newton with an accelerated-descent
 * fallback (glmsolve.c, glmdescent.c): it always returns a point within the
 * public radius r = 2 GLM_GRAD_TOL L R_eff / (Lambda + Delta) of the exact
 * argmin (glm.h), so no run fails after the charge for the rows' sake.
 * Output-Gauss's sensitivity includes 2 r.  The objective methods use
 * approximate minima perturbation (Iyengar, Near, Song, Thakkar, Thakurta,
 * Wang, "Towards Practical Differentially Private Convex Optimization",
 * IEEE S&P 2019, Algorithm 1 / Theorem 1): GLM_AMP_SHARE of eps
 * (Objective-Gauss) or of the noise's share eps' (CMS; its Jacobian share
 * is unchanged) goes to the output noise, and the minimiser, rounded to a
 * public lattice g2, gets exact discrete Laplace noise (CKS20, dpnoise.c)
 * for l1 sensitivity 2 r sqrt(p) + p g2 at that eps2 before the
 * snapping below (docs/PRIVACY.md "Approximate minimisers").
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpobj.h"

#include <float.h>
#include <math.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sf_erf.h>

#include "core/auditmutant.h"
#include "core/calibrate.h"
#include "base/calibsql.h"
#include "core/dpnoise.h"
#include "families/glm/glm.h"
#include "families/glm/glmprivr.h"
#include "core/glmsolve.h"
#include "families/glm/glmstate.h"
#include "mechanisms/family.h"
#include "mechanisms/mechanism.h"
#include "model/model.h"
#include "base/random.h"

#include "utils/builtins.h"
#include "utils/jsonb.h"

PG_FUNCTION_INFO_V1(dpobj_logistic_finalfn);
PG_FUNCTION_INFO_V1(dpobj_glm_calibration);
PG_FUNCTION_INFO_V1(dpobj_analytic_gauss_sigma);

#define GLM_MAX_ITER	5000

/*
 * The public share of epsilon (Objective-Gauss) or of the noise's share
 * eps' (CMS) that pays for the minimiser's distance to the exact argmin
 * (approximate minima perturbation); its noise is about 1e-4 of the
 * objective noise.
 */
#define GLM_AMP_SHARE	0.01

/* the exact discrete Laplace sampler's largest scale (dpnoise.h) */
#define GLM_AMP_MAX_T	2147483648.0	/* 2^31 */

/* the analytic Gaussian's search (agm_unit_sigma): bounded */
#define AGM_MAX_DOUBLINGS	1100
#define AGM_BISECT_STEPS	1200
#define AGM_REL_RESOLUTION	1e-9

/* ---- the analytic Gaussian mechanism (Balle & Wang 2018, Thm 8) ---- */

/*
 * delta achieved by N(0, s^2) for sensitivity D at eps, in a stable form;
 * NAN where it cannot be computed: a NaN term, or t1 - t2 so small against
 * t1 that the difference is rounding noise.
 */
static double
agm_delta(double eps, double D, double s)
{
	double		a = D / (2.0 * s);
	double		b = eps * s / D;
	double		t1 = gsl_cdf_ugaussian_P(a - b);
	/* e^eps Phi(-a - b), Phi(-z) = erfc(z/sqrt2)/2 */
	double		t2 = exp(eps + gsl_sf_log_erfc((a + b) / M_SQRT2) - M_LN2);
	double		d = t1 - t2;

	if (isnan(d) || (t1 > 0.0 && d < AGM_REL_RESOLUTION * t1))
		return NAN;
	return d;
}

/*
 * The smallest s (bisection, relative 2^-52 at most AGM_BISECT_STEPS
 * steps) with agm_delta(eps, 1, s) <= delta, for sensitivity 1 -- the noise
 * scales with D --; NAN when no s up to 2^AGM_MAX_DOUBLINGS is admissible or
 * the condition cannot be evaluated there.  A NAN condition counts as not
 * admissible, so that a failed evaluation can only ask for more noise.
 */
static double
agm_unit_sigma(double eps, double delta)
{
	double		lo = 0.0,
				hi = 1.0;
	int			i;

	for (i = 0; i < AGM_MAX_DOUBLINGS && !(agm_delta(eps, 1.0, hi) <= delta); i++)
	{
		lo = hi;
		hi *= 2.0;
	}
	if (!(agm_delta(eps, 1.0, hi) <= delta))
		return NAN;
	for (i = 0; i < AGM_BISECT_STEPS && hi - lo > ldexp(hi, -52); i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (agm_delta(eps, 1.0, mid) <= delta)
			hi = mid;
		else
			lo = mid;
	}
	return hi;					/* the upper end: delta(hi) <= delta */
}

/* a noise scale is one only when finite and a normal positive double */
static double
glm_sigma_or_nan(double sigma)
{
	return (isfinite(sigma) && sigma >= DBL_MIN) ? sigma : NAN;
}

double
glm_analytic_gauss_sigma(double eps, double delta, double D)
{
	gsl_error_handler_t *old = gsl_set_error_handler_off();
	double		s = agm_unit_sigma(eps, delta);

	gsl_set_error_handler(old);
	return glm_sigma_or_nan(s * D);
}

/* NAN when no noise scale can be computed (the caller refuses); a quotient rounds up */
double
glm_gauss_sigma(double eps, double delta, double D)
{
	if (eps <= 1.0)
		return glm_sigma_or_nan(dp_scale_up(D * sqrt(2.0 * log(1.25 / delta)), eps));
	return glm_analytic_gauss_sigma(eps, delta, D);
}

Datum
dpobj_analytic_gauss_sigma(PG_FUNCTION_ARGS)
{
	double		eps = PG_GETARG_FLOAT8(0);
	double		delta = PG_GETARG_FLOAT8(1);
	double		D = PG_GETARG_FLOAT8(2);
	double		sigma;

	if (!isfinite(eps) || eps <= 0 || eps > 1000 || !(delta > 0 && delta < 1) ||
		!isfinite(D) || D <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid Gaussian mechanism parameters"),
				 errhint("Need 0 < epsilon <= 1000, 0 < delta < 1 and sensitivity > 0.")));
	sigma = glm_gauss_sigma(eps, delta, D);
	if (isnan(sigma))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("no Gaussian noise scale can be computed for epsilon %g, delta %g and sensitivity %g",
						eps, delta, D),
				 errhint("The noise scale must be a finite, normal double (above %g) and delta's condition must be computable: use a delta above about 1e-300 and a sensitivity of ordinary magnitude.",
						 DBL_MIN)));
	PG_RETURN_FLOAT8(sigma);
}

/* ---- calibration ---- */

/*
 * Every number the run's noise depends on is finite and a normal positive
 * double (extreme epsilon -- 1e-320, say -- overflow or underflow in the
 * closed forms); else refused before the charge, on public grounds.
 */
static bool
glm_calibration_ok(const GLMParams *p, const GLMCalibration *c)
{
	bool		ok = dpobj_noise_scale_ok(c->lambda) && isfinite(c->lattice) &&
		c->lattice >= DBL_MIN;

	if (p->method != GLM_METHOD_OUTPUT)
		ok = ok && dpobj_noise_scale_ok(c->amp_radius) &&
			dpobj_noise_scale_ok(c->amp_lattice) && c->amp_dlap_t >= 1;
	if (p->method == GLM_METHOD_OBJECTIVE)
		ok = ok && c->b_lattice >= DBL_MIN && c->b_sigma2 >= 1;
	if (p->method == GLM_METHOD_CMS)
		ok = ok && dpobj_noise_scale_ok(c->eps_prime) &&
			dpobj_noise_scale_ok(c->gamma_scale) &&
			isfinite(c->extra_reg) && c->extra_reg >= 0;
	else
		ok = ok && dpobj_noise_scale_ok(c->sigma);
	return ok;
}

static void
glm_calibration_check(const GLMParams *p, const GLMCalibration *c)
{
	if (!glm_calibration_ok(p, c))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("dp_logistic: the noise for epsilon %g and delta %g cannot be computed in double precision",
						p->epsilon, p->delta),
				 errhint("Use an epsilon between 1e-6 and 1e6 (and \"R\", \"lambda\" of ordinary magnitude).")));
}

/*
 * Approximate minima perturbation's output noise (docs/PRIVACY.md
 * "Approximate minimisers"): the minimiser is within r = 2 GLM_GRAD_TOL L
 * R_eff / (Lambda + Delta) of the exact argmin (glm.h) for the b it is given;
 * Objective-Gauss's b is the lattice point nearest a continuous Gaussian b,
 * whose argmin is at most g sqrt(pp) / (2 (Lambda + Delta)) away (docs/PRIVACY.md
 * "Lattice noise in an objective"), so r grows by that.  Given the exact
 * argmin the released points of neighbours differ by at most 2 r (l2), 2 r
 * sqrt(pp) (l1); rounding to the lattice g2 adds at most pp lattice units.
 * g2 = dpnoise_lattice(2 r sqrt(pp) / eps2), 2^16 below the continuous
 * Laplace scale, and t = ceil((2 r sqrt(pp) / g2 + pp) / eps2) lattice units:
 * eps2-DP.  0 when t is beyond the exact sampler (refused before the charge).
 */
static void
glm_calibrate_amp(GLMCalibration *c, int pp)
{
	double		S1,
				t;

	c->amp_radius = 2.0 * GLM_GRAD_TOL * 1.0 * c->Reff / (c->lambda + c->extra_reg);
	if (c->b_lattice > 0)
		c->amp_radius += c->b_lattice * sqrt((double) pp) / (2.0 * (c->lambda + c->extra_reg));
	S1 = 2.0 * c->amp_radius * sqrt((double) pp);
	if (!(isfinite(S1 / c->amp_eps) && S1 / c->amp_eps >= DBL_MIN))
		return;
	c->amp_lattice = dpnoise_lattice(S1 / c->amp_eps);
	/* rounded up: the scale pays at least the sensitivity's l1 over amp_eps */
	t = ceil(dp_scale_up(nextafter(S1 / c->amp_lattice + pp, INFINITY), c->amp_eps));
	c->amp_dlap_t = (t >= 1 && t <= GLM_AMP_MAX_T) ? (uint64) t : 0;
}

/*
 * "R": "private": R-hat's share of the run's budget (docs/PRIVACY.md,
 * "Private norm bound").  Objective-Gauss and CMS: eps_R = share eps, the
 * mechanism runs at eps - eps_R (basic composition).  Output-Gauss, charged
 * in zCDP: rho_R = share rho, the exponential mechanism at eps_R with
 * eps_R^2 / 8 <= rho_R (eps-bounded range, Cesar & Rogers 2021), the
 * release at rho - rho_R.
 */
static void
glm_calibrate_private_rho(const GLMParams *p, GLMCalibration *c)
{
	double		rho_m;

	glm_budget_split_rho(c->rho, p->R_share, &c->R_rho, &rho_m, &c->R_eps);
	c->rho = rho_m;
}

/* the loss's Lipschitz constant: 1 for the logistic and Huber losses */
#define GLM_LIPSCHITZ 1.0

/*
 * Objective-Gauss's radial-shift sigma at eps less the output noise's share;
 * start_only: its search's start instead (objgauss_sigma_start, calibrate.h)
 */
static double
objective_sigma(const GLMParams *p, int d, GLMCalibration *c, bool start_only)
{
	double		eps = p->epsilon;
	int			pp = d + (p->intercept ? 1 : 0);
	double		delta0,
				eps_m;

	/* GLM_AMP_SHARE of eps pays the output noise (glm_calibrate_amp) */
	c->amp_eps = GLM_AMP_SHARE * eps;
	/*
	 * b is drawn on a lattice: its coupling's cost (calibrate.h); each
	 * difference rounded down, so amp_eps + cost + eps_m <= eps exactly
	 */
	eps_m = dp_budget_rest(dp_budget_rest(eps, c->amp_eps),
						   dp_lattice_cost(eps, p->delta, &delta0));
	/* replace-one: zeta = 2 L R, calibrated numerically (calibrate.h) */
	if (start_only)
		return objgauss_sigma_start(eps_m, delta0, GLM_LIPSCHITZ, c->Reff,
									c->beta, c->lambda, p->rows_per_unit, pp);
	return p->rows_per_unit > 1 ?
		objgauss_sigma_rows(eps_m, delta0, GLM_LIPSCHITZ, c->Reff, c->beta,
							c->lambda, p->rows_per_unit, pp) :
		objgauss_sigma(eps_m, delta0, GLM_LIPSCHITZ, c->Reff, c->beta, c->lambda);
}

static void
calibrate_objective(const GLMParams *p, int d, GLMCalibration *c)
{
	c->sigma = objective_sigma(p, d, c, false);
	if (!(isfinite(c->sigma) && c->sigma > 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dp_logistic: no noise scale can be calibrated for these epsilon, delta, R and lambda"),
				 errhint("Use a larger \"lambda\", a larger delta or a smaller epsilon; docs/PRIVACY.md explains the calibration.")));
}

/*
 * Output-Gauss, a snapped release (docs/PRIVACY.md "Output-Gauss"): theta
 * rounded to the public lattice plus exact discrete Gaussian noise (CKS20)
 * at rho-zCDP, rho from (eps, delta) by the Renyi conversion (calibrate.c);
 * sigma in parameter units.
 */
static void
calibrate_output(const GLMParams *p, int d, GLMCalibration *c)
{
	/* exact argmins differ by 2 L R_eff / lambda; each released point is
	 * within 2 GLM_GRAD_TOL L R_eff / lambda of its argmin (glm.h) */
	/* (k rows of a unit: k times that, docs/PRIVACY.md "Privacy units") */
	c->sensitivity = 2.0 * p->rows_per_unit * GLM_LIPSCHITZ * c->Reff *
		(1.0 + 2.0 * GLM_GRAD_TOL) / c->lambda;
	c->rho = dpobj_zcdp_rho_checked("dp_logistic", p->epsilon, p->delta);
	/* one-vs-rest: K releases compose in zCDP, rho / K each (glmclasses.h) */
	if (p->nclasses > 0)
		c->rho /= p->nclasses;
	if (p->R_private)
		glm_calibrate_private_rho(p, c);
	/* balanced accuracy: the label balance's estimate, at its share of rho */
	operating_plan_rho(&c->op, OPERATING_PLAN_OF(p), &c->rho);
#if DPOBJ_MUTANT_IS(multiclass)
	c->rho *= DPOBJ_MUTANT_FACTOR * DPOBJ_MUTANT_FACTOR;	/* audit mutant */
#endif
	dpnoise_gaussian_lattice(c->sensitivity, c->rho, d + (p->intercept ? 1 : 0),
							 &c->lattice, &c->sigma2_lattice);
	if (!(isfinite(c->sensitivity) && c->sensitivity > 0) || c->sigma2_lattice == 0)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("dp_logistic: the output noise is outside the exact sampler's range"),
				 errhint("Output perturbation needs a finite sensitivity 2 R / \"lambda\" and epsilon above about 1e-4; use a larger \"lambda\", or \"method\": \"objective\".")));
	c->sigma = sqrt((double) c->sigma2_lattice) * c->lattice;
}

/* CMS11 Algorithm 2: eps' after the regulariser's share, Gamma-norm noise of scale 2 L R / eps' */
static void
calibrate_cms(const GLMParams *p, GLMCalibration *c)
{
	double		eps = p->epsilon;

	/* ln(1 + 2q + q^2) = 2 ln(1 + q), q = beta R^2 / lambda, rounded up */
	c->eps_prime = dp_budget_rest(eps, dp_jacobian_epsilon(c->beta, c->Reff, c->lambda, 2));
	if (c->eps_prime <= 0)
	{
		c->extra_reg = c->beta * c->Reff * c->Reff / expm1(eps / 4.0) - c->lambda;
		c->eps_prime = eps / 2.0;
	}
	/* GLM_AMP_SHARE of the noise's share eps' pays the output noise */
	c->amp_eps = GLM_AMP_SHARE * c->eps_prime;
	c->eps_prime = dp_budget_rest(c->eps_prime, c->amp_eps);
	c->gamma_scale = dp_scale_up(2.0 * GLM_LIPSCHITZ * c->Reff, c->eps_prime);
#if DPOBJ_MUTANT_IS(cms)
	c->gamma_scale /= DPOBJ_MUTANT_FACTOR;	/* audit mutant */
#endif
}

/* glm_calibrate() up to the method: the budget left after R-hat's share, R_eff, beta, Lambda */
static void
calibrate_begin(const GLMParams *p_in, GLMParams *pm, GLMCalibration *c)
{
	double		eps = p_in->epsilon;
	double		R_eps = 0;

	*pm = *p_in;
	/* "R": "private": the objective methods run at eps - eps_R */
	if (pm->R_private && pm->method != GLM_METHOD_OUTPUT)
	{
		glm_budget_split(p_in->epsilon, pm->R_share, &R_eps, &eps);
		pm->epsilon = eps;
	}
	memset(c, 0, sizeof(*c));
	c->R_eps = R_eps;
	/* balanced accuracy: the objective methods' balance estimate, at its share of eps */
	if (pm->method != GLM_METHOD_OUTPUT)
	{
		operating_plan_eps(&c->op, OPERATING_PLAN_OF(pm), &eps);
		pm->epsilon = eps;
	}
	c->Reff = glmparams_reff(pm);
	c->beta = pm->loss == GLM_LOSS_LOGISTIC ? 0.25 : 1.0 / (2.0 * pm->h);
	c->lambda = glm_default_lambda(pm);
}

/*
 * The objective methods after sigma (or gamma_scale): Objective-Gauss's b
 * lattice; the minimiser is released rounded to a public lattice 2^-16
 * below the per-coordinate noise scale in parameter space (sigma / Lambda,
 * or 2 L R / (eps' Lambda) for CMS): post-processing, so the guarantee is
 * unchanged; for CMS it drops low-order bits that could carry artefacts of
 * its floating-point b (docs/PRIVACY.md, "Lattice noise in an objective").
 * Then the approximate minimiser's output noise.
 */
static void
calibrate_snap(const GLMParams *p, int d, GLMCalibration *c)
{
	double		reg = c->lambda + c->extra_reg;
	double		scale = (p->method == GLM_METHOD_CMS ? c->gamma_scale : c->sigma) / reg;

	if (p->method == GLM_METHOD_OBJECTIVE)
		dpnoise_objective_lattice(c->sigma, &c->b_lattice, &c->b_sigma2);

	c->lattice = (isfinite(scale) && scale > 0) ? dpnoise_lattice(scale) : 0.0;
	glm_calibrate_amp(c, d + (p->intercept ? 1 : 0));
}

void
glm_calibrate(const GLMParams *p_in, int d, GLMCalibration *c)
{
	GLMParams	pm;
	const GLMParams *p = &pm;

	calibrate_begin(p_in, &pm, c);
	switch (p->method)
	{
		case GLM_METHOD_OBJECTIVE:
			calibrate_objective(p, d, c);
			break;
		case GLM_METHOD_OUTPUT:
			calibrate_output(p, d, c);
			break;
		case GLM_METHOD_CMS:
			calibrate_cms(p, c);
			break;
	}
	if (p->method != GLM_METHOD_OUTPUT)
		calibrate_snap(p, d, c);
	glm_calibration_check(p, c);
	operating_check(&c->op, "dp_logistic");
}

static const char *
method_name(GLMMethod m)
{
	return m == GLM_METHOD_OBJECTIVE ? "objective" :
		m == GLM_METHOD_OUTPUT ? "output" : "cms";
}

const char *
glm_mechanism_name(GLMMethod m)
{
	return m == GLM_METHOD_OBJECTIVE ? "objective_gauss" :
		m == GLM_METHOD_OUTPUT ? "output_gauss" : "cms";
}

void
glm_calibration_params(StringInfo buf, const GLMParams *p, const GLMCalibration *c, int d)
{
	model_params_text(buf, "method", method_name(p->method));
	glm_params_model(buf, p, d);
	model_params_float(buf, "lambda", c->lambda);
	if (p->method == GLM_METHOD_CMS)
	{
		model_params_float(buf, "epsilon_prime", c->eps_prime);
		model_params_float(buf, "Delta", c->extra_reg);
	}
	else
		model_params_float(buf, "sigma", c->sigma);
	if (p->method == GLM_METHOD_OUTPUT)
	{
		model_params_float(buf, "sensitivity", c->sensitivity);
		model_params_text(buf, "noise", "discrete_gaussian");
		model_params_float(buf, "rho", c->rho);
	}
	if (c->lattice > 0)
		model_params_float(buf, "lattice", c->lattice);
	if (p->method != GLM_METHOD_OUTPUT)
	{
		model_params_float(buf, "amp_epsilon", c->amp_eps);
		model_params_float(buf, "amp_radius", c->amp_radius);
		model_params_float(buf, "amp_laplace_scale", (double) c->amp_dlap_t * c->amp_lattice);
	}
	if (p->R_private)
		glm_privr_params(buf, p, c->R_eps, p->method == GLM_METHOD_OUTPUT ? c->R_rho : -1);
}

/*
 * "R": "private", Objective-Gauss: true when glm_calibrate(p) is certain to
 * succeed (but for an interrupt), *c then holding all of it but sigma.  Its
 * search (calibrate.h) starts at s1 = objgauss_sigma_start(), which refuses
 * exactly where it would without searching, and returns a sigma in
 * [dp_shift_sigma_floor(s1), s1].  Every other step of glm_calibrate() is a
 * closed form computed here as there; of its checks, those on sigma (a
 * normal double; the lattice of sigma / Lambda finite and normal) hold on
 * the whole interval when they hold at both ends -- each is monotone in
 * sigma, as rounding and dpnoise_lattice() are, and so is r (b's lattice) --
 * but the output noise's t, a sawtooth in r, checked by its bound instead;
 * the rest do not depend on sigma.  false: not certain; the caller
 * calibrates in full.
 */
static bool
calibrate_objective_certain(const GLMParams *p_in, int d, GLMCalibration *c)
{
	GLMParams	pm;
	double		s1;

	if (p_in->method != GLM_METHOD_OBJECTIVE)
		return false;
	calibrate_begin(p_in, &pm, c);
	s1 = objective_sigma(&pm, d, c, true);
	if (!(isfinite(s1) && s1 > 0))
		return false;
	/* the output noise's t stays below 2^17 + pp / eps2 + 1 whatever r (glm_calibrate_amp) */
	if (!(ldexp(1.0, 17) + (d + (pm.intercept ? 1 : 0)) / c->amp_eps + 2.0 <= GLM_AMP_MAX_T))
		return false;
	c->sigma = dp_shift_sigma_floor(s1);
	calibrate_snap(&pm, d, c);
	if (!glm_calibration_ok(&pm, c))
		return false;
	c->sigma = s1;
	calibrate_snap(&pm, d, c);
	return glm_calibration_ok(&pm, c);
}

/*
 * "R": "private", before the charge: every candidate R-hat (privquant.h)
 * can be calibrated, or the run is refused now, on public grounds, by the
 * error glm_calibrate() raises for the first that cannot.  Objective-Gauss
 * candidates are certified without sigma's numeric search where
 * calibrate_objective_certain() can (145 searches cost about 35 ms, their
 * starts about 1 ms), any other calibrated in full.  R-hat's calibration is
 * glm_calibrate() after the draw (glm_privr_calibrate): the same function
 * of public inputs and R-hat, so what a full calibration here would have
 * computed, bit for bit, and it cannot fail.  Returns eps_R (the same for
 * every candidate).
 */
double
glm_check_candidates(const GLMParams *p, int d)
{
	GLMCalibration c;

	for (int i = 0; i < PRIVQUANT_N; i++)
	{
		GLMParams	q = *p;

		q.R = privquant_candidate(i);
		if (!calibrate_objective_certain(&q, d, &c))
			glm_calibrate(&q, d, &c);
		CHECK_FOR_INTERRUPTS();	/* before the charge: nothing spent yet */
	}
	return c.R_eps;
}

/* calibrate.c's interrupt hook after the charge: a cancel is recorded (mechanism_poll) */
static bool
privr_calib_poll(void *arg)
{
	mechanism_poll(*(const int64 *) arg);
	return false;
}

/*
 * After the charge: R-hat's calibration, certain to succeed (every
 * candidate's was checked, glm_check_candidates); a cancel during its
 * search is recorded 'cancelled' as for any charged run.
 */
static void
glm_privr_calibrate(const GLMParams *p, int d, GLMCalibration *c, int64 ledger_id)
{
	dp_calib_set_interrupt(privr_calib_poll, &ledger_id);
	PG_TRY();
	{
		glm_calibrate(p, d, c);
	}
	PG_FINALLY();
	{
		dpobj_calib_init();
	}
	PG_END_TRY();
}

/*
 * dpobj.train()'s argument check (train.c): the options, and the
 * calibration, which depends on public inputs only (eps, delta, d, R,
 * lambda, method), before any row is read -- so that its refusals (no noise
 * scale, Output-Gauss outside the sampler's range) are never charged.
 */
void
logistic_check_args(const char *aggname, double epsilon, double delta, int d,
					Jsonb *options)
{
	GLMParams	p;
	GLMCalibration c;

	glmparams_check_args(GLM_KIND_LOGISTIC, aggname, epsilon, delta, d, options, &p);
	if (p.R_private)
		(void) glm_check_candidates(&p, d);
	else
		glm_calibrate(&p, d, &c);
}

/* dpobj.glm_calibration(epsilon, delta, options) -> jsonb: for tests/docs */
Datum
dpobj_glm_calibration(PG_FUNCTION_ARGS)
{
	double		eps = PG_GETARG_FLOAT8(0);
	double		delta = PG_GETARG_FLOAT8(1);
	Jsonb	   *options = PG_GETARG_JSONB_P(2);
	GLMParams	p;
	GLMCalibration c;
	StringInfoData buf;

	glmparams_check_args(GLM_KIND_LOGISTIC, "glm_calibration", eps, delta, 1, options, &p);
	if (p.R_private)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("glm_calibration: \"R\": \"private\" has no calibration before R-hat is drawn"),
				 errhint("Pass a candidate value of R, e.g. '{\"R\": 1}': the run's calibration is that of R-hat with R_share of the budget spent on it (docs/PRIVACY.md, \"Private norm bound\").")));
	glm_calibrate(&p, 1, &c);
	model_params_begin(&buf);
	glm_calibration_params(&buf, &p, &c, 1);
	operating_params_plan(&buf, &c.op);
	model_params_end(&buf);
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data)));
}

/* ---- the smooth objective ---- */

/* the dense design, a huge allocation: bounded by memory, not by a fixed size */
void
glm_design(const GLMState *s, bool intercept, double **X, double **cnt,
		   double **y, int64 *nobs, int *p)
{
	int			d = s->rows.d;
	int			pp = d + (intercept ? 1 : 0);
	int		   *row;

	*nobs = glmstate_observations(s, &row, cnt, y);
	*X = palloc_extended(sizeof(double) * (Size) Max(*nobs, 1) * pp, MCXT_ALLOC_HUGE);
	for (int64 k = 0; k < *nobs; k++)
	{
		memcpy(*X + (Size) k * pp, s->rows.x + (Size) row[k] * d, sizeof(double) * d);
		if (intercept)
			(*X)[(Size) k * pp + d] = 1.0;
	}
	pfree(row);
	*p = pp;
}

/* ---- dp_logistic ---- */

/*
 * The objective's linear noise b (NULL for output perturbation):
 * Objective-Gauss b = g N_Z(0, s^2)^p, exact (docs/PRIVACY.md "Lattice noise
 * in an objective"); CMS ||b|| ~ Gamma(p, 2LR/eps'), direction uniform on the
 * sphere (GSL's float samplers: not covered, PRIVACY.md).
 */
double *
glm_objective_noise(gsl_rng *rng, GLMMethod method, const GLMCalibration *c, int pp)
{
	double	   *b;

	if (method == GLM_METHOD_OUTPUT)
		return NULL;
	b = palloc(sizeof(double) * pp);
	if (method == GLM_METHOD_OBJECTIVE)
		dpnoise_objective_draw(rng, c->b_lattice, c->b_sigma2, pp, b);
	else
	{
		double		r = gsl_ran_gamma(rng, (double) pp, c->gamma_scale);

		gsl_ran_dir_nd(rng, pp, b);
		for (int j = 0; j < pp; j++)
			b[j] *= r;
	}
	return b;
}

/*
 * The released values on the public lattice: Output-Gauss adds N_Z(0,
 * sigma2) lattice units to the rounded minimiser (integers only).  The
 * objective methods round the minimiser to the approximate minima
 * perturbation's lattice g2 and add its discrete Laplace noise; both are
 * integers held exactly in doubles (g2 is a power of two, so theta / g2 is
 * exact and rint() is an integer), and the one rounded operation, their
 * sum, is the correctly rounded exact integer sum -- post-processing, like
 * the snapping to the public lattice that follows.  No clamp: the fine
 * lattice g2 can be 2^-60 of the minimiser at large epsilon.
 */
void
glm_snap_release(gsl_rng *rng, GLMMethod method, const GLMCalibration *c,
				 double *theta, int pp)
{
	for (int j = 0; j < pp; j++)
	{
		if (method == GLM_METHOD_OUTPUT)
		{
			int64		a = (int64) llround(theta[j] / c->lattice);

			a += dpnoise_discrete_gaussian(rng, c->sigma2_lattice);
			theta[j] = (double) a * c->lattice;
			continue;
		}
		theta[j] = (rint(theta[j] / c->amp_lattice) +
					(double) dpnoise_discrete_laplace(rng, c->amp_dlap_t, 1)) * c->amp_lattice;
		theta[j] = rint(theta[j] / c->lattice) * c->lattice;
	}
}

void
glm_release_point(gsl_rng *rng, const GLMParams *p, const GLMCalibration *c,
				  const struct GLMSolveDesign *X, double *work, double *theta, int pp,
				  int64 ledger_id)
{
	GLMSolveBlocks B;

	glmsolve_single_block(&B, X);
	glm_release_blocks(rng, p, c, &B, work, theta, pp, ledger_id);
}

void
glm_release_blocks(gsl_rng *rng, const GLMParams *p, const GLMCalibration *c,
				   const struct GLMSolveBlocks *B, double *work, double *theta, int pp,
				   int64 ledger_id)
{
	double	   *b = glm_objective_noise(rng, p->method, c, pp);

	/* always within the public radius the output noise covers (glm.h) */
	glm_minimise_over(B, c->Reff, p->loss, p->h, c->lambda + c->extra_reg, b, work, theta,
					  ledger_id);
	glm_snap_release(rng, p->method, c, theta, pp);
	if (b)
	{
		memset(b, 0, sizeof(double) * pp);
		pfree(b);
	}
}

void *
glm_admit(FunctionCallInfo fcinfo, int kind, DPProtectedContext **pctx)
{
	return glmstate_final_begin(fcinfo, (GLMKind) kind, pctx);
}

Datum
glm_model_shifted(DPRun *run, const char *name, const double *theta, StringInfo params,
				  double shift)
{
	GLMState   *state = run->state;
	const GLMParams *p = &state->params;

	return model_build(run->fcinfo, name, theta, state->rows.d,
					   (p->intercept ? theta[state->rows.d] : 0.0) - shift, p->epsilon, p->delta,
					   params);
}

Datum
glm_model(DPRun *run, const char *name, const double *theta, StringInfo params)
{
	return glm_model_shifted(run, name, theta, params, 0.0);
}

/* a run's calibration and buffers (DPRun.work) */
typedef struct LogisticRun
{
	GLMCalibration c;
	double		R_eps;			/* "R": "private": the norm bound's epsilon */
	int64		hist[PRIVQUANT_N];	/* and the norms' histogram */
	double	   *work;
	double	   *theta;
	struct GLMSolveBlocks *X;
} LogisticRun;

static void
logistic_calibrate(DPRun *run)
{
	GLMState   *state = run->state;
	GLMParams  *p = &state->params;
	LogisticRun *r = palloc0(sizeof(LogisticRun));
	int			pp = state->rows.d + (p->intercept ? 1 : 0);

	/* "R": "private": every candidate's calibration checked, the norms' histogram */
	if (p->R_private)
	{
		r->R_eps = glm_check_candidates(p, state->rows.d);
		glm_privr_histogram(state, r->hist);
	}
	else
		glm_calibrate(p, state->rows.d, &r->c);
	r->theta = palloc0(sizeof(double) * pp);
	/*
	 * the work memory (public size) and the design, both before the charge;
	 * a state that spilled builds each block of its design when the solver
	 * reaches it, within the same memory bound whatever the rows
	 */
	r->work = glm_minimise_work(pp);
	r->X = glm_minimise_blocks(state, p->intercept);
	mechanism_calibrated(run, r, glm_mechanism_name(p->method), p->epsilon, p->delta);
	run->private_r = p->R_private;
}

/*
 * The operating point's estimate before the minimiser: the design's label
 * counts (its counts carry the options' class weights; the logistic methods
 * train without the estimated ones, operating.h)
 */
static void
glm_balance(OpRun *op, const GLMParams *p, const GLMSolveBlocks *X, gsl_rng *rng)
{
	int64		c[2];

	if (!op->estimate)
		return;
	operating_count_blocks(X, (const double[2]) {p->weight_pos, p->weight_neg}, c);
	operating_estimate(op, rng, c[0], c[1]);
}

/*
 * 2.-3. noise and minimiser: always a point within the public radius of
 * the argmin (glm.h), paid for by the release's noise
 */
static void
logistic_compute(DPRun *run)
{
	GLMState   *state = run->state;
	GLMParams  *p = &state->params;
	LogisticRun *r = run->work;

	/* "R": "private": R-hat first (its own exact draw), the rows clipped to it */
	if (p->R_private)
	{
		int			k = glm_privr_select(run->rng, p, r->R_eps, r->hist, run->ledger_id);

		p->R = privquant_candidate(k);
		glm_privr_calibrate(p, state->rows.d, &r->c, run->ledger_id);
		glm_minimise_clip(r->X, p->R);
	}
	glm_balance(&r->c.op, p, r->X, run->rng);
	glm_release_blocks(run->rng, p, &r->c, r->X, r->work, r->theta,
					   state->rows.d + (p->intercept ? 1 : 0), run->ledger_id);
	operating_finish(&r->c.op, OPERATING_CLASS_W(p), OPERATING_CLASS_W(p), r->c.op.w);
	run->detail = method_name(p->method);
}

static Datum
logistic_release(DPRun *run)
{
	GLMState   *state = run->state;
	GLMParams  *p = &state->params;
	LogisticRun *r = run->work;
	StringInfoData params;

	model_params_begin(&params);
	glm_calibration_params(&params, p, &r->c, state->rows.d);
	operating_params(&params, &r->c.op, true);
	model_params_end(&params);
	return glm_model_shifted(run, glm_mechanism_name(p->method), r->theta, &params,
							 r->c.op.shift);
}

MECHANISM_FINAL_FUNCTION(dpobj_logistic_finalfn,
						 .admit = glm_admit, .kind = GLM_KIND_LOGISTIC,
						 .calibrate = logistic_calibrate, .compute = logistic_compute,
						 .release = logistic_release)

/*
 * The family's descriptor (mechanisms/family.h): its binary kinds, then the
 * one-vs-rest forms (the registry lists class-label mechanisms after the
 * others); on Citus the kinds that keep every row train on a sample; ebm's
 * models the additive kind
 */
static const DPMechanism glm_mechanisms[] = {GLM_FAMILY_MECHANISMS, GLM_FAMILY_MULTICLASS_MECHANISMS};

const DPFamily glm_family = DP_FAMILY(glm, glm_mechanisms, .citus_options = glm_citus_options,
									  .model_kind = MODEL_KIND_ADDITIVE);
