/*-------------------------------------------------------------------------
 *
 * modelargs.h
 *	  The arguments of the model functions (dpobj.predict, score,
 *	  predict_class): the model, unpacked once per distinct value and cached
 *	  in fn_extra while the same value is passed row after row, a parsed
 *	  jsonb argument cached alike (encodings, options), and the feature
 *	  array's common check.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_MODELARGS_H
#define DPOBJ_MODELARGS_H

#include "postgres.h"

#include "fmgr.h"
#include "access/htup_details.h"
#include "utils/array.h"
#include "utils/jsonb.h"

/* unpacks a model tuple into memory of cxt */
typedef void *(*ModelUnpack) (HeapTupleHeader th, MemoryContext cxt);

/* argument 0's model, unpacked by unpack, or the cached one if it is the same value */
extern void *model_cached(FunctionCallInfo fcinfo, ModelUnpack unpack);

/* builds a jsonb argument's parsed form in memory of cxt */
typedef void *(*JsonbArgBuild) (Jsonb *arg, MemoryContext cxt);

/*
 * arg parsed by build (in fn_mcxt), cached in fn_extra: arg is argument
 * argno, and when that is a constant or a query parameter (the same on
 * every row, as in train()'s query) it is built once; else, or with argno
 * -1 (arg from elsewhere), again whenever its bytes change.  In an
 * aggregate's transition function argno counts the state.  A NULL arg goes
 * to build uncached: build must refuse it (an SQL NULL options argument).
 */
extern void *jsonb_arg_cached(FunctionCallInfo fcinfo, Jsonb *arg, int argno, JsonbArgBuild build);

/*
 * argument argno is a constant or a query parameter, the same value on
 * every row (in an aggregate's transition function argno counts the state)
 */
extern bool jsonb_arg_stable(FunctionCallInfo fcinfo, int argno);

/* a feature array with a NULL element is an error */
extern void model_features_not_null(ArrayType *arr);

#endif							/* DPOBJ_MODELARGS_H */
