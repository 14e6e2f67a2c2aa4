/*
 * test_expsample.c -- the exact exponential-mechanism sampler of
 * src/core/expsample.c.  (a) Distribution: with a seeded Mersenne Twister,
 * the frequencies of many draws against the exact probabilities
 * exp(-gamma Delta_k) / Z by a chi-square test, each at a 1e-6 false-alarm
 * level (fixed seed: the verdict is reproducible; over the CHI_CASES cases a
 * correct sampler fails with probability below 1e-5).  (b) Exactness: with a
 * scripted generator, a point whose floating-point weight exp(-eps Delta / 2)
 * underflows to 0 (eps Delta / 2 = 1000 > 745) is returned by the exact
 * sampler, while the former floating-point inverse-CDF sampler returns the
 * other point for every uniform it can draw.  (c) The poll callback stops a
 * draw.  Also the exact rational gamma = epsilon / 2.  Prints
 * "N passed, M failed".
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>

#include "core/expsample.h"
#include "unitcheck.h"

/* ---- (a) distribution ---- */

#define NDRAW 40000
#define MAXN 8

static void
check_distribution(gsl_rng *rng, const int64_t *loss, int n, double eps)
{
	uint64_t	num,
				den;
	long		cnt[MAXN] = {0};
	double		w[MAXN],
				z = 0,
				chi2 = 0;
	int64_t		minloss = loss[0];

	for (int k = 1; k < n; k++)
		if (loss[k] < minloss)
			minloss = loss[k];
	(void) expsample_gamma(eps, &num, &den);
	for (int i = 0; i < NDRAW; i++)
	{
		int64_t		k = -1;

		if (expsample_draw(rng, loss, n, minloss, num, den, NULL, NULL, &k) != EXPSAMPLE_OK ||
			k < 0 || k >= n)
		{
			CHECK(0, "eps %g: draw failed or out of range (%lld)", eps, (long long) k);
			return;
		}
		cnt[k]++;
	}
	for (int k = 0; k < n; k++)
		z += (w[k] = exp(-eps / 2.0 * (double) (loss[k] - minloss)));
	for (int k = 0; k < n; k++)
	{
		double		e = NDRAW * w[k] / z;

		chi2 += (cnt[k] - e) * (cnt[k] - e) / e;
	}
	CHECK(gsl_cdf_chisq_Q(chi2, n - 1) > 1e-6,
		  "exponential mechanism n = %d, eps = %g: chi2 = %.1f on %d points", n, eps, chi2, n);
}

/* ---- (b) exactness: a scripted generator ---- */

static uint32_t script[1 << 14];
static size_t script_len,
			script_pos;

static void
script_set(void *state, unsigned long seed)
{
	(void) state;
	(void) seed;
	script_pos = 0;
}

static unsigned long
script_get(void *state)
{
	(void) state;
	return script[script_pos++ % script_len];
}

static double
script_get_double(void *state)
{
	return script_get(state) / 4294967296.0;
}

static const gsl_rng_type script_type = {
	"script", 0xffffffffUL, 0, 0, &script_set, &script_get, &script_get_double
};

static void
script_push64(uint64_t v)
{
	script[script_len++] = (uint32_t) (v >> 32);
	script[script_len++] = (uint32_t) v;
}

/* the former sampler: floating-point weights, inverse CDF at u * total */
static int64_t
float_sampler(const int64_t *loss, int64_t n, int64_t minloss, double eps, double u01)
{
	double		total = 0,
				u;

	for (int64_t k = 0; k < n; k++)
		total += exp(-eps * (double) (loss[k] - minloss) / 2.0);
	u = u01 * total;
	for (int64_t k = 0; k < n; k++)
	{
		u -= exp(-eps * (double) (loss[k] - minloss) / 2.0);
		if (u < 0)
			return k;
	}
	return n - 1;
}

static void
check_underflow_reachable(void)
{
	/* eps = 2: gamma = 1, Delta = 1000, exp(-1000) == 0.0 in a double */
	const int64_t loss[2] = {0, 1000};
	uint64_t	num,
				den;
	int64_t		k = -1;
	gsl_rng    *rng;

	CHECK(exp(-2.0 * 1000 / 2.0) == 0.0, "exp(-1000) underflows to 0");
	/* the float sampler: total = 1, every u < 1 lands on point 0 */
	CHECK(float_sampler(loss, 2, 0, 2.0, 0.0) == 0 &&
		  float_sampler(loss, 2, 0, 2.0, 1.0 - ldexp(1.0, -32)) == 0 &&
		  float_sampler(loss, 2, 0, 2.0, nextafter(1.0, 0.0)) == 0,
		  "the float sampler can only return point 0");

	/*
	 * The stream: propose point 1 (64-bit word 1, 1 mod 2), then 1000
	 * Bernoulli(exp(-1)) successes -- each CKS20 Algorithm 1 run A_1 = 1
	 * (0 < 1), A_2 = 1 (0 mod 2 < 1), A_3 = 0 (1 mod 3 >= 1): k = 3, odd --
	 * and the remainder Bernoulli(exp(0)) (A_1 = 0 at once: k = 1, odd).
	 */
	script_len = 0;
	script_push64(1);
	for (int i = 0; i < 1000; i++)
	{
		script_push64(0);
		script_push64(0);
		script_push64(1);
	}
	script_push64(0);
	rng = gsl_rng_alloc(&script_type);
	CHECK(expsample_gamma(2.0, &num, &den) && num == 1 && den == 1, "gamma(2) = 1/1");
	CHECK(expsample_draw(rng, loss, 2, 0, num, den, NULL, NULL, &k) == EXPSAMPLE_OK && k == 1,
		  "the exact sampler returns the underflowed point 1 (got %lld)", (long long) k);
	CHECK(script_pos == script_len, "the scripted stream was consumed exactly (%zu of %zu)",
		  script_pos, script_len);
	gsl_rng_free(rng);
}

/* ---- (c) the poll callback ---- */

static bool
poll_stop_third(void *arg)
{
	return ++*(int *) arg == 3;
}

static void
check_poll(gsl_rng *rng)
{
	/*
	 * Every point is gamma Delta = 5e5 above minloss: accepted with
	 * probability exp(-5e5) per proposal, so only the poll ends the draw.
	 */
	static int64_t far[4096];
	const int64_t one[1] = {0};
	int64_t		k = -7;
	int			npolls = 0;
	uint64_t	num,
				den;

	(void) expsample_gamma(1.0, &num, &den);
	for (int i = 0; i < 4096; i++)
		far[i] = 1000000;
	CHECK(expsample_draw(rng, far, 4096, 0, num, den, poll_stop_third, &npolls, &k) == EXPSAMPLE_STOPPED &&
		  npolls == 3 && k == -7,
		  "the poll callback stops the draw at its third call (polls %d, k %lld)", npolls, (long long) k);
	/* a one-point draw accepts at once, before any poll */
	npolls = 0;
	CHECK(expsample_draw(rng, one, 1, 0, num, den, poll_stop_third, &npolls, &k) == EXPSAMPLE_OK &&
		  k == 0 && npolls == 0, "a one-point draw needs no poll");
}

/* ---- the rational gamma ---- */

static void
check_gamma(void)
{
	const double exact[] = {2.0, 1.0, 0.1, 0.05, 3.7, 1e-3, 1e6, 0.25, ldexp(1.0, 61), ldexp(1.0, -60)};
	uint64_t	num,
				den;

	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
	{
		bool		ok = expsample_gamma(exact[i], &num, &den);

		CHECK(ok && ldexp((double) num, -(int) log2((double) den)) == exact[i] / 2 &&
			  (den == 1 || num % 2 == 1) && num < ((uint64_t) 1 << 63) && den <= ((uint64_t) 1 << 62),
			  "gamma(%g) = %llu / %llu exactly", exact[i],
			  (unsigned long long) num, (unsigned long long) den);
	}
	/* more than 62 fractional bits: rounded down, never up */
	{
		bool		ok = expsample_gamma(1e-10, &num, &den);
		double		n62 = (double) (num * (((uint64_t) 1 << 62) / den));

		CHECK(!ok && den <= ((uint64_t) 1 << 62) &&
			  n62 <= ldexp(0.5e-10, 62) && ldexp(0.5e-10, 62) < n62 + 1,
			  "gamma(1e-10) rounds down to %llu / %llu", (unsigned long long) num,
			  (unsigned long long) den);
	}
	CHECK(!expsample_gamma(1e-300, &num, &den) && num == 0, "gamma(1e-300) = 0 (uniform)");
	CHECK(!expsample_gamma(1e300, &num, &den) && num == ((uint64_t) 1 << 61) && den == 1,
		  "gamma(1e300) capped at 2^61");
}

int
main(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	const int64_t l1[4] = {0, 1, 2, 3};
	const int64_t l2[6] = {5, 3, 3, 9, 4, 3};
	const int64_t l3[2] = {0, 1};

	gsl_rng_set(rng, 20240601);
	check_gamma();
	/* CHI_CASES = 7 chi-square cases */
	check_distribution(rng, l1, 4, 0.5);
	check_distribution(rng, l1, 4, 2.0);
	check_distribution(rng, l1, 4, 0.1);
	check_distribution(rng, l2, 6, 1.0);
	check_distribution(rng, l2, 6, 2.5);
	check_distribution(rng, l3, 2, 3.7);
	check_distribution(rng, l2, 6, 1e-12);
	check_underflow_reachable();
	check_poll(rng);
	gsl_rng_free(rng);
	return unitcheck_report();
}
