/*-------------------------------------------------------------------------
 *
 * gbdt.c
 *	  Private boosted trees: dpobj.dp_gbdt(features, label, epsilon, delta,
 *	  options), a yes/no label (logit link).
 *
 * The rows are kept (gbdtstate.c: not clipped, spilled past the cap,
 * replayed in blocks).  The terms come from the option "groups" as ebm's
 * (dpobj.train() derives them from the declared domains: a one-hot group
 * per categorical, a numeric term per numeric column binned over [lo, hi],
 * at private edges by default; core/additive.h).  After the edges and the
 * additive rounds (gbdtadditive.c) each of "trees" rounds grows one
 * oblivious tree of "depth" levels (every node of a level splits on the
 * same term and bin):
 *   a split pass ("split_passes" of them): the sums of each row's clipped
 *     gradient g = clip(y - sigmoid(margin), c) and hessian
 *     h = sigmoid'(margin) (times its count) per (node, term, bin),
 *     released with discrete Gaussian noise; the level's split is the
 *     (term, bin) whose gain, summed over the nodes, G_L^2 / (H_L + l) +
 *     G_R^2 / (H_R + l) - G^2 / (H + l) is largest on the noisy sums (l:
 *     "reg" hessian-noise sds); the last pass splits every level left, on
 *     the next best terms;
 *   the leaves: one pass, each leaf's sums released the same way, its
 *     value the learning rate times the Newton step G / (H + l).
 * Everything after the releases is post-processing.  A row is in one node
 * per level and one bin of each term, so replacing it moves a pass's
 * gradient sums of a term by at most 2c and its hessian sums by sqrt 2 / 4
 * (k times that for a unit of k rows); the histogram releases at an equal
 * share each of split_share rho, the leaves' at the rest, and the edges'
 * compose to the run's rho (docs/PRIVACY.md "Boosted trees"), less a
 * balance estimate's share (operating.c).
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpobj.h"

#include <math.h>

#include "base/calibsql.h"
#include "base/dpnumeric.h"
#include "core/dpnoise.h"
#include "families/gbdt/gbdt.h"
#include "mechanisms/keptoptions.h"
#include "mechanisms/classweights.h"
#include "mechanisms/keptstate.h"
#include "mechanisms/mechanism.h"
#include "model/model.h"
#include "state/rowinput.h"
#include "utils/float.h"

PG_FUNCTION_INFO_V1(dpobj_gbdt_finalfn);
PG_FUNCTION_INFO_V1(dpobj_gbdt_reg_finalfn);



/* a row's hessian: w sigma'(z) <= 1/4 (logit), w <= 1 (identity); a sum's l2 sensitivity */
static double
gbdt_hess_sens(const GBDTFit *r)
{
	return r->regression ? sqrt(2.0) : sqrt(2.0) / 4.0;
}

/* the noise of one kind of release (sensitivity s per row) */
static bool
gbdt_noise(double s, double rho, int coords, int64 releases, int k, double *lattice,
		   uint64 *sigma2)
{
	dpnoise_gaussian_lattice_summed(s * k, rho, coords, releases, k, lattice, sigma2);
	return *sigma2 > 0;
}

/* the run's noise from public inputs only; refused outside the sampler's range */
static void
gbdt_calibration(const OpParams *p, GBDTFit *r)
{
	const double shrink = 1.0 - ldexp(1.0, -40);
	const double hs = gbdt_hess_sens(r);
	double		rs,
				rl,
				rest;
	int			k = p->rows_per_unit;
	int64		levels = (int64) r->gp.trees * r->gp.split_passes * r->nuse;
	/* the additive rounds: a gradient release each, one hessian-bound release */
	int64		ng = levels + (int64) r->gp.additive_rounds * r->nterms;
	int64		nh = levels + (r->gp.additive_rounds > 0 ? r->nterms : 0);
	int			coords = (1 << (r->gp.depth - 1)) * r->maxsize;

	r->rho = dpobj_zcdp_rho_checked("dp_gbdt", p->epsilon, p->delta);
	operating_plan_rho(&r->op, OPERATING_PLAN_OF(p), &r->rho);
	/* private edges first, bin_share of the fit's rho */
	rest = r->rho;
	if (r->gp.private_bins)
	{
		r->edges.rho = r->rho * r->gp.bin_share * shrink;
		rest = r->rho * (1.0 - r->gp.bin_share) * shrink;
	}
	/*
	 * then four shares of the rest: the histograms' (split_share, the same
	 * for each of their ng + nh releases) and the leaves' two halves
	 */
	rs = rest * r->gp.split_share * shrink / (double) (ng + nh);
	rl = rest * (1.0 - r->gp.split_share) * shrink / 2;
	if (!gbdt_noise(2.0 * r->clip, rs * ng, coords, ng, k, &r->split_lattice[GBDT_G],
					&r->split_sigma2[GBDT_G]) ||
		!gbdt_noise(hs, rs * nh, coords, nh, k, &r->split_lattice[GBDT_H],
					&r->split_sigma2[GBDT_H]) ||
		!gbdt_noise(2.0 * r->clip, rl, gbdt_leaves(r), r->gp.trees, k,
					&r->leaf_lattice[GBDT_G], &r->leaf_sigma2[GBDT_G]) ||
		!gbdt_noise(hs, rl, gbdt_leaves(r), r->gp.trees, k, &r->leaf_lattice[GBDT_H],
					&r->leaf_sigma2[GBDT_H]))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("dp_gbdt: the noise is outside the exact sampler's range"),
				 errhint("Use a larger epsilon or fewer \"trees\".")));
	operating_check(&r->op, "dp_gbdt");
}

/* the layout, noise and buffers: public inputs only, refused before any row */
static void
gbdt_fit_init(GBDTFit *r, Jsonb *options, const OpParams *p, int d, bool regression)
{
	memset(r, 0, sizeof(GBDTFit));
	r->regression = regression;
	r->d = d;
	gbdtparams_init(options, d, regression, &r->gp, &r->terms, &r->nterms, &r->nscores);
	r->maxsize = 1;
	for (int t = 0; t < r->nterms; t++)
		r->maxsize = Max(r->maxsize, r->terms[t].size);
	r->clip = r->gp.residual_clip;
	r->nuse = r->gp.tree_terms > 0 ? Min(r->gp.tree_terms, r->nterms) : r->nterms;
	r->use = palloc0(sizeof(bool) * r->nterms);
	gbdt_calibration(p, r);
	if (r->gp.private_bins)
		privedges_init(&r->edges, r->terms, r->nterms, r->gp.bins, EBM_BIN_GRID,
					   p->rows_per_unit, r->nscores, "dp_gbdt",
					   "Use a larger epsilon or \"bin_share\", or \"binning\": \"uniform\".");
	/* the trees, and at most a step tree per bin of each term */
	r->ntrees = r->gp.trees + (r->gp.additive_rounds > 0 ? r->nscores : 0);
	r->splits = palloc0(sizeof(GBDTSplit) * r->ntrees * r->gp.depth);
	r->leaves = palloc0(sizeof(double) * r->ntrees * gbdt_leaves(r));
	r->scores = palloc0(sizeof(double) * r->nscores);
	r->acc = dp_palloc0_int128(Max((Size) 2 * gbdt_leaves(r) * r->nscores,
								   (Size) r->edges.fine_scores), NULL);
	r->hist = palloc0(sizeof(double) * 2 * gbdt_leaves(r) * r->nscores);
}

void
gbdt_check_args(const char *aggname, double epsilon, double delta, int d, Jsonb *options)
{
	OpParams	p;
	GBDTFit		r;
	bool		reg = keptoptions_regression(options);

	dp_check_privacy_params(epsilon, delta);
	dp_check_dimension(aggname, d);
	gbdtparams_run(reg, &p, epsilon, delta, options);
	gbdt_fit_init(&r, options, &p, d, reg);
}

TrainLabel
gbdt_label_kind(Jsonb *options)
{
	return keptoptions_regression(options) ? TRAIN_LABEL_REAL : TRAIN_LABEL_BOOLEAN;
}

/*
 * A pass's work is mostly the margin over the trees so far, so each pass
 * keeps the observations' margins (8 bytes each) within a cache's share of
 * dpobj.max_state_memory (keptstate.h) and the next adds only the trees
 * since; the rest are computed again.  Every pass reads the observations in the same order
 * and the margin sums the trees in order either way (the bias is 0 during
 * the fit), so the model is the same.
 */
static void
gbdt_margin_budget(GBDTFit *r, const DPKeptState *state)
{
	r->zcap = KEPT_CACHE_BYTES() / (int64) sizeof(double);
	/* in memory, a row is at most two observations (positive and negative counts) */
	if (!keptrows_spilled(&state->rows))
		r->zcap = Min(r->zcap, 2 * (int64) state->rows.nrows);
	r->zc = r->zcap > 0 ? palloc_extended(sizeof(double) * r->zcap, MCXT_ALLOC_HUGE |
										  MCXT_ALLOC_ZERO) : NULL;
	r->ztrees = 0;
}

static void
gbdt_calibrate(DPRun *run)
{
	DPKeptState *state = run->state;
	OpParams   *p = &state->params;
	GBDTFit    *r = palloc(sizeof(GBDTFit));
	bool		reg = state->kind == KEPT_KIND_REG;

	gbdt_fit_init(r, state->options, p, state->rows.d - (reg ? 1 : 0), reg);
	/* the design before the charge; a spilled state's in blocks, within the cap */
	keptdesign_begin(&r->D, &state->rows, false, OPERATING_CLASS_W(p));
	gbdt_margin_budget(r, state);
	/* and their bins within another (keptbins.h) */
	keptbins_init(&r->kb, r->nterms, 0, KEPT_CACHE_BYTES(), &state->rows);
	mechanism_calibrated(run, r, "gbdt", p->epsilon, p->delta);
}

/* a side's score G^2 / (H + l), the noisy hessian at least 0 */
static inline double
gbdt_score(double G, double H, double l)
{
	return G * G / (Max(H, 0.0) + l);
}

/*
 * The gain of splitting term t at `at` summed over the level's nodes (the
 * noisy sums G at hist, H at hist + n)
 */
static double
gbdt_gain(const GBDTFit *r, int nodes, int n, const EBMTerm *e, int at, double l)
{
	double		gain = 0;

	for (int v = 0; v < nodes; v++)
	{
		const double *G = r->hist + v * r->nscores + e->offset;
		const double *H = G + n;
		double		g[2] = {0, 0},
					h[2] = {0, 0};

		for (int b = 0; b < e->size; b++)
		{
			bool		right = e->type == EBM_TERM_NUMERIC ? b >= at : b == at;

			g[right] += G[b];
			h[right] += H[b];
		}
		gain += gbdt_score(g[0], h[0], l) + gbdt_score(g[1], h[1], l) -
			gbdt_score(g[0] + g[1], h[0] + h[1], l);
	}
	return gain;
}

/*
 * The best noisy gain of level `level`'s released sums (n of each kind)
 * among the terms this tree considers, less those `taken`
 */
static void
gbdt_best(GBDTFit *r, int level, int n, const bool *taken, double l, GBDTSplit *s)
{
	s->gain = -INFINITY;
	for (int t = 0; t < r->nterms; t++)
	{
		const EBMTerm *e = &r->terms[t];

		if (!r->use[t] || taken[t])
			continue;
		for (int at = e->type == EBM_TERM_NUMERIC ? 1 : 0; at < e->size; at++)
		{
			double		gain = gbdt_gain(r, 1 << level, n, e, at, l);

			if (gain > s->gain)
				*s = (GBDTSplit) {.term = t, .at = at, .gain = gain};
		}
	}
	/* every term a single bin, or taken: a split no row takes */
	if (s->gain == -INFINITY)
		*s = (GBDTSplit) {.term = 0, .at = r->terms[0].size, .gain = 0};
}

/*
 * Level `level` of tree tr: its sums released, its split the best noisy
 * gain; the last pass of a tree ("split_passes" below depth) splits every
 * level left, each on the next best term by the same sums
 */
static void
gbdt_level(GBDTFit *r, gsl_rng *rng, int tr, int level, double l)
{
	int			n = (1 << level) * r->nscores;
	int			last = level == r->gp.split_passes - 1 ? r->gp.depth : level + 1;
	bool	   *taken = palloc0(sizeof(bool) * r->nterms);

	gbdt_release(r, rng, n, r->split_lattice, r->split_sigma2);
	for (int v = level; v < last; v++)
	{
		GBDTSplit  *s = &r->splits[tr * r->gp.depth + v];

		gbdt_best(r, level, n, taken, l, s);
		taken[s->term] = true;
	}
	pfree(taken);
}

/* the leaves of tree tr: the Newton step G / (H + l) of their noisy sums */
static void
gbdt_tree_leaves(GBDTFit *r, gsl_rng *rng, int tr, double l)
{
	int			L = gbdt_leaves(r);

	gbdt_release(r, rng, L, r->leaf_lattice, r->leaf_sigma2);
	for (int v = 0; v < L; v++)
		r->leaves[tr * L + v] = r->gp.learning_rate * r->hist[v] /
			(Max(r->hist[L + v], 0.0) + l);
}

/*
 * The terms tree's splits consider: nuse of them uniformly at random
 * (selection sampling), drawn from the noise source; public, as no row
 * is read
 */
static void
gbdt_draw_terms(GBDTFit *r, gsl_rng *rng)
{
	int			left = r->nuse;

	for (int t = 0; t < r->nterms; t++)
	{
		r->use[t] = gsl_rng_uniform(rng) * (r->nterms - t) < left;
		left -= r->use[t];
	}
}

/* the trees on r->D (a yes/no label) */
static void
gbdt_fit(GBDTFit *r, gsl_rng *rng, int64 ledger_id)
{
	double		su[2] = {ldexp(1.0 / r->split_lattice[GBDT_G], DPNOISE_SUM_BITS),
	ldexp(1.0 / r->split_lattice[GBDT_H], DPNOISE_SUM_BITS)};
	double		lu[2] = {ldexp(1.0 / r->leaf_lattice[GBDT_G], DPNOISE_SUM_BITS),
	ldexp(1.0 / r->leaf_lattice[GBDT_H], DPNOISE_SUM_BITS)};
	/* the regularisers: "reg" hessian-noise sds, public */
	double		ls = r->gp.reg * sqrt((double) r->split_sigma2[GBDT_H]) *
		r->split_lattice[GBDT_H];
	double		ll = r->gp.reg * sqrt((double) r->leaf_sigma2[GBDT_H]) *
		r->leaf_lattice[GBDT_H];
	double		small;

	r->bias = 0;
	if (r->gp.private_bins)
	{
		mechanism_poll(ledger_id);
		gbdt_edges(r, rng);
	}
	/* on a small table (by the rounds' released hessian bounds) more of both */
	small = gbdt_additive(r, rng, su, ls, ledger_id);
	ls *= small;
	ll *= small;
	for (int tr = 0; tr < r->gp.trees; tr++)
	{
		gbdt_draw_terms(r, rng);
		for (int level = 0; level < r->gp.split_passes; level++)
		{
			mechanism_poll(ledger_id);
			gbdt_pass(r, tr, level, su, GBDT_HESS_MARGIN);
			gbdt_level(r, rng, tr, level, ls);
		}
		mechanism_poll(ledger_id);
		gbdt_pass(r, tr, r->gp.depth, lu, GBDT_HESS_MARGIN);
		gbdt_tree_leaves(r, rng, tr, ll);
	}
	gbdt_steps(r);
}

/*
 * The balance estimate (operating.h) and the weights the fit then trains
 * with (balanced accuracy without "class_weight"), the fit, and the margin
 * without the weights' odds
 */
static void
gbdt_compute(DPRun *run)
{
	GBDTFit    *r = run->work;
	const OpParams *p = &((DPKeptState *) run->state)->params;
	double		train_w[2] = {p->weight_pos, p->weight_neg};

	if (r->regression)
	{
		gbdt_fit(r, run->rng, run->ledger_id);
		run->detail = "gbdt";
		return;
	}
	if (r->op.estimate)
	{
		int64		c[2];

		keptdesign_label_counts(&r->D, train_w, c);
		operating_estimate(&r->op, run->rng, c[0], c[1]);
		if (p->balance_train)
		{
			operating_weights(&r->op, train_w);
			keptdesign_weigh(&r->D, train_w[0], train_w[1]);
		}
	}
	gbdt_fit(r, run->rng, run->ledger_id);
	operating_finish(&r->op, OPERATING_CLASS_W(p), train_w, r->op.w);
	r->bias -= r->op.shift;
	run->detail = "gbdt";
}

/* "splits": each tree's levels in order, as predict reads them (gbdtmodel.c) */
static void
gbdt_params_splits(StringInfo buf, const GBDTFit *r)
{
	appendStringInfoString(buf, ", \"splits\": [");
	for (int i = 0; i < r->ntrees * r->gp.depth; i++)
	{
		const GBDTSplit *s = &r->splits[i];
		const EBMTerm *e = &r->terms[s->term];

		int			at = s->at;

		/* private edges: the split at the cell its bin starts, of the grid */
		if (e->type == EBM_TERM_NUMERIC && e->map != NULL)
			at = privedges_cell(&r->edges, r->terms, s->term, at);
		if (e->type == EBM_TERM_NUMERIC)
			appendStringInfo(buf, "%s{\"index\": %d, \"lo\": %.17g, \"hi\": %.17g, \"bins\": %d",
							 i == 0 ? "" : ", ", e->index, e->lo, e->hi, e->grid);
		else
			appendStringInfo(buf, "%s{\"index\": %d, \"size\": %d", i == 0 ? "" : ", ",
							 e->index, e->size);
		appendStringInfo(buf, ", \"at\": %d, \"gain\": %s}", at, float8out_internal(s->gain));
	}
	appendStringInfoChar(buf, ']');
}

static void
gbdt_params(StringInfo buf, const GBDTFit *r, const OpParams *p)
{
	model_params_text(buf, "link", r->regression ? "identity" : "logit");
	model_params_int(buf, "d", r->d);
	if (r->regression)
	{
		model_params_float(buf, "y_min", r->gp.y_min);
		model_params_float(buf, "y_max", r->gp.y_max);
	}
	model_params_int(buf, "additive_rounds", r->gp.additive_rounds);
	model_params_float(buf, "additive_rate", r->gp.additive_rate);
	model_params_int(buf, "trees", r->gp.trees);
	model_params_int(buf, "depth", r->gp.depth);
	model_params_int(buf, "split_passes", r->gp.split_passes);
	model_params_int(buf, "bins", r->gp.bins);
	model_params_float(buf, "learning_rate", r->gp.learning_rate);
	model_params_float(buf, "residual_clip", r->clip);
	model_params_float(buf, "split_share", r->gp.split_share);
	model_params_float(buf, "reg", r->gp.reg);
	model_params_text(buf, "binning", r->gp.private_bins ? "private" : "uniform");
	if (r->gp.private_bins)
	{
		model_params_float(buf, "bin_share", r->gp.bin_share);
		model_params_int(buf, "bin_grid", r->edges.grid);
		model_params_float(buf, "bin_sigma", sqrt((double) r->edges.sigma2) * r->edges.lattice);
	}
	model_params_float(buf, "rho", r->rho);
	model_params_float(buf, "sigma", sqrt((double) r->leaf_sigma2[GBDT_G]) *
					   r->leaf_lattice[GBDT_G]);
	model_params_float(buf, "split_sigma", sqrt((double) r->split_sigma2[GBDT_G]) *
					   r->split_lattice[GBDT_G]);
	model_params_text(buf, "noise", "discrete_gaussian");
	if (p->rows_per_unit > 1)
		model_params_int(buf, "rows_per_unit", p->rows_per_unit);
	if (p->sample_rows > 0)
		model_params_int(buf, "sample_rows", p->sample_rows);
	classweights_model_params(buf, p->weight_pos, p->weight_neg);
	gbdt_params_splits(buf, r);
}

static Datum
gbdt_release_model(DPRun *run)
{
	const OpParams *p = &((DPKeptState *) run->state)->params;
	GBDTFit    *r = run->work;
	StringInfoData params;

	if (r->regression)
	{
		/* the margin in the label's units: leaves and bias scaled back from [-1, 1] */
		double		half = (r->gp.y_max - r->gp.y_min) / 2.0;

		for (int j = 0; j < r->ntrees * gbdt_leaves(r); j++)
			r->leaves[j] *= half;
		r->bias = r->bias * half + (r->gp.y_max + r->gp.y_min) / 2.0;
	}
	model_params_begin(&params);
	gbdt_params(&params, r, p);
	if (!r->regression)
		operating_params(&params, &r->op, true);
	model_params_end(&params);
	return model_build(run->fcinfo, "gbdt", r->leaves, r->ntrees * gbdt_leaves(r), r->bias,
					   p->epsilon, p->delta, &params);
}

MECHANISM_FINAL_FUNCTION(dpobj_gbdt_finalfn,
						 .admit = gbdt_admit, .kind = KEPT_KIND_CLASS,
						 .calibrate = gbdt_calibrate, .compute = gbdt_compute,
						 .release = gbdt_release_model)

MECHANISM_FINAL_FUNCTION(dpobj_gbdt_reg_finalfn,
						 .admit = gbdt_admit, .kind = KEPT_KIND_REG,
						 .calibrate = gbdt_calibrate, .compute = gbdt_compute,
						 .release = gbdt_release_model)

/* ---- 'auto''s candidate "gbdt" (family.h): a fit on auto's design ---- */

static void *
gbdt_candidate_prepare(Jsonb *options, const OpParams *p, int d)
{
	GBDTFit    *r = palloc(sizeof(GBDTFit));

	gbdt_fit_init(r, options, p, d, false);
	return r;
}

/* auto's design is in memory: no margins nor bins kept (zcap 0, kb empty) */
static void
gbdt_candidate_train(void *fit, const DPKeptDesign *D, const OpParams *p, gsl_rng *rng,
					 int64 ledger_id)
{
	GBDTFit    *r = fit;

	r->D = *D;
	gbdt_fit(r, rng, ledger_id);
}

static void
gbdt_candidate_params(StringInfo buf, const void *fit, const OpParams *p)
{
	gbdt_params(buf, fit, p);
}

/* the trees' leaves and "splits" in the params (the boosted_trees kind) */
static Datum
gbdt_candidate_model(FunctionCallInfo fcinfo, const char *name, const void *fit, double shift,
					 double epsilon, double delta, StringInfo params)
{
	const GBDTFit *r = fit;

	return model_build(fcinfo, name, r->leaves, r->ntrees * gbdt_leaves(r), r->bias - shift,
					   epsilon, delta, params);
}

const DPCandidateOps gbdt_candidate = {
	.prepare = gbdt_candidate_prepare, .train = gbdt_candidate_train,
	.margin = gbdt_fit_margin, .params = gbdt_candidate_params,
	.model = gbdt_candidate_model
};

static const DPMechanism gbdt_mechanisms[] = {GBDT_FAMILY_MECHANISMS};

const DPFamily gbdt_family = DP_FAMILY(gbdt, gbdt_mechanisms,
									   .citus_options = keptrows_citus_options,
									   .model_kind = &gbdt_model_kind);
