/*-------------------------------------------------------------------------
 *
 * halfspaceparams.h
 *	  Public parameters of the halfspace mechanisms (dp_halfspace,
 *	  dp_halfspace_rspm, dp_expmech): privacy parameters and the jsonb
 *	  options B, D2, Q, oracle, time_limit, sample_rows.  Fixed by the first row (or by
 *	  dpobj.train() before any row); never computed from the data.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_HALFSPACEPARAMS_H
#define DPOBJ_HALFSPACEPARAMS_H

#include "base/dpobj.h"

#include "base/options.h"
#include "core/calibrate.h"

#include <gsl/gsl_rng.h>

#include "utils/jsonb.h"

typedef struct HSParams
{
	double		epsilon;
	double		delta;
	int			B;				/* box bound, -1 = the default grid's */
	int			D2;				/* norm^2 bound, -1 = the default grid's */
	int			Q;				/* feature quantum 1/Q */
	DPObjOracle oracle;
	double		time_limit;		/* seconds; < 0 = use dpobj.solver_time_limit */
	DPCalibration calibration;	/* sound (default) or the paper's sigma */
	int			rows_per_unit;	/* neighbours differ in up to this many rows */
	int			sample_rows;	/* at most this many rows reach the oracle; 0: the cap's */
} HSParams;

/* the options and their defaults (B, D2 -1: the default grid's; time_limit -1:
 * dpobj.solver_time_limit; oracle: the setting dpobj.oracle) */
extern const DPOptionSpec hsparams_options[];

/* Defaults, then the options (if not NULL); raises on a bad option. */
extern void hsparams_init(HSParams *params, double epsilon, double delta,
						  Jsonb *options);

/* d <= DPOBJ_HALFSPACE_MAX_DIM, or an error naming aggname */
extern void hsparams_check_dimension(const char *aggname, int d);

/*
 * Validates the run-wide arguments the way the first row would (privacy
 * parameters, dimension, options), without any row: dpobj.train() calls it
 * before it scans anything, so that argument errors come first.
 */
extern void hsparams_check_args(const char *aggname, double epsilon,
								double delta, int d, Jsonb *options);

/*
 * The noise scale of OPDisc / RSPM for these parameters (calibrate.h),
 * or an error (before any charge: it depends on public inputs only) when
 * no sigma can be calibrated.
 */
extern double hsparams_opdisc_sigma(const HSParams *params, int d);
extern double hsparams_rspm_sigma(const HSParams *params, int d);
/* n values of Gaussian noise of scale sigma, exact on its lattice (dpnoise.h) */
extern void hsparams_draw_noise(gsl_rng *rng, double sigma, int n, double *out);

/*
 * epsilon / rows_per_unit rounded down: the pure-epsilon mechanism whose
 * score changes by at most 1 per row spends it on a k-row change.
 */
extern double hsparams_unit_epsilon(const HSParams *params);

/* "rows_per_unit" into the model's params (nothing for row-level runs) */
/* B and D2 with the defaults filled in (opdisc_default_grid(), opdisc.h; the
 * paper's grid under the MIP oracle) */
extern void hsparams_resolve(const HSParams *params, int d, int *B, int *D2);

#endif							/* DPOBJ_HALFSPACEPARAMS_H */
