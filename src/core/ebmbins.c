/*-------------------------------------------------------------------------
 *
 * ebmbins.c
 *	  Private bin edges of a numeric term from a noisy hierarchical
 *	  histogram over a fine public grid (ebmbins.h): plain C.
 *
 *-------------------------------------------------------------------------
 */
#include "core/ebmbins.h"

bool
ebmbins_grid_ok(int g)
{
	return g >= 2 && g <= EBM_BIN_MAX_GRID && (g & (g - 1)) == 0;
}

int
ebmbins_levels(int g, int *sizes)
{
	int			L = 0;

	for (int n = g; n > 1; n = n > EBM_BIN_FANOUT ? n / EBM_BIN_FANOUT : 1)
		sizes[L++] = n;
	return L;
}

int
ebmbins_nodes(int g)
{
	int			sizes[EBM_BIN_MAX_LEVELS + 1];
	int			L = ebmbins_levels(g, sizes),
				n = 0;

	for (int i = 0; i < L; i++)
		n += sizes[i];
	return n;
}

int
ebmbins_fit_grid(int want, int nterms)
{
	int			g = want;

	while (g > 2 && (int64_t) g * (nterms > 0 ? nterms : 1) > EBM_BIN_MAX_CELLS)
		g /= 2;
	return g;
}

void
ebmbins_tree(const __int128 *leaf, int g, __int128 *nodes)
{
	int			sizes[EBM_BIN_MAX_LEVELS + 1];
	int			L = ebmbins_levels(g, sizes),
				off = 0;

	for (int c = 0; c < g; c++)
		nodes[c] = leaf[c];
	for (int i = 1; i < L; i++)
	{
		int			f = sizes[i - 1] / sizes[i];
		int			up = off + sizes[i - 1];

		for (int v = 0; v < sizes[i]; v++)
		{
			__int128	s = 0;

			for (int j = 0; j < f; j++)
				s += nodes[off + v * f + j];
			nodes[up + v] = s;
		}
		off = up;
	}
}

void
ebmbins_leaves(const double *nodes, int g, double *leaf, double *work)
{
	int			sizes[EBM_BIN_MAX_LEVELS + 1];
	int			L = ebmbins_levels(g, sizes),
				off[EBM_BIN_MAX_LEVELS + 1];
	int			n = ebmbins_nodes(g);
	double	   *z = work,		/* a node's estimate from its subtree */
			   *v = work + n;	/* its variance, in units of a node's noise */

	off[0] = 0;
	for (int i = 1; i <= L; i++)
		off[i] = off[i - 1] + sizes[i - 1];
	for (int c = 0; c < g; c++)
	{
		z[c] = nodes[c];
		v[c] = 1;
	}
	/* bottom-up: a node's measurement merged with its children's sum */
	for (int i = 1; i < L; i++)
	{
		int			f = sizes[i - 1] / sizes[i];

		for (int u = 0; u < sizes[i]; u++)
		{
			double		zc = 0,
						vc = 0;

			for (int j = 0; j < f; j++)
			{
				zc += z[off[i - 1] + u * f + j];
				vc += v[off[i - 1] + u * f + j];
			}
			z[off[i] + u] = (nodes[off[i] + u] * vc + zc) / (vc + 1);
			v[off[i] + u] = vc / (vc + 1);
		}
	}
	/* top-down (the top level has no parent: its estimates stand) */
	for (int i = L - 1; i > 0; i--)
	{
		int			f = sizes[i - 1] / sizes[i];

		for (int u = 0; u < sizes[i]; u++)
		{
			double		zc = 0,
						vc = 0,
						diff;
			int			c0 = off[i - 1] + u * f;

			for (int j = 0; j < f; j++)
			{
				zc += z[c0 + j];
				vc += v[c0 + j];
			}
			diff = z[off[i] + u] - zc;
			for (int j = 0; j < f; j++)
				z[c0 + j] += v[c0 + j] / vc * diff;
		}
	}
	for (int c = 0; c < g; c++)
		leaf[c] = z[c];
}

int
ebmbins_cuts(const double *leaf, int g, int bins, int *cuts)
{
	double		total = 0,
				target,
				acc = 0;
	int			n = 0;

	for (int c = 0; c < g; c++)
		total += leaf[c];
	/* a comparison, exact: NaN takes the equal-width cuts */
	if (!(total > 0))
	{
		for (int j = 1; j < bins; j++)
		{
			int			c = (int) ((int64_t) j * g / bins);

			if (c >= 1 && c <= g - 1 && (n == 0 || c > cuts[n - 1]))
				cuts[n++] = c;
		}
		return n;
	}
	target = total / bins;
	for (int c = 0; c < g - 1 && n < bins - 1; c++)
	{
		acc += leaf[c];
		if (acc >= target)
		{
			cuts[n++] = c + 1;
			acc = 0;
		}
	}
	return n;
}

void
ebmbins_map(const int *cuts, int ncuts, int g, uint16_t *map)
{
	int			b = 0;

	for (int c = 0; c < g; c++)
	{
		while (b < ncuts && cuts[b] <= c)
			b++;
		map[c] = (uint16_t) b;
	}
}
