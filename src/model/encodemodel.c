/*-------------------------------------------------------------------------
 *
 * encodemodel.c
 *	  A model's recorded encoding (encodemodel.h).  dpobj.train() attaches
 *	  the encoding it used to the released model's params (public by
 *	  declaration); dpobj.encode(model, raw) applies it to raw values given
 *	  as a JSON object {column: value}, so that a model trained on raw
 *	  columns predicts from raw values.  Not on the protected path: its
 *	  errors quote the caller's own arguments.
 *
 *-------------------------------------------------------------------------
 */
#include "model/encodemodel.h"
#include "model/encode.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"
#include "utils/typcache.h"

PG_FUNCTION_INFO_V1(dpobj_encode);

/* attribute number (from 1) of params in dpobj.model */
#define MODEL_ATT_PARAMS	6

/* a model's params->key, or NULL */
static JsonbValue *
model_param(Datum model, const char *key)
{
	bool		isnull;
	Datum		params = GetAttributeByNum(DatumGetHeapTupleHeader(model), MODEL_ATT_PARAMS,
										   &isnull);
	Jsonb	   *p;

	if (isnull)
		return NULL;
	p = DatumGetJsonbP(params);
	if (!JB_ROOT_IS_OBJECT(p) || JB_ROOT_IS_SCALAR(p))
		return NULL;
	return getKeyJsonValueFromContainer(&p->root, key, strlen(key), NULL);
}

Jsonb *
encoding_of_model(Datum model)
{
	JsonbValue *v = model_param(model, "encoding");

	return v == NULL ? NULL : JsonbValueToJsonb(v);
}

Datum
encoding_attach(Datum model, Jsonb *spec)
{
	HeapTupleHeader th = DatumGetHeapTupleHeader(model);
	TupleDesc	tupdesc = lookup_rowtype_tupdesc_copy(HeapTupleHeaderGetTypeId(th),
													  HeapTupleHeaderGetTypMod(th));
	HeapTupleData tuple;
	Datum	   *values = palloc(sizeof(Datum) * tupdesc->natts);
	bool	   *nulls = palloc(sizeof(bool) * tupdesc->natts);
	StringInfoData js;
	Datum		add;

	tuple.t_len = HeapTupleHeaderGetDatumLength(th);
	ItemPointerSetInvalid(&tuple.t_self);
	tuple.t_tableOid = InvalidOid;
	tuple.t_data = th;
	heap_deform_tuple(&tuple, tupdesc, values, nulls);

	initStringInfo(&js);
	appendStringInfoString(&js, "{\"encoding\": ");
	appendStringInfoString(&js, JsonbToCString(NULL, &spec->root, VARSIZE(spec)));
	/* a value outside the declared levels is refused unless the caller says otherwise */
	appendStringInfoString(&js, ", \"on_unknown\": \"error\"}");
	add = DirectFunctionCall1(jsonb_in, CStringGetDatum(js.data));
	values[MODEL_ATT_PARAMS - 1] = nulls[MODEL_ATT_PARAMS - 1] ? add :
		DirectFunctionCall2(jsonb_concat, values[MODEL_ATT_PARAMS - 1], add);
	nulls[MODEL_ATT_PARAMS - 1] = false;
	return HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls));
}

static void
encode_raw_error(const char *msg, const char *column)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg(msg, column),
			 errhint("Pass one value per column of the model's encoding (params->'encoding'), "
					 "e.g. '{\"education\": \"Bachelors\", \"age\": 38}'.")));
}

/* a JSON scalar as a categorical value (NULL for null) */
static char *
raw_level(JsonbValue *v, const char *column, int *len)
{
	char	   *s;

	switch (v->type)
	{
		case jbvNull:
			return NULL;
		case jbvString:
			*len = v->val.string.len;
			return v->val.string.val;
		case jbvNumeric:
			s = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(v->val.numeric)));
			break;
		case jbvBool:
			s = pstrdup(v->val.boolean ? "true" : "false");
			break;
		default:
			encode_raw_error("the value of column \"%s\" must be a JSON scalar", column);
			return NULL;		/* keep compiler quiet */
	}
	*len = strlen(s);
	return s;
}

/* a JSON number (or numeric string, or boolean) as a numeric value */
static double
raw_number(JsonbValue *v, const char *column, bool *isnull)
{
	char	   *s;
	char	   *end;
	double		x;

	*isnull = (v->type == jbvNull);
	if (*isnull)
		return 0.0;
	/* a boolean column: train() encodes it as its int4, 0 or 1 */
	if (v->type == jbvBool)
		return v->val.boolean ? 1.0 : 0.0;
	if (v->type == jbvNumeric)
		s = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(v->val.numeric)));
	else if (v->type == jbvString)
		s = pnstrdup(v->val.string.val, v->val.string.len);
	else
		s = NULL;
	if (s == NULL || *s == '\0')
		encode_raw_error("the value of column \"%s\" must be a number", column);
	x = strtod(s, &end);
	if (*end != '\0')
		encode_raw_error("the value of column \"%s\" must be a number", column);
	return x;
}

/* what a categorical value outside the declared levels (or null) becomes */
typedef enum OnUnknown
{
	UNKNOWN_OTHER,				/* the "other" coordinate, as in training */
	UNKNOWN_ERROR,				/* refused, naming the column and the value */
	UNKNOWN_NULL				/* no features: a NULL prediction */
} OnUnknown;

/* a call's policies: for a value outside the declared levels, and for a null */
typedef struct OnUnknownPolicy
{
	OnUnknown	unknown;
	OnUnknown	null;
} OnUnknownPolicy;

static OnUnknown
on_unknown_parse(const char *s)
{
	if (strcmp(s, "other") == 0)
		return UNKNOWN_OTHER;
	if (strcmp(s, "error") == 0)
		return UNKNOWN_ERROR;
	if (strcmp(s, "null") == 0)
		return UNKNOWN_NULL;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("on_unknown must be 'other', 'error' or 'null', not \"%s\"", s),
			 errhint("'other' maps a value outside the declared domain to the \"other\" level, as training did.")));
	return UNKNOWN_OTHER;		/* keep compiler quiet */
}

/*
 * The call's policies.  A given on_unknown rules both.  NULL (the default):
 * a null is "other", as train() encoded it (and learned that level's weight
 * from such rows); a value outside the levels follows the model's own
 * params "on_unknown" (train() records 'error' from 0.6.0), else 'other' (a
 * model from before, which keeps predicting as it did)
 */
static OnUnknownPolicy
on_unknown_arg(FunctionCallInfo fcinfo)
{
	OnUnknownPolicy p;

	if (PG_NARGS() < 3 || PG_ARGISNULL(2))
	{
		JsonbValue *v = model_param(PG_GETARG_DATUM(0), "on_unknown");

		p.null = UNKNOWN_OTHER;
		p.unknown = v == NULL || v->type != jbvString ? UNKNOWN_OTHER :
			on_unknown_parse(pnstrdup(v->val.string.val, v->val.string.len));
	}
	else
		p.unknown = p.null = on_unknown_parse(text_to_cstring(PG_GETARG_TEXT_PP(2)));
	return p;
}

/*
 * A categorical value (NULL for null) under the call's policies: true to
 * encode it (a declared level, or "other"), false for a NULL result;
 * 'error' raises (the caller's own value, never a row of a protected table).
 */
static bool
level_accepted(const EncColumn *c, const char *cat, int len, OnUnknownPolicy policy)
{
	OnUnknown	on_unknown = cat == NULL ? policy.null : policy.unknown;

	if (on_unknown == UNKNOWN_OTHER || (cat != NULL && encoding_level(c, cat, len) < c->nlevels))
		return true;
	if (on_unknown == UNKNOWN_NULL)
		return false;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("value %s%.*s%s of column \"%s\" is not in the model's declared domain",
					cat ? "\"" : "", cat ? len : 4, cat ? cat : "null", cat ? "\"" : "",
					c->column),
			 errhint("The declared levels are in params->'encoding'. on_unknown => 'other' maps the value to the \"other\" level (its weight learned only from training rows outside the levels), 'null' gives a NULL prediction.")));
	return false;				/* keep compiler quiet */
}

/*
 * dpobj.encode(m dpobj.model, raw jsonb [, on_unknown text]) RETURNS
 * float8[]: the model's encoding applied to {column: value}; NULL for a
 * numeric null (train() drops such a row), and with on_unknown 'null' for
 * a categorical value outside the declared levels ('error': refused;
 * 'other': the "other" level, as train() encodes such a value; NULL, the
 * default: a null is "other", any other value the model's own policy).
 */
Datum
dpobj_encode(PG_FUNCTION_ARGS)
{
	Jsonb	   *spec;
	Jsonb	   *raw;
	Encoding   *enc;
	char	  **cats;
	int		   *cat_len;
	double	   *nums;
	bool	   *nn;
	ArrayType  *out;
	OnUnknownPolicy on_unknown;
	bool		known = true;
	int			ic = 0,
				in = 0;

	/* not strict: a NULL on_unknown is the model's own */
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	spec = encoding_of_model(PG_GETARG_DATUM(0));
	raw = PG_GETARG_JSONB_P(1);
	on_unknown = on_unknown_arg(fcinfo);
	if (spec == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the model has no feature encoding"),
				 errhint("Only models trained with declared domains (dpobj.declare_domain) take raw values; pass encoded features to dpobj.predict(model, features).")));
	if (!JB_ROOT_IS_OBJECT(raw) || JB_ROOT_IS_SCALAR(raw))
		encode_raw_error("raw values must be a JSON object of columns%s", "");
	enc = encoding_parse(spec);
	cats = palloc0(sizeof(char *) * (enc->ncat + 1));
	cat_len = palloc0(sizeof(int) * (enc->ncat + 1));
	nums = palloc0(sizeof(double) * (enc->nnum + 1));
	nn = palloc0(sizeof(bool) * (enc->nnum + 1));
	for (int i = 0; i < enc->ncols; i++)
	{
		EncColumn  *c = &enc->cols[i];
		JsonbValue *v = getKeyJsonValueFromContainer(&raw->root, c->column,
													 strlen(c->column), NULL);

		if (v == NULL)
			encode_raw_error("no value for column \"%s\" of the model's encoding", c->column);
		if (c->nlevels > 0)
		{
			cats[ic] = raw_level(v, c->column, &cat_len[ic]);
			known = level_accepted(c, cats[ic], cat_len[ic], on_unknown) && known;
			ic++;
		}
		else
		{
			nums[in] = raw_number(v, c->column, &nn[in]);
			in++;
		}
	}
	if (!known)
		PG_RETURN_NULL();
	out = encoding_row_array(enc, cats, cat_len, nums, nn, false);
	if (out == NULL)
		PG_RETURN_NULL();
	PG_RETURN_ARRAYTYPE_P(out);
}
