/*-------------------------------------------------------------------------
 *
 * level_stats.c
 *	  How much of the exact search's weak part could two-column blocks make
 *	  exact?  (docs/ORACLE.md, "What the search does").
 *
 *	  ./level_stats -s d40 [-p bal] [-f adult.data]   (sample seed 1, as oracle_bench)
 *
 *	  For every depth k of the search's static column order (the search's
 *	  own setup, opdisc_searchint.h), the rows (weighted by count) fall into
 *	  decided, single (one unassigned nonzero: exact knapsack) and multi
 *	  (two or more: the free-remainder bound) groups.  A bound that treats a
 *	  set of columns jointly (a "block": the groups whose unassigned columns
 *	  are exactly that set, optimised together with the noise of those
 *	  columns) must use disjoint blocks to stay additive over the norm
 *	  budget.  For blocks of two columns that is a matching in the graph of
 *	  column pairs, weighted by the row mass of the groups with exactly that
 *	  pair; printed: the multi mass, the mass in two-column groups, a greedy
 *	  matching's mass, and an upper bound on any matching's mass
 *	  (sum over columns of the heaviest pair at that column, halved).
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_data.h"
#include "core/opdisc_searchint.h"

typedef struct Pair
{
	int			a,
				b;
	double		mass;
} Pair;

static int
pair_cmp(const void *x, const void *y)
{
	const Pair *p = x,
			   *q = y;

	if (p->mass != q->mass)
		return p->mass > q->mass ? -1 : 1;
	if (p->a != q->a)
		return p->a - q->a;
	return p->b - q->b;
}

/* add mass to the pair (a, b) of the list (linear search: few pairs) */
static void
pair_add(Pair *pl, int *np, int a, int b, double mass)
{
	for (int i = 0; i < *np; i++)
		if (pl[i].a == a && pl[i].b == b)
		{
			pl[i].mass += mass;
			return;
		}
	pl[*np].a = a;
	pl[*np].b = b;
	pl[*np].mass = mass;
	(*np)++;
}

/* greedy matching mass and the matching upper bound of a pair list */
static void
matching(Pair *pl, int np, int d, double *greedy, double *upper)
{
	char		used[BENCH_MAXD] = {0};
	double		best[BENCH_MAXD] = {0};

	qsort(pl, (size_t) np, sizeof(Pair), pair_cmp);
	*greedy = 0.0;
	*upper = 0.0;
	for (int i = 0; i < np; i++)
	{
		if (!used[pl[i].a] && !used[pl[i].b])
		{
			used[pl[i].a] = used[pl[i].b] = 1;
			*greedy += pl[i].mass;
		}
		if (pl[i].mass > best[pl[i].a])
			best[pl[i].a] = pl[i].mass;
		if (pl[i].mass > best[pl[i].b])
			best[pl[i].b] = pl[i].mass;
	}
	for (int j = 0; j < d; j++)
		*upper += best[j] / 2.0;
}

/* one depth's line */
static void
level_line(const SearchCtx *c, const BenchData *bd, int k, Pair *pl)
{
	const Level *lv = &c->lev[k];
	int			d = c->d,
				np = 0;
	double		single = 0.0,
				multi = 0.0,
				two = 0.0,
				greedy,
				upper;

	for (int g = 0; g < lv->ngroups; g++)
	{
		const int64_t *a = bd->x + (int64_t) lv->members[lv->gstart[g]] * d;
		int			cols[2],
					nnz = 0;
		double		mass = 0.0;

		for (int i = lv->gstart[g]; i < lv->gstart[g + 1]; i++)
			mass += (double) (bd->pos[lv->members[i]] + bd->neg[lv->members[i]]);
		for (int t = k; t < d; t++)
			if (a[c->order[t]] != 0)
			{
				if (nnz < 2)
					cols[nnz] = c->order[t];
				nnz++;
			}
		if (nnz == 1)
			single += mass;
		else if (nnz >= 2)
			multi += mass;
		if (nnz == 2)
		{
			two += mass;
			pair_add(pl, &np, cols[0], cols[1], mass);
		}
	}
	matching(pl, np, d, &greedy, &upper);
	printf("%5d %8.0f %8.0f %8.0f %6d %8.0f %8.0f %6.1f\n", k, single, multi, two, np,
		   greedy, upper, multi > 0 ? 100.0 * upper / multi : 0.0);
}

int
main(int argc, char **argv)
{
	const char *set = "d40",
			   *subset = "bal",
			   *path = "../../data/adult/adult.data";	/* as oracle_bench */
	BenchData	bd;
	OPDiscProblem p;
	OPDiscResult res;
	SearchCtx	c;
	double		eta[BENCH_MAXD + 1] = {0};
	Pair	   *pl;

	for (int i = 1; i + 1 < argc; i += 2)
	{
		if (strcmp(argv[i], "-s") == 0)
			set = argv[i + 1];
		else if (strcmp(argv[i], "-p") == 0)
			subset = argv[i + 1];
		else if (strcmp(argv[i], "-f") == 0)
			path = argv[i + 1];
	}
	if (bench_load(path, set, subset, 1, &bd) != 0)
		return 2;
	memset(&p, 0, sizeof(p));
	p.d = bd.d;
	p.nrows = bd.nrows;
	p.x = bd.x;
	p.pos = bd.pos;
	p.neg = bd.neg;
	p.B = (int) floor(sqrt((double) bd.d) + 1e-9);
	p.D2 = bd.d;
	p.eta = eta;
	memset(&res, 0, sizeof(res));
	memset(&c, 0, sizeof(c));
	c.p = &p;
	c.d = p.d;
	c.n = p.nrows;
	c.B = p.B;
	c.D2 = p.D2;
	if (search_ctx_setup(&c, &res) != 0)
		return 2;
	pl = calloc((size_t) bd.nrows + 1, sizeof(Pair));
	printf("# %s: d=%d distinct=%d rows=%d (masses are row counts)\n", set, bd.d, bd.nrows, bd.n);
	printf("%5s %8s %8s %8s %6s %8s %8s %6s\n", "depth", "single", "multi", "two-col",
		   "pairs", "greedy", "upper", "up/mu%");
	for (int k = 0; k <= bd.d; k++)
		level_line(&c, &bd, k, pl);
	free(pl);
	search_ctx_free(&c);
	bench_free(&bd);
	return 0;
}
