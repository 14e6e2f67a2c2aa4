/*-------------------------------------------------------------------------
 *
 * synthdraw.h
 *	  Drawing synthetic rows from a released synthesizer model, the one
 *	  draw every reader shares (synthdraw.c): dpobj.sample()'s JSON rows,
 *	  dpobj.sample_rows()' typed rows and dpobj.sample_into()'s writes
 *	  (synthwrite.c).  Post-processing of the model alone: no row read, no
 *	  charge.  Rows come in batches of SYNTHDRAW_BATCH (core/synthsample.c:
 *	  systematic sampling per batch), so memory does not grow with n.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SYNTHDRAW_H
#define DPOBJ_SYNTHDRAW_H

#include "postgres.h"

#include <gsl/gsl_rng.h>

#include "access/htup_details.h"

#include "families/synth/synthmodel.h"

#define SYNTHDRAW_BATCH		65536

typedef struct SynthDraw
{
	SynthFitted *f;
	gsl_rng    *rng;			/* freed with the draw's memory context */
	int64		left;			/* rows still to draw */
	int		   *rows;			/* the batch: SYNTHDRAW_BATCH x d model levels */
	int			nbatch;			/* rows in it */
} SynthDraw;

/*
 * n rows of the model to draw, in cxt: the model unpacked and checked
 * (22023 when forged), n refused when negative (fn names the caller)
 */
extern SynthDraw *synthdraw_begin(HeapTupleHeader model, int64 n, MemoryContext cxt,
								  const char *fn);

/* the next batch into s->rows; its row count, 0 when all are drawn */
extern int	synthdraw_batch(SynthDraw *s);

/*
 * Column j's value of model level `level`: NULL (true returned), else a
 * declared level's index (*level_out >= 0) or a number drawn within its
 * bin (*level_out -1, *x).  rng NULL: no draw (a bin's value is not asked).
 */
extern bool synthdraw_value(const SynthFitted *f, int j, int level, gsl_rng *rng,
							int *level_out, double *x);

#endif							/* DPOBJ_SYNTHDRAW_H */
