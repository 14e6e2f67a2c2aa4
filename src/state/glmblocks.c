/*-------------------------------------------------------------------------
 *
 * glmblocks.c
 *	  A GLMState's rows in blocks (glmblocks.h).
 *
 *-------------------------------------------------------------------------
 */
#include "glmblocks.h"

#include "dpobj.h"
#include "rowspill.h"

struct GLMBlocks
{
	const GLMState *s;
	MemoryContext mcxt;
	int			maxrows;
	DPRowStream *stream;		/* spilled: the current pass, NULL: none */
	GLMState	view;			/* spilled: the current block */
};

GLMBlocks *
glmblocks_begin(const GLMState *s, int maxrows)
{
	GLMBlocks  *b = palloc0(sizeof(GLMBlocks));

	b->s = s;
	b->mcxt = CurrentMemoryContext;
	b->maxrows = Max(maxrows, 1);
	if (glmblocks_spilled(s))
	{
		b->view = *s;
		b->view.spill = NULL;
		b->view.nrows = 0;
		b->view.x = palloc_extended(sizeof(double) * s->d * b->maxrows, MCXT_ALLOC_HUGE);
		b->view.pos = palloc(sizeof(int64) * b->maxrows);
		b->view.neg = palloc(sizeof(int64) * b->maxrows);
	}
	return b;
}

/* the next rows of the pass into the view; false if there were none */
static bool
read_block(GLMBlocks *b)
{
	GLMState   *v = &b->view;
	const uint64 *row;
	int64		pos,
				neg;

	v->nrows = 0;
	while (v->nrows < b->maxrows && rowstream_next(b->stream, &row, &pos, &neg))
	{
		memcpy(v->x + (Size) v->nrows * v->d, row, sizeof(double) * v->d);
		v->pos[v->nrows] = pos;
		v->neg[v->nrows++] = neg;
	}
	return v->nrows > 0;
}

const GLMState *
glmblocks_next(GLMBlocks *b, bool first)
{
	MemoryContext old;
	bool		more;

	if (!glmblocks_spilled(b->s))
		return first ? b->s : NULL;
	old = MemoryContextSwitchTo(b->mcxt);
	if (first && b->stream != NULL)
	{
		rowstream_end(b->stream);
		b->stream = NULL;
	}
	if (first)
	{
		/* the mechanisms poll for interrupts themselves, after the charge */
		b->stream = rowstream_begin(b->s->spill, NULL, b->s->d, DP_ROW_ORDER_FLOAT8);
		rowstream_quiet(b->stream);
	}
	more = b->stream != NULL && read_block(b);
	if (!more && b->stream != NULL)
	{
		rowstream_end(b->stream);
		b->stream = NULL;
	}
	MemoryContextSwitchTo(old);
	/* an empty first block still is a block: the state with no rows */
	return (more || first) ? &b->view : NULL;
}

int
glmblocks_rows(Size bytes_per_row)
{
	Size		n = ((Size) dpobj_max_state_memory * 1024 / 4) / Max(bytes_per_row, 1);

	return (int) Min(Max(n, 64), (Size) (PG_INT32_MAX / 2));
}
