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

#include "state/linparams.h"

/*
 * The calibration of a run (p->method's releases at rho = zcdp_rho(eps,
 * delta), k-fold for p->rows_per_unit), or a public refusal (54000) before
 * any charge, named after dp_passglm or dp_linear_regression by p->passglm.
 */
extern void linear_calibrate(const LinParams *p, LinRegCalibration *c);

#endif							/* DPOBJ_LINEAR_H */
