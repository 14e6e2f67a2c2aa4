/*
 * test_autoselect.c -- the selection core of dpobj.dp_auto
 * (src/core/autoselect.c).  (a) The partition: the parts of a count sum to
 * it, and with a seeded Mersenne Twister the parts of 1 .. 9 equal-sized
 * splits pass a chi-square test of uniformity at a 1e-6 false-alarm level.
 * (b) The noise scale num/den is at least 2/epsilon, in the sampler's
 * range, refused where it cannot be.  (c) Report noisy max: for two
 * candidates, the frequency of each winner against the exact probability
 * (a sum over the discrete Laplace's mass), ties going to the first; the
 * exact probabilities of neighbouring score vectors (each score moved by
 * at most 1) are within e^epsilon of each other.  (d) Balanced-accuracy
 * weights: the minority's is 2^bits, the other's round(2^bits m / n), so
 * the weighted count of rows right matches 2^bits m (TPR + TNR) up to the
 * rounding; counts clamped to [1, 2^40], weights to wmin.  Prints "N
 * passed, M failed".
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>

#include "core/autoselect.h"
#include "unitcheck.h"

/* ---- (a) the partition ---- */

static void
check_partition(gsl_rng *rng)
{
	int64_t		out[16];
	int64_t		tot[16] = {0};
	double		chi2 = 0;
	const int	parts = 4;
	const long	reps = 2000,
				c = 37;

	for (int64_t n = 0; n < 200; n += 13)
	{
		int64_t		s = 0;

		autosel_split(rng, n, 7, out);
		for (int j = 0; j < 7; j++)
			s += out[j];
		CHECK(s == n, "split of %lld sums to %lld", (long long) n, (long long) s);
	}
	autosel_split(rng, 5, 1, out);
	CHECK(out[0] == 5, "one part gets everything");
	for (long r = 0; r < reps; r++)
	{
		autosel_split(rng, c, parts, out);
		for (int j = 0; j < parts; j++)
			tot[j] += out[j];
	}
	for (int j = 0; j < parts; j++)
	{
		double		e = (double) reps * c / parts;

		chi2 += (tot[j] - e) * (tot[j] - e) / e;
	}
	CHECK(gsl_cdf_chisq_Q(chi2, parts - 1) > 1e-6,
		  "partition not uniform: chi2 %g over %d parts", chi2, parts);
}

/* ---- (b) the scale ---- */

static void
check_scale(void)
{
	/* 1e-6, 0.1, 0.3: 2 / eps rounded to nearest is below the exact quotient */
	const double eps[] = {1e-6, 0.01, 0.1, 0.25, 0.3, 1, 3.7, 100, 1e9};
	uint64_t	num,
				den;

	for (int i = 0; i < (int) (sizeof(eps) / sizeof(eps[0])); i++)
	{
		bool		ok = autosel_laplace_scale(eps[i], &num, &den);

		CHECK(ok, "eps %g: no scale", eps[i]);
		/* exact: num eps >= 2 den (fma's sign is exact; num, den < 2^32) */
		CHECK(ok && fma((double) num, eps[i], -2.0 * (double) den) >= 0 &&
			  num >= 1 && den >= 1 && num <= (1ULL << 31) && den <= (1ULL << 31),
			  "eps %g: scale %llu/%llu below 2/eps or out of range", eps[i],
			  (unsigned long long) num, (unsigned long long) den);
		/* rounded up by less than one unit of 1/den */
		CHECK(!ok || fma((double) (num - 1), eps[i], -2.0 * (double) den) < 0,
			  "eps %g: scale %llu/%llu needlessly large", eps[i],
			  (unsigned long long) num, (unsigned long long) den);
	}
	CHECK(!autosel_laplace_scale(1e-12, &num, &den), "eps 1e-12 accepted");
	CHECK(!autosel_laplace_scale(0, &num, &den), "eps 0 accepted");
	CHECK(!autosel_laplace_scale(NAN, &num, &den), "eps NaN accepted");
}

/* ---- (c) report noisy max ---- */

/* P[candidate 1 wins] = P[Z1 - Z0 > s0 - s1], Z iid with mass ~ q^|z| */
static double
p_second_wins(int64_t s0, int64_t s1, double q)
{
	double		z = (1 + q) / (1 - q);	/* sum_z q^|z| */
	double		p = 0;
	int			M = (int) (60.0 / -log(q)) + 5;

	for (int a = -M; a <= M; a++)
		for (int b = -M; b <= M; b++)
			if (s1 + b > s0 + a)
				p += pow(q, abs(a)) * pow(q, abs(b));
	return p / (z * z);
}

static void
check_noisy_max(gsl_rng *rng, double eps, int64_t s0, int64_t s1)
{
	uint64_t	num,
				den;
	int64_t		sc[2] = {s0, s1};
	long		wins = 0;
	const long	N = 40000;
	double		q,
				p,
				zscore;

	(void) autosel_laplace_scale(eps, &num, &den);
	q = exp(-(double) den / (double) num);
	p = p_second_wins(s0, s1, q);
	for (long i = 0; i < N; i++)
		wins += autosel_noisy_max(rng, sc, 2, num, den);
	zscore = (wins - N * p) / sqrt(N * p * (1 - p) + 1e-12);
	CHECK(fabs(zscore) < 5.3, "eps %g scores (%lld, %lld): %ld wins of %ld, expected %g",
		  eps, (long long) s0, (long long) s1, wins, N, N * p);
	/* neighbours: each score moved by at most 1 */
	for (int d0 = -1; d0 <= 1; d0++)
		for (int d1 = -1; d1 <= 1; d1++)
		{
			double		p2 = p_second_wins(s0 + d0, s1 + d1, q);

			CHECK(p2 <= exp(eps) * p * (1 + 1e-9) && (1 - p2) <= exp(eps) * (1 - p) * (1 + 1e-9),
				  "eps %g: neighbour (%d, %d) breaks the e^eps bound: %g vs %g",
				  eps, d0, d1, p2, p);
		}
}

static void
check_ties(gsl_rng *rng)
{
	/* no noise to speak of (scale 2/1e9): the tie goes to the first index */
	uint64_t	num,
				den;
	int64_t		sc[3] = {5, 7, 7};

	(void) autosel_laplace_scale(1e9, &num, &den);
	CHECK(autosel_noisy_max(rng, sc, 3, num, den) == 1, "tie not broken by order");
	sc[0] = 9;
	CHECK(autosel_noisy_max(rng, sc, 3, num, den) == 0, "clear max not chosen");
	CHECK(autosel_noisy_max(rng, sc, 1, num, den) == 0, "one candidate");
}

/* ---- (d) balanced-accuracy weights ---- */

static void
check_balance_one(int64_t np, int64_t nn, int64_t ep, int64_t en)
{
	int64_t		wp,
				wn;

	autosel_balance_weights(np, nn, 10, 16, &wp, &wn);
	CHECK(wp == ep && wn == en, "weights of (%lld, %lld): %lld, %lld, not %lld, %lld",
		  (long long) np, (long long) nn, (long long) wp, (long long) wn,
		  (long long) ep, (long long) en);
}

static void
check_balance(void)
{
	int64_t		wp,
				wn;

	check_balance_one(100, 100, 1024, 1024);
	check_balance_one(100, 700, 1024, 146);		/* 1024 / 7 = 146.3 */
	check_balance_one(300, 100, 341, 1024);		/* 1024 / 3 = 341.3 */
	check_balance_one(1, 3, 1024, 341);
	check_balance_one(-5, 3, 1024, 341);	/* a noisy count below 1 counts as 1 */
	check_balance_one(0, -7, 1024, 1024);
	check_balance_one(10, 100000, 1024, 16);	/* clamped to wmin */
	check_balance_one(INT64_MAX, (int64_t) 1 << 39, 512, 1024);	/* clamped to 2^40 */
	/*
	 * the weighted rows right track balanced accuracy, TPR + TNR at these
	 * counts (no weight below wmin = 1 here: 1024 m / n >= 1)
	 */
	for (int64_t np = 4; np < 3000; np += 37)
	{
		int64_t		nn = 3001 - np,
					tp = np / 3,
					tn = nn * 2 / 5,
					m = np < nn ? np : nn;
		double		ba = (double) tp / np + (double) tn / nn;

		autosel_balance_weights(np, nn, 10, 1, &wp, &wn);
		CHECK(fabs((double) (wp * tp + wn * tn) - 1024.0 * m * ba) <= 0.5 * (tp + tn),
			  "weighted score off balanced accuracy at (%lld, %lld)",
			  (long long) np, (long long) nn);
	}
}

int
main(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);

	gsl_rng_set(rng, 20260101);
	check_partition(rng);
	check_scale();
	check_noisy_max(rng, 1.0, 10, 10);
	check_noisy_max(rng, 1.0, 10, 12);
	check_noisy_max(rng, 0.5, 3, 0);
	check_noisy_max(rng, 4.0, 0, 1);
	check_ties(rng);
	check_balance();
	gsl_rng_free(rng);
	return unitcheck_report();
}
