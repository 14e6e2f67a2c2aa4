/*-------------------------------------------------------------------------
 *
 * noisysgd.c
 *	  The noisy-gradient baseline for L2-bounded logistic regression /
 *	  Huber-SVM: dpobj.dp_noisysgd(features, label, epsilon, delta, options).
 *
 * Source: Bassily, Smith, Thakurta 2014, Algorithm 1 (ALGORITHMS.md
 * section 5), with one change that privacy on the protected path forces:
 * Algorithm 1 samples one row per step and runs T = n^2 steps with noise
 * s^2 = 32 L^2 n^2 ln(n/delta) ln(1/delta) / eps^2 -- n, T and s all depend
 * on the number of selected rows, which is private (a filter turns
 * "replace one row of the table" into "add or remove one selected row"),
 * and an empty selection took 0 steps and released exact zeros
 * (leak 4).  dpobj therefore runs noisy projected FULL-BATCH gradient
 * descent with public parameters only:
 *   theta_1 = 0 in C (the l2 ball of radius r, option "radius");
 *   for t = 1..T (option "T", default DPOBJ_SGD_DEFAULT_T, or
 *   DPOBJ_SGD_DEFAULT_T_N with "n"):
 *     g_t = sum_i grad l(theta_t; x_i, y_i)  (||grad l|| <= L R_eff)
 *     theta_{t+1} = Pi_C(theta_t - eta(t) [g_t + b_t]),  b_t ~ N(0, s^2 I)
 *   output theta_{T+1}.
 * Privacy: one step releases g_t + b_t with l2 sensitivity Delta = 2 L
 * R_eff (replace one row; L R_eff for add/remove).  The release is snapped
 * (floating-point attacks): g_t is rounded to a public lattice g
 * and b_t is exact discrete Gaussian noise N_Z(0, sigma2) in lattice units
 * (dpnoise.c), so each step is (Delta/g + sqrt p)^2 / (2 sigma2)-zCDP
 * (Canonne, Kamath, Steinke 2020, Thm 15); T adaptive steps compose to
 * T times that, set to rho(eps, delta) (Balle et al. 2020, Thm 21;
 * calibrate.c).  docs/PRIVACY.md "Noisy GD" has the derivation.  Nothing
 * depends on n, and the output always carries noise.
 * Step (utility only: every step is post-processing of the released noisy
 * gradients, so any rule is private):
 *   - with the public option "n", Algorithm 1's: eta(t) = ||C||_2 /
 *     sqrt(t (G^2 + p s^2)), ||C||_2 = 2r, G = n L R_eff bounding ||g_t||;
 *     the output is the last iterate;
 *   - without it, G is unknown (g_t grows with the private row count, so
 *     Algorithm 1's step overshoots the ball on large tables and the model
 *     degenerates to one class): diagonal AdaGrad on the noisy gradients,
 *     theta_{t+1,j} = Pi_C(theta_t - (r / sqrt p) G_tj / sqrt(A_tj)),
 *     A_tj = sum_{s <= t} G_sj^2, and the output is the average of the
 *     iterates after step T/2; neither depends on the gradient's scale, and
 *     the per-coordinate step reaches a model as good as 1000 normalised
 *     steps in 30 (docs/BENCHMARKS.md, "Noisy GD step").
 *
 *-------------------------------------------------------------------------
 */
#include "dpobj.h"

#include <math.h>

#include <gsl/gsl_errno.h>

#include "auditmutant.h"
#include "calibrate.h"
#include "calibsql.h"
#include "dpnoise.h"
#include "glm.h"
#include "glmblocks.h"
#include "glmprivr.h"
#include "glmstate.h"
#include "mechanism.h"
#include "rowclip.h"
#include "model.h"
#include "random.h"

#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(dpobj_noisysgd_finalfn);
PG_FUNCTION_INFO_V1(dpobj_noisysgd_sigma);

/*
 * Default steps: 30 AdaGrad steps without "n" (each step is a pass over the
 * rows, and fewer steps mean less noise per step); 1000 with "n", whose
 * 1/sqrt(t) step needs many.
 */
#define DPOBJ_SGD_DEFAULT_T		30
#define DPOBJ_SGD_DEFAULT_T_N	1000

/*
 * dpobj.noisysgd_sigma() (0.1.0): Algorithm 1's s^2 = 32 L^2 n^2 ln(n/delta)
 * ln(1/delta) / eps^2 (ALGORITHMS.md section 5), for comparison only: the
 * mechanism no longer uses it (see the header).
 */
static double
sgd_sigma(double eps, double delta, double n, double L)
{
	return sqrt(32.0 * L * L * n * n * log(n / delta) * log(1.0 / delta)) / eps;
}

Datum
dpobj_noisysgd_sigma(PG_FUNCTION_ARGS)
{
	double		eps = PG_GETARG_FLOAT8(0);
	double		delta = PG_GETARG_FLOAT8(1);
	int64		n = PG_GETARG_INT64(2);
	double		L = PG_GETARG_FLOAT8(3);
	double		sigma;

	if (!isfinite(eps) || eps <= 0 || !(delta > 0 && delta < 1) || n < 1 ||
		!isfinite(L) || L <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid noisy SGD parameters"),
				 errhint("Need epsilon > 0, 0 < delta < 1, n >= 1 and L > 0.")));
	sigma = sgd_sigma(eps, delta, (double) n, L);
	if (!dpobj_noise_scale_ok(sigma))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("no noisy SGD noise scale can be computed for epsilon %g, delta %g, n " INT64_FORMAT " and L %g",
						eps, delta, n, L),
				 errhint("The noise scale must be a finite, normal double: use epsilon, delta and L of ordinary magnitude.")));
	PG_RETURN_FLOAT8(sigma);
}

/* each observation's features (the first d of its pp entries) clipped to l2 norm R */
static void
sgd_clip(double *X, int64 nobs, int pp, int d, double R)
{
	for (int64 k = 0; k < nobs; k++)
		rowclip_apply(X + (Size) k * pp, d, R, false);
}

void
noisysgd_design_clip(NoisySGDDesign *D, double R)
{
	if (D->rows == NULL)
		sgd_clip((double *) D->X, D->nobs, D->pp, D->pp - (D->intercept ? 1 : 0), R);
	else
		D->clip = R;
}

/*
 * The first (first = true) or next block of D: the whole design once, or
 * the design of the state's next row block; false after the last.
 */
static bool
sgd_block(NoisySGDDesign *D, bool first)
{
	const GLMState *v;
	MemoryContext old;
	double	   *X,
			   *cnt,
			   *y;
	int			pp;

	if (D->rows == NULL)
		return first;
	v = glmblocks_next(D->rows, first);
	if (v == NULL)
		return false;
	MemoryContextReset(D->cxt);
	old = MemoryContextSwitchTo(D->cxt);
	glm_design(v, D->intercept, &X, &cnt, &y, &D->nobs, &pp);
	MemoryContextSwitchTo(old);
	if (D->clip > 0)
		sgd_clip(X, D->nobs, pp, D->pp - (D->intercept ? 1 : 0), D->clip);
	D->X = X;
	D->cnt = cnt;
	D->y = y;
	return true;
}

void
noisysgd_design(NoisySGDDesign *D, const GLMState *s, bool intercept)
{
	double	   *X,
			   *cnt,
			   *y;

	int			rows;

	memset(D, 0, sizeof(NoisySGDDesign));
	D->intercept = intercept;
	D->pp = s->d + (intercept ? 1 : 0);
	/* a block's rows (8d + 16 bytes each) and dense design (2 obs of pp + 2 doubles) */
	rows = glmblocks_rows(24 * (Size) D->pp + 64);
	/* a design within the bound is built once; a larger one block by block */
	if (glmblocks_single(s, rows))
	{
		glm_design(s, intercept, &X, &cnt, &y, &D->nobs, &D->pp);
		D->X = X;
		D->cnt = cnt;
		D->y = y;
		return;
	}
	D->rows = glmblocks_begin(s, rows);
	D->cxt = AllocSetContextCreate(CurrentMemoryContext, "dpobj design block",
								   ALLOCSET_DEFAULT_SIZES);
}

/*
 * The snapped noisy gradient: g (round(g_t / g) + N_Z(0, sigma2)) per
 * coordinate, g_t = sum_i cnt_i grad l(theta; x_i, y_i), summed over the
 * blocks in order.  Clamping g_t / g to +-2^62 (1-Lipschitz, so no larger
 * sensitivity) keeps the integers in range whatever the private row count.
 */
static void
sgd_noisy_gradient(const GLMParams *p, NoisySGDDesign *D, const double *theta,
				   double lattice, uint64 sigma2, gsl_rng *rng, double *grad)
{
	const double limit = ldexp(1.0, 62);
	int			pp = D->pp;

	for (int j = 0; j < pp; j++)
		grad[j] = 0.0;
	for (bool more = sgd_block(D, true); more; more = sgd_block(D, false))
		for (int64 k = 0; k < D->nobs; k++)
		{
			const double *x = D->X + (Size) k * pp;
			double		z = 0,
						lf,
						ld,
						l2;

			for (int j = 0; j < pp; j++)
				z += theta[j] * x[j];
			glm_loss(p->loss, p->h, D->y[k] * z, &lf, &ld, &l2);
			for (int j = 0; j < pp; j++)
				grad[j] += D->cnt[k] * ld * D->y[k] * x[j];
		}
	for (int j = 0; j < pp; j++)
	{
		double		q = fmin(fmax(grad[j] / lattice, -limit), limit);
		int64		a = (int64) llround(q) + dpnoise_discrete_gaussian(rng, sigma2);

		grad[j] = (double) a * lattice;
	}
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
	NoisySGDDesign D = {0};

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
 * acc_j = 0).  Each coordinate moves at most 1 (exactly 1 at t = 1) and by
 * less as its released gradients accumulate: the step scales itself per
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
noisysgd_descend_design(const GLMParams *p, NoisySGDDesign *D, int64 T, double lattice,
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

/*
 * The run's noise from public inputs only (eps, delta, R, intercept, T):
 * R_eff, the number of steps T, rho, and one step's snapped Gaussian noise,
 * lattice g and variance sigma2 (lattice units), for T steps composing to
 * rho-zCDP; refused when outside the exact sampler's range.
 */
double
noisysgd_step_denom(const GLMParams *p, int pp, double Reff, double s)
{
	double		G = p->n_public > 0 ? p->n_public * Reff : 0.0;

	return G * G + pp * s * s;
}

/*
 * "R": "private": the descent's rho (rho_m), R-hat's share rho_R and the
 * exponential mechanism's eps_R (glm_budget_split_rho; docs/PRIVACY.md,
 * "Private norm bound").
 */
static double
sgd_private_rho(const GLMParams *p, double *rho_R, double *eps_R)
{
	double		rho_m;

	glm_budget_split_rho(dpobj_zcdp_rho_checked("dp_noisysgd", p->epsilon, p->delta),
						 p->R_share, rho_R, &rho_m, eps_R);
	return rho_m;
}

void
noisysgd_noise(const GLMParams *p, int pp, double *Reff, int64 *T, double *rho,
		  double *lattice, uint64 *sigma2)
{
	double		rho_R,
				eps_R;

	*Reff = glmparams_reff(p);
	*T = p->T > 0 ? p->T :
		p->n_public > 0 ? DPOBJ_SGD_DEFAULT_T_N : DPOBJ_SGD_DEFAULT_T;
	*rho = p->R_private ? sgd_private_rho(p, &rho_R, &eps_R) :
		dpobj_zcdp_rho_checked("dp_noisysgd", p->epsilon, p->delta);
	/* one-vs-rest: K descents compose in zCDP, rho / K each (glmclasses.h) */
	if (p->nclasses > 0)
		*rho /= p->nclasses;
#if DPOBJ_MUTANT_IS(multiclass)
	*rho *= DPOBJ_MUTANT_FACTOR * DPOBJ_MUTANT_FACTOR;	/* audit mutant */
#endif
	/* gradient sum sensitivity 2 L R_eff per row, k-fold for units of k rows */
	dpnoise_gaussian_lattice_composed(2.0 * p->rows_per_unit * *Reff, *rho, pp, *T,
									  lattice, sigma2);
	if (*sigma2 == 0)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("dp_noisysgd: the gradient noise is outside the exact sampler's range"),
				 errhint("Use a larger epsilon or fewer steps \"T\".")));
}

/* one candidate R-hat's noise (noisysgd_noise) */
typedef struct SGDNoise
{
	double		Reff;
	double		rho;
	double		lattice;
	uint64		sigma2;
	int64		T;
} SGDNoise;

/*
 * "R": "private": every candidate's noise (privquant.h), palloc'd, before the
 * charge: a candidate outside the sampler's range is refused now, on public
 * grounds, never after the charge.
 */
static SGDNoise *
sgd_noise_candidates(const GLMParams *p, int pp)
{
	SGDNoise   *c = palloc(sizeof(SGDNoise) * PRIVQUANT_N);

	for (int i = 0; i < PRIVQUANT_N; i++)
	{
		GLMParams	q = *p;

		q.R = privquant_candidate(i);
		noisysgd_noise(&q, pp, &c[i].Reff, &c[i].T, &c[i].rho, &c[i].lattice, &c[i].sigma2);
	}
	return c;
}

/*
 * dpobj.train()'s argument check (train.c): the options, and the noise's
 * sampler range, which depends on public inputs only, before any row is
 * read -- so that refusal is never charged.
 */
void
noisysgd_check_kind(GLMKind kind, const char *aggname, double epsilon, double delta,
					int d, Jsonb *options)
{
	GLMParams	p;
	double		Reff,
				rho,
				lattice;
	int64		T;
	uint64		sigma2;

	glmparams_check_args(kind, aggname, epsilon, delta, d, options, &p);
	if (p.R_private)
		pfree(sgd_noise_candidates(&p, d + (p.intercept ? 1 : 0)));
	else
		noisysgd_noise(&p, d + (p.intercept ? 1 : 0), &Reff, &T, &rho, &lattice, &sigma2);
}

void
noisysgd_check_args(const char *aggname, double epsilon, double delta, int d,
					Jsonb *options)
{
	noisysgd_check_kind(GLM_KIND_SGD, aggname, epsilon, delta, d, options);
}

/* the released model's public parameters only */
static void
sgd_params(StringInfo params, const GLMParams *p, int d, int64 T, double s,
		   double rho, double lattice)
{
	model_params_begin(params);
	noisysgd_params_body(params, p, d, T, s, rho, lattice);
	if (p->R_private)
	{
		double		rho_R,
					eps_R;

		(void) sgd_private_rho(p, &rho_R, &eps_R);
		glm_privr_params(params, p, eps_R, rho_R);
	}
	model_params_end(params);
}

void
noisysgd_params_body(StringInfo params, const GLMParams *p, int d, int64 T, double s,
					 double rho, double lattice)
{
	glm_params_model(params, p, d);
	model_params_float(params, "radius", p->radius);
	model_params_int(params, "T", T);
	model_params_float(params, "sigma", s);
	model_params_float(params, "rho", rho);
	model_params_float(params, "lattice", lattice);
	model_params_text(params, "noise", "discrete_gaussian");
	if (p->n_public > 0)
		model_params_float(params, "n", p->n_public);
}

Datum
dpobj_noisysgd_finalfn(PG_FUNCTION_ARGS)
{
	GLMState   *state;
	DPProtectedContext *pctx;
	GLMParams  *p;
	NoisySGDDesign D;
	double	   *theta;
	int			pp,
				d;
	double		Reff,
				s,
				denom,
				rho,
				lattice;
	uint64		sigma2;
	int64		T;
	int64		ledger_id;
	gsl_rng    *rng;
	StringInfoData params;
	SGDNoise   *cands = NULL;
	int64		hist[PRIVQUANT_N];

	state = glmstate_final_begin(fcinfo, GLM_KIND_SGD, &pctx);
	if (state == NULL)
		PG_RETURN_NULL();		/* no rows, direct path: nothing runs */

	p = &state->params;
	d = state->d;
	pp = d + (p->intercept ? 1 : 0);
	/* "R": "private": every candidate's noise and the norms' histogram */
	if (p->R_private)
	{
		cands = sgd_noise_candidates(p, pp);
		glm_privr_histogram(state, hist);
	}
	/* the design before the charge; a spilled state's in blocks, within the cap */
	noisysgd_design(&D, state, p->intercept);
	/* public inputs only: eps, delta, R, T, radius, the option "n" */
	if (!p->R_private)
		noisysgd_noise(p, pp, &Reff, &T, &rho, &lattice, &sigma2);
	theta = palloc0(sizeof(double) * pp);

	/* 1. charge first */
	ledger_id = mechanism_charge(fcinfo, pctx, "noisysgd", p->epsilon, p->delta);

	/* 2. T noisy projected gradient steps */
	rng = dpobj_rng_new();
	PG_TRY();
	{
		/* "R": "private": R-hat first (its own exact draw), the rows clipped to it */
		if (p->R_private)
		{
			double		rho_R,
						eps_R;
			int			k;

			(void) sgd_private_rho(p, &rho_R, &eps_R);
			k = glm_privr_select(rng, p, eps_R, hist, ledger_id);
			p->R = privquant_candidate(k);
			Reff = cands[k].Reff;
			T = cands[k].T;
			rho = cands[k].rho;
			lattice = cands[k].lattice;
			sigma2 = cands[k].sigma2;
			noisysgd_design_clip(&D, p->R);
		}
		s = sqrt((double) sigma2) * lattice;
		denom = noisysgd_step_denom(p, pp, Reff, s);
		noisysgd_descend_design(p, &D, T, lattice, sigma2, denom, rng, ledger_id, theta);
	}
	PG_FINALLY();
	{
		dpobj_rng_free(rng);
	}
	PG_END_TRY();
	ledger_finish(ledger_id, LEDGER_OUTCOME_RELEASED, "gd");

	sgd_params(&params, p, d, T, s, rho, lattice);
	PG_RETURN_DATUM(model_build(fcinfo, "noisysgd", theta, d,
								p->intercept ? theta[d] : 0.0,
								p->epsilon, p->delta, &params));
}
