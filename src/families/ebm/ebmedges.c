/*-------------------------------------------------------------------------
 *
 * ebmedges.c
 *	  Private edges of dp_ebm's numeric terms ("binning": "private", the
 *	  default; core/ebmbins.h).  The first pass of a fit counts each numeric
 *	  term in grid equal-width cells of [lo, hi] (the fine layout) and keeps
 *	  each observation's cell; then each term's hierarchical histogram is
 *	  released (snapped discrete Gaussian at the edges' share of rho), its
 *	  cuts placed at equal-mass quantiles of the consistent leaf estimates,
 *	  and the exact fine counts, and the kept observations' cells, are moved
 *	  to the bins the cuts make: no pass more, and the rounds bin as before.
 *	  The grid, the noise and every buffer come from public inputs, before
 *	  any row (docs/PRIVACY.md, "Additive boosting").
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpobj.h"

#include <math.h>

#include "base/dpnumeric.h"
#include "core/dpnoise.h"
#include "core/ebmbins.h"
#include "families/ebm/ebm.h"

void
ebm_edges_init(EBMFit *r, const OpParams *p)
{
	EBMEdges   *e = &r->edges;
	int			off = 0;

	e->nnum = 0;
	for (int t = 0; t < r->nterms; t++)
		e->nnum += r->terms[t].type == EBM_TERM_NUMERIC;
	e->grid = ebmbins_fit_grid(r->ep.bin_grid, e->nnum);
	if (!ebm_bin_noise(e->rho, e->nnum, e->grid, p->rows_per_unit, &e->lattice, &e->sigma2))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("dp_ebm: the noise is outside the exact sampler's range"),
				 errhint("Use a larger epsilon or \"bin_share\", or \"binning\": \"uniform\".")));
	e->fine = palloc(sizeof(EBMTerm) * r->nterms);
	for (int t = 0; t < r->nterms; t++)
	{
		e->fine[t] = r->terms[t];
		if (r->terms[t].type == EBM_TERM_NUMERIC)
			e->fine[t].size = e->fine[t].grid = e->grid;
		e->fine[t].offset = off;
		off += e->fine[t].size;
	}
	e->fine_scores = off;
	e->maps = palloc_extended(sizeof(uint16) * e->nnum * e->grid, MCXT_ALLOC_HUGE);
	e->cuts = palloc(sizeof(int) * e->nnum * r->ep.bins);
	e->ncuts = palloc0(sizeof(int) * e->nnum);
	e->tree = dp_palloc0_int128(ebmbins_nodes(e->grid), NULL);
	e->noisy = palloc(sizeof(double) * ebmbins_nodes(e->grid));
	e->leaf = palloc(sizeof(double) * e->grid);
	e->work = palloc(sizeof(double) * 2 * ebmbins_nodes(e->grid));
	e->coarse = dp_palloc0_int128(r->max_scores, NULL);
}

void
ebm_edges_begin(EBMFit *r)
{
	memcpy(r->terms, r->edges.fine, sizeof(EBMTerm) * r->nterms);
	r->nscores = r->edges.fine_scores;
}

/*
 * Numeric term i's cuts from its exact fine counts (in units of lattice
 * 2^-bits): its tree released, the leaves estimated
 */
static void
ebm_edges_cut(EBMFit *r, gsl_rng *rng, const __int128 *leafacc, int i, int bits)
{
	EBMEdges   *e = &r->edges;
	int			g = e->grid;

	ebmbins_tree(leafacc, g, e->tree);
	ebm_release_acc(rng, e->tree, ebmbins_nodes(g), bits, e->lattice, e->sigma2, e->noisy);
	ebmbins_leaves(e->noisy, g, e->leaf, e->work);
	e->ncuts[i] = ebmbins_cuts(e->leaf, g, r->ep.bins, e->cuts + i * r->ep.bins);
	ebmbins_map(e->cuts + i * r->ep.bins, e->ncuts[i], g, e->maps + (Size) i * g);
}

/* the kept observations' numeric cells to their bins */
static void
ebm_edges_remap_kept(EBMFit *r)
{
	for (int t = 0; t < r->nterms; t++)
	{
		const uint16 *map = r->terms[t].map;

		if (map == NULL)
			continue;
		for (int64 k = 0; k < r->kb.n; k++)
			r->kb.bins[k * r->nterms + t] = map[r->kb.bins[k * r->nterms + t]];
	}
}

void
ebm_edges_release(EBMFit *r, gsl_rng *rng, double unit)
{
	EBMEdges   *e = &r->edges;
	__int128   *coarse = e->coarse;
	int			bits = DPNOISE_SUM_BITS + ilogb(e->lattice) - ilogb(unit);
	int			i = 0,
				off = 0;

	for (int t = 0; t < r->nterms; t++)
	{
		const EBMTerm *f = &e->fine[t];
		EBMTerm    *c = &r->terms[t];

		c->offset = off;
		if (f->type == EBM_TERM_NUMERIC)
		{
			const uint16 *map = e->maps + (Size) i * e->grid;

			ebm_edges_cut(r, rng, r->acc + f->offset, i, bits);
			c->size = e->ncuts[i] + 1;
			c->grid = e->grid;
			c->map = map;
			for (int cell = 0; cell < e->grid; cell++)
				coarse[off + map[cell]] += r->acc[f->offset + cell];
			i++;
		}
		else
			memcpy(coarse + off, r->acc + f->offset, sizeof(__int128) * f->size);
		off += c->size;
	}
	r->nscores = off;
	memset(r->acc, 0, sizeof(__int128) * e->fine_scores);
	memcpy(r->acc, coarse, sizeof(__int128) * off);
	memset(coarse, 0, sizeof(__int128) * off);
	ebm_edges_remap_kept(r);
}

void
ebm_edges_term_params(StringInfo buf, const EBMFit *r, int t)
{
	const EBMEdges *e = &r->edges;
	int			i = 0;

	for (int u = 0; u < t; u++)
		i += r->terms[u].type == EBM_TERM_NUMERIC;
	appendStringInfo(buf, ", \"grid\": %d, \"cuts\": [", e->grid);
	for (int j = 0; j < e->ncuts[i]; j++)
		appendStringInfo(buf, "%s%d", j == 0 ? "" : ", ", e->cuts[i * r->ep.bins + j]);
	appendStringInfoChar(buf, ']');
}
