/*
 * test_aggquant.c -- dpobj.aggregate()'s quantile intervals (src/core/aggquant.c)
 * by simulation of the two noisy histograms' exact law:
 * (a) a table where one edge alone decides the lower end (a block of rows ending
 *     exactly at rank t, the next rows far above): the end errs with probability
 *     <= 2.5 % and not much less (the tail is the noise law's, not a loose bound),
 *     on flat and two-level shapes, an edge inside a coarse bin and on its edge, and
 *     with noise so wide that the law is floored to blocks;
 * (b) on dense, gappy and tied tables, every q: coverage >= 95 % (up to the
 *     simulation's error), the estimate inside the interval, the interval ordered;
 * (c) the reach: one end's 97.5 % point in ranks, shrinking as the noise narrows.
 * Prints "N passed, M failed".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/aggquant.h"
#include "unitcheck.h"

static double
uniform(void)
{
	return ((double) (unitcheck_next64() >> 11) + 0.5) * 0x1p-53;
}

/* discrete Laplace of rate r: the difference of two geometric variables */
static double
dlap(double r)
{
	double		a = floor(log(uniform()) / -r),
				b = floor(log(uniform()) / -r);

	return a - b;
}

/* the noisy leaves and coarse bins of true leaf counts h */
static void
noisy(const AggquantShape *s, const double *h, double *leaf, double *coarse)
{
	int			nc = aggquant_ncoarse(s);

	for (int c = 0; c < nc; c++)
		coarse[c] = 0;
	for (int k = 0; k < s->nleaves; k++)
	{
		leaf[k] = h[k] + dlap(s->rate_leaf);
		if (nc > 0)
			coarse[k / s->group] += h[k];
	}
	for (int c = 0; c < nc; c++)
		coarse[c] += dlap(s->rate_coarse);
}

/* the leaf holding rank t of h */
static int
leaf_of_rank(const double *h, int B, double t)
{
	double		c = 0;

	for (int k = 0; k < B; k++)
		if ((c += h[k]) >= t)
			return k;
	return B - 1;
}

/*
 * over runs, the fraction of intervals whose lower end is above x_(t)'s leaf,
 * whose upper end is below it, or which miss the estimate
 */
static void
simulate(const AggquantShape *s, const double *h, double q, int runs, double *low_err,
		 double *high_err, int *bad_shape)
{
	AggquantLaw *law = aggquant_law_new(s);
	double	   *leaf = malloc(sizeof(double) * s->nleaves),
			   *coarse = malloc(sizeof(double) * (aggquant_ncoarse(s) + 1)),
				n = 0;
	int			j;

	for (int k = 0; k < s->nleaves; k++)
		n += h[k];
	j = leaf_of_rank(h, s->nleaves, ceil(q * n));
	*low_err = *high_err = 0;
	*bad_shape = 0;
	for (int r = 0; r < runs; r++)
	{
		int			lo,
					hi,
					el,
					eh;

		noisy(s, h, leaf, coarse);
		aggquant_interval(law, leaf, coarse, q, 0.025, &lo, &hi, &el, &eh);
		*low_err += lo > j;
		*high_err += hi <= j;
		*bad_shape += !(0 <= lo && lo <= el && el < eh && eh <= hi && hi <= s->nleaves);
	}
	*low_err /= runs;
	*high_err /= runs;
	aggquant_law_free(law);
	free(leaf);
	free(coarse);
}

/*
 * n / 2 rows in leaf a, n / 2 in leaf far above: the median's lower end errs iff the
 * test at edge a + 1 (no slack: exactly t rows below it) rejects
 */
static void
check_tight(int B, int group, double rate, int a, const char *what)
{
	AggquantShape s = {B, group, rate, rate};
	double	   *h = calloc(B, sizeof(double)),
				lo,
				hi,
				half = floor(800 / rate);
	int			bad,
				runs = 10000;

	h[a] = half;
	h[B - 1] = half;
	simulate(&s, h, 0.5, runs, &lo, &hi, &bad);
	CHECK(lo <= 0.025 + 3.5 * sqrt(0.025 * 0.975 / runs),
		  "%s: the lower end errs w.p. %g > 2.5 %%", what, lo);
	CHECK(lo >= 0.017, "%s: the lower end errs w.p. %g, far below 2.5 %%: not the exact tail", what, lo);
	CHECK(hi == 0, "%s: the upper end errs (%g) though no test can", what, hi);
	CHECK(bad == 0, "%s: %d intervals misordered or missing the estimate", what, bad);
	free(h);
}

/* dense, gappy and tied tables of n rows over B leaves: coverage >= 95 % at every q */
static void
check_coverage(int B, int group, double rate, const char *what)
{
	AggquantShape s = {B, group, rate, rate};
	double	   *h = calloc(B, sizeof(double)),
				qs[] = {0.1, 0.5, 0.75},
				n = 30 / rate * 20;
	int			runs = 1000;

	for (int table = 0; table < 3; table++)
	{
		for (int k = 0; k < B; k++)
			h[k] = table == 0 ? floor(n / B) :
				table == 1 ? ((k / (B / 8)) % 2 == 0 ? floor(2 * n / B) : 0) :
				(k % 7 == 3 ? floor(7 * n / B) : 0);
		for (int i = 0; i < 3; i++)
		{
			double		lo,
						hi;
			int			bad;

			simulate(&s, h, qs[i], runs, &lo, &hi, &bad);
			CHECK(lo + hi <= 0.05 + 3.5 * sqrt(0.05 * 0.95 / runs),
				  "%s, table %d, q %g: coverage %g < 95 %%", what, table, qs[i], 1 - lo - hi);
			CHECK(bad == 0, "%s, table %d, q %g: %d intervals misordered", what, table, qs[i], bad);
		}
	}
	free(h);
}

static void
check_reach(void)
{
	double		prev = INFINITY;

	for (double rate = 0.001; rate < 2; rate *= 3)
	{
		AggquantShape s = {256, 16, rate, rate};
		AggquantLaw *law = aggquant_law_new(&s);
		double		reach = aggquant_reach(law, 0.5, 0.025),
					sd = sqrt(0.25 * 31 * 2 * exp(-rate)) / -expm1(-rate);

		CHECK(reach <= prev, "reach grows as the noise narrows (rate %g: %g after %g)", rate, reach, prev);
		CHECK(reach >= 1.9 * sd - 1 && reach <= 2.6 * sd + 1,
			  "rate %g: reach %g is not the 97.5 %% point of a noise of sd %g", rate, reach, sd);
		prev = reach;
		aggquant_law_free(law);
	}
}

int
main(void)
{
	/* flat 64 leaves; two-level 256 (16 x 16): an edge inside a coarse bin, one on its edge */
	check_tight(64, 64, 0.05, 20, "flat");
	check_tight(256, 16, 0.05, 100, "two-level, inside a coarse bin");
	check_tight(256, 16, 0.05, 111, "two-level, on a coarse edge");
	/* noise past 2^15 lattice points: the law floored to blocks */
	check_tight(256, 16, 0.0004, 100, "two-level, floored law");
	check_coverage(64, 64, 0.02, "flat");
	check_coverage(256, 16, 0.02, "two-level");
	check_reach();
	return unitcheck_report();
}
