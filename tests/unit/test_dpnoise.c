/*
 * test_dpnoise.c -- the exact discrete samplers of src/core/dpnoise.c (CKS20):
 * with a seeded Mersenne Twister (the tests' source), the empirical
 * distribution of many draws against the exact pmf by a chi-square test at
 * a 1e-6 false-alarm level (fixed seed: the verdict is reproducible), and
 * the mean of Bernoulli(exp(-gamma)); the discrete Gaussian likewise, and
 * its mean and variance at large sigma2.  Prints "N passed, M failed".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>

#include "core/dpnoise.h"
#include "unitcheck.h"

#define NB 12					/* bins |y| < NB each, both tails pooled */

static void
check_laplace(gsl_rng *rng, uint64_t s, uint64_t t, int n)
{
	/* scale s/t: P[y] proportional to q^|y| */
	double		q = exp(-(double) t / (double) s);
	double		norm = (1 - q) / (1 + q);
	long		cnt[2 * NB + 1] = {0};
	double		chi2 = 0,
				ptail = 1;
	int			dof = 0;

	for (int i = 0; i < n; i++)
	{
		int64_t		y = dpnoise_discrete_laplace(rng, s, t);

		cnt[(y <= -NB || y >= NB) ? 2 * NB : (int) (y + NB)]++;
	}
	for (int y = -NB + 1; y < NB; y++)
	{
		double		p = norm * pow(q, fabs((double) y));
		double		e = p * n;

		ptail -= p;
		chi2 += (cnt[y + NB] - e) * (cnt[y + NB] - e) / e;
		dof++;
	}
	if (ptail * n > 5)
	{
		chi2 += (cnt[2 * NB] - ptail * n) * (cnt[2 * NB] - ptail * n) / (ptail * n);
		dof++;
	}
	CHECK(gsl_cdf_chisq_Q(chi2, dof - 1) > 1e-6,
		  "discrete Laplace s/t = %llu/%llu: chi2 = %.1f on %d bins",
		  (unsigned long long) s, (unsigned long long) t, chi2, dof);
}

static void
check_bernoulli_exp(gsl_rng *rng, uint64_t num, uint64_t den, int n)
{
	double		p = exp(-(double) num / (double) den);
	long		k = 0;

	for (int i = 0; i < n; i++)
		k += dpnoise_bernoulli_exp(rng, num, den);
	CHECK(fabs(k - p * n) <= 5.5 * sqrt(n * p * (1 - p)) + 1,
		  "Bernoulli(exp(-%llu/%llu)): %ld of %d, expected %.0f",
		  (unsigned long long) num, (unsigned long long) den, k, n, p * n);
}

/* N_Z(0, sigma2) against its exact pmf: bins |y| < nb, both tails pooled */
static void
check_gaussian(gsl_rng *rng, uint64_t sigma2, int nb, int n)
{
	double		norm = 0,
				chi2 = 0,
				ptail = 1;
	long		cnt[2 * 64 + 1] = {0};
	int			dof = 0;

	for (int y = -40 * (int) sqrt((double) sigma2) - 40; y <= 40 * (int) sqrt((double) sigma2) + 40; y++)
		norm += exp(-(double) y * y / (2.0 * sigma2));
	for (int i = 0; i < n; i++)
	{
		int64_t		y = dpnoise_discrete_gaussian(rng, sigma2);

		cnt[(y <= -nb || y >= nb) ? 2 * nb : y + nb - 1]++;
	}
	for (int y = -nb + 1; y < nb; y++)
	{
		double		e = n * exp(-(double) y * y / (2.0 * sigma2)) / norm;
		long		c = cnt[y + nb - 1];

		ptail -= e / n;
		chi2 += (c - e) * (c - e) / e;
		dof++;
	}
	{
		double		e = n * ptail;
		long		c = cnt[2 * nb];

		if (e > 5)
		{
			chi2 += (c - e) * (c - e) / e;
			dof++;
		}
	}
	CHECK(gsl_cdf_chisq_Q(chi2, dof - 1) > 1e-6,
		  "discrete Gaussian sigma2 = %lu: chi2 = %.1f on %d bins", (unsigned long) sigma2, chi2, dof);
}

/* large sigma2: mean and variance of N_Z(0, sigma2) (variance within 1e-9 of sigma2) */
static void
check_gaussian_moments(gsl_rng *rng, uint64_t sigma2, int n)
{
	double		m = 0,
				v = 0,
				sd = sqrt((double) sigma2);

	for (int i = 0; i < n; i++)
	{
		double		y = (double) dpnoise_discrete_gaussian(rng, sigma2);

		m += y;
		v += y * y;
	}
	m /= n;
	v /= n;
	/* 6 standard errors: mean sd/sqrt(n), variance sigma2 sqrt(2/n) */
	CHECK(fabs(m) < 6 * sd / sqrt(n) && fabs(v - sigma2) < 6 * sigma2 * sqrt(2.0 / n),
		  "discrete Gaussian sigma2 = %lu: mean %.3f, variance %.6g", (unsigned long) sigma2, m, v);
}

/*
 * Objective perturbation's lattice noise: g a power of two with sigma / g in
 * [2^27, 2^28), s^2 at least (sigma / g)^2 and at most 2^56; the draws, in
 * units of g, have variance s^2 (6 standard errors).
 */
static void
check_objective_lattice(gsl_rng *rng, double sigma, int n)
{
	double		g,
				v = 0,
				m = 0;
	uint64_t	s2;
	int			e;
	double	   *b = malloc(sizeof(double) * n);

	dpnoise_objective_lattice(sigma, &g, &s2);
	CHECK(frexp(g, &e) == 0.5 && sigma / g >= ldexp(1.0, 27) && sigma / g < ldexp(1.0, 28) &&
		  (double) s2 >= (sigma / g) * (sigma / g) && s2 <= ((uint64_t) 1 << 56),
		  "objective lattice sigma = %g: g = %g, s2 = %llu", sigma, g, (unsigned long long) s2);
	dpnoise_objective_draw(rng, g, s2, n, b);
	for (int i = 0; i < n; i++)
	{
		CHECK(b[i] / g == rint(b[i] / g), "objective draw %g not on the lattice %g", b[i], g);
		m += b[i] / g;
		v += (b[i] / g) * (b[i] / g);
	}
	m /= n;
	v /= n;
	CHECK(fabs(m) < 6 * sqrt((double) s2 / n) && fabs(v / s2 - 1) < 6 * sqrt(2.0 / n),
		  "objective draws sigma = %g: mean %g, variance %g of %g lattice units^2",
		  sigma, m, v, (double) s2);
	free(b);
}

int
main(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	long		hist[7] = {0};

	gsl_rng_set(rng, 20201);
	check_bernoulli_exp(rng, 0, 1, 20000);
	check_bernoulli_exp(rng, 1, 3, 200000);
	check_bernoulli_exp(rng, 5, 2, 200000);
	check_bernoulli_exp(rng, 7, 7, 200000);
	/* den = 2^62: den k leaves 64 bits from k = 4 on (the 128-bit step) */
	check_bernoulli_exp(rng, ((uint64_t) 1 << 62) - 1, (uint64_t) 1 << 62, 200000);
	check_bernoulli_exp(rng, ((uint64_t) 3 << 61) + 1, (uint64_t) 1 << 62, 200000);
	check_laplace(rng, 1, 1, 400000);		/* scale 1 */
	check_laplace(rng, 3, 2, 400000);		/* scale 1.5 */
	check_laplace(rng, 2097152, 1048576, 400000);	/* eps = 2^-20 units: scale 2 */
	check_laplace(rng, 40, 13, 200000);	/* scale 3.08 */
	check_gaussian(rng, 1, 6, 400000);
	check_gaussian(rng, 5, 12, 400000);
	check_gaussian(rng, 50, 30, 400000);
	check_gaussian_moments(rng, (uint64_t) 1 << 30, 200000);
	check_gaussian_moments(rng, (uint64_t) 1 << 56, 100000);
	check_objective_lattice(rng, 15.66, 20000);
	check_objective_lattice(rng, 808.7, 20000);
	check_objective_lattice(rng, 0.75, 20000);
	check_objective_lattice(rng, 1.0, 2000);
	{
		double		g;
		uint64_t	s2;

		dpnoise_objective_lattice(0.0, &g, &s2);
		CHECK(g == 0 && s2 == 0, "objective lattice of 0: none");
	}
	/* the lattice: a power of two with b / lattice in [2^16, 2^17) */
	{
		double		bs[] = {1.0, 0.75, 3.0, 1e-9, 12345.678, 0.5, 2.0 - 1e-15};

		for (int i = 0; i < (int) (sizeof(bs) / sizeof(bs[0])); i++)
		{
			double		g = dpnoise_lattice(bs[i]);
			int			e;
			double		f = frexp(g, &e);

			CHECK(f == 0.5 && bs[i] / g >= 65536.0 && bs[i] / g < 131072.0,
				  "lattice of %g is %g (b/g = %g)", bs[i], g, bs[i] / g);
		}
	}
	/*
	 * Snapped Gaussian calibrations: the lattice is a power of two (relative
	 * to S for one release, to the continuous noise for T composed steps),
	 * sigma2 is the smallest integer variance whose zCDP cost T (S/g +
	 * sqrt p)^2 / (2 sigma2) stays within rho, and 0 outside [1, 2^56].
	 */
	{
		struct
		{
			double		S,
						rho;
			int			p;
			int64_t		T;
		}			cs[] = {{1.0, 0.0175, 4, 1}, {2.83, 0.0175, 4, 1000}, {0.5, 1e-8, 24, 20000},
		{3.0, 3e7, 3, 160000}, {1.0, 0.3, 1, 1}};

		for (int i = 0; i < (int) (sizeof(cs) / sizeof(cs[0])); i++)
		{
			double		g,
						DL;
			uint64_t	s2;
			int			e;

			if (cs[i].T == 1)
				dpnoise_gaussian_lattice(cs[i].S, cs[i].rho, cs[i].p, &g, &s2);
			else
				dpnoise_gaussian_lattice_composed(cs[i].S, cs[i].rho, cs[i].p, cs[i].T, &g, &s2);
			DL = cs[i].S / g + sqrt((double) cs[i].p);
			/* within rho; minimal (exactly below 2^50, else to 1e-12 relative) */
			CHECK(frexp(g, &e) == 0.5 && s2 >= 1 &&
				  (double) cs[i].T * DL * DL / (2.0 * (double) s2) <= cs[i].rho &&
				  (s2 < ((uint64_t) 1 << 50) ?
				   (double) cs[i].T * DL * DL / (2.0 * (double) (s2 - 1)) > cs[i].rho :
				   (double) cs[i].T * DL * DL / (2.0 * (double) s2) > cs[i].rho * (1 - 1e-12)),
				  "snapped Gaussian %d: g = %g, sigma2 = %llu", i, g, (unsigned long long) s2);
			if (cs[i].T > 1)
			{
				double		ratio = cs[i].S * sqrt((double) cs[i].T / (2.0 * cs[i].rho)) / g,
							gs,
							DS;
				uint64_t	ss;

				CHECK(ratio >= 67108864.0 && ratio < 134217728.0,
					  "composed lattice %d: continuous noise / g = %g", i, ratio);
				/* summed terms: the same lattice, sigma2 covering the terms' rounding */
				dpnoise_gaussian_lattice_summed(cs[i].S, cs[i].rho, cs[i].p, cs[i].T, 3, &gs, &ss);
				DS = cs[i].S * (1 + ldexp(1.0, -30)) / gs + sqrt((double) cs[i].p) * (1 + 3 * ldexp(1.0, -5));
				CHECK(gs == g && ss >= s2 && ss >= 1 &&
					  (double) cs[i].T * DS * DS / (2.0 * (double) ss) <= cs[i].rho,
					  "summed lattice %d: g = %g, sigma2 = %llu (composed %llu)", i, gs,
					  (unsigned long long) ss, (unsigned long long) s2);
			}
		}
		/* out of range: rho so small that sigma2 > 2^56 */
		{
			double		g;
			uint64_t	s2 = 1;

			dpnoise_gaussian_lattice_composed(1.0, 1e-30, 1000, 1000000, &g, &s2);
			CHECK(s2 == 0, "composed noise beyond 2^56 must be refused (sigma2 = %llu)",
				  (unsigned long long) s2);
		}
	}
	/* uniform: 7 bins, no modulo bias */
	for (int i = 0; i < 700000; i++)
		hist[dpnoise_uniform(rng, 7)]++;
	{
		double		chi2 = 0;

		for (int b = 0; b < 7; b++)
			chi2 += (hist[b] - 1e5) * (hist[b] - 1e5) / 1e5;
		CHECK(gsl_cdf_chisq_Q(chi2, 6) > 1e-6, "uniform on 7 values: chi2 = %.1f", chi2);
	}
	gsl_rng_free(rng);
	return unitcheck_report();
}
