/*-------------------------------------------------------------------------
 *
 * modelargs.h
 *	  The arguments of the model functions (dpobj.predict, score,
 *	  predict_class): the model, unpacked once per distinct value and cached
 *	  in fn_extra while the same value is passed row after row, and the
 *	  feature array's common check.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_MODELARGS_H
#define DPOBJ_MODELARGS_H

#include "postgres.h"

#include "fmgr.h"
#include "access/htup_details.h"
#include "utils/array.h"

/* unpacks a model tuple into memory of cxt */
typedef void *(*ModelUnpack) (HeapTupleHeader th, MemoryContext cxt);

/* argument 0's model, unpacked by unpack, or the cached one if it is the same value */
extern void *model_cached(FunctionCallInfo fcinfo, ModelUnpack unpack);

/* a feature array with a NULL element is an error */
extern void model_features_not_null(ArrayType *arr);

#endif							/* DPOBJ_MODELARGS_H */
