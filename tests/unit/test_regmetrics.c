/*
 * test_regmetrics.c -- the private evaluation of a regression model's core
 * (src/core/regmetrics.c): the noise calibration stays within epsilon and the
 * sampler's range, one row moves the snapped sums by at most the calibrated l1, and
 * the metrics of exact sums equal the metrics computed directly.
 */
#include <math.h>
#include <stdlib.h>

#include "core/regmetrics.h"
#include "unitcheck.h"

static void
test_calibrate(void)
{
	static const double eps[] = {1.0 / 1048576, 1e-4, 0.01, 0.1, 0.5, 1, 2, 10, 80, 100, 2048};

	for (size_t i = 0; i < sizeof(eps) / sizeof(eps[0]); i++)
	{
		RegMetricsCalibration c;

		regmetrics_calibrate(eps[i], &c);
		CHECK(c.num >= 1 && c.num <= (1ULL << 31) && c.den >= 1 && c.den <= (1ULL << 31),
			  "eps %g: the scale %llu/%llu is in the sampler's range", eps[i],
			  (unsigned long long) c.num, (unsigned long long) c.den);
		CHECK((double) c.l1 * c.den <= eps[i] * (double) c.num,
			  "eps %g: the noise scale is at least l1 / eps", eps[i]);
		CHECK(c.eps_used <= eps[i] && c.eps_used >= 0.999 * eps[i],
			  "eps %g: eps_used %g is at most eps and close to it", eps[i], c.eps_used);
		CHECK(c.lattice_bits >= 0 && c.lattice_bits <= REGM_GRID_BITS &&
			  c.l1 == 5 * (1ULL << c.lattice_bits) + 5,
			  "eps %g: lattice 2^-%d, l1 %llu", eps[i], c.lattice_bits, (unsigned long long) c.l1);
	}
}

static double
uniform(double lo, double hi)
{
	return lo + (hi - lo) * (rand() / (double) RAND_MAX);
}

/* a random row: sometimes far outside the range, to exercise the clamping */
static void
random_row(double *t)
{
	double		y = rand() % 4 == 0 ? uniform(-1e6, 1e6) : uniform(-1, 3);
	long double p = rand() % 4 == 0 ? (long double) uniform(-1e300, 1e300) : uniform(-1, 3);

	regmetrics_row(y, p, 0, 2, t);
}

/* replacing, adding or removing one row: the snapped sums move by at most l1 */
static void
test_sensitivity(void)
{
	RegMetricsCalibration c;
	int			bad = 0,
				range = 0;

	regmetrics_calibrate(1.0, &c);
	srand(7);
	for (int k = 0; k < 20000; k++)
	{
		double		base[REGM_NSUMS],
					t1[REGM_NSUMS],
					t2[REGM_NSUMS];
		uint64_t	l1_rep = 0,
					l1_add = 0;

		for (int i = 0; i < REGM_NSUMS; i++)
			base[i] = rint(uniform(0, 1e9)) * (i == REGM_N ? 0 : 1) + (i == REGM_N ? 1048576.0 * 1000 : 0);
		random_row(t1);
		random_row(t2);
		for (int i = 0; i < REGM_NSUMS; i++)
		{
			int64_t		s0 = regmetrics_snap(base[i], &c);

			l1_rep += llabs(regmetrics_snap(base[i] + t1[i], &c) - regmetrics_snap(base[i] + t2[i], &c));
			l1_add += llabs(regmetrics_snap(base[i] + t1[i], &c) - s0);
			if (t1[i] < (i == REGM_Y ? -1048576.0 : 0) || t1[i] > 1048576.0)
				range++;
		}
		if (l1_rep > c.l1 || l1_add > c.l1)
			bad++;
	}
	CHECK(range == 0, "every contribution lies in its range (%d did not)", range);
	CHECK(bad == 0, "one row moves the snapped sums by at most l1 (%d of 20000 did not)", bad);
}

/* exact sums: the metrics equal those computed directly from the rows */
static void
test_compute(void)
{
	enum
	{
	NROWS = 5000};
	static double y[NROWS],
				p[NROWS];
	double		sums[REGM_NSUMS] = {0},
				t[REGM_NSUMS];
	double		sae = 0,
				sse = 0,
				sy = 0,
				syy = 0,
				mean,
				vy;
	RegMetrics	r;

	srand(3);
	for (int k = 0; k < NROWS; k++)
	{
		y[k] = uniform(1, 5);
		p[k] = y[k] + uniform(-0.5, 0.5);
		regmetrics_row(y[k], p[k], 0, 6, t);
		for (int i = 0; i < REGM_NSUMS; i++)
			sums[i] += t[i];
		sae += fabs(y[k] - p[k]);
		sse += (y[k] - p[k]) * (y[k] - p[k]);
		sy += y[k];
		syy += y[k] * y[k];
	}
	for (int i = 0; i < REGM_NSUMS; i++)
		sums[i] = ldexp(sums[i], -REGM_GRID_BITS);
	mean = sy / NROWS;
	vy = syy / NROWS - mean * mean;
	regmetrics_compute(sums, 0.0, 0, 6, &r);
	CHECK(fabs(r.n - NROWS) < 1e-9, "n %g", r.n);
	CHECK(r.mae.valid && fabs(r.mae.estimate - sae / NROWS) < 1e-4, "mae %g vs %g", r.mae.estimate, sae / NROWS);
	CHECK(r.rmse.valid && fabs(r.rmse.estimate - sqrt(sse / NROWS)) < 1e-4, "rmse %g vs %g",
		  r.rmse.estimate, sqrt(sse / NROWS));
	CHECK(r.r2.valid && fabs(r.r2.estimate - (1 - sse / NROWS / vy)) < 1e-4, "r2 %g vs %g",
		  r.r2.estimate, 1 - sse / NROWS / vy);
	CHECK(fabs(r.label_mean.estimate - mean) < 1e-4 && fabs(r.label_sd - sqrt(vy)) < 1e-4,
		  "label mean %g sd %g", r.label_mean.estimate, r.label_sd);
	CHECK(r.mae.lo <= r.mae.estimate && r.mae.estimate <= r.mae.hi &&
		  r.r2.lo <= r.r2.estimate && r.r2.hi <= 1, "intervals contain the estimates");
	/* below two rows: no estimate */
	sums[REGM_N] = 1.5;
	regmetrics_compute(sums, 1.0, 0, 6, &r);
	CHECK(!r.mae.valid && !r.rmse.valid && !r.r2.valid && isnan(r.label_sd), "n < 2: no estimate");
}

int
main(void)
{
	test_calibrate();
	test_sensitivity();
	test_compute();
	return unitcheck_report();
}
