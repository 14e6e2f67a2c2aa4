/*-------------------------------------------------------------------------
 *
 * opdisc_searchsetup.c
 *	  Everything the exact search (opdisc_search.c) needs before its first
 *	  node: input checks, the static column order, the row groupings of every
 *	  level with their radius breakpoints and single-column slots, the noise
 *	  tables, the coordinate costs, the pruning margin and the scratch
 *	  arrays; a thread's clone of the context and freeing on every path.
 *	  Plain C, no PostgreSQL.
 *
 *-------------------------------------------------------------------------
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/opdisc_searchint.h"

typedef struct SortKey
{
	int64_t		k1;
	int64_t		k2;
	int			row;
} SortKey;

static int
sortkey_cmp(const void *a, const void *b)
{
	const SortKey *x = a,
			   *y = b;

	if (x->k1 != y->k1)
		return x->k1 < y->k1 ? -1 : 1;
	if (x->k2 != y->k2)
		return x->k2 < y->k2 ? -1 : 1;
	return x->row - y->row;
}

static int
int64_cmp(const void *a, const void *b)
{
	int64_t		x = *(const int64_t *) a,
				y = *(const int64_t *) b;

	return (x > y) - (x < y);
}

typedef struct ColKey
{
	double		key;
	int			col;
} ColKey;

static int
colkey_cmp(const void *a, const void *b)
{
	const ColKey *x = a,
			   *y = b;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return x->col - y->col;
}

/* A thread's own scratch (SEARCH_THREAD_ARRAYS) */
static void
ctx_free_thread(SearchCtx *c)
{
#define CTX_FREE_ARRAY(f) do { free(c->f); c->f = NULL; } while (0);
	SEARCH_THREAD_ARRAYS(CTX_FREE_ARRAY)
#undef CTX_FREE_ARRAY
}

void
search_ctx_free(SearchCtx *c)
{
	ctx_free_thread(c);
	if (!c->owns_shared)
		return;
	if (c->lev != NULL)
	{
		for (int k = 0; k <= c->d; k++)
		{
			Level	   *lv = &c->lev[k];

			free(lv->gstart);
			free(lv->members);
			free(lv->ggcd);
			free(lv->gpos);
			free(lv->affected);
			free(lv->gsplit);
			free(lv->mq);
			free(lv->mdelta);
			free(lv->bpstart);
			free(lv->bps);
			free(lv->bpj);
			free(lv->unaff);
			free(lv->aff);
			free(lv->gcol);
			free(lv->gcoef);
			free(lv->sunaff);
			free(lv->saff);
			free(lv->c1col);
			free(lv->c1slot);
			free(lv->c1seq);
			free(lv->E0);
		}
	}
	free(c->lev);
	free(c->order);
	free(c->cstart);
	free(c->crow);
	free(c->cval);
	free(c->ntab);
	free(c->vcost);
}

#ifdef OPDISC_SEARCH_TUNING
/* benchmarking hooks (bench/oracle only; opdisc_searchint.h) */
int		   *opdisc_search_forced_order = NULL;
int			opdisc_search_order_mode = 0;
int			opdisc_search_no_local_search = 0;

/*
 * Number of distinct rows when only the columns with keep[j] set are
 * looked at (64-bit hashes; used only to choose an order).
 */
static int
count_groups(SearchCtx *c, const unsigned char *keep, uint64_t *h)
{
	const OPDiscProblem *p = c->p;
	int			d = c->d,
				n = c->n,
				ng = 0;

	for (int u = 0; u < n; u++)
	{
		uint64_t	z = 0x12345;

		for (int j = 0; j < d; j++)
		{
			if (!keep[j])
				continue;
			z ^= (uint64_t) p->x[(int64_t) u * d + j] + 0x9E3779B97F4A7C15ULL + (z << 6) + (z >> 2);
			z *= 0xBF58476D1CE4E5B9ULL;
		}
		h[u] = z;
	}
	qsort(h, (size_t) n, sizeof(uint64_t), int64_cmp);
	for (int u = 0; u < n; u++)
		if (u == 0 || h[u] != h[u - 1])
			ng++;
	return ng;
}

/*
 * Greedy order: repeatedly assign the column whose removal from the
 * unassigned set leaves the fewest row groups (ties: more nonzeros first).
 */
static int
greedy_order(SearchCtx *c)
{
	int			d = c->d;
	unsigned char *keep = calloc((size_t) d, 1);
	uint64_t   *h = calloc((size_t) (c->n > 0 ? c->n : 1), sizeof(uint64_t));

	if (keep == NULL || h == NULL)
	{
		free(keep);
		free(h);
		return -1;
	}
	memset(keep, 1, (size_t) d);
	for (int k = 0; k < d; k++)
	{
		int			bj = -1,
					bg = 0,
					bnz = 0;

		for (int j = 0; j < d; j++)
		{
			int			ng,
						nz;

			if (!keep[j])
				continue;
			keep[j] = 0;
			ng = count_groups(c, keep, h);
			keep[j] = 1;
			nz = c->cstart[j + 1] - c->cstart[j];
			if (bj < 0 || ng < bg || (ng == bg && nz > bnz))
			{
				bj = j;
				bg = ng;
				bnz = nz;
			}
		}
		c->order[k] = bj;
		keep[bj] = 0;
	}
	free(keep);
	free(h);
	return 0;
}
#endif							/* OPDISC_SEARCH_TUNING */

/*
 * Static column order.  Columns with more than two distinct values
 * (continuous features) first, then the rest by decreasing number of
 * nonzeros, so that rows reach "one unassigned nonzero column" early.
 * Measured against ordering by |eta_j|, a greedy fewest-groups order,
 * one-hot block by block and continuous-last (docs/ORACLE.md): this order
 * was best by a wide margin on the Adult ladder.
 */
static int
choose_order(SearchCtx *c)
{
	const OPDiscProblem *p = c->p;
	int			d = c->d,
				n = c->n;
	ColKey	   *ck = NULL;
	int64_t    *vals = NULL;

	ck = calloc((size_t) d, sizeof(ColKey));
	vals = calloc((size_t) (n > 0 ? n : 1), sizeof(int64_t));
	if (ck == NULL || vals == NULL)
	{
		free(ck);
		free(vals);
		return -1;
	}
	for (int j = 0; j < d; j++)
	{
		int			nd = 0;
		int			nnz = c->cstart[j + 1] - c->cstart[j];

		for (int u = 0; u < n; u++)
			vals[u] = p->x[(int64_t) u * d + j];
		qsort(vals, (size_t) n, sizeof(int64_t), int64_cmp);
		for (int i = 0; i < n; i++)
			if (i == 0 || vals[i] != vals[i - 1])
				nd++;
		ck[j].key = (nd > 2 ? 1e12 * nd : 0.0) + nnz;
		ck[j].col = j;
	}
	qsort(ck, (size_t) d, sizeof(ColKey), colkey_cmp);
	for (int j = 0; j < d; j++)
		c->order[j] = ck[j].col;
	free(ck);
	free(vals);
	return 0;
}


/*
 * Build the row groupings for every level k = d..0: level d has all rows in
 * one group (nothing unassigned); level k refines level k + 1 by the value of
 * column order[k].
 */
/*
 * Level k's grouping: rows sorted by (their group at level k + 1, a_{u,col})
 * with col = order[k]; writes each row's new group id to ngid and returns
 * the number of groups (keys stay sorted for level_fill).
 */
static int
level_group_rows(SearchCtx *c, int k, const int *gid, int *ngid, SortKey *keys)
{
	int			n = c->n;
	int			ng = 0;

	if (k == c->d)
	{
		for (int u = 0; u < n; u++)
			keys[u] = (SortKey) {0, 0, u};
	}
	else
	{
		int			col = c->order[k];

		for (int u = 0; u < n; u++)
			keys[u] = (SortKey) {gid[u], c->p->x[(int64_t) u * c->d + col], u};
		qsort(keys, (size_t) n, sizeof(SortKey), sortkey_cmp);
	}
	for (int i = 0; i < n; i++)
	{
		if (i == 0 || keys[i].k1 != keys[i - 1].k1 || keys[i].k2 != keys[i - 1].k2)
			ng++;
		ngid[keys[i].row] = ng - 1;
	}
	return ng;
}

/* A level's arrays for ng groups; -1 on out of memory (ctx_free frees them) */
static int
level_alloc(Level *lv, int ng, int n, int d, int Deff)
{
	lv->ngroups = ng;
	if ((lv->gstart = calloc((size_t) ng + 1, sizeof(int))) == NULL ||
		(lv->members = calloc((size_t) (n > 0 ? n : 1), sizeof(int))) == NULL ||
		(lv->ggcd = calloc((size_t) ng + 1, sizeof(int64_t))) == NULL ||
		(lv->gpos = calloc((size_t) ng + 1, sizeof(int64_t))) == NULL ||
		(lv->affected = calloc((size_t) ng + 1, 1)) == NULL ||
		(lv->gsplit = calloc((size_t) ng + 1, sizeof(int))) == NULL ||
		(lv->mq = calloc((size_t) n + 1, sizeof(int64_t))) == NULL ||
		(lv->mdelta = calloc((size_t) n + 1, sizeof(int64_t))) == NULL ||
		(lv->bpstart = calloc((size_t) ng + 1, sizeof(int))) == NULL ||
		(lv->unaff = calloc((size_t) ng + 1, sizeof(int))) == NULL ||
		(lv->aff = calloc((size_t) ng + 1, sizeof(int))) == NULL ||
		(lv->gcol = calloc((size_t) ng + 1, sizeof(int))) == NULL ||
		(lv->gcoef = calloc((size_t) ng + 1, sizeof(int64_t))) == NULL ||
		(lv->sunaff = calloc((size_t) ng + 1, sizeof(int))) == NULL ||
		(lv->saff = calloc((size_t) ng + 1, sizeof(int))) == NULL ||
		(lv->c1col = calloc((size_t) d + 1, sizeof(int))) == NULL ||
		(lv->c1slot = calloc((size_t) d + 1, sizeof(int))) == NULL ||
		(lv->c1seq = calloc((size_t) d + 1, sizeof(int))) == NULL ||
		(lv->E0 = calloc((size_t) Deff + 1, sizeof(double))) == NULL)
		return -1;
	for (int j = 0; j < d; j++)
		lv->c1slot[j] = -1;
	return 0;
}

/*
 * Group g of level k: gcd and single column of its unassigned entries
 * order[k..d-1], its positive count, whether column order[k-1] touches it
 * (members with a zero there first, split at gsplit), the members' lattice
 * shifts, and the list (single / free-remainder, affected or not) it joins.
 */
static void
level_group_stats(SearchCtx *c, Level *lv, int k, int g)
{
	const OPDiscProblem *p = c->p;
	int			d = c->d;
	const int64_t *a = p->x + (int64_t) lv->members[lv->gstart[g]] * d;
	int			prev = (k >= 1) ? c->order[k - 1] : -1;
	int64_t		gg = 0;
	int			nnz = 0;
	int			lo = lv->gstart[g];

	lv->gcol[g] = -1;
	for (int t = k; t < d; t++)
	{
		gg = gcd64(gg, a[c->order[t]]);
		if (a[c->order[t]] != 0)
		{
			nnz++;
			lv->gcol[g] = c->order[t];
			lv->gcoef[g] = a[c->order[t]];
		}
	}
	if (nnz != 1)
		lv->gcol[g] = -1;
	else if (lv->c1slot[lv->gcol[g]] < 0)
	{
		lv->c1slot[lv->gcol[g]] = lv->nc1;
		lv->c1col[lv->nc1++] = lv->gcol[g];
	}
	lv->ggcd[g] = gg;
	for (int i = lv->gstart[g]; i < lv->gstart[g + 1]; i++)
	{
		int			u = lv->members[i];

		lv->gpos[g] += p->pos[u];
		if (prev >= 0 && p->x[(int64_t) u * d + prev] != 0)
			lv->affected[g] = 1;
		else
		{
			/* members with a_{u,order[k-1]} == 0 first, then the others */
			lv->members[i] = lv->members[lo];
			lv->members[lo++] = u;
		}
	}
	lv->gsplit[g] = lo;
	/* lattice step of the group: gcd, or |coefficient| if single */
	for (int i = lv->gstart[g]; i < lv->gstart[g + 1]; i++)
	{
		int64_t		step = (lv->gcol[g] >= 0) ? i64abs(lv->gcoef[g]) : gg;
		int64_t		av = (prev < 0) ? 0 : p->x[(int64_t) lv->members[i] * d + prev];

		lv->mq[i] = (step != 0 && av % step == 0) ? av / step : MQ_NONE;
		lv->mdelta[i] = p->neg[lv->members[i]] - p->pos[lv->members[i]];
	}
	if (lv->gcol[g] >= 0)
	{
		if (lv->affected[g])
			lv->saff[lv->nsaff++] = g;
		else
			lv->sunaff[lv->nsunaff++] = g;
	}
	else if (lv->affected[g])
		lv->aff[lv->naff++] = g;
	else
		lv->unaff[lv->nunaff++] = g;
}

/*
 * Radius breakpoints of group g at level k: the budgets s = 1..Deff where
 * J_g(s) = floor(M_g(s) / gcd) increases.  Writes them from bps/bpj[nbp] on
 * when bps != NULL (second pass); returns the new nbp.
 */
static int
group_breakpoints(const SearchCtx *c, const Level *lv, int k, int g,
				  int nbp, int *bps, int64_t *bpj)
{
	const int64_t *a = c->p->x + (int64_t) lv->members[lv->gstart[g]] * c->d;
	int64_t		l1 = 0,
				gg = lv->ggcd[g],
				prevJ = 0;
	double		qd = 0.0;		/* ||a||_2^2 of the unassigned part */

	if (gg == 0)
		return nbp;
	for (int t = k; t < c->d; t++)
	{
		l1 += i64abs(a[c->order[t]]);
		qd += (double) a[c->order[t]] * (double) a[c->order[t]];
	}
	for (int s = 1; s <= c->Deff; s++)
	{
		/*
		 * |R| <= min(B ||a||_1, sqrt(s) ||a||_2) by Cauchy-Schwarz; R is an
		 * integer, so the second is isqrt(s ||a||^2), exact in int64 when
		 * that fits, else a float bound rounded up (still valid, at most
		 * slightly looser).
		 */
		int64_t		M = (int64_t) c->B * l1;
		int64_t		M2;
		int64_t		J;

		if (qd < 9e15 && qd * s < 4e18)
			M2 = isqrt64((int64_t) qd * s); /* qd exact below 2^53 */
		else if (sqrt(qd * s) < 4e18)
			M2 = (int64_t) (sqrt(qd * s) * (1.0 + 1e-9)) + 1;
		else
			M2 = M;
		if (M2 < M)
			M = M2;
		J = M / gg;
		if (J > prevJ)
		{
			if (bps != NULL)
			{
				bps[nbp] = s;
				bpj[nbp] = J;
			}
			nbp++;
			prevJ = J;
		}
	}
	return nbp;
}

/* All groups' radius breakpoints of level k (count, allocate, fill) */
static int
level_breakpoints(SearchCtx *c, Level *lv, int k)
{
	int			nbp = 0;

	for (int g = 0; g < lv->ngroups; g++)
		nbp = group_breakpoints(c, lv, k, g, nbp, NULL, NULL);
	if ((lv->bps = calloc((size_t) nbp + 1, sizeof(int))) == NULL ||
		(lv->bpj = calloc((size_t) nbp + 1, sizeof(int64_t))) == NULL)
		return -1;
	nbp = 0;
	for (int g = 0; g < lv->ngroups; g++)
	{
		lv->bpstart[g] = nbp;
		nbp = group_breakpoints(c, lv, k, g, nbp, lv->bps, lv->bpj);
	}
	lv->bpstart[lv->ngroups] = nbp;
	return 0;
}

/*
 * The static grouping of every level k = d .. 0 (rows grouped by their
 * sub-vector on the unassigned columns order[k..d-1]), refined column by
 * column.  0, or -1 on out of memory or a stop (c->stopped set).
 */
/*
 * The knapsack's slot sequence of a level: slots that no affected single
 * group maps to first (nc1u of them; their loss tables do not depend on the
 * child value, so search_dfs() runs their part of the knapsack once per node),
 * then the others.
 */
static int
level_c1_sequence(Level *lv)
{
	unsigned char *aff = calloc((size_t) lv->nc1 + 1, 1);
	int			n = 0;

	if (aff == NULL)
		return -1;
	for (int i = 0; i < lv->nsaff; i++)
		aff[lv->c1slot[lv->gcol[lv->saff[i]]]] = 1;
	for (int t = 0; t < lv->nc1; t++)
		if (!aff[t])
			lv->c1seq[n++] = t;
	lv->nc1u = n;
	for (int t = 0; t < lv->nc1; t++)
		if (aff[t])
			lv->c1seq[n++] = t;
	free(aff);
	return 0;
}

static int
build_levels(SearchCtx *c)
{
	int			n = c->n;
	int		   *gid = NULL;		/* group id of each row at level k + 1 */
	int		   *ngid = NULL;
	SortKey    *keys = NULL;
	int			rc = -1;

	gid = calloc((size_t) (n > 0 ? n : 1), sizeof(int));
	ngid = calloc((size_t) (n > 0 ? n : 1), sizeof(int));
	keys = calloc((size_t) (n > 0 ? n : 1), sizeof(SortKey));
	if (gid == NULL || ngid == NULL || keys == NULL)
		goto done;

	for (int k = c->d; k >= 0; k--)
	{
		Level	   *lv = &c->lev[k];
		int			ng = level_group_rows(c, k, gid, ngid, keys);

		if (level_alloc(lv, ng, n, c->d, c->Deff) != 0)
			goto done;
		ng = 0;
		for (int i = 0; i < n; i++)
		{
			if (i == 0 || keys[i].k1 != keys[i - 1].k1 || keys[i].k2 != keys[i - 1].k2)
				lv->gstart[ng++] = i;
			lv->members[i] = keys[i].row;
		}
		lv->gstart[ng] = n;
		for (int g = 0; g < ng; g++)
			level_group_stats(c, lv, k, g);
		if (level_c1_sequence(lv) != 0)
			goto done;
		if (level_breakpoints(c, lv, k) != 0)
			goto done;
		memcpy(gid, ngid, sizeof(int) * (n > 0 ? n : 1));
		if (search_check_stop(c))
			goto done;
	}
	rc = 0;
done:
	free(gid);
	free(ngid);
	free(keys);
	return rc;
}

/*
 * E0 of level k: min over w on the suffix columns order[k..d-1] that carry
 * no single-column group, with squared norm exactly s, of
 * -(1/D) sum eta_j w_j.  The exact minimum of the linear noise term per
 * norm budget (DP over the norm budget); the DFS adds the single-column
 * columns to it at each node.
 */
static void
build_noise_tables(SearchCtx *c)
{
	int			d = c->d,
				Deff = c->Deff,
				B = c->B;
	double	   *T = c->T0,
			   *U = c->T1;

	for (int k = 0; k <= d; k++)
	{
		Level	   *lv = &c->lev[k];

		for (int s = 0; s <= Deff; s++)
			T[s] = (s == 0) ? 0.0 : INFINITY;
		for (int t = k; t < d; t++)
		{
			int			j = c->order[t];
			if (lv->c1slot[j] >= 0)
				continue;
			for (int s = 0; s <= Deff; s++)
			{
				double		best = INFINITY;

				for (int v = -B; v <= B; v++)
				{
					int			s0 = s - v * v;

					if (s0 < 0 || T[s0] == INFINITY)
						continue;
					if (T[s0] + coord_cost(c, j, v) < best)
						best = T[s0] + coord_cost(c, j, v);
				}
				U[s] = best;
			}
			memcpy(T, U, sizeof(double) * (Deff + 1));
		}
		memcpy(lv->E0, T, sizeof(double) * (Deff + 1));
	}
}

/* Refuse malformed problems and data whose scores could overflow int64 */
bool
search_problem_invalid(const OPDiscProblem *p, OPDiscResult *result)
{
	int			d = p->d;

	if (d < 0 || p->nrows < 0 || p->B < 0 || p->D2 < 0)
	{
		snprintf(result->message, sizeof(result->message),
				 "invalid problem: d = %d, nrows = %d, B = %d, D2 = %d",
				 d, p->nrows, p->B, p->D2);
		return true;
	}
	if (p->value_cost == NULL && p->eta == NULL)
	{
		snprintf(result->message, sizeof(result->message),
				 "invalid problem: neither eta nor value_cost given");
		return true;
	}
	for (int u = 0; u < p->nrows; u++)
	{
		double		l1 = 0.0;

		for (int j = 0; j < d; j++)
			l1 += fabs((double) p->x[(int64_t) u * d + j]);
		if (l1 * (p->B > 0 ? p->B : 1) > 1e18)
		{
			snprintf(result->message, sizeof(result->message),
					 "feature values too large for exact int64 search (row %d)", u);
			return true;
		}
	}
	return false;
}

/*
 * One thread's scratch arrays, sized from d, n, B and the budget (abase
 * separately: alloc_abase sizes it from the levels).
 */
static int
ctx_alloc_thread(SearchCtx *c)
{
	int			d = c->d,
				n = c->n;

	CTX_ALLOC(c->S, n);
	CTX_ALLOC(c->wcur, d);
	CTX_ALLOC(c->HUd, (size_t) (d + 1) * d * (2 * c->B + 2));
	CTX_ALLOC(c->HVd, (size_t) d * (2 * c->B + 2));
	CTX_ALLOC(c->aoff, n + 1);
	CTX_ALLOC(c->aJr, n + 1);
	CTX_ALLOC(c->rbase, n + 1);
	CTX_ALLOC(c->HV, (size_t) d * (2 * c->B + 1));
	CTX_ALLOC(c->T0, c->Deff + 1);
	CTX_ALLOC(c->T1, c->Deff + 1);
	CTX_ALLOC(c->TS, c->Deff + 1);
	CTX_ALLOC(c->hs, 2 * c->B + 1);
	CTX_ALLOC(c->hdiff, 2 * c->B + 2);
	CTX_ALLOC(c->LU, (size_t) (d + 1) * (c->Deff + 2));
	CTX_ALLOC(c->LV, c->Deff + 2);
	CTX_ALLOC(c->cbound, (size_t) d * (2 * c->B + 1));
	CTX_ALLOC(c->cval_order, (size_t) d * (2 * c->B + 1));
	c->difflen = 4 * n + 64;
	CTX_ALLOC(c->diff, c->difflen);
	CTX_ALLOC(c->pairs, 2 * (size_t) n);
	CTX_ALLOC(c->bestv, c->Deff + 2);
	CTX_ALLOC(c->winc, d);
	CTX_ALLOC(c->dnch, d);
	CTX_ALLOC(c->dcur, d);
	CTX_ALLOC(c->dr, d);
	CTX_ALLOC(c->dprefix, d);
	CTX_ALLOC(c->wtask, d);
	return 0;
oom:
	return -1;
}

/* The scratch arrays, the local search's tables and the read-only tables' first arrays */
static int
ctx_alloc_scratch(SearchCtx *c)
{
	c->owns_shared = true;
	CTX_ALLOC(c->order, c->d);
	CTX_ALLOC(c->lev, c->d + 1);
	CTX_ALLOC(c->cstart, c->d + 1);
	/* the local search runs in the caller's thread only (opdisc_searchls.c) */
	CTX_ALLOC(c->lsdot, c->n);
	CTX_ALLOC(c->lsdl1, 2 * (size_t) c->d);
	CTX_ALLOC(c->lscorr, 4 * (size_t) c->d * c->d);
	CTX_ALLOC(c->lsnz, c->d);
	return ctx_alloc_thread(c);
oom:
	return -1;
}

/* Coordinate costs and the normalisation term by budget (see coord_cost()) */
static int
ctx_cost_tables(SearchCtx *c)
{
	const OPDiscProblem *p = c->p;
	int			W = 2 * c->B + 1;

	CTX_ALLOC(c->vcost, (size_t) c->d * W);
	for (int j = 0; j < c->d; j++)
		for (int v = -c->B; v <= c->B; v++)
			c->vcost[(size_t) j * W + (v + c->B)] =
				(p->value_cost != NULL) ?
				p->value_cost[(size_t) j * W + (v + c->B)] :
				-p->eta[j] * v / c->Dnorm;
	if (p->D2 <= (1 << 22))
	{
		double	   *nt;

		CTX_ALLOC(nt, (size_t) p->D2 + 1);
		for (int x = 0; x <= p->D2; x++)
			nt[x] = norm_term(c, x);	/* c->ntab still NULL here */
		c->ntab = nt;
	}
	return 0;
oom:
	return -1;
}

/*
 * Scale of the objective's values (sum of counts + largest cost and norm
 * terms); the pruning margin is 1e-9 times it (file header, "Ties").
 */
static double
ctx_value_scale(const SearchCtx *c)
{
	const OPDiscProblem *p = c->p;
	double		scale = 1.0;
	double		mx = 0.0;

	for (int u = 0; u < c->n; u++)
		scale += (double) p->pos[u] + (double) p->neg[u];
	for (int j = 0; j < c->d; j++)
	{
		double		mj = 0.0;

		for (int v = -c->B; v <= c->B; v++)
			mj = fmax(mj, fabs(coord_cost(c, j, v)));
		scale += mj;
	}
	if (c->ntab != NULL || p->value_cost != NULL)
	{
		for (int64_t x = 0; x <= p->D2; x++)
			mx = fmax(mx, fabs(norm_term(c, x)));
	}
	else
		mx = fabs(p->eta[c->d]) * sqrt((double) p->D2) / c->Dnorm;
	return scale + mx;
}

/* Column nonzero lists (cstart / crow / cval) of the row matrix */
static int
build_columns(SearchCtx *c)
{
	const OPDiscProblem *p = c->p;
	int			d = c->d;
	int			nnz = 0;
	int		   *fill = c->wcur; /* reused as a cursor, reset below */

	for (int u = 0; u < c->n; u++)
		for (int j = 0; j < d; j++)
			if (p->x[(int64_t) u * d + j] != 0)
			{
				c->cstart[j + 1]++;
				nnz++;
			}
	for (int j = 0; j < d; j++)
		c->cstart[j + 1] += c->cstart[j];
	CTX_ALLOC(c->crow, nnz);
	CTX_ALLOC(c->cval, nnz);
	for (int j = 0; j < d; j++)
		fill[j] = c->cstart[j];
	for (int u = 0; u < c->n; u++)
		for (int j = 0; j < d; j++)
		{
			int64_t		a = p->x[(int64_t) u * d + j];

			if (a != 0)
			{
				c->crow[fill[j]] = u;
				c->cval[fill[j]] = a;
				fill[j]++;
			}
		}
	memset(fill, 0, sizeof(int) * d);
	return 0;
oom:
	return -1;
}

/* The static column order (choose_order; benchmark overrides when tuning) */
static int
ctx_order(SearchCtx *c)
{
	if (choose_order(c) != 0)
		return -1;
#ifdef OPDISC_SEARCH_TUNING
	if (opdisc_search_order_mode == 1 && c->p->value_cost == NULL)
	{
		/* by decreasing |eta_j| (the order of ORACLE-NOTES.md) */
		for (int i = 1; i < c->d; i++)
		{
			int			t = c->order[i],
						h = i - 1;

			while (h >= 0 && fabs(c->p->eta[c->order[h]]) < fabs(c->p->eta[t]))
			{
				c->order[h + 1] = c->order[h];
				h--;
			}
			c->order[h + 1] = t;
		}
	}
	else if (opdisc_search_order_mode == 2 && greedy_order(c) != 0)
		return -1;
	if (opdisc_search_forced_order != NULL)
		memcpy(c->order, opdisc_search_forced_order, sizeof(int) * c->d);
#endif
	return 0;
}

/* Room for the base lattice arrays of one level's affected groups (dfs) */
static int
alloc_abase(SearchCtx *c)
{
	int64_t		need = 1;

	for (int k = 0; k <= c->d; k++)
	{
		const Level *lv = &c->lev[k];
		int64_t		tot = 0;

		for (int i = 0; i < lv->naff; i++)
		{
			int			g = lv->aff[i];
			int64_t		m = lv->gstart[g + 1] - lv->gstart[g];
			int64_t		J = lv->bpstart[g + 1] > lv->bpstart[g] ?
				lv->bpj[lv->bpstart[g + 1] - 1] : 0;
			int64_t		len = 2 * J + 2;

			if (m > 1)
				tot += len < 4 * m + 64 ? len : 4 * m + 64;
		}
		if (tot > need)
			need = tot;
	}
	CTX_ALLOC(c->abase, need);
	c->abase_len = need;
	return 0;
oom:
	return -1;
}

/* Everything before the search proper; 0, or -1 on out of memory / a stop */
int
search_ctx_setup(SearchCtx *c, OPDiscResult *result)
{
	int64_t		full = (int64_t) c->d * c->B * c->B;
	double		scale;

	c->Deff = (int) (full < c->D2 ? full : c->D2);
	c->Dnorm = sqrt((double) c->D2);
	if (c->Dnorm == 0.0)
		c->Dnorm = 1.0;			/* D2 = 0: grid is {0}, noise terms vanish */
	if (ctx_alloc_scratch(c) != 0 || ctx_cost_tables(c) != 0)
		return -1;
	scale = ctx_value_scale(c);
	if (!isfinite(scale))
	{
		snprintf(result->message, sizeof(result->message),
				 "non-finite noise or cost values");
		return 1;
	}
	c->margin = 1e-9 * scale;
	if (build_columns(c) != 0 || ctx_order(c) != 0 || build_levels(c) != 0)
		return -1;
	build_noise_tables(c);
	return alloc_abase(c);
}

/*
 * The worst case of the tables above on n rows, every row distinct at every
 * level.  Level k (d + 1 of them) holds members, mq and mdelta per row
 * (20 bytes), 57 bytes per group (ng <= n) and 12 per radius breakpoint:
 * J(s) stops growing once s >= B^2 m (m <= d - k unassigned columns, as
 * sqrt(s ||a||^2) >= B ||a||_1 there), so a group has at most
 * min(Deff, B^2 (d - k)) of them.  The column lists take 12 bytes per
 * nonzero (<= d a row), the local search 8 a row; each thread's scratch
 * 32 (S, aoff, aJr, rbase) + 32 (diff) + 16 (pairs) + 288 (abase: at most
 * 4m + 64 per affected group of m >= 2 rows, <= 36 n words) a row.
 * build_levels' 32 bytes a row of sort keys are freed before the clones
 * exist and are below one thread's scratch.  fixed: the tables of d, B and
 * Deff, and 16 kB for the small ones (contexts, the pool's tasks).
 */
void
opdisc_search_memory(int d, int B, int D2, int threads, double *per_row, double *fixed)
{
	double		full = (double) d * B * B;
	double		Deff = full < D2 ? full : D2;
	double		W = 2.0 * B + 2;
	double		row = 12.0 * d + 8;
	int			T = threads < 1 ? 1 : (threads < SEARCH_MAX_THREADS ? threads : SEARCH_MAX_THREADS);

	for (int k = 0; k <= d; k++)
	{
		double		bp = (double) B * B * (d - k);

		row += 77.0 + 12.0 * (bp < Deff ? bp : Deff);
	}
	row += T * (32.0 + 32.0 + 16.0 + 288.0);
	*per_row = row;
	*fixed = 16384.0 + (d + 1.0) * (12.0 * (d + 1) + 8.0 * (Deff + 1) + sizeof(Level))
		+ 8.0 * d * W + 32.0 * d * d + 8.0 * (D2 + 1)
		+ T * (8.0 * ((d + 1.0) * d * W + 4.0 * d * W + (d + 1.0) * (Deff + 2) + 5 * (Deff + 2) + 2 * W + 128) + 24.0 * d);
}

/* A search thread's context: c's read-only tables, its own scratch. */
int
search_ctx_clone(SearchCtx *t, const SearchCtx *c)
{
	*t = *c;
	t->owns_shared = false;
	t->is_main = false;
	t->nodes = 0;
	t->stopped = 0;
#define CTX_CLEAR_ARRAY(f) t->f = NULL;
	SEARCH_THREAD_ARRAYS(CTX_CLEAR_ARRAY)
#undef CTX_CLEAR_ARRAY
	if (ctx_alloc_thread(t) != 0)
		return -1;
	CTX_ALLOC(t->abase, c->abase_len);
	memcpy(t->winc, c->winc, sizeof(int) * c->d);
	return 0;
oom:
	return -1;
}
