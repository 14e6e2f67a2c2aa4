/*-------------------------------------------------------------------------
 *
 * noisysgddescent.c
 *	  dp_noisysgd's descent (glm.h): the design, whole or in blocks, the
 *	  snapped noisy gradient, the projected AdaGrad or 1/sqrt(t) steps, the
 *	  noise at a given rho, and the count of observations a model classifies
 *	  right, and a run's public params.  Shared by the plain run, its multi-class form, dp_auto and the
 *	  tuned run (noisysgd.c, glmmulticlass.c, glmauto.c, noisysgdtune.c);
 *	  derivation: docs/PRIVACY.md, "Noisy GD".
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpobj.h"

#include <math.h>

#include "base/dpnumeric.h"
#include "core/auditmutant.h"
#include "core/dpnoise.h"
#include "families/glm/glm.h"
#include "families/glm/glmstate.h"
#include "mechanisms/mechanism.h"
#include "model/model.h"
#include "core/tunecalib.h"

#include "utils/memutils.h"

/*
 * Default steps: 30 AdaGrad steps without "n" (each step is a pass over the
 * rows, and fewer steps mean less noise per step); 1000 with "n", whose
 * 1/sqrt(t) step needs many.
 */
#define DPOBJ_SGD_DEFAULT_T		30
#define DPOBJ_SGD_DEFAULT_T_N	1000

void
noisysgd_design(DPKeptDesign *D, const GLMState *s, bool intercept)
{
	keptdesign_begin(D, &s->rows, intercept, OPERATING_CLASS_W(&s->params));
}

/*
 * The snapped noisy gradient: g (round(g_t / g) + N_Z(0, sigma2)) per
 * coordinate, g_t = sum_i cnt_i grad l(theta; x_i, y_i).  Each
 * observation's term, in units of g 2^-DPNOISE_SUM_BITS, is clamped to
 * +-2^62 (1-Lipschitz), rounded and summed in 128-bit integers: exact and
 * independent of the order, so one row moves the sum by the terms of the
 * observations it changes only, whatever rounding a floating-point sum of
 * the others would have made (dpnoise_gaussian_lattice_summed prices the
 * terms' float error and rounding).  The sum is rounded to the lattice and
 * clamped to +-2^62 (1-Lipschitz); at most 2^63 observations of 2^62 units
 * stay within 2^125.
 */
static void
sgd_noisy_gradient(const GLMParams *p, DPKeptDesign *D, const double *theta,
				   double lattice, uint64 sigma2, gsl_rng *rng, double *grad)
{
	const double limit = ldexp(1.0, 62);
	/* a power of two: multiplying by it is exact */
	const double per_unit = ldexp(1.0 / lattice, DPNOISE_SUM_BITS);
	const __int128 half = (__int128) 1 << (DPNOISE_SUM_BITS - 1);
#if DPOBJ_MUTANT_IS(gradclip)
	const double clip = Min(1.0, p->grad_clip * DPOBJ_MUTANT_FACTOR);	/* audit mutant */
#else
	const double clip = p->grad_clip;
#endif
	int			pp = D->pp;
	void	   *chunk;
	__int128   *acc = dp_palloc0_int128(pp, &chunk);

	for (bool more = keptdesign_next(D, true); more; more = keptdesign_next(D, false))
		for (int64 k = 0; k < D->nobs; k++)
		{
			const double *x = D->X + (Size) k * pp;
			double		z = 0,
						lf,
						ld,
						l2,
						c;

			for (int j = 0; j < pp; j++)
				z += theta[j] * x[j];
			glm_loss(p->loss, p->h, D->y[k] * z, &lf, &ld, &l2);
			/* "gradient_clip" (exact: a comparison); the audit's gradclip mutant clips looser */
			ld = Max(-clip, Min(clip, ld));
			c = D->cnt[k] * ld * D->y[k] * per_unit;
			for (int j = 0; j < pp; j++)
			{
				double		t = c * x[j];

				if (fabs(t) > limit)
					t = copysign(limit, t);
				acc[j] += lrint(t);
			}
		}
	for (int j = 0; j < pp; j++)
	{
		/* round half away from zero to the lattice, then clamp */
		__int128	q = acc[j] >= 0 ? (acc[j] + half) >> DPNOISE_SUM_BITS :
			-((-acc[j] + half) >> DPNOISE_SUM_BITS);
		int64		a;

		q = q > (__int128) 1 << 62 ? (__int128) 1 << 62 :
			q < -((__int128) 1 << 62) ? -((__int128) 1 << 62) : q;
		a = (int64) q + dpnoise_discrete_gaussian(rng, sigma2);
		grad[j] = (double) a * lattice;
	}
	pfree(chunk);
}

/*
 * The score of theta: over the observations it classifies right (<theta, x>
 * > 0 for a positive label, <= 0 for a negative one, as predict() decides),
 * their row counts times their label's integer score weight W (0 <= W <=
 * 2^10), over the blocks of D; saturating at 2^62 (the terms are >= 0, so
 * this is min(2^62, the sum)).  w is the class weight the design's counts
 * carry (1 without "class_weight"), in [2^-10, 1].  Replacing one row
 * takes 1 from one count and adds 1 to one count: the score moves by at most
 * max W.
 */
int64
noisysgd_score_right(DPKeptDesign *D, const double *theta, const int64 W[2],
					 const double w[2])
{
	const int64 limit = (int64) 1 << 62;
	int64		right = 0;
	int			pp = D->pp;

	for (bool more = keptdesign_next(D, true); more; more = keptdesign_next(D, false))
		for (int64 k = 0; k < D->nobs; k++)
		{
			const double *x = D->X + (Size) k * pp;
			int			lab = D->y[k] > 0 ? 0 : 1;
			double		z = 0;

			for (int j = 0; j < pp; j++)
				z += theta[j] * x[j];
			if ((z > 0) == (D->y[k] > 0))
				right = Min(limit, right + W[lab] * tune_row_count(D->cnt[k], w[lab]));
		}
	return right;
}

/* avg <- the running mean of k iterates, theta the k-th */
static void
sgd_average(double *avg, const double *theta, int pp, int64 k)
{
	for (int j = 0; j < pp; j++)
		avg[j] += (theta[j] - avg[j]) / (double) k;
}

/* theta <- Pi_C(theta - eta grad), C the l2 ball of radius r */
static void
sgd_step(double *theta, const double *grad, int pp, double eta, double radius)
{
	double		norm2 = 0;

	for (int j = 0; j < pp; j++)
	{
		theta[j] -= eta * grad[j];
		norm2 += theta[j] * theta[j];
	}
	if (norm2 > radius * radius)
	{
		double		f = radius / sqrt(norm2);

		for (int j = 0; j < pp; j++)
			theta[j] *= f;
	}
}

/*
 * T noisy projected gradient steps from theta = 0 (theta has pp entries);
 * polls for a cancel every 64 steps.
 */
void
noisysgd_descend(const GLMParams *p, const double *X, const double *cnt,
				 const double *y, int64 nobs, int pp, int64 T, double lattice,
				 uint64 sigma2, double denom, gsl_rng *rng, int64 ledger_id,
				 double *theta)
{
	DPKeptDesign D = {0};

	D.pp = pp;
	D.X = X;
	D.cnt = cnt;
	D.y = y;
	D.nobs = nobs;
	noisysgd_descend_design(p, &D, T, lattice, sigma2, denom, rng, ledger_id, theta);
}

/*
 * Without "n": the diagonal AdaGrad direction of the noisy gradient G_t,
 * in place: acc_j <- acc_j + G_tj^2, G_tj <- G_tj / sqrt(acc_j) (0 where
 * acc_j = 0).  acc_j starts at m sigma^2 ("adagrad_prior" m, sigma the
 * noise sd).  Each coordinate moves at most 1 (exactly 1 at t = 1 with m = 0)
 * and by less as its released gradients accumulate: the step scales itself per
 * coordinate from the released gradients, which grow with the private row
 * count, so no n is needed.
 */
static void
sgd_adagrad_direction(double *grad, double *acc, int pp)
{
	for (int j = 0; j < pp; j++)
	{
		acc[j] += grad[j] * grad[j];
		grad[j] = acc[j] > 0 ? grad[j] / sqrt(acc[j]) : 0.0;
	}
}

void
noisysgd_descend_design(const GLMParams *p, DPKeptDesign *D, int64 T, double lattice,
						uint64 sigma2, double denom, gsl_rng *rng, int64 ledger_id,
						double *theta)
{
	int			pp = D->pp;
	double	   *grad = palloc(sizeof(double) * pp);
	double	   *avg = palloc0(sizeof(double) * pp);
	double	   *acc = palloc0(sizeof(double) * pp);
	bool		adagrad = p->n_public <= 0;
	int64		navg = 0;

	memset(theta, 0, sizeof(double) * pp);
	/* "adagrad_prior" m: m steps of pure noise, sigma = sqrt(sigma2) lattice (public) */
	for (int j = 0; j < pp; j++)
		acc[j] = p->adagrad_prior * (double) sigma2 * lattice * lattice;
	for (int64 t = 1; t <= T; t++)
	{
		if ((t & 63) == 0)
			mechanism_poll(ledger_id);
		sgd_noisy_gradient(p, D, theta, lattice, sigma2, rng, grad);
		if (!adagrad)
			sgd_step(theta, grad, pp, 2.0 * p->radius / sqrt((double) t * denom), p->radius);
		else
		{
			/* a step of length at most r (r / sqrt p per coordinate), then projected */
			sgd_adagrad_direction(grad, acc, pp);
			sgd_step(theta, grad, pp, p->radius / sqrt((double) pp), p->radius);
			if (2 * t > T)
				sgd_average(avg, theta, pp, ++navg);
		}
	}
	if (adagrad)
		memcpy(theta, avg, sizeof(double) * pp);
	memset(grad, 0, sizeof(double) * pp);
	memset(acc, 0, sizeof(double) * pp);
	pfree(grad);
	pfree(avg);
	pfree(acc);
}

/* the step size's denominator (glm.h) */
double
noisysgd_step_denom(const GLMParams *p, int pp, double Reff, double s)
{
	/* Algorithm 1's G = n L R_eff bounds ||g_t||; each row's term is at most c R_eff */
	double		G = p->n_public > 0 ? p->n_public * p->grad_clip * Reff : 0.0;

	return G * G + pp * s * s;
}

int64
noisysgd_default_T(const GLMParams *p)
{
	return p->T > 0 ? p->T :
		p->n_public > 0 ? DPOBJ_SGD_DEFAULT_T_N : DPOBJ_SGD_DEFAULT_T;
}

void
noisysgd_noise_rho(const GLMParams *p, int pp, double rho, double *Reff, int64 *T,
				   double *lattice, uint64 *sigma2)
{
	*Reff = glmparams_reff(p);
	*T = noisysgd_default_T(p);
	/*
	 * gradient sum sensitivity 2 c R_eff per row (a row's derivative clipped
	 * to [-c, c], c <= L = 1, times a class weight <= 1), k-fold for units of
	 * k rows
	 */
	dpnoise_gaussian_lattice_summed(2.0 * p->grad_clip * p->rows_per_unit * *Reff, rho, pp, *T,
									p->rows_per_unit, lattice, sigma2);
	if (*sigma2 == 0)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("dp_noisysgd: the gradient noise is outside the exact sampler's range"),
				 errhint("Use a larger epsilon or fewer steps \"T\".")));
}

/* the public params every noisy-GD model carries (glm.h) */
void
noisysgd_params_body(StringInfo params, const GLMParams *p, int d, int64 T, double s,
					 double rho, double lattice)
{
	glm_params_model(params, p, d);
	model_params_float(params, "radius", p->radius);
	model_params_float(params, "gradient_clip", p->grad_clip);
	model_params_float(params, "adagrad_prior", p->adagrad_prior);
	model_params_int(params, "T", T);
	model_params_float(params, "sigma", s);
	model_params_float(params, "rho", rho);
	model_params_float(params, "lattice", lattice);
	model_params_text(params, "noise", "discrete_gaussian");
	if (p->n_public > 0)
		model_params_float(params, "n", p->n_public);
}
