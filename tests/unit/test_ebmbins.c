/*
 * test_ebmbins.c -- private bin edges (src/core/ebmbins.c): the tree's levels
 * and grid, its exact node counts, the least-squares leaf estimates against a
 * brute-force solve of the normal equations, the cuts (equal mass, a heavy
 * cell, noise around the mass, the equal-width fallback) and the cell-to-bin map.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/ebmbins.h"
#include "unitcheck.h"

static void
test_levels(void)
{
	int			s[EBM_BIN_MAX_LEVELS + 1];

	CHECK(ebmbins_levels(4096, s) == 3 && s[0] == 4096 && s[1] == 256 && s[2] == 16,
		  "4096 cells: levels 4096, 256, 16");
	CHECK(ebmbins_nodes(4096) == 4096 + 256 + 16, "4096 cells: nodes");
	CHECK(ebmbins_levels(65536, s) == 4 && s[3] == 16, "65536 cells: 4 levels");
	CHECK(ebmbins_levels(2, s) == 1 && s[0] == 2, "2 cells: one level");
	CHECK(ebmbins_levels(32, s) == 2 && s[1] == 2 && ebmbins_nodes(32) == 34, "32 cells: 32, 2");
	CHECK(ebmbins_levels(16, s) == 1, "16 cells: one level");
	CHECK(ebmbins_grid_ok(2) && ebmbins_grid_ok(65536) && !ebmbins_grid_ok(1) &&
		  !ebmbins_grid_ok(48) && !ebmbins_grid_ok(131072), "grids: powers of two in [2, 65536]");
	CHECK(ebmbins_fit_grid(4096, 5) == 4096 && ebmbins_fit_grid(4096, 1024) == 1024 &&
		  ebmbins_fit_grid(4096, 1 << 20) == 2 && ebmbins_fit_grid(4096, 0) == 4096,
		  "the grid shrinks to keep the cells within EBM_BIN_MAX_CELLS");
}

static void
test_tree(void)
{
	__int128	leaf[32],
				nodes[34];

	for (int c = 0; c < 32; c++)
		leaf[c] = c * 3 + 1;
	ebmbins_tree(leaf, 32, nodes);
	CHECK(nodes[5] == 16 && nodes[32] == 16 * 1 + 3 * 120 && nodes[33] == 16 + 3 * 376,
		  "node counts: the leaves, then each parent the sum of its 16 children");
}

/* the least-squares leaves by the normal equations: min sum over nodes (A x - y)^2 */
static void
brute_leaves(const double *y, int g, double *x)
{
	int			s[EBM_BIN_MAX_LEVELS + 1];
	int			L = ebmbins_levels(g, s),
				n = ebmbins_nodes(g);
	double	   *A = calloc((size_t) n * g, sizeof(double)),
			   *M = calloc((size_t) g * (g + 1), sizeof(double));
	int			off = 0;

	for (int i = 0, span = 1; i < L; i++)
	{
		for (int v = 0; v < s[i]; v++)
			for (int c = v * span; c < (v + 1) * span; c++)
				A[(size_t) (off + v) * g + c] = 1;
		off += s[i];
		if (i + 1 < L)
			span *= s[i] / s[i + 1];
	}
	for (int a = 0; a < g; a++)
	{
		for (int b = 0; b < g; b++)
			for (int r = 0; r < n; r++)
				M[a * (g + 1) + b] += A[(size_t) r * g + a] * A[(size_t) r * g + b];
		for (int r = 0; r < n; r++)
			M[a * (g + 1) + g] += A[(size_t) r * g + a] * y[r];
	}
	/* Gauss-Jordan, M positive definite */
	for (int p = 0; p < g; p++)
		for (int a = 0; a < g; a++)
			if (a != p)
			{
				double		f = M[a * (g + 1) + p] / M[p * (g + 1) + p];

				for (int b = p; b <= g; b++)
					M[a * (g + 1) + b] -= f * M[p * (g + 1) + b];
			}
	for (int a = 0; a < g; a++)
		x[a] = M[a * (g + 1) + g] / M[a * (g + 1) + a];
	free(A);
	free(M);
}

static void
test_leaves(void)
{
	int			grids[] = {2, 32, 512};

	for (int k = 0; k < 3; k++)
	{
		int			g = grids[k],
					n = ebmbins_nodes(g);
		double	   *y = malloc(sizeof(double) * n),
				   *x = malloc(sizeof(double) * g),
				   *b = malloc(sizeof(double) * g),
				   *w = malloc(sizeof(double) * 2 * n);
		__int128   *leaf = malloc(sizeof(__int128) * g),
				   *nodes = malloc(sizeof(__int128) * n);
		double		err = 0,
					exact = 0;

		/* consistent counts come back exactly */
		for (int c = 0; c < g; c++)
			leaf[c] = (int64_t) (unitcheck_next64() % 100);
		ebmbins_tree(leaf, g, nodes);
		for (int j = 0; j < n; j++)
			y[j] = (double) nodes[j];
		ebmbins_leaves(y, g, x, w);
		for (int c = 0; c < g; c++)
			exact = fmax(exact, fabs(x[c] - (double) leaf[c]));
		CHECK(exact < 1e-9, "grid %d: consistent counts are their own estimate (%g)", g, exact);
		/* noisy counts: the least-squares solution */
		for (int j = 0; j < n; j++)
			y[j] += (double) (unitcheck_next64() % 2001) - 1000;
		ebmbins_leaves(y, g, x, w);
		brute_leaves(y, g, b);
		for (int c = 0; c < g; c++)
			err = fmax(err, fabs(x[c] - b[c]));
		CHECK(err < 1e-6, "grid %d: the two passes give the least-squares leaves (%g)", g, err);
		free(y);
		free(x);
		free(b);
		free(w);
		free(leaf);
		free(nodes);
	}
}

static void
test_cuts(void)
{
	double		leaf[64];
	int			cuts[64];
	uint16_t	map[64];
	int			n;

	/* uniform mass: equal-width quartiles */
	for (int c = 0; c < 64; c++)
		leaf[c] = 10;
	n = ebmbins_cuts(leaf, 64, 4, cuts);
	CHECK(n == 3 && cuts[0] == 16 && cuts[1] == 32 && cuts[2] == 48, "uniform: cuts 16, 32, 48");
	/* a heavy first cell is a bin of its own; each later bin holds a quarter of the total */
	leaf[0] = 1000;
	n = ebmbins_cuts(leaf, 64, 4, cuts);
	CHECK(n == 2 && cuts[0] == 1 && cuts[1] == 42,
		  "heavy cell: its own bin, then a quarter of 1630 (%d: %d %d)", n, cuts[0], n > 1 ? cuts[1] : -1);
	/* mass in the middle only, noise of both signs around it */
	for (int c = 0; c < 64; c++)
		leaf[c] = (c % 2 == 0) ? 1 : -1;
	for (int c = 30; c < 34; c++)
		leaf[c] = 100;
	n = ebmbins_cuts(leaf, 64, 4, cuts);
	CHECK(n == 3 && cuts[0] == 31 && cuts[1] == 32 && cuts[2] == 33, "mass in 4 cells: a bin each");
	for (int c = 0; c < 64; c++)
		leaf[c] = -1;
	n = ebmbins_cuts(leaf, 64, 5, cuts);
	CHECK(n == 4 && cuts[0] == 12 && cuts[3] == 51, "negative total: equal-width cuts of 5");
	/* more bins than cells */
	n = ebmbins_cuts(leaf, 2, 16, cuts);
	CHECK(n == 1 && cuts[0] == 1, "2 cells, 16 bins: one cut");
	/* the map */
	cuts[0] = 1;
	cuts[1] = 22;
	cuts[2] = 43;
	ebmbins_map(cuts, 3, 64, map);
	CHECK(map[0] == 0 && map[1] == 1 && map[21] == 1 && map[22] == 2 && map[42] == 2 &&
		  map[43] == 3 && map[63] == 3, "map: #{cuts <= cell}");
	ebmbins_map(cuts, 0, 64, map);
	CHECK(map[0] == 0 && map[63] == 0, "no cuts: one bin");
}

int
main(void)
{
	test_levels();
	test_tree();
	test_leaves();
	test_cuts();
	return unitcheck_report();
}
