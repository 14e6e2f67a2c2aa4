/*-------------------------------------------------------------------------
 *
 * glmblocks.h
 *	  The rows of a final function's GLMState (glmstate.h) in blocks of the
 *	  kept-rows floor (keptrows.h), each seen as a GLMState of the same
 *	  kind and params, so that a GLM design is built per block.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_GLMBLOCKS_H
#define DPOBJ_GLMBLOCKS_H

#include "families/glm/glmstate.h"

typedef struct GLMBlocks GLMBlocks;

/* a reader of s's rows, blocks of at most maxrows rows (keptrows_blocks_begin) */
extern GLMBlocks *glmblocks_begin(const GLMState *s, int maxrows);

/*
 * The first block (first = true, starting over) or the next: a GLMState of
 * s's kind and params holding the block's rows, valid until the next call;
 * NULL after the last block.
 */
extern const GLMState *glmblocks_next(GLMBlocks *b, bool first);

/* frees a reader's buffers (a pass that is not read again) */
extern void glmblocks_end(GLMBlocks *b);

#endif							/* DPOBJ_GLMBLOCKS_H */
