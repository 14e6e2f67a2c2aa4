/*-------------------------------------------------------------------------
 *
 * keptstate.c
 *	  A kept-row family's transition function, state callbacks and the
 *	  start of its final function (keptstate.h).
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
#include "mechanisms/keptstate.h"

#include <math.h>

#include "context/protected.h"
#include "core/rowclip.h"
#include "mechanisms/mechanism.h"
#include "state/aggsample.h"
#include "state/claim.h"
#include "state/keptdesign.h"
#include "state/rowinput.h"

#include "utils/array.h"

/* words after the features: a float8 label */
#define kept_label_words(kind)	((kind) == KEPT_KIND_REG ? 1 : 0)

static const DPKeptStateType *
kept_type(const DPAggState *base)
{
	return (const DPKeptStateType *) base->type;
}

/* a pass reads the rows in blocks (keptdesign.h): the state spills past the cap */
bool
keptstate_spills(int kind)
{
	return true;
}

/* every row unless "sample_rows" asks for a sample (train() on Citus does) */
int64
keptstate_sample_rows(const DPAggState *base)
{
	return keptrows_sample_rows(base->d, ((const DPKeptExpanded *) base)->params.sample_rows);
}

/*
 * What a state ships at most (a parallel worker's or a Citus shard's
 * part): the K its node's cap holds, as "sample_rows" would give it
 */
int64
keptstate_ship_rows(const DPAggState *base)
{
	return keptrows_sample_rows(base->d, PG_INT32_MAX);
}

/* the first row's checks, in its order: privacy parameters, d, options */
void
keptstate_init(DPAggState *base)
{
	DPKeptExpanded *st = (DPKeptExpanded *) base;
	const DPKeptStateType *t = kept_type(base);

	if ((base->kind != KEPT_KIND_CLASS && base->kind != KEPT_KIND_REG) ||
		base->d < 1 + kept_label_words(base->kind))
		aggstate_corrupt(base->type);
	dp_check_privacy_params(base->epsilon, base->delta);
	dp_check_dimension(t->aggname, base->d - kept_label_words(base->kind));
	t->run(base->kind == KEPT_KIND_REG, &st->params, base->epsilon, base->delta,
		   base->options);
	st->scratch = palloc(sizeof(double) * base->d);
}

/* words are finite and never -0.0 (aggstate.c); a float8 label any finite value */
void
keptstate_check_row(const DPAggState *base, const uint64 *row)
{
}

/*
 * The float8 label into *y, +0.0 for -0.0 (a row's words are never -0.0);
 * false when the row is to be dropped (protected path: not finite), an
 * error on the direct path
 */
static bool
kept_row_real_label(FunctionCallInfo fcinfo, const char *aggname, DPRowInput *row, double *y)
{
	*y = PG_GETARG_FLOAT8(2) + 0.0;
	if (isfinite(*y))
		return true;
	if (dp_row_drops_bad(row))
		return false;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s: label must be finite (no NaN or infinity)", aggname),
			 errhint("Filter out rows with a non-finite label before training.")));
	return false;				/* keep compiler quiet */
}

/* the features into st->scratch; false when the row is dropped (protected path) */
static bool
kept_row_features(DPKeptExpanded *st, const char *aggname, DPRowInput *row)
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
					 errmsg("%s: features must be finite (no NaN or infinity)", aggname),
					 errhint("Filter out or impute rows with non-finite features before training.")));
		}
		st->scratch[j] = vals[j];
	}
	/* no bound (R = +inf): -0.0 becomes +0.0, nothing else changes */
	rowclip_apply(st->scratch, row->d, INFINITY, false);
	return true;
}

Datum
keptstate_accum(FunctionCallInfo fcinfo, const DPKeptStateType *t, int kind)
{
	int			lw = kept_label_words(kind);
	DPRowInput	row;
	DPKeptExpanded *st;
	Jsonb	   *options = PG_ARGISNULL(5) ? NULL : PG_GETARG_JSONB_P(5);
	double		y = 0;

	if (!dp_row_read(fcinfo, t->aggname, &row))
	{
		/* dropped on the protected path: state unchanged */
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	if (PG_ARGISNULL(0))
		st = (DPKeptExpanded *) aggstate_new(&t->type, row.aggcontext, kind, row.d + lw,
											 row.epsilon, row.delta, options, 0);
	else
	{
		st = (DPKeptExpanded *) aggstate_writable(&t->type, PG_GETARG_DATUM(0), row.aggcontext);
		if (st->base.kind != kind)
			aggstate_corrupt(&t->type);
		dp_row_check_same(t->aggname, &row, options, st->base.epsilon, st->base.delta,
						  st->base.options, st->base.d - lw);
	}
	if ((lw > 0 && !kept_row_real_label(fcinfo, t->aggname, &row, &y)) ||
		!kept_row_features(st, t->aggname, &row))
		PG_RETURN_DATUM(EOHPGetRWDatum(&st->base.hdr));
	if (lw > 0)
		st->scratch[row.d] = y;
	/* a float8 label's row counts as "positive": its label is in the row */
	aggstate_count(&st->base, (const uint64 *) st->scratch, lw > 0 || row.label);
	aggstate_changed(&st->base);
	PG_RETURN_DATUM(EOHPGetRWDatum(&st->base.hdr));
}

/* a state with no rows (protected path), or st's rows, in CurrentMemoryContext */
static DPKeptState *
kept_state_new(int kind, const OpParams *params, Jsonb *options)
{
	DPKeptState *s = palloc0(sizeof(DPKeptState));

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
static DPKeptState *
kept_final_rows(DPKeptExpanded *st, const DPProtectedContext *pctx)
{
	DPKeptState *s = kept_state_new(st->base.kind, &st->params, st->base.options);

	/* a copy of the rows within the design's share, else replayed (keptstate.h) */
	keptrows_from_state(&s->rows, &st->base, st->params.sample_rows > 0,
						keptdesign_block_rows(st->base.d, false));
	if (pctx == NULL && st->base.spill == NULL && st->base.sample != NULL &&
		st->params.sample_rows == 0 && aggsample_keyed(st->base.sample))
		s->params.sample_rows = aggsample_k(st->base.sample);
	return s;
}

DPKeptState *
keptstate_final_begin(FunctionCallInfo fcinfo, const DPKeptStateType *t, int kind,
					  DPProtectedContext **pctx)
{
	DPKeptExpanded *st;
	int			lw = kept_label_words(kind);
	OpParams	p;
	DPKeptState *s;

	aggstate_final_check(fcinfo);
	st = PG_ARGISNULL(0) ? NULL :
		(DPKeptExpanded *) aggstate_readable(&t->type, PG_GETARG_DATUM(0));
	if (st != NULL && st->base.kind != kind)
		aggstate_corrupt(&t->type);
	*pctx = st ? mechanism_claim(fcinfo, true, st->base.epsilon, st->base.delta,
								 st->base.d - lw)
		: mechanism_claim(fcinfo, false, 0, 0, 0);
	if (st != NULL)
		return kept_final_rows(st, *pctx);
	/* protected path: run even on no rows, so emptiness is hidden */
	if (*pctx == NULL)
		return NULL;
	t->run(kind == KEPT_KIND_REG, &p, (*pctx)->epsilon_f, (*pctx)->delta_f,
		   (*pctx)->options);
	s = kept_state_new(kind, &p, (*pctx)->options);
	keptrows_alloc(&s->rows, (*pctx)->d + lw, 0);
	return s;
}
