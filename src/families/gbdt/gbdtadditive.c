/*-------------------------------------------------------------------------
 *
 * gbdtadditive.c
 *	  dp_gbdt's stages before and after its trees (gbdt.h): the private
 *	  edges' pass (mechanisms/privedges.h), the additive rounds, and their
 *	  scores released as step trees, so predict reads only trees
 *	  (docs/PRIVACY.md, "Boosted trees").
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpobj.h"

#include <math.h>

#include "core/dpnoise.h"
#include "families/gbdt/gbdt.h"
#include "mechanisms/mechanism.h"

/*
 * Private edges: one pass counts each observation (its count) in its cell
 * of every numeric term, then the cuts are released and the layout's
 * numeric terms cut into their bins (mechanisms/privedges.h)
 */
void
gbdt_edges(GBDTFit *r, gsl_rng *rng)
{
	DPKeptDesign *D = &r->D;
	int		   *idx = palloc(sizeof(int) * r->nterms);
	double		per_unit = ldexp(1.0 / r->edges.lattice, DPNOISE_SUM_BITS);

	r->nscores = privedges_begin(&r->edges, r->terms);
	for (bool more = keptdesign_next(D, true); more; more = keptdesign_next(D, false))
		for (int64 k = 0; k < D->nobs; k++)
		{
			ebm_index(r->terms, r->nterms, D->X + (Size) k * D->pp, idx);
			for (int t = 0; t < r->nterms; t++)
				if (r->terms[t].type == EBM_TERM_NUMERIC)
					ebm_acc_add(r->acc, idx[t], D->cnt[k], per_unit);
		}
	r->nscores = privedges_release(&r->edges, rng, r->terms, r->acc, r->edges.lattice);
	memset(r->acc, 0, sizeof(__int128) * r->nscores);
	pfree(idx);
}

/*
 * The regularisers' multiplier on a small table, as ebm's shrinkage grows
 * (ebm_shrinkage): l's pseudo-rows (l over a row's hessian bound) against
 * the rows the released hessian bounds H count (post-processing)
 */
static double
gbdt_small(const GBDTFit *r, const double *H, double l)
{
	double		hmax = r->regression ? 1.0 : 0.25;
	double	   *rows = palloc(sizeof(double) * r->nscores);
	double		n;

	for (int j = 0; j < r->nscores; j++)
		rows[j] = H[j] / hmax;
	n = ebm_total_count(r->terms, r->nterms, rows);
	pfree(rows);
	return ebm_shrinkage(1.0, l / hmax, n);
}

/*
 * The additive rounds: each one pass, every term's gradient sums per bin
 * released as a tree's first level's (the splits' noise), each bin's score
 * moved by additive_rate times G / (H + l), H the bin's hessian bound (w/4,
 * w a float8 label's) released once, with the first round's sums; returns
 * the regularisers' multiplier (gbdt_small; 1 without rounds)
 */
double
gbdt_additive(GBDTFit *r, gsl_rng *rng, const double su[2], double l, int64 ledger_id)
{
	int			n = r->nscores;
	double	   *hb = palloc(sizeof(double) * n);
	double		small = 1.0;

	for (int t = 0; t < r->nterms; t++)
		r->use[t] = true;
	for (int round = 0; round < r->gp.additive_rounds; round++)
	{
		mechanism_poll(ledger_id);
		gbdt_pass(r, 0, 0, su, round == 0 ? GBDT_HESS_BOUND : GBDT_HESS_NONE);
		if (round == 0)
		{
			gbdt_release(r, rng, n, r->split_lattice, r->split_sigma2);
			small = gbdt_small(r, r->hist + n, l);
			for (int j = 0; j < n; j++)
				hb[j] = Max(r->hist[n + j], 0.0) + l * small;
		}
		else
			ebm_release_acc(rng, r->acc, n, DPNOISE_SUM_BITS, r->split_lattice[GBDT_G],
							r->split_sigma2[GBDT_G], r->hist);
		for (int j = 0; j < n; j++)
			r->scores[j] += r->gp.additive_rate * r->hist[j] / hb[j];
	}
	pfree(hb);
	return small;
}

/*
 * Step tree tr: every level right iff term t's bin is at least (is) at, v
 * in the leaf of those rows (all right), 0 in the others; the first
 * level's gain |v|
 */
static void
gbdt_step_tree(GBDTFit *r, int tr, int t, int at, double v)
{
	for (int l = 0; l < r->gp.depth; l++)
		r->splits[tr * r->gp.depth + l] = (GBDTSplit) {.term = t, .at = at,
		.gain = l == 0 ? fabs(v) : 0};
	r->leaves[tr * gbdt_leaves(r) + gbdt_leaves(r) - 1] = v;
}

/*
 * The additive scores as trees after the boosted ones (predict reads only
 * trees): a numeric term's first bin into the bias and a step tree per cut
 * (the change at it), a one-hot group's tree per level (its score)
 */
void
gbdt_steps(GBDTFit *r)
{
	int			tr = r->gp.trees;

	for (int t = 0; t < r->nterms && r->gp.additive_rounds > 0; t++)
	{
		const EBMTerm *e = &r->terms[t];
		const double *s = r->scores + e->offset;

		if (e->type == EBM_TERM_NUMERIC)
		{
			r->bias += s[0];
			for (int b = 1; b < e->size; b++)
				gbdt_step_tree(r, tr++, t, b, s[b] - s[b - 1]);
		}
		else
			for (int b = 0; b < e->size; b++)
				gbdt_step_tree(r, tr++, t, b, s[b]);
	}
	r->ntrees = tr;
}
