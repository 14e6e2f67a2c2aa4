/*-------------------------------------------------------------------------
 *
 * mechanism.h
 *	  What every mechanism's final function shares: claiming the
 *	  protected context and charging the run before any noise is drawn.
 *	  Implemented in mechanism.c (the scanned relations come from
 *	  scanrels.c; mechanism_claim() is declared in claim.h); every
 *	  mechanism calls these two functions in this order:
 *
 *	    pctx = mechanism_claim(fcinfo, has_state, eps, delta, d);
 *	    ...  (empty state on the protected path when no row survived)
 *	    ledger_id = mechanism_charge(fcinfo, pctx, "name", eps, delta);
 *	    ...  only now draw noise
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_MECHANISM_H
#define DPOBJ_MECHANISM_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/jsonb.h"

#include "context/claim.h"
#include "base/clientcheck.h"
#include "context/protected.h"
#include "ledger/ledger.h"
#include "context/trainquery.h"
#include "miscadmin.h"

/*
 * Charges one run durably before any noise exists: the guarded budget
 * debit on the protected path (pctx != NULL), else a plain ledger row
 * naming the scanned relations.  Returns the ledger row id.
 */
extern int64 mechanism_charge(FunctionCallInfo fcinfo, const DPProtectedContext *pctx,
							  const char *mechanism, double epsilon, double delta);
/* the same for a run with "R": "private": its cost is zcdp, not gauss */
extern int64 mechanism_charge_private_r(FunctionCallInfo fcinfo,
										const DPProtectedContext *pctx,
										const char *mechanism, double epsilon,
										double delta);

/*
 * The privacy cost of one run of a mechanism (its name in the ledger:
 * "noisysgd", "output_gauss", ...) at (epsilon, delta), the float8 values
 * the mechanism calibrates with: gauss (every release a discrete Gaussian)
 * with the rho its calibration uses (rounded up), pure with rho =
 * epsilon^2 / 2 (rounded up), else approx.  mechanism_cost_private_r: the
 * same run with "R": "private" (gauss becomes zcdp).
 */
extern void mechanism_cost(const char *mechanism, double epsilon, double delta,
						   LedgerCost *cost);
extern void mechanism_cost_private_r(LedgerCost *cost);

/* the options ask for the private norm bound ("R": "private") */
extern bool mechanism_options_private_r(Jsonb *options);

/*
 * The cost of what dpobj.train()'s mechanism runs with these options:
 * mechanism_cost of its ledger name, zcdp with "R": "private".
 */
extern void mechanism_run_cost(const char *train_mechanism, Jsonb *options,
							   double epsilon, double delta, LedgerCost *cost);

/*
 * The name of what dpobj.train()'s mechanism runs with these options, the
 * one its direct aggregate charges under: "logistic" is objective_gauss,
 * output_gauss or cms by its "method", "logistic_multiclass" the same with
 * "_ovr", "noisysgd_multiclass" noisysgd_ovr, "linear" adassp or ssp,
 * "noisysgd" with "tune" noisysgd_tune (approx); the other names are their own.  mechanism_cost() prices it.
 */
extern const char *mechanism_ledger_name(const char *train_mechanism, Jsonb *options);

/* dpobj.train()'s argument checks, before any row is read (train.c) */
extern void evaluate_check_args(const char *aggname, double epsilon, double delta,
								int d, Jsonb *options);
/*
 * The label evaluate's model is evaluated on (public: from the model in the
 * options): a classifier's boolean, a linear regression's float8 or a
 * multi-class model's class (text).
 */
extern TrainLabel evaluate_label_kind(Jsonb *options);
extern void opsamp_check_args(const char *aggname, double epsilon, double delta,
							  int d, Jsonb *options);
extern void opdisc_check_args(const char *aggname, double epsilon, double delta,
							  int d, Jsonb *options);
extern void rspm_check_args(const char *aggname, double epsilon, double delta,
							int d, Jsonb *options);
extern void expmech_check_args(const char *aggname, double epsilon, double delta,
							   int d, Jsonb *options);
extern void logistic_check_args(const char *aggname, double epsilon, double delta,
								int d, Jsonb *options);
extern void noisysgd_check_args(const char *aggname, double epsilon, double delta,
								int d, Jsonb *options);
extern void linear_check_args(const char *aggname, double epsilon, double delta,
							  int d, Jsonb *options);

/*
 * Interrupt check for a charged run's long loops (between LP solves, SGD
 * steps, grid points): on a cancel, a terminate or a vanished client
 * (clientcheck.h) records the outcome 'cancelled' in the ledger, then
 * raises the pending interrupt.  The budget stays charged.
 */
static inline void
mechanism_poll(int64 ledger_id)
{
	if (dpobj_stop_requested())
	{
		ledger_finish(ledger_id, LEDGER_OUTCOME_CANCELLED, "interrupted");
		CHECK_FOR_INTERRUPTS();
	}
}

#endif							/* DPOBJ_MECHANISM_H */
