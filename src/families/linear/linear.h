/*-------------------------------------------------------------------------
 *
 * linear.h
 *	  The linear family (docs/ARCHITECTURE.md, "Families"): private linear
 *	  regression (linear.c, AdaSSP and SSP) and passglm (passglm.c, a
 *	  logistic model from the same moments), over one state of sums of a
 *	  public size (linearstate.c, options in linearparams.c and
 *	  passglmparams.c).  What passglm shares with linear regression's final
 *	  function: the calibration of a run on the linear state.  Its entries:
 *	  linear_check_args, linear_ledger_pick and LINEAR_FAMILY_MECHANISMS,
 *	  of linear_family (linear.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_LINEAR_H
#define DPOBJ_LINEAR_H

#include "mechanisms/mechanism.h"
#include "mechanisms/operating.h"
#include "families/linear/linearparams.h"
#include "families/linear/passglmparams.h"

/* a run's calibration and buffers (DPRun.work) */
typedef struct LinearWork
{
	LinRegCalibration c;
	double	   *tri;			/* sum u u^T, packed; then released */
	double	   *b;				/* sum u v; then released */
	double	   *phi;			/* the solve's coefficients, normalised */
	OpRun		op;				/* dp_passglm's operating point */
} LinearWork;

/*
 * The calibration of a run (p->method's releases at rho = zcdp_rho(eps,
 * delta), k-fold for p->rows_per_unit), or a public refusal (54000) before
 * any charge, named after dp_passglm or dp_linear_regression by p->passglm.
 */
extern void linear_calibrate(const LinParams *p, LinRegCalibration *c);

/* the driver's steps (mechanism.h) on the linear state: admit, calibrate */
extern void *linear_admit(FunctionCallInfo fcinfo, int passglm, DPProtectedContext **pctx);
extern void linear_prepare(DPRun *run);

/*
 * After the charge: the snapped releases of sum u u^T and sum u v
 * (AdaSSP: and lambda_min first), then the solve into work->phi with
 * AdaSSP's ridge, else ridge; a failure of the linear algebra is the
 * run's outcome 'failed'.
 */
extern void linear_solve(DPRun *run, double ridge);

/* dp_linear_regression's and dp_passglm's argument check (their registry entries) */
extern void linear_check_args(const char *aggname, double epsilon, double delta,
							  int d, Jsonb *options);

/* linear regression's ledger name by its "method": adassp (0, the default) or ssp (1) */
extern int	linear_ledger_pick(Jsonb *options);

/* The family's entries (DPMechanism, mechanisms/family.h; in linear_family, linear.c) */
#define LINEAR_FAMILY_MECHANISMS \
	{.name = "linear", .aggregate = "dpobj.dp_linear_regression", \
		.aggregate_args = "dpobj.dp_linear_regression_cols", .aggname = "dp_linear_regression", \
		.check_args = linear_check_args, .label_kind = TRAIN_LABEL_REAL, \
		.model_kind = MODEL_KIND_REGRESSION, .parallel = true, \
		.r_norm = 2, .options = linparams_options, \
		.ledger = DP_LEDGER({"adassp", LEDGER_COST_GAUSS}, \
							{"ssp", LEDGER_COST_GAUSS, "\"method\": \"ssp\""}), \
		.ledger_pick = linear_ledger_pick}, \
	/* one-pass logistic regression on linear regression's state (passglm.c) */ \
	{.name = "passglm", .aggregate = "dpobj.dp_passglm", \
		.aggregate_args = "dpobj.dp_passglm_cols", .aggname = "dp_passglm", \
		.check_args = linear_check_args, .model_kind = MODEL_KIND_LINEAR, .parallel = true, \
		.r_norm = 2, .options = linparams_options, \
		.ledger = DP_LEDGER({"passglm", LEDGER_COST_GAUSS})}

#endif							/* DPOBJ_LINEAR_H */
