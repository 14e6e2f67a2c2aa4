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
 * Order of operations in the final function (mechanism_drive(),
 * docs/ARCHITECTURE.md):
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
#include "families/halfspace/halfspace.h"
#include "families/halfspace/halfspacestate.h"
#include "mechanisms/family.h"
#include "ledger/ledger.h"
#include "mechanisms/mechanism.h"
#include "model/model.h"
#include "core/opdisc.h"
#include "families/halfspace/oracle.h"
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

/* Algorithm 1's sigma, calibrated soundly by default (calibrate.h) */
static void
halfspace_calibrate(DPRun *run)
{
	HSState    *state = run->state;
	int			B,
				D2;

	hsparams_resolve(&state->params, state->d, &B, &D2);
	oracle_prepare(run, "opdisc", B, D2, hsparams_opdisc_sigma(&state->params, state->d));
}

static void
halfspace_compute(DPRun *run)
{
	HSState    *state = run->state;
	OracleRun  *o = run->work;
	int			d = state->d;
	OPDiscProblem problem;
	double	   *eta;

	/*
	 * 2. eta = g N_Z(0, s^2)^(d+1), exact on the lattice of sigma (Algorithm
	 * 1's N(0, sigma^2) on a lattice: docs/PRIVACY.md "Lattice noise in an
	 * objective")
	 */
	eta = palloc(sizeof(double) * (d + 1));
	hsparams_draw_noise(run->rng, o->sigma, d + 1, eta);

	/* 3. exact oracle on the deduplicated, quantised rows */
	hsstate_problem(state, o->B, o->D2, &problem);
	problem.eta = eta;
	oracle_solve(run, &problem);

	/* the noise must not outlive the solve */
	memset(eta, 0, sizeof(double) * (d + 1));
	pfree(eta);

	/* 4. release only a certified argmin; the ledger records the outcome */
	oracle_outcome(run, "dp_halfspace");
}

/* public parameters only: nothing here is computed from the rows */
static Datum
halfspace_release(DPRun *run)
{
	HSState    *state = run->state;
	OracleRun  *o = run->work;
	StringInfoData params;

	model_params_begin(&params);
	model_params_text(&params, "loss", "zero_one");
	model_params_int(&params, "d", state->d);
	model_params_int(&params, "tau", 1);
	model_params_int(&params, "B", o->B);
	model_params_int(&params, "D2", o->D2);
	model_params_int(&params, "Q", state->params.Q);
	model_params_float(&params, "sigma", o->sigma);
	model_params_text(&params, "calibration", dp_calibration_name(state->params.calibration));
	model_params_text(&params, "oracle", oracle_used_name(o->oracle));
	if (state->params.rows_per_unit > 1)
		model_params_int(&params, "rows_per_unit", state->params.rows_per_unit);
	model_params_end(&params);
	return oracle_release(run, "opdisc", &params);
}

MECHANISM_FINAL_FUNCTION(dpobj_halfspace_finalfn,
						 .admit = oracle_admit, .calibrate = halfspace_calibrate,
						 .compute = halfspace_compute, .release = halfspace_release)

/*
 * the family's descriptor (mechanisms/family.h); on Citus a sample of a
 * public K; its models the lattice kind
 */
static const DPMechanism halfspace_mechanisms[] = {HALFSPACE_FAMILY_MECHANISMS};

const DPFamily halfspace_family = DP_FAMILY(halfspace, halfspace_mechanisms,
											.citus_options = hsstate_citus_options,
											.model_kind = &halfspace_model_kind);
