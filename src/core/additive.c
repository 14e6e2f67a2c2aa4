/*-------------------------------------------------------------------------
 *
 * additive.c
 *	  Private additive boosting's arithmetic (additive.h): plain C, over the
 *	  snapped discrete Gaussian's calibration (dpnoise.c).
 *
 *-------------------------------------------------------------------------
 */
#include "core/additive.h"

#include <math.h>

#include "core/dpnoise.h"

int
ebm_layout(const int *groups, int ngroups, int d, int bins, double lo, double hi,
		   EBMTerm *terms, int *nscores)
{
	int			n = 0,
				j = 0,
				off = 0;

	if (d < 1 || bins < 2 || bins > EBM_MAX_BINS || !(isfinite(lo) && isfinite(hi) && lo < hi))
		return -1;
	for (int g = 0; groups == NULL ? j < d : g < ngroups; g++)
	{
		int			m = groups == NULL ? 0 : groups[g];

		if (m < 0 || m == 1 || m > EBM_MAX_BINS || j + (m == 0 ? 1 : m) > d)
			return -1;
		terms[n].type = m == 0 ? EBM_TERM_NUMERIC : EBM_TERM_CATEGORICAL;
		terms[n].index = j;
		terms[n].size = m == 0 ? bins : m;
		terms[n].lo = lo;
		terms[n].hi = hi;
		terms[n].offset = off;
		terms[n].grid = terms[n].size;
		terms[n].map = NULL;
		off += terms[n].size;
		j += m == 0 ? 1 : m;
		n++;
	}
	if (j != d)
		return -1;
	*nscores = off;
	return n;
}

int
ebm_bin(const EBMTerm *t, const double *x)
{
	if (t->type == EBM_TERM_NUMERIC)
	{
		int			c = ebm_grid_cell(x[t->index], t->lo, t->hi, t->grid);

		return t->map != NULL ? t->map[c] : c;
	}
	else
	{
		int			best = 0;

		for (int l = 0; l < t->size; l++)
		{
			if (x[t->index + l] == 1.0)
				return l;
			if (x[t->index + l] > x[t->index + best])
				best = l;
		}
		return best;
	}
}

void
ebm_index(const EBMTerm *terms, int nterms, const double *x, int *idx)
{
	for (int t = 0; t < nterms; t++)
		idx[t] = terms[t].offset + ebm_bin(&terms[t], x);
}

double
ebm_margin(const EBMTerm *terms, int nterms, const double *scores, double bias,
		   const double *x)
{
	double		z = bias;

	for (int t = 0; t < nterms; t++)
		z += scores[terms[t].offset + ebm_bin(&terms[t], x)];
	return z;
}

double
ebm_residual(bool logit, double y, double margin, double c)
{
	double		r = logit ? y - 1.0 / (1.0 + exp(-margin)) : y - margin;

	/* a comparison, exact: NaN (never from finite inputs) becomes 0 */
	return r > c ? c : r < -c ? -c : r == r ? r : 0.0;
}

void
ebm_term_step(double *v, int n, const double *sums, const double *counts, double min_count,
			  double shrink, double clip)
{
	for (int b = 0; b < n; b++)
	{
		double		c = (counts[b] > 0 ? counts[b] : 0) + shrink;
		double		m = sums[b] / (c > min_count ? c : min_count);

		v[b] = m > clip ? clip : m < -clip ? -clip : m;
	}
}

double
ebm_total_count(const EBMTerm *terms, int nterms, const double *counts)
{
	double		sw = 0,
				w = 0;

	for (int t = 0; t < nterms; t++)
	{
		double		total = 0;

		for (int b = 0; b < terms[t].size; b++)
			total += counts[terms[t].offset + b];
		sw += total / terms[t].size;
		w += 1.0 / terms[t].size;
	}
	return w > 0 ? sw / w : 0;
}

double
ebm_shrinkage(double base, double base_rows, double n)
{
	/* a comparison, exact: n <= 0 (noise) or NaN takes the largest */
	if (!(n * EBM_SMALL_SHRINK > base_rows))
		return base * EBM_SMALL_SHRINK;
	return base_rows > n ? base * base_rows / n : base;
}

double
ebm_clip_by_size(double base_rows, double n)
{
	/* a comparison, exact: n <= 0 (noise) or NaN keeps EBM_CLIP */
	return n >= EBM_CLIP_ROWS * base_rows ? EBM_CLIP_LARGE : EBM_CLIP;
}

double
ebm_line_share(double base, double shrinkage)
{
	double		share = EBM_LINE_SHARE * (shrinkage / base - 1) / (EBM_SMALL_SHRINK - 1);

	/* a comparison, exact: NaN takes 0 */
	return share > EBM_LINE_SHARE ? EBM_LINE_SHARE : share > 0 ? share : 0;
}

/* the bins' centres in [-1, 1] less xbar: their noisy-count-weighted mean */
static double
ebm_line_centre(int n, const double *counts, double *x)
{
	double		w = 0,
				sx = 0,
				xbar;

	for (int b = 0; b < n; b++)
	{
		double		c = counts[b] > 0 ? counts[b] : 0;

		x[b] = (2.0 * b + 1) / n - 1;
		w += c;
		sx += c * x[b];
	}
	xbar = w > 0 ? sx / w : 0;
	for (int b = 0; b < n; b++)
		x[b] -= xbar;
	return w;
}

void
ebm_line_step(double *v, int n, const double *sums, const double *counts, double shrink,
			  double c, double share)
{
	double		x[EBM_MAX_BINS];
	double		w = ebm_line_centre(n, counts, x),
				sy = 0,
				sxy = 0,
				sxx = 0,
				xx = 0,
				a,
				beta;

	for (int b = 0; b < n; b++)
	{
		sy += sums[b];
		sxy += x[b] * sums[b];
		sxx += (counts[b] > 0 ? counts[b] : 0) * x[b] * x[b];
		xx += x[b] * x[b];
	}
	/* each sum's noise sd is sqrt n, sqrt xx times a bin's */
	w += shrink * sqrt((double) n);
	sxx += shrink * sqrt(xx);
	a = w > 0 ? sy / w : 0;
	beta = sxx > 0 ? sxy / sxx : 0;
	for (int b = 0; b < n; b++)
	{
		double		m = a + beta * x[b];

		m = m > c ? c : m < -c ? -c : m;
		v[b] = share * m + (1 - share) * v[b];
	}
}

void
ebm_center(const EBMTerm *terms, int nterms, double *scores, const double *counts,
		   double *bias)
{
	for (int t = 0; t < nterms; t++)
	{
		double	   *s = scores + terms[t].offset;
		const double *c = counts + terms[t].offset;
		double		w = 0,
					sw = 0,
					mean;

		for (int b = 0; b < terms[t].size; b++)
			if (c[b] > 0)
			{
				w += c[b];
				sw += c[b] * s[b];
			}
		if (w > 0)
			mean = sw / w;
		else
		{
			mean = 0;
			for (int b = 0; b < terms[t].size; b++)
				mean += s[b] / terms[t].size;
		}
		for (int b = 0; b < terms[t].size; b++)
			s[b] -= mean;
		*bias += mean;
	}
}

bool
ebm_noise(double rho, double count_share, int nterms, int maxsize, int64_t rounds,
		  int k, double c, EBMNoise *nz)
{
	/* the two shares sum to at most rho despite rounding */
	const double shrink = 1.0 - ldexp(1.0, -40);

	nz->rho_counts = rho * count_share * shrink;
	nz->rho_sums = rho * (1.0 - count_share) * shrink;
	dpnoise_gaussian_lattice_summed(sqrt(2.0) * k, nz->rho_counts, maxsize, nterms, k,
									&nz->count_lattice, &nz->count_sigma2);
	dpnoise_gaussian_lattice_summed(2.0 * c * k, nz->rho_sums, maxsize, rounds * nterms, k,
									&nz->sum_lattice, &nz->sum_sigma2);
	return nz->count_sigma2 > 0 && nz->sum_sigma2 > 0;
}

bool
ebm_bin_noise(double rho_bins, int nterms, int grid, int k, double *lattice,
			  uint64_t *sigma2)
{
	int			sizes[EBM_BIN_MAX_LEVELS + 1];
	int			L = ebmbins_levels(grid, sizes);

	dpnoise_gaussian_lattice_summed(sqrt(2.0 * L) * k, rho_bins, ebmbins_nodes(grid), nterms,
									k, lattice, sigma2);
	return *sigma2 > 0;
}

void
ebm_release_acc(gsl_rng *rng, __int128 *acc, int n, int bits, double lattice, uint64_t sigma2,
				double *out)
{
	const __int128 half = (__int128) 1 << (bits - 1);
	const __int128 cap = (__int128) 1 << 62;

	for (int j = 0; j < n; j++)
	{
		__int128	q = acc[j] >= 0 ? (acc[j] + half) >> bits : -((-acc[j] + half) >> bits);

		q = q > cap ? cap : q < -cap ? -cap : q;
		out[j] = (double) ((int64_t) q + dpnoise_discrete_gaussian(rng, sigma2)) * lattice;
		acc[j] = 0;
	}
}
