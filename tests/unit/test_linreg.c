/*
 * test_linreg.c -- private linear regression's plain-C core (src/core/linreg.c):
 * exact, order-independent fixed-point sums; the calibration's sensitivities,
 * lattices and zCDP shares; the snapped release (rounding and noise variance);
 * AdaSSP's ridge; the total solve; and AdaSSP/SSP end to end close to least
 * squares on a large synthetic problem.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "core/linreg.h"
#include "unitcheck.h"

#define P 4

/* one row into sums, its stage carried at once (linreg.h, "Staging") */
static void
add_row(LinRegSum *sums, const double *u, int p, double v)
{
	int64_t		stage[64] = {0};
	int32_t		staged = 0;

	linreg_accumulate(sums, stage, &staged, u, p, v);
	linreg_flush(sums, stage, &staged, p);
}

static void
test_sums_exact(void)
{
	double		u[3][P] = {{0.5, -0.25, 0.125, 0.1}, {0.3, 0.3, -0.3, 0.3}, {0.0, 1.0, 0.0, 0.0}};
	double		v[3] = {0.7, -1.0, 0.2};
	int			n = linreg_nsums(P);
	LinRegSum a[64] = {{0}},
				b[64] = {{0}};

	add_row(a, u[0], P, v[0]);
	add_row(a, u[1], P, v[1]);
	add_row(a, u[2], P, v[2]);
	add_row(b, u[2], P, v[2]);
	add_row(b, u[0], P, v[0]);
	add_row(b, u[1], P, v[1]);
	CHECK(memcmp(a, b, sizeof(LinRegSum) * n) == 0, "sums depend on row order");
	CHECK(n == 10 + 4 + 1, "nsums(4) = %d", n);
	CHECK(fabs(linreg_sum_value(a[0]) - (0.25 + 0.09)) < 1e-15, "sum u0^2 = %g",
		  linreg_sum_value(a[0]));
	CHECK(fabs(linreg_sum_value(a[n - 1]) - (0.49 + 1.0 + 0.04)) < 1e-15, "sum v^2");
	/* the unit vector's square is exactly 2^60 */
	{
		LinRegSum c[64] = {{0}};
		double		e[P] = {1, 0, 0, 0};

		add_row(c, e, P, -1.0);
		CHECK(linreg_sum_get(c[0]) == ((linreg_int128) 1 << LINREG_FRAC_BITS), "1*1 is 2^60");
		CHECK(linreg_sum_get(c[10]) == -((linreg_int128) 1 << LINREG_FRAC_BITS), "1*-1 is -2^60");
	}
}

static void
test_calibration(void)
{
	LinRegCalibration c;
	double		rho = 0.1;

	CHECK(linreg_calibrate(LINREG_ADASSP, P, 1, rho, 0.05, &c), "AdaSSP calibrates");
	CHECK(fabs(c.xx.rho + c.xy.rho + c.lmin.rho - rho) < 1e-15, "shares add up to rho");
	CHECK(c.xx.sensitivity >= sqrt(2.0) && c.xx.sensitivity < sqrt(2.0) + 1e-15,
		  "xx sensitivity %g", c.xx.sensitivity);
	CHECK(c.xy.sensitivity >= 2.0 && c.xy.sensitivity < 2.0 + 1e-15, "xy sensitivity");
	CHECK(c.lmin.sensitivity > 1.0, "lambda_min sensitivity has its margin");
	/* zCDP of each release: (S/g + sqrt count)^2 / (2 sigma2) <= its share */
	{
		double		Dxx = c.xx.sensitivity / c.xx.lattice + sqrt(linreg_tri(P));
		double		Dxy = c.xy.sensitivity / c.xy.lattice + sqrt(P);
		double		Dl = c.lmin.sensitivity / c.lmin.lattice + 1.0;

		CHECK(Dxx * Dxx / (2.0 * c.xx.sigma2) <= c.xx.rho, "xx within its share");
		CHECK(Dxy * Dxy / (2.0 * c.xy.sigma2) <= c.xy.rho, "xy within its share");
		CHECK(Dl * Dl / (2.0 * c.lmin.sigma2) <= c.lmin.rho, "lmin within its share");
		/* and not much more noise than the continuous Gaussian */
		CHECK(c.xx.sigma < 1.001 * c.xx.sensitivity / sqrt(2.0 * c.xx.rho), "xx sigma tight");
	}
	CHECK(ldexp(1.0, ilogb(c.xx.lattice)) == c.xx.lattice, "lattice is a power of two");
	CHECK(linreg_calibrate(LINREG_SSP, P, 1, rho, 0.05, &c), "SSP calibrates");
	CHECK(fabs(c.xx.rho - rho / 2) < 1e-15 && c.lmin.sigma2 == 0, "SSP: two halves");
	CHECK(!linreg_calibrate(LINREG_SSP, P, 1, 1e-30, 0.05, &c), "tiny rho refused");
	CHECK(!linreg_calibrate(LINREG_SSP, P, 1, NAN, 0.05, &c), "NaN rho refused");
	CHECK(!linreg_calibrate(LINREG_SSP, P, 0, rho, 0.05, &c), "k = 0 refused");
	/* a privacy unit of k rows: every sensitivity and noise scale k times */
	{
		LinRegCalibration c1,
					c5;

		CHECK(linreg_calibrate(LINREG_ADASSP, P, 1, rho, 0.05, &c1) &&
			  linreg_calibrate(LINREG_ADASSP, P, 5, rho, 0.05, &c5), "k = 5 calibrates");
		CHECK(c5.xx.sensitivity == 5 * c1.xx.sensitivity &&
			  c5.xy.sensitivity == 5 * c1.xy.sensitivity &&
			  c5.lmin.sensitivity == 5 * c1.lmin.sensitivity, "k = 5: sensitivities x5");
		CHECK(fabs(c5.xx.sigma / c1.xx.sigma - 5) < 0.01 &&
			  fabs(c5.xy.sigma / c1.xy.sigma - 5) < 0.01 &&
			  fabs(c5.lmin.sigma / c1.lmin.sigma - 5) < 0.01,
			  "k = 5: noise x5 (%g)", c5.xx.sigma / c1.xx.sigma);
		{
			double		Dxx = c5.xx.sensitivity / c5.xx.lattice + sqrt(linreg_tri(P));

			CHECK(Dxx * Dxx / (2.0 * c5.xx.sigma2) <= c5.xx.rho, "k = 5: xx within its share");
		}
	}
}

static void
test_release(gsl_rng *rng)
{
	LinRegCalibration c;
	int			N = 20000;
	LinRegSum *s = calloc(N, sizeof(LinRegSum));
	double	   *out = malloc(sizeof(double) * N);
	double		m = 0,
				v = 0;
	double		x = 123.456;

	linreg_calibrate(LINREG_SSP, P, 1, 0.5, 0.05, &c);
	for (int k = 0; k < N; k++)
		linreg_sum_add(&s[k], (linreg_int128) llround(ldexp(x, 40)) << (LINREG_FRAC_BITS - 40));
	linreg_release(rng, &c.xy, s, N, out, NULL, NULL);
	for (int k = 0; k < N; k++)
	{
		double		q = out[k] / c.xy.lattice;

		CHECK(q == floor(q), "release on the lattice");
		m += out[k];
	}
	m /= N;
	for (int k = 0; k < N; k++)
		v += (out[k] - m) * (out[k] - m);
	v /= N - 1;
	CHECK(fabs(m - x) < 5 * c.xy.sigma / sqrt(N), "release mean %g vs %g", m, x);
	CHECK(fabs(v / (c.xy.sigma * c.xy.sigma) - 1) < 0.05, "release variance ratio %g",
		  v / (c.xy.sigma * c.xy.sigma));
	free(s);
	free(out);
}

static void
test_solve(void)
{
	/* A = [[2,1],[1,3]], b = [1,2]: theta = A^-1 b = [0.2, 0.6] */
	double		tri[3] = {2, 1, 3};
	double		b[2] = {1, 2};
	double		th[2];
	/* indefinite: eigenvalues 3 and -1; floor 0.5 */
	double		tri2[3] = {1, 2, 1};
	double		b2[2] = {1, -1};

	CHECK(linreg_solve(tri, b, 2, 0.0, 1e-12, th), "solve");
	CHECK(fabs(th[0] - 0.2) < 1e-12 && fabs(th[1] - 0.6) < 1e-12, "solve %g %g", th[0], th[1]);
	CHECK(linreg_solve(tri, b, 2, 1.0, 1e-12, th), "ridge solve");
	/* (A + I)^-1 b with A + I = [[3,1],[1,4]]: [2/11, 5/11] */
	CHECK(fabs(th[0] - 2.0 / 11) < 1e-12 && fabs(th[1] - 5.0 / 11) < 1e-12, "ridge %g %g",
		  th[0], th[1]);
	/* b2 is the eigenvector (1,-1)/sqrt2 of eigenvalue -1: raised to 0.5 */
	CHECK(linreg_solve(tri2, b2, 2, 0.0, 0.5, th), "indefinite solve is total");
	CHECK(fabs(th[0] - 2.0) < 1e-12 && fabs(th[1] + 2.0) < 1e-12, "floor %g %g", th[0], th[1]);
	CHECK(fabs(linreg_min_eigen(tri2, 2) + 1.0) < 1e-12, "min eigen -1");
}

static void
test_lambda(void)
{
	LinRegCalibration c;
	double		big;

	linreg_calibrate(LINREG_ADASSP, P, 1, 0.1, 0.05, &c);
	big = c.xx.sigma * sqrt(P * log(2.0 * P * P / 0.05));
	CHECK(fabs(linreg_adassp_lambda(&c, -1e9) - big) < 1e-9 * big, "lambda without lmin");
	CHECK(linreg_adassp_lambda(&c, 1e12) == 0.0, "no ridge when well conditioned");
}

/* end to end: y = <x, beta> + noise, n = 100000, rho = 0.5 */
static void
test_end_to_end(gsl_rng *rng)
{
	int			p = P,
				n = 100000,
				nt = linreg_nsums(p);
	LinRegSum *s = calloc(nt, sizeof(LinRegSum));
	double		beta[P] = {0.5, -0.3, 0.2, 0.1};
	double		tri[10],
				b[P],
				th[P],
				exact[10],
				eb[P],
				ls[P];

	for (int i = 0; i < n; i++)
	{
		double		u[P],
					v = 0,
					nrm = 0;

		for (int j = 0; j < p; j++)
		{
			u[j] = gsl_ran_gaussian(rng, 0.3);
			nrm += u[j] * u[j];
		}
		nrm = sqrt(nrm);
		for (int j = 0; j < p && nrm > 1; j++)
			u[j] /= nrm;
		for (int j = 0; j < p; j++)
			v += beta[j] * u[j];
		v = fmax(-1, fmin(1, v + gsl_ran_gaussian(rng, 0.05)));
		add_row(s, u, p, v);
	}
	for (int k = 0; k < 10; k++)
		exact[k] = linreg_sum_value(s[k]);
	for (int k = 0; k < p; k++)
		eb[k] = linreg_sum_value(s[10 + k]);
	linreg_solve(exact, eb, p, 0.0, 1e-12, ls);
	for (LinRegMethod m = LINREG_ADASSP; m <= LINREG_SSP; m++)
	{
		LinRegCalibration c;
		double		lambda = 0,
					err = 0;

		CHECK(linreg_calibrate(m, p, 1, 0.5, 0.05, &c), "calibrate");
		linreg_release(rng, &c.xx, s, 10, tri, NULL, NULL);
		linreg_release(rng, &c.xy, s + 10, p, b, NULL, NULL);
		if (m == LINREG_ADASSP)
			lambda = linreg_adassp_lambda(&c, linreg_release_value(rng, &c.lmin,
																   linreg_min_eigen(exact, p)));
		CHECK(linreg_solve(tri, b, p, lambda, c.xx.sigma, th), "solve");
		for (int j = 0; j < p; j++)
			err += (th[j] - ls[j]) * (th[j] - ls[j]);
		CHECK(sqrt(err) < 0.05, "%s: ||theta - least squares|| = %g",
			  m == LINREG_ADASSP ? "AdaSSP" : "SSP", sqrt(err));
	}
	free(s);
}

int
main(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);

	gsl_rng_set(rng, 20240611);
	test_sums_exact();
	test_calibration();
	test_release(rng);
	test_solve();
	test_lambda();
	test_end_to_end(rng);
	gsl_rng_free(rng);
	return unitcheck_report();
}
