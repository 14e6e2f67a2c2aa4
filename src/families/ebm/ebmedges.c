/*-------------------------------------------------------------------------
 *
 * ebmedges.c
 *	  Private edges of dp_ebm's numeric terms ("binning": "private", the
 *	  default; mechanisms/privedges.h): the first pass counts in the fine
 *	  layout and keeps each observation's cell; the release moves the exact
 *	  counts, and the kept observations' cells, to the bins the cuts make:
 *	  no pass more, and the rounds bin as before (docs/PRIVACY.md,
 *	  "Additive boosting").
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpobj.h"

#include "families/ebm/ebm.h"

void
ebm_edges_init(EBMFit *r, const OpParams *p)
{
	privedges_init(&r->edges, r->terms, r->nterms, r->ep.bins, r->ep.bin_grid,
				   p->rows_per_unit, r->max_scores, "dp_ebm",
				   "Use a larger epsilon or \"bin_share\", or \"binning\": \"uniform\".");
}

void
ebm_edges_release(EBMFit *r, gsl_rng *rng, double unit)
{
	r->nscores = privedges_release(&r->edges, rng, r->terms, r->acc, unit);
	keptbins_remap(&r->kb, r->terms, r->nterms);
}
