/*-------------------------------------------------------------------------
 *
 * exprfn.c
 *	  The per-row functions of dpobj.aggregate()'s expressions in the
 *	  sealed query (context/exprjson.h):
 *
 *	  dpobj.expr_value(program jsonb, VARIADIC "any") RETURNS float8
 *	  dpobj.expr_test(program jsonb, VARIADIC "any") RETURNS boolean
 *
 *	  program {"args": [column, ...], "e": E}; the columns follow, as they
 *	  are (one unused argument when there is none).  The expression is
 *	  evaluated here, in dpobj's own C code (core/expreval.c), not as SQL:
 *	  no operator or function of anyone's runs, nothing per row can raise
 *	  (PostgreSQL's arithmetic raises on overflow and division by zero),
 *	  and every node is evaluated on every row.  Every argument is read
 *	  (text detoasted) on every row, whatever the expression selects, so
 *	  no TOAST load depends on the rows.  Values read: NULL, NaN,
 *	  infinities and numbers beyond +-1e300 as NULL; text byte-wise
 *	  (character(n) without its trailing blanks); dates as days and
 *	  timestamps as seconds since 1970-01-01 (timestamptz in UTC).  The
 *	  program is parsed on the first row of a call site and kept; it is
 *	  dpobj's own (the run compiled it), so that parse cannot fail there.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include "context/exprjson.h"
#include "protected/numfeature.h"

PG_FUNCTION_INFO_V1(dpobj_expr_value);
PG_FUNCTION_INFO_V1(dpobj_expr_test);

typedef struct ExprCache
{
	Jsonb	   *src;			/* the program it was parsed from */
	ExprParsed	x;
	Oid			base[EXPR_MAX_COLS];
	ExprVal		row[EXPR_MAX_COLS];
} ExprCache;

static void
exprfn_bad(const char *msg)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("dpobj.expr_value: %s", msg),
			 errhint("The program is {\"args\": [column, ...], \"e\": expression}, its columns the arguments that follow.")));
}

static ExprCache *
exprfn_cache(FunctionCallInfo fcinfo, bool cond)
{
	Jsonb	   *prog = PG_GETARG_JSONB_P(0);
	ExprCache  *c = fcinfo->flinfo->fn_extra;
	MemoryContext old;
	JsonbValue *args,
			   *e;

	if (c != NULL && VARSIZE(c->src) == VARSIZE(prog) && memcmp(c->src, prog, VARSIZE(prog)) == 0)
		return c;
	if (get_fn_expr_variadic(fcinfo->flinfo))
		exprfn_bad("pass the columns as separate arguments, not VARIADIC");
	old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
	c = palloc0(sizeof(ExprCache));
	c->src = (Jsonb *) palloc(VARSIZE(prog));
	memcpy(c->src, prog, VARSIZE(prog));
	args = JB_ROOT_IS_OBJECT(prog) && !JB_ROOT_IS_SCALAR(prog) ?
		getKeyJsonValueFromContainer(&prog->root, "args", 4, NULL) : NULL;
	e = args ? getKeyJsonValueFromContainer(&prog->root, "e", 1, NULL) : NULL;
	if (e == NULL || args->type != jbvBinary || !JsonContainerIsArray(args->val.binary.data) ||
		JB_ROOT_COUNT(prog) != 2)
		exprfn_bad("a program has exactly the keys \"args\" and \"e\"");
	c->x.ncols = JsonContainerSize(args->val.binary.data);
	if (c->x.ncols > EXPR_MAX_COLS || PG_NARGS() - 1 != Max(c->x.ncols, 1))
		exprfn_bad("one argument per column of \"args\" (one unused without any)");
	for (int i = 0; i < c->x.ncols; i++)
	{
		JsonbValue *n = getIthJsonbValueFromContainer(args->val.binary.data, i);
		Oid			t = get_fn_expr_argtype(fcinfo->flinfo, i + 1);
		int			et;

		if (n->type != jbvString)
			exprfn_bad("\"args\" are column names");
		c->x.cols[i] = pnstrdup(n->val.string.val, n->val.string.len);
		c->base[i] = OidIsValid(t) ? getBaseType(t) : InvalidOid;
		et = exprjson_type(c->base[i]);
		if (et < 0)
			exprfn_bad(psprintf("argument %d has a type expressions do not read", i + 2));
		c->x.types[i] = (ExprType) et;
	}
	exprjson_parse(&c->x, e, cond, "e");
	MemoryContextSwitchTo(old);
	fcinfo->flinfo->fn_extra = c;
	return c;
}

/* a float8 as read: NULL beyond +-1e300 (NaN, infinities) */
static ExprVal
exprfn_num(double x)
{
	ExprVal		v = {x, NULL, 0, !(fabs(x) <= EXPR_LIMIT)};

	return v;
}

static ExprVal
exprfn_arg(FunctionCallInfo fcinfo, Oid base, int argno)
{
	Datum		d = PG_GETARG_DATUM(argno);
	ExprVal		v = {0, NULL, 0, true};

	if (PG_ARGISNULL(argno))
		return v;
	switch (base)
	{
		case INT2OID:
			return exprfn_num(DatumGetInt16(d));
		case INT4OID:
			return exprfn_num(DatumGetInt32(d));
		case INT8OID:
			return exprfn_num((double) DatumGetInt64(d));
		case FLOAT4OID:
			return exprfn_num(DatumGetFloat4(d));
		case FLOAT8OID:
			return exprfn_num(DatumGetFloat8(d));
		case BOOLOID:
			return exprfn_num(DatumGetBool(d) ? 1 : 0);
		case NUMERICOID:
			{
				double		x;

				/* NULL at |x| >= 1e300 and NaN, never an error (numfeature.c) */
				return numeric_feature_value(d, &x) ? exprfn_num(x) : v;
			}
		case DATEOID:
			if (DATE_NOT_FINITE(DatumGetDateADT(d)))
				return v;
			return exprfn_num((double) DatumGetDateADT(d) +
							  (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE));
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			if (TIMESTAMP_NOT_FINITE(DatumGetTimestamp(d)))
				return v;
			return exprfn_num((double) DatumGetTimestamp(d) / USECS_PER_SEC +
							  (double) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY);
		default:
			{
				/* text: detoasted on every row */
				struct varlena *t = PG_DETOAST_DATUM_PACKED(d);

				v.null = false;
				v.s = VARDATA_ANY(t);
				v.len = VARSIZE_ANY_EXHDR(t);
				if (base == BPCHAROID)
					while (v.len > 0 && v.s[v.len - 1] == ' ')
						v.len--;
				return v;
			}
	}
}

/* the expression on this row's arguments */
static ExprVal
exprfn_eval(FunctionCallInfo fcinfo, bool cond)
{
	ExprCache  *c = exprfn_cache(fcinfo, cond);

	for (int i = 0; i < c->x.ncols; i++)
		c->row[i] = exprfn_arg(fcinfo, c->base[i], i + 1);
	return expr_eval(c->x.prog, c->x.prog->root, c->row);
}

Datum
dpobj_expr_value(PG_FUNCTION_ARGS)
{
	ExprVal		v;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	v = exprfn_eval(fcinfo, false);
	if (v.null)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(v.x);
}

Datum
dpobj_expr_test(PG_FUNCTION_ARGS)
{
	ExprVal		v;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	v = exprfn_eval(fcinfo, true);
	if (v.null)
		PG_RETURN_NULL();
	PG_RETURN_BOOL(v.x != 0);
}
