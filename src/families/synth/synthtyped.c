/*-------------------------------------------------------------------------
 *
 * synthtyped.c
 *	  Synthetic rows as values of typed columns (synthtyped.h), and
 *	  dpobj.sample_rows(model, n): n of them as records of the caller's
 *	  column definition list, e.g. AS t(age int, sex text).  Post-processing
 *	  of the model alone, no charge.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "funcapi.h"
#include "nodes/makefuncs.h"
#include "nodes/params.h"
#include "optimizer/optimizer.h"
#include "parser/parse_coerce.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"

#include "families/synth/synthtyped.h"

PG_FUNCTION_INFO_V1(dpobj_synth_sample_rows);

/* one model column into one column of the row type */
typedef struct SynthConv
{
	int			j;				/* the model column */
	int			att;			/* the row type's attribute, 0-based */
	Datum	   *level;			/* a level column: each declared level as the type */
	ExprState  *cast;			/* a binned column: float8 to the type; NULL: float8 itself */
} SynthConv;

struct SynthTyped
{
	int			nconv;
	int			others;			/* columns of the row type that are no model column */
	SynthConv  *conv;
	ParamListInfo param;		/* $1, the value a cast converts */
	ExprContext *econtext;		/* holds param */
};

/* an explicit cast of $1 (type from) to column a's type; NULL when it is $1 itself */
static ExprState *
typed_cast(Oid from, Form_pg_attribute a, const char *column, const char *fn)
{
	Param	   *p = makeNode(Param);
	Node	   *e;

	p->paramkind = PARAM_EXTERN;
	p->paramid = 1;
	p->paramtype = from;
	p->paramtypmod = -1;
	p->paramcollid = from == TEXTOID ? DEFAULT_COLLATION_OID : InvalidOid;
	p->location = -1;
	e = coerce_to_target_type(NULL, (Node *) p, from, a->atttypid, a->atttypmod,
							  COERCION_EXPLICIT, COERCE_EXPLICIT_CAST, -1);
	if (e == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s: column \"%s\" is of type %s, which the model's %s values do not cast to",
						fn, column, format_type_with_typemod(a->atttypid, a->atttypmod),
						from == TEXTOID ? "level (text)" : "numeric (float8)"),
				 errhint("Give the column a type the values cast to, e.g. the source table's.")));
	if (e == (Node *) p)
		return NULL;
	return ExecInitExpr(expression_planner((Expr *) e), NULL);
}

/* $1 := v (of type from) through the cast, in the current memory context */
static Datum
typed_eval(SynthTyped *t, ExprState *cast, Oid from, Datum v, bool *isnull)
{
	t->param->params[0].ptype = from;
	t->param->params[0].value = v;
	t->param->params[0].isnull = false;
	return ExecEvalExpr(cast, t->econtext, isnull);
}

/* the model column j's conversion into attribute att of desc */
static void
typed_conv(SynthTyped *t, SynthConv *c, const EncColumn *e, TupleDesc desc, const char *fn)
{
	Form_pg_attribute a = TupleDescAttr(desc, c->att);

	ExprState  *cast;

	if (e->nlevels == 0)
	{
		c->cast = typed_cast(FLOAT8OID, a, e->column, fn);
		return;
	}
	/* every declared level converted once (a text type takes it as it is) */
	cast = typed_cast(TEXTOID, a, e->column, fn);
	c->level = palloc(sizeof(Datum) * e->nlevels);
	for (int l = 0; l < e->nlevels; l++)
	{
		Datum		v = CStringGetTextDatum(e->levels[l]);
		bool		isnull = false;

		if (cast != NULL)
			v = typed_eval(t, cast, TEXTOID, v, &isnull);
		if (isnull)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("%s: level \"%s\" of column \"%s\" casts to NULL", fn,
							e->levels[l], e->column)));
		c->level[l] = datumCopy(v, a->attbyval, a->attlen);
	}
}

SynthTyped *
synthtyped_plan(const Encoding *enc, TupleDesc desc, SynthTypedMatch match, const char *fn,
				MemoryContext cxt)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	SynthTyped *t = palloc0(sizeof(SynthTyped));

	t->conv = palloc0(sizeof(SynthConv) * enc->ncols);
	t->param = makeParamList(1);
	t->param->numParams = 1;
	t->param->params[0].pflags = PARAM_FLAG_CONST;
	t->econtext = CreateStandaloneExprContext();
	t->econtext->ecxt_param_list_info = t->param;
	for (int k = 0; k < desc->natts; k++)
	{
		Form_pg_attribute a = TupleDescAttr(desc, k);
		int			j = -1;

		if (a->attisdropped)
			continue;
		for (int m = 0; m < enc->ncols && j < 0; m++)
			if (strcmp(enc->cols[m].column, NameStr(a->attname)) == 0)
				j = m;
		if (j < 0 && match == SYNTHTYPED_ROWS)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("%s: \"%s\" is not a column of the model", fn, NameStr(a->attname)),
					 errhint("Name columns of the model's params->'domains'.")));
		if (j < 0)
		{
			t->others++;
			continue;
		}
		t->conv[t->nconv].j = j;
		t->conv[t->nconv].att = k;
		typed_conv(t, &t->conv[t->nconv], &enc->cols[j], desc, fn);
		t->nconv++;
	}
	if (match == SYNTHTYPED_TABLE && t->nconv < enc->ncols)
		for (int m = 0; m < enc->ncols; m++)
		{
			bool		found = false;

			for (int k = 0; k < t->nconv; k++)
				found |= t->conv[k].j == m;
			if (!found)
				ereport(ERROR,
						(errcode(ERRCODE_UNDEFINED_COLUMN),
						 errmsg("%s: the target has no column \"%s\" of the model", fn,
								enc->cols[m].column),
						 errhint("The target needs a column of each name in the model's params->'domains'.")));
		}
	MemoryContextSwitchTo(old);
	return t;
}

int
synthtyped_others(const SynthTyped *t)
{
	return t->others;
}

void
synthtyped_row(SynthTyped *t, SynthDraw *s, int i, Datum *values, bool *nulls)
{
	const int  *row = s->rows + (int64) i * s->f->d;

	for (int k = 0; k < t->nconv; k++)
	{
		SynthConv  *c = &t->conv[k];
		int			lv;
		double		x;

		nulls[c->att] = synthdraw_value(s->f, c->j, row[c->j], s->rng, &lv, &x);
		if (nulls[c->att])
			values[c->att] = (Datum) 0;
		else if (lv >= 0)
			values[c->att] = c->level[lv];
		else if (c->cast == NULL)
			values[c->att] = Float8GetDatum(x);
		else
			values[c->att] = typed_eval(t, c->cast, FLOAT8OID, Float8GetDatum(x), &nulls[c->att]);
	}
}

/* ---- dpobj.sample_rows ---- */

typedef struct RowsRun
{
	SynthDraw  *draw;
	SynthTyped *typed;
	TupleDesc	desc;
	Datum	   *values;
	bool	   *nulls;
	int			next;
} RowsRun;

static RowsRun *
rows_begin(FunctionCallInfo fcinfo, MemoryContext cxt)
{
	RowsRun    *r = MemoryContextAllocZero(cxt, sizeof(RowsRun));
	TupleDesc	desc;
	MemoryContext old;

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dpobj.sample_rows: a column definition list is required"),
				 errhint("For example SELECT * FROM dpobj.sample_rows(m, 100) AS t(age int, sex text).")));
	r->draw = synthdraw_begin(PG_GETARG_HEAPTUPLEHEADER(0), PG_GETARG_INT64(1), cxt,
							  "dpobj.sample_rows");
	old = MemoryContextSwitchTo(cxt);
	r->desc = BlessTupleDesc(CreateTupleDescCopy(desc));
	r->values = palloc0(sizeof(Datum) * r->desc->natts);
	r->nulls = palloc0(sizeof(bool) * r->desc->natts);
	MemoryContextSwitchTo(old);
	r->typed = synthtyped_plan(r->draw->f->enc, r->desc, SYNTHTYPED_ROWS, "dpobj.sample_rows", cxt);
	return r;
}

Datum
dpobj_synth_sample_rows(PG_FUNCTION_ARGS)
{
	FuncCallContext *fc;
	RowsRun    *r;

	if (SRF_IS_FIRSTCALL())
	{
		fc = SRF_FIRSTCALL_INIT();
		fc->user_fctx = rows_begin(fcinfo, fc->multi_call_memory_ctx);
	}
	fc = SRF_PERCALL_SETUP();
	r = fc->user_fctx;
	if (r->next == r->draw->nbatch)
	{
		if (synthdraw_batch(r->draw) == 0)
			SRF_RETURN_DONE(fc);
		r->next = 0;
	}
	synthtyped_row(r->typed, r->draw, r->next++, r->values, r->nulls);
	SRF_RETURN_NEXT(fc, HeapTupleGetDatum(heap_form_tuple(r->desc, r->values, r->nulls)));
}
