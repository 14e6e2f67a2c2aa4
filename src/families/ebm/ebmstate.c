/*-------------------------------------------------------------------------
 *
 * ebmstate.c
 *	  dp_ebm's transition, combine and type I/O functions (ebmstate.h).
 *
 * Bad rows follow dp_halfspace's rules (halfspacestate.c): on the direct
 * path an error naming the problem, never the value; on the protected path
 * (dpobj.train) the row is dropped silently.  The rows are binned, never
 * clipped.  The state is an expanded object updated in place, shipped
 * between processes and Citus nodes in its flat form, combined by merging
 * counts; the final function sees the rows in canonical order, so a run's
 * output under a fixed seed does not depend on the order rows or partial
 * states arrived in.
 *
 *-------------------------------------------------------------------------
 */
#include "families/ebm/ebmstate.h"

#include <math.h>

#include "context/protected.h"
#include "core/rowclip.h"
#include "families/ebm/ebmparams.h"
#include "state/aggsample.h"
#include "state/aggstate.h"
#include "state/claim.h"
#include "state/rowinput.h"

#include "utils/array.h"

PG_FUNCTION_INFO_V1(dpobj_ebm_transfn);
PG_FUNCTION_INFO_V1(dpobj_ebm_reg_transfn);
PG_FUNCTION_INFO_V1(dpobj_ebm_state_combine);
PG_FUNCTION_INFO_V1(dpobj_ebm_state_in);
PG_FUNCTION_INFO_V1(dpobj_ebm_state_out);
PG_FUNCTION_INFO_V1(dpobj_ebm_state_recv);
PG_FUNCTION_INFO_V1(dpobj_ebm_state_send);

/* 0.5.0's transition functions over dpobj.glm_state (aggstate_obsolete) */
PG_FUNCTION_INFO_V1(dpobj_glm_ebm_transfn);
PG_FUNCTION_INFO_V1(dpobj_glm_ebm_reg_transfn);

/* words after the features: a float8 label */
#define ebm_label_words(kind)	((kind) == EBM_KIND_REG ? 1 : 0)

typedef struct EBMExpanded
{
	DPAggState	base;
	OpParams	params;			/* from kind, epsilon, delta, options */
	double	   *scratch;		/* the current row */
} EBMExpanded;

static void ebm_init(DPAggState *base);
static void ebm_check_row(const DPAggState *base, const uint64 *row);
static const char *ebm_aggname(int kind);
static bool ebm_spills(int kind);
static int64 ebm_sample_rows(const DPAggState *base);
static int64 ebm_ship_rows(const DPAggState *base);

static const DPStateType ebm_type = {
	"dpobj.ebm_state",
	0x44504542,					/* "DPEB" */
	DP_ROW_ORDER_FLOAT8,
	sizeof(EBMExpanded),
	ebm_init,
	ebm_check_row,
	ebm_aggname,
	ebm_spills,
	ebm_sample_rows,
	ebm_ship_rows
};

/* a pass reads the rows in blocks (keptdesign.h): the state spills past the cap */
static bool
ebm_spills(int kind)
{
	return true;
}

/* every row unless "sample_rows" asks for a sample (train() on Citus does) */
static int64
ebm_sample_rows(const DPAggState *base)
{
	return keptrows_sample_rows(base->d, ((const EBMExpanded *) base)->params.sample_rows);
}

/*
 * What a state ships at most (a parallel worker's or a Citus shard's
 * part): the K its node's cap holds, as "sample_rows" would give it
 */
static int64
ebm_ship_rows(const DPAggState *base)
{
	return keptrows_sample_rows(base->d, PG_INT32_MAX);
}

static const char *
ebm_aggname(int kind)
{
	return "dp_ebm";
}

/* the first row's checks, in its order: privacy parameters, d, options */
static void
ebm_init(DPAggState *base)
{
	EBMExpanded *st = (EBMExpanded *) base;

	if ((base->kind != EBM_KIND_CLASS && base->kind != EBM_KIND_REG) ||
		base->d < 1 + ebm_label_words(base->kind))
		aggstate_corrupt(&ebm_type);
	dp_check_privacy_params(base->epsilon, base->delta);
	dp_check_dimension("dp_ebm", base->d - ebm_label_words(base->kind));
	ebmparams_run(base->kind == EBM_KIND_REG, &st->params, base->epsilon, base->delta,
				  base->options);
	st->scratch = palloc(sizeof(double) * base->d);
}

/* words are finite and never -0.0 (aggstate.c); a float8 label any finite value */
static void
ebm_check_row(const DPAggState *base, const uint64 *row)
{
}

/*
 * The float8 label into *y, +0.0 for -0.0 (a row's words are never -0.0);
 * false when the row is to be dropped (protected path: not finite), an
 * error on the direct path
 */
static bool
ebm_row_real_label(FunctionCallInfo fcinfo, DPRowInput *row, double *y)
{
	*y = PG_GETARG_FLOAT8(2) + 0.0;
	if (isfinite(*y))
		return true;
	if (dp_row_drops_bad(row))
		return false;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("dp_ebm: label must be finite (no NaN or infinity)"),
			 errhint("Filter out rows with a non-finite label before training.")));
	return false;				/* keep compiler quiet */
}

/* the features into st->scratch; false when the row is dropped (protected path) */
static bool
ebm_row_features(EBMExpanded *st, DPRowInput *row)
{
	const float8 *vals = (const float8 *) ARR_DATA_PTR(row->features);

	for (int j = 0; j < row->d; j++)
	{
		if (!isfinite(vals[j]))
		{
			if (dp_row_drops_bad(row))
				return false;
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("dp_ebm: features must be finite (no NaN or infinity)"),
					 errhint("Filter out or impute rows with non-finite features before training.")));
		}
		st->scratch[j] = vals[j];
	}
	/* no bound (R = +inf): -0.0 becomes +0.0, nothing else changes */
	rowclip_apply(st->scratch, row->d, INFINITY, false);
	return true;
}

/* the transition function of both aggregates */
static Datum
ebm_accum(FunctionCallInfo fcinfo, int kind)
{
	int			lw = ebm_label_words(kind);
	DPRowInput	row;
	EBMExpanded *st;
	Jsonb	   *options = PG_ARGISNULL(5) ? NULL : PG_GETARG_JSONB_P(5);
	double		y = 0;

	if (!dp_row_read(fcinfo, "dp_ebm", &row))
	{
		/* dropped on the protected path: state unchanged */
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	if (PG_ARGISNULL(0))
		st = (EBMExpanded *) aggstate_new(&ebm_type, row.aggcontext, kind, row.d + lw,
										  row.epsilon, row.delta, options, 0);
	else
	{
		st = (EBMExpanded *) aggstate_writable(&ebm_type, PG_GETARG_DATUM(0), row.aggcontext);
		if (st->base.kind != kind)
			aggstate_corrupt(&ebm_type);
		dp_row_check_same("dp_ebm", &row, options, st->base.epsilon, st->base.delta,
						  st->base.options, st->base.d - lw);
	}
	if ((lw > 0 && !ebm_row_real_label(fcinfo, &row, &y)) || !ebm_row_features(st, &row))
		PG_RETURN_DATUM(EOHPGetRWDatum(&st->base.hdr));
	if (lw > 0)
		st->scratch[row.d] = y;
	/* a float8 label's row counts as "positive": its label is in the row */
	aggstate_count(&st->base, (const uint64 *) st->scratch, lw > 0 || row.label);
	aggstate_changed(&st->base);
	PG_RETURN_DATUM(EOHPGetRWDatum(&st->base.hdr));
}

Datum
dpobj_ebm_transfn(PG_FUNCTION_ARGS)
{
	return ebm_accum(fcinfo, EBM_KIND_CLASS);
}

Datum
dpobj_ebm_reg_transfn(PG_FUNCTION_ARGS)
{
	return ebm_accum(fcinfo, EBM_KIND_REG);
}

/* merges the second partial state into the first (either may be NULL) */
Datum
dpobj_ebm_state_combine(PG_FUNCTION_ARGS)
{
	return aggstate_combine(fcinfo, &ebm_type);
}

Datum
dpobj_ebm_state_in(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(aggstate_in(&ebm_type, PG_GETARG_CSTRING(0)));
}

Datum
dpobj_ebm_state_out(PG_FUNCTION_ARGS)
{
	PG_RETURN_CSTRING(aggstate_out(&ebm_type, PG_GETARG_DATUM(0)));
}

Datum
dpobj_ebm_state_recv(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(aggstate_recv(&ebm_type, (StringInfo) PG_GETARG_POINTER(0)));
}

Datum
dpobj_ebm_state_send(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(aggstate_send(&ebm_type, PG_GETARG_DATUM(0)));
}

Datum
dpobj_glm_ebm_transfn(PG_FUNCTION_ARGS)
{
	aggstate_obsolete("dp_ebm_transfn(glm_state, ...)", "0.5.0");
}

Datum
dpobj_glm_ebm_reg_transfn(PG_FUNCTION_ARGS)
{
	aggstate_obsolete("dp_ebm_reg_transfn(glm_state, ...)", "0.5.0");
}

/* ---- what the final function sees ---- */

/* a state with no rows (protected path), or st's rows, in CurrentMemoryContext */
static EBMState *
ebm_state_new(int kind, const OpParams *params, Jsonb *options)
{
	EBMState   *s = palloc0(sizeof(EBMState));

	s->kind = kind;
	s->params = *params;
	s->options = options;
	return s;
}

/*
 * The rows of st (keptrows.h): a spilled state's replayed; else in
 * canonical order, with "sample_rows" those of the sample drawn from them.
 * A direct call whose parts were shipped as samples (aggstate.c,
 * aggstate_get_flat_size) that dropped rows says it was fitted to a uniform
 * sample of K rows, as with "sample_rows"; whether rows were dropped
 * follows the rows, so never on the protected path (pctx), whose runs are
 * serial and on Citus ask for "sample_rows" themselves.
 */
static EBMState *
ebm_final_rows(EBMExpanded *st, const DPProtectedContext *pctx)
{
	EBMState   *s = ebm_state_new(st->base.kind, &st->params, st->base.options);

	keptrows_from_state(&s->rows, &st->base, st->params.sample_rows > 0);
	if (pctx == NULL && st->base.spill == NULL && st->base.sample != NULL &&
		st->params.sample_rows == 0 && aggsample_keyed(st->base.sample))
		s->params.sample_rows = aggsample_k(st->base.sample);
	return s;
}

EBMState *
ebmstate_final_begin(FunctionCallInfo fcinfo, int kind, DPProtectedContext **pctx)
{
	EBMExpanded *st;
	int			lw = ebm_label_words(kind);
	OpParams	p;
	EBMState   *s;

	aggstate_final_check(fcinfo);
	st = PG_ARGISNULL(0) ? NULL :
		(EBMExpanded *) aggstate_readable(&ebm_type, PG_GETARG_DATUM(0));
	if (st != NULL && st->base.kind != kind)
		aggstate_corrupt(&ebm_type);
	*pctx = st ? mechanism_claim(fcinfo, true, st->base.epsilon, st->base.delta,
								 st->base.d - lw)
		: mechanism_claim(fcinfo, false, 0, 0, 0);
	if (st != NULL)
		return ebm_final_rows(st, *pctx);
	/* protected path: run even on no rows, so emptiness is hidden */
	if (*pctx == NULL)
		return NULL;
	ebmparams_run(kind == EBM_KIND_REG, &p, (*pctx)->epsilon_f, (*pctx)->delta_f,
				  (*pctx)->options);
	s = ebm_state_new(kind, &p, (*pctx)->options);
	keptrows_alloc(&s->rows, (*pctx)->d + lw, 0);
	return s;
}

void *
ebm_admit(FunctionCallInfo fcinfo, int kind, DPProtectedContext **pctx)
{
	return ebmstate_final_begin(fcinfo, kind, pctx);
}
