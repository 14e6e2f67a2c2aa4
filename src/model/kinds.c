/*-------------------------------------------------------------------------
 *
 * kinds.c
 *	  The model kind table and its dispatch (kinds.h, kindsint.h): which
 *	  kind a stored model is, and the unpacking every kind shares.
 *
 * Every released model records its shape in its params ("classes": multi-
 * class, "Q": halfspace, "terms": additive, none: linear), the rule
 * 0.1.0-0.4.0 read models by.  What the shape does not say comes from the
 * mechanism registry (src/families/registry.c, above this layer), which names each
 * entry's model kind and registers its model names here at load, so the
 * model layer never names a mechanism: a regression's mechanism predicts
 * a value, and an additive mechanism's model without "terms" is forged.
 *
 *-------------------------------------------------------------------------
 */
#include "model/kindsint.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

#define MODEL_KIND_TABLE_MAX	64

typedef struct KindName
{
	const char *mechanism;
	ModelKind	kind;
} KindName;

static KindName kind_names[MODEL_KIND_TABLE_MAX];
static int	kind_nnames;

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

const char *
model_kind_name(ModelKind kind)
{
	static const char *const names[] = {"none", "linear", "regression", "halfspace",
	"multiclass", "additive", "synthesizer"};

	return names[kind];
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
model_param_number(Jsonb *params, const char *key, double *out)
{
	JsonbValue *v = getKeyJsonValueFromContainer(&params->root, key, strlen(key), NULL);

	if (v == NULL || v->type != jbvNumeric)
		return false;
	*out = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
											  NumericGetDatum(v->val.numeric)));
	return isfinite(*out);
}

static bool
has_key(Jsonb *params, const char *key)
{
	return params != NULL &&
		getKeyJsonValueFromContainer(&params->root, key, strlen(key), NULL) != NULL;
}

/* the kind its params' markers say (older and hand-built models) */
static ModelKind
kind_by_markers(Jsonb *params)
{
	if (has_key(params, "classes"))
		return MODEL_KIND_MULTICLASS;
	if (has_key(params, "Q"))
		return MODEL_KIND_HALFSPACE;
	if (has_key(params, "terms"))
		return MODEL_KIND_ADDITIVE;
	if (has_key(params, "synthesizer"))
		return MODEL_KIND_SYNTHESIZER;
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

/* the markers' kind; a linear shape is the registered kind's when that has none */
static ModelKind
kind_of(HeapTupleHeader th)
{
	ModelKind	marked = kind_by_markers(model_params_object(th));
	ModelKind	reg = kind_registered(th);

	if (marked == MODEL_KIND_LINEAR &&
		(reg == MODEL_KIND_REGRESSION || reg == MODEL_KIND_ADDITIVE))
		return reg;
	return marked;
}

ModelKind
model_kind_of(Datum model)
{
	return kind_of(DatumGetHeapTupleHeader(model));
}

/* the kinds a family implements, registered at load (model_kind_register_ops) */
static const ModelKindOps *kind_registered_ops[MODEL_KIND_SYNTHESIZER + 1];

void
model_kind_register_ops(const ModelKindOps *ops)
{
	kind_registered_ops[ops->kind] = ops;
}

static const ModelKindOps *
kind_ops(ModelKind kind)
{
	if (kind_registered_ops[kind] != NULL)
		return kind_registered_ops[kind];
	switch (kind)
	{
		case MODEL_KIND_HALFSPACE:
			return &model_kind_halfspace;
		case MODEL_KIND_MULTICLASS:
			return &model_kind_multiclass;
		case MODEL_KIND_ADDITIVE:
			elog(ERROR, "model kind %s: no family registered it", model_kind_name(kind));
			return NULL;		/* keep compiler quiet */
		default:
			return &model_kind_linear;
	}
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
 * finite number, only on a linear or additive classifier (a regression's or
 * a halfspace's margin has none); absent, predict() keeps its cut-off 0
 */
static void
read_threshold(ModelPredictor *m)
{
	JsonbValue *v = m->params ? getKeyJsonValueFromContainer(&m->params->root, "threshold", 9, NULL) : NULL;

	m->threshold = 0;
	m->has_threshold = v != NULL;
	if (v == NULL)
		return;
	if ((m->kind != MODEL_KIND_LINEAR && m->kind != MODEL_KIND_ADDITIVE) || m->regression ||
		!model_param_number(m->params, "threshold", &m->threshold))
		model_forged("model params: \"threshold\" must be a finite number, of a linear or additive classifier",
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

	params = model_params_object(th);
	if (params != NULL)
	{
		m->params = palloc(VARSIZE(params));
		memcpy(m->params, params, VARSIZE(params));
	}
	/* a synthesizer's model draws rows (dpobj.sample), it has no prediction */
	if (kind_by_markers(params) == MODEL_KIND_SYNTHESIZER)
		model_forged("a synthesizer model does not predict, explain or evaluate",
					 "Draw rows with dpobj.sample(model, n), ask a marginal with dpobj.marginal(model, columns).");
	/* a multi-class model's weights are K vectors: its kind reads them */
	if (kind_by_markers(params) != MODEL_KIND_MULTICLASS)
		read_weights(th, m);
	m->kind = kind_of(th);
	m->ops = kind_ops(m->kind);
	/* a regression's mechanism: its value is the prediction (a lattice has no range) */
	m->regression = kind_registered(th) == MODEL_KIND_REGRESSION;
	m->ops->unpack(m, th);
	read_threshold(m);
	MemoryContextSwitchTo(old);
	return m;
}
