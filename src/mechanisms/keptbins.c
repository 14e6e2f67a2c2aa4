/*-------------------------------------------------------------------------
 *
 * keptbins.c
 *	  The bins a kept-row fit's passes keep (keptbins.h).
 *
 * The arrays are allocated at a fit's first observation, for at most cap
 * observations: cap is fixed before the run's charge, from public inputs
 * and the count of the rows in memory, as the fit's other buffers.
 *
 *-------------------------------------------------------------------------
 */
#include "mechanisms/keptbins.h"

void
keptbins_init(KeptBins *kb, int nterms, int64 extra, int64 bytes, const DPKeptRows *rows)
{
	memset(kb, 0, sizeof(KeptBins));
	kb->cap = bytes / (int64) (sizeof(uint16) * nterms + 2 * sizeof(double) + extra);
	/* in memory, a row is at most two observations (positive and negative counts) */
	if (!keptrows_spilled(rows))
		kb->cap = Min(kb->cap, 2 * (int64) rows->nrows);
}

void
keptbins_reset(KeptBins *kb)
{
	kb->n = 0;
	kb->all = false;
}

void
keptbins_index(KeptBins *kb, const EBMTerm *terms, int nterms, int64 pos, const double *x,
			   double cnt, double y, int *idx)
{
	if (pos < kb->n)
	{
		keptbins_kept(kb, terms, nterms, pos, idx);
		return;
	}
	ebm_index(terms, nterms, x, idx);
	if (pos != kb->n || pos >= kb->cap)
		return;
	/* a fit's first: its own arrays (a fit again may run in another context) */
	if (pos == 0)
	{
		kb->bins = palloc_extended(sizeof(uint16) * kb->cap * nterms, MCXT_ALLOC_HUGE);
		kb->cnt = palloc_extended(sizeof(double) * kb->cap, MCXT_ALLOC_HUGE);
		kb->y = palloc_extended(sizeof(double) * kb->cap, MCXT_ALLOC_HUGE);
	}
	for (int t = 0; t < nterms; t++)
		kb->bins[pos * nterms + t] = (uint16) (idx[t] - terms[t].offset);
	kb->cnt[pos] = cnt;
	kb->y[pos] = y;
	kb->n++;
}

void
keptbins_remap(KeptBins *kb, const EBMTerm *terms, int nterms)
{
	for (int t = 0; t < nterms; t++)
	{
		const uint16 *map = terms[t].map;

		if (map == NULL)
			continue;
		for (int64 k = 0; k < kb->n; k++)
			kb->bins[k * nterms + t] = map[kb->bins[k * nterms + t]];
	}
}
