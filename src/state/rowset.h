/*-------------------------------------------------------------------------
 *
 * rowset.h
 *	  A multiset of distinct fixed-width rows with label counts: the core of
 *	  every aggregate state (halfspacestate.c: quantised int64 features; glmstate.c:
 *	  clipped float8 features stored as their bit patterns).
 *
 * A row is d 8-byte words.  Each distinct row has two counts, pos (label
 * true) and neg (label false).  Rows live in flat arrays in one memory
 * context, indexed by an open-addressing hash table (linear probing, load
 * factor <= 1/2, sizes always powers of two), so memory grows with the
 * number of distinct rows, never with n.
 *
 * Canonical order: rowset_order() sorts the distinct rows (lexicographic,
 * with the caller's word order), so that everything computed from a state
 * -- its serialised form and the mechanism's input -- depends only on the
 * multiset of rows, never on the order in which rows or partial states
 * arrived (parallel workers, Citus shards).
 *
 * Limits (data-dependent, so kept far out of reach; docs/SCALING.md): at
 * most DP_ROWSET_MAX_ROWS distinct rows; before that, memory runs out.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_ROWSET_H
#define DPOBJ_ROWSET_H

#include "postgres.h"

/* 2^30 distinct rows: at d = 1 already 40 GB of state */
#define DP_ROWSET_MAX_ROWS		(1 << 30)

typedef struct DPRowSet
{
	MemoryContext mcxt;			/* owns the arrays */
	int			d;				/* words per row */
	int			nrows;			/* distinct rows */
	int			maxrows;		/* capacity, a power of two */
	uint64	   *x;				/* nrows x d words */
	int64	   *pos;			/* label-true count of each row */
	int64	   *neg;			/* label-false count of each row */
	uint64	   *slots;			/* index: 0 = empty, else (row + 1) << 32 |
								 * the row's 32-bit hash */
	uint32		mask;			/* number of slots - 1 (2 * maxrows - 1) */
	bool		unindexed;		/* rows appended past the index (rowset_append):
								 * a row may repeat */
} DPRowSet;

/* word order of the canonical sort: signed integers or float8 values */
typedef enum DPRowOrder
{
	DP_ROW_ORDER_INT64,
	DP_ROW_ORDER_FLOAT8
} DPRowOrder;

/* an empty set of rows of d words with room for capacity rows, in mcxt */
extern void rowset_init(DPRowSet *rs, MemoryContext mcxt, int d, int capacity);

/* index of the row equal to row (d words), added with zero counts if new */
extern int	rowset_find_or_add(DPRowSet *rs, const uint64 *row);

/* index of the row equal to row, or -1 */
extern int	rowset_lookup(const DPRowSet *rs, const uint64 *row);

/* the bytes of the arrays of a set of d-word rows with room for maxrows */
static inline Size
rowset_bytes(int d, int maxrows)
{
	return (Size) maxrows * (sizeof(uint64) * d + 2 * sizeof(int64) + 2 * sizeof(uint64));
}

/* the next new distinct row makes the set grow (double its arrays) */
static inline bool
rowset_full(const DPRowSet *rs)
{
	return rs->nrows >= rs->maxrows;
}

/* forgets every row, keeping the arrays (capacity unchanged); indexed again */
extern void rowset_clear(DPRowSet *rs);

/* frees the arrays: the set is unusable until rowset_init */
extern void rowset_free(DPRowSet *rs);

/*
 * Appends row with its counts as a new entry, without looking it up (the
 * caller checks rowset_full first): from then on the set is unindexed -- a
 * row may appear several times, and only rowset_append, rowset_order and
 * reading the arrays are allowed until rowset_clear.  Readers of the
 * canonical order add up equal neighbours (rowspill.h).
 */
extern void rowset_append(DPRowSet *rs, const uint64 *row, int64 pos, int64 neg);

/* adds counts to row; errors if a count would overflow */
extern void rowset_add_counts(DPRowSet *rs, const uint64 *row, int64 pos, int64 neg);

/* adds every row of src (same d) to dst */
extern void rowset_merge(DPRowSet *dst, const DPRowSet *src);

/*
 * Drops the rows whose counts are both zero, keeping the others' order;
 * map[u] (nrows entries) gets row u's new index, PG_UINT32_MAX if dropped.
 * Returns the rows left.
 */
extern int	rowset_compact(DPRowSet *rs, uint32 *map);

/* total count sum(pos + neg) */
extern int64 rowset_total(const DPRowSet *rs);

/*
 * The canonical order: a palloc'd permutation (nrows entries, in
 * CurrentMemoryContext) listing the rows in ascending lexicographic order
 * (equal rows of an unindexed set next to each other, in any order).
 */
extern int32 *rowset_order(const DPRowSet *rs, DPRowOrder order);

/*
 * As rowset_order, but the permutation lives in the set's index, which it
 * overwrites (no allocation): only reading the arrays and rowset_clear are
 * allowed afterwards.
 */
extern const int32 *rowset_order_in_index(DPRowSet *rs, DPRowOrder order);

/* -1, 0, 1: lexicographic comparison of two rows of d words */
extern int	rowset_compare(const uint64 *a, const uint64 *b, int d, DPRowOrder order);

/* one count into the row's label column (the transition functions' hot path) */
static inline void
rowset_count(DPRowSet *rs, const uint64 *row, bool label)
{
	int			u = rowset_find_or_add(rs, row);

	if (label)
		rs->pos[u]++;
	else
		rs->neg[u]++;
}

#endif							/* DPOBJ_ROWSET_H */
