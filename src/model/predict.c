/*-------------------------------------------------------------------------
 *
 * predict.c
 *	  The prediction functions dpobj.predict(model, features),
 *	  dpobj.score(model, features) and dpobj.probability(model, features),
 *	  and the validated model they share with the private evaluation
 *	  (predict.h).  Each model kind computes its own margin (kinds.h);
 *	  predict is margin > 0, score the margin, probability its logistic.
 *
 * A model is validated completely when it is unpacked, before any feature
 * vector is looked at (kinds.c).  After that the margin is total: a vector
 * it cannot evaluate (a non-finite value, a lattice coordinate beyond
 * 2^31, an additive categorical that is not one-hot) is a status, never
 * raised, so that the protected path can drop such a row like any other
 * bad row.
 *
 *-------------------------------------------------------------------------
 */
#include "model/predict.h"
#include "model/kindsint.h"
#include "model/modelargs.h"

#include <math.h>

#include "utils/array.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(dpobj_predict);
PG_FUNCTION_INFO_V1(dpobj_score);
PG_FUNCTION_INFO_V1(dpobj_probability);

static ModelPredictor *
model_unpack(HeapTupleHeader th, MemoryContext mcxt)
{
	ModelPredictor *m = model_unpack_any(th, mcxt);

	/* K weight vectors: the sign of one margin is no prediction */
	if (m->kind->margin == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("a multi-class model has no single margin"),
				 errhint("Use dpobj.predict_class(model, features) for a model with params \"classes\".")));
	return m;
}

ModelPredictor *
model_predictor(Datum model, MemoryContext mcxt)
{
	return model_unpack(DatumGetHeapTupleHeader(model), mcxt);
}

int
model_predictor_d(const ModelPredictor *m)
{
	return m->d;
}

bool
model_predictor_regression(const ModelPredictor *m, bool *range_ok, double *y_min,
						   double *y_max)
{
	*range_ok = m->range_ok;
	*y_min = m->y_min;
	*y_max = m->y_max;
	return m->regression;
}

/*
 * The sign of the margin against the model's threshold (params
 * "threshold"; without one the kind's exact sign of the margin itself)
 */
static int
predict_sign(const ModelPredictor *m, int sign, long double value)
{
	if (m->threshold == 0)
		return sign;
	return value > m->threshold ? 1 : value == m->threshold ? 0 : -1;
}

ModelRowStatus
model_predict_row_margin(const ModelPredictor *m, const double *x, int *sign,
						 long double *value)
{
	bool		exact;
	ModelRowStatus st;

	*value = 0;
	st = m->kind->margin(m, x, sign, value, &exact);
	*sign = predict_sign(m, *sign, *value);
	return st;
}

ModelRowStatus
model_predict_row(const ModelPredictor *m, const double *x, int *sign)
{
	long double value;

	return model_predict_row_margin(m, x, sign, &value);
}

double
model_predictor_threshold(const ModelPredictor *m)
{
	return m->threshold;
}

ModelRowStatus
model_predict_value(const ModelPredictor *m, const double *x, long double *value)
{
	int			sign;
	bool		exact;

	return m->kind->margin(m, x, &sign, value, &exact);
}

/* ---- dpobj.predict, dpobj.score and dpobj.probability ---- */

static void *
predict_unpack(HeapTupleHeader th, MemoryContext cxt)
{
	return model_unpack(th, cxt);
}

/* the predictor of argument 0, cached while the same model is passed */
static ModelPredictor *
predict_cached(FunctionCallInfo fcinfo)
{
	return (ModelPredictor *) model_cached(fcinfo, predict_unpack);
}

/* argument 1: a one-dimensional feature array without NULLs, one value per feature */
static const double *
predict_features(FunctionCallInfo fcinfo, const ModelPredictor *m)
{
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(1);
	int			n;

	if (ARR_NDIM(arr) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("feature array must be one-dimensional"),
				 errhint("Pass one float8[] of features per row.")));
	n = ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr));
	if (n != m->d)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 m->kind->reads_features ?
				 errmsg("feature array has %d elements but the model reads %d features", n, m->d) :
				 errmsg("feature array has %d elements but the model has %d weights", n, m->d),
				 errhint("Encode the features exactly as for training.")));
	model_features_not_null(arr);
	return (const double *) ARR_DATA_PTR(arr);
}

/* the margin of argument 1's features; an error for a vector it cannot evaluate */
static long double
predict_margin(FunctionCallInfo fcinfo, const ModelPredictor *m, int *sign, bool *exact)
{
	const double *x = predict_features(fcinfo, m);
	long double value = 0;
	ModelRowStatus st = m->kind->margin(m, x, sign, &value, exact);

	if (st == MODEL_ROW_NOT_ONE_HOT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("features must have exactly one 1 among each categorical term's coordinates"),
				 errhint("Encode the features exactly as for training (dpobj.encode).")));
	if (st == MODEL_ROW_OUT_OF_RANGE || (st != MODEL_ROW_OK && m->kind->ranged))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("features must be finite and within the supported range"),
				 errhint("Scale features exactly as for training.")));
	if (st != MODEL_ROW_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("features must be finite"),
				 errhint("Impute non-finite features as for training.")));
	return value;
}

/*
 * dpobj.predict(model, float8[]) -> boolean: true iff the margin > the
 * model's threshold (params "threshold", else 0)
 */
Datum
dpobj_predict(PG_FUNCTION_ARGS)
{
	ModelPredictor *m = predict_cached(fcinfo);
	int			sign = 0;
	bool		exact;
	long double value = predict_margin(fcinfo, m, &sign, &exact);

	PG_RETURN_BOOL(predict_sign(m, sign, value) > 0);
}

/* the margin as a float8 score, or an error when it is not one */
static double
predict_score(FunctionCallInfo fcinfo, const ModelPredictor *m)
{
	int			sign = 0;
	bool		exact = true;
	long double value = predict_margin(fcinfo, m, &sign, &exact);

	if (!exact)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("the margin of these features under the model exceeds the exact integer range"),
				 errhint("Scale features exactly as for training.")));
	if (!isfinite((double) value))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("the margin of these features under the model is out of the range of double precision"),
				 errhint("Scale features exactly as for training; dpobj.predict() still gives the sign.")));
	return (double) value;
}

/* dpobj.score(model, float8[]) -> float8: the margin */
Datum
dpobj_score(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(predict_score(fcinfo, predict_cached(fcinfo)));
}

/*
 * dpobj.probability(model, float8[]) -> float8: P(label = true) =
 * 1 / (1 + exp(-margin)) for a model whose margin is a log-odds (params
 * "loss": "logistic", or an additive model's "link": "logit"), the margin
 * clamped to [-700, 700].
 */
Datum
dpobj_probability(PG_FUNCTION_ARGS)
{
	ModelPredictor *m = predict_cached(fcinfo);
	double		s;

	if (!m->logistic)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dpobj.probability needs a logistic model"),
				 errhint("Train with dpobj.dp_logistic or dpobj.dp_noisysgd and \"loss\": \"logistic\"; use dpobj.score for other models.")));
	s = predict_score(fcinfo, m);
	s = Max(-700.0, Min(700.0, s));
	PG_RETURN_FLOAT8(1.0 / (1.0 + exp(-s)));
}
