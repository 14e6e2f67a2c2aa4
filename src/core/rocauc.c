/*-------------------------------------------------------------------------
 *
 * rocauc.c
 *	  ROC AUC from noisy per-label score histograms (rocauc.h).
 *
 *-------------------------------------------------------------------------
 */
#include "core/rocauc.h"

#include <math.h>

int
rocauc_bin(double score, double centre, double scale, int bins)
{
	int			half = bins / 2;
	double		v = score - centre,
				u;
	int			b;

	if (v > 0)
	{
		u = isinf(v) ? 1.0 : v / (scale + v);
		b = half + (int) floor(u * half);
		return b > bins - 1 ? bins - 1 : b;
	}
	u = isinf(v) ? 1.0 : -v / (scale - v);
	b = half - 1 - (int) floor(u * half);
	return b < 0 ? 0 : b;
}

/*
 * Hanley and McNeil's (1982) sampling variance of an AUC a over n1
 * positives and n0 negatives
 */
static double
rocauc_sampling_var(double a, double n1, double n0)
{
	double		q1 = a / (2 - a),
				q2 = 2 * a * a / (1 + a);
	double		v = a * (1 - a) + (n1 - 1) * (q1 - a * a) + (n0 - 1) * (q2 - a * a);

	return v > 0 ? v / (n1 * n0) : 0;
}

bool
rocauc_estimate(const double *pos, const double *neg, int bins, double noise_var,
				RocAUC *out)
{
	double		n1 = 0,
				n0 = 0,
				u = 0,
				below = 0,
				tied = 0,
				a,
				var_noise = 0,
				above;

	for (int b = 0; b < bins; b++)
	{
		n1 += pos[b];
		n0 += neg[b];
	}
	if (!(n1 >= 1 && n0 >= 1))
		return false;
	for (int b = 0; b < bins; b++)
	{
		u += pos[b] * (below + neg[b] / 2);
		below += neg[b];
		tied += (pos[b] > 0 ? pos[b] : 0) * (neg[b] > 0 ? neg[b] : 0);
	}
	a = u / (n1 * n0);
	/* dA/dpos[b] = (neg below b + neg[b]/2 - a n0) / (n1 n0); dA/dneg[b] likewise */
	below = 0;
	above = n1;
	for (int b = 0; b < bins; b++)
	{
		double		dp,
					dn;

		above -= pos[b];
		dp = (below + neg[b] / 2 - a * n0) / (n1 * n0);
		dn = (above + pos[b] / 2 - a * n1) / (n1 * n0);
		var_noise += dp * dp + dn * dn;
		below += neg[b];
	}
	var_noise *= noise_var;
	out->auc = a < 0 ? 0 : a > 1 ? 1 : a;
	out->tied = tied / (n1 * n0);
	if (out->tied > 1)
		out->tied = 1;
	out->sd = sqrt(rocauc_sampling_var(out->auc, n1, n0) + var_noise);
	out->ci_low = out->auc - 1.959963984540054 * out->sd - out->tied / 2;
	out->ci_high = out->auc + 1.959963984540054 * out->sd + out->tied / 2;
	out->ci_low = out->ci_low < 0 ? 0 : out->ci_low;
	out->ci_high = out->ci_high > 1 ? 1 : out->ci_high;
	return true;
}
