/*-------------------------------------------------------------------------
 *
 * opdisc_searchls.c
 *	  First incumbents of the exact search (opdisc_search.c): best-improvement
 *	  local search on the exact objective from w = 0 and from the caller's
 *	  hint.  Plain C, no PostgreSQL.
 *
 * Only a heuristic: the search's answer never depends on it (docs/ORACLE.md,
 * "What the search does"); it is cheap and rarely increases the node count.
 *
 *-------------------------------------------------------------------------
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <stdlib.h>
#include <string.h>

#include "core/opdisc_searchint.h"

/*
 * Change of the integer loss when coordinate j moves by dv, given current
 * dot products dot[].
 */
static int64_t
delta_loss_1(const SearchCtx *c, const int64_t *dot, int j, int dv)
{
	const OPDiscProblem *p = c->p;
	int64_t		dl = 0;

	for (int t = c->cstart[j]; t < c->cstart[j + 1]; t++)
	{
		int			u = c->crow[t];
		int64_t		s0 = dot[u];
		int64_t		s1 = s0 + c->cval[t] * dv;
		bool		b0 = s0 >= 1,
					b1 = s1 >= 1;

		if (b0 != b1)
			dl += b1 ? (p->neg[u] - p->pos[u]) : (p->pos[u] - p->neg[u]);
	}
	return dl;
}

/* loss of row u at score sc (sgn(0) = -1) */
static inline int64_t
row_loss(const OPDiscProblem *p, int u, int64_t sc)
{
	return sc >= 1 ? p->neg[u] : p->pos[u];
}

/* The local search's current point: exact loss, squared norm, costs, value */
typedef struct LSPoint
{
	int64_t		loss;
	int64_t		norm2;
	double		lin;
	double		cur;
} LSPoint;

/* A move: w_j += dj (and w_k += dk when k >= 0), its value and exact loss */
typedef struct LSMove
{
	int			j;
	int			k;
	int			dj;
	int			dk;
	double		val;
	int64_t		loss;
} LSMove;

static void
ls_start(SearchCtx *c, const int *w, LSPoint *pt)
{
	const OPDiscProblem *p = c->p;
	int			d = c->d;

	memset(pt, 0, sizeof(*pt));
	for (int u = 0; u < c->n; u++)
	{
		const int64_t *a = p->x + (int64_t) u * d;
		int64_t		s = 0;

		for (int j = 0; j < d; j++)
			s += a[j] * w[j];
		c->lsdot[u] = s;
		pt->loss += row_loss(p, u, s);
	}
	for (int j = 0; j < d; j++)
	{
		pt->norm2 += (int64_t) w[j] * w[j];
		pt->lin += coord_cost(c, j, w[j]);
	}
	pt->cur = ctx_value(c, pt->loss, pt->lin, pt->norm2);
}

/* Best single-coordinate move to any value (improves mv if better) */
static void
ls_best_single(SearchCtx *c, const int *w, const LSPoint *pt, LSMove *mv)
{
	for (int j = 0; j < c->d; j++)
	{
		for (int v = -c->B; v <= c->B; v++)
		{
			int64_t		n2 = pt->norm2 - (int64_t) w[j] * w[j] + (int64_t) v * v;
			int64_t		dl;
			double		val;

			if (v == w[j] || n2 > c->D2)
				continue;
			dl = delta_loss_1(c, c->lsdot, j, v - w[j]);
			val = ctx_value(c, pt->loss + dl,
							pt->lin - coord_cost(c, j, w[j]) + coord_cost(c, j, v), n2);
			if (val < mv->val)
				*mv = (LSMove) {j, -1, v - w[j], 0, val, pt->loss + dl};
		}
	}
}

/*
 * Exact loss changes of every paired +-1 move at the current point: the two
 * single changes (lsdl1[2 j + (s > 0)]) plus a correction over the rows that
 * have both columns nonzero (lscorr[4 (j d + k) + 2 (sj > 0) + (sk > 0)],
 * j < k), accumulated row by row.  O(sum over rows of their nonzeros
 * squared) per sweep instead of four column scans per pair.
 */
static void
ls_pair_tables(SearchCtx *c)
{
	const OPDiscProblem *p = c->p;
	int			d = c->d;

	for (int j = 0; j < d; j++)
	{
		c->lsdl1[2 * j] = delta_loss_1(c, c->lsdot, j, -1);
		c->lsdl1[2 * j + 1] = delta_loss_1(c, c->lsdot, j, 1);
	}
	memset(c->lscorr, 0, sizeof(int64_t) * 4 * (size_t) d * d);
	for (int u = 0; u < c->n; u++)
	{
		const int64_t *a = p->x + (int64_t) u * d;
		int64_t		s0 = c->lsdot[u];
		int			m = 0;

		for (int j = 0; j < d; j++)
			if (a[j] != 0)
				c->lsnz[m++] = j;
		for (int x = 0; x < m; x++)
			for (int y = x + 1; y < m; y++)
			{
				int			j = c->lsnz[x],
							k = c->lsnz[y];
				int64_t    *cr = c->lscorr + 4 * ((size_t) j * d + k);

				for (int q = 0; q < 4; q++)
				{
					int64_t		sj = (q & 2) ? a[j] : -a[j],
								sk = (q & 1) ? a[k] : -a[k];

					cr[q] += row_loss(p, u, s0 + sj + sk) - row_loss(p, u, s0 + sj)
						- row_loss(p, u, s0 + sk) + row_loss(p, u, s0);
				}
			}
	}
}

/* Value of the paired move (w_j + sj, w_k + sk), or INFINITY outside the grid */
static double
ls_pair_value(SearchCtx *c, const int *w, const LSPoint *pt, int j, int sj,
			  int k, int sk, int64_t *dl)
{
	int			vj = w[j] + sj,
				vk = w[k] + sk;
	int64_t		n2;

	if (vj < -c->B || vj > c->B || vk < -c->B || vk > c->B)
		return INFINITY;
	n2 = pt->norm2 - (int64_t) w[j] * w[j] - (int64_t) w[k] * w[k]
		+ (int64_t) vj * vj + (int64_t) vk * vk;
	if (n2 > c->D2)
		return INFINITY;
	*dl = c->lsdl1[2 * j + (sj > 0)] + c->lsdl1[2 * k + (sk > 0)]
		+ c->lscorr[4 * ((size_t) j * c->d + k) + 2 * (sj > 0) + (sk > 0)];
	return ctx_value(c, pt->loss + *dl,
					 pt->lin - coord_cost(c, j, w[j]) + coord_cost(c, j, vj)
					 - coord_cost(c, k, w[k]) + coord_cost(c, k, vk),
					 n2);
}

/* Best paired +-1 move (improves mv if better); false when stopped */
static bool
ls_best_pair(SearchCtx *c, const int *w, const LSPoint *pt, LSMove *mv)
{
	ls_pair_tables(c);
	for (int j = 0; j < c->d; j++)
	{
		if (search_check_stop(c))
			return false;
		for (int k = j + 1; k < c->d; k++)
			for (int sj = -1; sj <= 1; sj += 2)
				for (int sk = -1; sk <= 1; sk += 2)
				{
					int64_t		dl = 0;
					double		val = ls_pair_value(c, w, pt, j, sj, k, sk, &dl);

					if (val < mv->val)
						*mv = (LSMove) {j, k, sj, sk, val, pt->loss + dl};
				}
	}
	return true;
}

/* w_j += dj: the dot products, norm and costs follow */
static void
ls_move_coord(SearchCtx *c, int *w, LSPoint *pt, int j, int dj)
{
	pt->norm2 -= (int64_t) w[j] * w[j];
	search_add_column(c, c->lsdot, j, dj);
	pt->lin += coord_cost(c, j, w[j] + dj) - coord_cost(c, j, w[j]);
	w[j] += dj;
	pt->norm2 += (int64_t) w[j] * w[j];
}

static void
ls_apply(SearchCtx *c, int *w, LSPoint *pt, const LSMove *mv)
{
	ls_move_coord(c, w, pt, mv->j, mv->dj);
	if (mv->k >= 0)
		ls_move_coord(c, w, pt, mv->k, mv->dk);
	pt->loss = mv->loss;
	pt->cur = ctx_value(c, pt->loss, pt->lin, pt->norm2);
}

/*
 * Best-improvement local search from w (in/out) with single-coordinate moves
 * to any value and paired +-1 moves of two coordinates (the latter move
 * weight between one-hot groups, which leaves many rows' scores unchanged).
 * Every accepted point is offered to the incumbent.
 */
static void
local_search(SearchCtx *c, int *w)
{
	LSPoint		pt;
	int			sweeps = 0;

	ls_start(c, w, &pt);
	search_offer(c, w, pt.cur);
	while (sweeps++ < 1000)
	{
		LSMove		mv = {-1, -1, 0, 0, pt.cur - c->margin, 0};

		if (search_check_stop(c))
			return;
		ls_best_single(c, w, &pt, &mv);
		if (!ls_best_pair(c, w, &pt, &mv))
			return;
		if (mv.j < 0)
			break;				/* a local minimum */
		ls_apply(c, w, &pt, &mv);
		search_offer(c, w, pt.cur);
	}
}

/* Incumbent heuristics: local search from w = 0 and from the caller's hint */
void
search_first_incumbents(SearchCtx *c, int *w0)
{
	const OPDiscProblem *p = c->p;

	memset(w0, 0, sizeof(int) * c->d);
#ifdef OPDISC_SEARCH_TUNING
	if (!opdisc_search_no_local_search)
#endif
		local_search(c, w0);
	if (p->initial_w != NULL && opdisc_in_grid(p, p->initial_w) && !c->stopped)
	{
		memcpy(w0, p->initial_w, sizeof(int) * c->d);
		local_search(c, w0);
	}
}
