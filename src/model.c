/*-------------------------------------------------------------------------
 *
 * model.c
 *	  Construction of dpobj.model values and the prediction functions
 *	  dpobj.predict(model, features) and dpobj.score(model, features).
 *
 * Halfspace models (their params carry the feature quantum "Q") predict
 * exactly as the oracle decided during training: the features are rounded
 * to (1/Q)Z with the same rule as the transition function, the margin
 * <w, a> is computed in integers, and the prediction is +1 iff
 * <w, x> > 0, i.e. sgn(0) = -1 (ALGORITHMS.md: one definition everywhere).
 * Other models use the plain float margin <w, x> + bias.
 *
 *-------------------------------------------------------------------------
 */
#include "model.h"
#include "dpobj.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "common/int.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"

PG_FUNCTION_INFO_V1(dpobj_predict);
PG_FUNCTION_INFO_V1(dpobj_score);

/* attribute numbers of dpobj.model */
#define MODEL_NATTS			6
#define MODEL_MECHANISM		0
#define MODEL_WEIGHTS		1
#define MODEL_BIAS			2
#define MODEL_EPSILON		3
#define MODEL_DELTA			4
#define MODEL_PARAMS		5

void
model_params_begin(StringInfo buf)
{
	initStringInfo(buf);
	appendStringInfoChar(buf, '{');
}

static void
params_key(StringInfo buf, const char *key)
{
	if (buf->len > 1)
		appendStringInfoString(buf, ", ");
	escape_json(buf, key);
	appendStringInfoString(buf, ": ");
}

void
model_params_int(StringInfo buf, const char *key, int64 value)
{
	params_key(buf, key);
	appendStringInfo(buf, INT64_FORMAT, value);
}

void
model_params_float(StringInfo buf, const char *key, double value)
{
	/* JSON has no NaN or Infinity; a public parameter is always finite */
	if (!isfinite(value))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("model parameter \"%s\" is not a finite number", key),
				 errhint("Use a larger epsilon or delta, or smaller bounds; nothing was released.")));
	params_key(buf, key);
	appendStringInfoString(buf, float8out_internal(value));
}

void
model_params_text(StringInfo buf, const char *key, const char *value)
{
	params_key(buf, key);
	escape_json(buf, value);
}

void
model_params_end(StringInfo buf)
{
	appendStringInfoChar(buf, '}');
}

static void
model_not_finite(const char *mechanism)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("%s produced weights that are not finite numbers; no model was released", mechanism),
			 errdetail("The privacy budget of this run was charged."),
			 errhint("Use smaller bounds (e.g. \"R\", \"radius\") or a larger epsilon.")));
}

Datum
model_build(FunctionCallInfo fcinfo, const char *mechanism,
			const double *weights, int d, double bias,
			double epsilon, double delta, StringInfo params)
{
	TupleDesc	tupdesc;
	Datum		values[MODEL_NATTS];
	bool		nulls[MODEL_NATTS] = {false};
	Datum	   *elems = palloc(sizeof(Datum) * d);
	HeapTuple	tuple;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE ||
		tupdesc->natts != MODEL_NATTS)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("function returning dpobj.model called in an unexpected context"),
				 errhint("Reinstall the dpobj extension.")));
	tupdesc = BlessTupleDesc(tupdesc);

	/* never release a non-finite model: it would not be a DP output */
	for (int j = 0; j < d; j++)
		if (!isfinite(weights[j]))
			model_not_finite(mechanism);
	if (!isfinite(bias))
		model_not_finite(mechanism);
	for (int j = 0; j < d; j++)
		elems[j] = Float8GetDatum(weights[j]);
	values[MODEL_MECHANISM] = CStringGetTextDatum(mechanism);
	values[MODEL_WEIGHTS] = PointerGetDatum(construct_array(elems, d, FLOAT8OID,
															sizeof(float8), FLOAT8PASSBYVAL,
															TYPALIGN_DOUBLE));
	values[MODEL_BIAS] = Float8GetDatum(bias);
	values[MODEL_EPSILON] = Float8GetDatum(epsilon);
	values[MODEL_DELTA] = Float8GetDatum(delta);
	values[MODEL_PARAMS] = DirectFunctionCall1(jsonb_in, CStringGetDatum(params->data));

	tuple = heap_form_tuple(tupdesc, values, nulls);
	return HeapTupleGetDatum(tuple);
}

Datum
model_build_grid(FunctionCallInfo fcinfo, const char *mechanism, const int *w, int d,
				 double epsilon, double delta, StringInfo params)
{
	double	   *weights = palloc(sizeof(double) * Max(d, 1));

	for (int j = 0; j < d; j++)
		weights[j] = (double) w[j];
	return model_build(fcinfo, mechanism, weights, d, 0.0, epsilon, delta, params);
}

static void
model_forged(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s", what),
			 errhint("Use a model returned by a dpobj training function.")));
}

/*
 * A model unpacked for prediction, cached in fn_extra across rows while
 * the same model value is passed (the usual "predict(m, x) over a table").
 */
typedef struct ModelCache
{
	Size		len;			/* bytes of the cached model tuple */
	char	   *raw;			/* copy of the tuple, for equality checks */
	int			d;
	double	   *w;
	double		bias;
	int			Q;				/* 0: float margin; > 0: exact lattice margin */
	int64	   *wi;				/* integer weights when Q > 0 */
} ModelCache;

/* An empty cache in fn_mcxt (the previous model's arrays freed) */
static ModelCache *
model_cache_reset(FunctionCallInfo fcinfo, ModelCache *cache)
{
	if (cache == NULL)
		cache = palloc0(sizeof(ModelCache));
	else
	{
		pfree(cache->raw);
		if (cache->w)
			pfree(cache->w);
		if (cache->wi)
			pfree(cache->wi);
		memset(cache, 0, sizeof(ModelCache));
	}
	fcinfo->flinfo->fn_extra = cache;
	return cache;
}

/* weights and bias: a one-dimensional float8 array, finite values only */
static void
model_read_weights(HeapTupleHeader th, ModelCache *cache)
{
	bool		isnull;
	Datum		datum;
	ArrayType  *warr;

	datum = GetAttributeByNum(th, MODEL_WEIGHTS + 1, &isnull);
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("model has no weights"),
				 errhint("Use a model returned by a dpobj training function.")));
	warr = DatumGetArrayTypeP(datum);
	if (ARR_NDIM(warr) != 1 || array_contains_nulls(warr) || ARR_ELEMTYPE(warr) != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("model weights must be a one-dimensional float8 array without NULLs"),
				 errhint("Use a model returned by a dpobj training function.")));
	cache->d = ArrayGetNItems(1, ARR_DIMS(warr));
	cache->w = palloc(sizeof(double) * Max(cache->d, 1));
	memcpy(cache->w, ARR_DATA_PTR(warr), sizeof(double) * cache->d);

	datum = GetAttributeByNum(th, MODEL_BIAS + 1, &isnull);
	cache->bias = isnull ? 0.0 : DatumGetFloat8(datum);

	/* a forged model: no NaN or infinity in the margin's terms */
	for (int j = 0; j < cache->d; j++)
		if (!isfinite(cache->w[j]))
			model_forged("model weights must be finite numbers");
	if (!isfinite(cache->bias))
		model_forged("model bias must be a finite number");
}

/* params->'Q' when it is a valid lattice scale, else 0 (not a lattice model) */
static int
model_read_Q(HeapTupleHeader th)
{
	bool		isnull;
	Datum		datum = GetAttributeByNum(th, MODEL_PARAMS + 1, &isnull);
	Jsonb	   *params;
	JsonbValue *qv;
	double		q;

	if (isnull)
		return 0;
	params = DatumGetJsonbP(datum);
	if (!JB_ROOT_IS_OBJECT(params))
		return 0;
	qv = getKeyJsonValueFromContainer(&params->root, "Q", 1, NULL);
	if (qv == NULL || qv->type != jbvNumeric)
		return 0;
	q = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
										   NumericGetDatum(qv->val.numeric)));
	return (q >= 1 && q <= DPOBJ_MAX_Q && q == floor(q)) ? (int) q : 0;
}

/* lattice models have integer weights and no bias: their exact int64 copy */
static void
model_read_lattice(ModelCache *cache)
{
	cache->wi = palloc(sizeof(int64) * Max(cache->d, 1));
	for (int j = 0; j < cache->d; j++)
	{
		if (cache->w[j] != floor(cache->w[j]) || fabs(cache->w[j]) > 1e6)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("halfspace model weights must be integers"),
					 errhint("Use a model returned by dpobj.dp_halfspace.")));
		cache->wi[j] = (int64) cache->w[j];
	}
	if (cache->bias != 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("halfspace model must have bias 0"),
				 errhint("Use a model returned by dpobj.dp_halfspace.")));
}

static ModelCache *
model_unpack(FunctionCallInfo fcinfo, HeapTupleHeader th)
{
	ModelCache *cache = (ModelCache *) fcinfo->flinfo->fn_extra;
	Size		len = HeapTupleHeaderGetDatumLength(th);
	MemoryContext old;

	if (cache != NULL && cache->len == len && memcmp(cache->raw, th, len) == 0)
		return cache;

	old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
	cache = model_cache_reset(fcinfo, cache);
	model_read_weights(th, cache);
	cache->Q = model_read_Q(th);
	if (cache->Q > 0)
		model_read_lattice(cache);
	cache->len = len;
	cache->raw = palloc(len);
	memcpy(cache->raw, th, len);
	MemoryContextSwitchTo(old);
	return cache;
}

/*
 * Margin of x under the model.  For lattice models *exact_sign is the sign
 * of the exact integer margin <w, a> (a = round(Q x)).
 */
static double
model_margin(FunctionCallInfo fcinfo, int *exact_sign, bool want_value)
{
	HeapTupleHeader th = PG_GETARG_HEAPTUPLEHEADER(0);
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(1);
	ModelCache *m = model_unpack(fcinfo, th);
	const float8 *x;
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
	if (array_contains_nulls(arr))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("feature array must not contain NULL elements"),
				 errhint("Impute missing features as for training.")));
	x = (const float8 *) ARR_DATA_PTR(arr);

	if (m->Q > 0)
	{
		int64		s = 0;

		for (int j = 0; j < n; j++)
		{
			double		q = x[j] * m->Q;

			if (!isfinite(q) || fabs(round(q)) > (double) DPOBJ_MAX_QUANTISED)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("features must be finite and within the supported range"),
						 errhint("Scale features exactly as for training.")));
			/* |w| <= 1e6 and |a| <= 2^31: the product fits; the sum may not */
			if (pg_add_s64_overflow(s, m->wi[j] * (int64) round(q), &s))
				ereport(ERROR,
						(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
						 errmsg("the margin of these features under the model exceeds the exact integer range"),
						 errhint("Scale features exactly as for training.")));
		}
		*exact_sign = (s >= 1) ? 1 : (s == 0 ? 0 : -1);
		return (double) s / m->Q;
	}
	else
	{
		/*
		 * Accumulated in long double: its exponent range holds any product
		 * and sum of finite float8 values, so no intermediate overflows and
		 * the sign is right even when the margin exceeds float8.
		 */
		long double s = m->bias;

		for (int j = 0; j < n; j++)
		{
			if (!isfinite(x[j]))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("features must be finite"),
						 errhint("Impute non-finite features as for training.")));
			s += (long double) m->w[j] * x[j];
		}
		*exact_sign = (s > 0) ? 1 : (s == 0 ? 0 : -1);
		if (!want_value)
			return 0.0;
		if (!isfinite((double) s))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("the margin of these features under the model is out of the range of double precision"),
					 errhint("Scale features exactly as for training; dpobj.predict() still gives the sign.")));
		return (double) s;
	}
}

/* dpobj.predict(model, float8[]) -> boolean: true iff <w, x> + bias > 0 */
Datum
dpobj_predict(PG_FUNCTION_ARGS)
{
	int			sign;

	(void) model_margin(fcinfo, &sign, false);
	PG_RETURN_BOOL(sign > 0);
}

/* dpobj.score(model, float8[]) -> float8: the margin <w, x> + bias */
Datum
dpobj_score(PG_FUNCTION_ARGS)
{
	int			sign;

	PG_RETURN_FLOAT8(model_margin(fcinfo, &sign, true));
}
