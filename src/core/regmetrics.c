/*-------------------------------------------------------------------------
 *
 * regmetrics.c
 *	  Private evaluation of a regression model: row contributions, noise
 *	  calibration and metrics (regmetrics.h).
 *
 * The intervals are normal approximations by the delta method: the
 * sampling variance of each mean, bounded through the clamping where the
 * fourth moment is not released (e^4 <= W^2 e^2), plus the variance of the
 * noise on every sum the estimate uses.  The covariance of the error and
 * the label variance in R^2 is left out, which widens the interval when
 * they are positively correlated, as they usually are.
 *
 *-------------------------------------------------------------------------
 */
#include "core/regmetrics.h"

#include <math.h>

#define REGM_Z95 1.959963984540054
#define REGM_GRID ((double) (1 << REGM_GRID_BITS))

/* the denominator of the noise scale: the scale is a multiple of 1/128 */
#define REGM_SCALE_DEN 128

static double
clamp(double x, double lo, double hi)
{
	return x < lo ? lo : (x > hi ? hi : x);
}

void
regmetrics_row(double y, long double pred, double y_min, double y_max, double *t)
{
	double		w = y_max - y_min;
	double		h = w / 2;
	double		c = y_min + h;
	double		yc = clamp(y, y_min, y_max);
	double		pc = pred < (long double) y_min ? y_min :
		(pred > (long double) y_max ? y_max : (double) pred);
	double		e = fabs(yc - pc) / w;
	double		v = clamp((yc - c) / h, -1.0, 1.0);

	e = clamp(e, 0.0, 1.0);
	t[REGM_N] = REGM_GRID;
	t[REGM_ABS] = rint(e * REGM_GRID);
	t[REGM_SQ] = rint(e * e * REGM_GRID);
	t[REGM_Y] = rint(v * REGM_GRID);
	t[REGM_YY] = rint(v * v * REGM_GRID);
}

void
regmetrics_calibrate(double epsilon, RegMetricsCalibration *c)
{
	double		b;
	double		q;
	int			m = (int) floor(log2(epsilon * 65536.0 / REGM_NSUMS));

	/* the noise is 2^16 to 2^17 lattice units, the lattice no finer than the grid */
	c->lattice_bits = m < 0 ? 0 : (m > REGM_GRID_BITS ? REGM_GRID_BITS : m);
	c->l1 = (uint64_t) REGM_NSUMS * ((uint64_t) 1 << c->lattice_bits) + REGM_NSUMS;
	c->den = REGM_SCALE_DEN;
	/* + 1: the floating-point quotient never rounds the scale below l1 / epsilon */
	c->num = (uint64_t) ceil((double) c->l1 * REGM_SCALE_DEN / epsilon) + 1;
	c->eps_used = (double) c->l1 * c->den / (double) c->num;
	b = (double) c->num / c->den;
	q = exp(-1.0 / b);
	c->noise_var = 2 * q / ((1 - q) * (1 - q)) / ldexp(1.0, 2 * c->lattice_bits);
}

int64_t
regmetrics_snap(double sum, const RegMetricsCalibration *c)
{
	return (int64_t) rint(ldexp(sum, c->lattice_bits - REGM_GRID_BITS));
}

static void
estimate(RegEstimate *r, double est, double var, double lo, double hi)
{
	double		half = REGM_Z95 * sqrt(var > 0 ? var : 0);

	r->valid = true;
	r->estimate = clamp(est, lo, hi);
	r->lo = clamp(est - half, lo, hi);
	r->hi = clamp(est + half, lo, hi);
}

/* variance of s2 = T/n - (S/n)^2: sampling (|y| <= 1) and noise on T, S, n */
static double
label_var_var(double n, double s, double t, double s2, double v)
{
	double		dn = t / (n * n) - 2 * s * s / (n * n * n);
	double		samp = (4 * s2 - s2 * s2) / n;

	return (samp > 0 ? samp : 0) +
		v * (1 / (n * n) + 4 * s * s / (n * n * n * n) + dn * dn);
}

void
regmetrics_compute(const double *sums, double v, double y_min, double y_max,
				   RegMetrics *out)
{
	double		n = sums[REGM_N];
	double		w = y_max - y_min;
	double		h = w / 2;
	double		mae,
				mse,
				mean,
				s2,
				var_mse,
				var_r2;
	RegEstimate msei;

	*out = (RegMetrics) {.n = n, .label_sd = NAN};
	if (!(n >= 2))
		return;
	mae = clamp(sums[REGM_ABS] / n, 0, 1);
	mse = clamp(sums[REGM_SQ] / n, 0, 1);
	mean = clamp(sums[REGM_Y] / n, -1, 1);
	s2 = clamp(sums[REGM_YY] / n - mean * mean, 0, 1);

	estimate(&out->mae, mae * w, w * w * (fmax(mse - mae * mae, 0) / n +
										  v * (1 + mae * mae) / (n * n)), 0, w);
	var_mse = fmax(mse - mse * mse, 0) / n + v * (1 + mse * mse) / (n * n);
	estimate(&msei, mse, var_mse, 0, 1);
	out->rmse = (RegEstimate) {true, w * sqrt(msei.estimate), w * sqrt(msei.lo),
	w * sqrt(msei.hi)};
	estimate(&out->label_mean, y_min + h + h * mean,
			 h * h * (s2 / n + v * (1 + mean * mean) / (n * n)), y_min, y_max);
	out->label_sd = h * sqrt(s2);
	if (s2 <= 0)
		return;
	/* R^2 = 1 - MSE / var(y) = 1 - 4 mse / s2 in these units */
	var_r2 = 16 * (var_mse / (s2 * s2) +
				   mse * mse * label_var_var(n, sums[REGM_Y], sums[REGM_YY], s2, v) /
				   (s2 * s2 * s2 * s2));
	estimate(&out->r2, 1 - 4 * mse / s2, var_r2, -INFINITY, 1);
}
