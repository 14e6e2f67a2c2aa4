/*
 * test_privquant.c -- the private quantile of norms of src/core/privquant.c
 * (dp_logistic's "R": "private").  (a) The public grid: 2^-16 .. 2^20 in
 * steps of 2^(1/4), increasing, exact at the powers of two; a norm's bin.
 * (b) The target ceil(q n), exact for a double q; the losses: 0 only at the
 * bracket of the t-th smallest norm, R_max for norms above the grid, the
 * smallest candidate for zero norms.  (c) Sensitivity: on
 * every small histogram, replacing, adding or removing one row (k rows)
 * moves every loss by at most 1 (k).  (d) Distribution: many seeded draws
 * against the exact probabilities exp(-gamma loss_i) / Z, gamma = eps / (2k),
 * by a chi-square test at a 1e-6 false-alarm level each.  (e) The row clip
 * (src/core/rowclip.c) the design applies to R-hat: the norm at most R, the
 * direction kept, short rows unchanged, huge values without overflow;
 * its certificate that a row needs no clip holds only inside R.
 * Prints "N passed, M failed".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>

#include "core/privquant.h"
#include "core/rowclip.h"
#include "unitcheck.h"

#define NB PRIVQUANT_N

static void
check_grid(void)
{
	bool		inc = true;

	CHECK(privquant_candidate(0) == ldexp(1.0, -16), "R_0 = 2^-16");
	CHECK(privquant_candidate(-PRIVQUANT_KMIN) == 1.0, "R = 1 is a candidate");
	CHECK(privquant_candidate(PRIVQUANT_N - 1) == ldexp(1.0, 20), "the largest is 2^20");
	for (int i = 1; i < PRIVQUANT_N; i++)
	{
		double		r = privquant_candidate(i) / privquant_candidate(i - 1);

		inc = inc && fabs(r - pow(2.0, 0.25)) < 1e-15;
	}
	CHECK(inc, "candidates increase by 2^(1/4)");
	CHECK(privquant_bin(0.0) == 0 && privquant_bin(ldexp(1.0, -16)) == 0 &&
		  privquant_bin(nextafter(ldexp(1.0, -16), 1.0)) == 1, "bins at the smallest candidate");
	CHECK(privquant_bin(1.0) == -PRIVQUANT_KMIN && privquant_bin(nextafter(1.0, 2.0)) == 1 - PRIVQUANT_KMIN,
		  "a norm of 1 is in the bin of R = 1, just above in the next");
	CHECK(privquant_bin(ldexp(1.0, 20)) == PRIVQUANT_N - 1 &&
		  privquant_bin(nextafter(ldexp(1.0, 20), INFINITY)) == PRIVQUANT_N - 1 &&
		  privquant_bin(INFINITY) == PRIVQUANT_N - 1 && privquant_bin(NAN) == PRIVQUANT_N - 1,
		  "above the largest candidate (or NaN): the largest's bin");
	for (int i = 0; i < PRIVQUANT_N; i++)
		if (privquant_bin(privquant_candidate(i)) != i ||
			(i > 0 && privquant_bin(nextafter(privquant_candidate(i - 1), INFINITY)) != i))
		{
			CHECK(0, "bin of the candidate %d", i);
			return;
		}
	CHECK(1, "every candidate's bin");
}

static void
check_target(void)
{
	CHECK(privquant_target(0.5, 3) == 2 && privquant_target(0.5, 4) == 2 &&
		  privquant_target(0.5, 0) == 0, "ceil(n / 2)");
	/* the double 0.9 is above 9/10: 10 * q > 9 */
	CHECK(privquant_target(0.9, 10) == 10 && privquant_target(0.75, 8) == 6, "exact products");
	CHECK(privquant_target(ldexp(1.0, -80), 5) == 1 && privquant_target(1e-300, INT64_MAX) == 1,
		  "tiny q n rounds up to 1");
	CHECK(privquant_target(nextafter(1.0, 0.0), 1000) == 1000 &&
		  privquant_target(nextafter(1.0, 0.0), INT64_MAX) == INT64_MAX - 1023,
		  "q n just below n rounds up to n");
	for (int64_t n = 0; n < 2000; n++)
	{
		int64_t		a = privquant_target(0.3, n),
					b = privquant_target(0.3, n + 1);

		if (b - a < 0 || b - a > 1)
		{
			CHECK(0, "ceil(q n) moves by 0 or 1 (n = %lld)", (long long) n);
			return;
		}
	}
	CHECK(1, "ceil(q n) moves by 0 or 1 from n to n + 1");
}

static void
check_losses(void)
{
	int64_t		h[NB] = {0},
				loss[PRIVQUANT_N];
	int			one = -PRIVQUANT_KMIN;	/* the bin of R = 1 */
	int			zeros = 0;

	/* 9 rows at norm 1, 1 at norm 2^5: q = 0.5 -> t = 5, bracket of R = 1 */
	h[one] = 9;
	h[one + 20] = 1;
	CHECK(privquant_losses(h, 0.5, loss) == 0 && loss[one] == 0 && loss[one - 1] == 5 &&
		  loss[one + 1] == 5 && loss[one + 20] == 5 && loss[PRIVQUANT_N - 1] == 6,
		  "q = 0.5: loss 0 at R = 1 only, 5 on either side, 6 above the last row");
	/* q = 0.95 -> t = 10: the bracket of 2^5 */
	for (int i = 0; i < PRIVQUANT_N; i++)
		zeros += privquant_losses(h, 0.95, loss) == 0 && loss[i] == 0;
	CHECK(zeros == 1 && loss[one + 20] == 0 && loss[one + 19] == 1 && loss[one] == 1,
		  "q = 0.95: loss 0 at R = 32 only, 1 in the gap below it");
	/* every norm above the grid: R_max alone */
	memset(h, 0, sizeof(h));
	h[privquant_bin(1e300)] = 7;
	CHECK(privquant_losses(h, 0.9, loss) == 0 && loss[PRIVQUANT_N - 1] == 0 && loss[0] == 7,
		  "norms above 2^20: R_max");
	/* zero rows: the smallest candidate alone */
	memset(h, 0, sizeof(h));
	h[privquant_bin(0.0)] = 7;
	CHECK(privquant_losses(h, 0.9, loss) == 0 && loss[0] == 0 && loss[1] == 1 &&
		  loss[PRIVQUANT_N - 1] == 1, "zero norms: the smallest candidate");
	/* no rows: every loss 1 (the uniform choice) */
	memset(h, 0, sizeof(h));
	(void) privquant_losses(h, 0.9, loss);
	CHECK(loss[0] == 1 && loss[PRIVQUANT_N - 1] == 1, "no rows: all losses equal");
}

/* max_i |loss_i(h) - loss_i(h')| */
static int64_t
loss_shift(const int64_t *h, const int64_t *h2, double q)
{
	int64_t		a[PRIVQUANT_N],
				b[PRIVQUANT_N],
				m = 0;

	(void) privquant_losses(h, q, a);
	(void) privquant_losses(h2, q, b);
	for (int i = 0; i < PRIVQUANT_N; i++)
		m = llabs(a[i] - b[i]) > m ? llabs(a[i] - b[i]) : m;
	return m;
}

static void
check_sensitivity(gsl_rng *rng)
{
	const double qs[] = {0.1, 0.5, 0.9, 0.37};
	int64_t		worst1 = 0,
				worstk = 0;

	for (int trial = 0; trial < 3000; trial++)
	{
		int64_t		h[NB] = {0},
					h2[NB];
		double		q = qs[trial % 4];
		int			k = 1 + (int) gsl_rng_uniform_int(rng, 4);

		for (int r = 0; r < (int) gsl_rng_uniform_int(rng, 12); r++)
			h[gsl_rng_uniform_int(rng, NB)]++;
		/* k rows replaced, added or removed, one at a time */
		memcpy(h2, h, sizeof(h));
		for (int j = 0; j < k; j++)
		{
			int			op = (int) gsl_rng_uniform_int(rng, 3);
			int			from = (int) gsl_rng_uniform_int(rng, NB);

			if (op != 1 && h2[from] > 0)
				h2[from]--;		/* removed (or the replaced row's old value) */
			if (op != 0)
				h2[gsl_rng_uniform_int(rng, NB)]++;	/* added (or its new value) */
			if (j == 0)
			{
				int64_t		s = loss_shift(h, h2, q);

				worst1 = s > worst1 ? s : worst1;
			}
		}
		{
			int64_t		s = loss_shift(h, h2, q);

			if (s > k)
				worstk = s > worstk ? s : worstk;
		}
	}
	CHECK(worst1 <= 1, "one row moves every loss by at most 1 (worst %lld)", (long long) worst1);
	CHECK(worstk == 0, "k rows move every loss by at most k (worst excess %lld)", (long long) worstk);
}

#define NDRAW 60000

static void
check_distribution(gsl_rng *rng, const int64_t *h, double q, double eps, int k)
{
	int64_t		loss[PRIVQUANT_N];
	int64_t		minloss = privquant_losses(h, q, loss);
	long		cnt[PRIVQUANT_N] = {0};
	double		w[PRIVQUANT_N],
				z = 0,
				chi2 = 0;
	int			df = -1;

	for (int i = 0; i < NDRAW; i++)
	{
		int			c = -1;

		if (privquant_draw(rng, h, q, eps, k, NULL, NULL, &c) != EXPSAMPLE_OK ||
			c < 0 || c >= PRIVQUANT_N)
		{
			CHECK(0, "draw failed or out of range (%d)", c);
			return;
		}
		cnt[c]++;
	}
	for (int i = 0; i < PRIVQUANT_N; i++)
		z += (w[i] = exp(-eps / (2.0 * k) * (double) (loss[i] - minloss)));
	/* bins of expected count >= 5; the others pooled */
	{
		double		pe = 0,
					po = 0;

		for (int i = 0; i < PRIVQUANT_N; i++)
		{
			double		e = NDRAW * w[i] / z;

			if (e >= 5)
			{
				chi2 += (cnt[i] - e) * (cnt[i] - e) / e;
				df++;
			}
			else
			{
				pe += e;
				po += cnt[i];
			}
		}
		if (pe > 0)
		{
			chi2 += (po - pe) * (po - pe) / pe;
			df++;
		}
	}
	CHECK(df >= 1 && gsl_cdf_chisq_Q(chi2, df) > 1e-6,
		  "private quantile q = %g, eps = %g, k = %d: chi2 = %.1f on %d df", q, eps, k, chi2, df);
}

static void
check_rowclip(void)
{
	double		a[3] = {3, -4, 0},
				b[2] = {0.3, -0.4},
				c[2] = {1e300, -1e300},
				z[2] = {-0.0, 0.0},
				l1[2] = {3, -1};

	CHECK(rowclip_norm(a, 3, false) == 5 && rowclip_norm(l1, 2, true) == 4 &&
		  rowclip_norm(c, 2, false) > 1.4e300 && isfinite(rowclip_norm(c, 2, false)),
		  "norms, scaled: finite for huge values");
	rowclip_apply(a, 3, 2.5, false);
	CHECK(sqrt(a[0] * a[0] + a[1] * a[1]) <= 2.5 && fabs(a[0] - 1.5) < 1e-15 &&
		  fabs(a[1] + 2.0) < 1e-15 && a[2] == 0, "a long row scaled to R, its direction kept");
	rowclip_apply(b, 2, 2.5, false);
	CHECK(b[0] == 0.3 && b[1] == -0.4, "a short row unchanged");
	rowclip_apply(c, 2, 1.0, false);
	CHECK(c[0] * c[0] + c[1] * c[1] <= 1.0 && c[0] > 0.7 && c[1] < -0.7, "huge values clipped");
	rowclip_apply(z, 2, INFINITY, false);
	CHECK(!signbit(z[0]) && z[1] == 0, "-0.0 becomes 0.0; R = +inf clips nothing");
	rowclip_apply(l1, 2, 2.0, true);
	CHECK(fabs(l1[0]) + fabs(l1[1]) <= 2.0 && fabs(l1[0] - 1.5) < 1e-15, "l1 clip");
}

/*
 * The no-clip certificate: whenever it holds, ||x||^2 <= R^2 (1 - 2^-21)
 * (checked in long double, whose 64-bit significand leaves a margin of
 * 2^-40) and the scaled norm test of dp_linear_regression's normalisation
 * (m sqrt(s) > R, src/families/linear/linearparams.c) is false; rows at 0.99 R hold it;
 * rows at and just inside R, huge, tiny and subnormal values, R outside
 * [2^-200, 2^200] around the limits.
 */
static void
check_certainly_within(gsl_rng *rng)
{
	double		Rs[] = {1.0, 0.3, 1e-30, 3.7e50, 0x1p-200, 0x1p200, 0x1p-201, 0x1p201};
	double		scales[] = {0.5, 0.99, 1 - 0x1p-20, 1 - 0x1p-21, 1 - 0x1p-22, 1 - 0x1p-23,
		1 - 0x1p-30, 1 - 0x1p-50, 1, 1.01};
	int			ds[] = {1, 2, 3, 10, 11, 51};
	int			wrong = 0,
				held_inside = 0;

	for (size_t a = 0; a < sizeof(Rs) / sizeof(Rs[0]); a++)
		for (size_t b = 0; b < sizeof(scales) / sizeof(scales[0]); b++)
			for (size_t c = 0; c < sizeof(ds) / sizeof(ds[0]); c++)
				for (int rep = 0; rep < 200; rep++)
				{
					double		x[51],
								R = Rs[a],
								m = 0,
								s = 0,
								n;
					long double e = 0;
					int			d = ds[c];

					for (int j = 0; j < d; j++)
						x[j] = (gsl_rng_uniform(rng) - 0.5) *
							(rep % 10 == 0 && j > 0 ? 0x1p-1000 : 1.0);
					n = rowclip_norm(x, d, false);
					for (int j = 0; j < d && n > 0; j++)
						x[j] = x[j] / n * R * scales[b];
					if (!rowclip_certainly_within(x, d, R))
						continue;
					held_inside += scales[b] == 0.99 && R == 1.0;
					for (int j = 0; j < d; j++)
					{
						m = fabs(x[j]) > m ? fabs(x[j]) : m;
						e += (long double) x[j] * x[j];
					}
					for (int j = 0; m > 0 && j < d; j++)
						s += (x[j] / m) * (x[j] / m);
					wrong += e > (long double) R * R * (1 - 0x1p-21L) * (1 + 0x1p-40L) ||
						(m > 0 && m * sqrt(s) > R) ||
						R < 0x1p-200 || R > 0x1p200;
				}
	CHECK(wrong == 0, "%d rows certified within R are not", wrong);
	CHECK(held_inside == 6 * 200, "rows at 0.99 R: %d of 1200 certified", held_inside);
	{
		double		huge[2] = {1e300, 1e300},
					zero[3] = {0, -0.0, 0};

		CHECK(!rowclip_certainly_within(huge, 2, 1e300) &&
			  rowclip_certainly_within(zero, 3, 1.0) &&
			  !rowclip_certainly_within(zero, 3, 0x1p-201),
			  "an overflowing sum and an R outside the range certify nothing; zero rows hold");
	}
}

/* gamma = epsilon / (2k) survives a reduced num / den: epsilon 1/2, k 3 is not uniform */
static void
check_small_gamma(gsl_rng *rng)
{
	int64_t		h[NB] = {0};
	int			hits = 0;

	h[-PRIVQUANT_KMIN] = 1000;	/* every norm at R = 1: loss 0 there, >= 500 elsewhere */
	for (int r = 0; r < 200; r++)
	{
		int			c = -1;

		if (privquant_draw(rng, h, 0.5, 0.5, 3, NULL, NULL, &c) == EXPSAMPLE_OK &&
			c == -PRIVQUANT_KMIN)
			hits++;
	}
	CHECK(hits == 200, "epsilon 0.5, k 3: the zero-loss candidate every time (%d of 200)", hits);
}

/*
 * A caller's grid of nbins candidates (rows per unit 1, 2, ..., 64: 7 bins,
 * protected/unitbound.c): the losses of its bins alone, and draws inside it
 */
static void
check_grid_n(gsl_rng *rng)
{
	int64_t		h[7] = {1900, 0, 0, 0, 0, 0, 100},
				empty[3] = {0},
				loss[7];
	int			chosen,
				seen[3] = {0},
				inside = 1;

	/* t = ceil(q 2000) of the double nearest 0.9 (just above it): 1801 */
	CHECK(privquant_target(0.9, 2000) == 1801 && privquant_losses_n(h, 7, 0.9, loss) == 0 &&
		  loss[0] == 0 && loss[1] == 100 && loss[6] == 100,
		  "losses over 7 bins: 0 at the first, 100 after");
	for (int i = 0; i < 200; i++)
	{
		privquant_draw_n(rng, h, 7, 0.9, 4.0, 1, NULL, NULL, &chosen);
		inside = inside && chosen == 0;
	}
	CHECK(inside, "at epsilon 4 the 0.9 quantile's bin, every draw (others w.p. < e^-200)");
	for (int i = 0; i < 3000; i++)
	{
		privquant_draw_n(rng, empty, 3, 0.9, 1.0, 1, NULL, NULL, &chosen);
		if (chosen < 0 || chosen > 2)
			inside = 0;
		else
			seen[chosen]++;
	}
	/* uniform: each 1000 +- 26 sd; 8 sd bands */
	CHECK(inside && seen[0] > 790 && seen[0] < 1210 && seen[1] > 790 && seen[1] < 1210 &&
		  seen[2] > 790 && seen[2] < 1210, "no unit: uniform over the 3 bins, none outside");
}

int
main(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int64_t		h[NB] = {0},
				empty[NB] = {0};

	gsl_rng_set(rng, 20261125);
	check_grid();
	check_target();
	check_losses();
	check_sensitivity(rng);
	check_rowclip();
	check_certainly_within(rng);
	check_small_gamma(rng);
	check_grid_n(rng);
	/* 20 rows: norms near 1, 2, 4 and 5 above 2^20 */
	h[-PRIVQUANT_KMIN] = 6;
	h[-PRIVQUANT_KMIN + 4] = 5;
	h[-PRIVQUANT_KMIN + 8] = 4;
	h[PRIVQUANT_N - 1] = 5;
	check_distribution(rng, h, 0.5, 2.0, 1);
	check_distribution(rng, h, 0.9, 1.0, 1);
	check_distribution(rng, h, 0.5, 4.0, 2);
	check_distribution(rng, empty, 0.9, 1.0, 1);
	gsl_rng_free(rng);
	return unitcheck_report();
}
