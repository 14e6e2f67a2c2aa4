/*-------------------------------------------------------------------------
 *
 * keptrows.h
 *	  The kept-rows floor: what a final function of a state that keeps its
 *	  rows (aggstate.h) reads -- the distinct rows in canonical order
 *	  (ascending lexicographic by value) with their positive and negative
 *	  counts, in memory or, for a state that spilled, replayed from its
 *	  files (rowreplay.h) -- and those rows read in blocks of a bounded
 *	  number of rows, so that what is built per block stays within
 *	  dpobj.max_state_memory.  Either way the sequence of rows is the same,
 *	  so sums over it are the same bit for bit, and they depend only on the
 *	  multiset of rows, not on scan order, parallel workers or Citus shards.
 *	  A family's state (GLM's, ebm's) puts its own parameters on top.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_KEPTROWS_H
#define DPOBJ_KEPTROWS_H

#include "base/dpobj.h"
#include "state/aggstate.h"

#include "utils/jsonb.h"

typedef struct DPKeptRows
{
	int			d;				/* words a row */
	int			nrows;
	double	   *x;				/* nrows x d */
	int64	   *pos;
	int64	   *neg;

	/*
	 * A state that spilled: its rows, in canonical order, as the replay of
	 * its runs and in-memory rows; then x, pos and neg hold none of them,
	 * and the blocks below read them.  NULL: all in memory.
	 */
	struct DPRowReplay *spill;
	int64		spill_obs;		/* spilled: the rows' nonzero counts */
} DPKeptRows;

/* room for nrows rows of d words in CurrentMemoryContext, r->nrows = nrows */
extern void keptrows_alloc(DPKeptRows *r, int d, int nrows);

/*
 * The rows of st in CurrentMemoryContext: a spilled state's replayed
 * (no copy of the rows), as are those of one in memory past maxrows rows
 * unless it keeps a sample; else in canonical order, those of its sample with draw
 * (aggstate_canonical_rows).
 */
extern void keptrows_from_state(DPKeptRows *r, DPAggState *st, bool draw, int maxrows);

/*
 * K of a state that keeps every row (spilling) given its option
 * "sample_rows" (0: none, returns 0): its final function holds the
 * canonical order and copy and builds its design in blocks within a
 * quarter of the cap; public, from the cap and d (aggsample.h)
 */
extern int64 keptrows_sample_rows(int d, int64 option);

/*
 * On a Citus table (family.h, citus_options): the options with
 * "sample_rows" K of the coordinator's cap, unless they ask for a sample
 * themselves (dp_logistic, noisy GD, ebm)
 */
struct DPProtectedContext;
extern Jsonb *keptrows_citus_options(const struct DPProtectedContext *ctx);

/* the rows' nonzero counts, pos and neg apart, without reading spilled rows */
extern int64 keptrows_nobs(const DPKeptRows *r);

/* whether r's rows are on a file */
static inline bool
keptrows_spilled(const DPKeptRows *r)
{
	return r->spill != NULL;
}

/* whether r is one block of maxrows rows: all in memory and few enough */
static inline bool
keptrows_single(const DPKeptRows *r, int maxrows)
{
	return !keptrows_spilled(r) && r->nrows <= maxrows;
}

typedef struct DPKeptBlocks DPKeptBlocks;

/* the most rows a block of keptrows_blocks_begin() holds, whatever the cap */
#define KEPTROWS_BLOCK_MAX_ROWS	16384

/*
 * a reader of r's rows, blocks of at most maxrows (and
 * KEPTROWS_BLOCK_MAX_ROWS) rows (CurrentMemoryContext)
 */
extern DPKeptBlocks *keptrows_blocks_begin(const DPKeptRows *r, int maxrows);

/*
 * The first block (first = true, starting over) or the next: rows of r's
 * d holding the block's rows, valid until the next call; NULL after the
 * last block.  An empty first block still is a block.
 */
extern const DPKeptRows *keptrows_blocks_next(DPKeptBlocks *b, bool first);

/* frees a reader's buffers (a pass that is not read again) */
extern void keptrows_blocks_end(DPKeptBlocks *b);

/* eighths of dpobj.max_state_memory a final function's design takes */
#define KEPTROWS_DESIGN_EIGHTHS	2

/*
 * Rows per block so that a block's design, bytes_per_row bytes a row,
 * takes at most KEPTROWS_DESIGN_EIGHTHS of dpobj.max_state_memory (at
 * least 64 rows).
 */
extern int	keptrows_block_rows(Size bytes_per_row);

#endif							/* DPOBJ_KEPTROWS_H */
