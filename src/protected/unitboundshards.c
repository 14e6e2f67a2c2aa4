/*-------------------------------------------------------------------------
 *
 * unitboundshards.c
 *	  The private rows-per-unit bound (unitbound.c) on a Citus table
 *	  distributed by its unit: dpobj.unit_bound_shards(m bigint, options
 *	  jsonb), an aggregate with a combine function over the units' selected
 *	  row counts m_u (one row per unit: the GROUP BY of the unit runs on
 *	  each shard, whose units are its own), so that each shard task sends a
 *	  partial state and the coordinator combines them.  The state is a
 *	  bigint[UNIT_BOUND_BINS] histogram: bin b counts the units with
 *	  2^(b-1) < m <= 2^b (bin 0: m <= 1), the last bin every larger unit.
 *	  It does not need k: the shards' tasks have no protected context.  The
 *	  final function, on the coordinator only, merges the bins above the
 *	  last power of two below k into k's: exactly unitbound.c's histogram
 *	  over the same candidates 1, 2, 4, ..., k, then draws k' as it does
 *	  (unit_bound_draw), with the same loss and sensitivity.  seal.c runs
 *	  this query first, charged before its first row, then the declared-k
 *	  sorted bounding with k = k' (trainquery.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "nodes/execnodes.h"
#include "utils/array.h"

#include "base/distributed.h"
#include "base/dpobj.h"
#include "context/protected.h"
#include "context/workerpins.h"
#include "state/aggstate.h"
#include "protected/unitbound.h"

PG_FUNCTION_INFO_V1(dpobj_unit_bound_shards_sfunc);
PG_FUNCTION_INFO_V1(dpobj_unit_bound_shards_combine);
PG_FUNCTION_INFO_V1(dpobj_unit_bound_shards_final);

/* the power-of-two bins: m <= 1, ..., m <= 2^13, then every larger m */
#define UNIT_BOUND_BINS	15

StaticAssertDecl((1 << (UNIT_BOUND_BINS - 2)) < DPOBJ_MAX_ROWS_PER_UNIT &&
				 DPOBJ_MAX_ROWS_PER_UNIT <= (1 << (UNIT_BOUND_BINS - 1)),
				 "the candidates below the largest k are the bins but the last");

/* a forged state (a caller's own aggregate over these functions) */
static pg_noreturn void
shards_forged(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("dpobj.unit_bound_shards(): not a state of this aggregate"),
			 errdetail("A state is a one-dimensional bigint[%d] of counts >= 0, without NULLs.",
					   UNIT_BOUND_BINS)));
}

/* a histogram's counts, or an error when it is not one of this file's states */
static int64 *
shards_bins(ArrayType *a)
{
	int64	   *bins;

	if (ARR_NDIM(a) != 1 || ARR_DIMS(a)[0] != UNIT_BOUND_BINS || ARR_LBOUND(a)[0] != 1 ||
		ARR_HASNULL(a) || ARR_ELEMTYPE(a) != INT8OID)
		shards_forged();
	bins = (int64 *) ARR_DATA_PTR(a);
	for (int b = 0; b < UNIT_BOUND_BINS; b++)
		if (bins[b] < 0)
			shards_forged();
	return bins;
}

/* a state of empty bins, in aggcxt */
static ArrayType *
shards_new(MemoryContext aggcxt)
{
	Datum		zero[UNIT_BOUND_BINS];
	MemoryContext old = MemoryContextSwitchTo(aggcxt);
	ArrayType  *a;

	for (int b = 0; b < UNIT_BOUND_BINS; b++)
		zero[b] = Int64GetDatum(0);
	a = construct_array(zero, UNIT_BOUND_BINS, INT8OID, sizeof(int64), FLOAT8PASSBYVAL,
						TYPALIGN_DOUBLE);
	MemoryContextSwitchTo(old);
	return a;
}

static void
shards_add(int64 *bin, int64 n)
{
	*bin = n > PG_INT64_MAX - *bin ? PG_INT64_MAX : *bin + n;
}

/*
 * transition, one unit's selected row count; the state changed in place.
 * On a shard task (no protected context here), from its first unit on the
 * worker counts no temporary file of the grouping below (which closes them
 * after this first row): their number follows the shard's units.
 */
Datum
dpobj_unit_bound_shards_sfunc(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	ArrayType  *a;
	int64		m;
	int			b;

	aggcxt = unit_bound_aggcxt(fcinfo, "dpobj.unit_bound_shards()");
	if (PG_ARGISNULL(0))
	{
		if (dpobj_protected_peek() == NULL && dp_citus_task_session() &&
			fcinfo->context != NULL && IsA(fcinfo->context, AggState))
			worker_pins_unobserved_query(((AggState *) fcinfo->context)->ss.ps.state->es_query_cxt);
		a = shards_new(aggcxt);
	}
	else
		a = PG_GETARG_ARRAYTYPE_P(0);
	if (PG_ARGISNULL(1))
		PG_RETURN_ARRAYTYPE_P(a);
	m = PG_GETARG_INT64(1);
	for (b = 0; b < UNIT_BOUND_BINS - 1 && m > ((int64) 1 << b); b++)
		;
	shards_add(&shards_bins(a)[b], 1);
	PG_RETURN_ARRAYTYPE_P(a);
}

/* combine: the shards' histograms added (into the first, in place) */
Datum
dpobj_unit_bound_shards_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	ArrayType  *a;
	int64	   *into;
	const int64 *from;

	aggcxt = unit_bound_aggcxt(fcinfo, "dpobj.unit_bound_shards()");
	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	if (PG_ARGISNULL(0))
		a = shards_new(aggcxt);
	else
		a = PG_GETARG_ARRAYTYPE_P(0);
	into = shards_bins(a);
	from = shards_bins(PG_GETARG_ARRAYTYPE_P(1));
	for (int b = 0; b < UNIT_BOUND_BINS; b++)
		shards_add(&into[b], from[b]);
	PG_RETURN_ARRAYTYPE_P(a);
}

/*
 * final, on the coordinator only: the candidates' histogram from the bins,
 * k' drawn (unit_bound_draw); no unit at all: every candidate alike
 */
Datum
dpobj_unit_bound_shards_final(PG_FUNCTION_ARGS)
{
	int64		hist[UNIT_BOUND_BINS] = {0};
	const int64 *bins;
	int			cand[UNIT_BOUND_BINS];
	int			n;

	aggstate_final_check(fcinfo);
	dp_citus_refuse_worker(fcinfo);
	n = unit_bound_candidates(unit_bound_context()->rows_per_unit, cand);
	if (!PG_ARGISNULL(0))
	{
		bins = shards_bins(PG_GETARG_ARRAYTYPE_P(0));
		/* candidate i < n - 1 is 2^i, bin i; k's bin counts every m > 2^(n-2) */
		for (int b = 0; b < UNIT_BOUND_BINS; b++)
			shards_add(&hist[Min(b, n - 1)], bins[b]);
	}
	PG_RETURN_INT64((int64) unit_bound_draw(hist, n, cand));
}
