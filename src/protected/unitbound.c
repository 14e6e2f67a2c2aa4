/*-------------------------------------------------------------------------
 *
 * unitbound.c
 *	  The private choice of the rows kept per unit ("rows_per_unit":
 *	  "private" of dpobj.aggregate(); docs/PRIVACY.md "A private bound per
 *	  unit"): dpobj.unit_bound(m bigint), an aggregate over the units'
 *	  selected row counts m_u (one row per unit, trainquery.h), draws k' from
 *	  the candidates 1, 2, 4, ..., k (k the declared max_rows_per_unit, the
 *	  last candidate) as a private UNIT_BOUND_QUANTILE quantile of the
 *	  counts: the exponential mechanism of privquant.h over a histogram of
 *	  at most 15 bins (one per candidate), sampled exactly, at
 *	  UNIT_BOUND_SHARE of the run's epsilon.  One unit's rows changed moves
 *	  one count and the number of units by at most one, so every loss by at
 *	  most 1.  k' goes into the protected context before the bounding's
 *	  first row (the bounding takes it as its k); the final function
 *	  calibrates for k' with the rest of epsilon and releases k'.  Never an
 *	  error that depends on the rows: the histogram is bounded, the draw
 *	  takes at most 15 expected proposals.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"

#include "base/random.h"
#include "context/protected.h"
#include "core/auditmutant.h"
#include "core/privquant.h"
#include "state/aggstate.h"
#include "protected/unitbound.h"
#include "protected/units.h"

PG_FUNCTION_INFO_V1(dpobj_unit_bound_sfunc);
PG_FUNCTION_INFO_V1(dpobj_unit_bound_final);

int
unit_bound_candidates(int k, int *cand)
{
	int			n = 0;

	for (int c = 1; c < k; c *= 2)
		cand[n++] = c;
	cand[n++] = k;
	return n;
}

/* where its aggregates run (unit_bound_context, unit_bound_aggcxt) */
#define UNIT_BOUND_HINT "It is a part of dpobj.aggregate()'s query on a table with a privacy unit."

const DPProtectedContext *
unit_bound_context(void)
{
	const DPProtectedContext *ctx = dpobj_protected_peek();

	if (ctx == NULL || ctx->unit_share <= 0 || ctx->rows_per_unit < 1)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("dpobj.unit_bound() runs only inside dpobj.aggregate() with \"rows_per_unit\": \"private\""),
				 errhint(UNIT_BOUND_HINT)));
	return ctx;
}

MemoryContext
unit_bound_aggcxt(FunctionCallInfo fcinfo, const char *fn)
{
	MemoryContext aggcxt;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s can only be called as an aggregate", fn),
				 errhint(UNIT_BOUND_HINT)));
	return aggcxt;
}

/* dpobj.unit_bound(m bigint): transition, one unit's selected row count */
Datum
dpobj_unit_bound_sfunc(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	int64	   *hist;
	int			cand[PRIVQUANT_N];
	int			n;
	int64		m;
	int			bin;

	aggcxt = unit_bound_aggcxt(fcinfo, "dpobj.unit_bound()");
	hist = PG_ARGISNULL(0) ? MemoryContextAllocZero(aggcxt, sizeof(int64) * PRIVQUANT_N) :
		(int64 *) PG_GETARG_POINTER(0);
	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(hist);
	n = unit_bound_candidates(unit_bound_context()->rows_per_unit, cand);
	m = PG_GETARG_INT64(1);
	/* the smallest candidate >= m; the last one counts every larger unit */
	for (bin = 0; bin < n - 1 && m > cand[bin]; bin++)
		;
	if (hist[bin] < PG_INT64_MAX)
		hist[bin]++;
	PG_RETURN_POINTER(hist);
}

int
unit_bound_draw(const int64 *hist, int n, const int *cand)
{
	const DPProtectedContext *ctx = unit_bound_context();
	int			chosen = 0;
	double		eps = ctx->epsilon_f * ctx->unit_share;
	gsl_rng    *rng;

#if DPOBJ_MUTANT_IS(expmech)
	eps *= DPOBJ_MUTANT_FACTOR;	/* audit mutant */
#endif
	rng = dpobj_rng_new();
	/* at most 15 candidates: at most 15 expected proposals, nothing to poll */
	(void) privquant_draw_n(rng, hist, n, UNIT_BOUND_QUANTILE, eps, 1, NULL, NULL, &chosen);
	dpobj_rng_free(rng);
	dpobj_protected_set_unit_bound(cand[chosen]);
	return cand[chosen];
}

/*
 * dpobj.unit_bound(m bigint): final, k' drawn, recorded in the protected
 * context and returned; no unit at all: every candidate alike
 */
Datum
dpobj_unit_bound_final(PG_FUNCTION_ARGS)
{
	int64		empty[PRIVQUANT_N] = {0};
	const int64 *hist = PG_ARGISNULL(0) ? empty : (const int64 *) PG_GETARG_POINTER(0);
	int			cand[PRIVQUANT_N];
	int			n;

	aggstate_final_check(fcinfo);
	n = unit_bound_candidates(unit_bound_context()->rows_per_unit, cand);
	PG_RETURN_INT64((int64) unit_bound_draw(hist, n, cand));
}

bool
unit_bound_requested(Jsonb *options, const char *entry)
{
	JsonbValue *v = JB_ROOT_IS_OBJECT(options) && !JB_ROOT_IS_SCALAR(options) ?
		getKeyJsonValueFromContainer(&options->root, "rows_per_unit", 13, NULL) : NULL;

	if (v == NULL)
		return false;
	if (v->type != jbvString || v->val.string.len != 7 ||
		strncmp(v->val.string.val, "private", 7) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: option \"rows_per_unit\" must be \"private\"", entry),
				 errhint("Without it a run keeps the table's declared max_rows_per_unit rows per unit.")));
	return true;
}

void
unit_bound_check_table(const TableUnit *unit)
{
	if (unit->rows_per_unit == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a private rows-per-unit bound (option \"rows_per_unit\": \"private\", or dpobj.query_rows_per_unit = private) needs a table with a privacy unit"),
				 errdetail("Nothing was charged."),
				 errhint("The table's owner declares one with dpobj.protect(rel, privacy_unit => ..., max_rows_per_unit => ...).")));
}
