/*-------------------------------------------------------------------------
 *
 * rowclip.c
 *	  A row's norm and its clipping to a norm bound (rowclip.h).
 *
 *-------------------------------------------------------------------------
 */
#include "rowclip.h"

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
