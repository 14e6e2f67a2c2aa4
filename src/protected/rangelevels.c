/*-------------------------------------------------------------------------
 *
 * rangelevels.c
 *	  A group_by column of an integer type whose declared domain is a range
 *	  [lo, hi] of at most AGG_RANGE_LEVELS integers (aggrun.h): its levels
 *	  are those integers, public by declaration, so every one is a group
 *	  (as declared levels are) and no key is selected.  A value outside the
 *	  range, like NULL, falls in "other".  Read as its text, as a column
 *	  with declared levels is, so nothing is evaluated per row here.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

#include "context/linkcols.h"
#include "context/lookupjoin.h"
#include "protected/aggrun.h"
#include "protected/domainfit.h"

bool
aggrun_range_is_levels(Oid relid, const char *name, double lo, double hi)
{
	Oid			table;
	AttrNumber	att = linked_column_attnum(relid, name, &table);

	if (att <= 0 || lookup_joins_is(relid, table) || !isfinite(lo) || !isfinite(hi))
		return false;
	return domainfit_integer(get_atttype(table, att)) &&
		floor(hi) - ceil(lo) + 1 >= 1 && floor(hi) - ceil(lo) + 1 <= AGG_RANGE_LEVELS;
}

/* statistic i of what reads column name by "column" */
static bool
aggrun_range_read(Jsonb *what, const char *name)
{
	int			n = what && JB_ROOT_IS_ARRAY(what) && !JB_ROOT_IS_SCALAR(what) ? JB_ROOT_COUNT(what) : 0;

	for (int i = 0; i < n; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(&what->root, i);
		JsonbValue *c = e && e->type == jbvBinary && JsonContainerIsObject(e->val.binary.data) ?
			getKeyJsonValueFromContainer(e->val.binary.data, "column", 6, NULL) : NULL;

		if (c != NULL && c->type == jbvString && strlen(name) == c->val.string.len &&
			strncmp(name, c->val.string.val, c->val.string.len) == 0)
			return true;
	}
	return false;
}

Jsonb *
aggrun_range_levels(Oid relid, Jsonb *enc, Jsonb *what)
{
	int			n = enc && JB_ROOT_IS_ARRAY(enc) && !JB_ROOT_IS_SCALAR(enc) ? JB_ROOT_COUNT(enc) : 0;
	StringInfoData b;
	bool		changed = false;

	initStringInfo(&b);
	appendStringInfoChar(&b, '[');
	for (int i = 0; i < n; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(&enc->root, i);
		JsonbContainer *o = e->type == jbvBinary ? e->val.binary.data : NULL;
		JsonbValue *c = o ? getKeyJsonValueFromContainer(o, "column", 6, NULL) : NULL;
		JsonbValue *lo = o ? getKeyJsonValueFromContainer(o, "lo", 2, NULL) : NULL;
		JsonbValue *hi = o ? getKeyJsonValueFromContainer(o, "hi", 2, NULL) : NULL;
		char	   *name = c && c->type == jbvString ?
			pnstrdup(c->val.string.val, c->val.string.len) : NULL;
		double		l,
					h;

		appendStringInfoString(&b, i > 0 ? ", " : "");
		if (name == NULL || lo == NULL || hi == NULL || lo->type != jbvNumeric ||
			hi->type != jbvNumeric || aggrun_range_read(what, name) ||
			!aggrun_range_is_levels(relid, name,
									l = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(lo->val.numeric))),
									h = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(hi->val.numeric)))))
		{
			Jsonb	   *ej = JsonbValueToJsonb(e);

			appendStringInfoString(&b, JsonbToCString(NULL, &ej->root, VARSIZE(ej)));
			continue;
		}
		appendStringInfoString(&b, "{\"column\": ");
		escape_json(&b, name);
		appendStringInfoString(&b, ", \"levels\": [");
		for (double v = ceil(l); v <= floor(h); v++)
			appendStringInfo(&b, "%s\"%.0f\"", v > ceil(l) ? ", " : "", v);
		appendStringInfoString(&b, "]}");
		changed = true;
	}
	appendStringInfoChar(&b, ']');
	if (!changed)
		return enc;
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data)));
}
