/*-------------------------------------------------------------------------
 *
 * expmech.c
 *	  The exact exponential mechanism over a small halfspace grid:
 *	  dpobj.dp_expmech(features, label, epsilon, delta [, options]).
 *
 * Source: McSherry & Talwar 2007; Bassily, Smith, Thakurta 2014, sections
 * 3-4 ("exponential mechanism over W"); docs/ALGORITHMS.md, "Exponential
 * mechanism and the other releases".  An exact reference for OPDisc on
 * small d: the same grid
 *   W = { w in Z^d : |w_j| <= B, ||w||^2 <= D2 }  (the default grid of
 *   dp_halfspace, opdisc_default_grid(); options "B" and "D2" as there),
 * the same quantised rows and 0/1 loss L(D, w) (halfspacestate.c, opdisc_loss()),
 * and output w with probability proportional to
 *   exp(-epsilon L(D, w) / (2 Delta)),  Delta = 1 per row (option
 *   "rows_per_unit" k: Delta = k, sampled at epsilon / k rounded down)
 * (replacing one row changes the 0/1 loss count by at most 1), by
 * enumerating W and sampling exactly (src/core/expsample.c: uniform
 * proposals accepted with probability exp(-eps Delta / 2), integer
 * arithmetic only).  This is epsilon-DP (pure); delta is charged as passed.
 *
 * Grids of more than DPOBJ_EXPMECH_MAX_GRID points, or whose enumeration
 * costs more than DPOBJ_EXPMECH_MAX_WORK row-feature products, are
 * refused before anything is charged.
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpobj.h"

#include <math.h>

#include "core/auditmutant.h"
#include "core/expsample.h"
#include "families/halfspace/halfspace.h"
#include "families/halfspace/halfspacestate.h"
#include "mechanisms/mechanism.h"
#include "model/model.h"
#include "core/opdisc.h"
#include "base/random.h"
#include "families/halfspace/oracle.h"

#include "miscadmin.h"

PG_FUNCTION_INFO_V1(dpobj_expmech_finalfn);
PG_FUNCTION_INFO_V1(dpobj_expmech_grid_size);

#define DPOBJ_EXPMECH_MAX_GRID	1000000.0
#define DPOBJ_EXPMECH_MAX_WORK	4.0e9

/* dpobj.expmech_grid_size(d, B, D2): |W|, for tests and planning */
Datum
dpobj_expmech_grid_size(PG_FUNCTION_ARGS)
{
	int32		d = PG_GETARG_INT32(0);
	int32		B = PG_GETARG_INT32(1);
	int32		D2 = PG_GETARG_INT32(2);
	double		grid;

	if (d < 1 || d > DPOBJ_HALFSPACE_MAX_DIM || B < 1 || B > DPOBJ_MAX_B ||
		D2 < 1 || D2 > DPOBJ_MAX_D2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid grid parameters"),
				 errhint("Need 1 <= d <= %d, 1 <= B <= %d, 1 <= D2 <= %d.",
						 DPOBJ_HALFSPACE_MAX_DIM, DPOBJ_MAX_B, DPOBJ_MAX_D2)));
	grid = opdisc_grid_size(d, B, D2);
	if (!isfinite(grid) || grid < 1)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("the grid of d = %d, B = %d, D2 = %d has more points than a float8 can count",
						d, B, D2),
				 errhint("Use fewer features or a smaller \"B\" or \"D2\".")));
	PG_RETURN_FLOAT8(grid);
}

static void
expmech_refuse(double grid)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("dp_expmech: the grid has %.0f points, more than the %.0f this exact mechanism enumerates",
					grid, DPOBJ_EXPMECH_MAX_GRID),
			 errhint("Use fewer features or smaller \"B\"/\"D2\" options; dp_halfspace (OPDisc) handles large grids.")));
}

/* dpobj.train()'s argument check (budget.c, mechanism.h) */
void
expmech_check_args(const char *aggname, double epsilon, double delta, int d,
				   Jsonb *options)
{
	HSState    *tmp;
	int			B,
				D2;

	hsparams_check_args(aggname, epsilon, delta, d, options);
	tmp = hsstate_create_empty(d, epsilon, delta, options);
	hsparams_resolve(&tmp->params, tmp->d, &B, &D2);
	if (opdisc_grid_size(d, B, D2) > DPOBJ_EXPMECH_MAX_GRID)
		expmech_refuse(opdisc_grid_size(d, B, D2));
}

/*
 * Step 2: the exact integer 0/1 loss of every grid point, in the enumeration
 * order of opdisc_grid_first/next; returns the array (npoints entries) and
 * its minimum.
 */
static int64 *
expmech_losses(const OPDiscProblem *problem, double grid, int64 ledger_id,
			   int64 *npoints, int64 *minloss)
{
	int64	   *loss = palloc(sizeof(int64) * (Size) grid);
	int		   *w = palloc(sizeof(int) * problem->d);
	int64		k = 0;

	*minloss = PG_INT64_MAX;
	opdisc_grid_first(w, problem->d, problem->B, problem->D2);
	do
	{
		if ((k & 1023) == 0)
			mechanism_poll(ledger_id);
		loss[k] = opdisc_loss(problem, w);
		if (loss[k] < *minloss)
			*minloss = loss[k];
		k++;
	} while (k < (int64) grid && opdisc_grid_next(w, problem->d, problem->B, problem->D2));
	pfree(w);
	*npoints = k;
	return loss;
}

/* a cancel, a terminate or a vanished client is pending (never raises) */
static bool
expmech_stop_pending(void *arg)
{
	return dpobj_stop_requested();
}

/*
 * Step 3: the index of the sampled point, with probability
 * exp(-eps (L - Lmin) / 2) / Z (McSherry-Talwar; sensitivity 1 for the 0/1
 * loss), drawn exactly (src/core/expsample.c): no floating-point weight, so
 * every grid point keeps a positive probability.  eps / 2 is taken as an
 * exact binary rational, rounded down past 2^-62 (a smaller epsilon: still
 * eps-DP).
 */
static int64
expmech_sample(const int64 *loss, int64 npoints, int64 minloss, double eps,
			   int64 ledger_id)
{
	uint64_t	num,
				den;
	int64_t		chosen = 0;
	ExpSampleResult result;
	gsl_rng    *rng;

	(void) expsample_gamma(eps, &num, &den);
	rng = dpobj_rng_new();
	result = expsample_draw(rng, loss, npoints, minloss, num, den,
							expmech_stop_pending, NULL, &chosen);
	dpobj_rng_free(rng);
	if (result == EXPSAMPLE_STOPPED)
	{
		mechanism_poll(ledger_id);	/* records 'cancelled', raises the interrupt */
		/* the interrupt was held off: the draw is gone, so still stop */
		ereport(ERROR,
				(errcode(ERRCODE_QUERY_CANCELED),
				 errmsg("dp_expmech: the sampler was interrupted"),
				 errhint("The privacy budget of this run is spent; run it again.")));
	}
	return chosen;
}

/* The refusals of dp_expmech that come before the charge (public grounds on the protected path) */
static void
expmech_check_work(const HSState *state, bool protected_path, double grid)
{
	if (grid > DPOBJ_EXPMECH_MAX_GRID)
		expmech_refuse(grid);
	/* the work bound uses no row count: the number of distinct rows is
	 * bounded by (2 Q max|x| + 1)^d only, so bound by the public grid and
	 * refuse on the state size only on the direct path */
	if (!protected_path && grid * (double) Max(state->nrows, 1) * state->d > DPOBJ_EXPMECH_MAX_WORK)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("dp_expmech: enumerating the grid over these rows is too expensive"),
				 errhint("Use fewer features, a smaller grid, or coarser features (option \"Q\").")));
}

/* a run's grid and its chosen point (DPRun.work) */
typedef struct ExpMechRun
{
	int			B;
	int			D2;
	double		grid;
	int		   *w;
} ExpMechRun;

static void
expmech_calibrate(DPRun *run)
{
	HSState    *state = run->state;
	ExpMechRun *e = palloc0(sizeof(ExpMechRun));

	hsparams_resolve(&state->params, state->d, &e->B, &e->D2);
	e->grid = opdisc_grid_size(state->d, e->B, e->D2);
	expmech_check_work(state, run->pctx != NULL, e->grid);
	mechanism_calibrated(run, e, "expmech", state->params.epsilon, state->params.delta);
}

static void
expmech_compute(DPRun *run)
{
	HSState    *state = run->state;
	ExpMechRun *e = run->work;
	int			d = state->d;
	OPDiscProblem problem;
	int64	   *loss;
	int64		npoints;
	int64		minloss;
	int64		chosen;

	/* 2. losses of every grid point (exact integers) */
	hsstate_problem(state, e->B, e->D2, &problem);
	loss = expmech_losses(&problem, e->grid, run->ledger_id, &npoints, &minloss);

	/* 3. sample, then rebuild the chosen point by enumerating again */
	/* a unit of up to k rows moves the loss by up to k: sample at eps / k */
	chosen = expmech_sample(loss, npoints, minloss,
#if DPOBJ_MUTANT_IS(expmech)
							DPOBJ_MUTANT_FACTOR *	/* audit mutant */
#endif
							hsparams_unit_epsilon(&state->params),
							run->ledger_id);
	memset(loss, 0, sizeof(int64) * npoints);
	pfree(loss);
	e->w = palloc(sizeof(int) * d);
	opdisc_grid_first(e->w, d, e->B, e->D2);
	for (int64 k = 0; k < chosen; k++)
		(void) opdisc_grid_next(e->w, d, e->B, e->D2);
	run->detail = "enumerated";
}

static Datum
expmech_release(DPRun *run)
{
	HSState    *state = run->state;
	ExpMechRun *e = run->work;
	StringInfoData params;

	model_params_begin(&params);
	model_params_text(&params, "loss", "zero_one");
	model_params_int(&params, "d", state->d);
	model_params_int(&params, "B", e->B);
	model_params_int(&params, "D2", e->D2);
	model_params_int(&params, "Q", state->params.Q);
	model_params_int(&params, "sensitivity", state->params.rows_per_unit);
	if (state->params.rows_per_unit > 1)
		model_params_int(&params, "rows_per_unit", state->params.rows_per_unit);
	model_params_end(&params);

	return model_build_grid(run->fcinfo, "expmech", e->w, state->d,
							state->params.epsilon, state->params.delta, &params);
}

MECHANISM_FINAL_FUNCTION(dpobj_expmech_finalfn,
						 .admit = oracle_admit, .calibrate = expmech_calibrate,
						 .compute = expmech_compute, .release = expmech_release)
