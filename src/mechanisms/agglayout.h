/*-------------------------------------------------------------------------
 *
 * agglayout.h
 *	  The public layout of a dpobj.aggregate() run (agglayout.c): its caps,
 *	  statistics and slots, below the aggregate that releases it
 *	  (aggregate.h: what a layout is).
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
#define AGG_QUANT_BINS	1000	/* a quantile's default candidates */

/*
 * A quantile with bins >= 3 nq also draws, per q, its interval's ends: at
 * rank t - s (lower end: that bin's lower edge) and t + s (upper end),
 * s = agg_quant_shift(); their slots' param is q + AGG_Q_LOWER or
 * q + AGG_Q_UPPER.  Each end fails with probability <= AGG_QUANT_BETA.
 */
#define AGG_Q_LOWER		1.0
#define AGG_Q_UPPER		2.0
#define AGG_QUANT_BETA	0.025
#define AGG_QUANT_DRAWS(st) ((st)->nbins >= 3 * (st)->nq ? 3 * (st)->nq : (st)->nq)

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
	AGG_COUNT = 0, AGG_SUM, AGG_MEAN, AGG_HISTOGRAM, AGG_VARIANCE, AGG_QUANTILE
} AggStatKind;

/* a slot's kind; a quantile's slots: AGG_SLOT_RANK0 then AGG_SLOT_RANK */
typedef enum AggSlotKind
{
	AGG_SLOT_COUNT = 0, AGG_SLOT_SUM, AGG_SLOT_RANK, AGG_SLOT_RANK0
} AggSlotKind;

typedef struct AggStat
{
	AggStatKind kind;
	int			col;			/* its encoding column, -1 for count */
	int			off;			/* its first coordinate in the encoded row */
	int			nbins;			/* histogram, quantile: bins (levels + 1, or "bins") */
	int			nq;				/* quantile: its levels q */
	double		q[AGG_MAX_Q];
	double		step;			/* sum, mean, variance: the lattice step */
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

/*
 * slot i of a cell: its kind and its share of epsilon (a rank slot: each of
 * its statistic's draws), and param (the rank slots' q, else 0)
 */
extern AggSlotKind agg_slot_kind(const AggLayout *l, int slot, double *share, double *param);

#endif							/* DPOBJ_AGGLAYOUT_H */
