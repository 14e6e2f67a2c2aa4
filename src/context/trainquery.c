/*-------------------------------------------------------------------------
 *
 * trainquery.c
 *	  Building dpobj.train()'s query (trainquery.h).
 *
 * SQL text.  The analyst supplies column names, never SQL: every name is
 * looked up in pg_attribute (not dropped, not a system column, an allowed
 * type) and the statement is built from the catalog's spelling with
 * quote_identifier(); filter constants and privacy parameters are bound
 * parameters; operators come from a fixed list and are written
 * OPERATOR(pg_catalog.op); casts and functions are pg_catalog's, or
 * dpobj's own, schema-qualified.
 *
 * No value-dependent error (leak 5).  Every expression the query
 * evaluates per row was audited for errors that depend on the value:
 *	  - integer, real and double columns cast to float8 exactly or by
 *		rounding; NaN and infinities pass through and the transition
 *		function drops the row;
 *	  - numeric to float8 overflows for |x| >= ~1.8e308 and underflows for
 *		tiny |x| (7.31e-400 raised 22003 quoting the value): the feature
 *		expression, dpobj.numeric_feature(x) (numfeature.c), is
 *		  CASE WHEN abs(x) >= 1e300 THEN NULL WHEN abs(x) < 1e-300 THEN 0
 *			   ELSE x::float8 END
 *		in one C call: |x| >= 1e300 (and NaN, +-Infinity, which sort there)
 *		to NULL, i.e. a dropped row, and 0 < |x| < 1e-300 to 0, and casts
 *		only what lies in between;
 *	  - boolean features go through int4, labels are boolean or "> 0" of
 *		an integer, a regression's label is a feature expression, and
 *		multi-class labels are text, or an integer cast to text (char(n) to
 *		text trims blanks), none of which can fail;
 *	  - filters compare a column with a constant of the column's own base
 *		type with a built-in comparison operator, which raises no error, and
 *		every condition runs on every row (filter_expression).
 *	  - expressions (a statistic's "expr", the option "where") are
 *		dpobj.expr_value() / dpobj.expr_test() of the columns they read,
 *		dpobj's own C code, total (context/exprjson.h, core/expreval.h).
 * What remains is the table owner's own code (row-level security policies
 * under FORCE ROW LEVEL SECURITY): seal.c turns any error into the generic
 * error after charging the run.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "context/trainquery.h"
#include "context/exprjson.h"
#include "context/linkcols.h"
#include "model/encode.h"

#include "access/htup_details.h"
#include "access/transam.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_cast.h"
#include "catalog/pg_type.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/regproc.h"
#include "utils/syscache.h"
#include "utils/typcache.h"
#include "utils/resowner.h"

/* What a column may be used as (types by base type, domains allowed). */
typedef enum ColumnUse
{
	COLUMN_FEATURE,				/* numeric or boolean */
	COLUMN_LABEL,				/* boolean or integer (> 0 is positive) */
	COLUMN_REAL_LABEL,			/* a regression's label: as a feature */
	COLUMN_CLASS,				/* a multi-class label: integer or text, as text */
	COLUMN_LEVEL,				/* a categorical feature: text, integer or boolean, as text */
	COLUMN_FILTER,				/* the above, text types, dates and times */
	COLUMN_KEY					/* a group key: any type, as text */
} ColumnUse;

static bool
column_type_ok(Oid basetype, ColumnUse use)
{
	if (use == COLUMN_KEY)
		return true;
	switch (basetype)
	{
		case BOOLOID:
			return use != COLUMN_CLASS;
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
			return use == COLUMN_FILTER || use == COLUMN_CLASS || use == COLUMN_LEVEL;
		case INT2OID:
		case INT4OID:
		case INT8OID:
			return true;
		case FLOAT4OID:
		case FLOAT8OID:
		case NUMERICOID:
			return use != COLUMN_LABEL && use != COLUMN_CLASS && use != COLUMN_LEVEL;
		case DATEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return use == COLUMN_FILTER;
		default:
			return false;
	}
}

static const char *
column_use_hint(ColumnUse use)
{
	switch (use)
	{
		case COLUMN_FEATURE:
			return "Features must be numeric (integer, float, numeric) or boolean columns.";
		case COLUMN_LABEL:
			return "Labels must be boolean or integer columns (positive means > 0).";
		case COLUMN_REAL_LABEL:
			return "A regression's label must be a numeric (integer, float, numeric) or boolean column.";
		case COLUMN_CLASS:
			return "Multi-class labels must be text or integer columns.";
		case COLUMN_LEVEL:
			return "A categorical feature must be a text, integer or boolean column.";
		default:
			return "Filters work on numeric, boolean, text, date and timestamp columns.";
	}
}

HeapTuple
train_query_column(Oid relid, const char *relation, const char *name, const char *hint)
{
	/* or "table.column" of a table on a linked table's path (linkcols.h) */
	HeapTuple	tup = linked_column_tuple(relid, name);

	if (!HeapTupleIsValid(tup))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of table %s does not exist", name, relation),
				 errhint("%s", hint)));
	return tup;
}

/*
 * Looks a column name up in the catalog (exact spelling, no quoting or
 * case folding) and returns its quoted catalog name and base type.  Names
 * that are not user columns of rel, or of a type unfit for use, are
 * refused -- the message quotes the analyst's own argument, no data.
 */
static HeapTuple
column_tuple(Oid relid, const char *relation, const char *name)
{
	HeapTuple	tup = train_query_column(relid, relation, name,
									 "Pass column names exactly as they are spelled in the catalog, without quotes.");
	Form_pg_attribute att;

	att = (Form_pg_attribute) GETSTRUCT(tup);
	if (att->attisdropped || att->attnum <= 0)
	{
		ReleaseSysCache(tup);
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of table %s does not exist", name, relation),
				 errhint("System columns cannot be used for training.")));
	}
	return tup;
}

/* the pg_cast share locks check_key_cast() took in this call, and their owner */
static int	cast_locks = 0;
static ResourceOwner cast_lock_owner = NULL;

void
train_query_unlock_casts(void)
{
	ResourceOwner saved = CurrentResourceOwner;

	if (cast_locks == 0)
		return;
	CurrentResourceOwner = cast_lock_owner;
	PG_TRY();
	{
		for (; cast_locks > 0; cast_locks--)
			UnlockRelationOid(CastRelationId, ShareLock);
	}
	PG_FINALLY();
	{
		CurrentResourceOwner = saved;
		cast_locks = 0;
	}
	PG_END_TRY();
}

/*
 * Whether a key of type typid (a base type; no cast to text: read through its
 * output function) becomes text with nothing its output function looks up
 * per value but what the run prepares before the scan (sealprep.c: the type
 * caches, an enum's labels): built-in output functions of built-in types and
 * of arrays, composites, ranges and domains of them, but those of the OID
 * alias types (regclass, regproc, ...: a catalog lookup of each value, kept
 * in this backend's caches) and xml's (it starts libxml the first time).
 */
static bool
key_output_prepared(Oid typid, int depth)
{
	HeapTuple	tup;
	Form_pg_type t;
	bool		ok = true;
	Oid			elem;

	typid = getBaseType(typid);
	if (depth > 8)
		return false;
	switch (typid)
	{
		case REGPROCOID:
		case REGPROCEDUREOID:
		case REGOPEROID:
		case REGOPERATOROID:
		case REGCLASSOID:
		case REGCOLLATIONOID:
		case REGTYPEOID:
		case REGROLEOID:
		case REGNAMESPACEOID:
		case REGCONFIGOID:
		case REGDICTIONARYOID:
		case XMLOID:
			return false;
		default:
			break;
	}
	elem = get_element_type(typid);
	if (OidIsValid(elem))
		return key_output_prepared(elem, depth + 1);
	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(typid));
	if (!HeapTupleIsValid(tup))
		return false;
	t = (Form_pg_type) GETSTRUCT(tup);
	switch (t->typtype)
	{
		case TYPTYPE_ENUM:
			break;
		case TYPTYPE_RANGE:
			ok = key_output_prepared(get_range_subtype(typid), depth + 1);
			break;
		case TYPTYPE_MULTIRANGE:
			ok = key_output_prepared(get_multirange_range(typid), depth + 1);
			break;
		case TYPTYPE_COMPOSITE:
			{
				TupleDesc	desc = lookup_rowtype_tupdesc(typid, -1);

				for (int i = 0; ok && i < desc->natts; i++)
					if (!TupleDescAttr(desc, i)->attisdropped)
						ok = key_output_prepared(TupleDescAttr(desc, i)->atttypid, depth + 1);
				ReleaseTupleDesc(desc);
				break;
			}
		case TYPTYPE_BASE:
			ok = t->typoutput < FirstNormalObjectId;
			break;
		default:
			ok = false;
			break;
	}
	ReleaseSysCache(tup);
	return ok;
}

/*
 * A key column is read as col::pg_catalog.text as the table's owner.  A
 * cast from its base type to text that a role made (whoever owns the type
 * may) runs its function as the owner: the role's own, or a built-in one
 * that may fail on a row (quote_literal(anyelement) casts to text again,
 * without end), so that the run fails or not by the rows.  Refused from the
 * catalog, before the charge; the built-in casts of built-in types, I/O and
 * binary casts run no such code (a user-definable type's output function is
 * built in).  Without a cast the type's output function makes the text: a
 * type whose output looks a value up where the run cannot prepare it is
 * refused too (key_output_prepared).  The query is parsed later (after the
 * budget lock's wait): pg_cast is share-locked against CREATE CAST until the
 * query is parsed and planned (train_query_unlock_casts, seal.c), so the
 * parse meets the casts checked here.
 */
static void
check_key_cast(const char *name, const char *relation, Oid basetype)
{
	HeapTuple	tup;
	Oid			func = InvalidOid;
	bool		via_output = true;	/* no cast, or WITH INOUT */

	LockRelationOid(CastRelationId, ShareLock);
	if (cast_locks++ == 0)
		cast_lock_owner = CurrentResourceOwner;
	tup = SearchSysCache2(CASTSOURCETARGET, ObjectIdGetDatum(basetype), ObjectIdGetDatum(TEXTOID));
	if (HeapTupleIsValid(tup))
	{
		Form_pg_cast c = (Form_pg_cast) GETSTRUCT(tup);

		via_output = c->castmethod == COERCION_METHOD_INOUT;
		if (c->castmethod == COERCION_METHOD_FUNCTION &&
			(c->oid >= FirstNormalObjectId || c->castfunc >= FirstNormalObjectId))
			func = c->castfunc;
		ReleaseSysCache(tup);
	}
	if (OidIsValid(func))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("column \"%s\" of table %s cannot be a key: its type's cast to text runs function %s",
						name, relation, format_procedure_qualified(func)),
				 errhint("The key is read as text with the table owner's privileges; group by another column, or drop the cast.")));
	if (via_output && !key_output_prepared(basetype, 0))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("column \"%s\" of table %s cannot be a key: the text of its type %s needs, per value, state the run cannot load before its scan",
						name, relation, format_type_be(basetype)),
				 errhint("A key's text must not depend on catalog lookups or libraries started for the selected rows (OID alias types such as regclass, xml, types of extensions); group by another column.")));
}

/* column_tuple(), then its type fit for use; its quoted catalog name */
static char *
lookup_column(Oid relid, const char *relation, const char *name, ColumnUse use,
			  Oid *basetype)
{
	HeapTuple	tup = column_tuple(relid, relation, name);
	Form_pg_attribute att = (Form_pg_attribute) GETSTRUCT(tup);
	char	   *quoted;

	*basetype = getBaseType(att->atttypid);
	if (!column_type_ok(*basetype, use))
	{
		ReleaseSysCache(tup);
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" of table %s has a type that cannot be used as %s",
						name, relation,
						use == COLUMN_FEATURE || use == COLUMN_LEVEL ? "a feature" :
						use == COLUMN_FILTER ? "a filter" : "a label"),
				 errhint("%s", column_use_hint(use))));
	}
	if (use == COLUMN_KEY)
		check_key_cast(name, relation, *basetype);
	/* a path table's column: the name the linked table's FROM item gives it */
	quoted = pstrdup(quote_identifier(att->attrelid == relid ? NameStr(att->attname) : name));
	ReleaseSysCache(tup);
	return quoted;
}

void
train_query_check_columns(Oid relid, const char *relation, char **features, int nfeatures,
						  const char *label, JsonbValue *filter)
{
	JsonbContainer *jc;

	/* an expression's column (its JSON text, "{...}") is checked as its query is built */
	for (int i = 0; i < nfeatures; i++)
		if (features[i][0] != '{')
			ReleaseSysCache(column_tuple(relid, relation, features[i]));
	if (label != NULL && label[0] != '{')
		ReleaseSysCache(column_tuple(relid, relation, label));
	if (filter == NULL || filter->type != jbvBinary || !JsonContainerIsArray(filter->val.binary.data))
		return;
	/* the filter's well-formed conditions; filter_condition() refuses the others */
	jc = filter->val.binary.data;
	for (int i = 0; i < JsonContainerSize(jc) && i < DPOBJ_MAX_FILTERS; i++)
	{
		JsonbValue *cond = getIthJsonbValueFromContainer(jc, i);
		JsonbValue *vcol = NULL;

		if (cond->type == jbvBinary && JsonContainerIsObject(cond->val.binary.data))
			vcol = getKeyJsonValueFromContainer(cond->val.binary.data, "column", 6, NULL);
		if (vcol != NULL && vcol->type == jbvString)
			ReleaseSysCache(column_tuple(relid, relation,
										 pnstrdup(vcol->val.string.val, vcol->val.string.len)));
	}
}

/*
 * The float8 expression of a feature column; never raises an error,
 * whatever the value (see the file header).
 */
static void
append_feature(StringInfo buf, const char *col, Oid basetype)
{
	switch (basetype)
	{
		case NUMERICOID:
			/* the file header's CASE as one C call (numfeature.c) */
			appendStringInfo(buf, "dpobj.numeric_feature(%s)", col);
			break;
		case BOOLOID:
			appendStringInfo(buf, "%s::pg_catalog.int4::pg_catalog.float8", col);
			break;
		default:
			appendStringInfo(buf, "%s::pg_catalog.float8", col);
			break;
	}
}

static char *
jsonb_scalar_text(JsonbValue *v)
{
	switch (v->type)
	{
		case jbvString:
			return pnstrdup(v->val.string.val, v->val.string.len);
		case jbvNumeric:
			return DatumGetCString(DirectFunctionCall1(numeric_out,
													   NumericGetDatum(v->val.numeric)));
		case jbvBool:
			return pstrdup(v->val.boolean ? "true" : "false");
		default:
			return NULL;
	}
}

/* the operator of a filter condition, from the fixed list */
static const char *
filter_operator(JsonbValue *vop, int i)
{
	static const char *const ops[] = {"=", "<>", "!=", "<", "<=", ">", ">="};

	for (int k = 0; k < lengthof(ops); k++)
	{
		if (vop->val.string.len == strlen(ops[k]) &&
			strncmp(vop->val.string.val, ops[k], vop->val.string.len) == 0)
			return (strcmp(ops[k], "!=") == 0) ? "<>" : ops[k];
	}
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("filter condition %d has an unknown operator", i + 1),
			 errhint("Use one of =, <>, !=, <, <=, >, >=.")));
	return NULL;				/* keep compiler quiet */
}

/*
 * One condition, {"column": name, "op": op, "value": constant}, as
 * "<column> OPERATOR(pg_catalog.<op>) $n": its constant becomes a parameter.
 */
static char *
filter_condition(TrainQuery *q, JsonbValue *cond, int i, Oid relid, const char *relation)
{
	JsonbValue *vcol = NULL;
	JsonbValue *vop = NULL;
	JsonbValue *vval = NULL;
	char	   *col;
	const char *op;
	char	   *text;
	Oid			basetype;
	Oid			infunc;
	Oid			ioparam;

	if (cond != NULL && cond->type == jbvBinary &&
		JsonContainerIsObject(cond->val.binary.data) &&
		JsonContainerSize(cond->val.binary.data) == 3)
	{
		vcol = getKeyJsonValueFromContainer(cond->val.binary.data, "column", 6, NULL);
		vop = getKeyJsonValueFromContainer(cond->val.binary.data, "op", 2, NULL);
		vval = getKeyJsonValueFromContainer(cond->val.binary.data, "value", 5, NULL);
	}
	if (vcol == NULL || vop == NULL || vval == NULL ||
		vcol->type != jbvString || vop->type != jbvString)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("filter condition %d must be an object with exactly the keys \"column\", \"op\" and \"value\"", i + 1),
				 errhint("For example {\"column\": \"age\", \"op\": \">=\", \"value\": 18}.")));

	op = filter_operator(vop, i);
	text = jsonb_scalar_text(vval);
	if (text == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("filter condition %d needs a string, number or boolean value", i + 1),
				 errhint("NULL, arrays and objects cannot be compared.")));

	col = lookup_column(relid, relation,
						pnstrdup(vcol->val.string.val, vcol->val.string.len),
						COLUMN_FILTER, &basetype);
	getTypeInputInfo(basetype, &infunc, &ioparam);
	q->types[q->nparams] = basetype;
	/* the analyst's own constant: an input error quotes it, never a row */
	q->values[q->nparams] = OidInputFunctionCall(infunc, text, ioparam, -1);
	q->nparams++;
	return psprintf("%s OPERATOR(pg_catalog.%s) $%d", col, op, q->nparams);
}

/* a column the unit's subquery must pass on, once */
static void
add_column(char **cols, int *ncols, char *col)
{
	for (int i = 0; i < *ncols; i++)
		if (strcmp(cols[i], col) == 0)
			return;
	cols[(*ncols)++] = col;
}

/*
 * dpobj.<fn>($n, <column>, ...) of expression e (a condition if cond), its
 * program a parameter; its columns passed on by a unit's subquery.  Without
 * a column, a condition's unused argument is now() (stable, never read): on
 * constants alone the planner would fold a false "where" (WHERE false,
 * WHERE 1 > 2) into a plan without the scan, which the run refuses (42501)
 */
static char *
expr_call(TrainQuery *q, JsonbValue *e, bool cond, const char *path, Oid relid,
		  const char *relation, char **cols, int *ncols)
{
	ExprParsed *x = palloc0(sizeof(ExprParsed));
	StringInfoData b;
	Oid			basetype;

	x->relid = relid;
	x->relation = relation;
	exprjson_parse(x, e, cond, path);
	q->types[q->nparams] = JSONBOID;
	q->values[q->nparams] = JsonbPGetDatum(exprjson_program(x, e));
	q->nparams++;
	initStringInfo(&b);
	appendStringInfo(&b, "dpobj.%s($%d", cond ? "expr_test" : "expr_value", q->nparams);
	for (int i = 0; i < x->ncols; i++)
	{
		char	   *col = lookup_column(relid, relation, x->cols[i], COLUMN_FILTER, &basetype);

		if (cols != NULL)
			add_column(cols, ncols, col);
		appendStringInfo(&b, ", %s", col);
	}
	appendStringInfoString(&b, x->ncols > 0 ? ")" :
						   cond ? ", pg_catalog.now())" : ", NULL::pg_catalog.int4)");
	return b.data;
}

/* the expression whose JSON text is the encoding column name, or NULL */
static JsonbValue *
expr_of_column(TrainQuery *q, const char *name)
{
	if (q->what == NULL || name[0] != '{')
		return NULL;
	for (int i = 0; i < JsonContainerSize(q->what->val.binary.data); i++)
	{
		JsonbValue *st = getIthJsonbValueFromContainer(q->what->val.binary.data, i);
		JsonbValue *e = st && st->type == jbvBinary && JsonContainerIsObject(st->val.binary.data) ?
			getKeyJsonValueFromContainer(st->val.binary.data, "expr", 4, NULL) : NULL;
		Jsonb	   *ej = e ? JsonbValueToJsonb(e) : NULL;

		if (ej != NULL && strcmp(JsonbToCString(NULL, &ej->root, VARSIZE(ej)), name) == 0)
			return e;
	}
	return NULL;
}

/*
 * The structured filter, an array of conditions ANDed, and first, unless
 * NULL, the condition first (the unit's "IS NOT NULL"), as one expression
 * that evaluates every condition on every row it sees:
 *   pg_catalog.num_nulls(CASE WHEN <first> THEN 1 END,
 *                        CASE WHEN <condition> THEN 1 END, ...) = 0
 * An AND stops at its first false condition, and a later one would then run,
 * and load what it needs (a collation's collator, a value from TOAST), only
 * for the rows the earlier ones select; a function's arguments are all
 * evaluated before the call.  num_nulls is not leakproof, so the planner
 * also keeps the expression after the owner's row-security conditions,
 * which therefore see every row whatever the filter selects.  Each column
 * is looked up like a feature; each value becomes a parameter of the
 * column's base type (parsed by the type's input function).  NULL when
 * there is no condition at all.
 */
static char *
filter_expression(TrainQuery *q, JsonbValue *filter, Oid relid, const char *relation,
				  const char *first)
{
	StringInfoData e;
	int			n = 0;

	initStringInfo(&e);
	appendStringInfoString(&e, "pg_catalog.num_nulls(");
	if (first != NULL)
	{
		appendStringInfo(&e, "CASE WHEN %s THEN 1 END", first);
		n++;
	}
	if (filter != NULL)
	{
		JsonbContainer *jc;
		int			nconds;

		if (filter->type != jbvBinary || !JsonContainerIsArray(filter->val.binary.data))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option \"filter\" must be an array of conditions"),
					 errhint("For example '{\"filter\": [{\"column\": \"age\", \"op\": \">=\", \"value\": 18}]}'.")));
		jc = filter->val.binary.data;
		nconds = JsonContainerSize(jc);
		if (nconds > DPOBJ_MAX_FILTERS)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("at most %d filter conditions are allowed", DPOBJ_MAX_FILTERS),
					 errhint("Combine conditions or protect a narrower table.")));
		for (int i = 0; i < nconds; i++, n++)
			appendStringInfo(&e, "%sCASE WHEN %s THEN 1 END", n > 0 ? ", " : "",
							 filter_condition(q, getIthJsonbValueFromContainer(jc, i), i,
											  relid, relation));
	}
	if (q->where != NULL)
		appendStringInfo(&e, "%sCASE WHEN %s THEN 1 END", n++ > 0 ? ", " : "",
						 expr_call(q, q->where, true, "where", relid, relation, NULL, NULL));
	if (n == 0)
		return NULL;
	appendStringInfoString(&e, ") OPERATOR(pg_catalog.=) 0");
	return e.data;
}

/*
 * The unit's rows' condition: the unit IS NOT NULL and the filter, as one
 * expression (filter_expression), its constants added to q's parameters
 * once: the unit's query selects the same rows in each of its scans.
 */
static char *
unit_condition(TrainQuery *q, JsonbValue *filter, Oid relid, const char *relation,
			   const char *unit_column)
{
	return filter_expression(q, filter, relid, relation,
							 psprintf("%s IS NOT NULL", unit_column));
}

/*
 * The sorted bounding (trainquery.h, unitkeep.c) of source's rows that cond
 * selects: one scan sorted by unit (a sort that spills to temporary files
 * beyond work_mem), each unit's rows numbered and counted over the unit's
 * window, selection sampling as they arrive.  Partitioned by the unit
 * alone, so that Citus runs it on each shard of a table distributed by
 * its unit.
 */
static void
append_unit_sorted(TrainQuery *q, const char *source, const char *list,
				   const char *unit_column, const char *cond, const char *k)
{
	appendStringInfo(&q->sql,
					 "(SELECT %s FROM (SELECT %s, pg_catalog.row_number() OVER \"dpobj unit\""
					 " AS \"dpobj unit row\", pg_catalog.count(*) OVER \"dpobj unit\" AS \"dpobj unit size\""
					 " FROM %s WHERE %s WINDOW \"dpobj unit\" AS (PARTITION BY %s)) AS \"dpobj unit sort\""
					 " WHERE dpobj.unit_keep_sorted(\"dpobj unit sort\".\"dpobj unit row\","
					 " \"dpobj unit sort\".\"dpobj unit size\", %s))",
					 list, list, source, cond, unit_column, k);
}

/*
 * The bounding of the unit's rows (trainquery.h, unitkeep.c), from source,
 * whose rows cond selects: the first scan counts each unit's selected rows
 * in memory and returns a handle, or 0 when the units outgrow
 * dpobj.max_state_memory; then exactly one branch of the UNION ALL runs,
 * the other's one-time filter being false: with a handle, a second scan
 * keeps a random k of each unit's rows; with 0, the sorted bounding does.
 * OFFSET 0 keeps the first branch a subquery under the first scan (the
 * second depends on it laterally), so the counts are complete before
 * either branch's first row.
 */
static void
append_unit_bounding(TrainQuery *q, const char *source, const char *list,
					 const char *unit_column, const char *cond, const char *k)
{
	/* a private k' (unitbound.c): drawn from the units' row counts, before both */
	if (q->unit_private)
		appendStringInfo(&q->sql,
						 "(SELECT dpobj.unit_bound(\"dpobj unit sizes\".\"dpobj unit size\")"
						 " AS \"dpobj unit bound\" FROM (SELECT pg_catalog.count(*) AS \"dpobj unit size\""
						 " FROM %s WHERE %s GROUP BY %s) AS \"dpobj unit sizes\") AS \"dpobj bound\""
						 " CROSS JOIN LATERAL ",
						 source, cond, unit_column);
	appendStringInfo(&q->sql,
					 "(SELECT dpobj.unit_counts(%s, %s) AS \"dpobj unit counts\" FROM %s"
					 " WHERE %s) AS \"dpobj units\" CROSS JOIN LATERAL (",
					 unit_column, k, source, cond);
	/* in memory: the counts' handle (> 0) */
	appendStringInfo(&q->sql,
					 "(SELECT %s FROM %s"
					 " WHERE \"dpobj units\".\"dpobj unit counts\" OPERATOR(pg_catalog.>) 0"
					 " AND CASE WHEN %s"
					 " THEN dpobj.unit_keep(%s, \"dpobj units\".\"dpobj unit counts\")"
					 " ELSE false END OFFSET 0)",
					 list, source, cond, unit_column);
	/* spilled (0) */
	appendStringInfoString(&q->sql, " UNION ALL ");
	append_unit_sorted(q, source, list, unit_column,
					   psprintf("\"dpobj units\".\"dpobj unit counts\" OPERATOR(pg_catalog.=) 0 AND %s",
								cond), k);
	appendStringInfoString(&q->sql, ") AS \"dpobj unit rows\"");
}

/*
 * FROM of a table with a privacy unit: its rows bounded per unit
 * (append_unit_bounding).  A table holding its unit is read by each scan;
 * a linked table's rows (source: the join of its path, unitlinks.h) are
 * selected once, into a materialized CTE of the columns passed on and the
 * unit (a tuplestore, in temporary files beyond work_mem): both scans read
 * those rows, in the same order, instead of each joining the path again.
 * On a Citus table distributed by its unit (sorted_only) the sorted
 * bounding alone, which each shard runs on its own rows: a unit's rows
 * (joined to co-located tables' on the unit too) are on one shard.
 */
static void
append_unit_from(TrainQuery *q, const char *source, bool linked, char **cols, int ncols,
				 const char *unit_column, const char *cond, int rows_per_unit,
				 bool sorted_only)
{
	char	   *k;
	bool		unit_passed = false;
	StringInfoData list;

	q->types[q->nparams] = INT8OID;
	q->values[q->nparams] = Int64GetDatum((int64) rows_per_unit);
	/* on Citus a private k' is drawn by a first query (unitboundshards.c), then $k */
	if (q->unit_private && sorted_only)
	{
		q->unit_bound_param = q->nparams;
		q->unit_bound_sql = psprintf("SELECT dpobj.unit_bound_shards(\"dpobj unit sizes\".\"dpobj unit size\", $3)"
									 " FROM (SELECT pg_catalog.count(*) AS \"dpobj unit size\""
									 " FROM %s WHERE %s GROUP BY %s) AS \"dpobj unit sizes\"",
									 source, cond, unit_column);
	}
	k = q->unit_private && !sorted_only ? "\"dpobj bound\".\"dpobj unit bound\"" :
		psprintf("$%d", ++q->nparams);
	initStringInfo(&list);
	for (int i = 0; i < ncols; i++)
	{
		appendStringInfo(&list, "%s%s", i > 0 ? ", " : "", cols[i]);
		unit_passed = unit_passed || strcmp(cols[i], unit_column) == 0;
	}
	/* no column read (count(*), sum(1)): the bounding's subqueries pass the unit */
	if (ncols == 0)
	{
		appendStringInfoString(&list, unit_column);
		unit_passed = true;
	}
	appendStringInfoString(&q->sql, " FROM ");
	/* counting distinct units: each unit's kept rows numbered within their cell */
	if (q->unit_cell != NULL)
		appendStringInfoString(&q->sql, "(SELECT \"dpobj unit rows\".*, pg_catalog.row_number() OVER"
							   " \"dpobj unit cell\" AS \"dpobj unit first\" FROM ");
	if (sorted_only)
	{
		/*
		 * source: the table, or its join to co-located tables on the unit
		 * (protectable.c refuses a linked table on Citus, unitjoin.c a join
		 * not co-located on the unit, lookups.c a lookup table)
		 */
		append_unit_sorted(q, source, list.data, unit_column, cond, k);
		appendStringInfoString(&q->sql, " AS \"dpobj unit rows\"");
	}
	else if (!linked)
		append_unit_bounding(q, source, list.data, unit_column, cond, k);
	else
	{
		appendStringInfo(&q->sql,
						 "(WITH \"dpobj unit selected\" AS MATERIALIZED (SELECT %s%s%s FROM %s WHERE %s)"
						 " SELECT \"dpobj unit rows\".* FROM ",
						 list.data, unit_passed ? "" : ncols > 0 ? ", " : "",
						 unit_passed ? "" : unit_column, source, cond);
		append_unit_bounding(q, "\"dpobj unit selected\"", list.data, unit_column, "true", k);
		appendStringInfoString(&q->sql, ") AS \"dpobj unit rows\"");
	}
	if (q->unit_cell != NULL)
		appendStringInfo(&q->sql, " WINDOW \"dpobj unit cell\" AS (PARTITION BY %s, %s))"
						 " AS \"dpobj unit rows\"", unit_column, q->unit_cell);
	pfree(list.data);
}

/*
 * The encoded features (encode.h): the categorical columns as text and the
 * numeric ones as float8 (append_feature), handed with the encoding ($4)
 * to dpobj.encode_features(), which raises no error for any value.  With
 * args, only looked up (in the same order) into quoted and types, for
 * append_encoded_args.
 */
static void
append_encoded(TrainQuery *q, const Encoding *enc, Oid relid, const char *relation,
			   char **cols, int *ncols, bool args, char **quoted, Oid *types)
{
	Oid			basetype;
	char	   *col;
	bool		first = true;

	/* a statistics layout's: a NULL kept, the statistics of its column skip it */
	if (!args)
		appendStringInfo(&q->sql, "dpobj.encode_features%s($4, ARRAY[",
						 q->what != NULL ? "_missing" : "");
	for (int i = 0; i < enc->ncols; i++)
		if (enc->cols[i].nlevels > 0)
		{
			col = lookup_column(relid, relation, enc->cols[i].column, COLUMN_LEVEL, &basetype);
			add_column(cols, ncols, col);
			quoted[i] = col;
			if (!args)
				appendStringInfo(&q->sql, "%s%s::pg_catalog.text", first ? "" : ", ", col);
			first = false;
		}
	if (!args)
		appendStringInfoString(&q->sql, "]::pg_catalog.text[], ARRAY[");
	first = true;
	for (int i = 0; i < enc->ncols; i++)
		if (enc->cols[i].nlevels == 0)
		{
			JsonbValue *e = expr_of_column(q, enc->cols[i].column);

			/* an expression's value is a float8: its columns passed on */
			basetype = FLOAT8OID;
			col = e ? expr_call(q, e, false, "what.expr", relid, relation, cols, ncols) :
				lookup_column(relid, relation, enc->cols[i].column, COLUMN_FEATURE, &basetype);
			if (e == NULL)
				add_column(cols, ncols, col);
			quoted[i] = col;
			types[i] = basetype;
			if (args)
				continue;
			if (!first)
				appendStringInfoString(&q->sql, ", ");
			append_feature(&q->sql, col, basetype);
			first = false;
		}
	if (!args)
		appendStringInfoString(&q->sql, "]::pg_catalog.float8[]), ");
}

/* the encoding's columns as separate arguments in its order, each preceded by ", " */
static void
append_encoded_args(TrainQuery *q, const Encoding *enc, char **quoted, const Oid *types)
{
	for (int i = 0; i < enc->ncols; i++)
	{
		appendStringInfoString(&q->sql, ", ");
		if (enc->cols[i].nlevels > 0)
			appendStringInfo(&q->sql, "%s::pg_catalog.text", quoted[i]);
		else
			append_feature(&q->sql, quoted[i], types[i]);
	}
}

/*
 * The encoding's columns raw in two arrays, each preceded by ", ": the text
 * of those with levels, then the float8 of the others, each in its order
 */
static void
append_encoded_arrays(TrainQuery *q, const Encoding *enc, char **quoted, const Oid *types)
{
	bool		first = true;

	appendStringInfoString(&q->sql, ", ARRAY[");
	for (int i = 0; i < enc->ncols; i++)
		if (enc->cols[i].nlevels > 0)
		{
			appendStringInfo(&q->sql, "%s%s::pg_catalog.text", first ? "" : ", ", quoted[i]);
			first = false;
		}
	appendStringInfoString(&q->sql, "]::pg_catalog.text[], ARRAY[");
	first = true;
	for (int i = 0; i < enc->ncols; i++)
		if (enc->cols[i].nlevels == 0)
		{
			appendStringInfoString(&q->sql, first ? "" : ", ");
			append_feature(&q->sql, quoted[i], types[i]);
			first = false;
		}
	appendStringInfoString(&q->sql, "]::pg_catalog.float8[]");
}

/* the features' columns, looked up in order (each passed on by the unit's subquery) */
static void
lookup_features(Oid relid, const char *relation, char **features, int nfeatures,
				char **quoted, Oid *types, char **cols, int *ncols)
{
	for (int i = 0; i < nfeatures; i++)
	{
		quoted[i] = lookup_column(relid, relation, features[i], COLUMN_FEATURE, &types[i]);
		add_column(cols, ncols, quoted[i]);
	}
}

/*
 * The looked-up features written as ARRAY[...]::float8[] or, when args, as
 * separate float8 arguments each preceded by ", ".
 */
static void
append_features(TrainQuery *q, char **quoted, const Oid *types, int nfeatures, bool args)
{
	if (!args)
		appendStringInfoString(&q->sql, "ARRAY[");
	for (int i = 0; i < nfeatures; i++)
	{
		if (args || i > 0)
			appendStringInfoString(&q->sql, ", ");
		append_feature(&q->sql, quoted[i], types[i]);
	}
	if (!args)
		appendStringInfoString(&q->sql, "]::pg_catalog.float8[]");
}

/* the label argument of its kind */
static void
append_label(TrainQuery *q, Oid relid, const char *relation, const char *label,
			 TrainLabel label_kind, char **cols, int *ncols)
{
	Oid			basetype;
	char	   *col;

	if (label_kind == TRAIN_LABEL_NONE)
	{
		/* counting distinct units: the first kept row of its unit in its cell (trainquery.h) */
		appendStringInfoString(&q->sql, q->unit_cell ?
							   "(\"dpobj unit first\" OPERATOR(pg_catalog.=) 1)" : "true");
		return;
	}
	col = lookup_column(relid, relation, label,
									label_kind == TRAIN_LABEL_REAL ? COLUMN_REAL_LABEL :
									label_kind == TRAIN_LABEL_CLASS ? COLUMN_CLASS :
									label_kind == TRAIN_LABEL_KEY ? COLUMN_KEY : COLUMN_LABEL,
									&basetype);

	add_column(cols, ncols, col);
	if (label_kind == TRAIN_LABEL_REAL)
		append_feature(&q->sql, col, basetype);
	else if (label_kind == TRAIN_LABEL_CLASS || label_kind == TRAIN_LABEL_KEY)
		appendStringInfo(&q->sql, "%s::pg_catalog.text", col);
	else if (basetype == BOOLOID)
		appendStringInfoString(&q->sql, col);
	else
		appendStringInfo(&q->sql, "(%s OPERATOR(pg_catalog.>) 0)", col);
}

/* q's "what" has {"stat": "units"} (a count of distinct units) */
static bool
what_counts_units(TrainQuery *q)
{
	for (int i = 0; q->what != NULL && i < JsonContainerSize(q->what->val.binary.data); i++)
	{
		JsonbValue *st = getIthJsonbValueFromContainer(q->what->val.binary.data, i);
		JsonbValue *s = st && st->type == jbvBinary && JsonContainerIsObject(st->val.binary.data) ?
			getKeyJsonValueFromContainer(st->val.binary.data, "stat", 4, NULL) : NULL;

		if (s != NULL && s->type == jbvString && s->val.string.len == 5 &&
			strncmp(s->val.string.val, "units", 5) == 0)
			return true;
	}
	return false;
}

/* name is one of the layout's group_by columns (g: its array, or NULL) */
static bool
layout_groups_by(JsonbValue *g, const char *name)
{
	for (int j = 0; g != NULL && g->type == jbvBinary && j < JsonContainerSize(g->val.binary.data); j++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(g->val.binary.data, j);

		if (e->type == jbvString && e->val.string.len == strlen(name) &&
			strncmp(e->val.string.val, name, e->val.string.len) == 0)
			return true;
	}
	return false;
}

/*
 * Counting distinct units: a row's group cell as dpobj.encode_features($4,
 * ...) of the layout's group_by columns alone (other columns NULL, numbers
 * 0): equal exactly for the rows of one cell, "other" and NULL alike
 * (encode.h); no group column: one cell.  Refused, on public grounds,
 * without a privacy unit.
 */
static char *
unit_cell_key(TrainQuery *q, JsonbValue *layout, const Encoding *enc, Oid relid,
			  const char *relation, int rows_per_unit)
{
	JsonbValue *g = getKeyJsonValueFromContainer(layout->val.binary.data, "group_by", 8, NULL);
	StringInfoData b;
	Oid			basetype;
	int			ngrouped = 0;

	if (rows_per_unit <= 0 || enc == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dpobj.aggregate: \"units\" counts distinct privacy units, and table %s has none", relation),
				 errhint("Its owner declares one with dpobj.protect(rel, privacy_unit => ...) or dpobj.link_unit().")));
	initStringInfo(&b);
	appendStringInfoString(&b, "dpobj.encode_features($4, ARRAY[");
	for (int i = 0, n = 0; i < enc->ncols; i++)
	{
		bool		grouped = enc->cols[i].nlevels > 0 && layout_groups_by(g, enc->cols[i].column);

		if (enc->cols[i].nlevels == 0)
			continue;
		ngrouped += grouped ? 1 : 0;
		appendStringInfo(&b, "%s%s::pg_catalog.text", n++ > 0 ? ", " : "", grouped ?
						 lookup_column(relid, relation, enc->cols[i].column, COLUMN_LEVEL, &basetype) :
						 "NULL");
	}
	appendStringInfoString(&b, "]::pg_catalog.text[], ARRAY[");
	for (int i = 0; i < enc->nnum; i++)
		appendStringInfo(&b, "%s0", i > 0 ? ", " : "");
	appendStringInfoString(&b, "]::pg_catalog.float8[])");
	return ngrouped > 0 ? b.data : "true";
}

/*
 * The aggregate's call: (<features>, <label>, $1, $2, $3), or with args
 * (the aggregate that takes the features one by one, trainquery.h)
 * (<label>, $1, $2, $3, <feature>, ...): with enc, its columns.
 */
static void
append_call(TrainQuery *q, const char *aggregate, Oid relid, const char *relation,
			char **features, int nfeatures, const char *label, TrainLabel label_kind,
			const Encoding *enc, bool args, bool arrays, char **cols, int *ncols)
{
	int			n = enc != NULL ? Max(enc->ncols, nfeatures) : nfeatures;
	char	  **quoted = palloc(sizeof(char *) * n);
	Oid		   *types = palloc0(sizeof(Oid) * n);

	appendStringInfo(&q->sql, "SELECT %s(", aggregate);
	/* the features first in either form: a caller's bad column is found in that order */
	if (enc != NULL)
		append_encoded(q, enc, relid, relation, cols, ncols, args || arrays, quoted, types);
	else
		lookup_features(relid, relation, features, nfeatures, quoted, types, cols, ncols);
	if (enc == NULL && !args)
	{
		append_features(q, quoted, types, nfeatures, false);
		appendStringInfoString(&q->sql, ", ");
	}
	append_label(q, relid, relation, label, label_kind, cols, ncols);
	appendStringInfoString(&q->sql, ", $1, $2, $3");
	if (arrays)
		append_encoded_arrays(q, enc, quoted, types);
	else if (args && enc != NULL)
		append_encoded_args(q, enc, quoted, types);
	else if (args)
		append_features(q, quoted, types, nfeatures, true);
	appendStringInfoChar(&q->sql, ')');
}

void
train_query_build(TrainQuery *q, const char *aggregate, const char *aggregate_args,
				  bool args_encoded, const char *aggregate_arrays, Oid relid,
				  const char *relation, char **features, int nfeatures,
				  const char *label, TrainLabel label_kind, JsonbValue *filter,
				  double epsilon, double delta, Jsonb *options,
				  const char *unit_column, const char *unit_from, int rows_per_unit,
				  Jsonb *encoding, bool filter_in_aggregate)
{
	Encoding   *enc = encoding ? encoding_parse(encoding) : NULL;
	/* the columns passed on: the features, the label, the encoding's, expressions' */
	char	  **cols = palloc(sizeof(char *) * (nfeatures + 1 + (enc ? enc->ncols : 0) +
												MaxTupleAttributeNumber));
	JsonbValue *layout = options ? getKeyJsonValueFromContainer(&options->root, "layout", 6, NULL) : NULL;
	int			ncols = 0;
	char	   *cond;
	bool		arrays = aggregate_arrays != NULL && enc != NULL && filter_in_aggregate;
	bool		args = aggregate_args != NULL && !filter_in_aggregate &&
		(enc == NULL ? nfeatures <= TRAIN_MAX_FEATURE_ARGS :
		 args_encoded && enc->ncols <= TRAIN_MAX_FEATURE_ARGS);

	initStringInfo(&q->sql);
	q->unit_bound_sql = NULL;
	q->what = layout && layout->type == jbvBinary && JsonContainerIsObject(layout->val.binary.data) ?
		getKeyJsonValueFromContainer(layout->val.binary.data, "what", 4, NULL) : NULL;
	if (q->what != NULL && (q->what->type != jbvBinary || !JsonContainerIsArray(q->what->val.binary.data)))
		q->what = NULL;
	/* the parameters $1 to $4 first: expressions' programs follow */
	q->types[0] = FLOAT8OID;
	q->values[0] = Float8GetDatum(epsilon);
	q->types[1] = FLOAT8OID;
	q->values[1] = Float8GetDatum(delta);
	q->types[2] = JSONBOID;
	q->values[2] = JsonbPGetDatum(options);
	q->nparams = 3;
	if (encoding != NULL)
	{
		q->types[3] = JSONBOID;
		q->values[3] = JsonbPGetDatum(encoding);
		q->nparams = 4;
	}
	q->unit_cell = what_counts_units(q) ?
		unit_cell_key(q, layout, enc, relid, relation, filter_in_aggregate ? 0 : rows_per_unit) : NULL;
	append_call(q, arrays ? aggregate_arrays : args ? aggregate_args : aggregate, relid, relation,
				features, nfeatures, label, label_kind, enc, args, arrays, cols, &ncols);

	if (filter_in_aggregate && rows_per_unit == 0)
	{
		/* the shards' tasks get no WHERE clause: a full scan whatever the filter */
		cond = filter_expression(q, filter, relid, relation, NULL);
		if (cond != NULL)
			appendStringInfo(&q->sql, " FILTER (WHERE %s)", cond);
		/* joined to its lookup tables: Citus reference tables (lookups.c) */
		appendStringInfo(&q->sql, " FROM %s", unit_from != NULL ? unit_from : relation);
		return;
	}
	if (rows_per_unit > 0)
	{
		/* counting distinct units: the unit passed on to number its rows */
		if (q->unit_cell != NULL)
			add_column(cols, &ncols, (char *) unit_column);
		/* a linked table: its rows joined to their unit (unitlinks.h) */
		append_unit_from(q, unit_from != NULL ? unit_from : relation, unit_from != NULL, cols, ncols,
						 unit_column, unit_condition(q, filter, relid, relation, unit_column),
						 rows_per_unit, filter_in_aggregate);
		return;
	}
	/* unit_from without a unit: the table joined to its lookup tables (lookupjoin.h) */
	appendStringInfo(&q->sql, " FROM %s", unit_from != NULL ? unit_from : relation);
	cond = filter_expression(q, filter, relid, relation, NULL);
	if (cond != NULL)
		appendStringInfo(&q->sql, " WHERE %s", cond);
}
