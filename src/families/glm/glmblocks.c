/*-------------------------------------------------------------------------
 *
 * glmblocks.c
 *	  A GLMState's rows in blocks (glmblocks.h).
 *
 *-------------------------------------------------------------------------
 */
#include "families/glm/glmblocks.h"

struct GLMBlocks
{
	DPKeptBlocks *rows;
	GLMState	view;			/* the current block */
};

GLMBlocks *
glmblocks_begin(const GLMState *s, int maxrows)
{
	GLMBlocks  *b = palloc0(sizeof(GLMBlocks));

	b->rows = keptrows_blocks_begin(&s->rows, maxrows);
	b->view = *s;
	return b;
}

void
glmblocks_end(GLMBlocks *b)
{
	keptrows_blocks_end(b->rows);
	pfree(b);
}

const GLMState *
glmblocks_next(GLMBlocks *b, bool first)
{
	const DPKeptRows *v = keptrows_blocks_next(b->rows, first);

	if (v == NULL)
		return NULL;
	b->view.rows = *v;
	return &b->view;
}
