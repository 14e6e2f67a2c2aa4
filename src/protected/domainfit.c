/*-------------------------------------------------------------------------
 *
 * domainfit.c
 *	  Whether a declared domain fits its column's type (domainfit.h).
 *
 * A synthetic copy (dpobj.synthesize()) writes a level as the column's
 * text and a value of bounds [lo, hi] as a float8 in [lo, hi] cast to the
 * column's type; these are the casts that could fail, checked from the
 * declaration and the catalog alone:
 *	  smallint, integer, bigint: [lo, hi] within the type's range (a cast
 *	  rounds to the nearest integer);
 *	  real: within +-3.4e38, and a nonzero bound or the width hi - lo at
 *	  least 1e-30 in magnitude (a value nearer 0 than a real can hold
 *	  underflows);
 *	  numeric(p, s): lo and hi, rounded to s digits, below 10^(p - s) in
 *	  magnitude (float8 to numeric keeps 15 digits, then the typmod rounds);
 *	  double precision, unconstrained numeric: every value.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <float.h>
#include <math.h>

#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/typcache.h"

#include "base/dpnumeric.h"
#include "context/linkcols.h"
#include "model/encode.h"
#include "protected/domainfit.h"

bool
domainfit_kind(Oid type, bool categorical)
{
	if (categorical)
		return type == TEXTOID || type == VARCHAROID || type == BPCHAROID || type == INT2OID ||
			type == INT4OID || type == INT8OID || type == BOOLOID;
	return type == INT2OID || type == INT4OID || type == INT8OID || type == FLOAT4OID ||
		type == FLOAT8OID || type == NUMERICOID;
}

bool
domainfit_integer(Oid type)
{
	type = getBaseType(type);
	return type == INT2OID || type == INT4OID || type == INT8OID;
}

/*
 * A boolean's 'true' or 'false' for any spelling boolin accepts (t, yes, on,
 * 1, ...), an integer's decimal digits without sign '+' or leading zeros;
 * char(n)'s text has no trailing blanks.
 */
char *
domainfit_level_text(Oid type, const char *level)
{
	bool		b;
	char	   *end;
	long long	v;

	if (type == BOOLOID)
		return parse_bool(level, &b) ? pstrdup(b ? "true" : "false") : NULL;
	if (type == BPCHAROID)
		return level[0] != '\0' && level[strlen(level) - 1] == ' ' ? NULL : pstrdup(level);
	if (type != INT2OID && type != INT4OID && type != INT8OID)
		return pstrdup(level);
	errno = 0;
	v = strtoll(level, &end, 10);
	while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
		end++;
	if (errno != 0 || end == level || *end != '\0' ||
		(type == INT2OID && (v < PG_INT16_MIN || v > PG_INT16_MAX)) ||
		(type == INT4OID && (v < PG_INT32_MIN || v > PG_INT32_MAX)))
		return NULL;
	return psprintf("%lld", v);
}

/* numeric(p, s): |round(v, s)| < 10^(p - s) for v = lo and hi (float8_numeric's digits) */
static bool
domainfit_numeric(int32 typmod, double lo, double hi)
{
	int32		p,
				s;
	Numeric		limit;

	if (typmod < (int32) VARHDRSZ)
		return true;
	p = ((typmod - VARHDRSZ) >> 16) & 0xffff;
	s = (((typmod - VARHDRSZ) & 0x7ff) ^ 1024) - 1024;
	if (p - s > DBL_MAX_10_EXP)
		return true;
	limit = dp_numeric_of_text(psprintf("1e%d", p - s));
	for (int i = 0; i < 2; i++)
	{
		Datum		v = DirectFunctionCall1(float8_numeric, Float8GetDatum(fabs(i ? hi : lo)));

		v = DirectFunctionCall2(numeric_round, v, Int32GetDatum(s));
		if (dp_numeric_cmp(DatumGetNumeric(v), limit) >= 0)
			return false;
	}
	return true;
}

const char *
domainfit_bounds(Oid type, int32 typmod, double lo, double hi)
{
	switch (type)
	{
		case INT2OID:
			return lo >= PG_INT16_MIN && hi <= PG_INT16_MAX ? NULL :
				"a smallint holds -32768 to 32767";
		case INT4OID:
			return lo >= PG_INT32_MIN && hi <= PG_INT32_MAX ? NULL :
				"an integer holds -2147483648 to 2147483647";
		case INT8OID:
			/* -2^63 <= v < 2^63 (2^63 itself is the double nearest PG_INT64_MAX) */
			return lo >= -9223372036854775808.0 && hi < 9223372036854775808.0 ? NULL :
				"a bigint holds -2^63 to 2^63 - 1";
		case FLOAT4OID:
			if (fabs(lo) > FLT_MAX || fabs(hi) > FLT_MAX)
				return "a real holds magnitudes up to 3.4e38";
			return (lo == 0 || fabs(lo) >= 1e-30) && (hi == 0 || fabs(hi) >= 1e-30) &&
				hi - lo >= 1e-30 ? NULL :
				"a real column's bounds and their width need magnitudes of 1e-30 or more (or 0)";
		case NUMERICOID:
			return domainfit_numeric(typmod, lo, hi) ? NULL :
				"the column's numeric precision and scale cannot hold them";
		default:
			return NULL;
	}
}

/* why column c's declaration does not fit base type (typmod), or NULL */
static const char *
domainfit_column(const EncColumn *c, Oid type, int32 typmod)
{
	if (!domainfit_kind(type, c->nlevels > 0))
		return c->nlevels > 0 ? "levels are for text, varchar, char, integer and boolean columns" :
			"bounds are for integer, float and numeric columns";
	for (int i = 0; i < c->nlevels; i++)
		if (domainfit_level_text(type, pnstrdup(c->levels[i], c->level_len[i])) == NULL)
			return psprintf("level \"%.*s\" is not a value of the type", c->level_len[i],
							c->levels[i]);
	return c->nlevels > 0 ? NULL : domainfit_bounds(type, typmod, c->lo, c->hi);
}

void
domainfit_check_run(Oid relid, Jsonb *enc, const char *fname)
{
	Encoding   *e = encoding_parse(enc);

	for (int j = 0; j < e->ncols; j++)
	{
		Oid			table;
		AttrNumber	att = linked_column_attnum(relid, e->cols[j].column, &table);
		Oid			typ;
		Oid			base;
		int32		atttypmod,
					typmod;
		Oid			coll;
		const char *why;

		get_atttypetypmodcoll(table, att, &typ, &atttypmod, &coll);
		typmod = atttypmod;
		base = getBaseTypeAndTypmod(typ, &typmod);
		/* DomainHasConstraints()'s test (its signature differs by version) */
		if (base != typ &&
			lookup_type_cache(typ, TYPECACHE_DOMAIN_CONSTR_INFO)->domainData != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: column \"%s\" has type %s, a domain with constraints a synthetic value may not meet",
							fname, e->cols[j].column, format_type_be(typ)),
					 errdetail("Nothing was charged."),
					 errhint("Leave out the column.")));
		why = domainfit_column(&e->cols[j], base, typmod);
		if (why != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: the declared domain of column \"%s\" does not fit its type %s: %s",
							fname, e->cols[j].column, format_type_with_typemod(typ, atttypmod), why),
					 errdetail("Nothing was charged."),
					 errhint("Its type changed after the declaration: the table's owner declares the domain again (dpobj.declare_domain).")));
	}
}
