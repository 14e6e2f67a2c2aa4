/*
 * test_opoint.c -- a binary classifier's operating point (src/core/opoint.c).
 * (a) The Gaussian form's calibration: the lattice a power of two and the
 * variance at least (sqrt 2 k / g + sqrt 2)^2 / (2 rho) lattice units, so the
 * pair's release is rho-zCDP for k rows; out of range refused.  (b) The
 * Laplace form's scale at least 2k / eps; out of range refused.  (c) Seeded
 * releases: each count's noise has mean about 0 and the sd opoint_noise_sd
 * reports, the Gaussian values on the lattice.  (d) The weights and cut-off:
 * the minority's weight 2^bits, the cut-off ln(n_pos / n_neg) within the
 * weights' rounding, clamped by wmin; noisy counts below 1 clamped.  Prints
 * "N passed, M failed".
 */
#include <math.h>
#include <stdio.h>

#include <gsl/gsl_rng.h>

#include "core/opoint.h"
#include "unitcheck.h"

static void
check_gauss_calibration(void)
{
	const double rhos[] = {1e-4, 0.0012, 0.024, 1.0, 40.0};
	const int	ks[] = {1, 3, 10};
	OpNoise		z;

	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 3; j++)
		{
			double		g,
						need;
			int			e;

			CHECK(opoint_noise_gauss(rhos[i], ks[j], &z), "gauss rho %g k %d refused", rhos[i], ks[j]);
			g = z.lattice;
			CHECK(frexp(g, &e) == 0.5, "lattice %g is a power of two", g);
			need = pow(sqrt(2.0) * ks[j] / g + sqrt(2.0), 2) / (2 * rhos[i]);
			CHECK((double) z.sigma2 >= need, "rho %g k %d: variance %llu below %g", rhos[i], ks[j],
				  (unsigned long long) z.sigma2, need);
			CHECK((double) z.sigma2 <= need * 1.01 + 1, "rho %g k %d: variance %llu far above %g",
				  rhos[i], ks[j], (unsigned long long) z.sigma2, need);
			CHECK(fabs(opoint_noise_sd(&z) / (sqrt(2.0) * ks[j] / sqrt(2 * rhos[i])) - 1) < 0.01,
				  "rho %g k %d: sd %g", rhos[i], ks[j], opoint_noise_sd(&z));
		}
	CHECK(!opoint_noise_gauss(0, 1, &z), "rho 0 refused");
	CHECK(!opoint_noise_gauss(NAN, 1, &z), "rho NaN refused");
	CHECK(!opoint_noise_gauss(1e-300, 1, &z), "rho 1e-300 refused (beyond the sampler)");
}

static void
check_laplace_calibration(void)
{
	const double epss[] = {1e-3, 0.05, 0.5, 3};
	OpNoise		z;

	for (int i = 0; i < 4; i++)
		for (int k = 1; k <= 7; k += 3)
		{
			CHECK(opoint_noise_laplace(epss[i], k, &z), "laplace eps %g k %d refused", epss[i], k);
			CHECK((double) z.num / (double) z.den >= 2.0 * k / epss[i],
				  "eps %g k %d: scale %g below 2k / eps", epss[i], k, (double) z.num / (double) z.den);
			CHECK((double) z.num / (double) z.den <= 2.0 * k / epss[i] * (1 + 1e-6),
				  "eps %g k %d: scale %g far above 2k / eps", epss[i], k, (double) z.num / (double) z.den);
		}
	CHECK(!opoint_noise_laplace(1e-10, 1, &z), "eps 1e-10 refused (scale beyond 2^31)");
	CHECK(!opoint_noise_laplace(-1, 1, &z), "eps -1 refused");
}

/* the sample mean and sd of n draws of one count's noise */
static void
check_draws(gsl_rng *rng, OpNoise *z, const char *what)
{
	const int	n = 20000;
	const int64_t npos = 7384,
				nneg = 24720;
	double		s[2] = {0, 0},
				ss[2] = {0, 0},
				sd = opoint_noise_sd(z);
	bool		on_lattice = true;

	for (int r = 0; r < n; r++)
	{
		double		out[2];

		opoint_noisy_counts(rng, z, npos, nneg, out);
		for (int i = 0; i < 2; i++)
		{
			double		e = out[i] - (i == 0 ? npos : nneg);

			s[i] += e;
			ss[i] += e * e;
			on_lattice = on_lattice && out[i] / z->lattice == rint(out[i] / z->lattice);
		}
	}
	for (int i = 0; i < 2; i++)
	{
		double		mean = s[i] / n,
					emp = sqrt(ss[i] / n - mean * mean);

		CHECK(fabs(mean) < 5 * sd / sqrt(n), "%s count %d: noise mean %g (sd %g)", what, i, mean, sd);
		CHECK(fabs(emp / sd - 1) < 0.03, "%s count %d: noise sd %g against %g", what, i, emp, sd);
	}
	CHECK(on_lattice, "%s: releases on the lattice", what);
}

static void
check_weights(void)
{
	int64_t		w[2];
	const double cases[][2] = {{7384, 24720}, {370, 2795}, {210, 490}, {500, 500},
	{30000, 1000}, {1, 1e6}};

	for (int c = 0; c < 6; c++)
	{
		double		cut;
		double		want = log(cases[c][0] / cases[c][1]);

		opoint_weights(cases[c], 10, 16, w);
		cut = opoint_cut((double) w[0], (double) w[1]);
		CHECK(w[0] == 1024 || w[1] == 1024, "case %d: the minority's weight 2^10", c);
		if (fabs(want) < log(64.0))
			CHECK(fabs(cut - want) < 2.0 / 1024 * exp(fabs(want)) + 1e-12,
				  "case %d: cut %g against ln(n_pos / n_neg) %g", c, cut, want);
		else
			CHECK(fabs(fabs(cut) - log(64.0)) < 1e-12, "case %d: cut %g clamped at ln 64", c, cut);
	}
	/* noisy counts below 1 count as 1 */
	{
		const double neg[2] = {-30, 1000};

		opoint_weights(neg, 10, 16, w);
		CHECK(w[0] == 1024 && w[1] == 16, "a negative noisy count: weights %lld %lld",
			  (long long) w[0], (long long) w[1]);
	}
}

int
main(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	OpNoise		z;

	gsl_rng_set(rng, 42);
	check_gauss_calibration();
	check_laplace_calibration();
	(void) opoint_noise_gauss(0.0012, 1, &z);
	check_draws(rng, &z, "gauss");
	(void) opoint_noise_laplace(0.05, 1, &z);
	check_draws(rng, &z, "laplace");
	check_weights();
	gsl_rng_free(rng);
	return unitcheck_report();
}
