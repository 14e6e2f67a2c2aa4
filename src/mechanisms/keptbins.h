/*-------------------------------------------------------------------------
 *
 * keptbins.h
 *	  The bins a kept-row fit's passes keep (ebm, gbdt): each observation's
 *	  bin per term (2 bytes: a bin or grid cell index is below 65 536), count and
 *	  label, filled by the first pass over the kept design (keptdesign.h) in
 *	  its order, within a share of dpobj.max_state_memory.  Later passes
 *	  read the kept observations' bins instead of binning them again, and all
 *	  of them without the design once every observation is kept: each pass
 *	  lists the same observations in the same order either way, so every
 *	  value a fit releases is the same.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_KEPTBINS_H
#define DPOBJ_KEPTBINS_H

#include "postgres.h"

#include "core/additive.h"
#include "state/keptrows.h"

typedef struct KeptBins
{
	uint16	   *bins;			/* each kept observation's bin per term */
	double	   *cnt;			/* its count (class weights applied) */
	double	   *y;				/* its label */
	int64		cap;			/* observations they may hold (0: none) */
	int64		n;				/* observations they hold */
	bool		all;			/* every observation: later passes read only them */
} KeptBins;

/*
 * Empty, holding at most what `bytes` gives at nterms terms and `extra`
 * bytes a kept observation costs its family beside (and, in memory, the
 * rows' observations)
 */
extern void keptbins_init(KeptBins *kb, int nterms, int64 extra, int64 bytes,
						  const DPKeptRows *rows);

/* a new design (a fit again): nothing kept */
extern void keptbins_reset(KeptBins *kb);

/*
 * Observation pos of a pass (features x, count cnt, label y): its index
 * into the scores per term (idx), from the kept bins, else binned and kept
 * if it is the next one and fits
 */
extern void keptbins_index(KeptBins *kb, const EBMTerm *terms, int nterms, int64 pos,
						   const double *x, double cnt, double y, int *idx);

/*
 * The cuts of private edges moved each numeric term's cells to bins
 * (terms[t].map, NULL for a term without): the kept cells follow
 */
extern void keptbins_remap(KeptBins *kb, const EBMTerm *terms, int nterms);

/* kept observation k's index per term */
static inline void
keptbins_kept(const KeptBins *kb, const EBMTerm *terms, int nterms, int64 k, int *idx)
{
	for (int t = 0; t < nterms; t++)
		idx[t] = terms[t].offset + kb->bins[k * nterms + t];
}

/* a pass over the design listed npos observations: all kept? */
static inline void
keptbins_pass_end(KeptBins *kb, int64 npos)
{
	kb->all = kb->n == npos;
}

#endif							/* DPOBJ_KEPTBINS_H */
