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

#include "lib/stringinfo.h"
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
double
dp_option_float8(JsonbValue *v)
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
	f = dp_option_float8(v);
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
	double		f = dp_option_float8(v);

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

int
dp_options_rows_per_unit(Jsonb *options, const char *own, const char *aggname, const char *hint)
{
	/* every key known before any is read */
	DPOptionSpec spec[] = {{.name = own}, {.name = "rows_per_unit"}, {.name = DPOBJ_SEALED_KEY}, {0}};
	DPOptionParser parser = {.spec = spec, .aggname = aggname, .hint = hint};
	JsonbValue *vk;

	dp_options_parse(&parser, options);
	vk = getKeyJsonValueFromContainer(&options->root, DPOBJ_SEALED_KEY, DPOBJ_SEALED_KEY_LEN, NULL);
	if (vk != NULL)
		(void) dp_option_bool(vk, DPOBJ_SEALED_KEY);
	vk = getKeyJsonValueFromContainer(&options->root, "rows_per_unit", 13, NULL);
	return vk ? dp_option_int(vk, "rows_per_unit", 1, DPOBJ_MAX_ROWS_PER_UNIT) : 1;
}

/* an aggregate's options are a JSON object, never NULL (an SQL NULL argument) */
void
dp_options_require(Jsonb *options, const char *aggname, const char *hint)
{
	if (options == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: options must not be NULL", aggname),
				 errhint("%s", hint)));
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

		if (spec->no_default || spec->type == DP_OPTION_NONE)
			continue;
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

/* spec entry o is read (and listed) for the parser's kind */
static bool
option_accepted(const DPOptionParser *p, const DPOptionSpec *o)
{
	return o->accepts == 0 || (o->accepts & p->kind) != 0;
}

/* a number of the option's type, into field (DPOptionSpec: lo, hi, whole, hi_open) */
static void
option_read_typed(const DPOptionParser *p, const DPOptionSpec *o, const char *key,
				  JsonbValue *v, char *field)
{
	double		f;

	if (o->type == DP_OPTION_BOOL)
		*(bool *) field = dp_option_bool(v, key);
	else if (o->type == DP_OPTION_INT)
		*(int *) field = dp_option_int(v, key, (int) o->lo, (int) o->hi);
	else if (o->type == DP_OPTION_INT64 && !o->whole)
		*(int64 *) field = dp_option_int(v, key, (int) o->lo, (int) o->hi);
	else if (o->type != DP_OPTION_NONE)
	{
		f = dp_option_number(v, key, o->lo, o->hi, o->lo_open);
		if (o->whole && f != floor(f))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%soption \"%s\" must be an integer", p->prefix, key),
					 errhint("%s", o->hint)));
		if (o->hi_open && !(f < o->hi))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%soption \"%s\" must be below %g", p->prefix, key, o->hi),
					 errhint("%s", o->hint)));
		if (o->type == DP_OPTION_INT64)
			*(int64 *) field = (int64) f;
		else
			*(double *) field = f;
	}
}

/* the hint listing the options the parser's kind accepts */
static char *
dp_options_hint(const DPOptionParser *p)
{
	StringInfoData s;
	const char *labels[64];
	int			n = 0;

	for (const DPOptionSpec *o = p->spec; o->name != NULL && n < lengthof(labels); o++)
	{
		const char *label = o->label != NULL ? o->label : o->name;

		if (option_accepted(p, o) && label[0] != '\0')
			labels[n++] = label;
	}
	initStringInfo(&s);
	appendStringInfoString(&s, p->quoted ? "Options: " : "Valid options are ");
	for (int i = 0; i < n; i++)
		appendStringInfo(&s, p->quoted ? "%s\"%s\"" : "%s%s",
						 i == 0 ? "" : (i == n - 1 && !p->quoted) ? " and " : ", ", labels[i]);
	appendStringInfo(&s, "%s.", p->tail != NULL ? p->tail : "");
	return s.data;
}

/* one key of the options object (dp_options_foreach callback) */
static void
option_read(const char *key, JsonbValue *v, void *arg)
{
	DPOptionParser *p = (DPOptionParser *) arg;

	if (p->foreign != NULL && p->foreign(key))
		return;
	for (int i = 0; p->spec[i].name != NULL; i++)
	{
		const DPOptionSpec *o = &p->spec[i];
		char	   *field = (char *) p->params + o->offset;

		if (strcmp(o->name, key) != 0 || !option_accepted(p, o))
			continue;
		Assert(i < 64);
		p->given |= UINT64CONST(1) << i;
		if (o->parse != NULL)
			o->parse(v, key, field, p->arg);
		else
			option_read_typed(p, o, key, v, field);
		return;
	}
	if (dp_option_sealed_key(key, v))
		return;					/* the protected mode: rowinput.c */
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%sunknown option \"%s\"%s%s", p->prefix, key,
					p->aggname != NULL ? " for " : "", p->aggname != NULL ? p->aggname : ""),
			 errhint("%s", p->hint != NULL ? p->hint : dp_options_hint(p))));
}

void
dp_options_parse(DPOptionParser *p, Jsonb *options)
{
	p->prefix = p->prefix != NULL ? p->prefix : "";
	p->given = 0;
	dp_options_foreach(options, p->example, option_read, p);
}

bool
dp_option_given(const DPOptionParser *p, const char *key)
{
	for (int i = 0; p->spec[i].name != NULL; i++)
		if ((p->given & (UINT64CONST(1) << i)) != 0 && strcmp(p->spec[i].name, key) == 0)
			return true;
	return false;
}

Jsonb *
dp_options_add(Jsonb *options, const char *json)
{
	return DatumGetJsonbP(DirectFunctionCall2(jsonb_concat, JsonbPGetDatum(options),
											  DirectFunctionCall1(jsonb_in, CStringGetDatum(json))));
}

Jsonb *
dp_options_put(Jsonb *options, const char *key, JsonbValue *value)
{
	JsonbParseState *state = NULL;
	JsonbValue	k;
	JsonbValue *obj;

	k.type = jbvString;
	k.val.string.val = unconstify(char *, key);
	k.val.string.len = strlen(key);
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	pushJsonbValue(&state, WJB_KEY, &k);
	pushJsonbValue(&state, WJB_VALUE, value);
	obj = pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	return DatumGetJsonbP(DirectFunctionCall2(jsonb_concat, JsonbPGetDatum(options),
											  JsonbPGetDatum(JsonbValueToJsonb(obj))));
}

Jsonb *
dp_options_sample_rows(Jsonb *options, int64 k)
{
	return dp_options_add(options, psprintf("{\"sample_rows\": " INT64_FORMAT "}", k));
}
