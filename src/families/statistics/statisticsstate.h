/*-------------------------------------------------------------------------
 *
 * statisticsstate.h
 *	  The state of private statistics (statisticsstate.c): a float8[] over
 *	  the counts state (state/countstate.h), whose combine adds the cells.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_STATISTICSSTATE_H
#define DPOBJ_STATISTICSSTATE_H

#include "postgres.h"

#include "utils/array.h"

#include "state/agglayout.h"
#include "state/countstate.h"
#include "state/rowinput.h"

/*
 * dp_aggregate_cols(label, epsilon, delta, options, column, ...), run by
 * dpobj.aggregate() and describe() only: its messages name the entry point
 */
#define AGG_COLS_AGGNAME "dpobj.aggregate"

/*
 * The state's entries: the run's (the counts state's: epsilon, delta, the
 * encoded row's length d and the rows per unit k), the number of cells C
 * and of slots per cell W, each slot's kind (AggSlotKind) and share of
 * epsilon, then C x W values.
 */
enum
{
	STAT_EPS = CS_EPS, STAT_DELTA = CS_DELTA, STAT_D = CS_D, STAT_K = CS_K,
	STAT_C, STAT_W, STAT_HDR
};
#define STAT_NRUN(w)		(STAT_HDR + 2 * (w))
#define STAT_KIND(s, i)		((AggSlotKind) (s)[STAT_HDR + (i)])
#define STAT_SHARE(s, w, i)	((s)[STAT_HDR + (w) + (i)])

/* a new state for layout l: the run's entries, each slot's kind and share, zero values */
extern ArrayType *agg_state_new(MemoryContext cxt, const AggLayout *l, double eps,
								double delta, int k);

/* a state's size and its run entries' (nstate, nrun), from its own header; raises when invalid */
extern void agg_state_size(ArrayType *a, int *nstate, int *nrun);

/*
 * whether the encoded row x (of layout l) has no NaN among its levels'
 * coordinates (encode_features never gives one, a direct caller might; a
 * numeric coordinate's NaN is its NULL): false when the protected path
 * drops the row, else an error of aggname
 */
extern bool agg_row_no_nan(DPRowInput *row, const AggLayout *l, const double *x,
						   const char *aggname);

/* a categorical column's level for a NULL (of n levels): "other", yet not present */
#define AGG_LEVEL_NULL(n)	((n) + 1)

/*
 * a row's contributions x (encoded) to its cell's W slots w; levels: each
 * categorical column's level (its one-hot coordinates of x unread), or
 * NULL.  A NULL value is a NaN numeric coordinate, AGG_LEVEL_NULL or no
 * one-hot coordinate set: every statistic of its column skips the row.
 */
extern void agg_row_add(const AggLayout *l, const double *x, const int *levels, bool first,
						double *w);

#endif							/* DPOBJ_STATISTICSSTATE_H */
