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
 * docs/ALGORITHMS.md, "OPDisc" (deduplicated rows with counts p_u /
 * q_u, sgn(0) = -1, features on the lattice (1/Q)Z so that "<w, x_u> > 0"
 * is "<w, a_u> >= 1" in exact int64 arithmetic).  Privacy needs the exact
 * argmin (alpha = 0 oracle), so every pruning rule below is a valid lower
 * bound and the answer is identical to plain enumeration of the grid.
 *
 * The same search solves the separable-cost form of opdisc.h (value_cost /
 * norm_cost, e.g. RSPM, docs/ALGORITHMS.md, "RSPM"): internally the objective
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
 * Threads (opdisc_searchrun.c, opdisc_pool.h): every thread runs this search
 * on its own scratch; share_work() hands the unvisited children of a
 * thread's shallowest open node to an idle thread, pruning reads the common
 * incumbent (a stale value is higher, so it only prunes less) and offers
 * are merged under the pool's lock by the total order above, so the answer
 * does not depend on the number of threads or the schedule.
 *
 *-------------------------------------------------------------------------
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/opdisc_searchint.h"

/* Record a stop (and tell the other threads) */
static bool
set_stop(SearchCtx *c, int status)
{
	c->stopped = status;
	if (c->pool != NULL)
		pool_stop(c->pool, status);
	return true;
}

/*
 * Check the time limit always and should_stop() every SEARCH_POLL_INTERVAL;
 * with threads, only the caller's thread calls should_stop() (it may look at
 * server state) and the others follow the pool's stop flag.
 */
bool
search_check_stop(SearchCtx *c)
{
	double		t;

	if (c->stopped)
		return true;
	if (c->pool != NULL && (c->stopped = pool_stopped(c->pool)) != 0)
		return true;
	t = now_seconds(&c->t0);
	if (c->p->time_limit > 0 && t >= c->p->time_limit)
		return set_stop(c, OPDISC_TIME_LIMIT);
	if (c->p->should_stop != NULL && (c->pool == NULL || c->is_main) &&
		t - c->last_poll >= SEARCH_POLL_INTERVAL)
	{
		c->last_poll = t;
		if (c->p->should_stop(c->p->stop_arg))
			return set_stop(c, OPDISC_INTERRUPTED);
	}
	return false;
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

/*
 * Copy the common incumbent into c (into_pool false) or c's into the pool
 * (into_pool true, published for the lock-free readers); under the pool's
 * lock once threads run.
 */
void
search_sync_incumbent(SearchCtx *c, SearchPool *pl, bool into_pool)
{
	if (into_pool)
	{
		pl->have_inc = c->have_inc;
		pl->inc = c->inc;
		pl->inc_exact = c->inc_exact;
		memcpy(pl->winc, c->winc, sizeof(int) * c->d);
		pool_publish_incumbent(pl, c->have_inc ? c->inc : INFINITY);
		return;
	}
	c->have_inc = pl->have_inc;
	c->inc = pl->inc;
	c->inc_exact = pl->inc_exact;
	memcpy(c->winc, pl->winc, sizeof(int) * c->d);
}

/*
 * offer() for the search proper: with threads, against the common incumbent
 * under the pool's lock (the pool's value is never below the current one,
 * so the bare pre-check only skips candidates offer() would reject).
 */
void
search_offer(SearchCtx *c, const int *w, double val)
{
	SearchPool *pl = c->pool;

	if (pl == NULL)
	{
		(void) offer(c, w, val);
		return;
	}
	if (val > pool_incumbent(pl) + c->margin)
		return;
	pthread_mutex_lock(&pl->lock);
	search_sync_incumbent(c, pl, false);
	if (offer(c, w, val))
		search_sync_incumbent(c, pl, true);
	pthread_mutex_unlock(&pl->lock);
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
long		opdisc_search_shared_tasks = 0;	/* subtrees handed to threads */

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
 * w and -w use the same budget, so they are taken together; the budget s
 * is the inner loop (the compiler vectorises it).  Every candidate is
 * summed as (T0 + h) + cost, as before the loops were swapped, so the
 * table is bit for bit the same (min is exact).
 */
static void
knapsack_column(const SearchCtx *c, int j, const double *h,
				const double *restrict T0, double *restrict T1, int rl)
{
	int			B = c->B;
	const double *cost = coord_costs(c, j);

	for (int s = 0; s <= rl; s++)
		T1[s] = T0[s] + h[B] + cost[0];
	for (int w = 1; w <= B && w * w <= rl; w++)
	{
		int			q = w * w;
		double		hp = h[B + w],
					hm = h[B - w],
					cp = cost[w],
					cm = cost[-w];

		for (int s = q; s <= rl; s++)
		{
			double		a = T0[s - q] + hp;
			double		b = T0[s - q] + hm;

			a += cp;
			b += cm;
			a = (b < a) ? b : a;
			T1[s] = (a < T1[s]) ? a : T1[s];
		}
	}
}

/*
 * Knapsack over the norm budget (docs/ALGORITHMS.md, "OPDisc": the noise term is
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
	__atomic_fetch_add(&opdisc_search_bound_checks, 1, __ATOMIC_RELAXED);
	if (bound > truth + c->margin)
		__atomic_fetch_add(&opdisc_search_bound_violations, 1, __ATOMIC_RELAXED);
}
#endif

/*
 * Bound every child value of column order[k] at a node with remaining
 * budget r into the depth's cbound / cval_order, sorted by bound; returns
 * the number of children.
 */
static int
bound_children(SearchCtx *c, int k, int r, double prefix)
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
	return nch;
}

/*
 * Threads: hand the unvisited children of this thread's shallowest open
 * node (depth >= kroot, subtrees of at least two levels) to the pool; the
 * node's loop then stops after its current child.  Children whose bound is
 * already above the incumbent are pruned here as the loop would.  A child
 * that cannot be queued (out of memory) stays with this thread.
 */
static void
share_work(SearchCtx *c, int k)
{
	int			B = c->B;

	for (int kk = c->kroot; kk <= k && kk <= c->d - 3; kk++)
	{
		const double *cb = c->cbound + (size_t) kk * (2 * B + 1);
		const int  *cv = c->cval_order + (size_t) kk * (2 * B + 1);
		int			col = c->order[kk];
		int			last = c->dnch[kk] - 1;
		int		   *w = c->wtask;

		if (c->dcur[kk] >= last)
			continue;
		memcpy(w, c->wcur, sizeof(int) * c->d);
		for (int i = kk; i < c->d; i++)
			w[c->order[i]] = 0;
		while (last > c->dcur[kk] && cb[last] > pool_incumbent(c->pool) + c->margin)
			last--;
		for (; last > c->dcur[kk]; last--)
		{
			SearchTask t;

			w[col] = cv[last];
			t.k = kk + 1;
			t.r = c->dr[kk] - cv[last] * cv[last];
			t.prefix = c->dprefix[kk] + coord_cost(c, col, cv[last]);
			t.bound = cb[last];
			t.w = w;
			if (!pool_push(c->pool, &t))
				break;
#ifdef OPDISC_SEARCH_CHECK_BOUNDS
			__atomic_fetch_add(&opdisc_search_shared_tasks, 1, __ATOMIC_RELAXED);
#endif
		}
		c->dnch[kk] = last + 1;
		return;
	}
}

/* Visit child w_col = v of a node at depth k (remaining budget r). */
static void
visit_child(SearchCtx *c, int k, int v, int r, double prefix, double bound)
{
	int			col = c->order[k];

	c->wcur[col] = v;
	if (k + 1 == c->d)
	{
		/* leaf: the bound is the objective value itself */
		search_offer(c, c->wcur, bound);
	}
	else
	{
		search_add_column(c, c->S, col, v);
		search_dfs(c, k + 1, r - v * v, prefix + coord_cost(c, col, v));
		search_add_column(c, c->S, col, -v);
	}
	c->wcur[col] = 0;
}

/*
 * Node at depth k with remaining budget r: bound every child value of column
 * order[k], visit them in increasing bound order, stop at the first bound
 * above incumbent + margin.
 */
void
search_dfs(SearchCtx *c, int k, int r, double prefix)
{
	const double *cb = c->cbound + (size_t) k * (2 * c->B + 1);
	const int  *cv = c->cval_order + (size_t) k * (2 * c->B + 1);

	if (search_check_stop(c))
		return;
	c->dnch[k] = bound_children(c, k, r, prefix);
	c->dr[k] = r;
	c->dprefix[k] = prefix;
	for (int i = 0; i < c->dnch[k]; i++)
	{
		if (c->pool != NULL)
			c->inc = pool_incumbent(c->pool);
		if (c->have_inc && cb[i] > c->inc + c->margin)
			break;
		c->dcur[k] = i;
		if (c->pool != NULL && pool_hungry(c->pool))
			share_work(c, k);
		visit_child(c, k, cv[i], r, prefix, cb[i]);
		if (c->stopped)
			return;
	}
}
