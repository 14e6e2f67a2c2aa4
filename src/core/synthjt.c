/*-------------------------------------------------------------------------
 *
 * synthjt.c
 *	  The junction tree of the measured column sets (synthjt.h).
 *
 *-------------------------------------------------------------------------
 */
#include "core/synthjt.h"

/* eliminate the columns greedily; the elimination cliques into cl[], their count */
static int
eliminate(int d, const int *sizes, SynthSet *adj, int64_t limit, SynthSet *cl)
{
	SynthSet	left = d >= 64 ? ~(SynthSet) 0 : SYNTH_BIT(d) - 1;
	int			ncl = 0;

	for (int step = 0; step < d; step++)
	{
		int			best = -1;
		int64_t		bestcells = 0;
		int			bestfill = 0;

		for (int v = 0; v < d; v++)
		{
			SynthSet	nb;
			int64_t		cells;
			int			fill = 0;

			if (!(left & SYNTH_BIT(v)))
				continue;
			nb = adj[v] & left & ~SYNTH_BIT(v);
			cells = synth_set_cells(nb | SYNTH_BIT(v), sizes, INT64_C(1) << 62);
			if (cells < 0)
				cells = INT64_C(1) << 62;
			for (int u = 0; u < d; u++)
				if (nb & SYNTH_BIT(u))
					fill += synth_set_size(nb & ~adj[u] & ~SYNTH_BIT(u));
			if (best < 0 || cells < bestcells || (cells == bestcells && fill < bestfill))
			{
				best = v;
				bestcells = cells;
				bestfill = fill;
			}
		}
		if (bestcells > limit)
			return -1;
		{
			SynthSet	nb = adj[best] & left & ~SYNTH_BIT(best);

			for (int u = 0; u < d; u++)
				if (nb & SYNTH_BIT(u))
					adj[u] |= nb & ~SYNTH_BIT(u);
			cl[ncl++] = nb | SYNTH_BIT(best);
			left &= ~SYNTH_BIT(best);
		}
	}
	return ncl;
}

/* Prim's maximum spanning tree on |shared columns|, rooted at clique 0 */
static void
span(SynthTree *t)
{
	bool		in[SYNTH_MAX_COLUMNS] = {false};
	int			n = t->ncliques;

	in[0] = true;
	t->parent[0] = -1;
	t->order[0] = 0;
	for (int k = 1; k < n; k++)
	{
		int			bc = -1,
					bp = -1,
					bw = -1;

		for (int c = 0; c < n; c++)
		{
			if (in[c])
				continue;
			for (int p = 0; p < n; p++)
			{
				int			w;

				if (!in[p])
					continue;
				w = synth_set_size(t->clique[c] & t->clique[p]);
				if (w > bw)
				{
					bw = w;
					bc = c;
					bp = p;
				}
			}
		}
		in[bc] = true;
		t->parent[bc] = bp;
		t->order[k] = bc;
	}
}

bool
synth_tree_build(int d, const int *sizes, const SynthSet *sets, int nsets, int64_t limit,
				 SynthTree *t)
{
	SynthSet	adj[SYNTH_MAX_COLUMNS] = {0};
	SynthSet	cl[SYNTH_MAX_COLUMNS];
	int			ncl;

	for (int i = 0; i < nsets; i++)
		for (int v = 0; v < d; v++)
			if (sets[i] & SYNTH_BIT(v))
				adj[v] |= sets[i];
	ncl = eliminate(d, sizes, adj, limit, cl);
	if (ncl < 0)
		return false;
	/* the maximal cliques, in elimination order */
	t->ncliques = 0;
	t->cells = 0;
	for (int i = 0; i < ncl; i++)
	{
		bool		maximal = true;

		for (int j = 0; j < ncl && maximal; j++)
			if (j != i && (cl[i] & cl[j]) == cl[i] && (cl[i] != cl[j] || j < i))
				maximal = false;
		if (!maximal)
			continue;
		t->clique[t->ncliques++] = cl[i];
		t->cells += synth_set_cells(cl[i], sizes, limit);
		if (t->cells > limit)
			return false;
	}
	span(t);
	return true;
}

int
synth_tree_find(const SynthTree *t, SynthSet s)
{
	int			best = -1;

	for (int c = 0; c < t->ncliques; c++)
		if ((t->clique[c] & s) == s)
			return c;
	return best;
}
