/*-------------------------------------------------------------------------
 *
 * ebmbins.h
 *	  Private bin edges of a numeric term (additive boosting, additive.h): the
 *	  term's exact histogram over a fine public grid of G equal-width cells
 *	  of [lo, hi], released as a noisy hierarchical histogram (every node of
 *	  a tree of fanout EBM_BIN_FANOUT over the cells, the leaves included,
 *	  the root not), whose least-squares consistent leaf estimates give the
 *	  cuts at equal-mass quantiles; bins are then runs of whole cells, so a
 *	  value's bin is a function of its cell alone (predict bins it the same
 *	  way).  A row is in one node per level: replacing it moves L nodes'
 *	  counts down and L up, l2 sqrt(2 L) (docs/PRIVACY.md, "Additive
 *	  boosting").  Everything after the release is post-processing.  Plain C
 *	  (ebmbins.c), unit-tested in tests/unit/test_ebmbins.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_EBMBINS_H
#define DPOBJ_EBMBINS_H

#include <stdbool.h>
#include <stdint.h>

#define EBM_BIN_FANOUT		16
#define EBM_BIN_GRID		4096	/* the default cells: levels of 16, 256, 4096 */
#define EBM_BIN_MAX_GRID	65536	/* a cell's index fits in 16 bits */
#define EBM_BIN_MAX_LEVELS	4
/* every private term's cells together (public: a run's grid shrinks to fit) */
#define EBM_BIN_MAX_CELLS	(1 << 20)

/* whether g is a grid: a power of two in [2, EBM_BIN_MAX_GRID] */
extern bool ebmbins_grid_ok(int g);

/*
 * The tree's levels over g cells, finest first: sizes[0] = g, then each
 * level EBM_BIN_FANOUT times coarser while the level above has more than
 * one node (the last level has at most EBM_BIN_FANOUT nodes).  Returns L.
 */
extern int	ebmbins_levels(int g, int *sizes);

/* all the tree's nodes (sum of the level sizes) */
extern int	ebmbins_nodes(int g);

/*
 * The largest grid, at most want, that keeps nterms terms' cells within
 * EBM_BIN_MAX_CELLS (at least 2; public inputs only).
 */
extern int	ebmbins_fit_grid(int want, int nterms);

/* every node's exact count from the leaves' (level by level, finest first) */
extern void ebmbins_tree(const __int128 *leaf, int g, __int128 *nodes);

/*
 * The least-squares consistent leaf estimates from every node's noisy count
 * (nodes as ebmbins_tree lays them out; each node's noise of the same
 * variance, the root unmeasured): the Gaussian tree's exact two passes,
 * bottom-up inverse-variance merging of a node and its children's sum,
 * top-down the parent's estimate shared among the children in proportion
 * to their variances.  work: 2 ebmbins_nodes(g) doubles.
 */
extern void ebmbins_leaves(const double *nodes, int g, double *leaf, double *work);

/*
 * Cuts at equal-mass quantiles of the leaves' estimated counts (noisy: not
 * clipped at 0, so the running sum is unbiased): walking the cells, a bin
 * ends after the first cell where it holds 1/bins of the total (so a heavy
 * cell is a bin of its own, and the bins after it share the rest); at most
 * bins - 1 increasing cuts in [1, g - 1] (cell c starts bin #{cuts <= c}).
 * A total not above 0 (nothing but noise) gives the equal-width cuts of bins
 * bins instead.  Returns their number.
 */
extern int	ebmbins_cuts(const double *leaf, int g, int bins, int *cuts);

/* the bin of every cell: #{j: cuts[j] <= c} */
extern void ebmbins_map(const int *cuts, int ncuts, int g, uint16_t *map);

#endif							/* DPOBJ_EBMBINS_H */
