/*
 * test_aggci.c -- dpobj.aggregate()'s intervals (src/core/aggci.c): the
 * discrete Laplace half-width against its law; a mean's and a variance's
 * intervals ordered, holding the estimate, within the declared bounds (a
 * noisy sum far outside them included); a mean's exact coverage over the
 * noises' joint law >= 95 % and below the old split's; the accuracy a
 * bound of the runs' spread at the noise law's centre.
 */
#include <math.h>
#include <stdio.h>

#include "core/aggci.h"
#include "unitcheck.h"

/* P(Y = y), Y discrete Laplace of rate r */
static double
pmf(double r, double y)
{
	return -expm1(-r) / (1 + exp(-r)) * exp(-r * fabs(y));
}

static double
uniform(void)
{
	return (double) (unitcheck_next64() >> 11) * 0x1p-53;
}

static void
check_halfwidth(void)
{
	double		rates[] = {1e-3, 0.01, 0.3, 1, 5, 40};

	for (int i = 0; i < 6; i++)
		for (int j = 0; j < 3; j++)
		{
			double		alpha = (double[]) {0.05, 0.025, 0.05 / 3}[j],
						r = rates[i],
						h = aggci_halfwidth(r, alpha),
						out = 2 * exp(-r * (h + 1)) / (1 + exp(-r));	/* P(|Y| > h) */

			CHECK(out <= alpha * (1 + 1e-12), "halfwidth(%g, %g) = %g misses: %g", r, alpha, h, out);
			CHECK(h == 0 || 2 * exp(-r * h) / (1 + exp(-r)) > alpha,
				  "halfwidth(%g, %g) = %g is not the least", r, alpha, h);
		}
}

/* ordered, holds the estimate, within [lo, hi]: on random and extreme noisy values */
static void
check_mean_shape(void)
{
	AggciColumn cols[] = {{0, 100, 100 / 16384.0}, {17, 90, 90 / 16384.0}, {-5, 3, 5 / 16384.0}};
	double		rates[][2] = {{1.0 / 196608, 1.0 / 12}, {1e-6, 1e-2}, {1e-3, 10}, {1e-9, 1e-5}};
	double		sums[] = {1e9, -1e9, 3e12, 0, 1, -7};

	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 4; j++)
			for (int t = 0; t < 60; t++)
			{
				const AggciColumn *c = &cols[i];
				double		C = t < 6 ? (double[]) {1, 2, 10, 0.5, 3, 1e6}[t] : floor(uniform() * 1e4) + 1,
							S = t < 6 ? sums[t] : floor((uniform() * 3 - 1) * C * c->hi / c->step),
							est,
							lo,
							hi;

				if (!aggci_mean(c, S, C, rates[j][0], rates[j][1], &est, &lo, &hi))
				{
					CHECK(false, "mean(S %g, C %g) gave no estimate", S, C);
					continue;
				}
				CHECK(c->lo <= lo && lo <= est && est <= hi && hi <= c->hi,
					  "mean(S %g, C %g, col %d, rates %d): %g <= [%g, %.17g, %g] <= %g",
					  S, C, i, j, c->lo, lo, est, hi, c->hi);
			}
	for (int t = 0; t < 4; t++)
	{
		double		C = (double[]) {0, -1, -40, -1e6}[t],
					est = -1,
					lo = 200,
					hi = -200;

		CHECK(!aggci_mean(&cols[0], (double[]) {5, 1e9, -1e9, 8000}[t], C, 1e-3, 1, &est, &lo, &hi) &&
			  est == -1 && 0 <= lo && lo <= hi && hi <= 100,
			  "a count %g: no estimate, an interval [%g, %g] in [0, 100]", C, lo, hi);
	}
}

/*
 * The exact coverage of a mean's lattice interval on one table (n values,
 * lattice sum s): the joint law of the two noises summed over a window
 * holding all but < 1e-8 of it.
 */
static double
mean_coverage(double lo, double hi, double n, double s, double rs, double rc)
{
	double		cover = 0,
				ks = ceil(log(2e9) / rs),
				kc = ceil(log(2e9) / rc);

	for (double zc = -kc; zc <= kc; zc++)
		for (double zs = -ks; zs <= ks; zs++)
		{
			double		ml,
						mh;

			if (aggci_mean_lattice(s + zs, n + zc, rs, rc, lo, hi, &ml, &mh) &&
				ml <= s / n && s / n <= mh)
				cover += pmf(rs, zs) * pmf(rc, zc);
		}
	return cover;
}

static void
check_mean_coverage(void)
{
	/* lattice means in [-0.5, 3.5]; the sum's noise 3 x the count's, as a mean's at max |m| */
	double		tables[][2] = {{40, 52}, {40, 119}, {25, 0}, {60, 180}};

	for (int i = 0; i < 4; i++)
	{
		double		cov = mean_coverage(-0.5, 3.5, tables[i][0], tables[i][1], 1.0 / 3, 1);

		printf("# mean coverage n %g, s %g: %.4f\n", tables[i][0], tables[i][1], cov);
		CHECK(cov >= 0.95, "mean coverage %.5f < 95 %% (n %g, s %g)", cov, tables[i][0], tables[i][1]);
		CHECK(cov <= 0.975, "mean coverage %.5f: no tighter than a 97.5 %% split (n %g, s %g)",
			  cov, tables[i][0], tables[i][1]);
	}
}

/* the accuracy bounds a run's spread when the noise is the law's centre, at any mean */
static void
check_mean_halfwidth(void)
{
	AggciColumn cols[] = {{0, 100, 100 / 16384.0}, {-50, 100, 100 / 16384.0}, {17, 90, 90 / 16384.0}};
	double		rcs[] = {500, 1, 1.0 / 12, 0.01};

	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 4; j++)
		{
			const AggciColumn *c = &cols[i];
			double		rc = rcs[j],
						rs = rc / 16384,
						n = 200,
						h = aggci_mean_halfwidth(c, n, rs, rc);

			for (double m = c->lo; m <= c->hi; m += (c->hi - c->lo) / 64)
			{
				double		est,
							lo,
							hi;

				(void) aggci_mean(c, rint(m / c->step * n), n, rs, rc, &est, &lo, &hi);
				CHECK(fmax(est - lo, hi - est) <= h * (1 + 1e-12),
					  "mean %g (col %d, rc %g): spread %g > accuracy %g",
					  m, i, rc, fmax(est - lo, hi - est), h);
			}
		}
	/* noisier: more than the sum's own half-width alone, less than the whole range */
	{
		AggciColumn c = {0, 100, 100 / 16384.0};
		double		h = aggci_mean_halfwidth(&c, 100, 1.0 / 196608, 1.0 / 12);

		CHECK(h > aggci_halfwidth(1.0 / 196608, 0.05) * c.step / 100 && h < 100,
			  "mean accuracy %g out of range", h);
	}
}

static void
check_variance_shape(void)
{
	AggciColumn c = {0, 100, 100 / 16384.0};
	double		units = 16384,
				top = 2500;

	for (int t = 0; t < 200; t++)
	{
		double		C = t < 4 ? (double[]) {1, 2, 1e6, 5}[t] : floor(uniform() * 1e3) + 1,
					S = t < 4 ? (double[]) {1e9, -1e9, 0, 3e7}[t] : floor((uniform() * 3 - 1) * C * 16384),
					Q = t < 4 ? (double[]) {-1e9, 1e12, 0, 5}[t] : floor((uniform() * 3 - 1) * C * 16384),
					est,
					lo,
					hi;

		if (!aggci_variance(&c, units, Q, S, C, 1e-4, 1e-4, 0.1, &est, &lo, &hi))
		{
			CHECK(false, "variance(C %g) gave no estimate", C);
			continue;
		}
		CHECK(0 <= lo && lo <= est && est <= hi && hi <= top,
			  "variance(Q %g, S %g, C %g): 0 <= [%g, %g, %g] <= %g", Q, S, C, lo, est, hi, top);
	}
	{
		double		est = -1,
					lo = 1e9,
					hi = -1e9;

		CHECK(!aggci_variance(&c, units, 3e6, 5e4, -3, 1e-4, 1e-4, 0.1, &est, &lo, &hi) &&
			  est == -1 && 0 <= lo && lo <= hi && hi <= top,
			  "a count <= 0: no variance, an interval [%g, %g]", lo, hi);
	}
	CHECK(aggci_variance_halfwidth(&c, units, 100, 1e-4, 1e-4, 0.1) <= top,
		  "variance accuracy above its range");
}

/* the accuracy bounds a run's spread with the noise at the law's centre, on any table */
static void
check_variance_halfwidth(void)
{
	AggciColumn c = {0, 100, 100 / 16384.0};
	double		g2 = c.step * c.step * 16384,
				rcs[] = {250, 1.0 / 12};

	for (int j = 0; j < 2; j++)
	{
		double		n = 100,
					rc = rcs[j],
					r = rc / 16384,
					h = aggci_variance_halfwidth(&c, 16384, n, r, r, rc);

		for (double m1 = 0; m1 <= 100; m1 += 2.5)
			for (double f = 0; f <= 1; f += 0.25)
			{
				double		m2 = m1 * m1 + f * (100 * m1 - m1 * m1),
							est,
							lo,
							hi;

				(void) aggci_variance(&c, 16384, rint(m2 / g2 * n), rint(m1 / c.step * n), n, r, r, rc,
									  &est, &lo, &hi);
				CHECK(fmax(est - lo, hi - est) <= h, "variance (%g, %g, rc %g): spread %g > accuracy %g",
					  m1, m2, rc, fmax(est - lo, hi - est), h);
			}
	}
}

int
main(void)
{
	check_halfwidth();
	check_mean_shape();
	check_mean_halfwidth();
	check_variance_shape();
	check_variance_halfwidth();
	check_mean_coverage();
	return unitcheck_report();
}
