/*-------------------------------------------------------------------------
 *
 * statisticsparams.h
 *	  The options of private statistics and their check before any row is
 *	  read (statisticsparams.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_STATISTICSPARAMS_H
#define DPOBJ_STATISTICSPARAMS_H

#include "postgres.h"

#include "utils/jsonb.h"

#define AGG_AGGNAME		"dp_aggregate"

/* dpobj.train()'s argument check of mechanism 'aggregate' (its entry) */
extern void aggregate_check_args(const char *aggname, double epsilon, double delta, int d,
								 Jsonb *options);

/* the options' rows per unit k (1 at row level), every key checked */
extern int	agg_options_k(Jsonb *options);

#endif							/* DPOBJ_STATISTICSPARAMS_H */
