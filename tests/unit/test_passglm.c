/*
 * test_passglm.c -- the degree-2 Chebyshev approximation of the logistic loss
 * (src/core/passglmpoly.c) against an independent Simpson-rule integral of the
 * Chebyshev coefficient, its exact symmetry (b1 = -1/2) and its error on [-r, r].
 */
#include <math.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#include "core/passglmpoly.h"
#include "unitcheck.h"

static double
loss(double s)
{
	return log(1.0 + exp(-s));
}

/* c_k = (2/pi) int_0^pi f(r cos theta) cos(k theta) dtheta, Simpson with m intervals */
static double
simpson_coef(double r, int k, int m)
{
	double		h = M_PI / m,
				sum = 0;

	for (int i = 0; i <= m; i++)
	{
		double		th = i * h;
		double		w = (i == 0 || i == m) ? 1 : (i % 2 ? 4 : 2);

		sum += w * loss(r * cos(th)) * cos(k * th);
	}
	return 2.0 / M_PI * sum * h / 3.0;
}

int
main(void)
{
	double		b0,
				b1,
				b2,
				a0,
				a1,
				a2,
				worst = 0;
	double		r = PASSGLM_RADIUS;

	passglm_chebyshev2(r, 256, &b0, &b1, &b2);
	CHECK(fabs(b1 + 0.5) < 1e-12, "b1 = %.15g, expected -1/2", b1);
	CHECK(fabs(b2 - 2.0 * simpson_coef(r, 2, 20000) / (r * r)) < 1e-9,
		  "b2 = %.12g against Simpson %.12g", b2, 2.0 * simpson_coef(r, 2, 20000) / (r * r));
	CHECK(fabs(b0 - (simpson_coef(r, 0, 20000) / 2.0 - simpson_coef(r, 2, 20000))) < 1e-9,
		  "b0 = %.12g", b0);
	CHECK(fabs(b2 - 0.0817) < 5e-5, "b2 = %.6f, documented as 0.0817 for r = 4", b2);
	passglm_chebyshev2(r, 64, &a0, &a1, &a2);
	CHECK(fabs(a2 - b2) < 1e-12 && fabs(a0 - b0) < 1e-12, "quadrature converged: n = 64 vs 256");
	for (int i = 0; i <= 800; i++)
	{
		double		s = -r + 2.0 * r * i / 800;

		worst = fmax(worst, fabs(loss(s) - (b0 + b1 * s + b2 * s * s)));
	}
	/* the degree-2 truncation's error on [-4, 4]: about 0.1 at the ends, small inside */
	CHECK(worst < 0.15, "max error on [-r, r] = %g", worst);
	CHECK(fabs(passglm_scale() - 0.5 / (2.0 * b2)) < 1e-12, "scale = -b1 / (2 b2)");
	CHECK(b2 > 0, "convex quadratic: b2 > 0");
	return unitcheck_report();
}
