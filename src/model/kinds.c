/*-------------------------------------------------------------------------
 *
 * kinds.c
 *	  The model kind table and its dispatch (kinds.h, kindsint.h): which
 *	  kind a stored model is, and the unpacking every kind shares.
 *
 * Every released model records its shape in its params ("classes": multi-
 * class, a family kind's marker: "Q", "terms", ...; none: linear), the
 * rule 0.1.0-0.4.0 read models by.  The families' kinds and what the
 * shape does not say come from the mechanism registry
 * (src/families/registry.c, above this layer): at load it adds each
 * family's kind (model_kind_add) and registers its entries' model names
 * with their kinds (model_kind_register), so the model layer names no
 * family nor mechanism: a regression's mechanism predicts a value, and an
 * additive mechanism's model without "terms" is forged.
 *
 *-------------------------------------------------------------------------
 */
#include "model/kindsint.h"
#include "model/encode.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

#define MODEL_KIND_TABLE_MAX	64
#define MODEL_KINDS_MAX			16

typedef struct KindName
{
	const char *mechanism;
	ModelKind	kind;
} KindName;

static KindName kind_names[MODEL_KIND_TABLE_MAX];
static int	kind_nnames;

/* the kinds with a marker, in the order markers are read: the floor's, then the families' */
static ModelKind kinds[MODEL_KINDS_MAX] = {&model_kind_multiclass};
static int	nkinds = 1;

void
model_kind_register(const char *mechanism, ModelKind kind)
{
	if (kind == MODEL_KIND_NONE)
		return;
	if (kind_nnames >= MODEL_KIND_TABLE_MAX)
		elog(ERROR, "too many model names in the kind table");
	kind_names[kind_nnames].mechanism = mechanism;
	kind_names[kind_nnames++].kind = kind;
}

void
model_kind_add(ModelKind kind)
{
	if (kind == MODEL_KIND_NONE)
		return;
	for (int i = 0; i < nkinds; i++)
		if (kinds[i] == kind)
			return;
	if (nkinds >= MODEL_KINDS_MAX)
		elog(ERROR, "too many model kinds");
	kinds[nkinds++] = kind;
}

const char *
model_kind_name(ModelKind kind)
{
	return kind == MODEL_KIND_NONE ? "none" : kind->name;
}

void
model_forged(const char *what, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s", what),
			 errhint("%s", hint)));
}

Jsonb *
model_params_object(HeapTupleHeader th)
{
	bool		isnull;
	Datum		datum = GetAttributeByNum(th, MODEL_ATT_PARAMS, &isnull);
	Jsonb	   *params;

	if (isnull)
		return NULL;
	params = DatumGetJsonbP(datum);
	if (!JB_ROOT_IS_OBJECT(params) || JB_ROOT_IS_SCALAR(params))
		return NULL;
	return params;
}

bool
model_json_number(const JsonbValue *v, double *out)
{
	if (v == NULL || v->type != jbvNumeric)
		return false;
	*out = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
											  NumericGetDatum(v->val.numeric)));
	return isfinite(*out);
}

bool
model_json_int(const JsonbValue *v, int64 lo, int64 hi, int64 *out)
{
	double		x;

	/* within int64 before the cast: (double) hi may round up to 2^63 */
	if (!model_json_number(v, &x) || x != floor(x) || x < (double) lo || x > (double) hi ||
		!(x >= -9223372036854775808.0 && x < 9223372036854775808.0))
		return false;
	*out = (int64) x;
	return true;
}

bool
model_param_number(Jsonb *params, const char *key, double *out)
{
	return model_json_number(getKeyJsonValueFromContainer(&params->root, key, strlen(key), NULL),
							 out);
}

static bool
has_key(Jsonb *params, const char *key)
{
	return params != NULL &&
		getKeyJsonValueFromContainer(&params->root, key, strlen(key), NULL) != NULL;
}

/* the kind its params' markers say (older and hand-built models), the first in kinds[] */
static ModelKind
kind_by_markers(Jsonb *params)
{
	for (int i = 0; i < nkinds; i++)
		if (kinds[i]->marker != NULL && has_key(params, kinds[i]->marker))
			return kinds[i];
	return MODEL_KIND_LINEAR;
}

/* the kind the registry gives the model's mechanism name, or MODEL_KIND_NONE */
static ModelKind
kind_registered(HeapTupleHeader th)
{
	bool		isnull;
	Datum		datum = GetAttributeByNum(th, MODEL_ATT_MECHANISM, &isnull);
	char	   *mech = isnull ? NULL : TextDatumGetCString(datum);

	for (int i = 0; mech != NULL && i < kind_nnames; i++)
		if (strcmp(kind_names[i].mechanism, mech) == 0)
			return kind_names[i].kind;
	return MODEL_KIND_NONE;
}

/* the markers' kind; a linear shape is the registered kind's when that claims it */
static ModelKind
kind_of(HeapTupleHeader th)
{
	ModelKind	marked = kind_by_markers(model_params_object(th));
	ModelKind	reg = kind_registered(th);

	if (marked == MODEL_KIND_LINEAR && reg != MODEL_KIND_NONE && reg->by_mechanism)
		return reg;
	return marked;
}

ModelKind
model_kind_of(Datum model)
{
	return kind_of(DatumGetHeapTupleHeader(model));
}

/* weights and bias: a one-dimensional float8 array, finite values only */
static void
read_weights(HeapTupleHeader th, ModelPredictor *m)
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
	m->nw = ArrayGetNItems(1, ARR_DIMS(warr));
	m->w = palloc(sizeof(double) * Max(m->nw, 1));
	memcpy(m->w, ARR_DATA_PTR(warr), sizeof(double) * m->nw);
	m->d = m->nw;

	datum = GetAttributeByNum(th, MODEL_ATT_BIAS, &isnull);
	m->bias = isnull ? 0.0 : DatumGetFloat8(datum);

	for (int j = 0; j < m->nw; j++)
		if (!isfinite(m->w[j]))
			model_forged("model weights must be finite numbers",
						 "Use a model returned by a dpobj training function.");
	if (!isfinite(m->bias))
		model_forged("model bias must be a finite number",
					 "Use a model returned by a dpobj training function.");
}

/*
 * params "threshold" (a binary classifier's operating point, from 0.6.0): a
 * finite number, only on a kind with one (a linear or additive classifier;
 * a regression's or a halfspace's margin has none); absent, predict()
 * keeps its cut-off 0
 */
static void
read_threshold(ModelPredictor *m)
{
	JsonbValue *v = m->params ? getKeyJsonValueFromContainer(&m->params->root, "threshold", 9, NULL) : NULL;

	m->threshold = 0;
	m->has_threshold = v != NULL;
	if (v == NULL)
		return;
	if (!m->kind->threshold || m->regression ||
		!model_param_number(m->params, "threshold", &m->threshold))
		model_forged("model params: \"threshold\" must be a finite number, of a linear or additive classifier",
					 "Use a model returned by a dpobj training function.");
}

/* a released model has a mechanism name and params, a JSON object */
static void
read_header(HeapTupleHeader th)
{
	bool		mech_null,
				params_null;
	Datum		params;

	(void) GetAttributeByNum(th, MODEL_ATT_MECHANISM, &mech_null);
	params = GetAttributeByNum(th, MODEL_ATT_PARAMS, &params_null);
	if (mech_null || params_null)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("model has no mechanism or no params"),
				 errhint("Use a model returned by a dpobj training function.")));
	if (!JB_ROOT_IS_OBJECT(DatumGetJsonbP(params)) || JB_ROOT_IS_SCALAR(DatumGetJsonbP(params)))
		model_forged("model params must be a JSON object",
					 "Use a model returned by a dpobj training function.");
}

void
model_check_features(Jsonb *params, int d)
{
	JsonbValue *v = params ? getKeyJsonValueFromContainer(&params->root, "encoding", 8, NULL) : NULL;
	int64		pd;

	if (v != NULL && encoding_parse(JsonbValueToJsonb(v))->d != d)
		model_forged("model params: \"encoding\" does not encode the features the model reads",
					 "Use a model returned by dpobj.train() (its params carry the encoding it used).");
	v = params ? getKeyJsonValueFromContainer(&params->root, "d", 1, NULL) : NULL;
	if (v != NULL && (!model_json_int(v, d, d, &pd)))
		model_forged("model params: \"d\" is not the number of features the model reads",
					 "Use a model returned by a dpobj training function.");
}

/*
 * Every check is on the model alone, before any feature vector is looked
 * at, so that whether a model is accepted never depends on the rows it is
 * applied to (dpobj.evaluate() checks it before the charge).
 */
ModelPredictor *
model_unpack_any(HeapTupleHeader th, MemoryContext mcxt)
{
	MemoryContext old = MemoryContextSwitchTo(mcxt);
	ModelPredictor *m = palloc0(sizeof(ModelPredictor));
	Jsonb	   *params;
	ModelKind	marked;

	read_header(th);
	params = model_params_object(th);
	if (params != NULL)
	{
		m->params = palloc(VARSIZE(params));
		memcpy(m->params, params, VARSIZE(params));
	}
	marked = kind_by_markers(params);
	/* a kind without prediction (a synthesizer's model draws rows) */
	if (marked->refuse != NULL)
		model_forged(marked->refuse, marked->refuse_hint);
	/* a multi-class model's weights are K vectors: its kind reads them */
	if (!marked->own_weights)
		read_weights(th, m);
	m->kind = kind_of(th);
	/* a regression's mechanism: its value is the prediction (a lattice has no range) */
	m->regression = kind_registered(th) == MODEL_KIND_REGRESSION;
	m->kind->unpack(m, th);
	model_check_features(m->params, m->d);
	read_threshold(m);
	MemoryContextSwitchTo(old);
	return m;
}
