/*
 * test_dpnoise.c -- the exact discrete samplers of src/dpnoise.c (CKS20):
 * with a seeded Mersenne Twister (the tests' source), the empirical
 * distribution of many draws against the exact pmf by a chi-square test at
 * a 1e-6 false-alarm level (fixed seed: the verdict is reproducible), and
 * the mean of Bernoulli(exp(-gamma)).  Prints "N passed, M failed".
 */
#include <math.h>
#include <stdio.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>

#include "dpnoise.h"

static int	npass,
			nfail;

#define CHECK(cond, ...) \
	do { \
		if (cond) npass++; \
		else { nfail++; printf("not ok - "); printf(__VA_ARGS__); printf("\n"); } \
	} while (0)

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
	check_laplace(rng, 1, 1, 400000);		/* scale 1 */
	check_laplace(rng, 3, 2, 400000);		/* scale 1.5 */
	check_laplace(rng, 2097152, 1048576, 400000);	/* eps = 2^-20 units: scale 2 */
	check_laplace(rng, 40, 13, 200000);	/* scale 3.08 */
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
	printf("%d passed, %d failed\n", npass, nfail);
	return nfail == 0 ? 0 : 1;
}
