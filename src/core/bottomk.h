/*-------------------------------------------------------------------------
 *
 * bottomk.h
 *	  A uniform sample of at most k items from a stream (bottom-k sampling):
 *	  every item gets an independent uniform 64-bit key, and the sample is
 *	  the k items of smallest key.  A max-heap of the kept items' keys;
 *	  the sample of a union is the bottom k of the two samples, so partial
 *	  samples (parallel workers, Citus shards) merge exactly.
 *
 *	  Ties between keys are broken by a caller's total order on the items
 *	  (label, then the row's words), so the kept set is a function of the
 *	  multiset of (key, item): the same whatever order the items arrive
 *	  in -- what the privacy argument needs (docs/PRIVACY.md, "Uniform row
 *	  samples").  Plain C, unit-tested in tests/unit/test_bottomk.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_BOTTOMK_H
#define DPOBJ_BOTTOMK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* one kept item: its key and the caller's reference to it */
typedef struct BottomKItem
{
	uint64_t	key;
	uint32_t	row;			/* the caller's row index */
	uint32_t	label;			/* 1: label true, 0: false */
} BottomKItem;

/*
 * The caller's order on two items of equal key: < 0, 0, > 0.  An item
 * whose row is BOTTOMK_CANDIDATE stands for the row passed to
 * bottomk_admits() (not stored yet).
 */
#define BOTTOMK_CANDIDATE	UINT32_MAX
typedef int (*bottomk_tie_fn) (const BottomKItem *a, const BottomKItem *b, void *arg);

typedef struct BottomK
{
	int64_t		k;				/* at most this many items */
	int64_t		n;				/* items held */
	bool		heap;			/* items[] is a max-heap (else unordered); only when n == k */
	BottomKItem *items;			/* room for k */
	bottomk_tie_fn tie;
	void	   *arg;
} BottomK;

/* the items' bytes for a sample of k */
static inline size_t
bottomk_bytes(int64_t k)
{
	return (size_t) k * sizeof(BottomKItem);
}

/* an empty sample over items (room for k >= 1) */
extern void bottomk_init(BottomK *s, int64_t k, BottomKItem *items,
						 bottomk_tie_fn tie, void *arg);

/* -1, 0, 1: the order of two items (key, then the caller's tie order) */
extern int	bottomk_compare(const BottomK *s, const BottomKItem *a, const BottomKItem *b);

/*
 * Whether an item of this key and label (and the caller's candidate row)
 * belongs in the sample: there is room, or it comes before the largest
 * kept item.
 */
extern bool bottomk_admits(BottomK *s, uint64_t key, uint32_t label);

/*
 * Adds an item bottomk_admits() accepted.  When the sample was full, the
 * largest item leaves: it is stored in *evicted and true returned.
 */
extern bool bottomk_add(BottomK *s, BottomKItem item, BottomKItem *evicted);

/*
 * Lowers the sample's limit to min(k, its limit).  While it holds more
 * items than that, the largest leaves: stored in *evicted, true returned
 * (call until false).  The items kept are then the bottom k of the items
 * held, as if the sample had had the smaller limit from the start.
 */
extern bool bottomk_shrink(BottomK *s, int64_t k, BottomKItem *evicted);

/* renumbers every item's row through map[row] (after the caller compacts) */
extern void bottomk_remap(BottomK *s, const uint32_t *map);

#endif							/* DPOBJ_BOTTOMK_H */
