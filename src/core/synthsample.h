/*-------------------------------------------------------------------------
 *
 * synthsample.h
 *	  Synthetic rows from the fitted model (post-processing): along the
 *	  junction tree's order, the root clique's cells get n times their
 *	  probability rows, the fractions rounded by systematic sampling (each
 *	  cell +1 with probability its fractional part, the total exact); then
 *	  each clique's new columns are drawn the same way within each group of
 *	  rows that share its separator's values, from the clique's conditional
 *	  distribution given them.  This keeps the sampling error of every
 *	  clique marginal below one row per cell and group, far below iid
 *	  draws'.  A level the model marks shut (a closed NULL or "other", a
 *	  quantile bin without weight) is never drawn: in every draw its weight
 *	  moves to its column's open levels with the same other values (so the
 *	  other columns keep their mass) -- a bin's to the nearest open bin
 *	  (half to each when two are as near: where its mass lies, so that the
 *	  column's mean stays), another level's in proportion to theirs -- and a group whose cells all weigh 0
 *	  draws its open cells uniformly.  The rows are shuffled last.  Plain C; a gsl_rng (the draws
 *	  need no exactness: nothing here touches a row of the table).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SYNTHSAMPLE_H
#define DPOBJ_SYNTHSAMPLE_H

#include <gsl/gsl_rng.h>

#include "core/synthpgm.h"

/*
 * n rows of the model's d columns into rows[i * d + j] (model levels).
 * Callers wanting more rows than fit in memory call it per batch.
 */
extern SynthStatus synth_sample(const SynthModel *m, int64_t n, gsl_rng *rng, int *rows);

/*
 * k counts summing to exactly g with E[count_i] = g p_i / sum p (a p that
 * is not finite and positive counts as 0; all 0: uniform), by systematic
 * sampling of the fractions.
 */
extern void synth_round_counts(const double *p, int64_t k, int64_t g, gsl_rng *rng,
							   int64_t *count);

#endif							/* DPOBJ_SYNTHSAMPLE_H */
