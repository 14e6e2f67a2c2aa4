/*-------------------------------------------------------------------------
 *
 * agglayout.h
 *	  The public layout of a dpobj.aggregate() run (agglayout.c): its caps,
 *	  statistics, slots and their noise, below the statistics family that
 *	  releases it and the entry points that plan and print it.
 *
 *	  A layout is public: the table's declared domains (an encoding,
 *	  encode.h), the group_by columns (declared levels) and the statistics
 *	  ("what").  Every row falls into one group cell (a level of each group
 *	  column, or "other"); each cell has W slots: count 1, sum 1, mean 2
 *	  (a sum, then a count), variance 3 (a sum of squares, a sum, a
 *	  count), histogram one per bin, quantile one per leaf and one per
 *	  coarse bin (agg_quant_group), units 1 (the rows whose label marks
 *	  them their unit's first in the cell).  A statistic of a column or expression
 *	  (count of one too) skips the rows where its value is NULL; count(*)
 *	  and a histogram of levels (its "other") none.  A slot is a count (a row adds 1) or a
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
#ifndef DPOBJ_AGGLAYOUT_H
#define DPOBJ_AGGLAYOUT_H

#include "postgres.h"

#include "utils/jsonb.h"

#include "model/encode.h"

/* public caps: group cells, and noisy values (cells x slots) of one run */
#define AGG_MAX_CELLS	10000
#define AGG_MAX_VALUES	100000
#define AGG_MAX_STATS	32
#define AGG_MAX_BINS	1000
#define AGG_MAX_Q		16
#define AGG_QUANT_BINS	256		/* a quantile's default leaves */

/*
 * A quantile of B leaves releases their noisy counts and, when B >
 * AGG_QUANT_FLAT, those of coarse bins of g = ceil(sqrt(B)) leaves each
 * (core/aggquant.h): the leaves get AGG_QUANT_LEAF_SHARE of its epsilon,
 * the coarse bins the rest.
 */
#define AGG_QUANT_FLAT	64
#define AGG_QUANT_LEAF_SHARE 0.5
extern int	agg_quant_group(int nleaves);

/* a sum slot's lattice: |value| <= AGG_SUM_UNITS lattice steps */
#define AGG_SUM_UNITS	16384.0

/*
 * The noise of a slot: discrete Laplace of scale num / den lattice units,
 * num = l1 sensitivity x 2^bits and den = floor(epsilon_slot x 2^bits),
 * both at most 2^31 (dpnoise.h): counts 2 x 2^20, sums 2^15 x 2^16.
 */
#define AGG_COUNT_BITS	20
#define AGG_SUM_BITS	16

typedef enum AggStatKind
{
	AGG_COUNT = 0, AGG_SUM, AGG_MEAN, AGG_HISTOGRAM, AGG_VARIANCE, AGG_QUANTILE, AGG_UNITS
} AggStatKind;

/*
 * a slot's kind: a count of rows, a sum, or a count of distinct units (a
 * row adds 1 when its label is true: the first row of its unit in its cell)
 */
typedef enum AggSlotKind
{
	AGG_SLOT_COUNT = 0, AGG_SLOT_SUM, AGG_SLOT_UNITS
} AggSlotKind;

typedef struct AggStat
{
	AggStatKind kind;
	int			col;			/* its encoding column, -1 for count(*) */
	int			off;			/* its first coordinate in the encoded row */
	int			nbins;			/* histogram, quantile: bins (levels + 1, or "bins") */
	double	   *xedge;			/* numeric: the bins' edges as coordinates (nbins + 1) */
	int			group;			/* quantile: leaves per coarse bin (nbins: none) */
	int			ncoarse;		/* quantile: coarse bins (0: none) */
	int			nq;				/* quantile: its levels q */
	double		q[AGG_MAX_Q];
	double		step;			/* sum, mean, variance: the lattice step */
	bool		sample;			/* variance: released as the sample variance (n / (n - 1)) */
	double		weight;			/* its relative share of epsilon ("share", default 1) */
	int			slot;			/* its first slot in a cell */
} AggStat;

typedef struct AggLayout
{
	Encoding   *enc;
	int			ngroups;
	int		   *gcol;			/* group columns: encoding column */
	int		   *goff;			/* first coordinate */
	int		   *gsize;			/* levels + 1 */
	int			nstats;
	AggStat    *stats;
	double		weights;		/* the sum of the statistics' weights */
	int			ncells;
	int			width;			/* slots per cell */
} AggLayout;

/*
 * Parses and checks a layout {"encoding": [...], "group_by": [...],
 * "what": [...]} (public grounds; every error before the charge).
 */
extern AggLayout *agg_layout_parse(Jsonb *layout);

/* the layout of dp_aggregate's options {"layout": ...} */
extern AggLayout *agg_layout_of_options(Jsonb *options);

/* slot i of a cell: its kind and its share of epsilon */
extern AggSlotKind agg_slot_kind(const AggLayout *l, int slot, double *share);

/*
 * a slot's discrete Laplace noise: scale num / den lattice units for its
 * share of epsilon (den 0: too small); the release calibrates with it,
 * aggregate_accuracy() and describe() compute accuracy with it
 */
extern void agg_slot_noise(bool sum, double eps_share, uint64 *num, uint64 *den);

/*
 * a slot's epsilon before its share, for units of up to k rows and ncells
 * cells: epsilon / k rounded down (dp_epsilon_per_row); a count of
 * distinct units' epsilon / min(k, ncells), the cells a unit can reach
 */
extern double agg_slot_eps(AggSlotKind kind, double eps, int k, int ncells);

/*
 * edge k of n equal bins of [lo, hi] as a value: lo + k (hi - lo) / n to 15
 * significant digits (lo, hi at the ends), as a bin's key prints it
 */
extern double agg_edge(double lo, double hi, int k, int n);

/* the bin of a coordinate x among the n bins of edges xedge (agg_edge's, encoded) */
extern int	agg_bin_of(const double *xedge, int n, double x);

#endif							/* DPOBJ_AGGLAYOUT_H */
