/*
 * test_keysel.c -- private key selection's threshold (src/core/keysel.c),
 * against an independent tail: the discrete Laplace's pmf normalised by
 * direct summation, and every way a unit's rows can fall into keys (at
 * most m keys, counts >= 1 summing to <= k) enumerated for small k.
 * Checks: T > k; the lone keys of every such unit released with
 * probability <= delta at T, more than delta at T - 1 (T is the least);
 * bad arguments give -1; over 40000 exact draws a lone key of count 1 is
 * released at most delta of the time (4 sigma) and a large count always.
 * Built again with -DDPOBJ_AUDIT_MUTANT=keysel (test_keysel_mutant): that
 * build's threshold is set for 1.5 delta, and the same checks must catch
 * it (each check's expectation flips).  Last line "N passed, M failed".
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "core/auditmutant.h"
#include "core/keysel.h"
#include "unitcheck.h"

#define WEAK DPOBJ_MUTANT_IS(keysel)

/* P(Y >= t) for Y discrete Laplace num / den, by summing the pmf */
static long double
tail(uint64_t num, uint64_t den, int64_t t)
{
	long double q = expl(-(long double) den / (long double) num),
				z = 0,
				s = 0;
	int64_t		L = (int64_t) (80.0L * num / den) + 10;

	for (int64_t y = -L; y <= L; y++)
	{
		long double p = powl(q, (long double) llabs(y));

		z += p;
		if (y >= t)
			s += p;
	}
	return s / z;
}

/*
 * the largest release probability of a unit's lone keys at threshold T: every
 * multiset of at most m counts >= 1 summing to <= k (counts non-increasing)
 */
static long double
worst(uint64_t num, uint64_t den, int64_t k, int64_t m, int64_t T, int64_t left, int64_t maxc,
	  int64_t used)
{
	long double best = 0;

	for (int64_t c = 1; c <= maxc && c <= left && used < m; c++)
	{
		long double p = tail(num, den, T - c) +
			worst(num, den, k, m, T, left - c, c, used + 1);

		if (p > best)
			best = p;
	}
	return best;
}

static void
check_case(double eps, int64_t k, int64_t m, double delta)
{
	uint64_t	num = 2ULL << 20,
				den = (uint64_t) floor(eps / k * 1048576.0);
	int64_t		T = keysel_threshold(num, den, k, m, delta);
	long double at = worst(num, den, k, m, T, k, k, 0),
				below = T - 1 > k ? worst(num, den, k, m, T - 1, k, k, 0) : 1;

	CHECK(T > k, "eps %g k %lld m %lld delta %g: T %lld > k", eps, (long long) k, (long long) m,
		  delta, (long long) T);
	CHECK((at <= delta) != WEAK, "eps %g k %lld m %lld delta %g: T %lld releases lone keys w.p. %Lg",
		  eps, (long long) k, (long long) m, delta, (long long) T, at);
	CHECK(below > delta * (1 - 1e-6), "eps %g k %lld m %lld delta %g: T - 1 already meets delta (%Lg)",
		  eps, (long long) k, (long long) m, delta, below);
}

/* n exact draws of a key of count c at the threshold of (num, den, 1, 1, delta) */
static double
released(gsl_rng *rng, uint64_t num, uint64_t den, double delta, int64_t c, int n)
{
	int64_t		T = keysel_threshold(num, den, 1, 1, delta),
				noisy;
	int			r = 0;

	for (int i = 0; i < n; i++)
		r += keysel_draw(rng, c, num, den, T, &noisy);
	return (double) r / n;
}

int
main(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	uint64_t	num = 2ULL << 20,
				den = (uint64_t) floor(0.1 * 1048576.0);
	int			n = 40000;
	double		delta = 0.05,
				f;

	gsl_rng_set(rng, 64);
	check_case(1.0, 1, 1, 1e-5);
	check_case(0.1, 1, 1, 1e-6);
	check_case(1.0, 3, 3, 1e-6);
	check_case(0.5, 5, 2, 1e-4);
	check_case(2.0, 4, 10, 1e-3);
	check_case(0.05, 2, 2, 0.2);

	CHECK(keysel_threshold(num, den, 1, 1, 0) == -1, "delta 0 refused");
	CHECK(keysel_threshold(num, den, 1, 1, 1) == -1, "delta 1 refused");
	CHECK(keysel_threshold(0, den, 1, 1, 0.1) == -1, "num 0 refused");
	CHECK(keysel_threshold(num, den, 0, 1, 0.1) == -1, "k 0 refused");

	f = released(rng, num, den, delta, 1, n);
	CHECK((f <= delta + 4 * sqrt(delta * (1 - delta) / n)) != WEAK,
		  "a lone key of count 1 released %g of %d draws (delta %g)", f, n, delta);
	f = released(rng, num, den, delta, keysel_threshold(num, den, 1, 1, delta) + 400, 2000);
	CHECK(f == 1.0, "a key 20 scales above T released %g of 2000 draws", f);
	gsl_rng_free(rng);
	return unitcheck_report();
}
