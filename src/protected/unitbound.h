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

#include "fmgr.h"
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
 * A private k' needs a table with a privacy unit (*unit): else a public
 * refusal (0A000).  On Citus seal.c draws it in a first query
 * (unitboundshards.c), then runs the sorted bounding with k = k'.
 */
struct TableUnit;
extern void unit_bound_check_table(const struct TableUnit *unit);

/* the candidates for k: 1, 2, 4, ... below k, then k (at most 15); their number */
extern int	unit_bound_candidates(int k, int *cand);

/* the aggregate's memory context; called otherwise, fn is refused (0A000) */
extern MemoryContext unit_bound_aggcxt(FunctionCallInfo fcinfo, const char *fn);

/* the run's context, in a run that chooses k' (else an error, 55000) */
struct DPProtectedContext;
extern const struct DPProtectedContext *unit_bound_context(void);

/*
 * k' drawn over the n candidates cand from hist (the units per candidate:
 * the smallest candidate >= the unit's row count, the last one every larger
 * unit), at the run's unit_share of epsilon, recorded in the protected
 * context and returned
 */
extern int	unit_bound_draw(const int64 *hist, int n, const int *cand);

#endif							/* DPOBJ_UNITBOUND_H */
