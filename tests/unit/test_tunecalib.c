/*
 * test_tunecalib.c -- private hyperparameter tuning's calibration and
 * number of runs (src/core/tunecalib.c).  (a) tune_rho: the tuned run's
 * (eps, delta0) bound at the returned rho is at most the target and just
 * above it a little higher up; the bound grows with rho; rho grows with
 * eps, delta0 and gamma, never exceeds zcdp_rho (tuning is never cheaper
 * than one run); invalid or infeasible inputs give NAN.  (b) tune_eps
 * against an independent evaluation of Papernot-Steinke's formula at a few
 * orders (every order's value bounds the minimum from above); tune_extra's
 * shortcut equals the minimum over the whole grid of orders.  (c) K_max:
 * (1 + e^eps)(1 - gamma)^K_max <= delta_t and K_max - 1 fails it.
 * (d) The geometric sampler: with a seeded Mersenne Twister, chi-square of
 * min(K, kmax) against gamma (1 - gamma)^(k - 1) (tail lumped) at a 1e-6
 * false-alarm level, for gamma 1/3, 1/2 and 0.9; gamma = 1 always gives 1.
 * Prints "N passed, M failed".
 */
#include <math.h>
#include <stdio.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>

#include "core/calibrate.h"
#include "core/tunecalib.h"
#include "unitcheck.h"

static void
check_rho(double eps, double gamma, double delta0)
{
	double		rho = tune_rho(eps, gamma, delta0);

	CHECK(rho > 0 && isfinite(rho), "tune_rho(%g, %g, %g) = %g", eps, gamma, delta0, rho);
	CHECK(tune_eps(rho, gamma, delta0) <= eps, "bound %.17g above eps %g at rho %g",
		  tune_eps(rho, gamma, delta0), eps, rho);
	CHECK(tune_eps(rho * (1 + 1e-9), gamma, delta0) > eps ||
		  tune_eps(rho * 1.001, gamma, delta0) > eps,
		  "rho %g not nearly the largest at eps %g gamma %g", rho, eps, gamma);
	CHECK(rho <= zcdp_rho(eps, delta0), "tuned rho %g above one run's %g", rho,
		  zcdp_rho(eps, delta0));
}

static void
check_calibration(void)
{
	double		eps[] = {0.1, 0.5, 1, 2, 8};
	double		gam[] = {1.0 / 1024, 0.1, 1.0 / 3, 0.5, 1};
	double		prev;

	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 5; j++)
			check_rho(eps[i], gam[j], 0.9e-6);
	/* monotone: the bound in rho; rho in eps, delta0, gamma */
	prev = 0;
	for (double r = 1e-5; r < 10; r *= 1.7)
	{
		double		e = tune_eps(r, 1.0 / 3, 1e-6);

		CHECK(e >= prev, "tune_eps not monotone at rho %g", r);
		prev = e;
	}
	prev = 0;
	for (double e = 0.05; e < 20; e *= 1.5)
	{
		double		r = tune_rho(e, 1.0 / 3, 1e-6);

		CHECK(r >= prev, "tune_rho not monotone in eps at %g", e);
		prev = r;
	}
	CHECK(tune_rho(1, 1.0 / 3, 1e-8) <= tune_rho(1, 1.0 / 3, 1e-6), "rho not monotone in delta");
	CHECK(tune_rho(1, 0.1, 1e-6) <= tune_rho(1, 0.5, 1e-6), "rho not monotone in gamma");
	/* edge cases */
	CHECK(isnan(tune_rho(0, 0.5, 1e-6)), "eps 0 accepted");
	CHECK(isnan(tune_rho(-1, 0.5, 1e-6)), "eps < 0 accepted");
	CHECK(isnan(tune_rho(INFINITY, 0.5, 1e-6)), "eps inf accepted");
	CHECK(isnan(tune_rho(1, 0, 1e-6)), "gamma 0 accepted");
	CHECK(isnan(tune_rho(1, 1.5, 1e-6)), "gamma > 1 accepted");
	CHECK(isnan(tune_rho(1, 0.5, 0)), "delta 0 accepted");
	CHECK(isnan(tune_rho(1, 0.5, 1)), "delta 1 accepted");
	CHECK(isnan(tune_rho(1e-7, 0.5, 1e-6)), "infeasible eps accepted");
}

/* Papernot-Steinke Thm 2, eta = 1, rho-zCDP Q, orders lambda and lambda-hat */
static double
ps_eps(double rho, double gamma, double delta0, double lam, double lamhat)
{
	double		rdp = rho * lam + 2 * (1 - 1 / lamhat) * rho * lamhat +
		2 * log(1 / gamma) / lamhat + log(1 / gamma) / (lam - 1);

	return rdp + rdp_conversion(lam, delta0);
}

/* tune_extra's shortcut against the whole grid of orders */
static void
check_extra(void)
{
	double		rhos[] = {0, 1e-7, 1e-4, 0.004, 0.1, 3, 1e4};
	double		gams[] = {1.0 / 1024, 0.1, 1.0 / 3, 0.5, 0.999, 1};

	for (int i = 0; i < 7; i++)
		for (int j = 0; j < 6; j++)
		{
			double		best = INFINITY;

			for (int k = -192; k <= 384; k++)
			{
				double		a = pow(10.0, k / 64.0);
				double		e = 2.0 * rhos[i] * a + 2.0 * -log(gams[j]) / (1.0 + a);

				if (e < best)
					best = e;
			}
			CHECK(tune_extra(rhos[i], gams[j]) == best,
				  "tune_extra(%g, %g) = %.17g, grid %.17g", rhos[i], gams[j],
				  tune_extra(rhos[i], gams[j]), best);
		}
}

static void
check_formula(void)
{
	double		rho = 0.004,
				gamma = 1.0 / 3,
				delta0 = 1e-6;
	double		e = tune_eps(rho, gamma, delta0);
	double		best = INFINITY;

	for (double lam = 1.5; lam < 2000; lam *= 1.05)
		for (double lh = 1.01; lh < 2000; lh *= 1.05)
		{
			double		v = ps_eps(rho, gamma, delta0, lam, lh);

			if (v < best)
				best = v;
		}
	/* the grid minimum is a valid bound: within 1% of a fine independent minimum */
	CHECK(e >= best * 0.99 && e <= best * 1.01, "tune_eps %g vs independent %g", e, best);
	CHECK(e > zcdp_eps(rho, delta0), "tuning cost nothing");
}

static void
check_kmax(void)
{
	double		gam[] = {1.0 / 1024, 0.1, 1.0 / 3, 0.5, 0.9};

	for (int i = 0; i < 5; i++)
	{
		double		g = (double) tune_gamma_num(gam[i]) / TUNE_GAMMA_DEN;
		int64_t		k = tune_kmax(1.0, g, 1e-7);
		double		tail = (1 + exp(1.0)) * pow(1 - g, (double) k);
		double		tail1 = (1 + exp(1.0)) * pow(1 - g, (double) (k - 1));

		CHECK(k >= 1 && tail <= 1e-7, "kmax %lld: tail %g", (long long) k, tail);
		CHECK(k == 1 || tail1 > 1e-7 * (1 - 1e-6), "kmax %lld not smallest", (long long) k);
	}
	CHECK(tune_kmax(1.0, 1.0, 1e-7) == 1, "gamma 1: one run");
	CHECK(tune_kmax(1.0, 1e-9, 1e-7) == 0, "huge kmax accepted");
	CHECK(tune_gamma_num(1.0 / 3) == 349526, "gamma 1/3 rounded up: %llu",
		  (unsigned long long) tune_gamma_num(1.0 / 3));
	CHECK(tune_gamma_num(1e-12) == 1, "tiny gamma");
	CHECK(tune_gamma_num(1.0) == TUNE_GAMMA_DEN, "gamma 1");
}

static void
check_geometric(gsl_rng *rng, double gamma)
{
	enum {NB = 12};
	uint64_t	num = tune_gamma_num(gamma);
	double		g = (double) num / TUNE_GAMMA_DEN;
	long		cnt[NB] = {0};
	const long	reps = 200000;
	double		chi2 = 0,
				rest = 1;

	for (long r = 0; r < reps; r++)
	{
		int64_t		k = tune_geometric(rng, num, 1000);

		cnt[k < NB ? k - 1 : NB - 1]++;
	}
	for (int j = 0; j < NB; j++)
	{
		double		p = j < NB - 1 ? g * pow(1 - g, j) : rest;
		double		e = p * reps;

		rest -= p;
		if (e > 0)
			chi2 += (cnt[j] - e) * (cnt[j] - e) / e;
	}
	CHECK(gsl_cdf_chisq_Q(chi2, NB - 1) > 1e-6, "geometric(%g): chi2 %g", gamma, chi2);
	CHECK(tune_geometric(rng, num, 1) == 1, "kmax 1 caps");
}

/* tune_row_count recovers min(c, 2^48) exactly from fl(c w), w in [2^-10, 1] */
static void
check_row_count(gsl_rng *rng)
{
	const int64_t cap = (int64_t) 1 << TUNE_ROW_COUNT_BITS;
	double		ws[] = {1.0 / 1024, 0.0009765625000000002, 0.13, 0.2, 0.32, 1.0 / 3, 0.43,
	0.999999999999, 1.0};
	long		bad = 0;

	for (int i = 0; i < (int) (sizeof(ws) / sizeof(ws[0])) + 50; i++)
	{
		double		w = i < (int) (sizeof(ws) / sizeof(ws[0])) ? ws[i] :
			ldexp(1.0, -10) + gsl_rng_uniform(rng) * (1 - ldexp(1.0, -10));

		for (int64_t c = 0; c <= 20000; c++)
			bad += tune_row_count((double) c * w, w) != c;
		for (int k = 0; k < 20000; k++)
		{
			/* near the cap, across the doubles' 2^53, and at random sizes */
			int64_t		c = k < 4000 ? cap - 2000 + k :
				k < 6000 ? ((int64_t) 1 << 53) - 1000 + (k - 4000) :
				(int64_t) ldexp(gsl_rng_uniform(rng), 1 + (int) gsl_rng_uniform_int(rng, 61));

			bad += tune_row_count((double) c * w, w) != (c < cap ? c : cap);
		}
	}
	CHECK(bad == 0, "tune_row_count missed min(c, 2^48) %ld times", bad);
	CHECK(tune_row_count(ldexp(1.0, 62), 1.0 / 1024) == cap, "huge count not capped");
}

int
main(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);

	gsl_rng_set(rng, 20221);
	check_calibration();
	check_extra();
	check_formula();
	check_kmax();
	check_row_count(rng);
	check_geometric(rng, 1.0 / 3);
	check_geometric(rng, 0.5);
	check_geometric(rng, 0.9);
	for (int i = 0; i < 100; i++)
		CHECK(tune_geometric(rng, TUNE_GAMMA_DEN, 1000) == 1, "gamma 1 ran twice");
	gsl_rng_free(rng);
	return unitcheck_report();
}
