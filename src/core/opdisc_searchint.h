/*-------------------------------------------------------------------------
 *
 * opdisc_searchint.h
 *	  Internals of the exact search oracle shared by its files (plain C, no
 *	  PostgreSQL, like every oracle file: opdisc.h):
 *
 *	  opdisc_search.c       the bounds and the depth-first search (the
 *	                        algorithm and its exactness argument)
 *	  opdisc_searchls.c     first incumbents: local search on the exact objective
 *	  opdisc_searchsetup.c  static column order, row groupings per level,
 *	                        tables and scratch; a thread's clone
 *	  opdisc_searchrun.c    opdisc_solve_search(): one thread or several
 *	  opdisc_pool.c         the threads' shared subtrees, incumbent, stop flag
 *
 *	  Calls go run -> setup / ls / search -> pool, ls -> search,
 *	  setup -> search (stop checks); never back.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_OPDISC_SEARCHINT_H
#define DPOBJ_OPDISC_SEARCHINT_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "core/opdisc.h"
#include "core/opdisc_pool.h"

/* mq[] marker: the shift is not a multiple of the lattice step */
#define MQ_NONE INT64_MIN

/* Poll should_stop() at least this often (seconds). */
#define SEARCH_POLL_INTERVAL 0.02

/* At most this many search threads (OPDiscProblem.threads). */
#define SEARCH_MAX_THREADS 64

/* calloc into ptr or goto oom (every setup function frees on its caller's path) */
#define CTX_ALLOC(ptr, cnt) \
	do { \
		(ptr) = calloc((size_t) (cnt) > 0 ? (size_t) (cnt) : 1, sizeof(*(ptr))); \
		if ((ptr) == NULL) goto oom; \
	} while (0)

/*
 * One level of the row grouping: rows grouped by their sub-vector on the
 * unassigned columns order[k..d-1] (level k).  Group data is static.
 */
typedef struct Level
{
	int			ngroups;
	int		   *gstart;			/* ngroups + 1 offsets into members */
	int		   *members;		/* row ids, group by group */
	int64_t    *ggcd;			/* gcd of the unassigned entries (0: none) */
	int64_t    *gpos;			/* sum of p_u over the group */
	unsigned char *affected;	/* some member has a_{u,order[k-1]} != 0 */
	int		   *gsplit;			/* members from here on have that != 0 */
	int64_t    *mdelta;			/* per member position: q_u - p_u */
	int64_t    *mq;				/* per member position: a_{u,order[k-1]} divided
								 * by the group's lattice step, or MQ_NONE */
	/* radius breakpoints: J_g(s) = floor(M_g(s) / gcd) steps up at s */
	int		   *bpstart;		/* ngroups + 1 offsets */
	int		   *bps;			/* budget s where J increases */
	int64_t    *bpj;			/* new J value from that s on */
	int		   *unaff;			/* list of unaffected group ids */
	int			nunaff;
	int		   *aff;			/* list of affected group ids */
	int			naff;
	/* groups with exactly one unassigned nonzero column ("single") */
	int		   *gcol;			/* that column, or -1 */
	int64_t    *gcoef;			/* its (common) coefficient */
	int		   *sunaff;			/* single groups, unaffected */
	int			nsunaff;
	int		   *saff;			/* single groups, affected */
	int			nsaff;
	int			nc1;			/* columns carrying single groups */
	int		   *c1col;			/* their column ids */
	int		   *c1slot;			/* column id -> slot, or -1 */
	int		   *c1seq;			/* slots, those without affected single groups
								 * first (their knapsack is shared by the
								 * children of a node) */
	int			nc1u;			/* number of such unaffected slots */
	double	   *E0;				/* Deff + 1: suffix noise DP without C1 */
} Level;

typedef struct SearchCtx
{
	const OPDiscProblem *p;
	int			d;
	int			n;
	int			B;
	int			D2;
	int			Deff;			/* min(D2, d B^2): largest useful budget */
	double		Dnorm;			/* D = sqrt(D2) */
	double		margin;			/* pruning safety margin */

	int		   *order;			/* column order */
	Level	   *lev;			/* d + 1 levels */

	/* column nonzeros (by original column id) */
	int		   *cstart;
	int		   *crow;
	int64_t    *cval;

	int64_t    *S;				/* partial dot products */
	int		   *wcur;			/* current partial assignment (by column) */

	double	   *vcost;			/* d x (2B + 1): cost of w_j = v (see below) */
	double	   *ntab;			/* normalisation term by remaining budget
								 * x = D2 - ||w||^2, x = 0..D2, or NULL */

	/* per-depth scratch */
	double	   *LU;				/* (d + 1) x (Deff + 2): loss diff arrays */
	double	   *LV;				/* Deff + 2 */
	int64_t    *HUd;			/* (d + 1) x d x (2B + 2): single-group diffs */
	int64_t    *HVd;			/* d x (2B + 2) */
	double	   *HV;				/* d x (2B + 1) */
	int64_t    *abase;			/* base lattice diffs of affected groups */
	int64_t    *aoff;			/* per affected group: offset or -1 */
	int64_t    *aJr;			/* per affected group: radius at the node */
	int64_t    *rbase;			/* per member position: unshifted index */
	double	   *T0;				/* Deff + 1 DP scratch */
	double	   *T1;				/* Deff + 1 DP scratch */
	double	   *TS;				/* Deff + 1: the node's shared knapsack */
	double	   *hs;				/* 2B + 1: one unaffected slot's loss table */
	int64_t    *hdiff;			/* 2B + 2 */
	double	   *cbound;			/* d x (2B + 1) child bounds */
	int		   *cval_order;		/* d x (2B + 1) child values, sorted */

	/* group evaluation scratch */
	int64_t    *diff;			/* lattice diff array, length difflen */
	int			difflen;
	int64_t    *pairs;			/* 2 x nrows (idx, delta) for the sort path */
	int64_t    *bestv;			/* best per breakpoint */

	/* incumbent */
	int		   *winc;
	double		inc;			/* incumbent value (search arithmetic) */
	double		inc_exact;		/* opdisc_objective(winc) or NAN if unknown */
	bool		have_inc;

	/* local search scratch */
	int64_t    *lsdot;
	int64_t    *lsdl1;			/* 2 d: single +-1 loss changes */
	int64_t    *lscorr;			/* 4 d^2: pair corrections (j < k) */
	int		   *lsnz;			/* d: a row's nonzero columns */
	int64_t		abase_len;		/* length of abase */

	/* open nodes of the current path, by depth (work sharing) */
	int		   *dnch;			/* children still to visit: [0, dnch) */
	int		   *dcur;			/* child being visited */
	int		   *dr;				/* remaining budget at the node */
	double	   *dprefix;		/* prefix cost at the node */
	int		   *wtask;			/* a subtree's assignment being handed over */

	/* threads: NULL pool = single-threaded search */
	SearchPool *pool;
	bool		is_main;		/* the caller's thread: polls should_stop() */
	bool		owns_shared;	/* frees the read-only tables (not a clone) */
	int			kroot;			/* depth of the subtree being searched */

	/* control */
	long		nodes;
	struct timespec t0;
	double		last_poll;
	int			stopped;		/* 0, OPDISC_TIME_LIMIT, OPDISC_INTERRUPTED */
} SearchCtx;

/*
 * A thread's own arrays in SearchCtx, listed once: ctx_free_thread() frees
 * exactly these and search_ctx_clone() clears exactly these before
 * allocating a clone's own (so a clone that fails half-way never frees its
 * parent's).  ctx_alloc_thread() / ctx_alloc_scratch() / alloc_abase() give
 * their sizes; a field added there must be added here.
 */
#define SEARCH_THREAD_ARRAYS(X) \
	X(S) X(wcur) X(HUd) X(HVd) X(abase) X(aoff) X(aJr) X(rbase) X(HV) \
	X(T0) X(T1) X(TS) X(hs) X(hdiff) X(LU) X(LV) X(cbound) X(cval_order) \
	X(diff) X(pairs) X(bestv) X(winc) X(lsdot) X(lsdl1) X(lscorr) X(lsnz) \
	X(dnch) X(dcur) X(dr) X(dprefix) X(wtask)

static inline double
now_seconds(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double) (t.tv_sec - t0->tv_sec) + 1e-9 * (double) (t.tv_nsec - t0->tv_nsec);
}

static inline int64_t
i64abs(int64_t a)
{
	return a < 0 ? -a : a;
}

static inline int64_t
gcd64(int64_t a, int64_t b)
{
	a = i64abs(a);
	b = i64abs(b);
	while (b != 0)
	{
		int64_t		t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* ceil(a / b) for b > 0 */
static inline int64_t
ceil_div(int64_t a, int64_t b)
{
	if (a >= 0)
		return (a + b - 1) / b;
	return -((-a) / b);
}

/* floor(sqrt(x)) for 0 <= x < 2^62, exact */
static inline int64_t
isqrt64(int64_t x)
{
	int64_t		r;

	if (x <= 0)
		return 0;
	r = (int64_t) sqrt((double) x);
	while (r > 0 && r > x / r)
		r--;
	while ((r + 1) <= x / (r + 1))
		r++;
	return r;
}

/*
 * The objective is L(D, w) + sum_j cost_j(w_j) + N(D2 - ||w||^2), separable
 * apart from the loss.  OPDisc (Algorithm 1): cost_j(v) = -eta_j v / D and
 * N(x) = -(eta_{d+1}/D) sqrt(x).  With p->value_cost set (separable costs of
 * other mechanisms, e.g. RSPM, docs/ALGORITHMS.md, "RSPM"): cost_j(v) =
 * value_cost[j (2B+1) + v + B] and N(x) = norm_cost[D2 - x] (0 if NULL),
 * exactly as opdisc_objective() defines it.
 */
static inline const double *
coord_costs(const SearchCtx *c, int j)
{
	/* column j's costs of the values -B..B, indexed by the value */
	return c->vcost + (size_t) j * (2 * c->B + 1) + c->B;
}

static inline double
coord_cost(const SearchCtx *c, int j, int v)
{
	return coord_costs(c, j)[v];
}

/* dot[u] += a_{u,col} * v for the rows u with a nonzero in column col */
static inline void
search_add_column(const SearchCtx *c, int64_t *dot, int col, int v)
{
	for (int t = c->cstart[col]; t < c->cstart[col + 1]; t++)
		dot[c->crow[t]] += c->cval[t] * v;
}

static inline double
norm_term(const SearchCtx *c, int64_t x)
{
	const OPDiscProblem *p = c->p;

	if (c->ntab != NULL)
		return c->ntab[x];
	if (p->value_cost != NULL)
		return p->norm_cost != NULL ? p->norm_cost[p->D2 - x] : 0.0;
	return -p->eta[c->d] * sqrt((double) x) / c->Dnorm;
}

/*
 * Objective of a grid point in the search's own arithmetic: integer loss,
 * sum of coordinate costs, normalisation term.
 */
static inline double
ctx_value(const SearchCtx *c, int64_t loss, double costsum, int64_t norm2)
{
	return (double) loss + costsum + norm_term(c, c->p->D2 - norm2);
}

/* opdisc_search.c */
extern bool search_check_stop(SearchCtx *c);
extern void search_offer(SearchCtx *c, const int *w, double val);
extern void search_sync_incumbent(SearchCtx *c, SearchPool *pl, bool into_pool);
extern void search_dfs(SearchCtx *c, int k, int r, double prefix);

/* opdisc_searchls.c */
extern void search_first_incumbents(SearchCtx *c, int *w0);

/* opdisc_searchsetup.c */
extern bool search_problem_invalid(const OPDiscProblem *p, OPDiscResult *result);
extern int	search_ctx_setup(SearchCtx *c, OPDiscResult *result);
extern int	search_ctx_clone(SearchCtx *t, const SearchCtx *c);
extern void search_ctx_free(SearchCtx *c);

#ifdef OPDISC_SEARCH_TUNING
/* benchmarking hooks (bench/oracle only) */
extern int *opdisc_search_forced_order;
extern int	opdisc_search_order_mode;
extern int	opdisc_search_no_local_search;
#endif

#endif							/* DPOBJ_OPDISC_SEARCHINT_H */
