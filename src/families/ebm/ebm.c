/*-------------------------------------------------------------------------
 *
 * ebm.c
 *	  Private additive boosting: dpobj.dp_ebm(features, label, epsilon,
 *	  delta, options), a yes/no label (logit link) or a float8 label within
 *	  public bounds y_min, y_max (identity link: the label scaled to [-1, 1]
 *	  and clipped; the model scaled back) (Nori, Caruana, Bu, Shen, Kulkarni,
 *	  ICML 2021).
 *
 * The rows are kept (ebmstate.h: not clipped, spilled past the cap,
 * replayed in blocks, state/keptrows.h).  The
 * terms come from the option "groups" (dpobj.train() derives it from the
 * run's encoding: a one-hot group per categorical, a numeric term per
 * numeric column, binned over [lo, hi]; core/additive.h).  The run:
 *   counts: one pass, each term's bin counts (class weights applied),
 *     released snapped with discrete Gaussian noise at count_share rho;
 *   T rounds ("rounds"): the per-bin sums of the residual y -
 *     sigmoid(margin), clipped to [-c, c] ("residual_clip": by default
 *     1/4, or 0.3 for a yes/no label on a table whose noisy counts total
 *     at least 32 sum-noise sds over c: ebm_size_clip), at the
 *     current model, released the same way -- every term's in one pass
 *     (default), or with "cyclic" one pass per term, each at the model
 *     its predecessors updated; each bin's score moves by the learning
 *     rate times its noisy mean residual shrunk by "shrinkage" sum-noise
 *     sds over c pseudo-rows (clamped to [-c, c]; by default 8, more on a
 *     table whose noisy counts total fewer rows, where a numeric term's
 *     steps are then also pooled, up to half, along a line across its bins:
 *     ebm_line_step), and the scores are centred into the bias.
 * Everything after the releases is post-processing.  Each release is a
 * sum of per-row terms of l2 norm at most c (a row is in one bin of a
 * term), so replacing a row moves it by 2c (sqrt 2 for the counts), k
 * times that for a unit of k rows; T x terms + terms releases compose to
 * rho(eps, delta) (core/additive.c; docs/PRIVACY.md "Additive boosting"), less
 * a yes/no label's balance estimate (operating.c) and, with private bins,
 * bin_share of the rest for the numeric terms' edges (ebmedges.c).
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpobj.h"

#include <math.h>

#include "base/calibsql.h"
#include "base/dpnumeric.h"
#include "core/dpnoise.h"
#include "core/additive.h"
#include "families/ebm/ebm.h"
#include "families/ebm/ebmparams.h"
#include "families/ebm/ebmstate.h"
#include "mechanisms/keptoptions.h"
#include "mechanisms/classweights.h"
#include "mechanisms/family.h"
#include "mechanisms/mechanism.h"
#include "model/model.h"
#include "state/rowinput.h"
#include "utils/float.h"

PG_FUNCTION_INFO_V1(dpobj_ebm_finalfn);
PG_FUNCTION_INFO_V1(dpobj_ebm_reg_finalfn);

/* the largest term */
static int
ebm_max_size(const EBMTerm *terms, int nterms)
{
	int			m = 1;

	for (int t = 0; t < nterms; t++)
		m = Max(m, terms[t].size);
	return m;
}

/* the run's noise from public inputs only; refused outside the sampler's range */
static void
ebm_calibration(const OpParams *p, EBMFit *r)
{
	double		rest;

	r->rho = dpobj_zcdp_rho_checked("dp_ebm", p->epsilon, p->delta);
	/* balanced accuracy: the label balance's estimate first, at its share of rho */
	operating_plan_rho(&r->op, OPERATING_PLAN_OF(p), &r->rho);
	rest = r->rho;
	/* then private edges, of the fit's rho: the shares sum to at most it */
	if (r->ep.private_bins)
	{
		r->edges.rho = r->rho * r->ep.bin_share * (1.0 - ldexp(1.0, -40));
		rest = r->rho * (1.0 - r->ep.bin_share) * (1.0 - ldexp(1.0, -40));
	}
	/* a yes/no label's default clip is one of two, each calibrated here */
	r->clip_by_size = r->ep.residual_clip < 0 && !r->regression;
	r->clip = r->ep.residual_clip < 0 ? EBM_CLIP : r->ep.residual_clip;
	if (!ebm_noise(rest, r->ep.count_share, r->nterms, ebm_max_size(r->terms, r->nterms),
				   r->ep.rounds, p->rows_per_unit, r->clip, &r->nz_base) ||
		(r->clip_by_size &&
		 !ebm_noise(rest, r->ep.count_share, r->nterms, ebm_max_size(r->terms, r->nterms),
					r->ep.rounds, p->rows_per_unit, EBM_CLIP_LARGE, &r->nz_large)))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("dp_ebm: the noise is outside the exact sampler's range"),
				 errhint("Use a larger epsilon or fewer \"rounds\".")));
	r->nz = r->nz_base;
	operating_check(&r->op, "dp_ebm");
}

void
ebm_check_args(const char *aggname, double epsilon, double delta, int d, Jsonb *options)
{
	OpParams	p;
	EBMFit		r;
	bool		reg = keptoptions_regression(options);

	dp_check_privacy_params(epsilon, delta);
	dp_check_dimension(aggname, d);
	ebmparams_run(reg, &p, epsilon, delta, options);
	ebm_fit_init(&r, options, &p, d, reg);
}

void
ebm_fit_init(EBMFit *r, Jsonb *options, const OpParams *p, int d, bool regression)
{
	memset(r, 0, sizeof(EBMFit));
	r->regression = regression;
	r->d = d;
	ebmparams_init(options, d, regression, &r->ep, &r->terms, &r->nterms, &r->nscores);
	r->max_scores = r->nscores;
	ebm_calibration(p, r);
	if (r->ep.private_bins)
		ebm_edges_init(r, p);
	r->shrinkage = r->ep.shrinkage < 0 ? EBM_SHRINKAGE : r->ep.shrinkage;
	r->scores = palloc0(sizeof(double) * r->max_scores);
	r->counts = palloc0(sizeof(double) * r->max_scores);
	r->sums = palloc0(sizeof(double) * r->max_scores);
	r->raw = palloc0(sizeof(double) * r->max_scores);
	r->acc = dp_palloc0_int128(Max(r->max_scores, r->edges.fine_scores), NULL);
}

/*
 * A pass's work is mostly binning and building the design's blocks, so the
 * passes keep the observations' bins within a cache's share of
 * dpobj.max_state_memory (keptstate.h, keptbins.h)
 */
static void
ebm_keep_budget(EBMFit *r, const EBMState *state)
{
	keptbins_init(&r->kb, r->nterms, 0, KEPT_CACHE_BYTES(), &state->rows);
}

static void
ebm_calibrate(DPRun *run)
{
	EBMState   *state = run->state;
	OpParams   *p = &state->params;
	EBMFit	   *r = palloc(sizeof(EBMFit));
	bool		reg = state->kind == EBM_KIND_REG;

	ebm_fit_init(r, state->options, p, state->rows.d - (reg ? 1 : 0), reg);
	/* the design before the charge; a spilled state's in blocks, within the cap */
	/* its counts carry the class weights */
	keptdesign_begin(&r->D, &state->rows, false, OPERATING_CLASS_W(p));
	ebm_keep_budget(r, state);
	mechanism_calibrated(run, r, "ebm", p->epsilon, p->delta);
}

/* a row's label: 1 or 0, or the float8 label scaled from [y_min, y_max] to [-1, 1] */
static inline double
ebm_label(const EBMFit *r, const DPKeptDesign *D, int64 k)
{
	return keptdesign_label(D, k, r->d, r->regression, r->ep.y_min, r->ep.y_max);
}

/* observation pos of the pass: its index into the scores per term, kept if the next */
static inline void
ebm_row_index(EBMFit *r, int64 pos, const DPKeptDesign *D, int64 k, int *idx)
{
	keptbins_index(&r->kb, r->terms, r->nterms, pos, D->X + (Size) k * D->pp, D->cnt[k],
				   ebm_label(r, D, k), idx);
}

/*
 * An observation's part of a pass: into each term's bin sum, cnt (counts)
 * or cnt times the clipped residual at the current scores (a round)
 */
static inline void
ebm_observe(EBMFit *r, const int *idx, double c, double y, bool residuals, int only,
			double per_unit)
{
	if (residuals)
	{
		double		z = r->bias;

		for (int t = 0; t < r->nterms; t++)
			z += r->scores[idx[t]];
		c *= ebm_residual(!r->regression, y, z, r->clip);
	}
	for (int t = 0; t < r->nterms; t++)
		if (only < 0 || t == only)
			ebm_acc_add(r->acc, idx[t], c, per_unit);
}

/* one pass over the observations: each term's bin sums (ebm_observe) */
static void
ebm_pass(EBMFit *r, bool residuals, int only, double per_unit)
{
	DPKeptDesign *D = &r->D;
	int		   *idx = palloc(sizeof(int) * r->nterms);
	int64		pos = 0;

	if (r->kb.all)
		for (int64 k = 0; k < r->kb.n; k++)
		{
			keptbins_kept(&r->kb, r->terms, r->nterms, k, idx);
			ebm_observe(r, idx, r->kb.cnt[k], r->kb.y[k], residuals, only, per_unit);
		}
	else
	{
		for (bool more = keptdesign_next(D, true); more;
			 more = keptdesign_next(D, false))
			for (int64 k = 0; k < D->nobs; k++, pos++)
			{
				/* each term's bin once: the margin and the sums read it */
				ebm_row_index(r, pos, D, k, idx);
				ebm_observe(r, idx, D->cnt[k], residuals ? ebm_label(r, D, k) : 0.0,
							residuals, only, per_unit);

			}
		keptbins_pass_end(&r->kb, pos);
	}
	pfree(idx);
}

/* the numeric terms' steps (all, or term only's) pooled along their bins by line_share */
static void
ebm_round_lines(EBMFit *r, int only, double shrink)
{
	for (int t = 0; t < r->nterms; t++)
	{
		const EBMTerm *e = &r->terms[t];

		if (e->type == EBM_TERM_NUMERIC && (only < 0 || t == only))
			ebm_line_step(r->sums + e->offset, e->size, r->raw + e->offset,
						  r->counts + e->offset, shrink, r->clip, r->line_share);
	}
}

/*
 * One release and update: every term's residual sums at the current model
 * (only < 0), or term only's (a cyclic round's step)
 */
static void
ebm_round(EBMFit *r, gsl_rng *rng, int64 ledger_id, int only, double min_count)
{
	int			off = only < 0 ? 0 : r->terms[only].offset;
	int			n = only < 0 ? r->nscores : r->terms[only].size;
	/* shrinkage sum-noise sds over c pseudo-rows */
	double		shrink = r->shrinkage * sqrt((double) r->nz.sum_sigma2) * r->nz.sum_lattice /
		r->clip;

	mechanism_poll(ledger_id);
	ebm_pass(r, true, only, ldexp(1.0 / r->nz.sum_lattice, DPNOISE_SUM_BITS));
	ebm_release_acc(rng, r->acc + off, n, DPNOISE_SUM_BITS, r->nz.sum_lattice,
					r->nz.sum_sigma2, r->sums + off);
	if (r->line_share > 0)
		memcpy(r->raw + off, r->sums + off, sizeof(double) * n);
	/* each bin's step (into sums) */
	ebm_term_step(r->sums + off, n, r->sums + off, r->counts + off, min_count, shrink,
				  r->clip);
	if (r->line_share > 0)
		ebm_round_lines(r, only, shrink);
	for (int j = off; j < off + n; j++)
		r->scores[j] += r->ep.learning_rate * r->sums[j];
	/* the same margins, the base rate in the bias */
	ebm_center(r->terms, r->nterms, r->scores, r->counts, &r->bias);
}

/* EBM_SHRINKAGE sum-noise sds over c at the base clip, as pseudo-rows */
static double
ebm_base_rows(const EBMFit *r)
{
	return EBM_SHRINKAGE * sqrt((double) r->nz_base.sum_sigma2) * r->nz_base.sum_lattice /
		(r->ep.residual_clip < 0 ? EBM_CLIP : r->ep.residual_clip);
}

/*
 * The default shrinkage by the table's size, from the released counts only
 * (post-processing): EBM_SHRINKAGE sum-noise sds over c, as pseudo-rows,
 * against the counts' total (ebm_shrinkage; bench/ebm/results.md)
 */
static double
ebm_small_shrinkage(const EBMFit *r)
{
	return ebm_shrinkage(EBM_SHRINKAGE, ebm_base_rows(r),
						 ebm_total_count(r->terms, r->nterms, r->counts));
}

/*
 * The default clip by the table's size, likewise from the released counts:
 * the sums' noise then the chosen clip's (both calibrated before the charge)
 */
static void
ebm_size_clip(EBMFit *r)
{
	r->nz = r->nz_base;
	r->clip = r->ep.residual_clip < 0 ? EBM_CLIP : r->ep.residual_clip;
	if (!r->clip_by_size)
		return;
	r->clip = ebm_clip_by_size(ebm_base_rows(r),
							   ebm_total_count(r->terms, r->nterms, r->counts));
	if (r->clip != EBM_CLIP)
		r->nz = r->nz_large;
}

void
ebm_fit(EBMFit *r, gsl_rng *rng, int64 ledger_id)
{
	/* a bin's noisy count is at least the counts' noise sd when divided by */
	double		min_count = Max(1.0, sqrt((double) r->nz.count_sigma2) * r->nz.count_lattice);
	double		unit = r->nz.count_lattice;

	memset(r->scores, 0, sizeof(double) * r->max_scores);
	r->bias = 0;
	/* a new design (auto fits more than one): nothing kept from another */
	keptbins_reset(&r->kb);
	/* the counts summed in units of the finer lattice, the edges' or theirs (powers of 2) */
	if (r->ep.private_bins)
	{
		unit = Min(unit, r->edges.lattice);
		r->nscores = privedges_begin(&r->edges, r->terms);
	}
	ebm_pass(r, false, -1, ldexp(1.0 / unit, DPNOISE_SUM_BITS));
	if (r->ep.private_bins)
		ebm_edges_release(r, rng, unit);
	ebm_release_acc(rng, r->acc, r->nscores,
					DPNOISE_SUM_BITS + ilogb(r->nz.count_lattice) - ilogb(unit),
					r->nz.count_lattice, r->nz.count_sigma2, r->counts);
	ebm_size_clip(r);
	if (r->ep.shrinkage < 0)
	{
		r->shrinkage = ebm_small_shrinkage(r);
		r->line_share = ebm_line_share(EBM_SHRINKAGE, r->shrinkage);
	}
	for (int round = 0; round < r->ep.rounds; round++)
	{
		if (r->ep.cyclic)
			for (int t = 0; t < r->nterms; t++)
				ebm_round(r, rng, ledger_id, t, min_count);
		else
			ebm_round(r, rng, ledger_id, -1, min_count);
	}
}

/*
 * The operating point's estimate before the fit (the label counts of the
 * design, its counts carrying the options' class weights), whose weights
 * the rows then train with (balanced accuracy without "class_weight");
 * into train_w the weights the fit's rows carry
 */
static void
ebm_balance(EBMFit *r, const OpParams *p, gsl_rng *rng, double train_w[2])
{
	int64		c[2];

	train_w[0] = p->weight_pos;
	train_w[1] = p->weight_neg;
	if (!r->op.estimate)
		return;
	keptdesign_label_counts(&r->D, train_w, c);
	operating_estimate(&r->op, rng, c[0], c[1]);
	if (!p->balance_train)
		return;
	operating_weights(&r->op, train_w);
	keptdesign_weigh(&r->D, train_w[0], train_w[1]);
}

/*
 * dp_ebm's run on r->D for p: a yes/no label's balance estimate (r->op,
 * planned by ebm_fit_init), the fit, and the margin without the weights'
 * odds (r->bias shifted by r->op.shift)
 */
static void
ebm_fit_operating(EBMFit *r, const OpParams *p, gsl_rng *rng, int64 ledger_id)
{
	double		train_w[2];

	ebm_balance(r, p, rng, train_w);
	ebm_fit(r, rng, ledger_id);
	/* a yes/no label: the margin without the weights' odds, and its cut-off */
	if (!r->regression)
	{
		operating_finish(&r->op, OPERATING_CLASS_W(p), train_w, r->op.w);
		r->bias -= r->op.shift;
	}
}

static void
ebm_compute(DPRun *run)
{
	ebm_fit_operating(run->work, &((EBMState *) run->state)->params, run->rng, run->ledger_id);
	run->detail = "ebm";
}

/* "terms": the layout, as predict reads it (public: from the options and d) */
static void
ebm_params_terms(StringInfo buf, const EBMFit *r)
{
	appendStringInfoString(buf, ", \"terms\": [");
	for (int t = 0; t < r->nterms; t++)
	{
		const EBMTerm *e = &r->terms[t];

		if (e->type == EBM_TERM_NUMERIC)
		{
			appendStringInfo(buf, "%s{\"type\": \"numeric\", \"index\": %d, \"lo\": %.17g, \"hi\": %.17g, \"bins\": %d",
							 t == 0 ? "" : ", ", e->index, e->lo, e->hi, e->size);
			if (e->map != NULL)
				privedges_term_params(buf, &r->edges, r->terms, t);
			appendStringInfoChar(buf, '}');
		}
		else
			appendStringInfo(buf, "%s{\"type\": \"categorical\", \"index\": %d, \"size\": %d}",
							 t == 0 ? "" : ", ", e->index, e->size);
	}
	appendStringInfoChar(buf, ']');
}

/*
 * "counts": each score's bin count as released (noisy, class-weighted, not
 * clamped), aligned with the weights; a DP output that explain() shows
 */
static void
ebm_params_counts(StringInfo buf, const EBMFit *r)
{
	appendStringInfoString(buf, ", \"counts\": [");
	for (int j = 0; j < r->nscores; j++)
	{
		if (j > 0)
			appendStringInfoString(buf, ", ");
		appendStringInfoString(buf, float8out_internal(r->counts[j]));
	}
	appendStringInfoChar(buf, ']');
}

void
ebm_fit_params(StringInfo buf, const EBMFit *r, const OpParams *p)
{
	model_params_text(buf, "link", r->regression ? "identity" : "logit");
	model_params_int(buf, "d", r->d);
	if (r->regression)
	{
		model_params_float(buf, "y_min", r->ep.y_min);
		model_params_float(buf, "y_max", r->ep.y_max);
	}
	model_params_int(buf, "bins", r->ep.bins);
	model_params_int(buf, "rounds", r->ep.rounds);
	model_params_float(buf, "learning_rate", r->ep.learning_rate);
	model_params_bool(buf, "cyclic", r->ep.cyclic);
	/* the default's value comes from the noisy counts: sigma shows it */
	if (r->clip_by_size)
		model_params_text(buf, "residual_clip", "by_size");
	else
		model_params_float(buf, "residual_clip", r->clip);
	model_params_float(buf, "count_share", r->ep.count_share);
	model_params_text(buf, "binning", r->ep.private_bins ? "private" : "uniform");
	if (r->ep.private_bins)
	{
		model_params_float(buf, "bin_share", r->ep.bin_share);
		model_params_int(buf, "bin_grid", r->edges.grid);
		model_params_float(buf, "bin_sigma", sqrt((double) r->edges.sigma2) * r->edges.lattice);
	}
	/* the option: the default's value comes from the noisy counts, in the scores only */
	if (r->ep.shrinkage < 0)
		model_params_text(buf, "shrinkage", "by_size");
	else
		model_params_float(buf, "shrinkage", r->ep.shrinkage);
	model_params_float(buf, "rho", r->rho);
	model_params_float(buf, "sigma", sqrt((double) r->nz.sum_sigma2) * r->nz.sum_lattice);
	model_params_float(buf, "count_sigma",
					   sqrt((double) r->nz.count_sigma2) * r->nz.count_lattice);
	model_params_float(buf, "lattice", r->nz.sum_lattice);
	model_params_text(buf, "noise", "discrete_gaussian");
	if (p->rows_per_unit > 1)
		model_params_int(buf, "rows_per_unit", p->rows_per_unit);
	if (p->sample_rows > 0)
		model_params_int(buf, "sample_rows", p->sample_rows);
	classweights_model_params(buf, p->weight_pos, p->weight_neg);
	ebm_params_terms(buf, r);
	ebm_params_counts(buf, r);
}

static Datum
ebm_release(DPRun *run)
{
	EBMState   *state = run->state;
	const OpParams *p = &state->params;
	EBMFit	   *r = run->work;
	StringInfoData params;

	if (r->regression)
	{
		/* the margin in the label's units: scores and bias scaled back from [-1, 1] */
		double		half = (r->ep.y_max - r->ep.y_min) / 2.0;

		for (int j = 0; j < r->nscores; j++)
			r->scores[j] *= half;
		r->bias = r->bias * half + (r->ep.y_max + r->ep.y_min) / 2.0;
	}
	model_params_begin(&params);
	ebm_fit_params(&params, r, p);
	if (!r->regression)
		operating_params(&params, &r->op, true);
	model_params_end(&params);
	return model_build(run->fcinfo, "ebm", r->scores, r->nscores, r->bias, p->epsilon,
					   p->delta, &params);
}

MECHANISM_FINAL_FUNCTION(dpobj_ebm_finalfn,
						 .admit = ebm_admit, .kind = EBM_KIND_CLASS,
						 .calibrate = ebm_calibrate, .compute = ebm_compute,
						 .release = ebm_release)

MECHANISM_FINAL_FUNCTION(dpobj_ebm_reg_finalfn,
						 .admit = ebm_admit, .kind = EBM_KIND_REG,
						 .calibrate = ebm_calibrate, .compute = ebm_compute,
						 .release = ebm_release)

TrainLabel
ebm_label_kind(Jsonb *options)
{
	return keptoptions_regression(options) ? TRAIN_LABEL_REAL : TRAIN_LABEL_BOOLEAN;
}

/* ---- 'auto''s candidate "ebm" (family.h): a fit on auto's design ---- */

static void *
ebm_candidate_prepare(Jsonb *options, const OpParams *p, int d)
{
	EBMFit	   *r = palloc(sizeof(EBMFit));

	ebm_fit_init(r, options, p, d, false);
	return r;
}

static void
ebm_candidate_train(void *fit, const DPKeptDesign *D, const OpParams *p, gsl_rng *rng,
					int64 ledger_id)
{
	EBMFit	   *r = fit;

	r->D = *D;
	ebm_fit(r, rng, ledger_id);
}

static double
ebm_candidate_margin(const void *fit, const double *x)
{
	const EBMFit *r = fit;

	return ebm_margin(r->terms, r->nterms, r->scores, r->bias, x);
}

static void
ebm_candidate_params(StringInfo buf, const void *fit, const OpParams *p)
{
	ebm_fit_params(buf, fit, p);
}

/* an additive model: its score tables, its "terms" in the params (kinds.h) */
static Datum
ebm_candidate_model(FunctionCallInfo fcinfo, const char *name, const void *fit, double shift,
					double epsilon, double delta, StringInfo params)
{
	const EBMFit *r = fit;

	return model_build(fcinfo, name, r->scores, r->nscores, r->bias - shift, epsilon, delta,
					   params);
}

const DPCandidateOps ebm_candidate = {
	.prepare = ebm_candidate_prepare, .train = ebm_candidate_train,
	.margin = ebm_candidate_margin, .params = ebm_candidate_params,
	.model = ebm_candidate_model
};

static const DPMechanism ebm_mechanisms[] = {EBM_FAMILY_MECHANISMS};

const DPFamily ebm_family = DP_FAMILY(ebm, ebm_mechanisms,
									  .citus_options = keptrows_citus_options,
									  .model_kind = &ebm_model_kind);
