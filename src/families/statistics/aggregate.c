/*-------------------------------------------------------------------------
 *
 * aggregate.c
 *	  Private descriptive statistics (docs/PRIVACY.md "Private
 *	  statistics"):
 *
 *	  dpobj.dp_aggregate(features, label, epsilon, delta, options) RETURNS jsonb
 *	      aggregate over encoded rows; options {"layout": ...} (aggregate.h)
 *	  dpobj.dp_aggregate_cols(label, epsilon, delta, options, column, ...)
 *	      the same, the encoding's columns encoded here (no array per row)
 *	  dpobj.aggregate(rel, what, ...): the same on a protected table,
 *	      through dpobj.train()'s sealed path (protected/aggrun.c)
 *
 *	  The state holds every cell's slots (counts, and sums of values
 *	  clamped to [lo, hi] and rounded to a lattice of AGG_SUM_UNITS steps
 *	  per max(|lo|, |hi|)), summed over the rows in one scan.  Replacing one
 *	  row changes each statistic's slots by at most 2 in l1 (counts: one
 *	  cell or bin loses it, one gains it) or 2 AGG_SUM_UNITS (sums), adding
 *	  or removing one by half that; a privacy unit of k rows k times that.
 *	  Each slot gets independent discrete Laplace noise (dpnoise.c) of
 *	  scale sensitivity / (share x epsilon / k): the statistics share
 *	  epsilon equally (a mean half to its sum, half to its count, a
 *	  variance a third to each of its sum of squares, sum and count, a
 *	  quantile's between its leaves' and its coarse bins' counts: two
 *	  histograms, aggregate.h).  The release is epsilon-DP by basic
 *	  composition (delta may be 0; one given is charged, not needed),
 *	  charged once as "aggregate" (pure).
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpobj.h"

#include <math.h>

#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/jsonb.h"

#include "core/calibrate.h"
#include "core/dpnoise.h"
#include "families/statistics/aggregate.h"
#include "families/statistics/statisticsparams.h"
#include "families/statistics/statisticsstate.h"
#include "mechanisms/mechanism.h"

PG_FUNCTION_INFO_V1(dpobj_aggregate_finalfn);

/* ---- the release ---- */

typedef struct AggRun
{
	double	   *s;				/* the state's values */
	ArrayType  *state;
	double		eps;
	double		delta;
	int			ncells;
	int			width;
	uint64	   *num;			/* per slot: the noise's scale num / den */
	uint64	   *den;
	int64	   *out;			/* the noisy values */
	int			unit_bound;		/* the private k' calibrated for (unitbound.c), or 0 */
} AggRun;

/*
 * The final state, or on the protected path with no row an empty one of
 * the run's layout (its options are the protected context's).
 */
static void *
agg_admit(FunctionCallInfo fcinfo, int kind, DPProtectedContext **pctx)
{
	AggRun	   *r = palloc0(sizeof(AggRun));
	int			nstate,
				nrun;

	r->state = PG_ARGISNULL(0) ? NULL : PG_GETARG_ARRAYTYPE_P(0);
	if (r->state != NULL)
	{
		agg_state_size(r->state, &nstate, &nrun);
		r->s = countstate_values(r->state, nstate);
	}
	*pctx = r->s ? mechanism_claim(fcinfo, true, r->s[STAT_EPS], r->s[STAT_DELTA], (int) r->s[STAT_D])
		: mechanism_claim(fcinfo, false, 0, 0, 0);
	if (r->s == NULL && *pctx == NULL)
		return NULL;
	if (r->s == NULL)
	{
		AggLayout  *l = agg_layout_of_options((*pctx)->options);

		r->state = agg_state_new(CurrentMemoryContext, l, (*pctx)->epsilon_f, (*pctx)->delta_f,
								 Max((*pctx)->rows_per_unit, 1));
		r->s = (double *) ARR_DATA_PTR(r->state);
	}
	r->eps = r->s[STAT_EPS];
	r->delta = r->s[STAT_DELTA];
	r->ncells = (int) r->s[STAT_C];
	r->width = (int) r->s[STAT_W];
	return r;
}

void
agg_slot_calibrate(const char *aggname, AggSlotKind kind, double share, double eps, int k,
				   int ncells, uint64 *num, uint64 *den)
{
	agg_slot_noise(kind == AGG_SLOT_SUM, agg_slot_eps(kind, eps, k, ncells) * share, num, den);
	if (*den < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: epsilon is too small for these statistics", aggname),
				 errhint("Each count needs at least 2^-20 of epsilon and each sum 2^-16.")));
}

static void
agg_calibrate(DPRun *run)
{
	AggRun	   *r = run->state;
	double		eps = r->eps;
	int			k = (int) r->s[STAT_K];

	/*
	 * A private k' (protected/unitbound.c): drawn at unit_share of epsilon
	 * before the bounding kept at most k' rows per unit; the noise gets the
	 * rest, rounded down, for k' rows
	 */
	if (run->pctx != NULL && run->pctx->unit_share > 0)
	{
		if (run->pctx->unit_bound < 1)
			elog(ERROR, "dpobj: a run with a private rows-per-unit bound drew none");
		eps = nextafter(eps - eps * run->pctx->unit_share, 0);
		k = r->unit_bound = run->pctx->unit_bound;
	}
	r->num = palloc(sizeof(uint64) * r->width);
	r->den = palloc(sizeof(uint64) * r->width);
	for (int i = 0; i < r->width; i++)
		agg_slot_calibrate(AGG_AGGNAME, STAT_KIND(r->s, i), STAT_SHARE(r->s, r->width, i),
						   eps, k, r->ncells, &r->num[i], &r->den[i]);
	r->out = palloc(sizeof(int64) * r->ncells * r->width);
	mechanism_calibrated(run, NULL, "aggregate", r->eps, r->delta);
}

/* after the charge: every slot of every cell plus its noise */
static void
agg_compute(DPRun *run)
{
	AggRun	   *r = run->state;
	const double *v = r->s + STAT_NRUN(r->width);

	for (int64 i = 0; i < (int64) r->ncells * r->width; i++)
		r->out[i] = (int64) v[i] + dpnoise_discrete_laplace(run->rng, r->num[i % r->width],
															 r->den[i % r->width]);
	run->detail = "aggregate";
}

/* {"values": [C x W noisy integers], "noise": [[num, den] per slot], "epsilon", "delta"} */
void
agg_append_release(StringInfo b, const int64 *out, int64 n, const uint64 *num,
				   const uint64 *den, int width)
{
	for (int64 i = 0; i < n; i++)
		appendStringInfo(b, "%s" INT64_FORMAT, i ? ", " : "", out[i]);
	appendStringInfoString(b, "], \"noise\": [");
	for (int i = 0; i < width; i++)
		appendStringInfo(b, "%s[" UINT64_FORMAT ", " UINT64_FORMAT "]", i ? ", " : "",
						 num[i], den[i]);
	appendStringInfoChar(b, ']');
}

static Datum
agg_release(DPRun *run)
{
	AggRun	   *r = run->state;
	StringInfoData b;

	initStringInfo(&b);
	appendStringInfoString(&b, "{\"values\": [");
	agg_append_release(&b, r->out, (int64) r->ncells * r->width, r->num, r->den, r->width);
	appendStringInfo(&b, ", \"epsilon\": %s, \"delta\": %s",
					 float8out_internal(r->eps), float8out_internal(r->delta));
	/* a private k' is DP output (unitbound.c) */
	if (r->unit_bound > 0)
		appendStringInfo(&b, ", \"rows_per_unit\": %d", r->unit_bound);
	appendStringInfoChar(&b, '}');
	return DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data));
}

MECHANISM_FINAL_FUNCTION(dpobj_aggregate_finalfn,
						 .admit = agg_admit, .kind = 0,
						 .calibrate = agg_calibrate, .compute = agg_compute,
						 .release = agg_release)
