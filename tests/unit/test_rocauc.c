/*
 * test_rocauc.c -- ROC AUC from per-label score histograms
 * (src/core/rocauc.c).  (a) The bins: monotone in the score, the centre in the
 * lower half and just above it in the upper, infinities in the end bins.
 * (b) Without noise the estimate is the binned AUC, pairs in one bin a half
 * (brute force over integer scores), the tied share exact, and the interval
 * holds the exact AUC of the scores.  (c) Coverage: scores of two normal
 * classes (AUC Phi(1 / sqrt 2)), 500 positives and 1500 negatives, binned
 * into the evaluation's 32 bins and released with discrete Laplace noise of
 * scale 4 per cell (its at epsilon 1): over 600 draws the interval covers
 * the population AUC in at least 93 % of them, the noise's variance as the
 * delta method reports it (mean width below 0.17).  (d) A noisy class total below 1
 * gives no estimate.  Prints "N passed, M failed".
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "core/dpnoise.h"
#include "core/rocauc.h"
#include "unitcheck.h"

static void
check_bins(void)
{
	int			prev = 0;
	bool		monotone = true;

	for (double s = -50; s <= 50; s += 0.01)
	{
		int			b = rocauc_bin(s, 0.3, 1.0, 64);

		monotone = monotone && b >= prev && b >= 0 && b < 64;
		prev = b;
	}
	CHECK(monotone, "bins are monotone in the score and in range");
	CHECK(rocauc_bin(0.3, 0.3, 1.0, 64) == 31, "the centre is in the lower half");
	CHECK(rocauc_bin(nextafter(0.3, 1), 0.3, 1.0, 64) == 32, "just above the centre, the upper half");
	CHECK(rocauc_bin(INFINITY, 0, 1.0, 64) == 63 && rocauc_bin(-INFINITY, 0, 1.0, 64) == 0,
		  "infinities in the end bins");
	CHECK(rocauc_bin(1e308, 0, 1.0, 64) == 63 && rocauc_bin(-1e308, 0, 1.0, 64) == 0,
		  "huge scores in the end bins");
	CHECK(rocauc_bin(1.0, 0, 1.0, 64) == 48 && rocauc_bin(-1.0, 0, 1.0, 64) == 15,
		  "v / (1 + |v|): +-1 at +-1/2");
}

/* the exact AUC of integer scores (pairs, ties a half) and the histograms over B bins */
static void
check_exact(void)
{
	const int	B = 16,
				n1 = 300,
				n0 = 700;
	int			sp[300],
				sn[700];
	double		hp[16] = {0},
				hn[16] = {0},
				right = 0,
				binned = 0,
				tied = 0;
	RocAUC		a;

	for (int i = 0; i < n1; i++)
		sp[i] = (int) (unitcheck_next64() % 40) + 10;
	for (int i = 0; i < n0; i++)
		sn[i] = (int) (unitcheck_next64() % 40);
	for (int i = 0; i < n1; i++)
		for (int j = 0; j < n0; j++)
		{
			right += sp[i] > sn[j] ? 1 : sp[i] == sn[j] ? 0.5 : 0;
			binned += sp[i] / 4 > sn[j] / 4 ? 1 : sp[i] / 4 == sn[j] / 4 ? 0.5 : 0;
			tied += sp[i] / 4 == sn[j] / 4;
		}
	for (int i = 0; i < n1; i++)
		hp[sp[i] / 4 % B] += 1;
	for (int i = 0; i < n0; i++)
		hn[sn[i] / 4 % B] += 1;
	CHECK(rocauc_estimate(hp, hn, B, 0, &a), "an estimate");
	CHECK(fabs(a.auc - binned / (n1 * n0)) < 1e-12, "binned AUC %g against %g", a.auc, binned / (n1 * n0));
	CHECK(fabs(a.tied - tied / (n1 * n0)) < 1e-12, "tied share %g against %g", a.tied, tied / (n1 * n0));
	CHECK(a.ci_low <= right / (n1 * n0) && right / (n1 * n0) <= a.ci_high,
		  "interval [%g, %g] holds the exact AUC %g", a.ci_low, a.ci_high, right / (n1 * n0));
	CHECK(a.ci_low >= 0 && a.ci_high <= 1, "interval within [0, 1]");
}

static void
check_coverage(gsl_rng *rng)
{
	const int	B = 32,
				n1 = 500,
				n0 = 1500,
				reps = 600;
	const double truth = gsl_cdf_ugaussian_P(1 / sqrt(2.0));
	int			covered = 0;
	double		width = 0;

	for (int r = 0; r < reps; r++)
	{
		double		hp[32] = {0},
					hn[32] = {0},
					q = exp(-1.0 / 4);
		RocAUC		a;

		for (int i = 0; i < n1; i++)
			hp[rocauc_bin(1 + gsl_ran_gaussian(rng, 1), 0.5, 1.0, B)] += 1;
		for (int i = 0; i < n0; i++)
			hn[rocauc_bin(gsl_ran_gaussian(rng, 1), 0.5, 1.0, B)] += 1;
		for (int b = 0; b < B; b++)
		{
			hp[b] += (double) dpnoise_discrete_laplace(rng, 4, 1);
			hn[b] += (double) dpnoise_discrete_laplace(rng, 4, 1);
		}
		if (!rocauc_estimate(hp, hn, B, 2 * q / ((1 - q) * (1 - q)), &a))
			continue;
		covered += a.ci_low <= truth && truth <= a.ci_high;
		width += a.ci_high - a.ci_low;
	}
	CHECK(covered >= 0.93 * reps, "coverage %d of %d", covered, reps);
	CHECK(width / reps < 0.17, "mean width %g", width / reps);
}

static void
check_none(void)
{
	double		hp[4] = {0.5, 0, 0, 0},
				hn[4] = {10, 10, 10, 10};
	RocAUC		a;

	CHECK(!rocauc_estimate(hp, hn, 4, 1, &a), "a positive total below 1: no estimate");
	hp[1] = 5;
	hn[0] = -50;
	CHECK(!rocauc_estimate(hp, hn, 4, 1, &a), "a negative total below 1: no estimate");
}

int
main(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);

	gsl_rng_set(rng, 7);
	check_bins();
	check_exact();
	check_coverage(rng);
	check_none();
	gsl_rng_free(rng);
	return unitcheck_report();
}
