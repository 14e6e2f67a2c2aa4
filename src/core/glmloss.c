/*-------------------------------------------------------------------------
 *
 * glmloss.c
 *	  The losses of the continuous-weight mechanisms (glmloss.h); plain C.
 *
 *-------------------------------------------------------------------------
 */
#include "core/glmloss.h"

#include <math.h>

/*
 * Losses in z = y <theta, x> (docs/ALGORITHMS.md, "L2-regularised GLMs"):
 *   logistic  l = ln(1 + e^-z)            |l'| <= 1, l'' <= 1/4
 *   huber     l = 0               z > 1 + h
 *               = (1 + h - z)^2/(4h)  |1 - z| <= h
 *               = 1 - z           z < 1 - h     |l'| <= 1, l'' <= 1/(2h)
 *   hinge     l = max(0, 1 - z)   (dp_opsamp scales it, opsamp.c)
 */
void
glm_loss(GLMLoss loss, double h, double z, double *f, double *df, double *d2f)
{
	switch (loss)
	{
		case GLM_LOSS_LOGISTIC:
			if (z > 0)
			{
				double		e = exp(-z);

				*f = log1p(e);
				*df = -e / (1.0 + e);
				*d2f = e / ((1.0 + e) * (1.0 + e));
			}
			else
			{
				double		e = exp(z);

				*f = -z + log1p(e);
				*df = -1.0 / (1.0 + e);
				*d2f = e / ((1.0 + e) * (1.0 + e));
			}
			break;
		case GLM_LOSS_HUBER:
			if (z > 1.0 + h)
			{
				*f = 0;
				*df = 0;
				*d2f = 0;
			}
			else if (z < 1.0 - h)
			{
				*f = 1.0 - z;
				*df = -1.0;
				*d2f = 0;
			}
			else
			{
				*f = (1.0 + h - z) * (1.0 + h - z) / (4.0 * h);
				*df = -(1.0 + h - z) / (2.0 * h);
				*d2f = 1.0 / (2.0 * h);
			}
			break;
		default:
			*f = z < 1.0 ? 1.0 - z : 0.0;
			*df = z < 1.0 ? -1.0 : 0.0;
			*d2f = 0;
			break;
	}
}
