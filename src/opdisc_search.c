/*-------------------------------------------------------------------------
 *
 * opdisc_search.c
 *	  Exact depth-first branch-and-bound oracle for OPDisc.
 *
 * Source: Neel, Roth, Vietri, Wu, "Differentially Private Objective
 * Perturbation: Beyond Smoothness and Convexity" (ICML 2020), Algorithm 1:
 *
 *	 w_hat = argmin_{w in W_tau} L(D, w) - <eta, pi(w)>,
 *	 pi(w) = (w_1, ..., w_d, sqrt(D^2 - ||w||^2)) / D,
 *
 * over W = { w in Z^d : |w_j| <= B, ||w||^2 <= D2 } (tau = 1), with the
 * exactness requirements of Appendix D.2 as restated in
 * shared/docs/ALGORITHMS.md section 1 (deduplicated rows with counts p_u /
 * q_u, sgn(0) = -1, features on the lattice (1/Q)Z so that "<w, x_u> > 0"
 * is "<w, a_u> >= 1" in exact int64 arithmetic).  Privacy needs the exact
 * argmin (alpha = 0 oracle), so every pruning rule below is a valid lower
 * bound and the answer is identical to plain enumeration of the grid.
 *
 * The same search solves the separable-cost form of opdisc.h (value_cost /
 * norm_cost, e.g. RSPM, ALGORITHMS.md section 2): internally the objective
 * is always L(D, w) + sum_j cost_j(w_j) + N(D2 - ||w||^2); see coord_cost().
 *
 * Search.  Coordinates are fixed one at a time in a static order
 * order[0..d-1].  A node at depth k has w_{order[0..k-1]} assigned; it keeps
 * the partial dot products S_u = sum_{i<k} a_{u,order[i]} w_{order[i]}
 * (int64, exact) and the remaining norm budget r = D2 - sum w_i^2.  For each
 * child value v of the next coordinate we compute a lower bound on the
 * objective of every grid point below the child and visit the children in
 * increasing bound order, pruning when bound > incumbent + margin.
 *
 * Lower bound (docs/ORACLE.md has the measurements behind each part).
 * Rows are grouped by their (identical) sub-vector on the unassigned
 * columns, so all rows of a group receive the same unknown remainder
 * R = <w_suffix, a_u>; the grouping of every level is static (built once).
 *
 *	 LB = (costs of the assigned coordinates, -eta_j w_j / D for OPDisc)
 *		+ min_{s = 0..r} [ Loss_multi(s) + T(s) + N(r - s) ],
 *	 N(x) = -(eta_{d+1}/D) sqrt(x) for OPDisc,
 *
 * where s is the squared norm the unassigned suffix will use, and
 *
 * - single-column groups (exactly one unassigned nonzero column j): their
 *	 loss is an exact function h_j(w_j), additive over groups, so together
 *	 with the separable noise term it goes into an exact knapsack over the
 *	 norm budget: T(s) = min over suffix vectors of squared norm exactly s
 *	 of sum_j [h_j(w_j) - eta_j w_j / D] (columns without single groups
 *	 contribute only noise, a per-level table E0 computed once);
 *
 * - the other groups get a free remainder each:
 *	 Loss_multi(s) = sum_g min_{R in gcd_g Z, |R| <= M_g(s)}
 *					 sum_{u in g} [ R >= 1 - S_u ? q_u : p_u ],
 *	 |R| <= M_g(s) = min(B ||a||_1, isqrt(s ||a||_2^2)) (Cauchy-Schwarz), R a
 *	 multiple of the gcd of the group's unassigned entries.  Only the
 *	 coupling between groups is relaxed.  Rows whose sign is already decided
 *	 are groups whose minimum is attained everywhere.
 *
 * For one-hot encoded categorical features this is "the best lookup table
 * over the still-unassigned categories, with exact per-category tables as
 * soon as a row has one unassigned category left", which is what makes the
 * Adult instances tractable.  All children of a node are bounded together:
 * the parts that do not depend on the child value (groups not containing
 * the branched column, rows with a zero in it, the knapsack over the
 * single-column slots it does not touch) are computed once per node, and
 * the shifted rows' lattice indices move by -v * a / step without
 * division.  A local search on the exact objective supplies the first
 * incumbent.
 *
 * Ties.  The answer is the minimiser of the total order
 * (opdisc_objective(w), then w lexicographically smallest, comparing w[0]
 * first as signed integers), i.e. what plain enumeration of the grid in
 * lexicographic order gives when it keeps the first strict minimum.  The
 * search computes objective values in its own summation order, so it prunes
 * only when a bound exceeds the incumbent by a safety margin far above the
 * floating-point error, and whenever a candidate comes within that margin of
 * the incumbent both are re-evaluated with opdisc_objective() and compared
 * by the total order above.  Why this returns the enumeration answer w*:
 * with err the rounding error of any value computed here (~1e-16 relative)
 * and margin = 1e-9 * (sum of counts + max noise term), a subtree holding
 * w* has bound <= value(w*) + err <= exact(w*) + 2 err <= exact(inc) + 2 err
 * <= inc + 3 err < inc + margin, so it is never pruned; when w* is reached
 * it either beats the incumbent by more than the margin or is compared
 * exactly, and afterwards nothing can displace it the same way.
 *
 * Control: the time limit is checked at every node, should_stop() every
 * SEARCH_POLL_INTERVAL seconds (nodes take microseconds), also during setup
 * and local search; on a stop result->w is the (uncertified) incumbent.
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
#include <time.h>

#include "opdisc.h"

/* mq[] marker: the shift is not a multiple of the lattice step */
#define MQ_NONE INT64_MIN

/* Poll should_stop() at least this often (seconds). */
#define SEARCH_POLL_INTERVAL 0.02

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

	/* control */
	long		nodes;
	struct timespec t0;
	double		last_poll;
	int			stopped;		/* 0, OPDISC_TIME_LIMIT, OPDISC_INTERRUPTED */
} SearchCtx;

static double
now_seconds(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double) (t.tv_sec - t0->tv_sec) + 1e-9 * (double) (t.tv_nsec - t0->tv_nsec);
}

/* Check the time limit always and should_stop() every SEARCH_POLL_INTERVAL. */
static bool
check_stop(SearchCtx *c)
{
	double		t;

	if (c->stopped)
		return true;
	t = now_seconds(&c->t0);
	if (c->p->time_limit > 0 && t >= c->p->time_limit)
	{
		c->stopped = OPDISC_TIME_LIMIT;
		return true;
	}
	if (c->p->should_stop != NULL && t - c->last_poll >= SEARCH_POLL_INTERVAL)
	{
		c->last_poll = t;
		if (c->p->should_stop(c->p->stop_arg))
		{
			c->stopped = OPDISC_INTERRUPTED;
			return true;
		}
	}
	return false;
}

static int64_t
i64abs(int64_t a)
{
	return a < 0 ? -a : a;
}

static int64_t
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
static int64_t
ceil_div(int64_t a, int64_t b)
{
	if (a >= 0)
		return (a + b - 1) / b;
	return -((-a) / b);
}

/* floor(sqrt(x)) for 0 <= x < 2^62, exact */
static int64_t
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
 * other mechanisms, e.g. RSPM, ALGORITHMS.md section 2): cost_j(v) =
 * value_cost[j (2B+1) + v + B] and N(x) = norm_cost[D2 - x] (0 if NULL),
 * exactly as opdisc_objective() defines it.
 */
static inline double
coord_cost(const SearchCtx *c, int j, int v)
{
	return c->vcost[(size_t) j * (2 * c->B + 1) + (v + c->B)];
}

static double
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
static double
ctx_value(const SearchCtx *c, int64_t loss, double costsum, int64_t norm2)
{
	return (double) loss + costsum + norm_term(c, c->p->D2 - norm2);
}

/* lexicographic comparison of two grid points (w[0] first) */
static int
lex_cmp(const int *a, const int *b, int d)
{
	for (int j = 0; j < d; j++)
	{
		if (a[j] != b[j])
			return a[j] < b[j] ? -1 : 1;
	}
	return 0;
}

/*
 * Offer a candidate w (by original column) with value val computed in the
 * search's arithmetic.  Implements the documented total order: exact
 * opdisc_objective(), then lexicographically smallest w.  Returns true if
 * the incumbent changed.
 */
static bool
offer(SearchCtx *c, const int *w, double val)
{
	int			d = c->d;

	if (!c->have_inc || val < c->inc - c->margin)
	{
		memcpy(c->winc, w, sizeof(int) * d);
		c->inc = val;
		c->inc_exact = NAN;
		c->have_inc = true;
		return true;
	}
	if (val <= c->inc + c->margin)
	{
		double		ev = opdisc_objective(c->p, w);

		if (isnan(c->inc_exact))
			c->inc_exact = opdisc_objective(c->p, c->winc);
		if (ev < c->inc_exact ||
			(ev == c->inc_exact && lex_cmp(w, c->winc, d) < 0))
		{
			memcpy(c->winc, w, sizeof(int) * d);
			/* keep the smaller of the two search values for pruning */
			if (val < c->inc)
				c->inc = val;
			c->inc_exact = ev;
			return true;
		}
	}
	return false;
}

/* ---------------------------------------------------------------------
 * Local search on the exact objective (incumbent heuristic)
 * ---------------------------------------------------------------------
 */

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

static void
apply_move(SearchCtx *c, int64_t *dot, int j, int dv)
{
	for (int t = c->cstart[j]; t < c->cstart[j + 1]; t++)
		dot[c->crow[t]] += c->cval[t] * dv;
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
		pt->loss += (s >= 1) ? p->neg[u] : p->pos[u];
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
	*dl = delta_loss_1(c, c->lsdot, j, sj);
	apply_move(c, c->lsdot, j, sj);
	*dl += delta_loss_1(c, c->lsdot, k, sk);
	apply_move(c, c->lsdot, j, -sj);
	return ctx_value(c, pt->loss + *dl,
					 pt->lin - coord_cost(c, j, w[j]) + coord_cost(c, j, vj)
					 - coord_cost(c, k, w[k]) + coord_cost(c, k, vk),
					 n2);
}

/* Best paired +-1 move (improves mv if better); false when stopped */
static bool
ls_best_pair(SearchCtx *c, const int *w, const LSPoint *pt, LSMove *mv)
{
	for (int j = 0; j < c->d; j++)
	{
		if (check_stop(c))
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
	apply_move(c, c->lsdot, j, dj);
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
	offer(c, w, pt.cur);
	while (sweeps++ < 1000)
	{
		LSMove		mv = {-1, -1, 0, 0, pt.cur - c->margin, 0};

		if (check_stop(c))
			return;
		ls_best_single(c, w, &pt, &mv);
		if (!ls_best_pair(c, w, &pt, &mv))
			return;
		if (mv.j < 0)
			break;				/* a local minimum */
		ls_apply(c, w, &pt, &mv);
		offer(c, w, pt.cur);
	}
}

/* ---------------------------------------------------------------------
 * Group lower bound
 * ---------------------------------------------------------------------
 */

/*
 * Lattice index at which row u (score S'_u = sv so far) turns positive:
 * R = i * gg >= 1 - sv, clamped to [-Jr, Jr + 1].  gg = 0 means R = 0.
 */
static inline int64_t
row_index(int64_t sv, int64_t gg, int64_t Jr)
{
	int64_t		iu;

	if (gg == 0)
		return (sv >= 1) ? -Jr : Jr + 1;
	iu = ceil_div(1 - sv, gg);
	if (iu < -Jr)
		iu = -Jr;
	if (iu > Jr + 1)
		iu = Jr + 1;
	return iu;
}

/* Add the steps of members [i0, i1) of a level to the lattice diff df. */
static void
lattice_steps(SearchCtx *c, const Level *lv, int i0, int i1, int col, int v,
			  int64_t gg, int64_t Jr, int64_t *df)
{
	const OPDiscProblem *p = c->p;
	int			d = c->d;

	for (int i = i0; i < i1; i++)
	{
		int			u = lv->members[i];
		int64_t		sv = c->S[u];

		if (col >= 0)
			sv += p->x[(int64_t) u * d + col] * v;
		df[row_index(sv, gg, Jr) + Jr] += p->neg[u] - p->pos[u];
	}
}

/*
 * Division-free shifting.  For the members [i0, i1) of group g whose score
 * moves with the branched column, store once per node the lattice index
 * ceil((1 - S_u) / step); a child value v then moves it by -v * mq (exact
 * when the column entry is a multiple of the step, as mq[] records).
 */
static void
shift_prepare(SearchCtx *c, const Level *lv, int g, int i0, int i1)
{
	int64_t		step = (lv->gcol[g] >= 0) ? i64abs(lv->gcoef[g]) : lv->ggcd[g];

	if (step == 0)
		return;
	for (int i = i0; i < i1; i++)
	{
		if (lv->mq[i] != MQ_NONE)
			c->rbase[i] = ceil_div(1 - c->S[lv->members[i]], step);
	}
}

/* lattice_steps() for shifted members, using shift_prepare()'s indices */
static void
lattice_steps_shift(SearchCtx *c, const Level *lv, int i0, int i1, int col,
					int v, int64_t gg, int64_t Jr, int64_t *df)
{
	const OPDiscProblem *p = c->p;
	int			d = c->d;

	for (int i = i0; i < i1; i++)
	{
		int64_t		iu;

		if (lv->mq[i] != MQ_NONE && gg != 0)
		{
			iu = c->rbase[i] - v * lv->mq[i];
			if (iu < -Jr)
				iu = -Jr;
			if (iu > Jr + 1)
				iu = Jr + 1;
		}
		else
		{
			int			u = lv->members[i];

			iu = row_index(c->S[u] + p->x[(int64_t) u * d + col] * v, gg, Jr);
		}
		df[iu + Jr] += lv->mdelta[i];
	}
}

/*
 * Turn the diff array df over i = -Jr..Jr+1 into F(i) and report
 * min_{|i| <= j} F(i) for radius 0 and the first nb breakpoints of group g
 * into out[] (diff over the budget s).
 */
static void
lattice_report(SearchCtx *c, const Level *lv, int g, int64_t Jr, int nb,
			   int64_t *df, double *out)
{
	int64_t    *bestv = c->bestv;
	int64_t		F = lv->gpos[g],
				best;
	int64_t		Jn = nb > 0 ? lv->bpj[lv->bpstart[g] + nb - 1] : 0;
	int			t = 0;

	for (int64_t i = 0; i < Jr - Jn; i++)
		F += df[i];
	for (int64_t i = Jr - Jn; i <= Jr + Jn; i++)
	{
		F += df[i];
		df[i] = F;
	}
	best = df[Jr];
	bestv[0] = best;
	for (int64_t j = 1; j <= Jn; j++)
	{
		if (df[Jr - j] < best)
			best = df[Jr - j];
		if (df[Jr + j] < best)
			best = df[Jr + j];
		while (t < nb && lv->bpj[lv->bpstart[g] + t] == j)
			bestv[++t] = best;
	}
	out[0] += (double) bestv[0];
	for (t = 0; t < nb; t++)
	{
		if (bestv[t + 1] != bestv[t])
			out[lv->bps[lv->bpstart[g] + t]] += (double) (bestv[t + 1] - bestv[t]);
	}
}

/* number of breakpoints of group g usable with budget rmax; radius there */
static inline int
group_radius(const Level *lv, int g, int rmax, int64_t *Jr)
{
	int			nb = 0;

	*Jr = 0;
	for (int t = lv->bpstart[g]; t < lv->bpstart[g + 1]; t++)
	{
		if (lv->bps[t] > rmax)
			break;
		nb++;
		*Jr = lv->bpj[t];
	}
	return nb;
}

/* Partial score of row u with the child w_col = v applied (col < 0: none) */
static inline int64_t
child_score(const SearchCtx *c, int u, int col, int v)
{
	int64_t		s = c->S[u];

	if (col >= 0)
		s += c->p->x[(int64_t) u * c->d + col] * v;
	return s;
}

/* Remainder R = 0 (no unassigned entries or no budget): the exact loss */
static int64_t
group_exact_loss(const SearchCtx *c, const int *mem, int m, int col, int v)
{
	int64_t		loss = 0;

	for (int i = 0; i < m; i++)
	{
		int			u = mem[i];

		loss += (child_score(c, u, col, v) >= 1) ? c->p->neg[u] : c->p->pos[u];
	}
	return loss;
}

/*
 * A one-row group: its loss at radius J is q_u if every R in [-J, J] makes it
 * positive, p_u if none does, min(p_u, q_u) otherwise; reported as
 * out[0] += loss at radius 0, out[s_t] += the change at each breakpoint.
 */
static void
single_row_bound(SearchCtx *c, const Level *lv, int g, int col, int v, int nb,
				 double *out)
{
	int			u = lv->members[lv->gstart[g]];
	int64_t		pu = c->p->pos[u],
				qu = c->p->neg[u];
	int64_t		mn = pu < qu ? pu : qu;
	int64_t		iu = ceil_div(1 - child_score(c, u, col, v), lv->ggcd[g]);	/* positive for i >= iu */
	int64_t		prev = (iu <= 0) ? qu : pu;

	out[0] += (double) prev;
	for (int t = 0; t < nb; t++)
	{
		int64_t		j = lv->bpj[lv->bpstart[g] + t];
		int64_t		val = (iu <= -j) ? qu : (iu > j ? pu : mn);

		if (val != prev)
		{
			out[lv->bps[lv->bpstart[g] + t]] += (double) (val - prev);
			prev = val;
		}
	}
}

/*
 * Sort path for groups with a huge radius and few rows: the step function F
 * of the group's loss over the lattice index, with breakpoints at the rows'
 * indices (pairs sorted by index), minimised over [-j, j] for each radius
 * breakpoint j, reported like lattice_report.
 */
static void
sorted_group_bound(SearchCtx *c, const Level *lv, int g, int col, int v,
				   int64_t Jr, int nb, double *out)
{
	int			m0 = lv->gstart[g];
	int			m = lv->gstart[g + 1] - m0;
	int64_t    *pr = c->pairs;
	int64_t    *bestv = c->bestv;

	for (int i = 0; i < m; i++)
	{
		int			u = lv->members[m0 + i];
		int64_t		iu = ceil_div(1 - child_score(c, u, col, v), lv->ggcd[g]);

		if (iu < -Jr)
			iu = -Jr;
		if (iu > Jr + 1)
			iu = Jr + 1;
		pr[2 * i] = iu;
		pr[2 * i + 1] = c->p->neg[u] - c->p->pos[u];
	}
	/* insertion sort by index (groups on this path are small) */
	for (int i = 1; i < m; i++)
	{
		int64_t		k0 = pr[2 * i],
					k1 = pr[2 * i + 1];
		int			h = i - 1;

		while (h >= 0 && pr[2 * h] > k0)
		{
			pr[2 * h + 2] = pr[2 * h];
			pr[2 * h + 3] = pr[2 * h + 1];
			h--;
		}
		pr[2 * h + 2] = k0;
		pr[2 * h + 3] = k1;
	}
	for (int t = 0; t <= nb; t++)
	{
		int64_t		j = (t == 0) ? 0 : lv->bpj[lv->bpstart[g] + t - 1];
		int64_t		F = lv->gpos[g];
		int64_t		best;
		int			i = 0;

		/* F(-j) */
		while (i < m && pr[2 * i] <= -j)
		{
			F += pr[2 * i + 1];
			i++;
		}
		best = F;
		while (i < m && pr[2 * i] <= j)
		{
			int64_t		key = pr[2 * i];

			while (i < m && pr[2 * i] == key)
			{
				F += pr[2 * i + 1];
				i++;
			}
			if (F < best)
				best = F;
		}
		bestv[t] = best;
	}
	/* report: out[0] += best(radius 0), out[s_t] += change */
	out[0] += (double) bestv[0];
	for (int t = 0; t < nb; t++)
	{
		if (bestv[t + 1] != bestv[t])
			out[lv->bps[lv->bpstart[g] + t]] += (double) (bestv[t + 1] - bestv[t]);
	}
}

/*
 * Minimum of F(R) = sum_{u in g} [R >= 1 - S'_u ? q_u : p_u] over the lattice
 * R = i * gcd, |i| <= j, for every breakpoint radius j of the group with
 * budget s <= rmax; adds the result to the diff array out[] indexed by s
 * (out[0] gets the value at radius 0, out[s] the change when the radius
 * grows at budget s).  S'_u = S_u + v * a_{u,col} (col < 0: no shift).
 */
static void
group_bound(SearchCtx *c, const Level *lv, int g, int col, int v,
			int rmax, double *out)
{
	int			m0 = lv->gstart[g];
	int			m = lv->gstart[g + 1] - m0;
	int64_t		Jr;
	int			nb = group_radius(lv, g, rmax, &Jr);

	if (lv->ggcd[g] == 0 || Jr == 0)
		out[0] += (double) group_exact_loss(c, lv->members + m0, m, col, v);
	else if (m == 1)
		single_row_bound(c, lv, g, col, v, nb, out);
	else if (2 * Jr + 2 <= c->difflen && 2 * Jr + 2 <= 4 * (int64_t) m + 64)
	{
		/* lattice method: F on i = -Jr..Jr via a difference array */
		memset(c->diff, 0, sizeof(int64_t) * (2 * Jr + 2));
		lattice_steps(c, lv, m0, m0 + m, col, v, lv->ggcd[g], Jr, c->diff);
		lattice_report(c, lv, g, Jr, nb, c->diff, out);
	}
	else
		sorted_group_bound(c, lv, g, col, v, Jr, nb, out);
}

/*
 * A group whose only unassigned nonzero column is j with coefficient a:
 * its remainder is R = a w_j exactly, so its loss is an exact function of
 * w_j, and the loss of all such groups on column j is additive.  Adds the
 * steps of members [i0, i1) (scores shifted by v * a_{u,col}) to the diff
 * array df over w = -B..B+1 (the caller adds the group's sum of p_u at
 * df[0]).
 */
static void
single_steps(SearchCtx *c, const Level *lv, int g, int i0, int i1,
			 int col, int v, int64_t *df)
{
	const OPDiscProblem *p = c->p;
	int			B = c->B,
				d = c->d;
	int64_t		a = lv->gcoef[g];

	for (int i = i0; i < i1; i++)
	{
		int			u = lv->members[i];
		int64_t		sv = c->S[u];
		int64_t		t,
					delta = p->neg[u] - p->pos[u];

		if (col >= 0)
			sv += p->x[(int64_t) u * d + col] * v;
		t = 1 - sv;				/* positive iff a w >= t */
		if (a > 0)
		{
			int64_t		wt = ceil_div(t, a);	/* positive for w >= wt */

			if (wt < -B)
				wt = -B;
			if (wt > B + 1)
				wt = B + 1;
			df[wt + B] += delta;
		}
		else
		{
			int64_t		wt = -ceil_div(t, -a);	/* positive for w <= wt */

			if (wt >= -B)
			{
				if (wt > B)
					wt = B;
				df[0] += delta;
				df[wt + B + 1] -= delta;
			}
		}
	}
}

/* single_steps() for shifted members, using shift_prepare()'s indices */
static void
single_steps_shift(SearchCtx *c, const Level *lv, int g, int i0, int i1,
				   int col, int v, int64_t *df)
{
	int			B = c->B;
	int64_t		a = lv->gcoef[g];

	for (int i = i0; i < i1; i++)
	{
		int64_t		delta = lv->mdelta[i];
		int64_t		cu;

		if (lv->mq[i] == MQ_NONE)
		{
			single_steps(c, lv, g, i, i + 1, col, v, df);
			continue;
		}
		/* cu = ceil((1 - S_u - v a_{u,col}) / |a|) */
		cu = c->rbase[i] - v * lv->mq[i];
		if (a > 0)
		{
			/* positive for w >= cu */
			if (cu < -B)
				cu = -B;
			if (cu > B + 1)
				cu = B + 1;
			df[cu + B] += delta;
		}
		else
		{
			/* positive for w <= -cu */
			int64_t		wt = -cu;

			if (wt >= -B)
			{
				if (wt > B)
					wt = B;
				df[0] += delta;
				df[wt + B + 1] -= delta;
			}
		}
	}
}

#ifdef OPDISC_SEARCH_CHECK_BOUNDS
/*
 * Test builds only: every child bound is compared with the true minimum of
 * opdisc_objective() over the child's subtree (enumerated), on grids of at
 * most 2e5 points.  Violations are counted here; the unit test requires 0.
 */
long		opdisc_search_bound_checks = 0;
long		opdisc_search_bound_violations = 0;

static double
subtree_min(SearchCtx *c, int k, int64_t norm2)
{
	double		best = INFINITY;
	int			col;

	if (k == c->d)
		return opdisc_objective(c->p, c->wcur);
	col = c->order[k];
	for (int v = -c->B; v <= c->B; v++)
	{
		double		val;

		if (norm2 + (int64_t) v * v > c->D2)
			continue;
		c->wcur[col] = v;
		val = subtree_min(c, k + 1, norm2 + (int64_t) v * v);
		if (val < best)
			best = val;
	}
	c->wcur[col] = 0;
	return best;
}
#endif

/* ---------------------------------------------------------------------
 * Depth-first search
 * ---------------------------------------------------------------------
 */


/*
 * The parts of the children's bounds that do not depend on the child value
 * v, computed once per node at depth k: groups that do not see column col,
 * and the members with a_{u,col} = 0 of the groups that do.  LU:
 * free-remainder groups (diff array over the budget s); HUd: single-column
 * groups (diff arrays over w_j, per column slot); abase: base lattice diff
 * arrays of the affected free-remainder groups.
 */
static void
node_prepare(SearchCtx *c, const Level *lv, int rl, double *LU, int64_t *HUd)
{
	int			W = 2 * c->B + 1;
	int64_t		off = 0;

	for (int s = 0; s <= rl; s++)
		LU[s] = 0.0;
	for (int i = 0; i < lv->nunaff; i++)
		group_bound(c, lv, lv->unaff[i], -1, 0, rl, LU);
	memset(HUd, 0, sizeof(int64_t) * lv->nc1 * (W + 1));
	for (int i = 0; i < lv->nsunaff; i++)
	{
		int			g = lv->sunaff[i];
		int64_t    *df = HUd + (size_t) lv->c1slot[lv->gcol[g]] * (W + 1);

		df[0] += lv->gpos[g];
		single_steps(c, lv, g, lv->gstart[g], lv->gstart[g + 1], -1, 0, df);
	}
	for (int i = 0; i < lv->nsaff; i++)
	{
		int			g = lv->saff[i];
		int64_t    *df = HUd + (size_t) lv->c1slot[lv->gcol[g]] * (W + 1);

		df[0] += lv->gpos[g];
		single_steps(c, lv, g, lv->gstart[g], lv->gsplit[g], -1, 0, df);
		shift_prepare(c, lv, g, lv->gsplit[g], lv->gstart[g + 1]);
	}
	for (int i = 0; i < lv->naff; i++)
	{
		int			g = lv->aff[i];
		int			m = lv->gstart[g + 1] - lv->gstart[g];
		int64_t		Jr;

		(void) group_radius(lv, g, rl, &Jr);
		c->aJr[i] = Jr;
		c->aoff[i] = -1;
		if (m > 1 && 2 * Jr + 2 <= c->difflen && 2 * Jr + 2 <= 4 * (int64_t) m + 64)
		{
			c->aoff[i] = off;
			memset(c->abase + off, 0, sizeof(int64_t) * (2 * Jr + 2));
			lattice_steps(c, lv, lv->gstart[g], lv->gsplit[g], -1, 0,
						  lv->ggcd[g], Jr, c->abase + off);
			shift_prepare(c, lv, g, lv->gsplit[g], lv->gstart[g + 1]);
			off += 2 * Jr + 2;
		}
	}
}

/* a single-column slot's loss per value w_j = -B..B from its diff array */
static void
loss_table(const int64_t *df, int W, double *h)
{
	int64_t		F = 0;

	for (int w = 0; w < W; w++)
	{
		F += df[w];
		h[w] = (double) F;
	}
}

/*
 * Child w_col = v: the free-remainder groups' loss diff array over the budget
 * (LV, starting from the node's LU) and the single-column groups' exact
 * per-value loss tables (HV, from the node's HUd).
 */
static void
child_group_losses(SearchCtx *c, const Level *lv, int col, int v, int rl2,
				   const double *LU, const int64_t *HUd)
{
	int			W = 2 * c->B + 1;
	double	   *LV = c->LV;
	int64_t    *HVd = c->HVd;

	memcpy(LV, LU, sizeof(double) * (rl2 + 1));
	for (int i = 0; i < lv->naff; i++)
	{
		int			g = lv->aff[i];

		if (c->aoff[i] >= 0)
		{
			int64_t		Jr = c->aJr[i],
						Jc;
			int			nb = group_radius(lv, g, rl2, &Jc);

			memcpy(c->diff, c->abase + c->aoff[i], sizeof(int64_t) * (2 * Jr + 2));
			lattice_steps_shift(c, lv, lv->gsplit[g], lv->gstart[g + 1], col, v,
								lv->ggcd[g], Jr, c->diff);
			lattice_report(c, lv, g, Jr, nb, c->diff, LV);
		}
		else
			group_bound(c, lv, g, col, v, rl2, LV);
	}
	/* only the affected slots' tables: the others are in the shared knapsack */
	for (int i = lv->nc1u; i < lv->nc1; i++)
	{
		size_t		off = (size_t) lv->c1seq[i] * (W + 1);

		memcpy(HVd + off, HUd + off, sizeof(int64_t) * (W + 1));
	}
	for (int i = 0; i < lv->nsaff; i++)
	{
		int			g = lv->saff[i];

		single_steps_shift(c, lv, g, lv->gsplit[g], lv->gstart[g + 1], col, v,
						   HVd + (size_t) lv->c1slot[lv->gcol[g]] * (W + 1));
	}
	/* the tables of the unaffected slots are in the node's shared knapsack */
	for (int i = lv->nc1u; i < lv->nc1; i++)
	{
		int			t = lv->c1seq[i];

		loss_table(HVd + (size_t) t * (W + 1), W, c->HV + (size_t) t * W);
	}
}

/*
 * One column j of the knapsack over the norm budget: T1(s) = min over
 * w = -B..B with w^2 <= s of T0(s - w^2) + h(w) + cost_j(w), s = 0..rl.
 */
static void
knapsack_column(const SearchCtx *c, int j, const double *h, const double *T0,
				double *T1, int rl)
{
	int			B = c->B;

	for (int s = 0; s <= rl; s++)
	{
		double		bs = INFINITY;

		for (int w = -B; w <= B; w++)
		{
			int			s0 = s - w * w;
			double		val;

			if (s0 < 0)
				continue;
			val = T0[s0] + h[w + B] + coord_cost(c, j, w);
			if (val < bs)
				bs = val;
		}
		T1[s] = bs;
	}
}

/*
 * Knapsack over the norm budget (ALGORITHMS.md section 1: the noise term is
 * separable in w_j, and so is the loss of the single-column groups):
 * T(s) = min over suffix vectors of squared norm exactly s of
 * sum_j [h_j(w_j) - eta_j w_j / D], starting from the noise-only DP of the
 * other suffix columns (lv->E0).  The slots whose tables do not depend on
 * the child value (lv->c1seq[0..nc1u-1]) are done once per node here, into
 * c->TS for budgets 0..rl (T(s) does not depend on the cap, so a child with
 * a smaller budget uses a prefix).
 */
static void
shared_knapsack(SearchCtx *c, const Level *lv, int rl, const int64_t *HUd)
{
	int			W = 2 * c->B + 1;
	double	   *T0 = c->T0,
			   *T1 = c->T1;

	memcpy(T0, lv->E0, sizeof(double) * (rl + 1));
	for (int i = 0; i < lv->nc1u; i++)
	{
		int			t = lv->c1seq[i];
		double	   *tmp;

		loss_table(HUd + (size_t) t * (W + 1), W, c->hs);
		knapsack_column(c, lv->c1col[t], c->hs, T0, T1, rl);
		tmp = T0;
		T0 = T1;
		T1 = tmp;
	}
	memcpy(c->TS, T0, sizeof(double) * (rl + 1));
}

/* The child's part: the affected slots, from the node's shared c->TS. */
static const double *
suffix_knapsack(SearchCtx *c, const Level *lv, int rl2)
{
	int			W = 2 * c->B + 1;
	double	   *T0 = c->T0,
			   *T1 = c->T1;

	memcpy(T0, c->TS, sizeof(double) * (rl2 + 1));
	for (int i = lv->nc1u; i < lv->nc1; i++)
	{
		int			t = lv->c1seq[i];
		double	   *tmp;

		knapsack_column(c, lv->c1col[t], c->HV + (size_t) t * W, T0, T1, rl2);
		tmp = T0;
		T0 = T1;
		T1 = tmp;
	}
	return T0;
}

/*
 * Lower bound of the suffix below child w_col = v with remaining budget r2
 * (file header: min over s of Loss_multi(s) + T(s) + N(r2 - s)), without the
 * prefix and the child's own coordinate cost.
 */
static double
child_bound(SearchCtx *c, const Level *lv, int col, int v, int r2,
			const double *LU, const int64_t *HUd)
{
	int			rl2 = r2 < c->Deff ? r2 : c->Deff;
	const double *T;
	double		best = INFINITY;
	double		acc = 0.0;

	child_group_losses(c, lv, col, v, rl2, LU, HUd);
	T = suffix_knapsack(c, lv, rl2);
	for (int s = 0; s <= rl2; s++)
	{
		double		val;

		acc += c->LV[s];
		if (T[s] == INFINITY)
			continue;
		val = acc + T[s] + norm_term(c, r2 - s);
		if (val < best)
			best = val;
	}
	return best;
}

/* sort the nch children by bound (insertion sort, stable in v) */
static void
sort_children(double *cb, int *cv, int nch)
{
	for (int i = 1; i < nch; i++)
	{
		double		b = cb[i];
		int			vv = cv[i];
		int			h = i - 1;

		while (h >= 0 && cb[h] > b)
		{
			cb[h + 1] = cb[h];
			cv[h + 1] = cv[h];
			h--;
		}
		cb[h + 1] = b;
		cv[h + 1] = vv;
	}
}

#ifdef OPDISC_SEARCH_CHECK_BOUNDS
/* unit tests: compare a child bound with the true minimum of its subtree */
static void
check_child_bound(SearchCtx *c, int k, int col, int v, int r2, double bound)
{
	double		truth;

	if (opdisc_grid_size(c->d, c->B, c->D2) > 2e5)
		return;
	c->wcur[col] = v;
	truth = subtree_min(c, k + 1, (int64_t) (c->D2 - r2));
	c->wcur[col] = 0;
	opdisc_search_bound_checks++;
	if (bound > truth + c->margin)
		opdisc_search_bound_violations++;
}
#endif

/*
 * Node at depth k with remaining budget r: bound every child value of column
 * order[k], visit them in increasing bound order, stop at the first bound
 * above incumbent + margin.
 */
static void
dfs(SearchCtx *c, int k, int r, double prefix)
{
	int			B = c->B;
	int			col = c->order[k];
	const Level *lv = &c->lev[k + 1];
	double	   *LU = c->LU + (size_t) k * (c->Deff + 2);
	double	   *cb = c->cbound + (size_t) k * (2 * B + 1);
	int		   *cv = c->cval_order + (size_t) k * (2 * B + 1);
	int64_t    *HUd = c->HUd + (size_t) k * c->d * (2 * B + 2);
	int			rl = r < c->Deff ? r : c->Deff;
	int			nch = 0;

	if (check_stop(c))
		return;
	node_prepare(c, lv, rl, LU, HUd);
	shared_knapsack(c, lv, rl, HUd);
	for (int v = -B; v <= B; v++)
	{
		int			r2 = r - v * v;

		if (r2 < 0)
			continue;
		c->nodes++;
		cb[nch] = prefix + coord_cost(c, col, v) + child_bound(c, lv, col, v, r2, LU, HUd);
		cv[nch] = v;
#ifdef OPDISC_SEARCH_CHECK_BOUNDS
		check_child_bound(c, k, col, v, r2, cb[nch]);
#endif
		nch++;
	}
	sort_children(cb, cv, nch);

	for (int i = 0; i < nch; i++)
	{
		int			v = cv[i];

		if (c->have_inc && cb[i] > c->inc + c->margin)
			break;
		c->wcur[col] = v;
		if (k + 1 == c->d)
		{
			/* leaf: the bound is the objective value itself */
			offer(c, c->wcur, cb[i]);
		}
		else
		{
			for (int t = c->cstart[col]; t < c->cstart[col + 1]; t++)
				c->S[c->crow[t]] += c->cval[t] * v;
			dfs(c, k + 1, r - v * v, prefix + coord_cost(c, col, v));
			for (int t = c->cstart[col]; t < c->cstart[col + 1]; t++)
				c->S[c->crow[t]] -= c->cval[t] * v;
		}
		c->wcur[col] = 0;
		if (c->stopped)
			return;
	}
}

/* ---------------------------------------------------------------------
 * Setup
 * ---------------------------------------------------------------------
 */

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

#define CTX_ALLOC(ptr, cnt) \
	do { \
		(ptr) = calloc((size_t) (cnt) > 0 ? (size_t) (cnt) : 1, sizeof(*(ptr))); \
		if ((ptr) == NULL) goto oom; \
	} while (0)

static void
ctx_free(SearchCtx *c)
{
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
	free(c->S);
	free(c->wcur);
	free(c->HUd);
	free(c->HVd);
	free(c->abase);
	free(c->aoff);
	free(c->aJr);
	free(c->rbase);
	free(c->HV);
	free(c->T0);
	free(c->T1);
	free(c->TS);
	free(c->hs);
	free(c->hdiff);
	free(c->ntab);
	free(c->vcost);
	free(c->LU);
	free(c->LV);
	free(c->cbound);
	free(c->cval_order);
	free(c->diff);
	free(c->pairs);
	free(c->bestv);
	free(c->winc);
	free(c->lsdot);
}

#ifdef OPDISC_SEARCH_TUNING
/* benchmarking hooks (bench/oracle only) */
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
 * child value, so dfs() runs their part of the knapsack once per node),
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
		if (check_stop(c))
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
static bool
problem_invalid(const OPDiscProblem *p, OPDiscResult *result)
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

/* The scratch arrays of the search, sized from d, n, B and the budget */
static int
ctx_alloc_scratch(SearchCtx *c)
{
	int			d = c->d,
				n = c->n;

	CTX_ALLOC(c->order, d);
	CTX_ALLOC(c->lev, d + 1);
	CTX_ALLOC(c->cstart, d + 1);
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
	CTX_ALLOC(c->lsdot, n);
	return 0;
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
	return 0;
oom:
	return -1;
}

/* Incumbent heuristics: local search from w = 0 and from the caller's hint */
static void
first_incumbents(SearchCtx *c, int *w0)
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

/* Everything before the search proper; 0, or -1 on out of memory / a stop */
static int
ctx_setup(SearchCtx *c, OPDiscResult *result)
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

void
opdisc_solve_search(const OPDiscProblem *p, OPDiscResult *result)
{
	SearchCtx	ctx;
	SearchCtx  *c = &ctx;
	int			d = p->d;
	int		   *w0 = NULL;
	int			rc;

	memset(c, 0, sizeof(*c));
	c->p = p;
	clock_gettime(CLOCK_MONOTONIC, &c->t0);
	result->status = OPDISC_FAILED;
	result->nodes = 0;
	result->seconds = 0.0;
	result->objective = NAN;
	result->solver_objective = NAN;
	result->message[0] = '\0';
	if (problem_invalid(p, result))
		return;
	if (d == 0)
	{
		result->objective = opdisc_objective(p, result->w);
		result->solver_objective = result->objective;
		result->status = OPDISC_OPTIMAL;
		result->seconds = now_seconds(&c->t0);
		return;
	}
	c->d = d;
	c->n = p->nrows;
	c->B = p->B;
	c->D2 = p->D2;

	w0 = calloc(d, sizeof(int));
	rc = w0 == NULL ? -1 : ctx_setup(c, result);
	if (rc == 0)
	{
		first_incumbents(c, w0);
		if (!c->stopped)
			dfs(c, 0, p->D2, 0.0);	/* the exact search */
	}
	if (rc == 0 && !c->stopped)
	{
		memcpy(result->w, c->winc, sizeof(int) * d);
		result->status = OPDISC_OPTIMAL;
	}
	else if (c->stopped)
	{
		if (c->have_inc)
			memcpy(result->w, c->winc, sizeof(int) * d);
		else
			memset(result->w, 0, sizeof(int) * d);
		result->status = c->stopped;
		snprintf(result->message, sizeof(result->message),
				 c->stopped == OPDISC_TIME_LIMIT ?
				 "search stopped by the time limit after %ld nodes; incumbent not certified" :
				 "search interrupted after %ld nodes; incumbent not certified",
				 c->nodes);
	}
	else
	{
		/* out of memory (rc < 0) or non-finite values (rc > 0, message set) */
		if (rc < 0)
			snprintf(result->message, sizeof(result->message),
					 "out of memory in exact search (d = %d, nrows = %d)", d, c->n);
		result->status = OPDISC_FAILED;
		memset(result->w, 0, sizeof(int) * d);
		result->nodes = c->nodes;
		result->seconds = now_seconds(&c->t0);
		free(w0);
		ctx_free(c);
		return;
	}
	result->nodes = c->nodes;
	result->objective = opdisc_objective(p, result->w);
	result->solver_objective = c->have_inc ? c->inc : result->objective;
	result->seconds = now_seconds(&c->t0);
	free(w0);
	ctx_free(c);
}
