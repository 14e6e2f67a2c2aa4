/*-------------------------------------------------------------------------
 *
 * noisysgdtune.c
 *	  dp_noisysgd's "tune": private hyperparameter tuning by random stopping
 *	  (Papernot and Steinke, ICLR 2022, Theorem 2 with eta = 1; Liu and
 *	  Talwar 2019).  Before the charge, on public inputs only: gamma, the
 *	  split delta = delta0 + delta_t, the largest rho_Q with A (eps,
 *	  delta0)-DP (tunecalib.c), K_max with (1 + e^eps)(1 - gamma)^K_max <=
 *	  delta_t, rho_Q = rho_train + rho_score, and every grid point's noise at
 *	  rho_train (a point outside the sampler's range is refused now).  After
 *	  the charge (kind approx, (eps, delta)), with "tune_metric"
 *	  balanced_accuracy first (once, at eps_b = 0.05 eps; A calibrated at
 *	  eps - eps_b) a noisy count of each label and the weights from it; then
 *	  up to K_max times: Q picks a
 *	  grid point uniformly, runs noisy GD with it on all rows at rho_train
 *	  (with the class weights, if any), scores the model by the rows it
 *	  classifies right ("tune_metric" weighted_accuracy: each counted
 *	  round(2^10 w) times, w its label's class weight; sensitivity 2^10,
 *	  times k with privacy units of k rows) plus exact discrete Gaussian
 *	  noise at rho_score; then stops with
 *	  probability gamma (exact Bernoulli).  The model with the best noisy
 *	  score (ties: the lower grid point, then the weights' bytes: a total
 *	  order on Q's outputs) is released with its grid point; nothing about
 *	  the other runs, nor their number.  Derivation: docs/PRIVACY.md, "Private hyperparameter tuning".
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpobj.h"

#include <math.h>

#include "common/int.h"

#include "core/autoselect.h"
#include "base/calibsql.h"
#include "core/dpnoise.h"
#include "families/glm/glm.h"
#include "families/glm/glmstate.h"
#include "ledger/ledger.h"
#include "mechanisms/mechanism.h"
#include "mechanisms/operating.h"
#include "model/model.h"
#include "base/random.h"
#include "core/tunecalib.h"

/* the share of delta that pays for capping the number of runs at K_max */
#define TUNE_DELTA_TRUNC_SHARE	0.1

/* one grid point: its options and its noise at rho_train */
typedef struct TunePoint
{
	GLMParams	p;
	double		Reff,
				lattice,
				s,
				denom;
	uint64		sigma2;
	int64		T;
} TunePoint;

/* the tuned run's public plan (tune_plan) */
typedef struct TunePlan
{
	int			npoints;
	TunePoint  *pts;
	double		gamma;			/* gamma_num / 2^20 */
	uint64		gamma_num;
	double		delta0,
				delta_t;
	double		rho_q,
				rho_train,
				rho_score;
	int64		score_w[2];		/* a positive's and a negative's integer score weight */
	double		count_w[2];		/* the class weights the design's counts carry */
	double		eps_b;			/* balanced_accuracy: the balance estimate's epsilon */
	uint64		bnum,			/* ... and its discrete Laplace scale num / den */
				bden;
	int			score_bits;		/* log2 of the score's sensitivity: 0, or 10 when weighted */
	uint64		score_sigma2;	/* the score's discrete Gaussian variance (score units^2) */
	int64		kmax;
} TunePlan;

static void
tune_refuse(int code, const char *msg, const char *hint)
{
	ereport(ERROR, (errcode(code), errmsg("dp_noisysgd: %s", msg), errhint("%s", hint)));
}

/*
 * The default gamma: the largest expected number of runs 1/gamma whose
 * gradient passes (each run: its T, and one pass to score) stay within
 * TUNE_PASS_FACTOR times one untuned run's T, at most 1 (a single run).
 * 2.5 rather than 3 keeps a tuned run within 3 untuned runs' time where
 * the steps' exact noise dominates the time (small tables; the scan is
 * shared): docs/BENCHMARKS.md, "Private hyperparameter tuning".
 */
#define TUNE_PASS_FACTOR	2.5

static double
tune_default_gamma(const GLMParams *p)
{
	const GLMTune *t = &p->tune;
	double		mean = 0;

	for (int i = 0; i < t->npoints; i++)
	{
		int			iT,
					iR,
					ir;

		glmtune_point(t, i, &iT, &iR, &ir);
		mean += (double) (iT >= 0 ? t->T[iT] : noisysgd_default_T(p)) + 1.0;
	}
	mean /= t->npoints;
	return Min(1.0, mean / (TUNE_PASS_FACTOR * (double) noisysgd_default_T(p)));
}

/* grid point i's options: the base options with its T, R, radius */
static void
tune_point_params(const GLMParams *p, int i, GLMParams *q)
{
	int			iT,
				iR,
				ir;

	*q = *p;
	glmtune_point(&p->tune, i, &iT, &iR, &ir);
	if (iT >= 0)
		q->T = p->tune.T[iT];
	if (iR >= 0)
		q->R = p->tune.R[iR];
	if (ir >= 0)
		q->radius = p->tune.radius[ir];
}

/*
 * tune_rho, remembered for the last arguments: train()'s check and the final
 * function ask for the same.  A pure function, so remembering changes nothing.
 */
static double
tune_rho_cached(double eps, double gamma, double delta0)
{
	static double c_eps = NAN,
				c_gamma = NAN,
				c_delta0 = NAN,
				c_rho = NAN;

	if (eps != c_eps || gamma != c_gamma || delta0 != c_delta0)
	{
		c_rho = tune_rho(eps, gamma, delta0);
		c_eps = eps;
		c_gamma = gamma;
		c_delta0 = delta0;
	}
	return c_rho;
}

/* the rho split and the score's noise; refused when outside the sampler */
static void
tune_plan_score(const GLMParams *p, TunePlan *pl)
{
	double		v;
	bool		weighted = p->tune.metric != OP_METRIC_ACCURACY;

	glm_budget_split(pl->rho_q, p->tune.score_share, &pl->rho_score, &pl->rho_train);
	/* weighted: round(2^b w) per row, w in [2^-10, 1], so in [1, 2^b] */
	pl->score_bits = weighted ? OP_WEIGHT_BITS : 0;
	pl->score_w[0] = weighted ? (int64) rint(ldexp(p->weight_pos, OP_WEIGHT_BITS)) : 1;
	pl->score_w[1] = weighted ? (int64) rint(ldexp(p->weight_neg, OP_WEIGHT_BITS)) : 1;
	pl->count_w[0] = p->weight_pos;
	pl->count_w[1] = p->weight_neg;
	/*
	 * sensitivity k 2^b (a unit's k rows each move the score by at most 2^b):
	 * (k 2^b)^2 / (2 sigma2) <= rho_score, the quotient raised first
	 */
	v = ceil(ldexp((double) p->rows_per_unit * p->rows_per_unit, 2 * pl->score_bits) /
			 (2.0 * pl->rho_score) * (1.0 + ldexp(1.0, -50)));
	if (!(v >= 1 && v <= ldexp(1.0, 56)))
		tune_refuse(ERRCODE_PROGRAM_LIMIT_EXCEEDED,
					"the tuning score's noise is outside the exact sampler's range",
					"Use a larger epsilon or \"tune_score_share\".");
	pl->score_sigma2 = (uint64) v;
}

/*
 * balanced_accuracy: the balance estimate's share eps_b of epsilon (pure DP,
 * two counts each moved by at most one row, by k with units of k rows:
 * discrete Laplace of scale 2 / (eps_b / k)); A gets the rest.  Returns A's
 * epsilon.
 */
static double
tune_plan_balance(const GLMParams *p, TunePlan *pl)
{
	double		eps_a = p->epsilon;
	double		eps_scale;

	if (p->tune.metric != OP_METRIC_BALANCED)
		return eps_a;
	glm_budget_split(p->epsilon, GLM_AUTO_BALANCE_SHARE, &pl->eps_b, &eps_a);
	eps_scale = p->rows_per_unit > 1 ?
		nextafter(pl->eps_b / p->rows_per_unit, 0.0) : pl->eps_b;
	if (!autosel_laplace_scale(eps_scale, &pl->bnum, &pl->bden))
		tune_refuse(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE,
					"the balance estimate's noise is outside the exact sampler's range",
					"Use a larger epsilon, or \"tune_metric\": \"accuracy\".");
	return eps_a;
}

/* everything the run decides before the charge, from public inputs only */
static void
tune_plan(const GLMParams *p, int pp, TunePlan *pl)
{
	double		eps_a;

	memset(pl, 0, sizeof(*pl));
	pl->npoints = p->tune.npoints;
	pl->gamma_num = tune_gamma_num(p->tune.gamma > 0 ? p->tune.gamma : tune_default_gamma(p));
	pl->gamma = (double) pl->gamma_num / (double) TUNE_GAMMA_DEN;
	glm_budget_split(p->delta, TUNE_DELTA_TRUNC_SHARE, &pl->delta_t, &pl->delta0);
	eps_a = tune_plan_balance(p, pl);
	pl->rho_q = tune_rho_cached(eps_a, pl->gamma, pl->delta0);
	if (!(pl->rho_q > 0))
		tune_refuse(ERRCODE_INVALID_PARAMETER_VALUE,
					"no tuning run can be calibrated at this epsilon, delta and \"tune_gamma\"",
					"Use a larger epsilon or delta, or a larger \"tune_gamma\" (fewer runs).");
	pl->kmax = tune_kmax(eps_a, pl->gamma, pl->delta_t);
	if (pl->kmax < 1)
		tune_refuse(ERRCODE_PROGRAM_LIMIT_EXCEEDED,
					"too many tuning runs would be needed to cap their number",
					"Use a larger \"tune_gamma\" or delta.");
	tune_plan_score(p, pl);
	pl->pts = palloc0(sizeof(TunePoint) * pl->npoints);
	for (int i = 0; i < pl->npoints; i++)
	{
		TunePoint  *c = &pl->pts[i];

		tune_point_params(p, i, &c->p);
		noisysgd_noise_rho(&c->p, pp, pl->rho_train, &c->Reff, &c->T, &c->lattice, &c->sigma2);
		c->s = sqrt((double) c->sigma2) * c->lattice;
		c->denom = noisysgd_step_denom(&c->p, pp, c->Reff, c->s);
	}
}

void
noisysgd_tune_check(const GLMParams *p, int pp)
{
	TunePlan	pl;

	tune_plan(p, pp, &pl);
	pfree(pl.pts);
}

/* Q's output (score, point, theta) above the best so far in the total order */
static bool
tune_better(int64 score, int point, const double *theta, int64 best_score,
			int best_point, const double *best, int pp)
{
	if (best_point < 0 || score != best_score)
		return best_point < 0 || score > best_score;
	if (point != best_point)
		return point < best_point;
	return memcmp(theta, best, sizeof(double) * pp) < 0;
}

/*
 * With "R" in the grid, a whole design's working copy of its rows (palloc'd
 * before the charge: its size is the design's, within the same bound); NULL
 * otherwise.
 */
static double *
tune_design_work(const GLMParams *p, const DPKeptDesign *D)
{
	if (p->tune.nR == 0 || D->rows != NULL)
		return NULL;
	return palloc_extended(sizeof(double) * Max((Size) D->nobs * D->pp, 1),
						   MCXT_ALLOC_HUGE);
}

/*
 * With "R" in the grid, clips the rows to R: a whole design's from its rows
 * as scanned (Xorig) into Xwork; a design in blocks clips each block as it
 * is built.  Without, the rows stay as scanned (clipped to "R").
 */
static void
tune_design_clip(DPKeptDesign *D, const double *Xorig, double *Xwork, const GLMParams *q)
{
	if (q->tune.nR == 0)
		return;
	if (D->rows == NULL)
	{
		memcpy(Xwork, Xorig, sizeof(double) * (Size) D->nobs * D->pp);
		D->X = Xwork;
	}
	keptdesign_clip(D, q->R);
}

/* the runs: *best gets the released model, *best_point its grid point */
static void
tune_runs(const TunePlan *pl, DPKeptDesign *D, double *Xwork, gsl_rng *rng,
		  int64 ledger_id, double *best, int *best_point)
{
	int			pp = D->pp;
	double	   *theta = palloc(sizeof(double) * pp);
	const double *Xorig = D->X;
	int64		best_score = 0;

	*best_point = -1;
	for (int64 k = 1; k <= pl->kmax; k++)
	{
		int			g = (int) dpnoise_uniform(rng, (uint64) pl->npoints);
		const TunePoint *c = &pl->pts[g];
		int64		score;

		mechanism_poll(ledger_id);
		tune_design_clip(D, Xorig, Xwork, &c->p);
		noisysgd_descend_design(&c->p, D, c->T, c->lattice, c->sigma2, c->denom, rng,
								ledger_id, theta);
		/* score (<= 2^62) + noise, saturating: a 1-Lipschitz map of the noisy score */
		if (pg_add_s64_overflow(noisysgd_score_right(D, theta, pl->score_w, pl->count_w),
								dpnoise_discrete_gaussian(rng, pl->score_sigma2), &score))
			score = PG_INT64_MAX;
		if (tune_better(score, g, theta, best_score, *best_point, best, pp))
		{
			memcpy(best, theta, sizeof(double) * pp);
			best_score = score;
			*best_point = g;
		}
		if (tune_stop(rng, pl->gamma_num))
			break;
	}
	memset(theta, 0, sizeof(double) * pp);
	pfree(theta);
}

/*
 * balanced_accuracy, once before the runs: noisy counts of the positive and
 * negative rows, and from them (post-processing) the score weights, integers
 * in [2^(b - 6), 2^b] proportional to 1 / count; without "class_weight" the
 * same weights, W / 2^b, also weigh the design's counts for training.
 */
static void
tune_balance(TunePlan *pl, DPKeptDesign *D, gsl_rng *rng, bool train)
{
	int64		c[2];

	keptdesign_label_counts(D, pl->count_w, c);
	autosel_noisy_balance_weights(rng, c[0], c[1], pl->bnum, pl->bden, OP_WEIGHT_BITS,
								  OP_BALANCE_MIN_WEIGHT, &pl->score_w[0], &pl->score_w[1]);
	if (!train)
		return;
	for (int i = 0; i < 2; i++)
		pl->count_w[i] = ldexp((double) pl->score_w[i], -OP_WEIGHT_BITS);
	keptdesign_weigh(D, pl->count_w[0], pl->count_w[1]);
}

/* the released model's public parameters, and the chosen point's (DP output) */
static void
tune_params(StringInfo params, const TunePlan *pl, int d, int point, const OpRun *op)
{
	const TunePoint *c = &pl->pts[point];

	model_params_begin(params);
	noisysgd_params_body(params, &c->p, d, c->T, c->s, pl->rho_train, c->lattice);
	model_params_int(params, "tune_point", point);
	model_params_int(params, "tune_grid_points", pl->npoints);
	model_params_float(params, "tune_gamma", pl->gamma);
	model_params_int(params, "tune_max_runs", pl->kmax);
	model_params_float(params, "tune_delta_truncation", pl->delta_t);
	model_params_float(params, "tune_rho", pl->rho_q);
	model_params_float(params, "tune_score_share", c->p.tune.score_share);
	model_params_text(params, "tune_metric", operating_metric_names[c->p.tune.metric - 1]);
	operating_params(params, op, false);
	/* in rows (a weight of 1), whatever the score's integer units */
	model_params_float(params, "tune_score_sigma",
					   ldexp(sqrt((double) pl->score_sigma2), -pl->score_bits));
	/* the balance estimate's public epsilon, and the weights it gave (a DP output) */
	if (c->p.tune.metric == OP_METRIC_BALANCED)
	{
		model_params_float(params, "tune_balance_epsilon", pl->eps_b);
		model_params_float(params, "balance_weight_true",
						   ldexp((double) pl->score_w[0], -pl->score_bits));
		model_params_float(params, "balance_weight_false",
						   ldexp((double) pl->score_w[1], -pl->score_bits));
	}
	model_params_end(params);
}

/* a tuned run's plan, design and buffers (DPRun.work) */
typedef struct TuneRun
{
	TunePlan	pl;
	DPKeptDesign D;
	double	   *theta;
	double	   *Xwork;
	int			point;			/* the chosen grid point (DP output) */
	OpRun		op;				/* its operating point, for "tune_metric" */
} TuneRun;

void
noisysgd_tune_calibrate(DPRun *run)
{
	GLMState   *state = run->state;
	GLMParams  *p = &state->params;
	int			pp = state->rows.d + (p->intercept ? 1 : 0);
	TuneRun    *t = palloc0(sizeof(TuneRun));

	t->theta = palloc0(sizeof(double) * pp);
	tune_plan(p, pp, &t->pl);
	noisysgd_design(&t->D, state, p->intercept);
	t->Xwork = tune_design_work(p, &t->D);
	/* approximate DP, the run's (eps, delta) */
	mechanism_calibrated(run, t, "noisysgd_tune", p->epsilon, p->delta);
}

/* the runs, then the best */
void
noisysgd_tune_compute(DPRun *run)
{
	GLMParams  *p = &((GLMState *) run->state)->params;
	TuneRun    *t = run->work;

	if (p->tune.metric == OP_METRIC_BALANCED)
		tune_balance(&t->pl, &t->D, run->rng, p->tune.balance_train);
	tune_runs(&t->pl, &t->D, t->Xwork, run->rng, run->ledger_id, t->theta, &t->point);
	/*
	 * The cut-off the runs were scored at: the balance's weights', or with
	 * "class_weight" (the estimate then only weighs the scores) the weights'
	 */
	memset(&t->op, 0, sizeof(t->op));
	t->op.metric = p->tune.metric == OP_METRIC_BALANCED && !p->tune.balance_train ?
		OP_METRIC_WEIGHTED : p->tune.metric;
	operating_finish(&t->op, OPERATING_CLASS_W(p), t->pl.count_w, t->pl.score_w);
	run->detail = "gd";
}

Datum
noisysgd_tune_release(DPRun *run)
{
	TuneRun    *t = run->work;
	StringInfoData params;

	tune_params(&params, &t->pl, ((GLMState *) run->state)->rows.d, t->point, &t->op);
	return glm_model_shifted(run, "noisysgd", t->theta, &params, t->op.shift);
}
