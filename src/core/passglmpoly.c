/*-------------------------------------------------------------------------
 *
 * passglmpoly.c
 *	  The degree-2 Chebyshev approximation of the logistic loss (passglmpoly.h).
 *
 * On [-r, r] with t = s / r, log(1 + e^-s) = sum_k c_k T_k(t), where
 * c_k = (2 - [k = 0]) / n sum_j f(r cos theta_j) cos(k theta_j),
 * theta_j = pi (j + 1/2) / n (Gauss-Chebyshev quadrature, exact for the
 * polynomial part up to degree 2n - 1).  Truncated after T_2 and written in
 * powers of s: T_0 = 1, T_1 = t, T_2 = 2 t^2 - 1, so
 * b0 = c0 - c2, b1 = c1 / r, b2 = 2 c2 / r^2.  Since log(1 + e^-s) - (-s / 2)
 * is even, b1 = -1/2 exactly and the odd coefficients above T_1 vanish.
 *
 *-------------------------------------------------------------------------
 */
#include "core/passglmpoly.h"

#include <math.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* log(1 + e^-s) without overflow for large |s| */
static double
logistic_loss(double s)
{
	return s > 0 ? log1p(exp(-s)) : -s + log1p(exp(s));
}

void
passglm_chebyshev2(double r, int n, double *b0, double *b1, double *b2)
{
	double		c[3] = {0, 0, 0};

	for (int j = 0; j < n; j++)
	{
		double		theta = M_PI * (j + 0.5) / n;
		double		f = logistic_loss(r * cos(theta));

		for (int k = 0; k < 3; k++)
			c[k] += f * cos(k * theta);
	}
	c[0] /= n;
	c[1] *= 2.0 / n;
	c[2] *= 2.0 / n;
	*b0 = c[0] - c[2];
	*b1 = c[1] / r;
	*b2 = 2.0 * c[2] / (r * r);
}

double
passglm_scale(void)
{
	double		b0,
				b1,
				b2;

	passglm_chebyshev2(PASSGLM_RADIUS, 256, &b0, &b1, &b2);
	return -b1 / (2.0 * b2);
}
