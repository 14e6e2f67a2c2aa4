/*-------------------------------------------------------------------------
 *
 * opdisc_objective.c
 *	  Exact evaluation of the OPDisc objective; the one definition every
 *	  oracle's answer is checked against before a model is released.
 *
 * Source: Neel et al. (ICML 2020) Algorithm 1, output
 *   w_hat = argmin_{w in W_tau} L(D, w) - <eta, pi(w)>,
 *   pi(w) = (w_1, ..., w_d, sqrt(D^2 - ||w||^2)) / D;
 * docs/ALGORITHMS.md, "OPDisc".
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stddef.h>

#include "core/opdisc.h"

bool
opdisc_in_grid(const OPDiscProblem *p, const int *w)
{
	int64_t		norm2 = 0;

	for (int j = 0; j < p->d; j++)
	{
		if (w[j] < -p->B || w[j] > p->B)
			return false;
		norm2 += (int64_t) w[j] * w[j];
	}
	return norm2 <= p->D2;
}

int64_t
opdisc_loss(const OPDiscProblem *p, const int *w)
{
	int64_t		loss = 0;

	for (int u = 0; u < p->nrows; u++)
	{
		const int64_t *a = p->x + (int64_t) u * p->d;
		int64_t		s = 0;

		for (int j = 0; j < p->d; j++)
			s += a[j] * w[j];
		/* b_u = 1 iff <w, a_u> >= 1, i.e. <w, x_u> > 0; sgn(0) = -1 */
		loss += (s >= 1) ? p->neg[u] : p->pos[u];
	}
	return loss;
}

double
opdisc_objective(const OPDiscProblem *p, const int *w)
{
	double		D = sqrt((double) p->D2);
	double		lin = 0.0;
	int64_t		norm2 = 0;

	if (p->value_cost != NULL)
	{
		/* separable costs (e.g. RSPM's separator noise, docs/ALGORITHMS.md, "RSPM") */
		double		cost = 0.0;
		int			W = 2 * p->B + 1;

		for (int j = 0; j < p->d; j++)
		{
			cost += p->value_cost[j * W + (w[j] + p->B)];
			norm2 += (int64_t) w[j] * w[j];
		}
		if (p->norm_cost != NULL)
			cost += p->norm_cost[norm2];
		return (double) opdisc_loss(p, w) + cost;
	}

	for (int j = 0; j < p->d; j++)
	{
		lin += p->eta[j] * w[j];
		norm2 += (int64_t) w[j] * w[j];
	}
	/* - <eta, pi(w)> with the exact normalisation coordinate */
	return (double) opdisc_loss(p, w)
		- lin / D
		- p->eta[p->d] * sqrt((double) (p->D2 - norm2)) / D;
}

/* w[from..d-1] := the smallest completion within the norm budget r */
static void
grid_fill(int *w, int from, int d, int B, int64_t r)
{
	for (int k = from; k < d; k++)
	{
		int			v = 0;

		while (v < B && (int64_t) (v + 1) * (v + 1) <= r)
			v++;
		w[k] = -v;
		r -= (int64_t) v * v;
	}
}

void
opdisc_grid_first(int *w, int d, int B, int D2)
{
	grid_fill(w, 0, d, B, D2);
}

/*
 * The successor: the rightmost coordinate j that can grow while the prefix
 * w[0..j] stays within D2 grows by one, and the suffix restarts at its
 * smallest completion (zero is always feasible, so the greedy fill is the
 * lexicographically smallest).
 */
bool
opdisc_grid_next(int *w, int d, int B, int D2)
{
	int64_t		pre = 0;

	for (int k = 0; k < d; k++)
		pre += (int64_t) w[k] * w[k];
	for (int j = d - 1; j >= 0; j--)
	{
		int			v = w[j] + 1;

		pre -= (int64_t) w[j] * w[j];	/* pre = ||w[0..j-1]||^2 */
		if (v <= B && pre + (int64_t) v * v <= D2)
		{
			w[j] = v;
			grid_fill(w, j + 1, d, B, D2 - pre - (int64_t) v * v);
			return true;
		}
	}
	return false;
}

void
opdisc_default_grid(int d, int b_option, int d2_option, int *B, int *D2)
{
	int			m;

	*D2 = d2_option > 0 ? d2_option : (d < OPDISC_DEFAULT_D2 ? d : OPDISC_DEFAULT_D2);
	m = d < *D2 ? d : *D2;
	*B = b_option > 0 ? b_option : (int) floor(sqrt((double) m) + 1e-9);
	if (*B < 1)
		*B = 1;
}

double
opdisc_grid_size(int d, int B, int D2)
{
	/*
	 * Count integer vectors with |w_j| <= B and ||w||^2 <= D2 by a DP over
	 * the norm budget: cnt[s] = number of partial vectors with norm^2 = s.
	 */
	double		cnt[4096 + 1];
	double		nxt[4096 + 1];
	double		total = 0.0;

	if (D2 > 4096)
		return 1e300;
	for (int s = 0; s <= D2; s++)
		cnt[s] = (s == 0) ? 1.0 : 0.0;
	for (int j = 0; j < d; j++)
	{
		for (int s = 0; s <= D2; s++)
			nxt[s] = 0.0;
		for (int s = 0; s <= D2; s++)
		{
			if (cnt[s] == 0.0)
				continue;
			for (int v = -B; v <= B; v++)
			{
				int			t = s + v * v;

				if (t <= D2)
					nxt[t] += cnt[s];
			}
		}
		for (int s = 0; s <= D2; s++)
			cnt[s] = (nxt[s] > 1e300) ? 1e300 : nxt[s];
	}
	for (int s = 0; s <= D2; s++)
		total += cnt[s];
	return total > 1e300 ? 1e300 : total;
}

