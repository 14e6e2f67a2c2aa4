/*-------------------------------------------------------------------------
 *
 * keptdesign.c
 *	  The dense design over the kept rows, whole or in blocks
 *	  (keptdesign.h).
 *
 *-------------------------------------------------------------------------
 */
#include "state/keptdesign.h"

#include "core/rowclip.h"
#include "core/tunecalib.h"

#include "utils/memutils.h"

int64
keptrows_observations(const DPKeptRows *r, const double w[2], int **row, double **cnt,
					  double **y)
{
	Size		n = Max((Size) 2 * (Size) r->nrows, 1);

	*row = palloc_extended(sizeof(int) * n, MCXT_ALLOC_HUGE);
	*cnt = palloc_extended(sizeof(double) * n, MCXT_ALLOC_HUGE);
	*y = palloc_extended(sizeof(double) * n, MCXT_ALLOC_HUGE);
	return keptrows_observations_into(r, w, *row, *cnt, *y);
}

int64
keptrows_observations_into(const DPKeptRows *r, const double w[2], int *row, double *cnt,
						   double *y)
{
	int64		k = 0;

	for (int u = 0; u < r->nrows; u++)
		for (int lab = 0; lab < 2; lab++)
		{
			int64		c = lab == 0 ? r->pos[u] : r->neg[u];

			if (c == 0)
				continue;
			row[k] = u;
			/* a class weight scales a row's loss (the option "class_weight") */
			cnt[k] = (double) c * w[lab];
			y[k++] = lab == 0 ? 1.0 : -1.0;
		}
	return k;
}

/* the dense design, a huge allocation: bounded by memory, not by a fixed size */
void
keptrows_design(const DPKeptRows *r, const double w[2], bool intercept, double **X,
				double **cnt, double **y, int64 *nobs, int *p)
{
	int			d = r->d;
	int			pp = d + (intercept ? 1 : 0);
	int		   *row;

	*nobs = keptrows_observations(r, w, &row, cnt, y);
	*X = palloc_extended(sizeof(double) * (Size) Max(*nobs, 1) * pp, MCXT_ALLOC_HUGE);
	for (int64 k = 0; k < *nobs; k++)
	{
		memcpy(*X + (Size) k * pp, r->x + (Size) row[k] * d, sizeof(double) * d);
		if (intercept)
			(*X)[(Size) k * pp + d] = 1.0;
	}
	pfree(row);
	*p = pp;
}

/* each observation's features (the first d of its pp entries) clipped to l2 norm R */
static void
design_clip(double *X, int64 nobs, int pp, int d, double R)
{
	for (int64 k = 0; k < nobs; k++)
		rowclip_apply(X + (Size) k * pp, d, R, false);
}

/* cnt[k] *= w[0] for a positive label, w[1] for a negative one */
static void
design_weigh(double *cnt, const double *y, int64 nobs, const double *w)
{
	for (int64 k = 0; k < nobs; k++)
		cnt[k] *= y[k] > 0 ? w[0] : w[1];
}

void
keptdesign_clip(DPKeptDesign *D, double R)
{
	if (D->rows == NULL)
		design_clip((double *) D->X, D->nobs, D->pp, D->pp - (D->intercept ? 1 : 0), R);
	else
		D->clip = R;
}

/*
 * The first (first = true) or next block of D: the whole design once, or
 * the design of the rows' next block; false after the last.
 */
bool
keptdesign_next(DPKeptDesign *D, bool first)
{
	const DPKeptRows *v;
	MemoryContext old;
	double	   *X,
			   *cnt,
			   *y;
	int			pp;

	if (D->rows == NULL)
		return first;
	v = keptrows_blocks_next(D->rows, first);
	if (v == NULL)
		return false;
	MemoryContextReset(D->cxt);
	old = MemoryContextSwitchTo(D->cxt);
	keptrows_design(v, D->w, D->intercept, &X, &cnt, &y, &D->nobs, &pp);
	MemoryContextSwitchTo(old);
	if (D->clip > 0)
		design_clip(X, D->nobs, pp, D->pp - (D->intercept ? 1 : 0), D->clip);
	if (D->weigh[0] > 0)
		design_weigh(cnt, y, D->nobs, D->weigh);
	D->X = X;
	D->cnt = cnt;
	D->y = y;
	return true;
}

int
keptdesign_block_rows(int d, bool intercept)
{
	/* a block's rows (8d + 16 bytes each) and dense design (2 obs of pp + 2 doubles) */
	return keptrows_block_rows(24 * (Size) (d + (intercept ? 1 : 0)) + 64);
}

void
keptdesign_begin(DPKeptDesign *D, const DPKeptRows *r, bool intercept, const double w[2])
{
	double	   *X,
			   *cnt,
			   *y;

	int			rows;

	memset(D, 0, sizeof(DPKeptDesign));
	D->intercept = intercept;
	D->w[0] = w[0];
	D->w[1] = w[1];
	D->pp = r->d + (intercept ? 1 : 0);
	rows = keptdesign_block_rows(r->d, intercept);
	/* a design within the bound is built once; a larger one block by block */
	if (keptrows_single(r, rows))
	{
		keptrows_design(r, w, intercept, &X, &cnt, &y, &D->nobs, &D->pp);
		D->X = X;
		D->cnt = cnt;
		D->y = y;
		return;
	}
	D->rows = keptrows_blocks_begin(r, rows);
	D->cxt = AllocSetContextCreate(CurrentMemoryContext, "dpobj design block",
								   ALLOCSET_DEFAULT_SIZES);
}

void
keptdesign_weigh(DPKeptDesign *D, double wpos, double wneg)
{
	D->weigh[0] = wpos;
	D->weigh[1] = wneg;
	/* a whole design's counts were allocated by keptdesign_begin: scaled in place */
	if (D->rows == NULL)
		design_weigh((double *) D->cnt, D->y, D->nobs, D->weigh);
}

void
keptdesign_label_counts(DPKeptDesign *D, const double w[2], int64 out[2])
{
	const int64 limit = (int64) 1 << 62;

	out[0] = out[1] = 0;
	for (bool more = keptdesign_next(D, true); more; more = keptdesign_next(D, false))
		for (int64 k = 0; k < D->nobs; k++)
		{
			int			lab = D->y[k] > 0 ? 0 : 1;

			out[lab] = Min(limit, out[lab] + tune_row_count(D->cnt[k], w[lab]));
		}
}
