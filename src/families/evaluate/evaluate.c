/*-------------------------------------------------------------------------
 *
 * evaluate.c
 *	  Private evaluation of a model (docs/PRIVACY.md "Private
 *	  evaluation"):
 *
 *	  dpobj.dp_evaluate(features, label, epsilon, delta, options) RETURNS jsonb
 *	      aggregate; options {"model": <dpobj.model as text>}
 *	  dpobj.evaluate(rel, model, ...): the same on a protected table,
 *	      through the sealed path (evalrun.c)
 *
 *	  The release, two parts at eps/2 each: the confusion matrix (TP, FP,
 *	  TN, FN) of the model's predictions (dpobj.predict) against the labels,
 *	  and each label's histogram of the model's scores over EVAL_AUC_BINS
 *	  public bins (core/rocauc.h: centred on the model's threshold), every
 *	  count plus independent discrete Laplace noise of scale 2/(eps/2)
 *	  (dpnoise.c, exact integer sampling).  Replacing one row moves one unit
 *	  between two cells of each part (adding or removing one changes one
 *	  cell by one): l1 sensitivity 2 per part, so the release is eps-DP
 *	  (delta may be 0; one given is charged, not needed).  Derived from the
 *	  noisy counts only (post-processing): the class counts, the majority
 *	  baseline, accuracy, balanced accuracy, precision and recall with
 *	  approximate 95 % intervals that add the noise's variance to the
 *	  sampling variance (delta method), and the ROC AUC likewise, widened by
 *	  half its within-bin ties.
 *
 *	  The model is public: it is validated completely before anything is
 *	  charged (evaluate_check_args), and a prediction never fails on a row
 *	  value.  On the protected path a row the model cannot evaluate (a
 *	  non-finite feature; for a lattice model |round(Q x)| > 2^31) is
 *	  dropped like a row with a NULL: every row lands in at most one cell,
 *	  decided by that row alone, so the sensitivity stays 2.
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpobj.h"

#include <math.h>

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "nodes/makefuncs.h"
#include "parser/parse_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "funcapi.h"

#include "core/calibrate.h"
#include "core/dpnoise.h"
#include "core/rocauc.h"
#include "model/encodemodel.h"
#include "model/model.h"
#include "model/modelargs.h"
#include "families/evaluate/evaluate.h"
#include "mechanisms/family.h"
#include "state/glmclasses.h"
#include "ledger/ledger.h"
#include "mechanisms/mechanism.h"
#include "base/options.h"
#include "model/predict.h"
#include "model/predictclass.h"
#include "context/protected.h"
#include "base/random.h"
#include "state/rowinput.h"

PG_FUNCTION_INFO_V1(dpobj_evaluate_transfn);
PG_FUNCTION_INFO_V1(dpobj_evaluate_combinefn);
PG_FUNCTION_INFO_V1(dpobj_evaluate_finalfn);

/*
 * The score histograms: EVAL_AUC_BINS bins per label, released at
 * EVAL_AUC_SHARE of epsilon (the counts at the rest); public constants,
 * chosen on public tables (bench/operating/results.md)
 */
#define EVAL_AUC_BINS	32
#define EVAL_AUC_SHARE	0.5

/*
 * the state: a float8[] of EVAL_NSTATE values (evaluate.h: the run's first
 * entries), the counts, then the positives' and the negatives' histograms
 */
enum
{
	EV_TP = CS_K + 1, EV_FP, EV_TN, EV_FN, EV_HIST
};
#define EVAL_NSTATE	(EV_HIST + 2 * EVAL_AUC_BINS)

/* per aggregate call: the model (from the options), validated, as dpobj.predict sees it */
typedef struct EvalCache
{
	ModelPredictor *model;
} EvalCache;

/* ---- the model in the options ---- */

static void
eval_no_model(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("dp_evaluate needs the option \"model\": a dpobj.model as text"),
			 errhint("Use dpobj.evaluate(rel, model, ...), or pass jsonb_build_object('model', m::text).")));
}

/* options {"model": text} -> a dpobj.model datum (errors on public grounds) */
Datum
evaluate_model_datum(Jsonb *options)
{
	JsonbValue *v = options ? getKeyJsonValueFromContainer(&options->root, "model", 5, NULL) : NULL;
	Oid			typoid = model_type_oid();
	Oid			typinput,
				typioparam;
	char	   *text;

	if (v == NULL || v->type != jbvString)
		eval_no_model();
	text = pnstrdup(v->val.string.val, v->val.string.len);
	getTypeInputInfo(typoid, &typinput, &typioparam);
	return OidInputFunctionCall(typinput, text, typioparam, -1);
}

/*
 * options allowed besides "model": "rows_per_unit" k (a privacy unit moves
 * up to k rows, so each count or sum by up to k times a row's change: the
 * noise is for eps / k).  Returns k (1 when absent).
 */
int
evaluate_options_k(Jsonb *options)
{
	if (options == NULL || !JB_ROOT_IS_OBJECT(options))
		eval_no_model();
	return dp_options_rows_per_unit(options, "model", "dp_evaluate",
									"dp_evaluate takes only \"model\" and \"rows_per_unit\" (and dpobj.evaluate() also \"filter\").");
}

/*
 * The number of features of a model, validated completely (public
 * grounds): a multi-class model of at most DPOBJ_MAX_CLASSES classes, a
 * linear regression with its label range, or a classifier.
 */
static int
eval_model_d(const char *aggname, Datum model)
{
	ModelPredictor *m;
	bool		range_ok;
	double		y_min,
				y_max;

	if (model_is_multiclass(model))
	{
		ClassPredictor *cm = class_predictor(model, CurrentMemoryContext);

		/* K^2 counts, each with its noise: as many classes as training takes */
		if (cm->K > DPOBJ_MAX_CLASSES)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("%s: a multi-class model of more than %d classes cannot be evaluated", aggname, DPOBJ_MAX_CLASSES),
					 errhint("Use a model returned by dpobj.dp_logistic_multiclass or dpobj.dp_noisysgd_multiclass.")));
		return cm->d;
	}
	m = model_predictor(model, CurrentMemoryContext);
	if (model_predictor_regression(m, &range_ok, &y_min, &y_max) && !range_ok)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: a linear regression model needs the label range y_min < y_max in its params", aggname),
				 errhint("Use a model returned by dp_linear_regression (its params carry y_min and y_max, and no \"Q\").")));
	return model_predictor_d(m);
}

/*
 * dpobj.train()'s argument check (train.c, mechanism.h): public grounds
 * only.  The model is validated completely here (predict.h), so that on the
 * protected path a forged model is refused before the charge, whatever the
 * rows; the direct aggregate runs this on its first row, before its final
 * function writes the ledger.
 */
void
evaluate_check_args(const char *aggname, double epsilon, double delta, int d,
					Jsonb *options)
{
	int			md;
	int			k;

	/* epsilon-DP: delta plays no part, 0 too */
	dp_check_pure_privacy_params(epsilon, delta);
	k = evaluate_options_k(options);
	md = eval_model_d(aggname, evaluate_model_datum(options));
	if (md != d)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the model has %d weights but %d features were given", aggname, md, d),
				 errhint("List the features in the order the model was trained on.")));
	if (floor(Min(dp_epsilon_per_row(epsilon, k), EVAL_EPS_MAX) * EVAL_EPS_UNIT) < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: epsilon must be at least 2^-20", aggname),
				 errhint("Smaller epsilon would make the counts pure noise (with \"rows_per_unit\" k: epsilon / k).")));
	/* a classifier's two parts, each at least 2^-20 */
	if (evaluate_label_kind(options) == TRAIN_LABEL_BOOLEAN &&
		floor(dp_epsilon_per_row(epsilon, k) * EVAL_AUC_SHARE * EVAL_EPS_UNIT) < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: epsilon must be at least 2^-19 for a classifier", aggname),
				 errhint("The confusion matrix and the score histograms take half each (with \"rows_per_unit\" k: epsilon / k).")));
}

/* the label the model in the options is evaluated on (public) */
TrainLabel
evaluate_label_kind(Jsonb *options)
{
	Datum		model = evaluate_model_datum(options);
	bool		range_ok;
	double		y_min,
				y_max;

	if (model_is_multiclass(model))
		return TRAIN_LABEL_CLASS;
	return model_predictor_regression(model_predictor(model, CurrentMemoryContext),
									  &range_ok, &y_min, &y_max) ?
		TRAIN_LABEL_REAL : TRAIN_LABEL_BOOLEAN;
}

/* the label's type must fit the model: a class for a classifier, a value for a regression */
void
evaluate_check_kind(const ModelPredictor *m, bool real_label)
{
	bool		range_ok;
	double		y_min,
				y_max;

	if (model_predictor_regression(m, &range_ok, &y_min, &y_max) != real_label)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s: a %s model is evaluated on a %s label", EVAL_AGGNAME,
						real_label ? "classification" : "linear regression",
						real_label ? "boolean" : "float8"),
				 errhint("Pass a boolean label for a classifier and a float8 label for a linear regression model (mechanism adassp or ssp).")));
}

static void *
eval_build(Jsonb *options, MemoryContext cxt)
{
	EvalCache  *c = MemoryContextAllocZero(cxt, sizeof(EvalCache));
	Datum		model;

	(void) evaluate_options_k(options);
	model = evaluate_model_datum(options);
	if (model_is_multiclass(model))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s: a multi-class model is evaluated on a text label", EVAL_AGGNAME),
				 errhint("Pass the label as text (or cast an integer class label to text).")));
	/* dpobj.predict's own predictor: one definition of a prediction */
	c->model = model_predictor(model, cxt);
	return c;
}

/* the options' model; argno: options is that argument, or -1 (from elsewhere) */
static EvalCache *
eval_cache(FunctionCallInfo fcinfo, Jsonb *options, int argno)
{
	return jsonb_arg_cached(fcinfo, options, argno, eval_build);
}

/* ---- the aggregate ---- */

ModelPredictor *
evaluate_model(FunctionCallInfo fcinfo, Jsonb *options, int argno)
{
	return eval_cache(fcinfo, options, argno)->model;
}

double *
evaluate_row_state(ArrayType **state, const DPRowInput *row, Jsonb *options, int nstate,
				   bool *created)
{
	double	   *s;

	*created = (*state == NULL);
	if (*created)
	{
		evaluate_check_args(EVAL_AGGNAME, row->epsilon, row->delta, row->d, options);
		*state = countstate_new(row->aggcontext, nstate, row->epsilon, row->delta, row->d,
								evaluate_options_k(options));
	}
	s = countstate_values(*state, nstate);
	dp_run_check_same(EVAL_AGGNAME, row->epsilon, row->delta, true, row->d,
					  s[CS_EPS], s[CS_DELTA], (int) s[CS_D]);
	return s;
}

/*
 * The row's prediction into *pred.  false when the model cannot evaluate
 * the row: a NaN or infinite feature, (lattice models) a feature with
 * |round(Q x)| > 2^31, the range the halfspace mechanisms train on, or
 * (additive models) a categorical term's coordinates that are not one-hot.  Such a
 * row is dropped on the protected path -- a fixed rule of the row alone, so
 * the counts keep their sensitivity -- and an error on the direct path.
 */
static bool
eval_row_predict(const EvalCache *c, DPRowInput *row, bool *pred, int *bin)
{
	int			sign = 0;
	long double value = 0;
	ModelRowStatus st = model_predict_row_margin(c->model,
												 (const double *) ARR_DATA_PTR(row->features),
												 &sign, &value);

	*pred = sign > 0;
	/* the score's bin, centred on the cut-off: a function of the row alone */
	if (st == MODEL_ROW_OK)
		*bin = rocauc_bin((double) value, model_predictor_threshold(c->model), 1.0,
						  EVAL_AUC_BINS);
	if (st == MODEL_ROW_OK || dp_row_drops_bad(row))
		return st == MODEL_ROW_OK;
	if (st == MODEL_ROW_NOT_FINITE)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: features must be finite (no NaN or infinity)", EVAL_AGGNAME),
				 errhint("Filter out or impute rows with non-finite features.")));
	if (st == MODEL_ROW_NOT_ONE_HOT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: a categorical term's coordinates must be one-hot", EVAL_AGGNAME),
				 errhint("Encode the features exactly as for training.")));
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("%s: a feature is out of the supported range of this halfspace model", EVAL_AGGNAME),
			 errhint("Scale features exactly as for training, so that |x| * Q stays below 2^31.")));
	return false;				/* keep compiler quiet */
}

Datum
dpobj_evaluate_transfn(PG_FUNCTION_ARGS)
{
	ArrayType  *state = PG_ARGISNULL(0) ? NULL : PG_GETARG_ARRAYTYPE_P(0);
	DPRowInput	row;
	Jsonb	   *options = PG_ARGISNULL(5) ? NULL : PG_GETARG_JSONB_P(5);
	EvalCache  *c;
	double	   *s;
	bool		pred;
	int			bin = 0;
	bool		created;

	if (!dp_row_read(fcinfo, EVAL_AGGNAME, &row))
	{
		if (state == NULL)
			PG_RETURN_NULL();
		PG_RETURN_ARRAYTYPE_P(state);
	}
	if (options == NULL)
		eval_no_model();
	c = eval_cache(fcinfo, options, 5);
	s = evaluate_row_state(&state, &row, options, EVAL_NSTATE, &created);
	if (created)
		evaluate_check_kind(c->model, false);
	if (!eval_row_predict(c, &row, &pred, &bin))
		PG_RETURN_ARRAYTYPE_P(state);
	/* the state is this aggregate's own array: updated in place */
	s[row.label ? (pred ? EV_TP : EV_FN) : (pred ? EV_FP : EV_TN)] += 1;
	s[EV_HIST + (row.label ? 0 : EVAL_AUC_BINS) + bin] += 1;
	PG_RETURN_ARRAYTYPE_P(state);
}

Datum
dpobj_evaluate_combinefn(PG_FUNCTION_ARGS)
{
	return countstate_combine(fcinfo, EVAL_NSTATE, CS_K + 1);
}

/* ---- the release ---- */

bool
evaluate_ratio_value(double x, double y, double var_x, double var_y, double *r, double *var)
{
	double		m = x + y;

	if (m <= 0)
		return false;
	*r = Min(1.0, Max(0.0, x / m));
	/* binomial sampling + the noise on x and on y, by the delta method */
	*var = *r * (1 - *r) / m + (y * y * var_x + x * x * var_y) / (m * m * m * m);
	return true;
}

void
evaluate_estimate(StringInfo buf, const char *key, double r, double var)
{
	double		half = 1.959963984540054 * sqrt(var);

	appendStringInfo(buf, ", \"%s\": {\"estimate\": %.6g, \"ci95\": [%.6g, %.6g]}",
					 key, r, Max(0.0, r - half), Min(1.0, r + half));
}

void
evaluate_ratio(StringInfo buf, const char *key, double x, double y, double var_x,
			   double var_y)
{
	double		r,
				var;

	if (evaluate_ratio_value(x, y, var_x, var_y, &r, &var))
		evaluate_estimate(buf, key, r, var);
	else
		appendStringInfo(buf, ", \"%s\": null", key);
}

static void
eval_ratio(StringInfo buf, const char *key, double x, double y, double noise_var)
{
	evaluate_ratio(buf, key, x, y, noise_var, noise_var);
}

/*
 * Balanced accuracy (recall + specificity) / 2 with its interval: recall and
 * specificity rest on disjoint noisy counts (tp, fn and tn, fp), so their
 * estimates are independent and the mean's variance is their sum over 4.
 * Absent when a noisy class count is 0, as before the interval.
 */
static void
eval_balanced(StringInfo buf, double tp, double fn, double tn, double fp, double noise_var)
{
	double		recall,
				var_recall,
				spec,
				var_spec;

	if (evaluate_ratio_value(tp, fn, noise_var, noise_var, &recall, &var_recall) &&
		evaluate_ratio_value(tn, fp, noise_var, noise_var, &spec, &var_spec))
		evaluate_estimate(buf, "balanced_accuracy", 0.5 * (recall + spec),
						  0.25 * (var_recall + var_spec));
}

/* the ROC AUC of the noisy histograms (positives', negatives') with its interval */
static void
eval_auc(StringInfo buf, const int64 *h, double noise_var)
{
	double		pos[EVAL_AUC_BINS],
				neg[EVAL_AUC_BINS];
	RocAUC		a;

	for (int b = 0; b < EVAL_AUC_BINS; b++)
	{
		pos[b] = (double) h[b];
		neg[b] = (double) h[EVAL_AUC_BINS + b];
	}
	if (!rocauc_estimate(pos, neg, EVAL_AUC_BINS, noise_var, &a))
	{
		appendStringInfoString(buf, ", \"auc\": null");
		return;
	}
	appendStringInfo(buf, ", \"auc\": {\"estimate\": %.6g, \"ci95\": [%.6g, %.6g]}",
					 a.auc, a.ci_low, a.ci_high);
}

/*
 * The noisy histograms themselves, for an ROC curve: bin b of 0 .. B-1 holds
 * the scores s with (s - t) / (1 + |s - t|) between 2b/B - 1 and 2(b+1)/B - 1,
 * t the model's threshold (a boundary to the bin nearer t; s = t in B/2 - 1)
 */
static void
eval_histograms(StringInfo buf, const int64 *h)
{
	appendStringInfoString(buf, ", \"score_histograms\": {\"positive\": [");
	for (int b = 0; b < 2 * EVAL_AUC_BINS; b++)
	{
		if (b == EVAL_AUC_BINS)
			appendStringInfoString(buf, "], \"negative\": [");
		appendStringInfo(buf, "%s" INT64_FORMAT, b % EVAL_AUC_BINS == 0 ? "" : ", ", h[b]);
	}
	appendStringInfoString(buf, "]}");
}

/* the released jsonb: noisy counts and what follows from them */
static Datum
eval_release(const int64 *c, double eps, double delta, double eps_used, double scale,
			 double noise_var, const EvalRun *e)
{
	StringInfoData b;
	double		tp = Max(c[0], 0),
				fp = Max(c[1], 0),
				tn = Max(c[2], 0),
				fn = Max(c[3], 0);
	double		pos = tp + fn,
				neg = fp + tn;

	initStringInfo(&b);
	appendStringInfo(&b, "{\"tp\": " INT64_FORMAT ", \"fp\": " INT64_FORMAT
					 ", \"tn\": " INT64_FORMAT ", \"fn\": " INT64_FORMAT,
					 c[0], c[1], c[2], c[3]);
	appendStringInfo(&b, ", \"positives\": %.0f, \"negatives\": %.0f", pos, neg);
	eval_ratio(&b, "accuracy", tp + tn, fp + fn, 2 * noise_var);
	eval_ratio(&b, "majority_baseline", Max(pos, neg), Min(pos, neg), 2 * noise_var);
	eval_ratio(&b, "precision", tp, fp, noise_var);
	eval_ratio(&b, "recall", tp, fn, noise_var);
	eval_ratio(&b, "specificity", tn, fp, noise_var);
	eval_balanced(&b, tp, fn, tn, fp, noise_var);
	eval_auc(&b, c + 4, evaluate_count_variance(e->p_auc));
	eval_histograms(&b, c + 4);
	appendStringInfo(&b, ", \"epsilon\": %s, \"delta\": %s, \"noise\": "
					 "{\"mechanism\": \"discrete_laplace\", \"scale\": %s, \"epsilon_used\": %s",
					 float8out_internal(eps), float8out_internal(delta),
					 float8out_internal(scale), float8out_internal(eps_used));
	appendStringInfo(&b, ", \"auc\": {\"bins\": %d, \"scale\": %s, \"epsilon_used\": %s}}}",
					 EVAL_AUC_BINS, float8out_internal(2 * EVAL_EPS_UNIT / e->p_auc),
					 float8out_internal(e->p_auc / EVAL_EPS_UNIT));
	return DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data));
}

void *
evaluate_admit(FunctionCallInfo fcinfo, int nstate, DPProtectedContext **pctx)
{
	EvalRun    *e = palloc0(sizeof(EvalRun));
	double	   *s;
	int			k;

	s = PG_ARGISNULL(0) ? NULL : countstate_values(PG_GETARG_ARRAYTYPE_P(0), nstate);
	*pctx = s ? mechanism_claim(fcinfo, true, s[CS_EPS], s[CS_DELTA], (int) s[CS_D])
		: mechanism_claim(fcinfo, false, 0, 0, 0);
	if (s == NULL && *pctx == NULL)
		return NULL;
	e->s = s;
	e->nstate = nstate;
	e->eps = s ? s[CS_EPS] : (*pctx)->epsilon_f;
	e->delta = s ? s[CS_DELTA] : (*pctx)->delta_f;
	/* a privacy unit of up to k rows moves each count or sum k times a row's change */
	k = s ? (int) s[CS_K] : ((*pctx)->rows_per_unit > 1 ? (*pctx)->rows_per_unit : 1);
	e->eps_noise = dp_epsilon_per_row(e->eps, k);
	return e;
}

void
evaluate_count_calibrate(DPRun *run, void *work)
{
	EvalRun    *e = run->state;

	/* eps_used = p / 2^20 <= eps / k: the noise is for at most what is charged */
	e->p = (int64) floor(Min(e->eps_noise, EVAL_EPS_MAX) * EVAL_EPS_UNIT);
	if (e->p < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: epsilon must be at least 2^-20", EVAL_AGGNAME),
				 errhint("Smaller epsilon would make the counts pure noise.")));
	e->out = palloc(sizeof(int64) * e->ncounts);
	mechanism_calibrated(run, work, "evaluate", e->eps, e->delta);
}

void
evaluate_count_compute(DPRun *run, int first)
{
	EvalRun    *e = run->state;

	for (int i = 0; i < e->ncounts; i++)
		e->out[i] = (int64) (e->s ? e->s[first + i] : 0) +
			dpnoise_discrete_laplace(run->rng, (uint64_t) (2 * EVAL_EPS_UNIT), (uint64_t) e->p);
	run->detail = "evaluate";
}

double
evaluate_count_variance(int64 p)
{
	double		q = exp(-(double) p / (2 * EVAL_EPS_UNIT));

	return 2 * q / ((1 - q) * (1 - q));
}

/*
 * The two parts: the histograms at EVAL_AUC_SHARE of epsilon / k (p_auc /
 * 2^20 <= it), the confusion matrix at the rest (evaluate_count_calibrate)
 */
static void
eval_calibrate(DPRun *run)
{
	EvalRun    *e = run->state;
	double		eps_auc = e->eps_noise * EVAL_AUC_SHARE;

	e->ncounts = 4 + 2 * EVAL_AUC_BINS;
	e->p_auc = (int64) floor(Min(eps_auc, EVAL_EPS_MAX) * EVAL_EPS_UNIT);
	e->eps_noise = dp_budget_rest(e->eps_noise, eps_auc);
	if (e->p_auc < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: epsilon must be at least 2^-19 for a classifier", EVAL_AGGNAME),
				 errhint("The confusion matrix and the score histograms take half each.")));
	evaluate_count_calibrate(run, NULL);
}

/* the confusion matrix's four counts, then the histograms' */
static void
eval_compute(DPRun *run)
{
	EvalRun    *e = run->state;

	e->ncounts = 4;
	evaluate_count_compute(run, EV_TP);
	e->ncounts = 4 + 2 * EVAL_AUC_BINS;
	for (int i = 4; i < e->ncounts; i++)
		e->out[i] = (int64) (e->s ? e->s[EV_TP + i] : 0) +
			dpnoise_discrete_laplace(run->rng, (uint64_t) (2 * EVAL_EPS_UNIT),
									 (uint64_t) e->p_auc);
}

static Datum
eval_release_run(DPRun *run)
{
	EvalRun    *e = run->state;

	return eval_release(e->out, e->eps, e->delta, e->p / EVAL_EPS_UNIT,
						2 * EVAL_EPS_UNIT / e->p, evaluate_count_variance(e->p), e);
}

MECHANISM_FINAL_FUNCTION(dpobj_evaluate_finalfn,
						 .admit = evaluate_admit, .kind = EVAL_NSTATE,
						 .calibrate = eval_calibrate, .compute = eval_compute,
						 .release = eval_release_run)

/* the family's descriptor (mechanisms/family.h) */
static const DPMechanism evaluate_mechanisms[] = {EVALUATE_FAMILY_MECHANISMS};

const DPFamily evaluate_family = DP_FAMILY(evaluate, evaluate_mechanisms);
