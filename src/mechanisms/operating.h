/*-------------------------------------------------------------------------
 *
 * operating.h
 *	  A binary classifier's operating point, chosen as part of its training
 *	  for the option "metric" (operating.c; docs/PRIVACY.md, "Operating
 *	  point"): the released model's margin is the log-odds without the class
 *	  weights it trained with (its bias shifted by ln(w_pos / w_neg)) and its
 *	  params' "threshold" is the cut-off predict() applies:
 *
 *	    accuracy            0 (a probability above 1/2)
 *	    weighted_accuracy   ln(w_neg / w_pos) of "class_weight": the weighted
 *	                        model's 0 (the default when they are given)
 *	    balanced_accuracy   ln(W_neg / W_pos), W the balanced weights of noisy
 *	                        label counts (the default): the base rate's log-odds
 *
 *	  The counts are released at the run's balance share of its budget, in the
 *	  same charge: snapped discrete Gaussian in zCDP, discrete Laplace in pure
 *	  or approximate DP (core/opoint.h).  'auto' and a tuned noisy GD estimate
 *	  the balance in their selection and only take the cut-off here.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_OPERATING_H
#define DPOBJ_OPERATING_H

#include "postgres.h"

#include <gsl/gsl_rng.h>

#include "lib/stringinfo.h"
#include "utils/jsonb.h"

#include "core/opoint.h"

/*
 * The metrics (option "metric": dp_auto's selection score and a binary
 * classifier's operating point): rows classified right, their class
 * weights' sum, or their balanced weights' sum.  Weights enter as the
 * integers round(w 2^OP_WEIGHT_BITS), so that the exact discrete Laplace
 * sampler applies (glmauto.c); balanced weights from a private estimate of
 * the label balance lie in [2^(b - 6), 2^b]: a class's weight is at least
 * 1/64 of the other's.
 */
#define OP_METRIC_ACCURACY	1
#define OP_METRIC_WEIGHTED	2
#define OP_METRIC_BALANCED	3
#define OP_WEIGHT_BITS		10
#define OP_BALANCE_MIN_WEIGHT	(1 << (OP_WEIGHT_BITS - 6))
/* the metrics' names, indexed by OP_METRIC_* - 1 */
extern const char *const operating_metric_names[3];

/*
 * What a binary classifier's run trains with beside its own options (and
 * what 'auto' gives a candidate of another family, family.h): its budget,
 * privacy unit, row sample, class weights ("class_weight") and operating
 * point ("metric", and a balance estimate of its own at balance_share)
 */
typedef struct OpParams
{
	double		epsilon;
	double		delta;
	int			rows_per_unit;
	int64		sample_rows;	/* 0: every row */
	double		weight_pos;
	double		weight_neg;
	int			metric;			/* OP_METRIC_*, 0 for a regression */
	double		balance_share;	/* > 0: the run estimates the label balance */
	bool		balance_train;	/* its estimated weights also train */
} OpParams;

/*
 * A binary classifier's own balance estimate (docs/PRIVACY.md, "Operating
 * point"): the share of its budget spent on the noisy label counts, chosen
 * on public tables (docs/BENCHMARKS.md, "Operating point"); its label
 * counts are recovered from weighted ones, exact for class weights of at
 * least OP_MIN_CLASS_WEIGHT (tunecalib.h)
 */
#define OP_BALANCE_SHARE		0.05
#define OP_MIN_CLASS_WEIGHT		(1.0 / 1024)

/* the option "metric" (or key) of aggname: OP_METRIC_*; what names it in errors */
extern int	operating_metric_parse(JsonbValue *v, const char *key, const char *aggname,
								   const char *what, const char *hint);
/* a binary classifier's "metric", with its hint */
extern int	operating_metric_option(JsonbValue *v, const char *aggname);

/* refuses "balanced_accuracy" with a class weight below OP_MIN_CLASS_WEIGHT */
extern void operating_check_balance_weights(double wpos, double wneg, const char *aggname);

struct GLMSolveBlocks;

typedef struct OpRun
{
	int			metric;			/* OP_METRIC_* */
	bool		estimate;		/* the run releases its own balance estimate */
	bool		noise_ok;		/* its noise is within the samplers' range */
	OpNoise		z;				/* its noise (public) */
	double		rho;			/* its rho (zCDP) or */
	double		eps;			/* its epsilon (pure) */
	double		noisy[2];		/* the noisy positive and negative counts (DP output) */
	int64		w[2];			/* their balanced weights, in 2^-OP_WEIGHT_BITS */
	double		shift;			/* subtracted from the released bias */
	double		cut;			/* the released "threshold" */
} OpRun;

/*
 * Before the charge, on public inputs: the plan for the metric, and with a
 * balance estimate of the run's own (balance_share > 0) its noise at that
 * share of *rho (zCDP: the rest stays in *rho) or of *eps (the other form).
 * operating_check() then refuses (54000) a noise outside the exact samplers'
 * range: after the model's own calibration, whose refusals say more.
 */
extern void operating_plan_rho(OpRun *o, int metric, double balance_share,
							   int rows_per_unit, double *rho);
extern void operating_plan_eps(OpRun *o, int metric, double balance_share,
							   int rows_per_unit, double *eps);

/* those arguments of a run's params p (GLMParams) */
#define OPERATING_PLAN_OF(p) (p)->metric, (p)->balance_share, (p)->rows_per_unit
extern void operating_check(const OpRun *o, const char *aggname);

/* the positive and negative rows of a design (its counts carry weights w), exact */
extern void operating_count_blocks(const struct GLMSolveBlocks *B, const double w[2],
								   int64 out[2]);

/*
 * After the charge, before the model's own noise: the noisy counts of npos
 * and nneg rows and their balanced weights (o->w)
 */
extern void operating_estimate(OpRun *o, gsl_rng *rng, int64 npos, int64 nneg);

/* the estimated weights as class weights in (0, 1] (positive, negative) */
extern void operating_weights(const OpRun *o, double w[2]);

/*
 * The released margin and cut-off of a model trained with class weights
 * train_w (1 and 1 for none) for o's metric: o->shift, which the released
 * bias loses, and o->cut; balanced accuracy takes the balanced weights ba_w
 * (o->w, or the selection's), weighted accuracy the options' class_w.
 */
extern void operating_finish(OpRun *o, const double class_w[2], const double train_w[2],
							 const int64 *ba_w);

/* the options' class weights (positive, negative) of p */
#define OPERATING_CLASS_W(p) ((const double[2]) {(p)->weight_pos, (p)->weight_neg})

/*
 * The params: "threshold" and, with a "metric" of the run's own (not auto's
 * or tune's, which print theirs), the metric; the balance estimate's public
 * scale and its counts (DP output) when the run made one; its weights (DP
 * output) when o->w holds them
 */
extern void operating_params(StringInfo buf, const OpRun *o, bool with_metric);
/* the balance estimate's public plan alone (dpobj.glm_calibration()) */
extern void operating_params_plan(StringInfo buf, const OpRun *o);

#endif							/* DPOBJ_OPERATING_H */
