/*-------------------------------------------------------------------------
 *
 * regmetrics.h
 *	  Private evaluation of a linear regression model, plain C (no
 *	  PostgreSQL header; unit-tested in tests/unit/test_regmetrics.c): what
 *	  one row adds to the five sums, the calibration of their discrete
 *	  Laplace noise, and the metrics (MAE, RMSE, R^2 with approximate 95 %
 *	  intervals) computed from the noisy sums only.  Derivation:
 *	  docs/PRIVACY.md "Private evaluation of a regression".
 *
 * Units.  With the model's public label range [a, b], W = b - a, centre
 * c = (a + b) / 2: the label y and the prediction p are clamped to
 * [a, b], e = y - p, and a row adds
 *	  1, |e| / W, (e / W)^2, (y - c) / (W / 2), ((y - c) / (W / 2))^2
 * each rounded to the grid 2^-REGM_GRID_BITS and kept as an integer
 * number of grid units (exact in a double below 2^53, i.e. for fewer
 * than 2^33 rows), so the sums do not depend on the order of the rows.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_REGMETRICS_H
#define DPOBJ_REGMETRICS_H

#include <stdbool.h>
#include <stdint.h>

#define REGM_GRID_BITS	20
#define REGM_NSUMS		5

/* the sums, in this order */
enum
{
	REGM_N, REGM_ABS, REGM_SQ, REGM_Y, REGM_YY
};

/* a row's contributions in grid units; y finite, pred any (long double) value */
extern void regmetrics_row(double y, long double pred, double y_min, double y_max,
						   double *t);

/*
 * The calibration at epsilon (2^-20 <= epsilon <= 2048; public).  The sums
 * are snapped to the lattice 2^-lattice_bits (0 <= lattice_bits <=
 * REGM_GRID_BITS); replacing, adding or removing one row changes the
 * snapped vector by at most l1 = 5 2^lattice_bits + 5 lattice units, and
 * each snapped sum gets discrete Laplace noise of scale num / den >= l1 /
 * epsilon, so the release is eps_used-DP, eps_used = l1 den / num <=
 * epsilon.
 */
typedef struct RegMetricsCalibration
{
	int			lattice_bits;
	uint64_t	l1;
	uint64_t	num;
	uint64_t	den;
	double		eps_used;
	double		noise_var;		/* of one noisy sum, normalised units^2 */
} RegMetricsCalibration;

extern void regmetrics_calibrate(double epsilon, RegMetricsCalibration *c);

/* an exact sum (grid units) rounded to the lattice: an integer of lattice units */
extern int64_t regmetrics_snap(double sum, const RegMetricsCalibration *c);

/* an estimate with its approximate 95 % interval; valid false: no estimate */
typedef struct RegEstimate
{
	bool		valid;
	double		estimate;
	double		lo;
	double		hi;
} RegEstimate;

typedef struct RegMetrics
{
	double		n;				/* the noisy row count */
	RegEstimate mae;
	RegEstimate rmse;
	RegEstimate r2;
	RegEstimate label_mean;
	double		label_sd;		/* NAN without an estimate */
} RegMetrics;

/*
 * The metrics from the noisy sums (normalised units: lattice units times
 * 2^-lattice_bits) -- post-processing only.  No estimate below n = 2.
 */
extern void regmetrics_compute(const double *sums, double noise_var, double y_min,
							   double y_max, RegMetrics *out);

#endif							/* DPOBJ_REGMETRICS_H */
