/*-------------------------------------------------------------------------
 *
 * modelargs.c
 *	  The arguments of the model functions (modelargs.h).
 *
 *-------------------------------------------------------------------------
 */
#include "model/modelargs.h"

#include "nodes/primnodes.h"
#include "utils/memutils.h"

typedef struct ModelCache
{
	Size		len;
	char	   *raw;			/* copy of the model tuple, for equality checks */
	void	   *m;				/* the unpacked model */
	MemoryContext cxt;			/* holds raw and m */
} ModelCache;

void *
model_cached(FunctionCallInfo fcinfo, ModelUnpack unpack)
{
	HeapTupleHeader th = PG_GETARG_HEAPTUPLEHEADER(0);
	Size		len = HeapTupleHeaderGetDatumLength(th);
	ModelCache *c = (ModelCache *) fcinfo->flinfo->fn_extra;

	if (c != NULL && c->len == len && memcmp(c->raw, th, len) == 0)
		return c->m;
	if (c == NULL)
	{
		c = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(ModelCache));
		c->cxt = AllocSetContextCreate(fcinfo->flinfo->fn_mcxt, "dpobj model cache",
									   ALLOCSET_SMALL_SIZES);
		fcinfo->flinfo->fn_extra = c;
	}
	else
		MemoryContextReset(c->cxt);
	/* an error while unpacking leaves no stale entry behind */
	c->len = 0;
	c->m = unpack(th, c->cxt);
	c->raw = MemoryContextAlloc(c->cxt, len);
	memcpy(c->raw, th, len);
	c->len = len;
	return c->m;
}

typedef struct JsonbArgCache
{
	Jsonb	   *arg;			/* a copy of the argument it was built from */
	void	   *built;
	bool		stable;			/* the same argument on every call */
} JsonbArgCache;

/* an aggregate's argument: its Aggref's */
bool
jsonb_arg_stable(FunctionCallInfo fcinfo, int argno)
{
	Aggref	   *a;
	Node	   *e;

	if (!AggCheckCallContext(fcinfo, NULL))
		return get_fn_expr_arg_stable(fcinfo->flinfo, argno);
	a = AggGetAggref(fcinfo);
	if (a == NULL || argno < 1 || argno > list_length(a->args))
		return false;
	e = (Node *) list_nth_node(TargetEntry, a->args, argno - 1)->expr;
	return IsA(e, Const) || (IsA(e, Param) && ((Param *) e)->paramkind == PARAM_EXTERN);
}

void *
jsonb_arg_cached(FunctionCallInfo fcinfo, Jsonb *arg, int argno, JsonbArgBuild build)
{
	JsonbArgCache *c = (JsonbArgCache *) fcinfo->flinfo->fn_extra;
	JsonbArgCache *n;
	MemoryContext old;

	/* no argument: build refuses it on its own grounds; nothing to cache */
	if (arg == NULL)
		return build(NULL, CurrentMemoryContext);
	if (c != NULL && c->stable)
		return c->built;
	if (c != NULL && VARSIZE(c->arg) == VARSIZE(arg) && memcmp(c->arg, arg, VARSIZE(arg)) == 0)
		return c->built;
	old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
	n = palloc0(sizeof(JsonbArgCache));
	n->arg = palloc(VARSIZE(arg));
	memcpy(n->arg, arg, VARSIZE(arg));
	/* built in fn_mcxt; an error leaves the previous entry in place */
	n->built = build(n->arg, fcinfo->flinfo->fn_mcxt);
	MemoryContextSwitchTo(old);
	n->stable = argno >= 0 && jsonb_arg_stable(fcinfo, argno);
	fcinfo->flinfo->fn_extra = n;
	return n->built;
}

void
model_features_not_null(ArrayType *arr)
{
	if (array_contains_nulls(arr))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("feature array must not contain NULL elements"),
				 errhint("Impute missing features as for training.")));
}
