/*-------------------------------------------------------------------------
 *
 * model.c
 *	  Construction of dpobj.model values (model.h).  Their prediction,
 *	  dpobj.predict(model, features) and dpobj.score(model, features), is
 *	  predict.c.
 *
 *-------------------------------------------------------------------------
 */
#include "model/model.h"
#include "base/dpobj.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "nodes/makefuncs.h"
#include "parser/parse_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

/* attribute numbers of dpobj.model */
#define MODEL_NATTS			6
#define MODEL_MECHANISM		0
#define MODEL_WEIGHTS		1
#define MODEL_BIAS			2
#define MODEL_EPSILON		3
#define MODEL_DELTA			4
#define MODEL_PARAMS		5

Oid
model_type_oid(void)
{
	List	   *names = list_make2(makeString("dpobj"), makeString("model"));

	return LookupTypeNameOid(NULL, makeTypeNameFromNameList(names), false);
}

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
model_params_bool(StringInfo buf, const char *key, bool value)
{
	params_key(buf, key);
	appendStringInfoString(buf, value ? "true" : "false");
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
