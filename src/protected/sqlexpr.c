/*-------------------------------------------------------------------------
 *
 * sqlexpr.c
 *	  An expression of a private query (an aggregate's argument, a WHERE
 *	  condition) as dpobj.aggregate()'s JSON expression: values
 *	  {"col": c}, {"num": x}, {"text": s}, {"bool": b}, {"date": d},
 *	  {"timestamp": t}, {"null": true}, {"op": ..., "args": [...]}; conditions
 *	  and/or/not, comparisons, in, is_null, like/ilike, a boolean column.
 *
 *	  Only PostgreSQL's own operators and functions, by name in pg_catalog
 *	  and an OID below FirstNormalObjectId, from a fixed list; casts between
 *	  numeric types are dropped (values are float8), every other node is
 *	  refused.  Nothing here evaluates anything.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/transam.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_database.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/datetime.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "base/pg_compat.h"
#include "protected/sqlcompile.h"
#include "protected/sqljoin.h"

char *
sqlexpr_column(Oid relid, AttrNumber attno)
{
	if (attno <= 0)
		sqlexpr_refuse("system columns and whole-row references");
	/* a joined path table's column: "table.column" (sqljoin.h) */
	return sqljoin_column(relid, attno);
}

Var *
sqlexpr_plain_var(Node *node)
{
	while (node && IsA(node, RelabelType))
		node = (Node *) ((RelabelType *) node)->arg;
	if (node && IsA(node, Var) && ((Var *) node)->varno == 1 &&
		((Var *) node)->varlevelsup == 0)
		return (Var *) node;
	return NULL;
}

Node *
sqlexpr_strip_numeric_casts(Node *node)
{
	while (node != NULL)
	{
		FuncExpr   *f = IsA(node, FuncExpr) ? (FuncExpr *) node : NULL;

		if (IsA(node, RelabelType))
			node = (Node *) ((RelabelType *) node)->arg;
		else if (f != NULL && list_length(f->args) >= 1 && sqlexpr_builtin(f->funcid) &&
				 (f->funcformat == COERCE_IMPLICIT_CAST || f->funcformat == COERCE_EXPLICIT_CAST) &&
				 sqlexpr_numeric_type(f->funcresulttype) &&
				 sqlexpr_numeric_type(exprType(linitial(f->args))))
			node = linitial(f->args);
		else
			break;
	}
	return node;
}

Const *
sqlexpr_folded_const(Node *node)
{
	node = sqlexpr_strip_numeric_casts(node);
	return node != NULL && IsA(node, Const) ? (Const *) node : NULL;
}

bool
sqlexpr_numeric_type(Oid t)
{
	t = getBaseType(t);
	return t == INT2OID || t == INT4OID || t == INT8OID || t == FLOAT4OID ||
		t == FLOAT8OID || t == NUMERICOID;
}

/* a built-in function's name (pg_catalog, OID < FirstNormalObjectId), or refused */
static char *
sqlexpr_func_name(Oid fn)
{
	if (!sqlexpr_builtin(fn) || get_func_namespace(fn) != PG_CATALOG_NAMESPACE)
		sqlexpr_refuse("functions that are not PostgreSQL's own");
	return get_func_name(fn);
}

/* a built-in operator's name, or refused */
static char *
sqlexpr_op_name(Oid op)
{
	char	   *name = sqlexpr_builtin_op(op);

	if (name == NULL)
		sqlexpr_refuse("operators that are not PostgreSQL's own");
	return name;
}

bool
sqlexpr_is(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return true;
	return false;
}

static const char *const cmp_ops[] = {"=", "<>", "<", "<=", ">", ">=", NULL};

/*
 * Whether collation coll's "C" locale setting (LC_COLLATE, or for ctype LC_CTYPE) is C or
 * POSIX of libc, the database's own for the default collation; the builtin provider (17+)
 * orders by code point, as bytes of UTF-8 do.
 */
static bool
sqlexpr_collation_c(Oid coll, bool ctype)
{
	bool		dflt = coll == DEFAULT_COLLATION_OID;
	HeapTuple	tup;
	char		provider;
	Datum		d;
	bool		isnull;
	bool		c = false;

	if (!OidIsValid(coll) || coll == C_COLLATION_OID || coll == POSIX_COLLATION_OID)
		return true;
	tup = dflt ? SearchSysCache1(DATABASEOID, ObjectIdGetDatum(MyDatabaseId)) :
		SearchSysCache1(COLLOID, ObjectIdGetDatum(coll));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for collation %u", coll);
	provider = dflt ? ((Form_pg_database) GETSTRUCT(tup))->datlocprovider :
		((Form_pg_collation) GETSTRUCT(tup))->collprovider;
	if (provider == COLLPROVIDER_LIBC)
	{
		d = dflt ? SysCacheGetAttr(DATABASEOID, tup, ctype ? Anum_pg_database_datctype : Anum_pg_database_datcollate, &isnull) :
			SysCacheGetAttr(COLLOID, tup, ctype ? Anum_pg_collation_collctype : Anum_pg_collation_collcollate, &isnull);
		if (!isnull)
		{
			char	   *l = TextDatumGetCString(d);

			c = strcmp(l, "C") == 0 || strcmp(l, "POSIX") == 0;
		}
	}
	else if (provider == 'b')	/* builtin (17+) */
		c = !ctype;
	ReleaseSysCache(tup);
	return c;
}

/*
 * dpobj's evaluator compares text byte-wise and ILIKE folds ASCII only (core/expreval.c):
 * the same as PostgreSQL's under a deterministic collation for =, <>, IN and LIKE, under
 * one whose order is C's for <, <=, >, >=, and one whose ctype is C's for ILIKE; anything
 * else is refused (a catalog fact), never answered otherwise than PostgreSQL would.
 */
static void
sqlexpr_text_collation(Oid coll, bool ordered, bool folded)
{
	if (!OidIsValid(coll))
		return;
	if (!get_collation_isdeterministic(coll))
		sqlexpr_refuse("text conditions under a nondeterministic collation but \"column op constant\" ANDed");
	if (ordered && !sqlexpr_collation_c(coll, false))
		sqlexpr_refuse("<, <=, >, >= on text under a collation other than C but \"column op constant\" ANDed (write COLLATE \"C\")");
	if (folded && !sqlexpr_collation_c(coll, true))
		sqlexpr_refuse("ILIKE under a collation whose character classes are not C's");
}

/*
 * a finite date's or timestamp's text in ISO form, whatever DateStyle is (the
 * expression format's "YYYY-MM-DD[ HH:MM:SS]"); else its output function's
 */
static char *
sqlexpr_iso_datetime(Oid t, Datum d, Oid out)
{
	char		buf[MAXDATELEN + 1];
	struct pg_tm tm;
	fsec_t		fsec = 0;

	if (t == DATEOID && !DATE_NOT_FINITE(DatumGetDateADT(d)))
	{
		j2date(DatumGetDateADT(d) + POSTGRES_EPOCH_JDATE, &tm.tm_year, &tm.tm_mon, &tm.tm_mday);
		EncodeDateOnly(&tm, USE_ISO_DATES, buf);
		return pstrdup(buf);
	}
	if (t == TIMESTAMPOID && !TIMESTAMP_NOT_FINITE(DatumGetTimestamp(d)) &&
		timestamp2tm(DatumGetTimestamp(d), NULL, &tm, &fsec, NULL, NULL) == 0)
	{
		EncodeDateTime(&tm, fsec, false, 0, NULL, USE_ISO_DATES, buf);
		return pstrdup(buf);
	}
	return OidOutputFunctionCall(out, d);
}

/* a constant as a JSON value */
static void
sqlexpr_const(StringInfo b, Const *c)
{
	Oid			t = getBaseType(c->consttype);
	Oid			out;
	bool		varlena;
	char	   *s;

	if (c->constisnull)
	{
		appendStringInfoString(b, "{\"null\": true}");
		return;
	}
	getTypeOutputInfo(t, &out, &varlena);
	if (t == BOOLOID)
	{
		appendStringInfo(b, "{\"bool\": %s}", DatumGetBool(c->constvalue) ? "true" : "false");
		return;
	}
	s = t == DATEOID || t == TIMESTAMPOID ? sqlexpr_iso_datetime(t, c->constvalue, out) :
		OidOutputFunctionCall(out, c->constvalue);
	if (sqlexpr_numeric_type(t))
	{
		if (strcmp(s, "NaN") == 0 || strstr(s, "nfinity") != NULL)
			sqlexpr_refuse("NaN and infinite constants");
		appendStringInfo(b, "{\"num\": %s}", s);
		return;
	}
	if (t == TEXTOID || t == VARCHAROID || t == BPCHAROID || t == NAMEOID || t == UNKNOWNOID)
		appendStringInfoString(b, "{\"text\": ");
	else if (t == DATEOID)
		appendStringInfoString(b, "{\"date\": ");
	else if (t == TIMESTAMPOID)
		appendStringInfoString(b, "{\"timestamp\": ");
	else
		sqlexpr_refuse(psprintf("constants of type %s", format_type_be(t)));
	escape_json(b, s);
	appendStringInfoChar(b, '}');
}

/* {"op": op, "args": [v, ...]} of values */
static void
sqlexpr_op(StringInfo b, const char *op, List *args, Oid relid, bool conds)
{
	ListCell   *lc;

	appendStringInfo(b, "{\"op\": \"%s\", \"args\": [", op);
	foreach(lc, args)
	{
		if (foreach_current_index(lc) > 0)
			appendStringInfoString(b, ", ");
		if (conds)
			sqlexpr_condition(b, lfirst(lc), relid);
		else
			sqlexpr_value(b, lfirst(lc), relid);
	}
	appendStringInfoString(b, "]}");
}

/* a numeric cast (dropped) or another function over values */
static void
sqlexpr_func(StringInfo b, FuncExpr *f, Oid relid)
{
	char	   *name = sqlexpr_func_name(f->funcid);

	if (f->funcformat == COERCE_IMPLICIT_CAST || f->funcformat == COERCE_EXPLICIT_CAST)
	{
		if (list_length(f->args) >= 1 && sqlexpr_numeric_type(f->funcresulttype) &&
			sqlexpr_numeric_type(exprType(linitial(f->args))))
		{
			sqlexpr_value(b, linitial(f->args), relid);
			return;
		}
		/* a boolean to an integer: 1, 0 or NULL, as bool [C] */
		if (list_length(f->args) == 1 && getBaseType(f->funcresulttype) == INT4OID &&
			getBaseType(exprType(linitial(f->args))) == BOOLOID)
		{
			appendStringInfoString(b, "{\"op\": \"bool\", \"args\": [");
			sqlexpr_condition(b, linitial(f->args), relid);
			appendStringInfoString(b, "]}");
			return;
		}
		sqlexpr_refuse(psprintf("casts to %s", format_type_be(f->funcresulttype)));
	}
	if (f->funcretset)
		sqlexpr_refuse("set-returning functions");
	if (strcmp(name, "abs") == 0 && list_length(f->args) == 1)
		sqlexpr_op(b, "abs", f->args, relid, false);
	else if ((strcmp(name, "date_part") == 0 || strcmp(name, "extract") == 0) &&
			 list_length(f->args) == 2 && IsA(linitial(f->args), Const) &&
			 !((Const *) linitial(f->args))->constisnull)
	{
		static const char *const fields[] = {"year", "quarter", "month", "day", "dow", "doy",
		"hour", "minute", "epoch", NULL};
		char	   *field = TextDatumGetCString(((Const *) linitial(f->args))->constvalue);

		if (!sqlexpr_is(field, fields))
			sqlexpr_refuse(psprintf("extract(%s ...)", field));
		appendStringInfo(b, "{\"op\": \"extract\", \"field\": \"%s\", \"args\": [", field);
		sqlexpr_value(b, lsecond(f->args), relid);
		appendStringInfoString(b, "]}");
	}
	else
		sqlexpr_refuse(psprintf("the function %s()", name));
}

/* CASE WHEN c THEN v ... ELSE v END (a CASE x WHEN ... form: refused) */
static void
sqlexpr_case(StringInfo b, CaseExpr *c, Oid relid)
{
	ListCell   *lc;

	if (c->arg != NULL)
		sqlexpr_refuse("CASE x WHEN ... (write CASE WHEN x = ... instead)");
	appendStringInfoString(b, "{\"op\": \"case\", \"when\": [");
	foreach(lc, c->args)
	{
		CaseWhen   *w = lfirst_node(CaseWhen, lc);

		if (foreach_current_index(lc) > 0)
			appendStringInfoString(b, ", ");
		appendStringInfoString(b, "{\"if\": ");
		sqlexpr_condition(b, (Node *) w->expr, relid);
		appendStringInfoString(b, ", \"then\": ");
		sqlexpr_value(b, (Node *) w->result, relid);
		appendStringInfoChar(b, '}');
	}
	appendStringInfoString(b, "], \"else\": ");
	if (c->defresult)
		sqlexpr_value(b, (Node *) c->defresult, relid);
	else
		appendStringInfoString(b, "{\"null\": true}");
	appendStringInfoChar(b, '}');
}

/* NULLIF(a, b): CASE WHEN a = b THEN NULL ELSE a END, its "=" a comparison's */
static void
sqlexpr_nullif(StringInfo b, NullIfExpr *n, Oid relid)
{
	char	   *name = sqlexpr_op_name(n->opno);

	if (list_length(n->args) != 2 || strcmp(name, "=") != 0)
		sqlexpr_refuse(psprintf("NULLIF by the operator %s", name));
	sqlexpr_text_collation(n->inputcollid, false, false);
	appendStringInfoString(b, "{\"op\": \"case\", \"when\": [{\"if\": ");
	sqlexpr_op(b, "=", n->args, relid, false);
	appendStringInfoString(b, ", \"then\": {\"null\": true}}], \"else\": ");
	sqlexpr_value(b, linitial(n->args), relid);
	appendStringInfoChar(b, '}');
}

/* true if node is a condition (a boolean test), not a value */
static bool
sqlexpr_is_condition(Node *node)
{
	if (IsA(node, BoolExpr) || IsA(node, NullTest) || IsA(node, ScalarArrayOpExpr))
		return true;
	return IsA(node, OpExpr) && ((OpExpr *) node)->opresulttype == BOOLOID;
}

void
sqlexpr_value(StringInfo b, Node *node, Oid relid)
{
	Var		   *v = sqlexpr_plain_var(node);

	check_stack_depth();
	if (v != NULL)
	{
		appendStringInfoString(b, "{\"col\": ");
		escape_json(b, sqlexpr_column(relid, v->varattno));
		appendStringInfoChar(b, '}');
	}
	else if (IsA(node, RelabelType))
		sqlexpr_value(b, (Node *) ((RelabelType *) node)->arg, relid);
	else if (IsA(node, CollateExpr))	/* its collation: the comparison's, checked there */
		sqlexpr_value(b, (Node *) ((CollateExpr *) node)->arg, relid);
	else if (IsA(node, Const))
		sqlexpr_const(b, (Const *) node);
	else if (IsA(node, Param))
		sqlexpr_refuse("query parameters ($1) but as the value of a condition \"column op $1\"");
	else if (sqlexpr_is_condition(node))
	{
		appendStringInfoString(b, "{\"op\": \"bool\", \"args\": [");
		sqlexpr_condition(b, node, relid);
		appendStringInfoString(b, "]}");
	}
	else if (IsA(node, OpExpr))
	{
		OpExpr	   *o = (OpExpr *) node;
		char	   *name = sqlexpr_op_name(o->opno);

		if (!sqlexpr_numeric_type(o->opresulttype))
			sqlexpr_refuse(psprintf("the operator %s on %s", name, format_type_be(o->opresulttype)));
		if (list_length(o->args) == 1 && strcmp(name, "-") == 0)
			sqlexpr_op(b, "neg", o->args, relid, false);
		else if (list_length(o->args) == 2 &&
				 sqlexpr_is(name, (const char *const[]) {"+", "-", "*", "/", NULL}))
			sqlexpr_op(b, name, o->args, relid, false);
		else
			sqlexpr_refuse(psprintf("the operator %s", name));
	}
	else if (IsA(node, FuncExpr))
		sqlexpr_func(b, (FuncExpr *) node, relid);
	else if (IsA(node, CoalesceExpr))
		sqlexpr_op(b, "coalesce", ((CoalesceExpr *) node)->args, relid, false);
	else if (IsA(node, CaseExpr))
		sqlexpr_case(b, (CaseExpr *) node, relid);
	else if (IsA(node, NullIfExpr))
		sqlexpr_nullif(b, (NullIfExpr *) node, relid);
	else if (IsA(node, SQLValueFunction))
		sqlexpr_refuse("CURRENT_DATE, CURRENT_USER and other SQL value functions (write the value)");
	else
		sqlexpr_refuse("this kind of expression in WHERE or in an aggregate's argument");
}

/* x IN (k, ...) / x = ANY('{...}'), and NOT IN */
static void
sqlexpr_in(StringInfo b, ScalarArrayOpExpr *s, Oid relid)
{
	char	   *name = sqlexpr_op_name(s->opno);
	Node	   *rhs = lsecond(s->args);
	bool		negated = !s->useOr && strcmp(name, "<>") == 0;

	if (!(s->useOr && strcmp(name, "=") == 0) && !negated)
		sqlexpr_refuse(psprintf("%s ANY/ALL", name));
	sqlexpr_text_collation(s->inputcollid, false, false);
	if (negated)
		appendStringInfoString(b, "{\"op\": \"not\", \"args\": [");
	appendStringInfoString(b, "{\"op\": \"in\", \"args\": [");
	sqlexpr_value(b, linitial(s->args), relid);
	if (IsA(rhs, ArrayExpr))
	{
		ListCell   *lc;

		foreach(lc, ((ArrayExpr *) rhs)->elements)
		{
			if (!IsA(lfirst(lc), Const))
				sqlexpr_refuse("IN lists of anything but constants");
			appendStringInfoString(b, ", ");
			sqlexpr_const(b, lfirst(lc));
		}
	}
	else if (IsA(rhs, Const) && !((Const *) rhs)->constisnull)
	{
		ArrayType  *a = DatumGetArrayTypeP(((Const *) rhs)->constvalue);
		Oid			et = ARR_ELEMTYPE(a);
		int16		len;
		bool		byval;
		char		align;
		Datum	   *d;
		bool	   *nulls;
		int			n;

		get_typlenbyvalalign(et, &len, &byval, &align);
		deconstruct_array(a, et, len, byval, align, &d, &nulls, &n);
		for (int i = 0; i < n; i++)
		{
			Const	   *c = makeConst(et, -1, InvalidOid, len, d[i], nulls[i], byval);

			appendStringInfoString(b, ", ");
			sqlexpr_const(b, c);
		}
	}
	else
		sqlexpr_refuse("IN lists of anything but constants");
	appendStringInfoString(b, negated ? "]}]}" : "]}");
}

/* a LIKE pattern ending in its escape character: PostgreSQL's error, before any charge */
static void
sqlexpr_like_pattern(Const *p)
{
	char	   *pat = TextDatumGetCString(p->constvalue);
	int			n = strlen(pat),
				esc = 0;

	while (esc < n && pat[n - 1 - esc] == '\\')
		esc++;
	if (esc % 2 == 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_ESCAPE_SEQUENCE),
				 errmsg("LIKE pattern must not end with escape character")));
}

/* a comparison, LIKE or ILIKE (and their negations) */
static void
sqlexpr_compare(StringInfo b, OpExpr *o, Oid relid)
{
	char	   *name = sqlexpr_op_name(o->opno);
	const char *like = strcmp(name, "~~") == 0 || strcmp(name, "!~~") == 0 ? "like" :
		strcmp(name, "~~*") == 0 || strcmp(name, "!~~*") == 0 ? "ilike" : NULL;

	if (list_length(o->args) != 2)
		sqlexpr_refuse(psprintf("the operator %s", name));
	sqlexpr_text_collation(o->inputcollid,
						   like == NULL && strcmp(name, "=") != 0 && strcmp(name, "<>") != 0,
						   like != NULL && strcmp(like, "ilike") == 0);
	if (like != NULL)
	{
		Node	   *a = linitial(o->args);
		Node	   *p = lsecond(o->args);
		Var		   *v;

		/* COLLATE on either side: the operator's collation, checked above */
		if (IsA(a, CollateExpr))
			a = (Node *) ((CollateExpr *) a)->arg;
		if (IsA(p, CollateExpr))
			p = (Node *) ((CollateExpr *) p)->arg;
		v = sqlexpr_plain_var(a);

		if (v == NULL || !IsA(p, Const) || ((Const *) p)->constisnull)
			sqlexpr_refuse("LIKE other than column LIKE 'constant pattern'");
		/* character(n) is read without its padding, which PostgreSQL's LIKE matches */
		if (getBaseType(v->vartype) == BPCHAROID)
			sqlexpr_refuse("LIKE on a character(n) column");
		sqlexpr_like_pattern((Const *) p);
		if (name[0] == '!')
			appendStringInfoString(b, "{\"op\": \"not\", \"args\": [");
		appendStringInfo(b, "{\"op\": \"%s\", \"args\": [{\"col\": ", like);
		escape_json(b, sqlexpr_column(relid, v->varattno));
		appendStringInfoString(b, "}, ");
		sqlexpr_const(b, (Const *) p);
		appendStringInfoString(b, name[0] == '!' ? "]}]}" : "]}");
		return;
	}
	if (!sqlexpr_is(name, cmp_ops))
		sqlexpr_refuse(psprintf("the operator %s", name));
	sqlexpr_op(b, name, o->args, relid, false);
}

void
sqlexpr_condition(StringInfo b, Node *node, Oid relid)
{
	Var		   *v = sqlexpr_plain_var(node);

	check_stack_depth();
	if (v != NULL && getBaseType(v->vartype) == BOOLOID)
	{
		appendStringInfoString(b, "{\"col\": ");
		escape_json(b, sqlexpr_column(relid, v->varattno));
		appendStringInfoChar(b, '}');
	}
	else if (IsA(node, BoolExpr))
	{
		BoolExpr   *e = (BoolExpr *) node;

		sqlexpr_op(b, e->boolop == AND_EXPR ? "and" : e->boolop == OR_EXPR ? "or" : "not",
				   e->args, relid, true);
	}
	else if (IsA(node, NullTest))
	{
		NullTest   *n = (NullTest *) node;

		if (n->argisrow)
			sqlexpr_refuse("IS NULL on a row");
		if (n->nulltesttype == IS_NOT_NULL)
			appendStringInfoString(b, "{\"op\": \"not\", \"args\": [");
		sqlexpr_op(b, "is_null", list_make1(n->arg), relid, false);
		if (n->nulltesttype == IS_NOT_NULL)
			appendStringInfoString(b, "]}");
	}
	else if (IsA(node, ScalarArrayOpExpr))
		sqlexpr_in(b, (ScalarArrayOpExpr *) node, relid);
	else if (IsA(node, OpExpr))
		sqlexpr_compare(b, (OpExpr *) node, relid);
	else if (IsA(node, Param))
		sqlexpr_refuse("query parameters ($1) but as the value of a condition \"column op $1\"");
	else if (IsA(node, Const) && getBaseType(((Const *) node)->consttype) == BOOLOID)
	{
		/* TRUE, FALSE or NULL (a condition's constants are values): 1 = 1, 1 = 0, 1 = NULL */
		Const	   *c = (Const *) node;

		appendStringInfo(b, "{\"op\": \"=\", \"args\": [{\"num\": 1}, %s]}",
						 c->constisnull ? "{\"null\": true}" :
						 DatumGetBool(c->constvalue) ? "{\"num\": 1}" : "{\"num\": 0}");
	}
	else
		sqlexpr_refuse("this kind of condition in WHERE");
}
