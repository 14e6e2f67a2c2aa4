/*-------------------------------------------------------------------------
 *
 * unitbound.h
 *	  The private choice of the rows kept per unit (unitbound.c): the
 *	  option "rows_per_unit": "private" of dpobj.aggregate().
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_UNITBOUND_H
#define DPOBJ_UNITBOUND_H

#include "postgres.h"

#include "utils/jsonb.h"

/* the share of the run's epsilon that chooses k', and the quantile it aims at */
#define UNIT_BOUND_SHARE	0.1
#define UNIT_BOUND_QUANTILE	0.9

/*
 * Whether options ask for a private k' ("rows_per_unit": "private"); any
 * other value of the key is a public refusal (22023) naming entry
 */
extern bool unit_bound_requested(Jsonb *options, const char *entry);

/*
 * A private k' needs a table with a privacy unit (*unit), off Citus (whose
 * shards bound their units alone): else a public refusal (0A000)
 */
struct TableUnit;
extern void unit_bound_check_table(const struct TableUnit *unit, bool citus);

#endif							/* DPOBJ_UNITBOUND_H */
