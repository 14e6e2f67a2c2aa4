/*-------------------------------------------------------------------------
 *
 * synthstate.h
 *	  The synthesizer's one-scan state: the exact counts of every candidate
 *	  marginal, kept as the counts of the largest candidates ("stored
 *	  sets") from which every other candidate sums.  Its layout depends on
 *	  public inputs only (the columns' levels, the candidates, a cap on
 *	  cells), so a parallel worker or a Citus node builds the same one and
 *	  states merge by adding their counts.  Plain C.
 *
 * Layout: the single columns always; then pairs in ascending cells while
 * they fit; then triples (or larger sets) in ascending cells, each taking
 * the place of the stored subsets it covers, while the total stays within
 * the cap.  A candidate no stored set covers is not measurable and leaves
 * the candidate list (synth_layout_covers).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SYNTHSTATE_H
#define DPOBJ_SYNTHSTATE_H

#include "core/synthfactor.h"
#include "core/synthpgm.h"

typedef struct SynthStored
{
	SynthSet	set;
	int64_t		offset;			/* its first count in the state */
	int64_t		ncells;
	int			nvars;
	int			var[SYNTH_MAX_COLUMNS];
	int64_t		stride[SYNTH_MAX_COLUMNS];
} SynthStored;

typedef struct SynthLayout
{
	int			d;
	int			levels[SYNTH_MAX_COLUMNS];	/* the scan's levels per column */
	int			nstored;
	SynthStored *stored;		/* malloc'd */
	int64_t		cells;			/* counts in a state */
} SynthLayout;

/*
 * The layout for d columns of levels[j] scan levels, candidates cand[0..n-1]
 * (the single columns are added), at most max_cells counts.  SYNTH_TOOBIG
 * when the single columns alone exceed it.
 */
extern SynthStatus synth_layout_build(int d, const int *levels, const SynthSet *cand, int n,
									  int64_t max_cells, SynthLayout *L);
extern void synth_layout_free(SynthLayout *L);

/* the bytes of a state's counts (public: the layout's) */
extern int64_t synth_layout_bytes(const SynthLayout *L);

/* the stored set that covers s, or -1 */
extern int	synth_layout_covers(const SynthLayout *L, SynthSet s);

/* count one row: codes[j] in [0, levels[j]) */
extern void synth_state_add(const SynthLayout *L, int64_t *counts, const int *codes);

/* count n rows equal to codes */
extern void synth_state_add_n(const SynthLayout *L, int64_t *counts, const int *codes,
							  int64_t n);

/* dst += src (two states of one layout) */
extern void synth_state_merge(const SynthLayout *L, int64_t *dst, const int64_t *src);

/*
 * The exact counts over s (covered), columns mapped to model levels:
 * map[j] (length levels[j]) gives a scan level's model level, or map[j]
 * NULL for the identity; out has the cells of s over mlevels.
 */
extern void synth_state_marginal(const SynthLayout *L, const int64_t *counts, SynthSet s,
								 const int *const *map, const int *mlevels, int64_t *out);

#endif							/* DPOBJ_SYNTHSTATE_H */
