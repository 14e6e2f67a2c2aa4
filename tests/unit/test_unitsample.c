/*
 * test_unitsample.c -- the privacy-unit bounding's selection sampling
 * (src/core/unitsample.c): exactly min(m, k) rows kept, every k-subset about
 * equally often, and the step's probability exact at counts past 2^32 (a
 * 32-bit count would saturate there, or wrap).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/unitsample.h"
#include "unitcheck.h"

/* one unit of m rows through the steps, k to keep: the kept rows as a bit mask */
static unsigned
unit_run(DPPrfStream *rng, int m, int k, int *kept)
{
	unsigned	mask = 0;
	uint64_t	need = (uint64_t) k;

	*kept = 0;
	for (int r = 0; r < m; r++)
		if (unit_sample_keep(rng, (uint64_t) (m - r), need))
		{
			mask |= 1u << r;
			need--;
			(*kept)++;
		}
	return mask;
}

int
main(void)
{
	uint8_t		key[16] = {7};
	DPPrfStream rng;
	int			counts[32] = {0};
	int			kept,
				hits = 0,
				bad = 0;
	double		chi2 = 0;

	dp_prf_init(&rng, key);
	/* exactly min(m, k) kept */
	for (int m = 0; m <= 12; m++)
		for (int k = 1; k <= 5; k++)
			for (int t = 0; t < 50; t++)
			{
				(void) unit_run(&rng, m, k, &kept);
				bad += kept != (m < k ? m : k);
			}
	CHECK(bad == 0, "min(m, k) rows kept: %d runs kept another number", bad);

	/* m = 5, k = 2: the 10 subsets, 100 000 runs, chi-square with 9 df below 27.9 (p 0.001) */
	for (int t = 0; t < 100000; t++)
		counts[unit_run(&rng, 5, 2, &kept)]++;
	for (unsigned s = 0; s < 32; s++)
		if (__builtin_popcount(s) == 2)
			chi2 += pow(counts[s] - 10000.0, 2) / 10000.0;
	CHECK(chi2 < 27.9, "every 2-subset of 5 rows equally likely: chi-square %.1f", chi2);

	/* past 2^32: left = 3 x 2^31 rows, need = 2^31: kept with probability 1/3 */
	for (int t = 0; t < 30000; t++)
		hits += unit_sample_keep(&rng, UINT64_C(3) << 31, UINT64_C(1) << 31);
	CHECK(fabs(hits / 30000.0 - 1.0 / 3.0) < 0.012,
		  "a count of 3 x 2^31 rows: kept %.4f of the time, not 1/3", hits / 30000.0);
	/* the last rows of a unit past 2^32 are kept for sure, need of left */
	CHECK(unit_sample_keep(&rng, (UINT64_C(1) << 32) + 3, (UINT64_C(1) << 32) + 3),
		  "left = need past 2^32: kept");
	CHECK(!unit_sample_keep(&rng, (UINT64_C(1) << 40), 0), "need 0: never kept");
	/* a row no count saw (left 0) is kept while need lasts */
	CHECK(unit_sample_keep(&rng, 0, 1) && !unit_sample_keep(&rng, 0, 0), "left 0: need decides");
	return unitcheck_report();
}
