/*-------------------------------------------------------------------------
 *
 * aggregate.h
 *	  Private descriptive statistics (docs/PRIVACY.md "Private
 *	  statistics"): the aggregate dpobj.dp_aggregate that releases the
 *	  noisy cells of a layout (agglayout.h): its release (aggregate.c,
 *	  aggkeys.c); the family's face is statistics.h, its state
 *	  statisticsstate.h, the entry point protected/aggrun.c.
 *
 *	  A layout is public: the table's declared domains (an encoding,
 *	  encode.h), the group_by columns (declared levels) and the statistics
 *	  ("what").  Every row falls into one group cell (a level of each group
 *	  column, or "other"); each cell has W slots: count 1, sum 1, mean 2
 *	  (a sum, then a count), variance 3 (a sum of squares, a sum, a
 *	  count), histogram one per bin, quantile one per leaf and one per
 *	  coarse bin (agg_quant_group).  A slot is a count (a row adds 1) or a
 *	  sum (a row adds its value on the lattice of AGG_SUM_UNITS steps per
 *	  max(|lo|, |hi|), its square per the square of that).
 *
 *	  A numeric bin (a histogram's, a quantile's leaf) of [lo, hi] in n
 *	  bins is [e_k, e_(k+1)), the last [e_(n-1), hi]: e_k is lo + k (hi -
 *	  lo) / n rounded to 15 significant digits, as printed, and a value on
 *	  an edge lands in the bin above it, in every path (agg_bin_of).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_AGGREGATE_H
#define DPOBJ_AGGREGATE_H

#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/jsonb.h"

#include "families/statistics/agglayout.h"
#include "families/statistics/statistics.h"

/*
 * a release's scale of a slot (agg_slot_kind's kind and share) at
 * eps_noise; raises when epsilon is too small for it
 */
extern void agg_slot_calibrate(const char *aggname, AggSlotKind kind, double share,
							   double eps_noise, uint64 *num, uint64 *den);

/*
 * a release's common part into b: the n noisy values, "], \"noise\": [" and each
 * of the width slots' scale [num, den], then "]" (the caller opens the values'
 * array before and adds its own keys after)
 */
extern void agg_append_release(StringInfo b, const int64 *out, int64 n, const uint64 *num,
							   const uint64 *den, int width);

#endif							/* DPOBJ_AGGREGATE_H */
