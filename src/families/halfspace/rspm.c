/*-------------------------------------------------------------------------
 *
 * rspm.c
 *	  RSPM, Report Separator-Perturbed Min:
 *	  dpobj.dp_halfspace_rspm(features, label, epsilon, delta [, options]).
 *
 * Source: Neel, Roth, Vietri, Wu (ICML 2020), Appendix A, Algorithm 3
 * (from Neel, Roth, Wu 2018); docs/ALGORITHMS.md, "RSPM".
 *
 *   W = {-1, 0, 1}^d  (B = 1, no norm constraint: D2 = d)
 *   separator set U = {+e_j, -e_j : j = 1..d}, m = 2d, with the loss
 *   l_e(w) = 1[<w, e> > 0]  (sgn(0) = -1, as everywhere in dpobj)
 *   sigma = 7 sqrt(m ln(1/delta)) / epsilon,  eta ~ N(0, sigma^2)^m
 *   output argmin_{w in W} sum_i l_i(w) + sum_k eta_k l_{e_k}(w)
 *
 * With w one-hot encoded the separator term is separable:
 *   sum_j eta_{j+} [w_j = +1] + eta_{j-} [w_j = -1],
 * which is exactly OPDiscProblem.value_cost (d x 3: costs of w_j = -1, 0,
 * +1), so RSPM reuses the halfspace transition state (halfspacestate.c), the
 * exact oracles and the release-or-fail decision (oracle.c) of
 * dp_halfspace; only the final function differs.  The oracle is chosen from
 * the options alone (docs/ALGORITHMS.md, "Public decisions only": never
 * from n or the distinct rows): "auto" and "search" run the exact search, "mip" runs GLPK and
 * certifies its answer with the search (oracle.c, docs/ORACLE.md).
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpobj.h"

#include <math.h>

#include "families/halfspace/halfspace.h"
#include "families/halfspace/halfspacestate.h"
#include "mechanisms/mechanism.h"
#include "model/model.h"
#include "core/opdisc.h"
#include "families/halfspace/oracle.h"
#include "base/random.h"

#include "utils/jsonb.h"

PG_FUNCTION_INFO_V1(dpobj_rspm_finalfn);

/* The grid of RSPM is fixed: options B and D2 are refused. */
static void
rspm_refuse_grid_options(Jsonb *options)
{
	if (options == NULL || !JB_ROOT_IS_OBJECT(options) || JB_ROOT_IS_SCALAR(options))
		return;
	if (getKeyJsonValueFromContainer(&options->root, "B", 1, NULL) != NULL ||
		getKeyJsonValueFromContainer(&options->root, "D2", 2, NULL) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dp_halfspace_rspm does not take the options \"B\" and \"D2\""),
				 errhint("RSPM's grid is fixed to W = {-1, 0, 1}^d; valid options are Q, oracle, time_limit and sample_rows.")));
}

/* dpobj.train()'s argument check (budget.c, mechanism.h) */
void
rspm_check_args(const char *aggname, double epsilon, double delta, int d,
				Jsonb *options)
{
	HSParams	params;

	hsparams_check_args(aggname, epsilon, delta, d, options);
	rspm_refuse_grid_options(options);
	hsparams_init(&params, epsilon, delta, options);
	(void) hsparams_rspm_sigma(&params, d);
}

/*
 * Step 2 of Algorithm 3: eta ~ N(0, sigma^2)^(2d), one noise value per
 * separator e = +e_j / -e_j, as the cost of w_j = +1 / -1 (0 costs 0).
 */
static double *
rspm_separator_costs(int d, double sigma)
{
	double	   *cost = palloc(sizeof(double) * 3 * d);
	double	   *eta = palloc(sizeof(double) * 2 * d);
	gsl_rng    *rng = dpobj_rng_new();

	/* exact on the lattice of sigma (docs/PRIVACY.md "Lattice noise in an objective") */
	hsparams_draw_noise(rng, sigma, 2 * d, eta);
	for (int j = 0; j < d; j++)
	{
		double		eta_plus = eta[2 * j];	/* e = +e_j */
		double		eta_minus = eta[2 * j + 1]; /* e = -e_j */

		cost[3 * j + 0] = eta_minus;	/* w_j = -1: <w, -e_j> > 0 */
		cost[3 * j + 1] = 0.0;
		cost[3 * j + 2] = eta_plus;		/* w_j = +1: <w, +e_j> > 0 */
	}
	memset(eta, 0, sizeof(double) * 2 * d);
	pfree(eta);
	dpobj_rng_free(rng);
	return cost;
}

/* the released model's public parameters */
static void
rspm_params(StringInfo params, const HSState *state, int d, double sigma,
			DPObjOracle oracle)
{
	model_params_begin(params);
	model_params_text(params, "loss", "zero_one");
	model_params_int(params, "d", d);
	model_params_int(params, "B", 1);
	model_params_int(params, "D2", d);
	model_params_int(params, "m", 2 * d);
	model_params_int(params, "Q", state->params.Q);
	model_params_float(params, "sigma", sigma);
	model_params_text(params, "calibration", dp_calibration_name(state->params.calibration));
	model_params_text(params, "oracle", oracle_used_name(oracle));
	if (state->params.rows_per_unit > 1)
		model_params_int(params, "rows_per_unit", state->params.rows_per_unit);
	model_params_end(params);
}

/* Algorithm 3's sigma, calibrated soundly by default (calibrate.h) */
static void
rspm_calibrate(DPRun *run)
{
	HSState    *state = run->state;

	rspm_refuse_grid_options(state->options);
	oracle_prepare(run, "rspm", 1, state->d, hsparams_rspm_sigma(&state->params, state->d));
}

static void
rspm_compute(DPRun *run)
{
	HSState    *state = run->state;
	int			d = state->d;
	OPDiscProblem problem;
	double	   *cost;

	/* 2. the separators' noise */
	cost = rspm_separator_costs(d, ((OracleRun *) run->work)->sigma);

	/* 3. exact oracle over W = {-1, 0, 1}^d (eta ignored with value_cost) */
	hsstate_problem(state, 1, d, &problem);
	problem.eta = palloc0(sizeof(double) * (d + 1));
	problem.value_cost = cost;
	problem.norm_cost = NULL;
	oracle_solve(run, &problem);

	memset(cost, 0, sizeof(double) * 3 * d);
	pfree(cost);

	/* 4. release only a certified argmin */
	oracle_outcome(run, "dp_halfspace_rspm");
}

static Datum
rspm_release(DPRun *run)
{
	OracleRun  *o = run->work;
	StringInfoData params;

	rspm_params(&params, run->state, ((HSState *) run->state)->d, o->sigma, o->oracle);
	return oracle_release(run, "rspm", &params);
}

MECHANISM_FINAL_FUNCTION(dpobj_rspm_finalfn,
						 .admit = oracle_admit, .calibrate = rspm_calibrate,
						 .compute = rspm_compute, .release = rspm_release)
