/*-------------------------------------------------------------------------
 *
 * halfspace.c
 *	  The OPDisc aggregate dpobj.dp_halfspace(features, label, epsilon,
 *	  delta [, options]): finalize = charge, draw noise, solve exactly,
 *	  release.
 *
 * Source: Neel, Roth, Vietri, Wu (ICML 2020), Algorithm 1 (OPDisc) with
 * tau = 1, G = 1/tau, default grid opdisc_default_grid() (D^2 = min(d, 4))
 * (docs/ALGORITHMS.md, "OPDisc").
 *
 * Order of operations in the final function (docs/ARCHITECTURE.md):
 *   1. the ledger debit is committed autonomously (ledger.c);
 *   2. only then is eta ~ N(0, sigma^2)^(d+1) drawn (random.c);
 *   3. the exact oracle solves argmin_w L(D, w) - <eta, pi(w)> (oracle.c);
 *   4. the model is released only if optimality is certified, and the
 *      outcome is recorded in the ledger either way.
 *
 * On the protected path (inside dpobj.train(), see protected.h) step
 * 1 is the guarded debit of the analyst's (table, role) budget instead of
 * a plain ledger row, the protected context is consumed here (once, and
 * only if the relations scanned below this aggregate are the protected
 * table or its inheritance children), and a run whose rows were all
 * dropped still runs on the empty set: the output does not reveal that.
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpobj.h"

#include <math.h>

#include "context/protected.h"
#include "state/hsstate.h"
#include "ledger/ledger.h"
#include "mechanisms/mechanism.h"
#include "model/model.h"
#include "core/opdisc.h"
#include "mechanisms/oracle.h"
#include "base/random.h"

#include "lib/stringinfo.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(dpobj_halfspace_finalfn);
/* dpobj.train()'s argument check (train.c, mechanism.h): also the noise scale */
void
opdisc_check_args(const char *aggname, double epsilon, double delta, int d,
				  Jsonb *options)
{
	HSParams	params;

	hsparams_check_args(aggname, epsilon, delta, d, options);
	hsparams_init(&params, epsilon, delta, options);
	(void) hsparams_opdisc_sigma(&params, d);
}

Datum
dpobj_halfspace_finalfn(PG_FUNCTION_ARGS)
{
	HSState    *state;
	OPDiscProblem problem;
	OPDiscResult result;
	DPObjOracle oracle;
	double		time_limit;
	double		sigma;
	double	   *eta;
	int			B;
	int			D2;
	int			d;
	int64		ledger_id;
	gsl_rng    *rng;
	StringInfoData params;
	DPProtectedContext *pctx = NULL;

	state = hsstate_final_begin(fcinfo, &pctx);
	if (state == NULL)
		PG_RETURN_NULL();		/* no rows, direct path: nothing runs */
	d = state->d;
	hsparams_resolve(&state->params, state->d, &B, &D2);

	oracle = state->params.oracle == DPOBJ_ORACLE_MIP ? DPOBJ_ORACLE_MIP : DPOBJ_ORACLE_SEARCH;
	time_limit = state->params.time_limit >= 0 ? state->params.time_limit : dpobj_solver_time_limit;
	/* Algorithm 1's sigma, calibrated soundly by default (calibrate.h) */
	sigma = hsparams_opdisc_sigma(&state->params, d);

	/* 1. charge first: durable before any noise exists */
	ledger_id = mechanism_charge(fcinfo, pctx, "opdisc",
								 state->params.epsilon, state->params.delta);

	/*
	 * 2. eta = g N_Z(0, s^2)^(d+1), exact on the lattice of sigma (Algorithm
	 * 1's N(0, sigma^2) on a lattice: docs/PRIVACY.md "Lattice noise in an
	 * objective")
	 */
	eta = palloc(sizeof(double) * (d + 1));
	rng = dpobj_rng_new();
	hsparams_draw_noise(rng, sigma, d + 1, eta);
	dpobj_rng_free(rng);

	/* 3. exact oracle on the deduplicated, quantised rows */
	hsstate_problem(state, B, D2, &problem);
	problem.eta = eta;
	memset(&result, 0, sizeof(result));
	result.w = palloc0(sizeof(int) * d);
	oracle = oracle_solve_opdisc(&problem, &result, oracle, time_limit);

	/* the noise must not outlive the solve */
	memset(eta, 0, sizeof(double) * (d + 1));
	pfree(eta);

	/* 4. release only a certified argmin; the ledger records the outcome */
	oracle_release_or_fail(&result, ledger_id, "dp_halfspace", oracle, time_limit);

	/* public parameters only: nothing here is computed from the rows */
	model_params_begin(&params);
	model_params_text(&params, "loss", "zero_one");
	model_params_int(&params, "d", d);
	model_params_int(&params, "tau", 1);
	model_params_int(&params, "B", B);
	model_params_int(&params, "D2", D2);
	model_params_int(&params, "Q", state->params.Q);
	model_params_float(&params, "sigma", sigma);
	model_params_text(&params, "calibration", dp_calibration_name(state->params.calibration));
	model_params_text(&params, "oracle", oracle_used_name(oracle));
	if (state->params.rows_per_unit > 1)
		model_params_int(&params, "rows_per_unit", state->params.rows_per_unit);
	model_params_end(&params);

	PG_RETURN_DATUM(model_build_grid(fcinfo, "opdisc", result.w, d,
									 state->params.epsilon, state->params.delta, &params));
}
