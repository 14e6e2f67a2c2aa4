/*-------------------------------------------------------------------------
 *
 * test_instances.c
 *	  Random OPDisc instances and the enumeration reference shared by the
 *	  standalone oracle tests (test_oracles.c) and the GLPK mismatch finder
 *	  (mip_mismatch.c).  No PostgreSQL.
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_instances.h"

/* splitmix64: small deterministic PRNG for instance generation */
uint64_t	rng_state = 0x9E3779B97F4A7C15ULL;

uint64_t
rng_next(void)
{
	uint64_t	z = (rng_state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* uniform integer in [lo, hi] */
int
rng_int(int lo, int hi)
{
	return lo + (int) (rng_next() % (uint64_t) (hi - lo + 1));
}

double
rng_unif(void)
{
	return ((double) (rng_next() >> 11) + 0.5) / 9007199254740992.0;
}

double
rng_gauss(void)
{
	double		u1 = rng_unif(),
				u2 = rng_unif();

	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}


void
instance_free(Instance *in)
{
	free(in->x);
	free(in->pos);
	free(in->neg);
	free(in->eta);
	free(in->value_cost);
	free(in->norm_cost);
}

/*
 * Switch an instance to separable costs (opdisc.h value_cost / norm_cost,
 * used by RSPM): random costs, sometimes with integer values (ties),
 * sometimes without norm_cost, sometimes with eta removed.
 */
void
add_costs(Instance *in, double scale, int variant)
{
	int			W = 2 * in->p.B + 1;

	in->value_cost = calloc((size_t) in->p.d * W, sizeof(double));
	for (int i = 0; i < in->p.d * W; i++)
		in->value_cost[i] = (variant % 3 == 2) ? (double) rng_int(-2, 2) : scale * rng_gauss();
	if (variant % 2 == 0)
	{
		in->norm_cost = calloc((size_t) in->p.D2 + 1, sizeof(double));
		for (int t = 0; t <= in->p.D2; t++)
			in->norm_cost[t] = (variant % 3 == 2) ? (double) rng_int(-2, 2) : scale * rng_gauss();
	}
	in->p.value_cost = in->value_cost;
	in->p.norm_cost = in->norm_cost;
	if (variant % 4 == 1)
		in->p.eta = NULL;		/* must be ignored */
	snprintf(in->desc + strlen(in->desc), sizeof(in->desc) - strlen(in->desc),
			 " costs=%d", variant);
}

/*
 * Reference: enumerate the grid in lexicographic order (w[0] most
 * significant, each coordinate from -B to B) and keep the first strict
 * minimum of opdisc_objective().  Also reports the runner-up value (the
 * smallest objective of any other grid point).
 */
long
brute_force(const OPDiscProblem *p, int *wbest, double *best, double *second)
{
	int			d = p->d;
	int		   *w = calloc((size_t) (d > 0 ? d : 1), sizeof(int));
	long		count = 0;

	*best = INFINITY;
	*second = INFINITY;
	for (int j = 0; j < d; j++)
		w[j] = -p->B;
	for (;;)
	{
		if (opdisc_in_grid(p, w))
		{
			double		v = opdisc_objective(p, w);

			count++;
			if (v < *best)
			{
				*second = *best;
				*best = v;
				memcpy(wbest, w, sizeof(int) * d);
			}
			else if (v < *second)
				*second = v;
		}
		/* next point in lexicographic order */
		{
			int			j = d - 1;

			while (j >= 0 && w[j] == p->B)
			{
				w[j] = -p->B;
				j--;
			}
			if (j < 0)
				break;
			w[j]++;
		}
	}
	free(w);
	return count;
}

/*
 * Random instance.  kind selects the feature generator; noise selects the
 * noise scale; everything else is random.
 */
void
make_instance(Instance *in, int d, int B, int D2, int nrows, int kind,
			  double noise, int eta_last_sign, bool dup_rows)
{
	int			Q = 4;

	memset(in, 0, sizeof(*in));
	in->x = calloc((size_t) nrows * d + 1, sizeof(int64_t));
	in->pos = calloc((size_t) nrows + 1, sizeof(int64_t));
	in->neg = calloc((size_t) nrows + 1, sizeof(int64_t));
	in->eta = calloc((size_t) d + 1, sizeof(double));

	for (int u = 0; u < nrows; u++)
	{
		int64_t    *a = in->x + (int64_t) u * d;

		if (dup_rows && u > 0 && rng_int(0, 3) == 0)
		{
			/* duplicate of an earlier row */
			memcpy(a, in->x + (int64_t) rng_int(0, u - 1) * d, sizeof(int64_t) * d);
		}
		else if (rng_int(0, 9) == 0)
		{
			/* all-zero row */
		}
		else
		{
			switch (kind)
			{
				case 0:			/* small signed integers */
					for (int j = 0; j < d; j++)
						a[j] = rng_int(-3, 3);
					break;
				case 1:			/* one-hot group (first half) + quantised continuous */
					{
						int			h = (d + 1) / 2;

						a[rng_int(0, h - 1)] = Q;
						for (int j = h; j < d; j++)
							a[j] = rng_int(0, Q);
					}
					break;
				case 4:			/* huge values: float radius path */
					for (int j = 0; j < d; j++)
						if (rng_int(0, 1) == 0)
							a[j] = (int64_t) rng_int(-1000000, 1000000) * 1000 + rng_int(-999, 999);
					break;
				case 2:			/* sparse, larger values */
					for (int j = 0; j < d; j++)
						if (rng_int(0, 2) == 0)
							a[j] = rng_int(-40, 40);
					break;
				default:		/* two one-hot groups */
					{
						int			h = d / 2;

						if (h >= 1)
							a[rng_int(0, h - 1)] = Q;
						a[rng_int(h, d - 1)] = Q;
					}
					break;
			}
		}
		/* counts; sometimes tied (p == q), sometimes zero */
		in->pos[u] = rng_int(0, 5);
		in->neg[u] = rng_int(0, 5);
		if (rng_int(0, 5) == 0)
			in->neg[u] = in->pos[u];
	}
	for (int j = 0; j <= d; j++)
		in->eta[j] = noise * rng_gauss();
	if (eta_last_sign > 0)
		in->eta[d] = fabs(in->eta[d]);
	else if (eta_last_sign < 0)
		in->eta[d] = -fabs(in->eta[d]);

	in->p.d = d;
	in->p.nrows = nrows;
	in->p.x = in->x;
	in->p.pos = in->pos;
	in->p.neg = in->neg;
	in->p.B = B;
	in->p.D2 = D2;
	in->p.eta = in->eta;
	in->p.time_limit = 0;
	in->p.should_stop = NULL;
	snprintf(in->desc, sizeof(in->desc),
			 "d=%d B=%d D2=%d n=%d kind=%d noise=%g sign=%d dup=%d",
			 d, B, D2, nrows, kind, noise, eta_last_sign, (int) dup_rows);
}

