/*-------------------------------------------------------------------------
 *
 * gbdtpass.c
 *	  One pass over the kept rows for the boosted trees (gbdt.h): each
 *	  row's clipped gradient and hessian summed per node and bin of each
 *	  term (a split level) or per leaf, and a pass's sums released with
 *	  discrete Gaussian noise.  The additive rounds (gbdtadditive.c) and the
 *	  trees (gbdt.c) both run their passes here.
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpobj.h"

#include <math.h>

#include "core/dpnoise.h"
#include "families/gbdt/gbdt.h"
#include "mechanisms/keptstate.h"

/* a row's label: 1 or 0, or the float8 label scaled from [y_min, y_max] to [-1, 1] */
static inline double
gbdt_label(const GBDTFit *r, const DPKeptDesign *D, int64 k)
{
	return keptdesign_label(D, k, r->d, r->regression, r->gp.y_min, r->gp.y_max);
}

/* the node of a row (its bins idx) in tree tr after its first `levels` levels */
static inline int
gbdt_node(const GBDTFit *r, int tr, int levels, const int *idx)
{
	const GBDTSplit *s = r->splits + tr * r->gp.depth;
	int			node = 0;

	for (int l = 0; l < levels; l++)
	{
		const EBMTerm *e = &r->terms[s[l].term];
		int			b = idx[s[l].term] - e->offset;
		bool		right = e->type == EBM_TERM_NUMERIC ? b >= s[l].at : b == s[l].at;

		node |= (int) right << l;
	}
	return node;
}

/*
 * The margin of observation pos (its bins idx) after the first `trees`
 * trees: its kept margin plus the trees since, kept again, or all of them
 */
static inline double
gbdt_row_margin(GBDTFit *r, int64 pos, int trees, const int *idx)
{
	bool		kept = pos < r->zcap;
	double		z = kept ? r->zc[pos] : 0.0,
				a = 0.0;

	for (int tr = kept ? r->ztrees : 0; tr < trees; tr++)
		z += r->leaves[tr * gbdt_leaves(r) + gbdt_node(r, tr, r->gp.depth, idx)];
	if (kept)
		r->zc[pos] = z;
	for (int t = 0; t < r->nterms && r->gp.additive_rounds > 0; t++)
		a += r->scores[idx[t]];
	return r->bias + a + z;
}

/*
 * Observation pos of tree tr's pass at level `level` (depth: its leaves;
 * its bins idx, count cnt, label y): its gradient and hessian (times its
 * count) into r->acc, per node and bin of each term (a level), or per leaf
 */
static inline void
gbdt_observe(GBDTFit *r, int tr, int level, int64 pos, const int *idx, double cnt, double y,
			 const double per_unit[2], GBDTHessian hm)
{
	bool		leaves = level == r->gp.depth;
	int			half = leaves ? gbdt_leaves(r) : r->nscores << level;
	double		z = gbdt_row_margin(r, pos, tr, idx);
	double		q = 1.0 / (1.0 + exp(-z));
	double		g = cnt * ebm_residual(!r->regression, y, z, r->clip);
	double		h = r->regression ? cnt : cnt * (hm == GBDT_HESS_BOUND ? 0.25 : q * (1.0 - q));
	int			node = gbdt_node(r, tr, level, idx);

	if (leaves)
	{
		ebm_acc_add(r->acc, node, g, per_unit[GBDT_G]);
		ebm_acc_add(r->acc, half + node, h, per_unit[GBDT_H]);
		return;
	}
	for (int t = 0; t < r->nterms; t++)
	{
		if (!r->use[t])
			continue;
		ebm_acc_add(r->acc, node * r->nscores + idx[t], g, per_unit[GBDT_G]);
		if (hm != GBDT_HESS_NONE)
			ebm_acc_add(r->acc, half + node * r->nscores + idx[t], h, per_unit[GBDT_H]);
	}
}

/*
 * One pass for tree tr at level `level`: the kept observations' bins, or
 * the design's observations, each binned unless kept (keptbins.h)
 */
void
gbdt_pass(GBDTFit *r, int tr, int level, const double per_unit[2], GBDTHessian hm)
{
	DPKeptDesign *D = &r->D;
	int		   *idx = palloc(sizeof(int) * r->nterms);
	int64		pos = 0;

	if (r->kb.all)
		for (; pos < r->kb.n; pos++)
		{
			keptbins_kept(&r->kb, r->terms, r->nterms, pos, idx);
			gbdt_observe(r, tr, level, pos, idx, r->kb.cnt[pos], r->kb.y[pos], per_unit, hm);
		}
	else
	{
		for (bool more = keptdesign_next(D, true); more; more = keptdesign_next(D, false))
			for (int64 k = 0; k < D->nobs; k++, pos++)
			{
				double		y = gbdt_label(r, D, k);

				keptbins_index(&r->kb, r->terms, r->nterms, pos, D->X + (Size) k * D->pp,
							   D->cnt[k], y, idx);
				gbdt_observe(r, tr, level, pos, idx, D->cnt[k], y, per_unit, hm);
			}
		keptbins_pass_end(&r->kb, pos);
	}
	r->ztrees = tr;
	pfree(idx);
}

/*
 * A fit's margin of a design row x after its fit (the step trees included):
 * its bins, then every tree's leaf ('auto''s score, gbdt_candidate)
 */
double
gbdt_fit_margin(const void *fit, const double *x)
{
	const GBDTFit *r = fit;
	int			small[64];		/* scored once a row: no allocation for usual widths */
	int		   *idx = r->nterms <= lengthof(small) ? small : palloc(sizeof(int) * r->nterms);
	double		z = r->bias;

	ebm_index(r->terms, r->nterms, x, idx);
	for (int tr = 0; tr < r->ntrees; tr++)
		z += r->leaves[tr * gbdt_leaves(r) + gbdt_node(r, tr, r->gp.depth, idx)];
	if (idx != small)
		pfree(idx);
	return z;
}

/* a pass's sums released: n gradient sums then n hessian sums, into r->hist */
void
gbdt_release(GBDTFit *r, gsl_rng *rng, int n, const double lattice[2], const uint64 sigma2[2])
{
	ebm_release_acc(rng, r->acc, n, DPNOISE_SUM_BITS, lattice[GBDT_G], sigma2[GBDT_G],
					r->hist);
	ebm_release_acc(rng, r->acc + n, n, DPNOISE_SUM_BITS, lattice[GBDT_H], sigma2[GBDT_H],
					r->hist + n);
}
