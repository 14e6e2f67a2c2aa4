/*
 * test_auditmutant.c -- the audit's mutant hooks in src/core (auditmutant.h):
 * built once as the real build and once per family with
 * -DDPOBJ_AUDIT_MUTANT=<family> (Makefile), each program checks that its own
 * build's calibrations are the real ones, or 1.5 times too weak exactly in the
 * hooked family:
 *   sigma    the discrete Gaussian's sample variance (sigma2 / 2.25)
 *   laplace  the discrete Laplace's mean |X| (scale / 1.5)
 *   shift    dp_shift_sigma against the delta it must meet (sigma / 1.5)
 *   units    dp_epsilon_per_row(eps, 3) (eps / 2 instead of eps / 3)
 * Last line "N passed, M failed".
 */
#include <math.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "core/auditmutant.h"
#include "core/calibrate.h"
#include "core/dpnoise.h"
#include "unitcheck.h"

#define DRAWS 200000

int
main(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double		f = DPOBJ_MUTANT_FACTOR;
	double		sum2 = 0.0,
				sum1 = 0.0,
				want,
				sigma,
				e;

	gsl_rng_set(rng, 20261124);

	/* discrete Gaussian, sigma^2 = 2.25e6: sample variance within 2 % */
	for (int i = 0; i < DRAWS; i++)
	{
		double		y = (double) dpnoise_discrete_gaussian(rng, 2250000);

		sum2 += y * y;
	}
	want = DPOBJ_MUTANT_IS(sigma) ? 2250000.0 / (f * f) : 2250000.0;
	CHECK(fabs(sum2 / DRAWS / want - 1.0) < 0.02,
		  "discrete Gaussian variance %.0f, expected %.0f", sum2 / DRAWS, want);

	/* discrete Laplace of scale 3000: mean |X| within 2 % of the scale (t large) */
	for (int i = 0; i < DRAWS; i++)
	{
		int64_t		y = dpnoise_discrete_laplace(rng, 3000, 1);

		sum1 += (double) (y < 0 ? -y : y);
	}
	want = DPOBJ_MUTANT_IS(laplace) ? 3000.0 / f : 3000.0;
	CHECK(fabs(sum1 / DRAWS / want - 1.0) < 0.02,
		  "discrete Laplace mean |X| %.1f, expected %.1f", sum1 / DRAWS, want);

	/* the radial-shift sigma meets delta exactly at the real calibration */
	sigma = dp_shift_sigma(1.0, 1e-6, 2.0, 2);
	if (DPOBJ_MUTANT_IS(shift))
		sigma *= f;
	CHECK(dp_shift_delta(1.0, sigma, 2.0, 2) <= 1e-6 &&
		  dp_shift_delta(1.0, sigma / 1.01, 2.0, 2) > 1e-6,
		  "dp_shift_sigma(1, 1e-6, 2, 2)%s = %g is the least sigma meeting delta",
		  DPOBJ_MUTANT_IS(shift) ? " * 1.5" : "", sigma);

	/* a unit of 3 rows */
	e = dp_epsilon_per_row(1.0, 3);
	want = DPOBJ_MUTANT_IS(units) ? 0.5 : 1.0 / 3.0;
	CHECK(fabs(e - want) < 1e-12, "dp_epsilon_per_row(1, 3) = %.17g, expected %.17g", e, want);

	gsl_rng_free(rng);
	return unitcheck_report();
}
