/*-------------------------------------------------------------------------
 *
 * glmauto.c
 *	  Private model selection: dpobj.dp_auto(features, label, epsilon,
 *	  delta, options), train()'s mechanism 'auto'.  Chooses among GLM
 *	  mechanisms fed by the same state (dpobj.glm_state, glmstate.h) under
 *	  one charge of (eps, delta); docs/PRIVACY.md "Private model selection
 *	  (auto)" has the proof.
 *
 * With the public share s (option "select_share"), eps_s = s eps and
 * delta_s = s delta:
 *	 1. every row (every unit of a distinct row's count) goes to one of K+1
 *		parts independently and uniformly at random (autoselect.c): part j
 *		(1..K) trains candidate j, part 0 validates.  The partition is
 *		independent of the data, so replace-one neighbours, coupled on the
 *		assignment, differ in one part only;
 *	 2. candidate j runs on part j at (eps_s, delta_s) with its own code
 *		(glm.c, noisysgd.c, ebm.c, gbdt.c: rho(eps_s, delta_s)-zCDP, hence (eps_s,
 *		delta_s)-DP; its terms from the option "groups", which train() sets
 *		as for dp_ebm) and defaults; its score is the number of rows of
 *		part 0 it classifies correctly (an integer of sensitivity 1), or with
 *		"metric" weighted_accuracy their summed integer weights round(w 2^b),
 *		b = OP_WEIGHT_BITS (sensitivity 2^b).  With balanced_accuracy
 *		the weights come from noisy counts of all rows' positives and
 *		negatives (discrete Laplace at eps_b, GLM_AUTO_BALANCE_SHARE of the
 *		final epsilon), drawn before any candidate; without "class_weight"
 *		they also weigh the candidates' and the retrain's losses;
 *	 3. report noisy max over the K scores with exact discrete Laplace noise
 *		of scale 2 / eps_s (times 2^b when weighted), ties to the earlier
 *		candidate: eps_s-DP.  The selection as a whole is (eps_s,
 *		delta_s)-DP (each row is in one part) for any fixed weights;
 *	 4. the chosen candidate is retrained on all rows at (eps - eps_s -
 *		eps_b, delta - delta_s), the model released; basic composition gives
 *		(eps, delta), charged once (approximate DP) before any randomness.
 * By size (the default with "groups": noisy GD and ebm, auto_by_size): no
 * partition nor noisy max; the balance estimate, drawn as either candidate
 * alone draws it (zCDP: GLM_BALANCE_SHARE of rho(eps, delta)), picks one
 * (post-processing, GLM_AUTO_SIZE_MIN), which trains on all rows at the
 * rest of rho (docs/PRIVACY.md, "Private model selection").
 * With privacy units of k rows ("rows_per_unit", train() on a unit table)
 * a unit's rows may fall into every part: auto_unit_parts() splits
 * (eps_s, delta_s) over the K + 1 parts and calibrates them for k rows.
 * Only the final model, the selected candidate's name (a DP output) and
 * public parameters are released; the scores and candidate models are not.
 * Everything whose size depends on the rows is allocated before the charge
 * at its largest (every part at most the whole), so no failure after the
 * charge depends on the rows; the solvers always release (glm.h).
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpobj.h"

#include <math.h>

#include "base/calibsql.h"
#include "core/autoselect.h"
#include "core/calibrate.h"
#include "families/glm/glm.h"
#include "mechanisms/family.h"
#include "core/glmsolve.h"
#include "families/glm/glmstate.h"
#include "mechanisms/mechanism.h"
#include "model/model.h"
#include "base/random.h"

PG_FUNCTION_INFO_V1(dpobj_auto_finalfn);

/*
 * The possible candidates, in tie-breaking order: bit j of GLM_AUTO_* names
 * the j-th (glm_auto_names, glmparams.h), and the registry entry that lists
 * it in its auto_pick says how it trains (family.h).  The option
 * "candidates" picks some (default objective, noisysgd and, with "groups",
 * ebm: GLM_AUTO_DEFAULT, chosen by measurement: docs/BENCHMARKS.md).
 */
#define AUTO_MAX	((int) lengthof(glm_auto_names))
#define auto_candidate(j)	mechanism_auto_pick(glm_auto_names[j])

/* one candidate's public calibration at a budget */
typedef struct AutoRun
{
	const DPAutoPick *cand;
	GLMParams	p;				/* the base options, this budget, this method */
	GLMCalibration c;			/* dp_logistic */
	void	   *fit;			/* another family's candidate (its ops): its calibration, fit */
	const char *name;			/* "selected" in the params */
	double		Reff,			/* noisy GD */
				rho,
				lattice,
				s,
				denom;
	int64		T;
	uint64		sigma2;
} AutoRun;

/* the selection's discrete Laplace scales num/den: the noisy max's, the balance estimate's */
typedef struct AutoNoise
{
	double		beps;			/* the balance estimate's epsilon, 0 without */
	uint64		num,
				den,
				bnum,
				bden;
	OpRun		op;				/* by size: the estimate as a candidate alone draws it */
} AutoNoise;

/* the run's data: the full designs and every part's counts (sized before the charge) */
typedef struct AutoData
{
	int			K,				/* candidates; parts 1..K train them, part 0 validates */
				d,
				pp;
	struct GLMSolveDesign *X;	/* sparse, all observations */
	double	   *Xd,				/* dense, the same observations (noisy GD) */
			   *cnt,
			   *y;
	int64		nobs;
	int64	   *icnt;			/* each observation's row count */
	int64	   *part;			/* (K+1) x nobs: its count in each part, part-major */
	int64		wscore[2];		/* a positive's and a negative's integer score weight */
	int		   *prow;			/* one part's observations, compacted (dp_logistic) */
	double	   *py,
			   *pcnt,
			   *scnt;			/* one part's weighted counts, zeros kept (noisy GD) */
} AutoData;

/* (eps_s, delta_s) and the rest, the rest rounded down until the two fit the total */
static void
auto_split_budget(double eps, double delta, double share, double *es, double *ds,
				  double *ef, double *df)
{
	glm_budget_split(eps, share, es, ef);
	glm_budget_split(delta, share, ds, df);
}

/*
 * The selection's parts with privacy units of k rows: a unit's rows may fall
 * into all K + 1 parts, so each part gets a (K + 1)-th of (eps_s, delta_s)
 * (basic composition over the parts; docs/PRIVACY.md, "Private model
 * selection"), the candidates calibrated for k rows, and the scores, which
 * k rows move by k, get Laplace noise for eps_s / ((K + 1) k).  k = 1: one
 * row is in one part, and the parts compose in parallel at (eps_s, delta_s).
 * *el: the epsilon the noisy max's scale 2 / el is for.  Rounded down.
 */
static void
auto_unit_parts(int k, int K, double *es, double *ds, double *el)
{
	*el = *es;
	if (k <= 1 || K <= 1)
		return;
	*es = nextafter(*es / (K + 1), 0.0);
	*ds = nextafter(*ds / (K + 1), 0.0);
	*el = nextafter(*es / k, 0.0);
}

/* what a candidate of another family trains with of p (family.h) */
static const OpParams *
auto_op_params(const GLMParams *p, OpParams *q)
{
	*q = (OpParams) {.epsilon = p->epsilon, .delta = p->delta,
		.rows_per_unit = p->rows_per_unit, .sample_rows = p->sample_rows,
		.weight_pos = p->weight_pos, .weight_neg = p->weight_neg, .metric = p->metric,
	.balance_share = p->balance_share, .balance_train = p->balance_train};
	return q;
}

/* the calibration of a candidate at (eps, delta): public inputs only; refuses */
static void
auto_prepare(const GLMParams *base, Jsonb *options, const DPAutoPick *cand, double eps,
			 double delta, double n_share, int d, AutoRun *r)
{
	int			pp = d + (base->intercept ? 1 : 0);

	r->cand = cand;
	r->fit = NULL;
	r->name = cand->name;
	r->p = *base;
	r->p.epsilon = eps;
	r->p.delta = delta;
	/* the public row count of the rows this run sees: a part's expected share */
	if (r->p.n_public > 0)
		r->p.n_public *= n_share;
	/* its rows as auto's state holds them (clipped to "R": train()'s bound clips none) */
	if (cand->ops != NULL)
	{
		OpParams	q;

		r->fit = cand->ops->prepare(options, auto_op_params(&r->p, &q), d);
		return;
	}
	if (cand->kind != GLM_KIND_SGD)
	{
		r->p.method = cand->method;
		glm_calibrate(&r->p, d, &r->c);
		return;
	}
	noisysgd_noise(&r->p, pp, &r->Reff, &r->T, &r->rho, &r->lattice, &r->sigma2);
	r->s = sqrt((double) r->sigma2) * r->lattice;
	r->denom = noisysgd_step_denom(&r->p, pp, r->Reff, r->s);
}

/* weighted scores (both weighted metrics) move by up to 2^b per row */
static bool
auto_weighted_score(const GLMParams *p)
{
	return p->auto_metric != OP_METRIC_ACCURACY;
}

/* Whether the selection draws its balance estimate: for balanced_accuracy */
static bool
auto_balance_estimated(const GLMParams *p)
{
	return p->auto_metric == OP_METRIC_BALANCED;
}

/*
 * By size, the run in zCDP as each candidate alone: rho(eps, delta), the
 * balance estimate at GLM_BALANCE_SHARE of it as the candidates draw theirs
 * (discrete Gaussian, operating.h), and for the chosen candidate the largest
 * *ef whose rho(*ef, delta) fits the rest; refused before any row
 */
static void
auto_size_budget(const GLMParams *p, AutoNoise *z, double *ef)
{
	double		rho = dpobj_zcdp_rho_checked("dp_auto", p->epsilon, p->delta);

	operating_plan_rho(&z->op, p->auto_metric, GLM_BALANCE_SHARE, p->rows_per_unit, &rho);
	*ef = zcdp_eps(rho * (1.0 - 1e-9), p->delta);
	if (!(isfinite(*ef) && *ef > 0 && zcdp_rho(*ef, p->delta) <= rho))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("dp_auto: no epsilon fits the budget left after the balance estimate"),
				 errhint("Use a larger epsilon or delta.")));
	operating_check(&z->op, "dp_auto");
}

/*
 * The selection's noise (none by size): the noisy max's for part 0's epsilon el (weighted
 * scores' scale times 2^b, exactly) and, with balanced_accuracy, the balance
 * estimate's for eb (two counts, each moved by at most one row: scale
 * 2 / eb).  Refuses before any row.
 */
static void
auto_noise(const GLMParams *p, int K, double el, double eb, double es, AutoNoise *z)
{
	bool		ok = true;

	z->num = z->den = 0;
	if (eb > 0)
		ok = autosel_laplace_scale(eb, &z->bnum, &z->bden);
	if (auto_weighted_score(p))
		el = ldexp(el, -OP_WEIGHT_BITS);
	if (!ok || (!p->auto_by_size && !autosel_laplace_scale(el, &z->num, &z->den)))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("dp_auto: the selection's noise for epsilon %g is outside the exact sampler's range",
						es),
				 errhint("Use a larger epsilon or a larger \"select_share\"%s.", auto_weighted_score(p) ? ", or \"metric\": \"accuracy\"" : "")));
}

/*
 * The chosen candidates at both budgets, and the selection's noise: before
 * any row.  Returns their number K.
 */
static int
auto_prepare_all(const GLMParams *p, Jsonb *options, int d, AutoRun *sel, AutoRun *fin,
				 AutoNoise *z)
{
	double		es,
				ds,
				ef,
				df,
				el;
	int			K = 0,
				k = 0;

	for (int j = 0; j < AUTO_MAX; j++)
		K += (p->auto_candidates & 1 << j) != 0;
	/* by size (glmparams.c: the default with "groups"): no selection's share */
	es = ds = el = 0;
	ef = p->epsilon;
	df = p->delta;
	if (!p->auto_by_size)
		auto_split_budget(p->epsilon, p->delta, p->select_share, &es, &ds, &ef, &df);
	/* the estimate on all rows, a share of the final epsilon */
	z->beps = 0;
	if (p->auto_by_size)
		auto_size_budget(p, z, &ef);
	else if (auto_balance_estimated(p))
		glm_budget_split(ef, GLM_AUTO_BALANCE_SHARE, &z->beps, &ef);
	if (!p->auto_by_size)
		auto_unit_parts(p->rows_per_unit, K, &es, &ds, &el);
	/* k rows move each count by k: the scale for beps / k, rounded down */
	auto_noise(p, K, el, p->rows_per_unit > 1 ?
			   nextafter(z->beps / p->rows_per_unit, 0.0) : z->beps, es, z);
	for (int j = 0; j < AUTO_MAX; j++)
	{
		if ((p->auto_candidates & 1 << j) == 0)
			continue;
		if (!p->auto_by_size)
			auto_prepare(p, options, auto_candidate(j), es, ds, 1.0 / (K + 1), d, &sel[k]);
		else
			sel[k] = (AutoRun) {.cand = auto_candidate(j), .name = glm_auto_names[j]};
		auto_prepare(p, options, auto_candidate(j), ef, df, 1.0, d, &fin[k++]);
	}
	return K;
}

void
auto_check_args(const char *aggname, double epsilon, double delta, int d, Jsonb *options)
{
	GLMParams	p;
	AutoRun		sel[AUTO_MAX],
				fin[AUTO_MAX];
	AutoNoise	z;

	glmparams_check_args(GLM_KIND_AUTO, aggname, epsilon, delta, d, options, &p);
	auto_prepare_all(&p, options, d, sel, fin, &z);
}

/*
 * The designs and the part arrays, at their largest sizes: the parts only
 * where a selection runs (not by size), the compaction only for a logistic
 * candidate (fin[0..K-1])
 */
static void
auto_data(const GLMState *s, int K, const AutoRun *fin, AutoData *a)
{
	bool		parts = !s->params.auto_by_size,
				logistic = false;
	int			pp;
	int64		k = 0;

	for (int j = 0; j < K; j++)
		logistic |= fin[j].cand->kind == GLM_KIND_LOGISTIC;

	a->K = K;
	a->d = s->rows.d;
	a->X = glm_minimise_design(s, s->params.intercept);
	glm_design(s, s->params.intercept, &a->Xd, &a->cnt, &a->y, &a->nobs, &pp);
	a->pp = pp;
#define AUTO_ALLOC(n, t) palloc_extended(sizeof(t) * (Size) Max((n), 1), MCXT_ALLOC_HUGE)
	a->icnt = AUTO_ALLOC(a->nobs, int64);
	a->part = parts ? AUTO_ALLOC((K + 1) * a->nobs, int64) : NULL;
	a->prow = logistic ? AUTO_ALLOC(a->nobs, int) : NULL;
	a->py = logistic ? AUTO_ALLOC(a->nobs, double) : NULL;
	a->pcnt = logistic ? AUTO_ALLOC(a->nobs, double) : NULL;
	a->scnt = AUTO_ALLOC(a->nobs, double);
#undef AUTO_ALLOC
	/* glmstate_observations' order: row by row, positives first, nonzero counts */
	for (int u = 0; u < s->rows.nrows; u++)
	{
		if (s->rows.pos[u] > 0)
			a->icnt[k++] = s->rows.pos[u];
		if (s->rows.neg[u] > 0)
			a->icnt[k++] = s->rows.neg[u];
	}
}

/* step 1: each observation's rows over the K+1 parts, part-major */
static void
auto_partition(gsl_rng *rng, AutoData *a)
{
	int64		out[AUTO_MAX + 1];

	for (int64 k = 0; k < a->nobs; k++)
	{
		autosel_split(rng, a->icnt[k], a->K + 1, out);
		for (int j = 0; j <= a->K; j++)
			a->part[(Size) j * a->nobs + k] = out[j];
	}
}

/* the weight of a row of observation k: its label's class weight (classweights.h) */
static double
auto_weight(const AutoData *a, const GLMParams *p, int64 k)
{
	return a->y[k] > 0 ? p->weight_pos : p->weight_neg;
}

/* a part's row counts (part 0..K), or all rows' (part < 0) */
static const int64 *
auto_counts(const AutoData *a, int part)
{
	return part >= 0 ? a->part + (Size) part * a->nobs : a->icnt;
}

/*
 * part's observations with a nonzero count, for the solver (its counts must
 * be > 0), weighted by p's class weights: the counts of glmstate_observations
 * for all rows at the options' weights, bit for bit
 */
static void
auto_compact(const AutoData *a, const GLMParams *p, int part, GLMSolveDesign *X)
{
	const int64 *v = auto_counts(a, part);
	int64		m = 0;

	*X = *a->X;
	for (int64 k = 0; k < a->nobs; k++)
		if (v[k] > 0)
		{
			a->prow[m] = a->X->row[k];
			a->py[m] = a->y[k];
			a->pcnt[m++] = (double) v[k] * auto_weight(a, p, k);
		}
	X->nobs = m;
	X->row = a->prow;
	X->y = a->py;
	X->cnt = a->pcnt;
}

/* r's candidate on one part (0..K), or on all rows (part < 0), into theta */
static void
auto_train(gsl_rng *rng, const AutoRun *r, AutoData *a, int part, double *work,
		   double *theta, int64 ledger_id)
{
	GLMSolveDesign X;
	const int64 *v = auto_counts(a, part);

	/* r's class weights may be estimated in this run: the counts are weighted here */
	memset(theta, 0, sizeof(double) * a->pp);
	if (r->cand->kind == GLM_KIND_LOGISTIC)
	{
		auto_compact(a, &r->p, part, &X);
		glm_release_point(rng, &r->p, &r->c, &X, work, theta, a->pp, ledger_id);
		return;
	}
	/* zero counts add nothing to noisy GD's gradient sums, nor to another's (bin) sums */
	for (int64 k = 0; k < a->nobs; k++)
		a->scnt[k] = (double) v[k] * auto_weight(a, &r->p, k);
	if (r->cand->ops != NULL)
	{
		DPKeptDesign D = {.pp = a->pp, .X = a->Xd, .cnt = a->scnt, .y = a->y, .nobs = a->nobs};
		OpParams	q;

		r->cand->ops->train(r->fit, &D, auto_op_params(&r->p, &q), rng, ledger_id);
		return;
	}
	noisysgd_descend(&r->p, a->Xd, a->scnt, a->y, a->nobs, a->pp, r->T, r->lattice,
					 r->sigma2, r->denom, rng, ledger_id, theta);
}

/*
 * A row's integer weight in the score: 1 for "accuracy"; for
 * "weighted_accuracy" its label's public class weight w in (0, 1] as
 * round(w 2^b) in [0, 2^b] (docs/PRIVACY.md, "Private model selection");
 * for "balanced_accuracy" set by auto_balance.
 */
static int64
auto_score_weight(const GLMParams *p, bool positive)
{
	if (p->auto_metric != OP_METRIC_WEIGHTED)
		return 1;
	return (int64) rint(ldexp(positive ? p->weight_pos : p->weight_neg,
							  OP_WEIGHT_BITS));
}

/*
 * The balance estimate: noisy counts of the positive and negative rows (each
 * moved by at most one row: the pair is eps-DP at scale 2 / eps; by size the
 * discrete Gaussian pair of operating.c, at its rho), and from
 * them (post-processing) for "balanced_accuracy" the score weights, integers
 * in [2^(b - 6), 2^b] proportional to 1 / count.  Without "class_weight" the
 * same weights, w = W / 2^b in (0, 1], become the candidates' and the
 * retrain's class weights: fixed before any of their noise.
 */
static void
auto_balance(gsl_rng *rng, AutoData *a, AutoNoise *z, const GLMParams *p,
			 AutoRun *sel, AutoRun *fin)
{
	int64		c[2] = {0, 0},
				w[2];

	for (int64 k = 0; k < a->nobs; k++)
		c[a->y[k] > 0 ? 0 : 1] += a->icnt[k];
	if (p->auto_by_size)
	{
		operating_estimate(&z->op, rng, c[0], c[1]);
		w[0] = z->op.w[0];
		w[1] = z->op.w[1];
	}
	else
		autosel_noisy_balance_weights(rng, c[0], c[1], z->bnum, z->bden, OP_WEIGHT_BITS,
									  OP_BALANCE_MIN_WEIGHT, &w[0], &w[1]);
	if (p->auto_metric != OP_METRIC_BALANCED)
		return;
	a->wscore[0] = w[0];
	a->wscore[1] = w[1];
	if (!p->auto_balance_train)
		return;
	for (int j = 0; j < 2 * a->K; j++)
	{
		AutoRun    *r = j < a->K ? &sel[j] : &fin[j - a->K];

		r->p.weight_pos = ldexp((double) a->wscore[0], -OP_WEIGHT_BITS);
		r->p.weight_neg = ldexp((double) a->wscore[1], -OP_WEIGHT_BITS);
	}
}

/*
 * The score of theta (or of r's fit, another family's candidate) on part 0:
 * the summed integer weights of the rows it classifies right (a margin > 0
 * is positive).
 */
static int64
auto_score(const AutoData *a, const double *theta, const AutoRun *r)
{
	int64		right = 0,
				wpos = a->wscore[0],
				wneg = a->wscore[1];

	for (int64 k = 0; k < a->nobs; k++)
	{
		const double *x = a->Xd + (Size) k * a->pp;
		double		z = 0;

		if (a->part[k] == 0)
			continue;
		if (r->fit != NULL)
			z = r->cand->ops->margin(r->fit, x);
		for (int j = 0; r->fit == NULL && j < a->pp; j++)
			z += theta[j] * x[j];
		if ((z > 0) == (a->y[k] > 0))
			right += a->part[k] * (a->y[k] > 0 ? wpos : wneg);
	}
	return right;
}

/*
 * Noisy GD's or ebm's head start in score units: h (option
 * "noisysgd_head_start", "ebm_head_start") times the selection's Laplace
 * scale num/den, rounded.  A public constant added to the score before the
 * noise: report noisy max stays eps_s-DP for any fixed offsets
 * (docs/PRIVACY.md, "Private model selection").  Why: candidates train on a
 * (K + 1)-th of the rows at the selection's share of epsilon, a regime where
 * objective perturbation scores as well as noisy GD and noisy GD as well as
 * ebm, while retrained at the final budget noisy GD is as good or better on
 * every measured table, and ebm better still (glmparams.h; bench/ebm).
 */
static int64
auto_head_start(const GLMParams *p, const AutoNoise *z, const DPAutoPick *cand)
{
	/* another family's candidate (ebm, gbdt): "ebm_head_start", else noisy GD's */
	double		h = cand->ops != NULL ? p->auto_ebm_head_start : p->auto_head_start;

	return (int64) llround(h * (double) z->num / (double) z->den);
}

/*
 * By size: the last candidate (bit order: ebm) when the smaller noisy count,
 * less GLM_AUTO_SIZE_SDS of its noise's public sd, times epsilon per unit
 * reaches GLM_AUTO_SIZE_MIN, else the first
 */
static int
auto_size_pick(const GLMParams *p, const AutoData *a, const OpRun *op)
{
	double		m = Min(op->noisy[0], op->noisy[1]) - GLM_AUTO_SIZE_SDS * opoint_noise_sd(&op->z);

	return m * p->epsilon / p->rows_per_unit >= GLM_AUTO_SIZE_MIN ? a->K - 1 : 0;
}

/* steps 1-3: partition, the balance estimate, candidates on their parts, report noisy max */
static int
auto_select(gsl_rng *rng, const GLMParams *p, AutoRun *sel, AutoRun *fin, AutoData *a,
			AutoNoise *z, double *work, double *theta, int64 ledger_id)
{
	int64		score[AUTO_MAX];

	if (!p->auto_by_size)
		auto_partition(rng, a);
	a->wscore[0] = auto_score_weight(p, true);
	a->wscore[1] = auto_score_weight(p, false);
	if (z->beps > 0 || p->auto_by_size)
		auto_balance(rng, a, z, p, sel, fin);
	if (p->auto_by_size)
		return auto_size_pick(p, a, &z->op);
	for (int j = 0; j < a->K; j++)
	{
		auto_train(rng, &sel[j], a, j + 1, work, theta, ledger_id);
		score[j] = auto_score(a, theta, &sel[j]);
		if (sel[j].cand->kind != GLM_KIND_LOGISTIC)
			score[j] += auto_head_start(p, z, sel[j].cand);
	}
	memset(theta, 0, sizeof(double) * a->pp);
	return autosel_noisy_max(rng, score, a->K, z->num, z->den);
}

/*
 * Another family's choice's params: the run's GLM options a linear choice
 * shows (the same keys whatever the choice, which is a DP output), then its own
 */
static void
auto_params_other(StringInfo buf, const GLMParams *fp, const AutoRun *r)
{
	OpParams	q;

	model_params_text(buf, "loss", fp->loss == GLM_LOSS_LOGISTIC ? "logistic" :
					  fp->loss == GLM_LOSS_HUBER ? "huber" : "hinge");
	model_params_float(buf, "R", fp->R);
	model_params_bool(buf, "intercept", fp->intercept);
	if (fp->loss == GLM_LOSS_HUBER)
		model_params_float(buf, "h", fp->h);
	r->cand->ops->params(buf, r->fit, auto_op_params(fp, &q));
}

/* the public parameters: the selection's, then the chosen mechanism's own */
static void
auto_params(StringInfo buf, const GLMParams *p, int K, const AutoRun *sel,
			const AutoRun *fin, const AutoNoise *z, const AutoData *a, int d, const OpRun *op)
{
	int			b = auto_weighted_score(p) ? OP_WEIGHT_BITS : 0;
	GLMParams	fp;

	model_params_begin(buf);
	model_params_text(buf, "selected", fin->name);
	appendStringInfoString(buf, ", \"candidates\": [");
	for (int j = 0; j < K; j++)
		appendStringInfo(buf, "%s\"%s\"", j > 0 ? ", " : "", sel[j].name);
	appendStringInfoChar(buf, ']');
	/* the selection's public budget and scales: none by size, its rule instead */
	model_params_float(buf, "select_share", p->select_share);
	if (p->auto_by_size)
	{
		model_params_float(buf, "select_size_min", GLM_AUTO_SIZE_MIN);
		model_params_float(buf, "select_size_sds", GLM_AUTO_SIZE_SDS);
	}
	else
	{
		model_params_float(buf, "select_epsilon", sel[0].p.epsilon);
		model_params_float(buf, "select_delta", sel[0].p.delta);
	}
	model_params_text(buf, "metric", operating_metric_names[p->auto_metric - 1]);
	if (!p->auto_by_size)
	{
		/* in rows (a weight of 1), whatever the score's integer units */
		model_params_float(buf, "select_laplace_scale", ldexp((double) z->num / (double) z->den, -b));
		if (p->auto_candidates & GLM_AUTO_NOISYSGD)
			model_params_float(buf, "noisysgd_head_start", p->auto_head_start);
		if (p->auto_candidates & (GLM_AUTO_EBM | GLM_AUTO_GBDT))
			model_params_float(buf, "ebm_head_start", p->auto_ebm_head_start);
	}
	/* the balance estimate's public scale and use, and what it gave (a DP output) */
	if (z->beps > 0)
	{
		model_params_float(buf, "balance_epsilon", z->beps);
		model_params_float(buf, "balance_laplace_scale", (double) z->bnum / (double) z->bden);
		model_params_text(buf, "balance_weight_use",
						  p->auto_balance_train ? "score and training" : "score");
		model_params_float(buf, "balance_weight_true", ldexp((double) a->wscore[0], -b));
		model_params_float(buf, "balance_weight_false", ldexp((double) a->wscore[1], -b));
	}
	model_params_float(buf, "final_epsilon", fin->p.epsilon);
	model_params_float(buf, "final_delta", fin->p.delta);
	operating_params(buf, op, false);
	/* "class_weight_*" stay the options' (public): estimated ones are balance_weight_* */
	fp = fin->p;
	fp.weight_pos = p->weight_pos;
	fp.weight_neg = p->weight_neg;
	if (fin->cand->ops != NULL)
		auto_params_other(buf, &fp, fin);
	else if (fin->cand->kind == GLM_KIND_SGD)
		noisysgd_params_body(buf, &fp, d, fin->T, fin->s, fin->rho, fin->lattice);
	else
		glm_calibration_params(buf, &fp, &fin->c, d);
	model_params_end(buf);
}

/* a selection run's calibrations, data and buffers (DPRun.work) */
typedef struct AutoWork
{
	AutoRun		sel[AUTO_MAX],
				fin[AUTO_MAX];
	AutoData	a;
	int			K;
	AutoNoise	z;
	double	   *work,
			   *theta;
	int			chosen;
	OpRun		op;				/* the released model's operating point, for "metric" */
} AutoWork;

/* public calibrations, then every allocation at its largest: before the charge */
static void
auto_calibrate(DPRun *run)
{
	GLMState   *state = run->state;
	GLMParams  *p = &state->params;
	AutoWork   *w = palloc0(sizeof(AutoWork));

	w->K = auto_prepare_all(p, state->options, state->rows.d, w->sel, w->fin, &w->z);
	auto_data(state, w->K, w->fin, &w->a);
	w->work = glm_minimise_work(w->a.pp);
	w->theta = palloc0(sizeof(double) * w->a.pp);
	/* one run of (eps, delta), approximate DP */
	mechanism_calibrated(run, w, "auto", p->epsilon, p->delta);
}

static void
auto_compute(DPRun *run)
{
	GLMParams  *p = &((GLMState *) run->state)->params;
	AutoWork   *w = run->work;

	w->chosen = auto_select(run->rng, p, w->sel, w->fin, &w->a, &w->z, w->work, w->theta,
							run->ledger_id);
	auto_train(run->rng, &w->fin[w->chosen], &w->a, -1, w->work, w->theta, run->ledger_id);
	run->detail = "auto";
	/*
	 * The cut-off for "metric": the retrain's weights out of the margin, the
	 * cut the candidates were scored at back in.  That is the balance's for
	 * balanced_accuracy without "class_weight"; with it the candidates train
	 * with the given weights and were scored at their 0 (the estimate only
	 * weighs the scores), so the cut stays the weights' as before 0.6.0.
	 */
	/* by size: the estimate's plan and counts released with the model (operating.h) */
	if (p->auto_by_size)
		w->op = w->z.op;
	else
		memset(&w->op, 0, sizeof(w->op));
	w->op.metric = p->auto_metric == OP_METRIC_BALANCED && !p->auto_balance_train ?
		OP_METRIC_WEIGHTED : p->auto_metric;
	operating_finish(&w->op, OPERATING_CLASS_W(p), OPERATING_CLASS_W(&w->fin[w->chosen].p),
					 w->a.wscore);
}

static Datum
auto_release(DPRun *run)
{
	GLMState   *state = run->state;
	GLMParams  *p = &state->params;
	AutoWork   *w = run->work;
	const AutoRun *fin = &w->fin[w->chosen];
	StringInfoData params;

	auto_params(&params, p, w->K, w->sel, &w->fin[w->chosen], &w->z, &w->a, state->rows.d, &w->op);
	/* another family's model (an additive one: its "terms" in the params, kinds.h) */
	if (fin->fit != NULL)
		return fin->cand->ops->model(run->fcinfo, "auto", fin->fit, w->op.shift, p->epsilon,
									 p->delta, &params);
	return glm_model_shifted(run, "auto", w->theta, &params, w->op.shift);
}

MECHANISM_FINAL_FUNCTION(dpobj_auto_finalfn,
						 .admit = glm_admit, .kind = GLM_KIND_AUTO,
						 .calibrate = auto_calibrate, .compute = auto_compute,
						 .release = auto_release)
