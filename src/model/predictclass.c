/*-------------------------------------------------------------------------
 *
 * predictclass.c
 *	  dpobj.predict_class(model, features): the class of a feature vector
 *	  under a multi-class model (glmmulticlass.c) -- the argmax over the
 *	  classes of the score <w_k, x> + b_k, ties to the first declared class.
 *
 * The model's layout (public): weights K x p flattened class by class, p =
 * params->'dims'[1] = d + 1 with an intercept (the last entry of each
 * class's vector), else d; params->'classes' the K labels; bias 0.  The
 * model is validated completely when unpacked, before any feature vector
 * is looked at; scores are summed in long double, so no finite input
 * overflows.
 *
 *-------------------------------------------------------------------------
 */
#include "model/predictclass.h"
#include "model/modelargs.h"
#include "model/kindsint.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

PG_FUNCTION_INFO_V1(dpobj_predict_class);

static void
class_model_bad(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s", what),
			 errhint("Use a model returned by dpobj.dp_logistic_multiclass or dpobj.dp_noisysgd_multiclass.")));
}

bool
model_is_multiclass(Datum model)
{
	return model_kind_of(model) == MODEL_KIND_MULTICLASS;
}

/* a JSON integer in [lo, hi], else -1 */
static int
json_int(JsonbValue *v, int lo, int hi)
{
	int64		x;

	return model_json_int(v, lo, hi, &x) ? (int) x : -1;
}

/* params: "classes" (K strings) and "dims" [K, p] */
static void
class_read_params(HeapTupleHeader th, ClassPredictor *m)
{
	Jsonb	   *params = model_params_object(th);
	JsonbValue *cv = params ? getKeyJsonValueFromContainer(&params->root, "classes", 7, NULL) : NULL;
	JsonbValue *dv = params ? getKeyJsonValueFromContainer(&params->root, "dims", 4, NULL) : NULL;

	if (cv == NULL || cv->type != jbvBinary || !JsonContainerIsArray(cv->val.binary.data) ||
		dv == NULL || dv->type != jbvBinary || !JsonContainerIsArray(dv->val.binary.data) ||
		JsonContainerSize(dv->val.binary.data) != 2)
		class_model_bad("model is not a multi-class model (params need \"classes\" and \"dims\")");
	m->K = JsonContainerSize(cv->val.binary.data);
	if (m->K < 2 || json_int(getIthJsonbValueFromContainer(dv->val.binary.data, 0), 2, 1 << 20) != m->K)
		class_model_bad("multi-class model params: \"dims\"[0] must be the number of classes (at least 2)");
	m->pp = json_int(getIthJsonbValueFromContainer(dv->val.binary.data, 1), 1, 1 << 20);
	if (m->pp < 1)
		class_model_bad("multi-class model params: \"dims\"[1] must be a positive integer");
	m->classes = palloc(sizeof(char *) * m->K);
	for (int k = 0; k < m->K; k++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(cv->val.binary.data, k);

		if (e == NULL || e->type != jbvString)
			class_model_bad("multi-class model params: \"classes\" must be an array of strings");
		m->classes[k] = pnstrdup(e->val.string.val, e->val.string.len);
	}
	/* an intercept is the last entry of each class's vector */
	dv = getKeyJsonValueFromContainer(&params->root, "intercept", 9, NULL);
	m->d = m->pp - ((dv != NULL && dv->type == jbvBool && dv->val.boolean) ? 1 : 0);
	if (m->d < 1)
		class_model_bad("multi-class model params: \"dims\"[1] leaves no feature");
	model_check_features(params, m->d);
}

/* weights: K x pp finite float8 values, no NULLs; bias 0 */
static void
class_read_weights(HeapTupleHeader th, ClassPredictor *m)
{
	bool		isnull;
	Datum		datum = GetAttributeByNum(th, MODEL_ATT_WEIGHTS, &isnull);
	ArrayType  *warr;

	if (isnull)
		class_model_bad("model has no weights");
	warr = DatumGetArrayTypeP(datum);
	if (ARR_NDIM(warr) != 1 || array_contains_nulls(warr) || ARR_ELEMTYPE(warr) != FLOAT8OID ||
		(int64) ArrayGetNItems(1, ARR_DIMS(warr)) != (int64) m->K * m->pp)
		class_model_bad("multi-class model weights must be a float8 array of K x p values (params \"dims\") without NULLs");
	m->w = palloc(sizeof(double) * m->K * m->pp);
	memcpy(m->w, ARR_DATA_PTR(warr), sizeof(double) * m->K * m->pp);
	for (int j = 0; j < m->K * m->pp; j++)
		if (!isfinite(m->w[j]))
			class_model_bad("model weights must be finite numbers");
	datum = GetAttributeByNum(th, MODEL_ATT_BIAS, &isnull);
	if (!isnull && DatumGetFloat8(datum) != 0.0)
		class_model_bad("multi-class model must have bias 0 (each class's intercept is in its weights)");
}

ClassPredictor *
class_predictor(Datum model, MemoryContext mcxt)
{
	HeapTupleHeader th = DatumGetHeapTupleHeader(model);
	MemoryContext old = MemoryContextSwitchTo(mcxt);
	ClassPredictor *m = palloc0(sizeof(ClassPredictor));

	class_read_params(th, m);
	class_read_weights(th, m);
	MemoryContextSwitchTo(old);
	return m;
}

int
class_predict_row(const ClassPredictor *m, const double *x)
{
	int			best = 0;
	long double best_s = 0;

	for (int j = 0; j < m->d; j++)
		if (!isfinite(x[j]))
			return -1;
	for (int k = 0; k < m->K; k++)
	{
		const double *w = m->w + (Size) k * m->pp;
		long double s = m->pp > m->d ? w[m->d] : 0;

		for (int j = 0; j < m->d; j++)
			s += (long double) w[j] * x[j];
		if (k == 0 || s > best_s)
		{
			best = k;
			best_s = s;
		}
	}
	return best;
}

static void *
class_unpack(HeapTupleHeader th, MemoryContext cxt)
{
	return class_predictor(PointerGetDatum(th), cxt);
}

/* the predictor of argument 0, cached while the same model is passed */
static ClassPredictor *
class_cached(FunctionCallInfo fcinfo)
{
	return (ClassPredictor *) model_cached(fcinfo, class_unpack);
}

/* dpobj.predict_class(model, float8[]) -> text */
Datum
dpobj_predict_class(PG_FUNCTION_ARGS)
{
	ClassPredictor *m = class_cached(fcinfo);
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(1);
	int			k;

	if (ARR_NDIM(arr) > 1 || ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr)) != m->d)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("feature array must be one-dimensional with %d elements, one per feature of the model", m->d),
				 errhint("Encode the features exactly as for training.")));
	model_features_not_null(arr);
	k = class_predict_row(m, (const double *) ARR_DATA_PTR(arr));
	if (k < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("features must be finite"),
				 errhint("Impute non-finite features as for training.")));
	PG_RETURN_TEXT_P(cstring_to_text(m->classes[k]));
}

/* ---- the multi-class model kind (kinds.h) ---- */

static void
multiclass_unpack(ModelPredictor *m, HeapTupleHeader th)
{
	ClassPredictor *cm = class_predictor(PointerGetDatum(th), CurrentMemoryContext);

	m->kd = cm;
	m->d = cm->d;
}

/* each class's weights and intercept, as a linear model's */
static void
multiclass_explain(const ModelPredictor *m, ExplainOut *out)
{
	const ClassPredictor *cm = m->kd;

	for (int k = 0; k < cm->K; k++)
	{
		const double *w = cm->w + (Size) k * cm->pp;

		explain_linear_weights(m, cm->classes[k], w, cm->d, cm->pp > cm->d ? w[cm->d] : 0, out);
	}
}

const ModelKindOps model_kind_multiclass = {.name = "multiclass", .marker = "classes",
.own_weights = true, .unpack = multiclass_unpack, .explain = multiclass_explain};
