/*-------------------------------------------------------------------------
 *
 * linear.h
 *	  What dp_passglm (passglm.c) shares with dp_linear_regression's final
 *	  function (linear.c): the calibration of a run on the linear state.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_LINEAR_H
#define DPOBJ_LINEAR_H

#include "mechanisms/mechanism.h"
#include "mechanisms/operating.h"
#include "state/linparams.h"

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

#endif							/* DPOBJ_LINEAR_H */
