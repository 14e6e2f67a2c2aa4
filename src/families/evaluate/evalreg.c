/*-------------------------------------------------------------------------
 *
 * evalreg.c
 *	  Private evaluation of a linear regression model (docs/PRIVACY.md
 *	  "Private evaluation of a regression"):
 *
 *	  dpobj.dp_evaluate(features, label float8, epsilon, delta, options)
 *	      the float8-label overload of the aggregate; options {"model": ...}
 *	  dpobj.evaluate(rel, model, ...) with a regression model (mechanism
 *	      adassp or ssp) runs it on the protected table (train.c picks the
 *	      float8 label from the model, a public input)
 *
 *	  The release: five sums over the rows -- the count, sum |e| / W,
 *	  sum (e / W)^2, sum (y - c) / (W / 2) and its squares, with the label
 *	  and the prediction clamped to the model's public range [y_min, y_max]
 *	  (src/core/regmetrics.c) -- snapped to a public lattice, each plus
 *	  independent discrete Laplace noise (dpnoise.c); one row changes the
 *	  snapped sums by at most l1 = 5 2^k + 5 lattice units, and the noise
 *	  scale is at least l1 / eps, so the release is eps-DP (delta charged,
 *	  not needed).  MAE, RMSE, R^2 and the label's mean and spread with
 *	  approximate 95 % intervals follow from the noisy sums only.
 *
 *	  The model is validated before the charge (evaluate_check_args); on
 *	  the protected path a row it cannot evaluate (a non-finite feature or
 *	  label) is dropped like a row with a NULL, never an error.
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpobj.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/jsonb.h"

#include "core/dpnoise.h"
#include "families/evaluate/evaluate.h"
#include "mechanisms/mechanism.h"
#include "base/random.h"
#include "core/regmetrics.h"
#include "state/rowinput.h"

PG_FUNCTION_INFO_V1(dpobj_evalreg_transfn);
PG_FUNCTION_INFO_V1(dpobj_evalreg_combinefn);
PG_FUNCTION_INFO_V1(dpobj_evalreg_finalfn);

/* the state: the run's entries with the model's label range, then the sums in grid units */
#define EVR_YMIN	(CS_K + 1)
#define EVR_YMAX	(CS_K + 2)
#define EVR_SUMS	(CS_K + 3)
#define EVR_NSTATE	(EVR_SUMS + REGM_NSUMS)

/* the label range of a regression model (validated by evaluate_check_args) */
static void
evr_range(const ModelPredictor *m, double *y_min, double *y_max)
{
	bool		range_ok;

	(void) model_predictor_regression(m, &range_ok, y_min, y_max);
}

/*
 * The row's contributions into t, or false when it cannot be evaluated: a
 * non-finite feature or label, dropped on the protected path, an error on
 * the direct path.
 */
static bool
evr_row(const ModelPredictor *m, DPRowInput *row, double y, const double *s,
		double *t)
{
	long double pred = 0;
	bool		ok;

	ok = model_predict_value(m, (const double *) ARR_DATA_PTR(row->features), &pred) ==
		MODEL_ROW_OK && isfinite(y);
	if (!ok && dp_row_drops_bad(row))
		return false;
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: features and label must be finite (no NaN or infinity)", EVAL_AGGNAME),
				 errhint("Filter out or impute rows with non-finite values.")));
	regmetrics_row(y, pred, s[EVR_YMIN], s[EVR_YMAX], t);
	return true;
}

Datum
dpobj_evalreg_transfn(PG_FUNCTION_ARGS)
{
	ArrayType  *state = PG_ARGISNULL(0) ? NULL : PG_GETARG_ARRAYTYPE_P(0);
	DPRowInput	row;
	Jsonb	   *options = PG_ARGISNULL(5) ? NULL : PG_GETARG_JSONB_P(5);
	ModelPredictor *m;
	double	   *s;
	double		t[REGM_NSUMS];
	bool		created;

	if (!dp_row_read(fcinfo, EVAL_AGGNAME, &row))
	{
		if (state == NULL)
			PG_RETURN_NULL();
		PG_RETURN_ARRAYTYPE_P(state);
	}
	m = evaluate_model(fcinfo, options, 5);
	s = evaluate_row_state(&state, &row, options, EVR_NSTATE, &created);
	if (created)
	{
		evaluate_check_kind(m, true);
		evr_range(m, &s[EVR_YMIN], &s[EVR_YMAX]);
	}
	if (!evr_row(m, &row, PG_GETARG_FLOAT8(2), s, t))
		PG_RETURN_ARRAYTYPE_P(state);
	/* the state is this aggregate's own array: updated in place */
	for (int i = 0; i < REGM_NSUMS; i++)
		s[EVR_SUMS + i] += t[i];
	PG_RETURN_ARRAYTYPE_P(state);
}

Datum
dpobj_evalreg_combinefn(PG_FUNCTION_ARGS)
{
	return countstate_combine(fcinfo, EVR_NSTATE, EVR_SUMS);
}

/* ---- the release ---- */

static void
evr_estimate(StringInfo buf, const char *key, const RegEstimate *e)
{
	if (!e->valid)
	{
		appendStringInfo(buf, ", \"%s\": null", key);
		return;
	}
	appendStringInfo(buf, ", \"%s\": {\"estimate\": %.6g, \"ci95\": [%.6g, %.6g]}",
					 key, e->estimate, e->lo, e->hi);
}

/* the released jsonb: the noisy sums and what follows from them */
static Datum
evr_release(const int64 *k, const RegMetricsCalibration *c, double y_min, double y_max,
			double eps, double delta)
{
	StringInfoData b;
	double		sums[REGM_NSUMS];
	RegMetrics	r;

	for (int i = 0; i < REGM_NSUMS; i++)
		sums[i] = ldexp((double) k[i], -c->lattice_bits);
	regmetrics_compute(sums, c->noise_var, y_min, y_max, &r);
	initStringInfo(&b);
	appendStringInfo(&b, "{\"n\": %.0f", Max(r.n, 0));
	evr_estimate(&b, "mae", &r.mae);
	evr_estimate(&b, "rmse", &r.rmse);
	evr_estimate(&b, "r2", &r.r2);
	evr_estimate(&b, "label_mean", &r.label_mean);
	if (isnan(r.label_sd))
		appendStringInfoString(&b, ", \"label_sd\": null");
	else
		appendStringInfo(&b, ", \"label_sd\": %.6g", r.label_sd);
	appendStringInfo(&b, ", \"y_min\": %s, \"y_max\": %s, \"epsilon\": %s, \"delta\": %s, "
					 "\"noise\": {\"mechanism\": \"discrete_laplace\", \"lattice\": %s, "
					 "\"scale\": %s, \"epsilon_used\": %s}}",
					 float8out_internal(y_min), float8out_internal(y_max),
					 float8out_internal(eps), float8out_internal(delta),
					 float8out_internal(ldexp(1.0, -c->lattice_bits)),
					 float8out_internal(ldexp((double) c->num / c->den, -c->lattice_bits)),
					 float8out_internal(c->eps_used));
	return DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data));
}

/* a regression evaluation's calibration, model range and sums (DPRun.work) */
typedef struct EvrRun
{
	RegMetricsCalibration c;
	double		y_min,
				y_max;
	int64		k[REGM_NSUMS];
} EvrRun;

static void
evr_calibrate(DPRun *run)
{
	EvalRun    *e = run->state;
	EvrRun	   *r = palloc0(sizeof(EvrRun));

	if (!(e->eps_noise >= 1.0 / EVAL_EPS_UNIT))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: epsilon must be at least 2^-20", EVAL_AGGNAME),
				 errhint("Smaller epsilon would make the sums pure noise.")));
	regmetrics_calibrate(Min(e->eps_noise, EVAL_EPS_MAX), &r->c);
	/* the model's range: the state's, or the protected run's model when no row came */
	if (e->s != NULL)
	{
		r->y_min = e->s[EVR_YMIN];
		r->y_max = e->s[EVR_YMAX];
	}
	else
		evr_range(evaluate_model(run->fcinfo, run->pctx->options, -1), &r->y_min, &r->y_max);
	if (!(isfinite(r->y_min) && isfinite(r->y_max) && r->y_min < r->y_max))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("invalid dp_evaluate state"),
				 errhint("The state comes only from dpobj.dp_evaluate itself.")));
	mechanism_calibrated(run, r, "evaluate", e->eps, e->delta);
}

/* discrete Laplace of scale num / den lattice units on each snapped sum */
static void
evr_compute(DPRun *run)
{
	EvalRun    *e = run->state;
	EvrRun	   *r = run->work;

	for (int i = 0; i < REGM_NSUMS; i++)
		r->k[i] = (e->s ? regmetrics_snap(e->s[EVR_SUMS + i], &r->c) : 0) +
			dpnoise_discrete_laplace(run->rng, r->c.num, r->c.den);
	run->detail = "evaluate";
}

static Datum
evr_release_run(DPRun *run)
{
	EvalRun    *e = run->state;
	EvrRun	   *r = run->work;

	return evr_release(r->k, &r->c, r->y_min, r->y_max, e->eps, e->delta);
}

MECHANISM_FINAL_FUNCTION(dpobj_evalreg_finalfn,
						 .admit = evaluate_admit, .kind = EVR_NSTATE,
						 .calibrate = evr_calibrate, .compute = evr_compute,
						 .release = evr_release_run)
