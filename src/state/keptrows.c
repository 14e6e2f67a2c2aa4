/*-------------------------------------------------------------------------
 *
 * keptrows.c
 *	  A state's kept rows, in memory or replayed, and in blocks
 *	  (keptrows.h).
 *
 *-------------------------------------------------------------------------
 */
#include "state/keptrows.h"

#include "base/options.h"
#include "context/protected.h"
#include "state/aggsample.h"
#include "state/rowreplay.h"

int64
keptrows_sample_rows(int d, int64 option)
{
	if (option <= 0)
		return 0;
	return aggsample_rows(d, option, aggsample_canonical_row_bytes(d),
						  (double) dpobj_max_state_memory * 1024 / 4);
}

/*
 * Every distinct row of a shard would otherwise travel as one value (at
 * most 1 GB, so a large shard failed after the charge) and the coordinator
 * would hold them all.  K is public (the cap and d; every worker's cap is
 * at least this one, workerpins.h), and a sample at K costs no privacy
 * (docs/PRIVACY.md, "Uniform row samples").
 */
Jsonb *
keptrows_citus_options(const DPProtectedContext *ctx)
{
	if (getKeyJsonValueFromContainer(&ctx->options->root, "sample_rows", 11, NULL) != NULL)
		return ctx->options;
	return dp_options_sample_rows(ctx->options, keptrows_sample_rows(ctx->d, PG_INT32_MAX));
}

void
keptrows_alloc(DPKeptRows *r, int d, int nrows)
{
	r->d = d;
	r->nrows = nrows;
	r->x = palloc_extended(sizeof(double) * d * Max(nrows, 1), MCXT_ALLOC_HUGE);
	r->pos = palloc_extended(sizeof(int64) * Max(nrows, 1), MCXT_ALLOC_HUGE);
	r->neg = palloc_extended(sizeof(int64) * Max(nrows, 1), MCXT_ALLOC_HUGE);
	r->spill = NULL;
	r->spill_obs = 0;
}

/*
 * A state that spilled: the merge of its runs and in-memory rows recorded
 * once (rowreplay.h) and replayed in blocks; else its rows in canonical
 * order.
 */
void
keptrows_from_state(DPKeptRows *r, DPAggState *st, bool draw, int maxrows)
{
	int64		n;

	if (st->spill == NULL && (draw || st->sample != NULL || st->rows.nrows <= maxrows))
	{
		keptrows_alloc(r, st->d, st->rows.nrows);
		r->nrows = aggstate_canonical_rows(st, draw, (uint64 *) r->x, r->pos, r->neg);
		return;
	}
	keptrows_alloc(r, st->d, 0);
	r->spill = rowreplay_new(CurrentMemoryContext, st->spill, &st->rows,
							 st->d, st->type->words, &n, &r->spill_obs);
	r->nrows = (int) n;
}

int64
keptrows_nobs(const DPKeptRows *r)
{
	int64		k = 0;

	if (r->spill != NULL)
		return r->spill_obs;
	for (int u = 0; u < r->nrows; u++)
		k += (r->pos[u] != 0) + (r->neg[u] != 0);
	return k;
}

/* ---- blocks ---- */

struct DPKeptBlocks
{
	const DPKeptRows *r;
	int			maxrows;
	int			next;			/* in memory: the next block's first row */
	DPKeptRows	view;			/* the current block */
};

DPKeptBlocks *
keptrows_blocks_begin(const DPKeptRows *r, int maxrows)
{
	DPKeptBlocks *b = palloc0(sizeof(DPKeptBlocks));

	b->r = r;
	/*
	 * Larger blocks save nothing: a pass's cost is per row, and blocks of a
	 * few MB are reused by the allocator from pass to pass, where huge ones
	 * are mapped and faulted in again on every pass.
	 */
	b->maxrows = Min(Max(maxrows, 1), KEPTROWS_BLOCK_MAX_ROWS);
	b->view = *r;
	if (keptrows_spilled(r))
		keptrows_alloc(&b->view, r->d, b->maxrows);
	return b;
}

void
keptrows_blocks_end(DPKeptBlocks *b)
{
	if (keptrows_spilled(b->r))
	{
		pfree(b->view.x);
		pfree(b->view.pos);
		pfree(b->view.neg);
	}
	pfree(b);
}

/* the next rows of the pass into the view; false if there were none */
static bool
read_block(DPKeptBlocks *b)
{
	DPKeptRows *v = &b->view;

	v->nrows = rowreplay_read(b->r->spill, v->x, v->pos, v->neg, b->maxrows);
	return v->nrows > 0;
}

/* in memory: the next block is a view into the rows' arrays */
static const DPKeptRows *
memory_block(DPKeptBlocks *b, bool first)
{
	const DPKeptRows *r = b->r;
	DPKeptRows *v = &b->view;

	if (first)
		b->next = 0;
	if (b->next >= r->nrows && !(first && r->nrows == 0))
		return NULL;
	v->nrows = Min(b->maxrows, r->nrows - b->next);
	v->x = r->x + (Size) b->next * r->d;
	v->pos = r->pos + b->next;
	v->neg = r->neg + b->next;
	b->next += v->nrows;
	return v;
}

const DPKeptRows *
keptrows_blocks_next(DPKeptBlocks *b, bool first)
{
	if (!keptrows_spilled(b->r))
		return memory_block(b, first);
	/* the merge's recorded order: the runs read side by side, no comparison */
	if (first)
		rowreplay_rewind(b->r->spill);
	return (read_block(b) || first) ? &b->view : NULL;
}

int
keptrows_block_rows(Size bytes_per_row)
{
	Size		n = ((Size) dpobj_max_state_memory * 1024 / 8 * KEPTROWS_DESIGN_EIGHTHS) /
		Max(bytes_per_row, 1);

	return (int) Min(Max(n, 64), (Size) (PG_INT32_MAX / 2));
}
