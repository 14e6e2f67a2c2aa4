/*-------------------------------------------------------------------------
 *
 * train.h
 *	  dpobj.train(rel, mechanism, features, label, epsilon, delta, options)
 *	  and its validation, shared with dpobj.submit.  Implemented
 *	  in train.c; the query it runs is built by trainquery.c and run
 *	  sealed by seal.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_TRAIN_H
#define DPOBJ_TRAIN_H

#include "postgres.h"

#include "fmgr.h"

/*
 * Smallest epsilon dpobj.train() charges: every probe of a
 * protected table costs at least this much budget.
 */
#define DPOBJ_MIN_EPSILON_TEXT	"0.000001"

/*
 * dpobj.submit(): runs dpobj.train()'s own argument checks and
 * budget pre-check on fcinfo (train's seven arguments) without scanning or
 * charging anything; raises exactly the errors train() would raise first.
 */
extern void dpobj_train_validate(FunctionCallInfo fcinfo);

/*
 * dpobj.evaluate() (evaluate.c): train()'s sealed path with the mechanism
 * 'evaluate' (an argument list in train()'s order), returning its jsonb.
 * dpobj.train() and dpobj.submit() refuse that mechanism.
 */
extern Datum train_evaluate(FunctionCallInfo fcinfo);

#endif							/* DPOBJ_TRAIN_H */
