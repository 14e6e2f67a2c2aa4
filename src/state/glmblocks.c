/*-------------------------------------------------------------------------
 *
 * glmblocks.c
 *	  A GLMState's rows in blocks (glmblocks.h).
 *
 *-------------------------------------------------------------------------
 */
#include "state/glmblocks.h"

#include "base/dpobj.h"
#include "state/rowreplay.h"

struct GLMBlocks
{
	const GLMState *s;
	int			maxrows;
	int			next;			/* in memory: the next block's first row */
	GLMState	view;			/* spilled: the current block */
};

GLMBlocks *
glmblocks_begin(const GLMState *s, int maxrows)
{
	GLMBlocks  *b = palloc0(sizeof(GLMBlocks));

	b->s = s;
	/*
	 * Larger blocks save nothing: a pass's cost is per row, and blocks of a
	 * few MB are reused by the allocator from pass to pass, where huge ones
	 * are mapped and faulted in again on every pass.
	 */
	b->maxrows = Min(Max(maxrows, 1), GLMBLOCKS_MAX_ROWS);
	b->view = *s;
	if (glmblocks_spilled(s))
	{
		b->view.spill = NULL;
		b->view.nrows = 0;
		b->view.x = palloc_extended(sizeof(double) * s->d * b->maxrows, MCXT_ALLOC_HUGE);
		b->view.pos = palloc(sizeof(int64) * b->maxrows);
		b->view.neg = palloc(sizeof(int64) * b->maxrows);
	}
	return b;
}

void
glmblocks_end(GLMBlocks *b)
{
	if (glmblocks_spilled(b->s))
	{
		pfree(b->view.x);
		pfree(b->view.pos);
		pfree(b->view.neg);
	}
	pfree(b);
}

/* the next rows of the pass into the view; false if there were none */
static bool
read_block(GLMBlocks *b)
{
	GLMState   *v = &b->view;

	v->nrows = rowreplay_read(b->s->spill, v->x, v->pos, v->neg, b->maxrows);
	return v->nrows > 0;
}

/* in memory: the next block is a view into the state's arrays */
static const GLMState *
memory_block(GLMBlocks *b, bool first)
{
	const GLMState *s = b->s;
	GLMState   *v = &b->view;

	if (first)
		b->next = 0;
	if (b->next >= s->nrows && !(first && s->nrows == 0))
		return NULL;
	v->nrows = Min(b->maxrows, s->nrows - b->next);
	v->x = s->x + (Size) b->next * s->d;
	v->pos = s->pos + b->next;
	v->neg = s->neg + b->next;
	b->next += v->nrows;
	return v;
}

const GLMState *
glmblocks_next(GLMBlocks *b, bool first)
{
	if (!glmblocks_spilled(b->s))
		return memory_block(b, first);
	/* the merge's recorded order: the runs read side by side, no comparison */
	if (first)
		rowreplay_rewind(b->s->spill);
	/* an empty first block still is a block: the state with no rows */
	return (read_block(b) || first) ? &b->view : NULL;
}

int
glmblocks_rows(Size bytes_per_row)
{
	Size		n = ((Size) dpobj_max_state_memory * 1024 / 4) / Max(bytes_per_row, 1);

	return (int) Min(Max(n, 64), (Size) (PG_INT32_MAX / 2));
}
