/*-------------------------------------------------------------------------
 *
 * statistics.h
 *	  Private statistics (aggregate.h: what a layout is).  Its entries: the
 *	  argument checks and STATISTICS_FAMILY_MECHANISMS, of statistics_family
 *	  (statistics.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_STATISTICS_H
#define DPOBJ_STATISTICS_H

#include "postgres.h"

#include "families/statistics/statisticsparams.h"

/*
 * Keys without declared levels (aggkeys.c): dp_aggregate_keys releases the
 * keys whose noisy count passes a threshold, at most the layout's
 * "max_keys" (default AGGKEYS_DEFAULT_MAX, or fewer within AGG_MAX_VALUES);
 * its check of mechanism 'aggregate_keys'; run by dpobj.aggregate() only,
 * whose name its messages give
 */
#define AGGKEYS_AGGNAME		"dpobj.aggregate"
#define AGGKEYS_DEFAULT_MAX	1000
#define AGGKEYS_KEY_BYTES	256	/* a key: the first 256 bytes of its text */
extern void aggregate_keys_check_args(const char *aggname, double epsilon, double delta, int d,
									  Jsonb *options);

/*
 * The family's entries (DPMechanism, mechanisms/family.h; in
 * statistics_family, statistics.c): private statistics, through dpobj.aggregate() and
 * describe() only; the same by keys without declared levels, whose key
 * selection needs delta
 */
#define STATISTICS_FAMILY_MECHANISMS \
	{.name = "aggregate", .aggregate = "dpobj.dp_aggregate", \
		.aggregate_args = "dpobj.dp_aggregate_cols", .args_encoded = true, .aggname = AGG_AGGNAME, \
		.check_args = aggregate_check_args, .label_kind = TRAIN_LABEL_NONE, .parallel = true, \
		.evaluate_only = true, .entry = "dpobj.aggregate(), dpobj.describe() and private SQL queries", \
		.also = DP_METHODS("describe", "query"), .delta_zero = true, \
	.ledger = DP_LEDGER({"aggregate", LEDGER_COST_PURE})}, \
	{.name = "aggregate_keys", .aggregate = "dpobj.dp_aggregate_keys", \
		.aggname = AGGKEYS_AGGNAME, .check_args = aggregate_keys_check_args, \
		.label_kind = TRAIN_LABEL_KEY, .evaluate_only = true, .sorts_rows = true, \
		.entry = "dpobj.aggregate() grouped by a key without declared levels", \
	.ledger = DP_LEDGER({"aggregate_keys", LEDGER_COST_APPROX})}

#endif							/* DPOBJ_STATISTICS_H */
