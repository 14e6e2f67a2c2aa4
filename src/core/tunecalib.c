/*-------------------------------------------------------------------------
 *
 * tunecalib.c
 *	  Private hyperparameter tuning's calibration, number of runs and its
 *	  score's row counts (tunecalib.h; docs/PRIVACY.md, "Private
 *	  hyperparameter tuning").
 *
 *-------------------------------------------------------------------------
 */
#include "core/tunecalib.h"

#include <math.h>

#include "core/calibrate.h"
#include "core/dpnoise.h"

/* lambda-hat - 1 = 10^(k/64), k = -192 .. 384: calibrate.c's grid of orders */
#define TUNE_GRID_LO	(-192)
#define TUNE_GRID_HI	384

#define Max(a, b)		((a) > (b) ? (a) : (b))
#define Min(a, b)		((a) < (b) ? (a) : (b))

/* 2 rho a + 2 L / (1 + a) at a = 10^(k/64), k clamped to the grid */
static double
tune_extra_at(double rho, double L, int k)
{
	double		am1 = pow(10.0, Max(TUNE_GRID_LO, Min(TUNE_GRID_HI, k)) / 64.0);

	return 2.0 * rho * am1 + 2.0 * L / (1.0 + am1);
}

/*
 * The minimum over the grid.  f(a) = 2 rho a + 2 L / (1 + a) is convex in
 * a > -1, minimal at a* = sqrt(L / rho) - 1, so the grid's minimum is at one
 * of the two orders around a*: a few evaluations near k* = 64 log10(a*)
 * instead of the whole grid (tests/unit/test_tunecalib.c compares both).
 */
double
tune_extra(double rho, double gamma)
{
	double		L = -log(gamma);
	double		astar = rho > 0 ? sqrt(L / rho) - 1.0 : INFINITY;
	double		kf = astar > 0 ? floor(64.0 * log10(astar)) : TUNE_GRID_LO;
	int			k = (int) Max(TUNE_GRID_LO - 2, Min(TUNE_GRID_HI + 2, kf));
	double		best = INFINITY;

	for (int j = k - 2; j <= k + 3; j++)
		best = Min(best, tune_extra_at(rho, L, j));
	return best;
}

double
tune_eps(double rho, double gamma, double delta0)
{
	/* delta0 gamma rounded down: ln(1 / (delta0 gamma)) is never understated */
	double		dg = nextafter(delta0 * gamma, 0.0);

	return zcdp_eps(rho, dg) + tune_extra(rho, gamma);
}

#define TUNE_DOUBLINGS	64
#define TUNE_HALVINGS	200
#define TUNE_BISECT		200

/*
 * Bounded: a rho with tune_eps above eps is found by at most TUNE_DOUBLINGS
 * doublings from eps (each order's bound grows like lambda rho), an
 * admissible one by at most TUNE_HALVINGS halvings (none: NAN, eps too small),
 * then bisection keeps lo admissible.
 */
double
tune_rho(double eps, double gamma, double delta0)
{
	double		lo,
				hi;
	int			i;

	if (!(eps > 0) || !isfinite(eps) || !(gamma > 0 && gamma <= 1) ||
		!(delta0 > 0 && delta0 < 1))
		return NAN;
	hi = eps;
	for (i = 0; i < TUNE_DOUBLINGS && tune_eps(hi, gamma, delta0) <= eps; i++)
		hi *= 2.0;
	if (tune_eps(hi, gamma, delta0) <= eps)
		return NAN;
	lo = hi;
	for (i = 0; i < TUNE_HALVINGS && !(tune_eps(lo, gamma, delta0) <= eps); i++)
		lo *= 0.5;
	if (!(tune_eps(lo, gamma, delta0) <= eps) || !(lo > 0))
		return NAN;
	for (i = 0; i < TUNE_BISECT && hi - lo > 1e-12 * hi; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (tune_eps(mid, gamma, delta0) <= eps)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

int64_t
tune_kmax(double eps, double gamma, double delta_t)
{
	double		target,
				step,
				k;

	if (gamma >= 1.0)
		return 1;
	if (!(gamma > 0) || !(delta_t > 0 && delta_t < 1) || !(eps > 0) || !isfinite(eps))
		return 0;
	/* K ln(1 - gamma) + ln(1 + e^eps) <= ln(delta_t), with a 1e-9 margin */
	target = log(delta_t) - log1p(exp(eps)) - 1e-9;
	step = log1p(-gamma);		/* < 0; 1 - gamma is exact for gamma = num / 2^20 */
	k = ceil(target / step);
	if (k < 1)
		k = 1;
	while (k <= TUNE_MAX_RUNS && k * step > target)
		k += 1;
	return k <= TUNE_MAX_RUNS ? (int64_t) k : 0;
}

uint64_t
tune_gamma_num(double gamma)
{
	double		n = ceil(gamma * (double) TUNE_GAMMA_DEN);

	if (n < 1)
		n = 1;
	if (n > (double) TUNE_GAMMA_DEN)
		n = (double) TUNE_GAMMA_DEN;
	return (uint64_t) n;
}

int
tune_stop(gsl_rng *rng, uint64_t gamma_num)
{
	return dpnoise_bernoulli(rng, gamma_num, TUNE_GAMMA_DEN);
}

int64_t
tune_geometric(gsl_rng *rng, uint64_t gamma_num, int64_t kmax)
{
	int64_t		k = 1;

	while (k < kmax && !tune_stop(rng, gamma_num))
		k++;
	return k;
}

int64_t
tune_row_count(double cnt, double w)
{
	return (int64_t) llround(fmin(cnt / w, ldexp(1.0, TUNE_ROW_COUNT_BITS)));
}
