/*-------------------------------------------------------------------------
 *
 * halfspacestate.c
 *	  dpobj.halfspace_state: transition, combine and type I/O functions of
 *	  the halfspace aggregates, and the canonical state their final
 *	  functions see (halfspacestate.h).
 *
 * Quantisation (docs/ALGORITHMS.md, "OPDisc": the strict inequality): each
 * feature is replaced by a_j = round(Q x_j) (half away from zero), i.e. x
 * is rounded to the lattice (1/Q)Z.  Q is a power of two, so Q x_j is
 * computed without rounding error and the result is bit-for-bit
 * deterministic.  With integer weights w, Q <w, x> = <w, a> is an integer,
 * hence <w, x> > 0 exactly when <w, a> >= 1: the MIP's margin constraint
 * and every other oracle decide each row in exact integer arithmetic.  The
 * rounding is a fixed per-row transformation of the data, so it does not
 * affect privacy; predict() applies the same rounding.
 *
 * The protected path (dpobj.train()): rows with a NULL feature
 * array, a NULL element, a NULL label, a NaN or infinite feature, or a
 * feature whose quantised value is out of range are dropped -- silently
 * and deterministically -- instead of raising an error, and the transition
 * function sends nothing to the client (a progress NOTICE at the
 * first surviving row told whether the selection was empty).  The direct
 * aggregates keep raising errors: their caller can read the rows anyway.
 *
 * Parallel query and Citus (docs/SCALING.md): a partial state travels as
 * the type's flat form (aggstate.h); the combine function merges it into
 * its own expanded state.  The final function -- the only place where a
 * charge is made and noise is drawn -- runs once, on the combined state, in
 * the leader or on the Citus coordinator.
 *
 *-------------------------------------------------------------------------
 */
#include "families/halfspace/halfspacestate.h"

#include <math.h>

#include "state/aggsample.h"
#include "state/aggstate.h"
#include "context/protected.h"
#include "state/claim.h"
#include "core/opdisc.h"
#include "base/progress.h"
#include "state/rowinput.h"

#include "access/parallel.h"
#include "libpq/pqformat.h"
#include "utils/array.h"
#include "utils/lsyscache.h"

PG_FUNCTION_INFO_V1(dpobj_hs_transfn);
PG_FUNCTION_INFO_V1(dpobj_hs_opts_transfn);
PG_FUNCTION_INFO_V1(dpobj_hs_combine);
PG_FUNCTION_INFO_V1(dpobj_halfspace_state_in);
PG_FUNCTION_INFO_V1(dpobj_halfspace_state_out);
PG_FUNCTION_INFO_V1(dpobj_halfspace_state_recv);
PG_FUNCTION_INFO_V1(dpobj_halfspace_state_send);

/* 0.1.0 entry points of the "internal" state (aggstate_obsolete) */
PG_FUNCTION_INFO_V1(dpobj_halfspace_transfn);
PG_FUNCTION_INFO_V1(dpobj_halfspace_opts_transfn);
PG_FUNCTION_INFO_V1(dpobj_halfspace_combinefn);
PG_FUNCTION_INFO_V1(dpobj_halfspace_serialfn);
PG_FUNCTION_INFO_V1(dpobj_halfspace_deserialfn);

#define HS_AGGNAME		"dp_halfspace"

/*
 * dp_halfspace, dp_halfspace_rspm and dp_expmech share this state and its
 * transition and combine functions: their errors name the aggregate being
 * computed (the call's Aggref), kept here for the callbacks of aggstate.c.
 * The name is looked up only when the aggregate changes: Citus's
 * worker_partial_agg calls the transition function with a fresh FmgrInfo
 * on every row, so nothing cached in fn_extra would last.  Two of these
 * aggregates over the same inputs in one query may share one transition;
 * the name is then one of theirs.
 */
static char hs_current_name[NAMEDATALEN] = HS_AGGNAME;
static Oid	hs_current_agg = InvalidOid;

static void
hs_set_caller(FunctionCallInfo fcinfo)
{
	Aggref	   *aggref = AggGetAggref(fcinfo);
	Oid			agg = aggref != NULL ? aggref->aggfnoid : InvalidOid;
	char	   *name;

	if (agg == hs_current_agg)
		return;
	name = OidIsValid(agg) ? get_func_name(agg) : NULL;
	strlcpy(hs_current_name, name != NULL ? name : HS_AGGNAME, NAMEDATALEN);
	hs_current_agg = agg;
}

/* the expanded state */
typedef struct HSExpanded
{
	DPAggState	base;
	HSParams	params;			/* from epsilon, delta, options */
	uint64	   *scratch;		/* the current row's quantised values */
} HSExpanded;

static void hs_init(DPAggState *base);
static void hs_check_row(const DPAggState *base, const uint64 *row);
static const char *hs_aggname(int kind);
static int64 hs_sample_rows(const DPAggState *base);

static const DPStateType hs_type = {
	"dpobj.halfspace_state",
	0x44504832,					/* "DPH2" (0.3.0: "DPH1", no K) */
	DP_ROW_ORDER_INT64,
	sizeof(HSExpanded),
	hs_init,
	hs_check_row,
	hs_aggname,
	NULL,
	hs_sample_rows,
	NULL
};

/*
 * The exact oracle needs every row in memory: a uniform sample of at most
 * "sample_rows" rows, and no more than dpobj.max_state_memory holds with
 * the final function's work (aggsample.h): the canonical order (4 bytes a
 * row) and copy (8d + 16), and the exact search's tables
 * (opdisc_search_memory()) on the grid of OPDisc and dp_expmech, or on
 * RSPM's {-1, 0, 1}^d when larger (the three share this state; RSPM
 * refuses "B" and "D2").  Public: d, the options and dpobj.oracle_threads.
 */
static void
hs_search_memory(const HSParams *params, int d, double *row, double *fixed)
{
	int			B,
				D2;
	double		rspm_row,
				rspm_fixed;

	hsparams_resolve(params, d, &B, &D2);
	opdisc_search_memory(d, B, D2, dpobj_oracle_threads, row, fixed);
	if (params->B <= 0 && params->D2 <= 0)
	{
		opdisc_search_memory(d, 1, d, dpobj_oracle_threads, &rspm_row, &rspm_fixed);
		*row = Max(*row, rspm_row);
		*fixed = Max(*fixed, rspm_fixed);
	}
}

static int64
hs_params_sample_rows(const HSParams *params, int d)
{
	double		row,
				fixed;

	hs_search_memory(params, d, &row, &fixed);
	return aggsample_rows(d, params->sample_rows, row + aggsample_canonical_row_bytes(d), fixed);
}

/*
 * What the cap reserves for the exact search's tables: their bound on the
 * K rows the cap holds without "sample_rows" (a smaller K leaves the rest
 * unused).  The "mip" oracle's GLPK runs before the search, in this room
 * (opdisc.h, mip_memory), so state, canonical copy and GLPK stay in the cap.
 */
static size_t
hs_search_room(const HSParams *params, int d)
{
	double		row,
				fixed;
	int64		k;

	hs_search_memory(params, d, &row, &fixed);
	k = aggsample_rows(d, 0, row + aggsample_canonical_row_bytes(d), fixed);
	return (size_t) ((double) k * row + fixed);
}

static int64
hs_sample_rows(const DPAggState *base)
{
	return hs_params_sample_rows(&((const HSExpanded *) base)->params, base->d);
}

/*
 * Every shard keeps a sample of at most the coordinator's K: a worker's cap
 * is at least the coordinator's (workerpins.h), so its own K is at least as
 * large, and the combine keeps the bottom K of the union either way -- the
 * same sample -- but a shard no longer ships rows the coordinator drops
 * (with a larger cap on the workers, up to all of a shard's K) nor holds
 * them in its connection's buffer.  K is public.
 */
Jsonb *
hsstate_citus_options(const DPProtectedContext *ctx)
{
	HSParams	params;

	hsparams_init(&params, ctx->epsilon_f, ctx->delta_f, ctx->options);
	return dp_options_sample_rows(ctx->options, hs_params_sample_rows(&params, ctx->d));
}

/* the first row's checks, in its order: privacy parameters, d, options */
static void
hs_init(DPAggState *base)
{
	HSExpanded *st = (HSExpanded *) base;

	if (base->kind != 0 || base->d < 1)
		aggstate_corrupt(&hs_type);
	dp_check_privacy_params(base->epsilon, base->delta);
	hsparams_check_dimension(hs_current_name, base->d);
	hsparams_init(&st->params, base->epsilon, base->delta, base->options);
	st->scratch = palloc(sizeof(uint64) * base->d);
}

static void
hs_check_row(const DPAggState *base, const uint64 *row)
{
	for (int j = 0; j < base->d; j++)
	{
		int64		a = (int64) row[j];

		if (a > DPOBJ_MAX_QUANTISED || a < -DPOBJ_MAX_QUANTISED)
			aggstate_corrupt(&hs_type);
	}
}

static const char *
hs_aggname(int kind)
{
	return hs_current_name;
}

/*
 * round(q) half away from zero, for |q| < DPOBJ_MAX_QUANTISED + 1/2 (the
 * caller checks): the same value as libm's round(), without its call.
 * (int64) q truncates exactly and q - t is exact, so the test is exact.
 */
static inline int64
round_half_away(double q)
{
	int64		t = (int64) q;
	double		f = q - (double) t;

	if (f >= 0.5)
		t++;
	else if (f <= -0.5)
		t--;
	return t;
}

/*
 * Quantises the row's features into st->scratch.  Returns false for a bad
 * row on the protected path (dropped); raises on the direct path.
 */
static bool
hs_quantise(HSExpanded *st, DPRowInput *row)
{
	const float8 *vals = (const float8 *) ARR_DATA_PTR(row->features);
	double		Q = st->params.Q;
	double		limit = (double) DPOBJ_MAX_QUANTISED + 0.5;

	for (int j = 0; j < st->base.d; j++)
	{
		double		q = vals[j] * Q;

		if (likely(fabs(q) < limit))
		{
			st->scratch[j] = (uint64) round_half_away(q);
			continue;
		}
		if (dp_row_drops_bad(row))
			return false;
		if (!isfinite(q))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: features must be finite (no NaN or infinity)", hs_current_name),
					 errhint("Filter out or impute rows with non-finite features before training.")));
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s: a feature is out of the supported range", hs_current_name),
				 errhint("Scale features by public bounds so that |x| * Q stays below 2^31 (features in [-1, 1] are typical).")));
	}
	return true;
}

/* the transition function: one (features, label) row into the state */
static Datum
hs_accum(FunctionCallInfo fcinfo, bool has_options)
{
	DPRowInput	row;
	HSExpanded *st;
	Jsonb	   *options = (has_options && !PG_ARGISNULL(5)) ? PG_GETARG_JSONB_P(5) : NULL;

	hs_set_caller(fcinfo);
	if (!dp_row_read(fcinfo, hs_current_name, &row))
	{
		/* dropped on the protected path: state unchanged */
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	if (PG_ARGISNULL(0))
	{
		st = (HSExpanded *) aggstate_new(&hs_type, row.aggcontext, 0, row.d,
										 row.epsilon, row.delta, options, 0);
		/* the scan is under way -- never reported on the protected path */
		if (!IsParallelWorker() && !dp_row_drops_bad(&row))
			dpobj_progress_phase(DPOBJ_PHASE_SCANNING);
	}
	else
	{
		st = (HSExpanded *) aggstate_writable(&hs_type, PG_GETARG_DATUM(0), row.aggcontext);
		dp_row_check_same(hs_current_name, &row, options, st->base.epsilon, st->base.delta,
						  st->base.options, st->base.d);
	}
	if (hs_quantise(st, &row))
	{
		aggstate_count(&st->base, st->scratch, row.label);
		aggstate_changed(&st->base);
	}
	PG_RETURN_DATUM(EOHPGetRWDatum(&st->base.hdr));
}

Datum
dpobj_hs_transfn(PG_FUNCTION_ARGS)
{
	return hs_accum(fcinfo, false);
}

Datum
dpobj_hs_opts_transfn(PG_FUNCTION_ARGS)
{
	return hs_accum(fcinfo, true);
}

/* merges the second partial state into the first (either may be NULL) */
Datum
dpobj_hs_combine(PG_FUNCTION_ARGS)
{
	hs_set_caller(fcinfo);
	return aggstate_combine(fcinfo, &hs_type);
}

/* ---- type I/O ---- */

Datum
dpobj_halfspace_state_in(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(aggstate_in(&hs_type, PG_GETARG_CSTRING(0)));
}

Datum
dpobj_halfspace_state_out(PG_FUNCTION_ARGS)
{
	PG_RETURN_CSTRING(aggstate_out(&hs_type, PG_GETARG_DATUM(0)));
}

Datum
dpobj_halfspace_state_recv(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(aggstate_recv(&hs_type, (StringInfo) PG_GETARG_POINTER(0)));
}

Datum
dpobj_halfspace_state_send(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(aggstate_send(&hs_type, PG_GETARG_DATUM(0)));
}

/* ---- what final functions see ---- */

static HSState *
hs_state_alloc(int d, const HSParams *params, Jsonb *options, int nrows)
{
	HSState    *s = palloc0(sizeof(HSState));

	s->d = d;
	s->params = *params;
	s->options = options;
	s->nrows = nrows;
	s->x = palloc_extended(sizeof(int64) * d * Max(nrows, 1), MCXT_ALLOC_HUGE);
	s->pos = palloc_extended(sizeof(int64) * Max(nrows, 1), MCXT_ALLOC_HUGE);
	s->neg = palloc_extended(sizeof(int64) * Max(nrows, 1), MCXT_ALLOC_HUGE);
	return s;
}

/*
 * The rows of st (or of the sample drawn from them, aggstate_canonical_rows)
 * in canonical order, in CurrentMemoryContext
 */
static HSState *
hs_canonical(HSExpanded *st)
{
	HSState    *s = hs_state_alloc(st->base.d, &st->params, st->base.options,
								   st->base.rows.nrows);

	s->nrows = aggstate_canonical_rows(&st->base, true, (uint64 *) s->x, s->pos, s->neg);
	return s;
}

HSState *
hsstate_create_empty(int d, double epsilon, double delta, Jsonb *options)
{
	HSParams	params;

	hsparams_init(&params, epsilon, delta, options);
	return hs_state_alloc(d, &params, options, 0);
}

HSState *
hsstate_final_begin(FunctionCallInfo fcinfo, DPProtectedContext **pctx)
{
	HSExpanded *st;

	aggstate_final_check(fcinfo);
	st = PG_ARGISNULL(0) ? NULL :
		(HSExpanded *) aggstate_readable(&hs_type, PG_GETARG_DATUM(0));
	*pctx = st ? mechanism_claim(fcinfo, true, st->base.epsilon, st->base.delta, st->base.d)
		: mechanism_claim(fcinfo, false, 0, 0, 0);
	/* protected path: run even on no rows, so emptiness is hidden */
	if (st == NULL)
		return *pctx ? hsstate_create_empty((*pctx)->d, (*pctx)->epsilon_f,
											(*pctx)->delta_f, (*pctx)->options) : NULL;
	return hs_canonical(st);
}

void
hsstate_problem(const HSState *s, int B, int D2, OPDiscProblem *problem)
{
	memset(problem, 0, sizeof(*problem));
	problem->d = s->d;
	problem->nrows = s->nrows;
	problem->x = (const int64_t *) s->x;
	problem->pos = (const int64_t *) s->pos;
	problem->neg = (const int64_t *) s->neg;
	problem->B = B;
	problem->D2 = D2;
	problem->mip_memory = hs_search_room(&s->params, s->d);
}

/* ---- 0.1.0 entry points ---- */

Datum
dpobj_halfspace_transfn(PG_FUNCTION_ARGS)
{
	aggstate_obsolete("dp_halfspace_transfn(internal, ...)", "0.1.0");
}

Datum
dpobj_halfspace_opts_transfn(PG_FUNCTION_ARGS)
{
	aggstate_obsolete("dp_halfspace_transfn(internal, ...)", "0.1.0");
}

Datum
dpobj_halfspace_combinefn(PG_FUNCTION_ARGS)
{
	aggstate_obsolete("dp_halfspace_combinefn(internal, internal)", "0.1.0");
}

Datum
dpobj_halfspace_serialfn(PG_FUNCTION_ARGS)
{
	aggstate_obsolete("dp_halfspace_serialfn(internal)", "0.1.0");
}

Datum
dpobj_halfspace_deserialfn(PG_FUNCTION_ARGS)
{
	aggstate_obsolete("dp_halfspace_deserialfn(bytea, internal)", "0.1.0");
}
