/*-------------------------------------------------------------------------
 *
 * synthdomain.c
 *	  A synthesized column's public domain (synthdomain.h).
 *
 *-------------------------------------------------------------------------
 */
#include "core/synthdomain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool
synth_column_fine(const SynthColumn *c)
{
	int			n = c->kind == SYNTH_COL_QUANTILE ? c->nsub : c->nbins;

	return c->kind == SYNTH_COL_LEVELS || isfinite((c->hi - c->lo) * (double) n);
}

bool
synth_column_valid(const SynthColumn *c)
{
	switch (c->kind)
	{
		case SYNTH_COL_LEVELS:
			return c->nlevels >= 1 && c->nlevels < SYNTH_MAX_LEVELS;
		case SYNTH_COL_BINS:
			return isfinite(c->lo) && isfinite(c->hi) && c->lo < c->hi &&
				c->nbins >= 1 && c->nbins < SYNTH_MAX_LEVELS && synth_column_fine(c);
		case SYNTH_COL_QUANTILE:
			return isfinite(c->lo) && isfinite(c->hi) && c->lo < c->hi &&
				c->nbins >= 1 && c->nsub >= c->nbins && c->nsub < SYNTH_MAX_LEVELS &&
				synth_column_fine(c);
	}
	return false;
}

int
synth_column_scan_levels(const SynthColumn *c)
{
	int			n = c->kind == SYNTH_COL_LEVELS ? c->nlevels :
		c->kind == SYNTH_COL_BINS ? c->nbins : c->nsub;

	return n + (c->nullable ? 1 : 0);
}

int
synth_column_model_levels(const SynthColumn *c)
{
	if (c->kind == SYNTH_COL_QUANTILE)
		return c->nmodel + (c->nullable ? 1 : 0);
	return synth_column_scan_levels(c);
}

void
synth_coding_init(const SynthColumn *c, SynthCoding *s)
{
	s->levels = c->kind == SYNTH_COL_LEVELS;
	s->n = synth_column_scan_levels(c) - (c->nullable ? 1 : 0);
	s->null_code = c->nullable ? s->n : 0;
	s->lo = c->lo;
	s->hi = c->hi;
	s->span = c->hi - c->lo;
	s->width = s->span / s->n;
	s->zero = c->lo < 0.0 && c->hi > 0.0;
	s->npoints = synth_column_points(c, NULL);
}

int
synth_column_code(const SynthColumn *c, double x, bool isnull)
{
	SynthCoding	s;

	synth_coding_init(c, &s);
	return synth_coding_code(&s, x, isnull);
}

/*
 * Width w's groups: a group's sum of drawn less the weight finer widths
 * gave it, when at least c sd of a group's sum (G groups: c = sqrt(2 ln G),
 * about the largest of G pure-noise sums, at least 2), spread evenly over
 * its sub-bins still without weight
 */
static void
denoise_width(const double *drawn, int S, double sd, int w, double *out)
{
	int			groups = (S + w - 1) / w;
	double		c = groups > 7 ? sqrt(2.0 * log((double) groups)) : 2.0;

	for (int g = 0; g < groups; g++)
	{
		int			a = g * w,
					z = a + w < S ? a + w : S,
					open = 0;
		double		rest = 0.0;

		for (int i = a; i < z; i++)
		{
			rest += drawn[i] - out[i];
			open += out[i] > 0.0 ? 0 : 1;
		}
		if (open == 0 || !(rest >= c * sd * sqrt((double) (z - a))))
			continue;
		for (int i = a; i < z; i++)
			if (!(out[i] > 0.0))
				out[i] = rest / open;
	}
}

void
synth_quantile_denoise(const double *drawn, int S, double sd, double *out)
{
	memset(out, 0, sizeof(double) * (size_t) S);
	for (int w = 1; w < 2 * S; w *= 2)
		denoise_width(drawn, S, sd, w, out);
}

/* the runs of sub-bins with and without weight */
static int
weight_runs(const double *w, int S)
{
	int			runs = 1;

	for (int i = 0; i + 1 < S; i++)
		runs += (w[i] > 0.0) != (w[i + 1] > 0.0);
	return runs;
}

bool
synth_quantile_bins(SynthColumn *c, const double *noisy)
{
	int			S = c->nsub;
	double		total = 0.0,
				acc = 0.0;
	int			b = 0,
				spare = 0,
				held = 0;
	bool		split;

	c->map = malloc(sizeof(int) * (size_t) (S + 1));
	c->edges = malloc(sizeof(double) * (size_t) (c->nbins + 1));
	c->weight = malloc(sizeof(double) * (size_t) S);
	if (!c->map || !c->edges || !c->weight)
	{
		synth_column_free(c);
		return false;
	}
	for (int i = 0; i < S; i++)
	{
		c->weight[i] = noisy[i] > 0.0 ? noisy[i] : 0.0;
		total += c->weight[i];
	}
	/*
	 * merge_empty: when the runs of sub-bins with and without weight are at
	 * most B, each run without weight is a bin of its own (shut unless
	 * measured: synth_column_set_shut) and the runs with weight are cut at
	 * the quantile targets while bins are left ("spare").
	 */
	split = c->merge_empty && total > 0.0 && weight_runs(c->weight, S) <= c->nbins;
	if (split)
		spare = c->nbins - weight_runs(c->weight, S);
	/* merge_empty, no weight: B equal-width bins of whole sub-bins */
	if (c->merge_empty && !(total > 0.0))
	{
		for (int i = 0; i < S; i++)
			c->map[i] = (int) ((int64_t) i * c->nbins / S);
		for (b = 0; b <= c->nbins; b++)
			c->edges[b] = c->lo + (c->hi - c->lo) * (double) ((S * (int64_t) b + c->nbins - 1) / c->nbins) / S;
		c->nmodel = c->nbins;
		if (c->nullable)
			c->map[S] = c->nbins;
		return true;
	}
	/*
	 * Otherwise bin b ends after sub-bin i when the cumulative count reaches
	 * (b + 1) / B of the total (a heavy sub-bin that passes several targets
	 * closes one bin; the sub-bins after it then close a bin each until the
	 * targets catch up), the last bin at the last sub-bin: at most B bins.
	 */
	c->edges[0] = c->lo;
	for (int i = 0; i < S; i++)
	{
		bool		cut;

		c->map[i] = b;
		acc += c->weight[i];
		if (split)
		{
			bool		here = c->weight[i] > 0.0;

			cut = i < S - 1 && (here != (c->weight[i + 1] > 0.0) ||
								(here && spare > 0 && acc >= total * (held + 1) / c->nbins));
			if (cut && here)
			{
				spare -= here == (c->weight[i + 1] > 0.0) ? 1 : 0;
				held++;
			}
		}
		else
			cut = b + 1 < c->nbins && total > 0.0 && acc >= total * (b + 1) / c->nbins;
		if (i == S - 1 || cut)
			c->edges[++b] = c->lo + (c->hi - c->lo) * (i + 1) / S;
	}
	c->nmodel = b;
	if (c->nullable)
		c->map[S] = b;
	return true;
}

/*
 * An open bin b without weight at an end of the range: the decay ratio of
 * its draw away from the kept sub-bin next to it (> 0: up from its lower
 * edge, < 0: down from its upper edge), count m; elsewhere 0 (uniform)
 */
static double
bin_decay(const SynthColumn *c, int b, double m)
{
	int			first = -1,
				last = -1;
	double		w;

	for (int i = 0; i < c->nsub; i++)
		if (c->map[i] == b)
		{
			first = first < 0 ? i : first;
			last = i;
		}
	if (first < 0 || !(m > 0.0) || !isfinite(m))
		return 0.0;
	if (last == c->nsub - 1 && first > 0 && (w = c->weight[first - 1]) > 0.0 && isfinite(w))
		return m / (m + w);
	if (first == 0 && last < c->nsub - 1 && (w = c->weight[last + 1]) > 0.0 && isfinite(w))
		return -m / (m + w);
	return 0.0;
}

bool
synth_column_set_shut(SynthColumn *c, const double *y, const double *var, double sigma2)
{
	int			n = synth_column_model_levels(c);
	bool		any = c->closed;

	free(c->shut);
	c->shut = calloc((size_t) n, sizeof(bool));
	if (c->shut == NULL)
		return false;
	if (c->closed)
		c->shut[n - 1] = true;
	if (c->kind == SYNTH_COL_QUANTILE && c->merge_empty)
	{
		double		total = 0.0;
		double	   *held = calloc((size_t) c->nmodel, sizeof(double));

		if (held == NULL)
			return false;
		for (int i = 0; i < c->nsub; i++)
		{
			held[c->map[i]] += c->weight[i];
			total += c->weight[i];
		}
		free(c->decay);
		c->decay = calloc((size_t) c->nmodel, sizeof(double));
		if (c->decay == NULL)
		{
			free(held);
			return false;
		}
		for (int b = 0; total > 0.0 && b < c->nmodel; b++)
			if (!(held[b] > 0.0) &&
				(y == NULL || y[b] < SYNTH_SHUT_SDS * sqrt(var != NULL ? var[b] : sigma2)))
				c->shut[b] = any = true;
			else if (!(held[b] > 0.0))
				c->decay[b] = bin_decay(c, b, y[b]);
		free(held);
	}
	if (!any)
	{
		free(c->shut);
		c->shut = NULL;
	}
	return true;
}

int64_t
synth_column_offset(const SynthColumn *c, int code, double x)
{
	SynthCoding	s;

	synth_coding_init(c, &s);
	return synth_coding_offset(&s, code, x);
}

/* a sub-bin of more integers draws them as a continuous span's floor */
#define SYNTH_DISCRETE_MAX ((double) (1 << 20))

/*
 * The mean fraction of a tilt t, increasing in t: n 0, of density e^(t u)
 * on [0, 1]; else of P(j) proportional to e^(t j) on the integers 0..n-1,
 * over n - 1 (n >= 2)
 */
static double
tilt_mean(double t, int n)
{
	if (n == 0)
		return fabs(t) < 1e-6 ? 0.5 + t / 12.0 : -1.0 / expm1(-t) - 1.0 / t;
	if (fabs(t) * n < 1e-3)
		return 0.5 + t * (n + 1.0) / 12.0;
	return (1.0 / expm1(-t) - n / expm1(-n * t)) / (n - 1.0);
}

/* the tilt of mean fraction r (tilt_mean), |t| n at most 700 (n 0: |t|) */
static double
tilt_for(double r, int n)
{
	double		z = 700.0 / (n > 0 ? n : 1),
				a = -z;

	if (!(r > tilt_mean(a, n)))
		return a;
	if (!(r < tilt_mean(z, n)))
		return z;
	for (int it = 0; it < 80; it++)
	{
		double		m = (a + z) / 2.0;

		if (tilt_mean(m, n) < r)
			a = m;
		else
			z = m;
	}
	return (a + z) / 2.0;
}

/* sub-cell i of n over [lo, hi]: [a, z) and, for an integer column, its integers */
static void
cell_span(const SynthColumn *c, int n, int i, double *a, double *z, double *first, double *last)
{
	*a = c->lo + (c->hi - c->lo) * i / n;
	*z = c->lo + (c->hi - c->lo) * (i + 1) / n;
	/* the integers in [a, z) (the last cell: [a, z]) */
	*first = ceil(*a);
	*last = i == n - 1 ? floor(*z) : ceil(*z) - 1.0;
}

bool
synth_column_set_means(SynthColumn *c, const double *sums, double sd)
{
	free(c->tilt);
	c->tilt = calloc((size_t) c->nsub, sizeof(double));
	if (c->tilt == NULL)
		return false;
	for (int i = 0; i < c->nsub; i++)
	{
		double		r,
					a,
					z,
					first,
					last;

		if (!(c->weight[i] > 0.0))
			continue;
		r = (sums[i] + sd / 2.0) / (c->weight[i] + sd);
		r = r < 0.0 ? 0.0 : (r > 1.0 ? 1.0 : r);
		cell_span(c, c->nsub, i, &a, &z, &first, &last);
		if (!c->integer)
			c->tilt[i] = tilt_for(r, 0);
		else if (last > first && last - first < SYNTH_DISCRETE_MAX)
			/* the sub-bin's integers at the mean a + r (z - a) */
			c->tilt[i] = tilt_for((a + r * (z - a) - first) / (last - first),
								  (int) (last - first + 1.0));
		else if (last > first)
			c->tilt[i] = tilt_for((a + r * (z - a) - first + 0.5) / (last - first + 1.0), 0);
	}
	return true;
}

int
synth_column_points(const SynthColumn *c, double *out)
{
	double		v[SYNTH_MAX_POINTS];
	int			n = 0;

	if (c->kind != SYNTH_COL_QUANTILE || (c->integer && (c->hi - c->lo) / c->nsub < 1.0))
		return 0;
	v[n++] = c->lo;
	if (c->lo < 0.0 && c->hi > 0.0)
		v[n++] = 0.0;
	v[n++] = c->hi;
	if (out != NULL)
		memcpy(out, v, sizeof(double) * n);
	return n;
}

void
synth_column_set_points(SynthColumn *c, const double *counts, double sd, const double *y)
{
	double	   *v = c->point_v;
	int			n = synth_column_points(c, v);
	int			sub[SYNTH_MAX_POINTS];
	double		held[SYNTH_MAX_POINTS] = {0},
				total[SYNTH_MAX_POINTS] = {0};

	memset(c->point_p, 0, sizeof(c->point_p));
	for (int k = 0; k < n; k++)
	{
		sub[k] = synth_column_code(c, v[k], false);
		c->point_level[k] = c->map[sub[k]];
		for (int i = 0; i < c->nsub; i++)
			held[k] += c->map[i] == c->map[sub[k]] ? c->weight[i] : 0.0;
		if (!(held[k] > 0.0) && y != NULL && !(c->shut != NULL && c->shut[c->map[sub[k]]]))
			held[k] = y[c->map[sub[k]]];
		if (counts[k] >= SYNTH_POINT_SDS * sd && held[k] > 0.0 && isfinite(counts[k] / held[k]) &&
			(!c->integer || v[k] == floor(v[k])))
			c->point_p[k] = fmin(1.0, counts[k] / held[k]);
	}
	for (int k = 0; k < n; k++)
		for (int q = 0; q < n; q++)
			total[k] += c->map[sub[q]] == c->map[sub[k]] ? c->point_p[q] : 0.0;
	for (int k = 0; k < n; k++)
	{
		if (total[k] > 1.0)
			c->point_p[k] /= total[k];
		if (c->point_p[k] > 0.0)
			c->weight[sub[k]] = fmax(0.0, c->weight[sub[k]] - counts[k]);
	}
	/* a decaying bin continues its neighbour's weight net of the points drawn apart */
	for (int b = 0; c->decay != NULL && y != NULL && b < c->nmodel; b++)
		if (c->decay[b] != 0.0)
			c->decay[b] = bin_decay(c, b, y[b]);
}

void
synth_column_free(SynthColumn *c)
{
	free(c->tilt);
	c->tilt = NULL;
	free(c->map);
	free(c->edges);
	free(c->weight);
	free(c->shut);
	free(c->decay);
	c->decay = NULL;
	c->map = NULL;
	c->edges = NULL;
	c->weight = NULL;
	c->shut = NULL;
}

/*
 * u of density e^(t u) on [0, n] (inverse CDF: uniform when t is 0); its
 * floor is P(j) proportional to e^(t j) on 0..n-1
 */
static double
draw_tilted(double t, int n, gsl_rng *rng)
{
	double		u = gsl_rng_uniform(rng) * n;

	if (t != 0.0)
		u = log1p(u / n * expm1(n * t)) / t;
	return u < 0.0 ? 0.0 : (u > n ? n : u);
}

/* a value of sub-cell i of n over [lo, hi] (tilt t: synthdomain.h); integers when asked */
static double
draw_cell(const SynthColumn *c, int n, int i, double t, gsl_rng *rng)
{
	double		a,
				z,
				first,
				last,
				u;

	cell_span(c, n, i, &a, &z, &first, &last);
	if (c->integer)
	{
		double		v;

		if (last < first)
			return nearbyint((a + z) / 2.0);
		v = last - first < SYNTH_DISCRETE_MAX ?
			first + floor(draw_tilted(t, (int) (last - first + 1.0), rng)) :
			first + floor(draw_tilted(t, 1, rng) * (last - first + 1.0));
		return v < first ? first : (v > last ? last : v);
	}
	u = draw_tilted(t, 1, rng);
	return u < 1.0 ? a + u * (z - a) : z;
}

/* sub-bin i of a quantile column, by its tilt */
static double
draw_sub(const SynthColumn *c, int i, gsl_rng *rng)
{
	return draw_cell(c, c->nsub, i, c->tilt != NULL ? c->tilt[i] : 0.0, rng);
}

/* a point of model level `level` at its chance (synth_column_set_points), else NaN */
static double
draw_point(const SynthColumn *c, int level, gsl_rng *rng)
{
	double		u = -1.0;

	for (int k = 0; k < SYNTH_MAX_POINTS; k++)
		if (c->point_p[k] > 0.0 && c->point_level[k] == level)
		{
			if (u < 0.0)
				u = gsl_rng_uniform(rng);
			if (u < c->point_p[k])
				return c->point_v[k];
			u -= c->point_p[k];
		}
	return NAN;
}

double
synth_column_draw(const SynthColumn *c, int level, gsl_rng *rng)
{
	if (c->kind == SYNTH_COL_BINS)
		return draw_cell(c, c->nbins, level, 0.0, rng);
	if (c->kind == SYNTH_COL_QUANTILE)
	{
		double		z = 0.0,
					u;
		int			first = -1,
					last = -1;

		for (int i = 0; i < c->nsub; i++)
			if (c->map[i] == level)
			{
				if (first < 0)
					first = i;
				last = i;
				z += c->weight[i];
			}
		if (first < 0)
			return NAN;
		u = draw_point(c, level, rng);
		if (!isnan(u))
			return u;
		u = gsl_rng_uniform(rng) * z;
		if (z <= 0.0 && c->decay != NULL && c->decay[level] != 0.0)
		{
			double		r = fabs(c->decay[level]);
			int			k = last - first + 1;
			/* a geometric offset of ratio r, truncated to the bin's k sub-bins */
			int			off = (int) floor(log(1.0 - gsl_rng_uniform(rng) * (1.0 - pow(r, k))) / log(r));

			off = off < 0 ? 0 : (off >= k ? k - 1 : off);
			return draw_sub(c, c->decay[level] > 0.0 ? first + off : last - off, rng);
		}
		for (int i = first; i <= last; i++)
		{
			if (z <= 0.0)
				return draw_sub(c, first + (int) floor(gsl_rng_uniform(rng) * (last - first + 1)), rng);
			if (u < c->weight[i] || i == last)
				return draw_sub(c, i, rng);
			u -= c->weight[i];
		}
	}
	return (double) level;
}
