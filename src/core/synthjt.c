/*-------------------------------------------------------------------------
 *
 * synthjt.c
 *	  The junction tree of the measured column sets (synthjt.h).
 *
 *-------------------------------------------------------------------------
 */
#include "core/synthjt.h"

/* the cells of the columns in s: the product of their levels, saturated at 2^62 */
static int64_t
cells_of(SynthSet s, const int *sizes)
{
	int64_t		cells = 1;

	for (; s; s &= s - 1)
	{
		int			j = synth_set_first(s);

		if (cells > (INT64_C(1) << 62) / sizes[j])
			return INT64_C(1) << 62;
		cells *= sizes[j];
	}
	return cells;
}

/* fill edges that eliminating a vertex with neighbours nb would add */
static int
fill_of(SynthSet nb, const SynthSet *adj)
{
	int			fill = 0;

	for (SynthSet u = nb; u; u &= u - 1)
		fill += synth_set_size(nb & ~adj[synth_set_first(u)] & ~(u & -u));
	return fill;
}

/*
 * Eliminate the columns greedily; the elimination cliques into cl[], their
 * count.  A column's clique size is kept and recomputed only when its
 * neighbours change; fill edges are counted only to break ties.
 */
static int
eliminate(int d, const int *sizes, SynthSet *adj, int64_t limit, SynthSet *cl)
{
	SynthSet	left = d >= 64 ? ~(SynthSet) 0 : SYNTH_BIT(d) - 1;
	int64_t		cells[SYNTH_MAX_COLUMNS];
	int			ncl = 0;

	for (int v = 0; v < d; v++)
		cells[v] = cells_of((adj[v] & left) | SYNTH_BIT(v), sizes);
	for (int step = 0; step < d; step++)
	{
		int			best = -1,
					bestfill = -1;
		SynthSet	nb;

		for (SynthSet rest = left; rest; rest &= rest - 1)
		{
			int			v = synth_set_first(rest);

			if (best < 0 || cells[v] < cells[best])
			{
				best = v;
				bestfill = -1;
			}
			else if (cells[v] == cells[best])
			{
				int			f = fill_of(adj[v] & left & ~SYNTH_BIT(v), adj);

				if (bestfill < 0)
					bestfill = fill_of(adj[best] & left & ~SYNTH_BIT(best), adj);
				if (f < bestfill)
				{
					best = v;
					bestfill = f;
				}
			}
		}
		if (cells[best] > limit)
			return -1;
		nb = adj[best] & left & ~SYNTH_BIT(best);
		for (SynthSet u = nb; u; u &= u - 1)
			adj[synth_set_first(u)] |= nb & ~(u & -u);
		cl[ncl++] = nb | SYNTH_BIT(best);
		left &= ~SYNTH_BIT(best);
		for (SynthSet u = nb; u; u &= u - 1)
		{
			int			x = synth_set_first(u);

			cells[x] = cells_of((adj[x] & left) | SYNTH_BIT(x), sizes);
		}
	}
	return ncl;
}

/*
 * Prim's maximum spanning tree on |shared columns|, rooted at clique 0: each
 * clique outside keeps its best link into the tree (ties: the lowest clique
 * inside), the best of them joins next (ties: the lowest clique).
 */
static void
span(SynthTree *t)
{
	bool		in[SYNTH_MAX_COLUMNS] = {false};
	int			key[SYNTH_MAX_COLUMNS],
				par[SYNTH_MAX_COLUMNS];
	int			n = t->ncliques,
				last = 0;

	in[0] = true;
	t->parent[0] = -1;
	t->order[0] = 0;
	for (int c = 0; c < n; c++)
	{
		key[c] = -1;
		par[c] = -1;
	}
	for (int k = 1; k < n; k++)
	{
		int			bc = -1;

		for (int c = 0; c < n; c++)
		{
			int			w;

			if (in[c])
				continue;
			w = synth_set_size(t->clique[c] & t->clique[last]);
			if (w > key[c] || (w == key[c] && last < par[c]))
			{
				key[c] = w;
				par[c] = last;
			}
			if (bc < 0 || key[c] > key[bc])
				bc = c;
		}
		in[bc] = true;
		t->parent[bc] = par[bc];
		t->order[k] = bc;
		last = bc;
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
