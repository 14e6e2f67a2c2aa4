/*-------------------------------------------------------------------------
 *
 * glmblocks.h
 *	  The rows of a final function's GLMState (glmstate.h) in canonical
 *	  order, in blocks of a bounded number of rows: views into its arrays
 *	  when its rows are in memory, else read from its spill file
 *	  (rowspill.h) block by block, so that a design built per block stays
 *	  within dpobj.max_state_memory.  Either way the sequence of rows is the
 *	  same, so a mechanism's sums over it are the same bit for bit.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_GLMBLOCKS_H
#define DPOBJ_GLMBLOCKS_H

#include "state/glmstate.h"

typedef struct GLMBlocks GLMBlocks;

/*
 * a reader of s's rows, blocks of at most maxrows (and GLMBLOCKS_MAX_ROWS)
 * rows (CurrentMemoryContext)
 */
extern GLMBlocks *glmblocks_begin(const GLMState *s, int maxrows);

/*
 * The first block (first = true, starting over) or the next: a GLMState of
 * s's kind, d and params holding the block's rows, valid until the next
 * call; NULL after the last block.
 */
extern const GLMState *glmblocks_next(GLMBlocks *b, bool first);

/* frees a reader's buffers (a pass that is not read again) */
extern void glmblocks_end(GLMBlocks *b);

/* whether s's rows are on a file */
static inline bool
glmblocks_spilled(const GLMState *s)
{
	return s->spill != NULL;
}

/* whether s is one block of maxrows rows: all in memory and few enough */
static inline bool
glmblocks_single(const GLMState *s, int maxrows)
{
	return !glmblocks_spilled(s) && s->nrows <= maxrows;
}

/* the most rows a block of glmblocks_begin() holds, whatever the cap */
#define GLMBLOCKS_MAX_ROWS	16384

/*
 * Rows per block so that a block's design, bytes_per_row bytes a row,
 * takes at most a quarter of dpobj.max_state_memory (at least 64 rows).
 */
extern int	glmblocks_rows(Size bytes_per_row);

#endif							/* DPOBJ_GLMBLOCKS_H */
