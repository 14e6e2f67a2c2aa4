/*-------------------------------------------------------------------------
 *
 * synthsample.c
 *	  Synthetic rows from the fitted model (synthsample.h).
 *
 *-------------------------------------------------------------------------
 */
#include "core/synthsample.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* a cell's weight: its value, or 0 where it is not a finite positive number */
static double
cell_weight(double p)
{
	return p > 0.0 && isfinite(p) ? p : 0.0;
}

/* cell i's expected count: weights over their largest (no overflow), uniform when all 0 */
static double
cell_expected(const double *p, int64_t i, double top, double z, int64_t k, int64_t g)
{
	return z > 0.0 ? cell_weight(p[i]) / top * (double) g / z : (double) g / k;
}

void
synth_round_counts(const double *p, int64_t k, int64_t g, gsl_rng *rng, int64_t *count)
{
	double		top = 0.0,
				z = 0.0,
				u,
				acc = 0.0;
	int64_t		given = 0;
	int64_t		next;

	for (int64_t i = 0; i < k; i++)
		if (cell_weight(p[i]) > top)
			top = p[i];
	for (int64_t i = 0; top > 0.0 && i < k; i++)
		z += cell_weight(p[i]) / top;
	for (int64_t i = 0; i < k; i++)
	{
		count[i] = (int64_t) floor(cell_expected(p, i, top, z, k, g));
		given += count[i];
	}
	/* the g - given extra rows: systematic sampling on the fractional parts */
	u = gsl_rng_uniform(rng);
	next = 0;
	for (int64_t i = 0; i < k && given < g; i++)
	{
		double		e = cell_expected(p, i, top, z, k, g);

		acc += e - floor(e);
		while (given < g && acc > u + (double) next)
		{
			count[i]++;
			given++;
			next++;
		}
	}
	/* rounding left a row over: the cells with weight take it (the largest has) */
	for (int64_t i = 0; given < g; i = (i + 1) % k)
		if (z <= 0.0 || cell_weight(p[i]) > 0.0)
		{
			count[i]++;
			given++;
		}
}

static void
shuffle_idx(int64_t *a, int64_t n, gsl_rng *rng)
{
	for (int64_t i = n - 1; i > 0; i--)
	{
		int64_t		j = (int64_t) gsl_rng_uniform_int(rng, (unsigned long) (i + 1));
		int64_t		t = a[i];

		a[i] = a[j];
		a[j] = t;
	}
}

/* the columns of s, ascending, into cols; their number */
static int
set_columns(const SynthModel *m, SynthSet s, int *cols)
{
	int			n = 0;

	for (int j = 0; j < m->d; j++)
		if (s & SYNTH_BIT(j))
			cols[n++] = j;
	return n;
}

/* the index of codes over the n columns cols (ascending, the last fastest) */
static int64_t
sub_index(const SynthModel *m, const int *cols, int n, const int *codes)
{
	int64_t		idx = 0;

	for (int k = 0; k < n; k++)
		idx = idx * m->sizes[cols[k]] + codes[cols[k]];
	return idx;
}

/* the codes of index idx over the n columns cols into codes */
static void
set_codes(const SynthModel *m, const int *cols, int n, int64_t idx, int *codes)
{
	for (int k = n - 1; k >= 0; k--)
	{
		codes[cols[k]] = (int) (idx % m->sizes[cols[k]]);
		idx /= m->sizes[cols[k]];
	}
}

/*
 * Fresh cell f's codes hit a shut level (m->shut): its weight is 0 in
 * every group
 */
static bool
cell_closed(const SynthModel *m, const int *fcols, int nfc, int64_t f)
{
	int			codes[SYNTH_MAX_COLUMNS];

	set_codes(m, fcols, nfc, f, codes);
	for (int k = 0; k < nfc; k++)
		if (m->shut[fcols[k]] != NULL && m->shut[fcols[k]][codes[fcols[k]]])
			return true;
	return false;
}

/*
 * A group's shut bins (of its no ordered levels w[v * stride]) moved, run by
 * run: each bin's weight to the nearer of the open bins around its run (half
 * to each when as near; one side only at an end).  Linear in no.
 */
static void
move_to_nearest(const bool *shut, int no, double *w, int64_t stride)
{
	for (int a = 0; a < no; a++)
	{
		int			z = a;

		if (!shut[a])
			continue;
		while (z < no && shut[z])
			z++;
		/* bins a..z-1 shut; a - 1 and z open where they exist */
		for (int v = a; v < z && (a > 0 || z < no); v++)
		{
			double		x = cell_weight(w[v * stride]);
			int			below = a > 0 ? v - a + 1 : no + 1,
						above = z < no ? z - v : no + 1;

			if (below <= above)
				w[(a - 1) * stride] = cell_weight(w[(a - 1) * stride]) + (below == above ? x / 2.0 : x);
			if (above <= below)
				w[z * stride] = cell_weight(w[z * stride]) + (below == above ? x / 2.0 : x);
			w[v * stride] = 0.0;
		}
		a = z;
	}
}

/*
 * Column j's shut levels moved within a group's fresh cells w: for each
 * cell of the other fresh columns, a shut bin's weight goes to the nearest
 * open bin, the other shut levels' to j's open levels in proportion to
 * theirs (all 0: alike), so that the other columns' marginals keep their
 * mass
 */
static void
move_shut(const SynthModel *m, SynthSet fresh, int j, double *w, int64_t nf)
{
	int64_t		stride = 1;
	int			n = m->sizes[j];

	for (int k = j + 1; k < m->d; k++)
		if (fresh & SYNTH_BIT(k))
			stride *= m->sizes[k];
	for (int64_t f = 0; f < nf; f++)
	{
		double		shut = 0.0,
					open = 0.0;
		int			nopen = 0;

		if ((f / stride) % n != 0)
			continue;			/* f: level 0 of j, the group's first cell */
		move_to_nearest(m->shut[j], m->ordered[j], &w[f], stride);
		for (int v = 0; v < n; v++)
		{
			double		x = cell_weight(w[f + v * stride]);

			if (m->shut[j][v])
				shut += x;
			else
			{
				open += x;
				nopen++;
			}
		}
		for (int v = 0; v < n; v++)
		{
			double	   *x = &w[f + v * stride];

			if (m->shut[j][v])
				*x = 0.0;
			else if (open > 0.0)
				*x = cell_weight(*x) * (open + shut) / open;
			else if (nopen > 0)
				*x = shut / nopen;
		}
	}
}

/*
 * A group's weights with no weight on a shut level (its weight moved to the
 * column's open levels); all 0: the open cells alike (a closed cell is never
 * drawn, whatever the weights)
 */
static void
open_weights(const SynthModel *m, SynthSet fresh, double *w, const bool *shut, int64_t nf)
{
	bool		any = false;

	for (int j = 0; j < m->d; j++)
		if ((fresh & SYNTH_BIT(j)) && m->shut[j] != NULL)
			move_shut(m, fresh, j, w, nf);
	for (int64_t f = 0; f < nf; f++)
	{
		if (shut[f])
			w[f] = 0.0;
		any = any || cell_weight(w[f]) > 0.0;
	}
	for (int64_t f = 0; !any && f < nf; f++)
		w[f] = shut[f] ? 0.0 : 1.0;
}

/* clique c's new columns for every row, given its separator's */
static SynthStatus
sample_clique(const SynthModel *m, int c, SynthSet sep, int64_t n, gsl_rng *rng, int *rows)
{
	const SynthFactor *b = &m->belief[c];
	SynthSet	fresh = b->set & ~sep;
	int64_t		ns = synth_set_cells(sep, m->sizes, INT64_C(1) << 62);
	int64_t		nf = synth_set_cells(fresh, m->sizes, INT64_C(1) << 62);
	double	   *cond = malloc(sizeof(double) * (size_t) (ns * nf));
	int64_t    *start = calloc((size_t) ns + 1, sizeof(int64_t));
	int64_t    *order = malloc(sizeof(int64_t) * (size_t) (n + 1));
	int64_t    *sidx = malloc(sizeof(int64_t) * (size_t) (n + 1));
	int64_t    *cnt = malloc(sizeof(int64_t) * (size_t) nf);
	int64_t    *fill = malloc(sizeof(int64_t) * (size_t) (ns + 1));
	bool	   *shut = malloc(sizeof(bool) * (size_t) nf);
	int			codes[SYNTH_MAX_COLUMNS];
	int			scols[SYNTH_MAX_COLUMNS],
				fcols[SYNTH_MAX_COLUMNS];
	int			nsc = set_columns(m, sep, scols),
				nfc = set_columns(m, fresh, fcols);

	if (!cond || !start || !order || !sidx || !cnt || !fill || !shut)
	{
		free(shut);
		free(cond);
		free(start);
		free(order);
		free(sidx);
		free(cnt);
		free(fill);
		return SYNTH_NOMEM;
	}
	for (int64_t x = 0; x < b->ncells; x++)
	{
		synth_factor_cell(b, x, codes);
		cond[sub_index(m, scols, nsc, codes) * nf + sub_index(m, fcols, nfc, codes)] = b->val[x];
	}
	for (int64_t f = 0; f < nf; f++)
		shut[f] = cell_closed(m, fcols, nfc, f);
	/* the rows grouped by their separator's cell (a counting sort) */
	for (int64_t i = 0; i < n; i++)
	{
		sidx[i] = sub_index(m, scols, nsc, rows + i * m->d);
		start[sidx[i] + 1]++;
	}
	for (int64_t s = 0; s < ns; s++)
		start[s + 1] += start[s];
	memcpy(fill, start, sizeof(int64_t) * (size_t) ns);
	for (int64_t i = 0; i < n; i++)
		order[fill[sidx[i]]++] = i;
	free(fill);
	for (int64_t s = 0; s < ns; s++)
	{
		int64_t		g = start[s + 1] - start[s],
					at = start[s];

		if (g == 0)
			continue;
		open_weights(m, fresh, cond + s * nf, shut, nf);
		synth_round_counts(cond + s * nf, nf, g, rng, cnt);
		shuffle_idx(order + start[s], g, rng);
		/* each fresh cell's codes once, then copied into its rows */
		for (int64_t f = 0; f < nf; f++)
		{
			if (cnt[f] == 0)
				continue;
			set_codes(m, fcols, nfc, f, codes);
			for (int64_t t = 0; t < cnt[f]; t++)
			{
				int		   *row = rows + order[at++] * m->d;

				for (int k = 0; k < nfc; k++)
					row[fcols[k]] = codes[fcols[k]];
			}
		}
	}
	free(shut);
	free(cond);
	free(start);
	free(order);
	free(sidx);
	free(cnt);
	return SYNTH_OK;
}

SynthStatus
synth_sample(const SynthModel *m, int64_t n, gsl_rng *rng, int *rows)
{
	const SynthTree *t = &m->tree;
	SynthStatus st = SYNTH_OK;

	memset(rows, 0, sizeof(int) * (size_t) (n * m->d));
	for (int k = 0; k < t->ncliques && st == SYNTH_OK; k++)
	{
		int			c = t->order[k];
		SynthSet	sep = k > 0 ? t->clique[c] & t->clique[t->parent[c]] : 0;

		st = sample_clique(m, c, sep, n, rng, rows);
	}
	/* shuffle the rows */
	for (int64_t i = n - 1; st == SYNTH_OK && i > 0; i--)
	{
		int64_t		j = (int64_t) gsl_rng_uniform_int(rng, (unsigned long) (i + 1));

		for (int jj = 0; jj < m->d; jj++)
		{
			int			v = rows[i * m->d + jj];

			rows[i * m->d + jj] = rows[j * m->d + jj];
			rows[j * m->d + jj] = v;
		}
	}
	return st;
}
