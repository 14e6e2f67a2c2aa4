/*-------------------------------------------------------------------------
 *
 * predict.c
 *	  The prediction functions dpobj.predict(model, features) and
 *	  dpobj.score(model, features), and the validated model they share with
 *	  the private evaluation (predict.h).
 *
 * Halfspace models (their params carry the feature quantum "Q") predict
 * exactly as the oracle decided during training: the features are rounded
 * to (1/Q)Z with the same rule as the transition function, the margin
 * <w, a> is computed in integers, and the prediction is +1 iff
 * <w, x> > 0, i.e. sgn(0) = -1 (docs/ALGORITHMS.md, "The algorithms dpobj
 * implements": one definition everywhere).
 * Other models use the plain float margin <w, x> + bias.
 *
 * A model is validated completely when it is unpacked, before any feature
 * vector is looked at, so that whether a model is accepted never depends on
 * the rows it is applied to (dpobj.evaluate() checks it before the charge).
 * After that the sign of the margin is total: the only vectors it cannot
 * evaluate are non-finite ones and, for lattice models, those with
 * |round(Q x)| > 2^31 -- reported as a status, never raised, so that the
 * protected path can drop such a row like any other bad row.
 *
 *-------------------------------------------------------------------------
 */
#include "model/predict.h"
#include "model/modelargs.h"
#include "base/dpobj.h"
#include "model/predictclass.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "common/int128.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

PG_FUNCTION_INFO_V1(dpobj_predict);
PG_FUNCTION_INFO_V1(dpobj_score);

/* attribute numbers (from 1) of dpobj.model */
#define MODEL_ATT_MECHANISM	1
#define MODEL_ATT_WEIGHTS	2
#define MODEL_ATT_BIAS		3
#define MODEL_ATT_PARAMS	6

/* largest |weight| of a lattice model: |w a| <= 1e6 * 2^31 < 2^51 */
#define MODEL_MAX_LATTICE_WEIGHT	1e6

struct ModelPredictor
{
	int			d;
	double	   *w;
	double		bias;
	int			Q;				/* 0: float margin; > 0: exact lattice margin */
	int64	   *wi;				/* integer weights when Q > 0 */
	bool		regression;		/* mechanism "adassp" or "ssp" */
	bool		range_ok;		/* params y_min < y_max, finite */
	double		y_min;
	double		y_max;
};

static void
model_forged(const char *what, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s", what),
			 errhint("%s", hint)));
}

/* weights and bias: a one-dimensional float8 array, finite values only */
static void
model_read_weights(HeapTupleHeader th, ModelPredictor *m)
{
	bool		isnull;
	Datum		datum;
	ArrayType  *warr;

	datum = GetAttributeByNum(th, MODEL_ATT_WEIGHTS, &isnull);
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("model has no weights"),
				 errhint("Use a model returned by a dpobj training function.")));
	warr = DatumGetArrayTypeP(datum);
	if (ARR_NDIM(warr) != 1 || array_contains_nulls(warr) || ARR_ELEMTYPE(warr) != FLOAT8OID)
		model_forged("model weights must be a one-dimensional float8 array without NULLs",
					 "Use a model returned by a dpobj training function.");
	m->d = ArrayGetNItems(1, ARR_DIMS(warr));
	m->w = palloc(sizeof(double) * Max(m->d, 1));
	memcpy(m->w, ARR_DATA_PTR(warr), sizeof(double) * m->d);

	datum = GetAttributeByNum(th, MODEL_ATT_BIAS, &isnull);
	m->bias = isnull ? 0.0 : DatumGetFloat8(datum);

	/* a forged model: no NaN or infinity in the margin's terms */
	for (int j = 0; j < m->d; j++)
		if (!isfinite(m->w[j]))
			model_forged("model weights must be finite numbers",
						 "Use a model returned by a dpobj training function.");
	if (!isfinite(m->bias))
		model_forged("model bias must be a finite number",
					 "Use a model returned by a dpobj training function.");
}

/*
 * params->'Q': absent (or params not an object) -> 0, a float model;
 * present -> it must be a lattice scale, an integer in [1, DPOBJ_MAX_Q].
 */
static int
model_read_Q(HeapTupleHeader th)
{
	bool		isnull;
	Datum		datum = GetAttributeByNum(th, MODEL_ATT_PARAMS, &isnull);
	Jsonb	   *params;
	JsonbValue *qv;
	double		q = 0;

	if (isnull)
		return 0;
	params = DatumGetJsonbP(datum);
	if (!JB_ROOT_IS_OBJECT(params) || JB_ROOT_IS_SCALAR(params))
		return 0;
	qv = getKeyJsonValueFromContainer(&params->root, "Q", 1, NULL);
	if (qv == NULL)
		return 0;
	if (qv->type == jbvNumeric)
		q = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
											   NumericGetDatum(qv->val.numeric)));
	if (!(q >= 1 && q <= DPOBJ_MAX_Q && q == floor(q)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("model parameter \"Q\" must be an integer between 1 and %d", DPOBJ_MAX_Q),
				 errhint("Use a model returned by dpobj.dp_halfspace (its params carry the feature quantum Q).")));
	return (int) q;
}

/* lattice models have integer weights and no bias: their exact int64 copy */
static void
model_read_lattice(ModelPredictor *m)
{
	m->wi = palloc(sizeof(int64) * Max(m->d, 1));
	for (int j = 0; j < m->d; j++)
	{
		if (m->w[j] != floor(m->w[j]) || fabs(m->w[j]) > MODEL_MAX_LATTICE_WEIGHT)
			model_forged("halfspace model weights must be integers",
						 "Use a model returned by dpobj.dp_halfspace.");
		m->wi[j] = (int64) m->w[j];
	}
	if (m->bias != 0.0)
		model_forged("halfspace model must have bias 0",
					 "Use a model returned by dpobj.dp_halfspace.");
}

/* params->key as a finite number into *out, or false */
static bool
model_param_number(Jsonb *params, const char *key, double *out)
{
	JsonbValue *v = getKeyJsonValueFromContainer(&params->root, key, strlen(key), NULL);

	if (v == NULL || v->type != jbvNumeric)
		return false;
	*out = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
											  NumericGetDatum(v->val.numeric)));
	return isfinite(*out);
}

/* a regression model (mechanism adassp or ssp) and its public label range */
static void
model_read_regression(HeapTupleHeader th, ModelPredictor *m)
{
	bool		isnull;
	Datum		datum = GetAttributeByNum(th, MODEL_ATT_MECHANISM, &isnull);
	char	   *mech;
	Jsonb	   *params;

	if (isnull)
		return;
	mech = TextDatumGetCString(datum);
	m->regression = strcmp(mech, "adassp") == 0 || strcmp(mech, "ssp") == 0;
	datum = GetAttributeByNum(th, MODEL_ATT_PARAMS, &isnull);
	if (!m->regression || isnull)
		return;
	params = DatumGetJsonbP(datum);
	if (!JB_ROOT_IS_OBJECT(params) || JB_ROOT_IS_SCALAR(params))
		return;
	/* a lattice model's margin is not a value: no range, refused by evaluate */
	m->range_ok = m->Q == 0 && model_param_number(params, "y_min", &m->y_min) &&
		model_param_number(params, "y_max", &m->y_max) && m->y_min < m->y_max;
}

static ModelPredictor *
model_unpack(HeapTupleHeader th, MemoryContext mcxt)
{
	MemoryContext old;
	ModelPredictor *m;

	/* K weight vectors: the sign of one margin is no prediction */
	if (model_is_multiclass(PointerGetDatum(th)))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("a multi-class model has no single margin"),
				 errhint("Use dpobj.predict_class(model, features) for a model with params \"classes\".")));
	old = MemoryContextSwitchTo(mcxt);
	m = palloc0(sizeof(ModelPredictor));
	model_read_weights(th, m);
	m->Q = model_read_Q(th);
	if (m->Q > 0)
		model_read_lattice(m);
	model_read_regression(th, m);
	MemoryContextSwitchTo(old);
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
 * The lattice margin <w, round(Q x)> in 128-bit integers: each term is
 * below 2^51 in magnitude, so no array that fits in memory overflows the
 * sum.  *fits: whether the sum also fits in int64 (into *s64).
 */
static ModelRowStatus
lattice_margin(const ModelPredictor *m, const double *x, int *sign, int64 *s64, bool *fits)
{
	INT128		s = int64_to_int128(0);

	for (int j = 0; j < m->d; j++)
	{
		double		q = x[j] * m->Q;

		if (!isfinite(q))
			return MODEL_ROW_NOT_FINITE;
		if (fabs(round(q)) > (double) DPOBJ_MAX_QUANTISED)
			return MODEL_ROW_OUT_OF_RANGE;
		int128_add_int64_mul_int64(&s, m->wi[j], (int64) round(q));
	}
	*sign = int128_compare(s, int64_to_int128(0));
	*fits = int128_compare(s, int64_to_int128(PG_INT64_MAX)) <= 0 &&
		int128_compare(s, int64_to_int128(PG_INT64_MIN)) >= 0;
	*s64 = *fits ? int128_to_int64(s) : 0;
	return MODEL_ROW_OK;
}

/*
 * The float margin <w, x> + bias in long double: its exponent range holds
 * any product and sum of finite float8 values, so no intermediate
 * overflows and the sign is right even when the margin exceeds float8.
 */
static ModelRowStatus
float_margin(const ModelPredictor *m, const double *x, int *sign, long double *value)
{
	long double s = m->bias;

	for (int j = 0; j < m->d; j++)
	{
		if (!isfinite(x[j]))
			return MODEL_ROW_NOT_FINITE;
		s += (long double) m->w[j] * x[j];
	}
	*sign = (s > 0) ? 1 : (s == 0 ? 0 : -1);
	*value = s;
	return MODEL_ROW_OK;
}

ModelRowStatus
model_predict_row(const ModelPredictor *m, const double *x, int *sign)
{
	int64		s64;
	bool		fits;
	long double value;

	if (m->Q > 0)
		return lattice_margin(m, x, sign, &s64, &fits);
	return float_margin(m, x, sign, &value);
}

ModelRowStatus
model_predict_value(const ModelPredictor *m, const double *x, long double *value)
{
	int			sign;

	Assert(m->Q == 0);
	return float_margin(m, x, &sign, value);
}

/* ---- dpobj.predict and dpobj.score ---- */

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

/* argument 1: a one-dimensional feature array without NULLs, one value per weight */
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
				 errmsg("feature array has %d elements but the model has %d weights", n, m->d),
				 errhint("Encode the features exactly as for training.")));
	model_features_not_null(arr);
	return (const double *) ARR_DATA_PTR(arr);
}

/* the error of a feature vector the model cannot evaluate */
static void
predict_row_error(const ModelPredictor *m, ModelRowStatus st)
{
	if (st == MODEL_ROW_OUT_OF_RANGE || m->Q > 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("features must be finite and within the supported range"),
				 errhint("Scale features exactly as for training.")));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("features must be finite"),
			 errhint("Impute non-finite features as for training.")));
}

/* dpobj.predict(model, float8[]) -> boolean: true iff <w, x> + bias > 0 */
Datum
dpobj_predict(PG_FUNCTION_ARGS)
{
	ModelPredictor *m = predict_cached(fcinfo);
	const double *x = predict_features(fcinfo, m);
	int			sign = 0;
	ModelRowStatus st = model_predict_row(m, x, &sign);

	if (st != MODEL_ROW_OK)
		predict_row_error(m, st);
	PG_RETURN_BOOL(sign > 0);
}

/* dpobj.score(model, float8[]) -> float8: the margin <w, x> + bias */
Datum
dpobj_score(PG_FUNCTION_ARGS)
{
	ModelPredictor *m = predict_cached(fcinfo);
	const double *x = predict_features(fcinfo, m);
	int			sign = 0;
	int64		s64 = 0;
	bool		fits = true;
	long double value = 0;
	ModelRowStatus st;

	st = m->Q > 0 ? lattice_margin(m, x, &sign, &s64, &fits)
		: float_margin(m, x, &sign, &value);
	if (st != MODEL_ROW_OK)
		predict_row_error(m, st);
	if (m->Q > 0 && !fits)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("the margin of these features under the model exceeds the exact integer range"),
				 errhint("Scale features exactly as for training.")));
	if (m->Q > 0)
		PG_RETURN_FLOAT8((double) s64 / m->Q);
	if (!isfinite((double) value))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("the margin of these features under the model is out of the range of double precision"),
				 errhint("Scale features exactly as for training; dpobj.predict() still gives the sign.")));
	PG_RETURN_FLOAT8((double) value);
}
