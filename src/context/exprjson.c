/*-------------------------------------------------------------------------
 *
 * exprjson.c
 *	  dpobj.aggregate()'s expressions from JSON (exprjson.h), exactly:
 *
 *	  value: {"col": c} | {"num": x} | {"text": s} | {"bool": b} |
 *	    {"date": "YYYY-MM-DD"} | {"timestamp": "YYYY-MM-DD HH:MM:SS[.f]"} |
 *	    {"null": true} | {"op": "+"|"-"|"*"|"/", "args": [E, E]} |
 *	    {"op": "neg"|"abs", "args": [E]} | {"op": "coalesce", "args": [E, ...]} |
 *	    {"op": "case", "when": [{"if": C, "then": E}, ...][, "else": E]} |
 *	    {"op": "extract", "field": f, "args": [E]} | {"op": "bool", "args": [C]}
 *	  condition: {"op": "and"|"or", "args": [C, ...]} | {"op": "not", "args": [C]} |
 *	    {"op": "="|"<>"|"<"|"<="|">"|">=", "args": [E, E]} |
 *	    {"op": "in", "args": [E, K, ...]} (K constants) |
 *	    {"op": "between", "args": [E, lo, hi]} | {"op": "is_null", "args": [E]} |
 *	    {"op": "like"|"ilike", "args": [{"col": c}, {"text": p}]} | {"col": boolean c}
 *
 *	  Anything else errs 22023 naming the node's path (e.g. where.args[1]).
 *	  Columns: the table's own (catalog spelling, user columns) of numeric,
 *	  boolean, text, date or timestamp types, checked like filter columns.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/syscache.h"

#include "context/exprjson.h"
#include "context/linkcols.h"

static void
expr_bad(const char *path, const char *msg)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("expression %s: %s", path, msg),
			 errhint("See dpobj.help('aggregate') for the expression format.")));
}

static bool
str_is(const JsonbValue *v, const char *s)
{
	return v != NULL && v->type == jbvString && v->val.string.len == strlen(s) &&
		strncmp(v->val.string.val, s, v->val.string.len) == 0;
}

int
exprjson_type(Oid basetype)
{
	switch (basetype)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case FLOAT4OID:
		case FLOAT8OID:
		case NUMERICOID:
			return EXPR_NUM;
		case BOOLOID:
			return EXPR_BOOL;
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
			return EXPR_TEXT;
		case DATEOID:
			return EXPR_DATE;
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return EXPR_TS;
		default:
			return -1;
	}
}

/* a column of the table (relid) or of the program (cols): its index */
static int
expr_column(ExprParsed *x, const char *name, const char *path)
{
	HeapTuple	tup;
	Form_pg_attribute att;
	int			t;

	for (int i = 0; i < x->ncols; i++)
		if (strcmp(x->cols[i], name) == 0)
			return i;
	if (!OidIsValid(x->relid))
		expr_bad(path, psprintf("column \"%s\" is not among the program's \"args\"", name));
	if (x->ncols >= EXPR_MAX_COLS)
		expr_bad(path, psprintf("an expression reads at most %d columns", EXPR_MAX_COLS));
	tup = linked_column_tuple(x->relid, name);
	if (!HeapTupleIsValid(tup))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of table %s does not exist", name, x->relation),
				 errhint("Pass column names exactly as they are spelled in the catalog, without quotes.")));
	att = (Form_pg_attribute) GETSTRUCT(tup);
	t = att->attisdropped || att->attnum <= 0 ? -2 : exprjson_type(getBaseType(att->atttypid));
	ReleaseSysCache(tup);
	if (t == -2)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of table %s does not exist", name, x->relation)));
	if (t < 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" of table %s has a type that cannot be used in an expression", name, x->relation),
				 errhint("Expressions work on numeric, boolean, text, date and timestamp columns.")));
	x->cols[x->ncols] = pstrdup(name);
	x->types[x->ncols] = (ExprType) t;
	return x->ncols++;
}

/* "YYYY-MM-DD[ HH:MM:SS[.f]]": days (date) or seconds since 1970-01-01 */
static double
expr_time(const char *s, bool ts, const char *path)
{
	int			y,
				m,
				d,
				hh = 0,
				mi = 0,
				n = 0,
				cy,
				cm,
				cd;
	double		sec = 0;
	long long	days;

	if (sscanf(s, "%4d-%2d-%2d%n", &y, &m, &d, &n) != 3 || n != 10 ||
		(ts && !(sscanf(s + 10, "%*1[ T]%2d:%2d:%lf%n", &hh, &mi, &sec, &n) == 3 &&
				 s[10 + n] == '\0' && hh >= 0 && hh < 24 && mi >= 0 && mi < 60 &&
				 sec >= 0 && sec < 60)) ||
		(!ts && s[10] != '\0') || y < 1)
		expr_bad(path, ts ? "a timestamp is \"YYYY-MM-DD HH:MM:SS\"" : "a date is \"YYYY-MM-DD\"");
	days = expr_days(y, m, d);
	expr_civil(days, &cy, &cm, &cd);
	if (cy != y || cm != m || cd != d)
		expr_bad(path, "no such date");
	return ts ? days * 86400.0 + hh * 3600.0 + mi * 60.0 + sec : (double) days;
}

typedef struct ExprCursor
{
	ExprParsed *x;
	int			depth;
} ExprCursor;

static int	expr_node(ExprCursor *c, JsonbValue *v, bool cond, const char *path);

/* adds n with kids, checks it; its index */
static int
expr_push(ExprCursor *c, ExprNode *n, const int *kids, int nkids, const char *path)
{
	int			i = expr_add(c->x->prog, n, kids, nkids);
	int			bad;
	const char *msg;

	if (i < 0)
		expr_bad(path, psprintf("an expression has at most %d nodes", EXPR_MAX_NODES));
	c->x->paths[i] = pstrdup(path);
	msg = expr_check(c->x->prog, i, &bad);
	if (msg != NULL)
		expr_bad(c->x->paths[bad], msg);
	return i;
}

/* the array under key of obj, with n in [min, max] elements */
static JsonbContainer *
expr_array(JsonbContainer *obj, const char *key, int min, int max, const char *path)
{
	JsonbValue *a = getKeyJsonValueFromContainer(obj, key, strlen(key), NULL);
	int			n;

	if (a == NULL || a->type != jbvBinary || !JsonContainerIsArray(a->val.binary.data))
		expr_bad(path, psprintf("\"%s\" must be an array", key));
	n = JsonContainerSize(a->val.binary.data);
	if (n < min || n > max)
		expr_bad(path, psprintf("\"%s\" needs %d to %d elements", key, min, max));
	return a->val.binary.data;
}

/* parses the args of obj (each a condition if cond) into kids; their number */
static int
expr_args(ExprCursor *c, JsonbContainer *obj, int min, int max, bool cond, int *kids,
		  const char *path)
{
	JsonbContainer *a = expr_array(obj, "args", min, max, path);
	int			n = JsonContainerSize(a);

	for (int j = 0; j < n; j++)
		kids[j] = expr_node(c, getIthJsonbValueFromContainer(a, j), cond,
							psprintf("%s.args[%d]", path, j));
	return n;
}

/* a leaf: {"col": c}, or a constant (not as a condition) */
static int
expr_leaf(ExprCursor *c, JsonbContainer *obj, bool cond, const char *path)
{
	JsonbIterator *it = JsonbIteratorInit(obj);
	JsonbValue	k,
				v;
	ExprNode	n;

	memset(&n, 0, sizeof(n));
	(void) JsonbIteratorNext(&it, &k, true);	/* WJB_BEGIN_OBJECT */
	(void) JsonbIteratorNext(&it, &k, true);	/* the key */
	(void) JsonbIteratorNext(&it, &v, true);	/* its value */
	if (str_is(&k, "col"))
	{
		if (v.type != jbvString)
			expr_bad(path, "\"col\" must be a column name");
		n.col = expr_column(c->x, pnstrdup(v.val.string.val, v.val.string.len), path);
		n.type = c->x->types[n.col];
		n.kind = cond ? EK_BOOLCOL : EK_COL;
		return expr_push(c, &n, NULL, 0, path);
	}
	if (cond)
		expr_bad(path, "a condition must be an \"op\" object or a boolean column");
	n.kind = EK_CONST;
	if (str_is(&k, "num") && v.type == jbvNumeric)
	{
		char	   *s = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(v.val.numeric)));

		n.type = EXPR_NUM;
		n.k.x = strtod(s, NULL);
		if (!(fabs(n.k.x) <= EXPR_LIMIT))
			expr_bad(path, "a number must lie within +-1e300");
	}
	else if (str_is(&k, "text") && v.type == jbvString)
	{
		n.type = EXPR_TEXT;
		n.k.s = pnstrdup(v.val.string.val, v.val.string.len);
		n.k.len = v.val.string.len;
	}
	else if (str_is(&k, "bool") && v.type == jbvBool)
	{
		n.type = EXPR_BOOL;
		n.k.x = v.val.boolean ? 1 : 0;
	}
	else if ((str_is(&k, "date") || str_is(&k, "timestamp")) && v.type == jbvString)
	{
		n.type = str_is(&k, "date") ? EXPR_DATE : EXPR_TS;
		n.k.x = expr_time(pnstrdup(v.val.string.val, v.val.string.len), n.type == EXPR_TS, path);
	}
	else if (str_is(&k, "null") && v.type == jbvBool && v.val.boolean)
	{
		n.type = EXPR_NULLTYPE;
		n.k.null = true;
	}
	else
		expr_bad(path, "a value is {\"col\": c}, {\"num\": x}, {\"text\": s}, {\"bool\": b}, {\"date\": d}, {\"timestamp\": t}, {\"null\": true} or an \"op\" object");
	return expr_push(c, &n, NULL, 0, path);
}

/* only these keys in an "op" object */
static void
expr_keys(JsonbContainer *obj, const char *const *keys, int nkeys, const char *path)
{
	JsonbIterator *it = JsonbIteratorInit(obj);
	JsonbValue	v;
	JsonbIteratorToken tok;

	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		if (tok == WJB_KEY)
		{
			bool		ok = false;

			for (int j = 0; j < nkeys; j++)
				ok = ok || str_is(&v, keys[j]);
			if (!ok)
				expr_bad(path, psprintf("unknown key \"%.*s\"", v.val.string.len, v.val.string.val));
		}
}

static int
lookup(const JsonbValue *op, const char *const *names, int n)
{
	for (int j = 0; j < n; j++)
		if (str_is(op, names[j]))
			return j;
	return -1;
}

/* a CASE: {"op": "case", "when": [{"if": C, "then": E}, ...], "else": E} */
static int
expr_case(ExprCursor *c, JsonbContainer *obj, const char *path)
{
	static const char *const keys[] = {"op", "when", "else"};
	static const char *const wkeys[] = {"if", "then"};
	/* kids holds 2 per branch and the else: within EXPR_MAX_NODES */
	JsonbContainer *w = expr_array(obj, "when", 1, EXPR_MAX_NODES / 2 - 1, path);
	JsonbValue *e = getKeyJsonValueFromContainer(obj, "else", 4, NULL);
	int			kids[EXPR_MAX_NODES];
	int			nk = 0;
	ExprNode	n;

	expr_keys(obj, keys, 3, path);
	for (int j = 0; j < JsonContainerSize(w); j++)
	{
		JsonbValue *b = getIthJsonbValueFromContainer(w, j);
		char	   *bp = psprintf("%s.when[%d]", path, j);

		if (b->type != jbvBinary || !JsonContainerIsObject(b->val.binary.data) ||
			JsonContainerSize(b->val.binary.data) != 2)
			expr_bad(bp, "a branch is {\"if\": C, \"then\": E}");
		expr_keys(b->val.binary.data, wkeys, 2, bp);
		kids[nk++] = expr_node(c, getKeyJsonValueFromContainer(b->val.binary.data, "if", 2, NULL),
							   true, psprintf("%s.if", bp));
		kids[nk++] = expr_node(c, getKeyJsonValueFromContainer(b->val.binary.data, "then", 4, NULL),
							   false, psprintf("%s.then", bp));
	}
	memset(&n, 0, sizeof(n));
	if (e != NULL)
		kids[nk++] = expr_node(c, e, false, psprintf("%s.else", path));
	n.kind = EK_CASE;
	n.has_else = e != NULL;
	n.type = EXPR_NUM;
	{
		int			i = expr_push(c, &n, kids, nk, path);
		ExprType	t = EXPR_NULLTYPE;

		/* its type: its branches' */
		for (int j = 1; j < nk && t == EXPR_NULLTYPE; j += 2)
			t = c->x->prog->nodes[kids[j]].type;
		if (t == EXPR_NULLTYPE && n.has_else)
			t = c->x->prog->nodes[kids[nk - 1]].type;
		c->x->prog->nodes[i].type = t == EXPR_BOOL ? EXPR_NUM : t;
		return i;
	}
}

/* a condition's "op" object, k its index among the condition ops */
static int
expr_cond_op(ExprCursor *c, JsonbContainer *obj, int k, const char *path)
{
	int			kids[EXPR_MAX_NODES];
	int			nk;
	ExprNode	n;

	memset(&n, 0, sizeof(n));
	n.type = EXPR_BOOL;
	switch (k)
	{
		case 0:
		case 1:
		case 2:
			n.kind = k == 0 ? EK_AND : k == 1 ? EK_OR : EK_NOT;
			nk = expr_args(c, obj, 1, k == 2 ? 1 : 64, true, kids, path);
			break;
		case 9:
			n.kind = EK_IN;
			nk = expr_args(c, obj, 2, 64, false, kids, path);
			for (int j = 1; j < nk; j++)
				if (c->x->prog->nodes[kids[j]].kind != EK_CONST)
					expr_bad(c->x->paths[kids[j]], "the values of \"in\" must be constants");
			break;
		case 10:
			n.kind = EK_BETWEEN;
			nk = expr_args(c, obj, 3, 3, false, kids, path);
			break;
		case 11:
			n.kind = EK_ISNULL;
			nk = expr_args(c, obj, 1, 1, false, kids, path);
			break;
		case 12:
		case 13:
			n.kind = EK_LIKE;
			n.op = k == 13;
			nk = expr_args(c, obj, 2, 2, false, kids, path);
			if (c->x->prog->nodes[kids[0]].kind != EK_COL || c->x->prog->nodes[kids[1]].kind != EK_CONST)
				expr_bad(path, "like takes [{\"col\": c}, {\"text\": pattern}]");
			break;
		default:
			n.kind = EK_CMP;
			n.op = k - 3;
			nk = expr_args(c, obj, 2, 2, false, kids, path);
			break;
	}
	return expr_push(c, &n, kids, nk, path);
}

/* an "op" object */
static int
expr_op(ExprCursor *c, JsonbContainer *obj, bool cond, const char *path)
{
	static const char *const vops[] = {"+", "-", "*", "/", "neg", "abs", "coalesce", "case", "extract", "bool"};
	static const char *const cops[] = {"and", "or", "not", "=", "<>", "<", "<=", ">", ">=", "in", "between", "is_null", "like", "ilike"};
	static const char *const fields[] = {"year", "quarter", "month", "day", "dow", "doy", "hour", "minute", "epoch"};
	static const char *const keys[] = {"op", "args"};
	static const char *const xkeys[] = {"op", "args", "field"};
	JsonbValue *op = getKeyJsonValueFromContainer(obj, "op", 2, NULL);
	int			kids[EXPR_MAX_NODES];
	int			nk;
	int			k;
	ExprNode	n;

	memset(&n, 0, sizeof(n));
	k = lookup(op, cond ? cops : vops, cond ? lengthof(cops) : lengthof(vops));
	if (k < 0)
		expr_bad(path, cond ? "a condition's \"op\" is and, or, not, =, <>, <, <=, >, >=, in, between, is_null, like or ilike" :
				 "a value's \"op\" is +, -, *, /, neg, abs, coalesce, case, extract or bool");
	if (!cond && k == 7)
		return expr_case(c, obj, path);
	expr_keys(obj, !cond && k == 8 ? xkeys : keys, !cond && k == 8 ? 3 : 2, path);
	n.type = cond ? EXPR_BOOL : EXPR_NUM;
	if (!cond)
	{
		static const ExprKind kinds[] = {EK_ADD, EK_SUB, EK_MUL, EK_DIV, EK_NEG, EK_ABS, EK_COALESCE, EK_CASE, EK_EXTRACT, EK_BOOLVAL};

		n.kind = kinds[k];
		nk = expr_args(c, obj, k < 4 ? 2 : k == 6 ? 1 : 1, k < 4 ? 2 : k == 6 ? 64 : 1, k == 9, kids, path);
		if (k == 6)
		{
			n.type = EXPR_NULLTYPE;
			for (int j = 0; j < nk && n.type == EXPR_NULLTYPE; j++)
				n.type = c->x->prog->nodes[kids[j]].type;
			if (n.type == EXPR_BOOL)
				n.type = EXPR_NUM;
		}
		if (k == 8)
		{
			JsonbValue *f = getKeyJsonValueFromContainer(obj, "field", 5, NULL);

			n.op = lookup(f, fields, lengthof(fields));
			if (n.op < 0)
				expr_bad(path, "\"field\" is year, quarter, month, day, dow, doy, hour, minute or epoch");
		}
		return expr_push(c, &n, kids, nk, path);
	}
	return expr_cond_op(c, obj, k, path);
}

static int
expr_node(ExprCursor *c, JsonbValue *v, bool cond, const char *path)
{
	int			i;

	if (v == NULL || v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		expr_bad(path, cond ? "a condition must be a JSON object" : "a value must be a JSON object");
	if (++c->depth > EXPR_MAX_DEPTH)
		expr_bad(path, psprintf("an expression nests at most %d deep", EXPR_MAX_DEPTH));
	if (getKeyJsonValueFromContainer(v->val.binary.data, "op", 2, NULL) != NULL)
		i = expr_op(c, v->val.binary.data, cond, path);
	else if (JsonContainerSize(v->val.binary.data) == 1)
		i = expr_leaf(c, v->val.binary.data, cond, path);
	else
	{
		expr_bad(path, "a leaf has exactly one key");
		i = -1;
	}
	c->depth--;
	return i;
}

void
exprjson_parse(ExprParsed *x, JsonbValue *v, bool cond, const char *path)
{
	ExprCursor	c = {x, 0};

	x->prog = palloc0(sizeof(ExprProgram));
	x->prog->utf8 = GetDatabaseEncoding() == PG_UTF8;
	x->prog->root = expr_node(&c, v, cond, path);
	if (!cond && x->prog->nodes[x->prog->root].type != EXPR_NUM &&
		x->prog->nodes[x->prog->root].type != EXPR_BOOL &&
		x->prog->nodes[x->prog->root].type != EXPR_NULLTYPE)
		expr_bad(path, "a statistic's expression must be a number");
}

Jsonb *
exprjson_program(const ExprParsed *x, JsonbValue *e)
{
	StringInfoData b;
	Jsonb	   *ej = JsonbValueToJsonb(e);

	initStringInfo(&b);
	appendStringInfoString(&b, "{\"args\": [");
	for (int i = 0; i < x->ncols; i++)
	{
		if (i > 0)
			appendStringInfoString(&b, ", ");
		escape_json(&b, x->cols[i]);
	}
	appendStringInfo(&b, "], \"e\": %s}", JsonbToCString(NULL, &ej->root, VARSIZE(ej)));
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data)));
}

typedef struct BoundsArg
{
	const ExprParsed *x;
	const Encoding *enc;
	char	  **need;
	int			nneed;
} BoundsArg;

static bool
bounds_cb(int col, double *lo, double *hi, void *arg)
{
	BoundsArg  *a = arg;
	const char *name = a->x->cols[col];

	if (a->enc != NULL)
		for (int i = 0; i < a->enc->ncols; i++)
			if (strcmp(a->enc->cols[i].column, name) == 0 && a->enc->cols[i].nlevels == 0)
			{
				*lo = a->enc->cols[i].lo;
				*hi = a->enc->cols[i].hi;
				return true;
			}
	for (int i = 0; i < a->nneed; i++)
		if (strcmp(a->need[i], name) == 0)
			return false;
	a->need[a->nneed++] = pstrdup(name);
	return false;
}

bool
exprjson_bounds(const ExprParsed *x, const Encoding *enc, double *lo, double *hi,
				char ***need, int *nneed)
{
	BoundsArg	a = {x, enc, palloc(sizeof(char *) * EXPR_MAX_COLS), 0};
	ExprBounds	b = expr_bounds(x->prog, x->prog->root, bounds_cb, &a);

	*need = a.need;
	*nneed = a.nneed;
	if (b.unknown >= 0 && enc == NULL && !b.zero_div)
		return false;
	if (b.unknown >= 0)
	{
		const ExprNode *n = &x->prog->nodes[b.unknown];

		if (b.zero_div)
			expr_bad(x->paths[b.unknown], "a division needs a divisor whose bounds exclude 0");
		if (n->kind == EK_COL)
			expr_bad(x->paths[b.unknown],
					 psprintf("column \"%s\" has no declared bounds (dpobj.declare_domain(rel, column, lo, hi))",
							  x->cols[n->col]));
		expr_bad(x->paths[b.unknown], "this value has no bounds");
	}
	if (b.empty)
		b.lo = b.hi = 0;
	/* an interval of one value: widened by 1 (the encoding needs lo < hi) */
	if (!(b.lo < b.hi))
	{
		b.lo -= 0.5;
		b.hi += 0.5;
	}
	*lo = b.lo;
	*hi = b.hi;
	return true;
}
