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

/*
 * a slot's discrete Laplace noise: scale num / den lattice units for its
 * share of epsilon (den 0: too small); aggplan.c computes accuracy with it
 */
extern void agg_slot_noise(bool sum, double eps_share, uint64 *num, uint64 *den);

/* dpobj.train()'s argument check of mechanism 'aggregate' (its entry) */
extern void aggregate_check_args(const char *aggname, double epsilon, double delta, int d,
								 Jsonb *options);

/* the options' rows per unit k (1 at row level), every key checked */
extern int	agg_options_k(Jsonb *options);

#endif							/* DPOBJ_STATISTICSPARAMS_H */
