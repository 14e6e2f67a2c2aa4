/*-------------------------------------------------------------------------
 *
 * aggregate.h
 *	  Private descriptive statistics (docs/PRIVACY.md "Private
 *	  statistics"): the aggregate dpobj.dp_aggregate that releases the
 *	  noisy cells of a layout (agglayout.h) (aggregate.c) and the entry
 *	  point on a protected table (protected/aggrun.c).
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

#include "mechanisms/agglayout.h"
#include "state/rowinput.h"

#define AGG_AGGNAME		"dp_aggregate"
/* dp_aggregate_cols(label, epsilon, delta, options, column, ...) */
#define AGG_COLS_AGGNAME "dp_aggregate_cols"

/*
 * a slot's discrete Laplace noise: scale num / den lattice units for its
 * share of epsilon (den 0: too small); aggplan.c computes accuracy with it
 */
extern void agg_slot_noise(bool sum, double eps_share, uint64 *num, uint64 *den);

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

/* dpobj.train()'s argument check of mechanism 'aggregate' (registry.c) */
extern void aggregate_check_args(const char *aggname, double epsilon, double delta, int d,
								 Jsonb *options);

/* the options' rows per unit k (1 at row level), every key checked */
extern int	agg_options_k(Jsonb *options);

/*
 * whether the encoded row x (row->d values) has no NaN (encode_features
 * never gives one, a direct caller might): false when the protected path
 * drops the row, else an error of aggname
 */
extern bool agg_row_no_nan(DPRowInput *row, const double *x, const char *aggname);

/*
 * a row's contributions x (encoded) to its cell's W slots w; levels: each
 * categorical column's level (its one-hot coordinates of x unread), or NULL
 */
extern void agg_row_add(const AggLayout *l, const double *x, const int *levels, double *w);

/*
 * Keys without declared levels (aggkeys.c): dp_aggregate_keys releases the
 * keys whose noisy count passes a threshold, at most the layout's
 * "max_keys" (default AGGKEYS_DEFAULT_MAX, or fewer within AGG_MAX_VALUES);
 * its check of mechanism 'aggregate_keys'
 */
#define AGGKEYS_AGGNAME		"dp_aggregate_keys"
#define AGGKEYS_DEFAULT_MAX	1000
#define AGGKEYS_KEY_BYTES	256	/* a key: the first 256 bytes of its text */
extern void aggregate_keys_check_args(const char *aggname, double epsilon, double delta, int d,
									  Jsonb *options);

#endif							/* DPOBJ_AGGREGATE_H */
