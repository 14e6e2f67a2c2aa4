/*-------------------------------------------------------------------------
 *
 * rowclip.c
 *	  A row's norm and its clipping to a norm bound (rowclip.h).
 *
 *-------------------------------------------------------------------------
 */
#include "core/rowclip.h"

#include <math.h>

double
rowclip_plain_norm(const double *x, int d, bool l1)
{
	double		t = 0;

	for (int j = 0; j < d; j++)
		t += l1 ? fabs(x[j]) : x[j] * x[j];
	return l1 ? t : sqrt(t);
}

double
rowclip_norm(const double *x, int d, bool l1)
{
	double		m = 0,
				s = 0;

	for (int j = 0; j < d; j++)
		m = fmax(m, fabs(x[j]));
	if (m == 0)
		return 0;
	for (int j = 0; j < d; j++)
		s += l1 ? fabs(x[j] / m) : (x[j] / m) * (x[j] / m);
	return l1 ? m * s : m * sqrt(s);
}

void
rowclip_apply(double *x, int d, double R, bool l1)
{
	double		m = 0,
				norm;

	for (int j = 0; j < d; j++)
		m = fmax(m, fabs(x[j]));
	norm = rowclip_norm(x, d, l1);
	if (m > 0 && norm > R)
	{
		for (int j = 0; j < d; j++)
			x[j] = (x[j] / m) * (R / (norm / m));
		/* rounding may leave the norm a hair above R: shrink until not */
		for (int k = 0; k < 4; k++)
		{
			if (rowclip_plain_norm(x, d, l1) <= R)
				break;
			for (int j = 0; j < d; j++)
				x[j] *= (1.0 - 1e-15);
		}
	}
	for (int j = 0; j < d; j++)
		if (x[j] == 0)
			x[j] = 0;			/* -0.0 and 0.0 are the same row */
}

/*
 * q = the sum of fl(x_j x_j) in floating point, in any order (two partial
 * sums here).  Each square is x_j^2 (1 + e), |e| <= u = 2^-53, less at most
 * 2^-1075 where it underflows; adding non-negative terms loses at most a
 * factor (1 - u) each (at most d additions per term), so q >= ((1 - u)
 * ||x||^2 - d 2^-1075) (1 - u)^d and ||x||^2 <= q (1 - u)^-(d+1) + d 2^-1074.
 * The limit lim = fl(fl(R R) c), c = 1 - 2^-20 (exact), is at most R^2 c
 * (1 + u)^2 (R R is normal), so q <= lim gives ||x||^2 <= R^2 c (1 + u)^2
 * (1 - u)^-(d+1) + d 2^-1074 <= R^2 c (1 + 2^-32) + 2^-1054 (d <= 2^20), and
 * with R^2 >= 2^-400 that is at most R^2 (1 - 2^-21).  An overflow makes q
 * infinite and the test false.
 */
bool
rowclip_certainly_within(const double *x, int d, double R)
{
	double		q0 = 0,
				q1 = 0;
	int			j;

	if (!(R >= 0x1p-200 && R <= 0x1p200) || d > (1 << 20))
		return false;
	for (j = 0; j + 1 < d; j += 2)
	{
		q0 += x[j] * x[j];
		q1 += x[j + 1] * x[j + 1];
	}
	if (j < d)
		q0 += x[j] * x[j];
	return q0 + q1 <= R * R * (1.0 - 0x1p-20);
}
