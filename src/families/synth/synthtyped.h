/*-------------------------------------------------------------------------
 *
 * synthtyped.h
 *	  Synthetic rows as values of typed columns (synthtyped.c): each model
 *	  column matched by name to a column of a row type, its values built
 *	  directly as Datums of that column's type -- a declared level once per
 *	  level, a number drawn in its bin per row -- by the same explicit cast
 *	  a SELECT of dpobj.sample()'s JSON would apply ((r->>'c')::type for a
 *	  level, (r->>'c')::float8::type for a number), with no text round trip.
 *	  dpobj.sample_rows(model, n) returns them; dpobj.sample_into() and
 *	  dpobj.synthesize() write them (synthwrite.h).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SYNTHTYPED_H
#define DPOBJ_SYNTHTYPED_H

#include "postgres.h"

#include "access/tupdesc.h"

#include "families/synth/synthdraw.h"
#include "model/encode.h"

typedef struct SynthTyped SynthTyped;

/*
 * How the row type must match the model's columns: ROWS, every column of
 * it is a model column (a subset, any order); TABLE, every model column is
 * a column of it (others are the table's, filled by its defaults).
 */
typedef enum SynthTypedMatch
{
	SYNTHTYPED_ROWS,
	SYNTHTYPED_TABLE
} SynthTypedMatch;

/*
 * The conversions of the model columns `enc` into the columns of desc,
 * in cxt; refused (42703, 42804, or the cast's own error on a declared
 * level) when they do not match.  fn names the caller.
 */
extern SynthTyped *synthtyped_plan(const Encoding *enc, TupleDesc desc, SynthTypedMatch match,
								   const char *fn, MemoryContext cxt);

/* the columns of desc that are not model columns (TABLE) */
extern int	synthtyped_others(const SynthTyped *t);

/*
 * Row i of the draw's batch into values/nulls (desc's natts; the columns
 * that are not model columns untouched), in the current memory context
 */
extern void synthtyped_row(SynthTyped *t, SynthDraw *s, int i, Datum *values, bool *nulls);

#endif							/* DPOBJ_SYNTHTYPED_H */
