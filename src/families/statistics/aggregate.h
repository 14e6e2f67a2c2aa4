/*-------------------------------------------------------------------------
 *
 * aggregate.h
 *	  Private descriptive statistics (docs/PRIVACY.md "Private
 *	  statistics"): the aggregate dpobj.dp_aggregate that releases the
 *	  noisy cells of a layout (state/agglayout.h: what a layout is): its
 *	  release (aggregate.c, aggkeys.c); the family's face is statistics.h,
 *	  its state statisticsstate.h, the entry point protected/aggrun.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_AGGREGATE_H
#define DPOBJ_AGGREGATE_H

#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/jsonb.h"

#include "families/statistics/statistics.h"
#include "state/agglayout.h"

/*
 * a release's scale of a slot (agg_slot_kind's kind and share) at epsilon
 * eps for units of up to k rows in ncells cells (agg_slot_eps); raises
 * when epsilon is too small for it
 */
extern void agg_slot_calibrate(const char *aggname, AggSlotKind kind, double share, double eps,
							   int k, int ncells, uint64 *num, uint64 *den);

/*
 * a release's common part into b: the n noisy values, "], \"noise\": [" and each
 * of the width slots' scale [num, den], then "]" (the caller opens the values'
 * array before and adds its own keys after)
 */
extern void agg_append_release(StringInfo b, const int64 *out, int64 n, const uint64 *num,
							   const uint64 *den, int width);

#endif							/* DPOBJ_AGGREGATE_H */
