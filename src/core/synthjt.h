/*-------------------------------------------------------------------------
 *
 * synthjt.h
 *	  The junction tree of a set of column sets (the synthesizer's
 *	  measured marginals): triangulate their interaction graph by greedy
 *	  elimination (the smallest new clique first, in cells; ties by fewest
 *	  fill edges, then by column), keep the maximal cliques, and join them by
 *	  a maximum-weight spanning tree on shared columns (Prim), which has the
 *	  running-intersection property for the cliques of a chordal graph.  Its
 *	  size, the cells of its cliques, is what the public model-size cap
 *	  bounds.  Plain C.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SYNTHJT_H
#define DPOBJ_SYNTHJT_H

#include "core/synthfactor.h"

typedef struct SynthTree
{
	int			ncliques;
	SynthSet	clique[SYNTH_MAX_COLUMNS];
	int			parent[SYNTH_MAX_COLUMNS];	/* -1 at the root (clique order[0]) */
	int			order[SYNTH_MAX_COLUMNS];	/* every parent before its children */
	int64_t		cells;			/* sum of the cliques' cells */
} SynthTree;

/*
 * The tree over columns 0..d-1 (sizes[j] levels) whose cliques cover every
 * set in sets[0..nsets-1] and every single column.  Returns false when a
 * clique would have more than `limit` cells or the total would exceed it
 * (then t is unspecified).  Allocates nothing.
 */
extern bool synth_tree_build(int d, const int *sizes, const SynthSet *sets, int nsets,
							 int64_t limit, SynthTree *t);

/* the first clique of t that contains s, or -1 */
extern int	synth_tree_find(const SynthTree *t, SynthSet s);

#endif							/* DPOBJ_SYNTHJT_H */
