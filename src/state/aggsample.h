/*-------------------------------------------------------------------------
 *
 * aggsample.h
 *	  A uniform sample of at most K rows for the aggregate states whose
 *	  final function needs all its rows in memory (the exact oracle of
 *	  OPDisc and RSPM, the exponential mechanism, OPSamp, 'auto' and the
 *	  one-vs-rest kinds), so that their memory never grows with the table.
 *	  K is public: dpobj.max_state_memory, d and the run's "sample_rows"
 *	  (aggsample_rows()).
 *
 * Exact mode: while at most K distinct rows were counted, the state is
 * every row with its counts, as without a sample; if they stand for more
 * than K rows, the final function draws the uniform sample of K from them
 * (aggsample_draw()).  The distinct row that would be the (K+1)-th gives
 * each counted row a uniform 64-bit key -- drawn only now: no decision
 * depended on the keys before -- and from then on the state holds the K
 * rows of smallest key (bottomk.h), keys and all.  A state
 * ships its K, and its keys if it has any, in its flat form (aggstate.h);
 * the combine of partial states keeps the bottom K_min of their union,
 * K_min the smallest K of the states combined: each partial kept its bottom
 * K >= K_min, so that is exactly the bottom K_min of all the rows.  Serial,
 * parallel or on Citus (where a worker's dpobj.max_state_memory may be
 * smaller), the final function gets a uniform sample of min(n, K_min) rows
 * without replacement.  Why that costs no privacy: docs/PRIVACY.md,
 * "Uniform row samples".
 *
 * Memory: the rows (at most K live, plus rows emptied by evictions,
 * compacted when they are a quarter of the set) and 16 bytes of key per
 * kept row; aggsample_rows() picks K so that the worst case stays within
 * the cap.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_AGGSAMPLE_H
#define DPOBJ_AGGSAMPLE_H

#include "postgres.h"

#include "core/bottomk.h"
#include "state/rowset.h"

typedef struct DPAggSample DPAggSample;

/*
 * K for rows of d words: how many rows dpobj.max_state_memory holds in the
 * worst case, the state's bytes and the final function's (final_row a row,
 * final_fixed in all) together, or option (> 0) when smaller.
 */
extern int64 aggsample_rows(int d, int64 option, double final_row, double final_fixed);

/*
 * What every final function of a sampled state holds per row of d words:
 * the canonical order (4 bytes) and the canonical copy (8d + 16)
 * (aggstate_order); the kinds add their own work to it for aggsample_rows().
 */
static inline double
aggsample_canonical_row_bytes(int d)
{
	return 8.0 * d + 20;
}

/* the sample of at most k rows of the set rows (the state's), in mcxt */
extern DPAggSample *aggsample_new(MemoryContext mcxt, DPRowSet *rows, int64 k,
								  DPRowOrder words);

/*
 * The sample, in exact mode, of the rows already counted in the set rows
 * (at most k distinct): a state that kept every row becomes a sample.
 */
extern DPAggSample *aggsample_adopt(MemoryContext mcxt, DPRowSet *rows, int64 k,
									DPRowOrder words);

/* counts one row (the transition functions' hot path) */
extern void aggsample_count(DPAggSample *s, const uint64 *row, bool label);

/*
 * Counts pos + neg copies of row: with their keys (keys: pos label-true
 * keys, then neg label-false keys), or keyless (keys NULL; given fresh
 * keys if the sample has keys or needs them).
 */
extern void aggsample_add(DPAggSample *s, const uint64 *row, int64 pos, int64 neg,
						  const uint64 *keys);

/* K: at most this many rows are kept */
extern int64 aggsample_k(const DPAggSample *s);

/*
 * Lowers K to min(k, K): the sample becomes the bottom k of its rows (the
 * rows of exact mode get their keys first if more than k distinct rows
 * were counted).
 */
extern void aggsample_limit(DPAggSample *s, int64 k);

/* dst becomes the sample of both at the smaller K: src's rows (keys and all) added */
extern void aggsample_merge(DPAggSample *dst, DPAggSample *src);

/* whether the rows have keys (the sample ever held more than K distinct rows) */
extern bool aggsample_keyed(const DPAggSample *s);

/*
 * An exact sample of more than K rows (every distinct row kept, at most
 * K of them): its uniform sample of K rows, drawn now in the canonical
 * order perm (rowset_order), so that under dpobj.seed it is a function of
 * the multiset of rows, whichever plan counted them; the counts kept of
 * row u into pos[u], neg[u] (nrows entries each).  false: nothing to draw
 * (keyed, or at most K rows), the state's counts are the sample.
 */
extern bool aggsample_draw(const DPAggSample *s, const int32 *perm, int64 *pos, int64 *neg);

/* drops the rows evictions emptied; call before ordering or writing rows */
extern void aggsample_compact(DPAggSample *s);

/*
 * The keys grouped by row (a keyed sample, compacted): sorts the kept
 * items by row, label-true first, then key, and fills start[u] (nrows + 1
 * entries) with the first item of row u.  Valid until the next change.
 */
extern const BottomKItem *aggsample_by_row(DPAggSample *s, int64 *start);

#endif							/* DPOBJ_AGGSAMPLE_H */
