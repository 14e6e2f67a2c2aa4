/*-------------------------------------------------------------------------
 *
 * noisysgd.c
 *	  The noisy-gradient baseline for L2-bounded logistic regression /
 *	  Huber-SVM: dpobj.dp_noisysgd(features, label, epsilon, delta, options).
 *
 * Source: Bassily, Smith, Thakurta 2014, Algorithm 1 (docs/ALGORITHMS.md,
 * "Noisy gradient descent"), with one change that privacy on the protected
 * path forces:
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
 *     g_t = sum_i grad l_c(theta_t; x_i, y_i)  (||grad l_c|| <= c L R_eff, c the
 *     option "gradient_clip": each row's loss derivative clipped to [-c, c])
 *     theta_{t+1} = Pi_C(theta_t - eta(t) [g_t + b_t]),  b_t ~ N(0, s^2 I)
 *   output theta_{T+1}.
 * Privacy: one step releases g_t + b_t with l2 sensitivity Delta = 2 c L
 * R_eff (replace one row; c L R_eff for add/remove).  The release is snapped
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
 *     A_tj = m s^2 + sum_{s <= t} G_sj^2 (m the option "adagrad_prior", s
 *     the public noise sd), and the output is the average of the
 *     iterates after step T/2; neither depends on the gradient's scale, and
 *     the per-coordinate step reaches a model as good as 1000 normalised
 *     steps in 30 (measured on three tables when the default was chosen).
 * The descent itself: noisysgddescent.c; the option "tune" (a private
 * choice among a public grid of T, R, radius): noisysgdtune.c.
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpobj.h"

#include <math.h>

#include <gsl/gsl_errno.h>

#include "core/auditmutant.h"
#include "core/calibrate.h"
#include "base/calibsql.h"
#include "families/glm/glm.h"
#include "families/glm/glmprivr.h"
#include "families/glm/glmstate.h"
#include "mechanisms/mechanism.h"
#include "mechanisms/operating.h"
#include "model/model.h"
#include "base/random.h"

PG_FUNCTION_INFO_V1(dpobj_noisysgd_finalfn);
PG_FUNCTION_INFO_V1(dpobj_noisysgd_sigma);

/*
 * dpobj.noisysgd_sigma() (0.1.0): Algorithm 1's s^2 = 32 L^2 n^2 ln(n/delta)
 * ln(1/delta) / eps^2 (docs/ALGORITHMS.md, "Noisy gradient descent"), for
 * comparison only: the mechanism no longer uses it (see the header).
 */
static double
sgd_sigma(double eps, double delta, double n, double L)
{
	/* the quotient rounded up: a noise scale never below the formula's */
	return dp_scale_up(sqrt(32.0 * L * L * n * n * log(n / delta) * log(1.0 / delta)), eps);
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

/*
 * The run's noise from public inputs only (eps, delta, R, intercept, T):
 * R_eff, the number of steps T, rho, and one step's snapped Gaussian noise,
 * lattice g and variance sigma2 (lattice units), for T steps composing to
 * rho-zCDP; refused when outside the exact sampler's range.
 */
/* noisysgd_noise, and the operating point's plan into *op (operating.h) */
static void
noisysgd_noise_op(const GLMParams *p, int pp, double *Reff, int64 *T, double *rho,
				  double *lattice, uint64 *sigma2, OpRun *op)
{
	double		rho_R,
				eps_R;

	*rho = p->R_private ? sgd_private_rho(p, &rho_R, &eps_R) :
		dpobj_zcdp_rho_checked("dp_noisysgd", p->epsilon, p->delta);
	/* one-vs-rest: K descents compose in zCDP, rho / K each (glmclasses.h) */
	if (p->nclasses > 0)
		*rho /= p->nclasses;
#if DPOBJ_MUTANT_IS(multiclass)
	*rho *= DPOBJ_MUTANT_FACTOR * DPOBJ_MUTANT_FACTOR;	/* audit mutant */
#endif
	/* balanced accuracy: the label balance's estimate first, at its share of rho */
	operating_plan_rho(op, OPERATING_PLAN_OF(p), rho);
	noisysgd_noise_rho(p, pp, *rho, Reff, T, lattice, sigma2);
	operating_check(op, "dp_noisysgd");
}

void
noisysgd_noise(const GLMParams *p, int pp, double *Reff, int64 *T, double *rho,
			   double *lattice, uint64 *sigma2)
{
	OpRun		op;

	noisysgd_noise_op(p, pp, Reff, T, rho, lattice, sigma2, &op);
}


/* one candidate R-hat's noise (noisysgd_noise) */
typedef struct SGDNoise
{
	double		Reff;
	double		rho;
	double		lattice;
	uint64		sigma2;
	int64		T;
	OpRun		op;				/* the operating point's plan */
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
		noisysgd_noise_op(&q, pp, &c[i].Reff, &c[i].T, &c[i].rho, &c[i].lattice, &c[i].sigma2,
						  &c[i].op);
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
	if (p.tune.npoints > 0)
		noisysgd_tune_check(&p, d + (p.intercept ? 1 : 0));
	else if (p.R_private)
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
		   double rho, double lattice, const OpRun *op)
{
	model_params_begin(params);
	noisysgd_params_body(params, p, d, T, s, rho, lattice);
	operating_params(params, op, true);
	if (p->R_private)
	{
		double		rho_R,
					eps_R;

		(void) sgd_private_rho(p, &rho_R, &eps_R);
		glm_privr_params(params, p, eps_R, rho_R);
	}
	model_params_end(params);
}

/*
 * "R": "private", after the charge: R-hat by its own exact draw, the rows
 * clipped to it, and its candidate's noise (computed before the charge)
 */
static SGDNoise
sgd_private_choose(gsl_rng *rng, GLMParams *p, const SGDNoise *cands, const int64 *hist,
				   int64 ledger_id, DPKeptDesign *D)
{
	double		rho_R,
				eps_R;
	int			k;

	(void) sgd_private_rho(p, &rho_R, &eps_R);
	k = glm_privr_select(rng, p, eps_R, hist, ledger_id);
	p->R = privquant_candidate(k);
	keptdesign_clip(D, p->R);
	return cands[k];
}

/* a run's noise, design and buffers (DPRun.work) */
typedef struct NoisySGDRun
{
	DPKeptDesign D;
	SGDNoise	nz;
	SGDNoise   *cands;			/* "R": "private": every candidate's noise */
	int64		hist[PRIVQUANT_N];	/* and the norms' histogram */
	double		s;
	double	   *theta;
	double		train_w[2];		/* the class weights the rows trained with */
} NoisySGDRun;

/*
 * The operating point's estimate before the descent (the design's label
 * counts, its counts carrying the options' class weights), whose weights
 * the rows then train with (balanced accuracy without "class_weight");
 * into train_w the weights the rows carry
 */
static void
sgd_balance(OpRun *op, const GLMParams *p, DPKeptDesign *D, gsl_rng *rng,
			double train_w[2])
{
	int64		c[2];

	train_w[0] = p->weight_pos;
	train_w[1] = p->weight_neg;
	if (!op->estimate)
		return;
	keptdesign_label_counts(D, train_w, c);
	operating_estimate(op, rng, c[0], c[1]);
	if (!p->balance_train)
		return;
	operating_weights(op, train_w);
	keptdesign_weigh(D, train_w[0], train_w[1]);
}

static void
noisysgd_calibrate(DPRun *run)
{
	GLMState   *state = run->state;
	GLMParams  *p = &state->params;
	int			pp = state->rows.d + (p->intercept ? 1 : 0);
	NoisySGDRun *r;

	/* "tune": a private choice among a public grid (noisysgdtune.c) */
	if (p->tune.npoints > 0)
	{
		noisysgd_tune_calibrate(run);
		return;
	}
	r = palloc0(sizeof(NoisySGDRun));
	/* "R": "private": every candidate's noise and the norms' histogram */
	if (p->R_private)
	{
		r->cands = sgd_noise_candidates(p, pp);
		glm_privr_histogram(state, r->hist);
	}
	/* the design before the charge; a spilled state's in blocks, within the cap */
	noisysgd_design(&r->D, state, p->intercept);
	/* public inputs only: eps, delta, R, T, radius, the option "n" */
	if (!p->R_private)
		noisysgd_noise_op(p, pp, &r->nz.Reff, &r->nz.T, &r->nz.rho, &r->nz.lattice,
						  &r->nz.sigma2, &r->nz.op);
	r->theta = palloc0(sizeof(double) * pp);
	mechanism_calibrated(run, r, "noisysgd", p->epsilon, p->delta);
	run->private_r = p->R_private;
}

/* T noisy projected gradient steps */
static void
noisysgd_compute(DPRun *run)
{
	GLMState   *state = run->state;
	GLMParams  *p = &state->params;
	int			pp = state->rows.d + (p->intercept ? 1 : 0);
	NoisySGDRun *r = run->work;

	if (p->tune.npoints > 0)
	{
		noisysgd_tune_compute(run);
		return;
	}
	if (p->R_private)
		r->nz = sgd_private_choose(run->rng, p, r->cands, r->hist, run->ledger_id, &r->D);
	sgd_balance(&r->nz.op, p, &r->D, run->rng, r->train_w);
	r->s = sqrt((double) r->nz.sigma2) * r->nz.lattice;
	noisysgd_descend_design(p, &r->D, r->nz.T, r->nz.lattice, r->nz.sigma2,
							noisysgd_step_denom(p, pp, r->nz.Reff, r->s), run->rng,
							run->ledger_id, r->theta);
	operating_finish(&r->nz.op, OPERATING_CLASS_W(p), r->train_w, r->nz.op.w);
	run->detail = "gd";
}

static Datum
noisysgd_release(DPRun *run)
{
	GLMState   *state = run->state;
	GLMParams  *p = &state->params;
	NoisySGDRun *r = run->work;
	StringInfoData params;

	if (p->tune.npoints > 0)
		return noisysgd_tune_release(run);
	sgd_params(&params, p, state->rows.d, r->nz.T, r->s, r->nz.rho, r->nz.lattice, &r->nz.op);
	return glm_model_shifted(run, "noisysgd", r->theta, &params, r->nz.op.shift);
}

MECHANISM_FINAL_FUNCTION(dpobj_noisysgd_finalfn,
						 .admit = glm_admit, .kind = GLM_KIND_SGD,
						 .calibrate = noisysgd_calibrate, .compute = noisysgd_compute,
						 .release = noisysgd_release)
