/*-------------------------------------------------------------------------
 *
 * options.c
 *	  The jsonb options iterator and typed readers (options.h).
 *
 * Options are public inputs (the caller's constants): their errors may
 * quote them.  They never quote a row value.
 *
 *-------------------------------------------------------------------------
 */
#include "base/options.h"
#include "base/dpobj.h"

#include <math.h>

#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"

void
dp_options_foreach(Jsonb *options, const char *example, dp_option_fn fn, void *arg)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	char	   *key = NULL;

	if (!JB_ROOT_IS_OBJECT(options) || JB_ROOT_IS_SCALAR(options))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("options must be a JSON object"),
				 errhint("For example %s.", example)));

	it = JsonbIteratorInit(&options->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY)
		{
			key = pnstrdup(v.val.string.val, v.val.string.len);
			continue;
		}
		if (tok == WJB_VALUE)
			fn(key, &v, arg);
	}
}

const char *
dp_options_string(Jsonb *options, const char *key)
{
	JsonbValue *v = getKeyJsonValueFromContainer(&options->root, key, strlen(key), NULL);

	if (v == NULL)
		return NULL;
	if (v->type != jbvString)
		return "";
	return pnstrdup(v->val.string.val, v->val.string.len);
}

/*
 * The JSON number as float8, NAN for other JSON types (and numeric NaN).
 * Beyond the float8 range it is +-Infinity (or 0 below it), never an
 * error: the readers' range checks then refuse it with a hint.
 */
static double
option_float8(JsonbValue *v)
{
	if (v->type != jbvNumeric)
		return NAN;
	return DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
											  NumericGetDatum(v->val.numeric)));
}

int
dp_option_int(JsonbValue *v, const char *key, int lo, int hi)
{
	double		f;

	if (v->type != jbvNumeric)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"%s\" must be a number", key),
				 errhint("Pass an integer between %d and %d.", lo, hi)));
	f = option_float8(v);
	if (!(f >= lo && f <= hi) || f != floor(f))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"%s\" must be an integer between %d and %d", key, lo, hi),
				 errhint("Omit the option to use the default.")));
	return (int) f;
}

double
dp_option_number(JsonbValue *v, const char *key, double lo, double hi, bool lo_open)
{
	double		f = option_float8(v);

	if (!isfinite(f) || (lo_open ? !(f > lo) : !(f >= lo)) || !(f <= hi))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"%s\" must be a number %s %g and at most %g",
						key, lo_open ? "greater than" : "of at least", lo, hi),
				 errhint("Pass a finite JSON number.")));
	return f;
}

char *
dp_option_string(JsonbValue *v, const char *key, const char *hint)
{
	if (v->type != jbvString)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"%s\" must be a string", key),
				 errhint("%s", hint)));
	return pnstrdup(v->val.string.val, v->val.string.len);
}

bool
dp_option_bool(JsonbValue *v, const char *key)
{
	if (v->type != jbvBool)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"%s\" must be true or false", key),
				 errhint("Pass a JSON boolean.")));
	return v->val.boolean;
}

bool
dp_options_sealed(Jsonb *options)
{
	JsonbValue	buf;
	JsonbValue *v;

	if (options == NULL || !JB_ROOT_IS_OBJECT(options))
		return false;
	v = getKeyJsonValueFromContainer(&options->root, DPOBJ_SEALED_KEY,
									 DPOBJ_SEALED_KEY_LEN, &buf);
	return v != NULL && v->type == jbvBool && v->val.boolean;
}

bool
dp_option_sealed_key(const char *key, JsonbValue *v)
{
	if (strcmp(key, DPOBJ_SEALED_KEY) != 0)
		return false;
	(void) dp_option_bool(v, key);
	return true;
}

/* key (len bytes) is the C string name */
static bool
dp_key_is(const JsonbValue *key, const char *name)
{
	return key->val.string.len == (int) strlen(name) &&
		strncmp(key->val.string.val, name, key->val.string.len) == 0;
}

int
dp_options_rows_per_unit(Jsonb *options, const char *own, const char *aggname, const char *hint)
{
	JsonbIterator *it = JsonbIteratorInit(&options->root);
	JsonbValue	v;
	JsonbValue *vk;
	JsonbIteratorToken tok;

	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		if (tok == WJB_KEY && !dp_key_is(&v, own) && !dp_key_is(&v, "rows_per_unit") &&
			!dp_key_is(&v, DPOBJ_SEALED_KEY))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown option \"%.*s\" for %s", v.val.string.len, v.val.string.val,
							aggname),
					 errhint("%s", hint)));
	vk = getKeyJsonValueFromContainer(&options->root, DPOBJ_SEALED_KEY, DPOBJ_SEALED_KEY_LEN, NULL);
	if (vk != NULL)
		(void) dp_option_bool(vk, DPOBJ_SEALED_KEY);
	vk = getKeyJsonValueFromContainer(&options->root, "rows_per_unit", 13, NULL);
	return vk ? dp_option_int(vk, "rows_per_unit", 1, DPOBJ_MAX_ROWS_PER_UNIT) : 1;
}

void
dp_options_defaults(const DPOptionSpec *spec, void *params)
{
	const DPOptionSpec *end = spec;

	while (end->name != NULL)
		end++;
	if (end->base != NULL)
		dp_options_defaults(end->base, params);
	for (; spec->name != NULL; spec++)
	{
		char	   *field = (char *) params + spec->offset;
		double		v = spec->setting != NULL ? *spec->setting : spec->dflt;

		if (spec->type == DP_OPTION_INT)
			*(int *) field = (int) v;
		else if (spec->type == DP_OPTION_INT64)
			*(int64 *) field = (int64) v;
		else if (spec->type == DP_OPTION_DOUBLE)
			*(double *) field = v;
		else
			*(bool *) field = v != 0;
	}
}

Jsonb *
dp_options_add(Jsonb *options, const char *json)
{
	return DatumGetJsonbP(DirectFunctionCall2(jsonb_concat, JsonbPGetDatum(options),
											  DirectFunctionCall1(jsonb_in, CStringGetDatum(json))));
}

Jsonb *
dp_options_sample_rows(Jsonb *options, int64 k)
{
	return dp_options_add(options, psprintf("{\"sample_rows\": " INT64_FORMAT "}", k));
}
