/*-------------------------------------------------------------------------
 *
 * modelargs.c
 *	  The arguments of the model functions (modelargs.h).
 *
 *-------------------------------------------------------------------------
 */
#include "model/modelargs.h"

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

void
model_features_not_null(ArrayType *arr)
{
	if (array_contains_nulls(arr))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("feature array must not contain NULL elements"),
				 errhint("Impute missing features as for training.")));
}
