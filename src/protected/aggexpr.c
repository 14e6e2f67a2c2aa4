/*-------------------------------------------------------------------------
 *
 * aggexpr.c
 *	  dpobj.aggregate()'s statistics of expressions ("expr" in "what",
 *	  context/exprjson.h): each distinct expression becomes one numeric
 *	  column of the run's encoding, named by its JSON text, its bounds
 *	  derived by interval arithmetic from the declared bounds of the
 *	  columns it reads (core/expreval.h).  The sealed query reads it as
 *	  dpobj.expr_value() (trainquery.c); the statistics clamp it to those
 *	  bounds like a declared column's value, and skip a NULL value like a
 *	  column's NULL.  Public grounds only: every refusal
 *	  here comes before the charge.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/jsonb.h"

#include "context/exprjson.h"
#include "protected/aggrun.h"
#include "protected/domains.h"

/* the expression of statistic e, or NULL; refuses one with a "column" too */
static JsonbValue *
aggexpr_of(JsonbValue *e, int i)
{
	JsonbValue *x;

	if (e == NULL || e->type != jbvBinary || !JsonContainerIsObject(e->val.binary.data))
		return NULL;
	x = getKeyJsonValueFromContainer(e->val.binary.data, "expr", 4, NULL);
	if (x != NULL && getKeyJsonValueFromContainer(e->val.binary.data, "column", 6, NULL) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dpobj.aggregate: statistic %d of \"what\" has both \"column\" and \"expr\"", i + 1),
				 errhint("A statistic reads a column or an expression.")));
	return x;
}

bool
aggrun_has_expr(Jsonb *what)
{
	int			n = JB_ROOT_IS_ARRAY(what) && !JB_ROOT_IS_SCALAR(what) ? JB_ROOT_COUNT(what) : 0;

	for (int i = 0; i < n; i++)
		if (aggexpr_of(getIthJsonbValueFromContainer(&what->root, i), i) != NULL)
			return true;
	return false;
}

/* expression e's bounds from the declared domains of the columns it needs */
static void
aggexpr_bounds(Oid relid, const char *relation, JsonbValue *e, const char *path,
			   double *lo, double *hi)
{
	ExprParsed *x = palloc0(sizeof(ExprParsed));
	char	  **need;
	int			nneed;

	x->relid = relid;
	x->relation = relation;
	exprjson_parse(x, e, false, path);
	if (exprjson_bounds(x, NULL, lo, hi, &need, &nneed))
		return;
	/* the columns without bounds so far: their declarations (refused if none) */
	(void) exprjson_bounds(x, encoding_parse(domains_encoding(relid, relation, need, nneed,
															  DOMAINS_REQUIRED)),
						   lo, hi, &need, &nneed);
}

Jsonb *
aggrun_expr_encoding(Oid relid, const char *relation, Jsonb *enc, Jsonb *what,
					 char ***cols, int *ncols)
{
	int			n = JB_ROOT_IS_ARRAY(what) && !JB_ROOT_IS_SCALAR(what) ? JB_ROOT_COUNT(what) : 0;
	StringInfoData b;
	char	  **out;
	int			nout = *ncols;
	char	   *text;

	if (enc == NULL)
		enc = *ncols > 0 ? domains_encoding(relid, relation, *cols, *ncols, DOMAINS_REQUIRED) :
			DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("[]")));
	/* a grouped integer column's declared range: its integers as levels (rangelevels.c) */
	enc = aggrun_range_levels(relid, enc, what);
	if (!aggrun_has_expr(what))
		return enc;
	out = palloc(sizeof(char *) * (*ncols + n));
	memcpy(out, *cols, sizeof(char *) * *ncols);
	initStringInfo(&b);
	text = JsonbToCString(NULL, &enc->root, VARSIZE(enc));
	/* the encoding's elements, without its closing bracket */
	appendBinaryStringInfo(&b, text, strrchr(text, ']') - text);
	for (int i = 0; i < n; i++)
	{
		JsonbValue *e = aggexpr_of(getIthJsonbValueFromContainer(&what->root, i), i);
		Jsonb	   *ej;
		char	   *name;
		double		lo,
					hi;
		bool		seen = false;

		if (e == NULL)
			continue;
		ej = JsonbValueToJsonb(e);
		name = JsonbToCString(NULL, &ej->root, VARSIZE(ej));
		for (int j = 0; j < nout; j++)
			if (strcmp(out[j], name) == 0)
			{
				if (j < *ncols)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("dpobj.aggregate: a column of the table is named as statistic %d's expression", i + 1),
							 errhint("Rename the column, or write the expression differently.")));
				seen = true;
			}
		if (seen)
			continue;
		aggexpr_bounds(relid, relation, e, psprintf("what[%d].expr", i), &lo, &hi);
		appendStringInfoString(&b, nout > 0 ? ", {\"column\": " : "{\"column\": ");
		escape_json(&b, name);
		appendStringInfo(&b, ", \"lo\": %.17g, \"hi\": %.17g}", lo, hi);
		out[nout++] = name;
	}
	appendStringInfoChar(&b, ']');
	*cols = out;
	*ncols = nout;
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data)));
}
