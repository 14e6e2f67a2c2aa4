/*-------------------------------------------------------------------------
 *
 * test_oracles.c
 *	  Standalone checks of the exact OPDisc oracles (no PostgreSQL).
 *
 * opdisc_solve_search() must return exactly what plain enumeration of the
 * grid W = { w in Z^d : |w_j| <= B, ||w||^2 <= D2 } returns (Neel et al.,
 * ICML 2020, Algorithm 1; ALGORITHMS.md section 1): the minimiser of
 * opdisc_objective(), ties broken towards the lexicographically smallest w
 * (w[0] compared first, as signed integers).  The reference below enumerates
 * the grid in lexicographic order and keeps the first strict minimum, which
 * is that rule.
 *
 * opdisc_search.c is compiled with OPDISC_SEARCH_CHECK_BOUNDS: on these small
 * grids every lower bound the search computes is also compared with the
 * true minimum of its subtree (by enumeration), so an invalid bound is
 * reported even when it happens not to change the answer.
 *
 * When src/opdisc_mip.c exists the Makefile defines HAVE_OPDISC_MIP and the
 * GLPK oracle is cross-checked too (same objective; same w when the
 * minimum is separated from the runner-up).
 *
 * The last line printed is "N passed, N failed"; the exit status is non-zero
 * on any failure.
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opdisc.h"

/* counters of the OPDISC_SEARCH_CHECK_BOUNDS build of opdisc_search.c */
extern long opdisc_search_bound_checks;
extern long opdisc_search_bound_violations;

static int	npass = 0;
static int	nfail = 0;

#define CHECK(cond, ...) \
	do { \
		if (cond) npass++; \
		else { \
			nfail++; \
			printf("FAIL %s:%d: ", __FILE__, __LINE__); \
			printf(__VA_ARGS__); \
			printf("\n"); \
		} \
	} while (0)

/* splitmix64: small deterministic PRNG for instance generation */
static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

static uint64_t
rng_next(void)
{
	uint64_t	z = (rng_state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* uniform integer in [lo, hi] */
static int
rng_int(int lo, int hi)
{
	return lo + (int) (rng_next() % (uint64_t) (hi - lo + 1));
}

static double
rng_unif(void)
{
	return ((double) (rng_next() >> 11) + 0.5) / 9007199254740992.0;
}

static double
rng_gauss(void)
{
	double		u1 = rng_unif(),
				u2 = rng_unif();

	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

typedef struct Instance
{
	OPDiscProblem p;
	int64_t    *x;
	int64_t    *pos;
	int64_t    *neg;
	double	   *eta;
	double	   *value_cost;
	double	   *norm_cost;
	char		desc[160];
} Instance;

static void
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
static void
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
static long
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
static void
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

static bool
same_w(const int *a, const int *b, int d)
{
	return memcmp(a, b, sizeof(int) * d) == 0;
}

static void
print_w(const char *label, const int *w, int d)
{
	printf("  %s = (", label);
	for (int j = 0; j < d; j++)
		printf("%s%d", j ? ", " : "", w[j]);
	printf(")\n");
}

/* Compare the search oracle against enumeration on one instance. */
static void
check_search(Instance *in, bool with_mip)
{
	const OPDiscProblem *p = &in->p;
	int			d = p->d;
	int			wref[16],
				w[16];
	double		best,
				second;
	OPDiscResult res;

	brute_force(p, wref, &best, &second);
	memset(&res, 0, sizeof(res));
	res.w = w;
	opdisc_search_bound_violations = 0;
	opdisc_solve_search(p, &res);
	CHECK(opdisc_search_bound_violations == 0,
		  "%ld search bounds exceed their subtree minimum on %s",
		  opdisc_search_bound_violations, in->desc);

	CHECK(res.status == OPDISC_OPTIMAL, "search status %d (%s) on %s",
		  (int) res.status, res.message, in->desc);
	CHECK(same_w(w, wref, d) && res.objective == best,
		  "search argmin differs from enumeration on %s: %.17g vs %.17g",
		  in->desc, res.objective, best);
	if (!same_w(w, wref, d))
	{
		print_w("search", w, d);
		print_w("enum  ", wref, d);
	}
	CHECK(res.objective == opdisc_objective(p, w),
		  "result->objective not recomputed on %s", in->desc);
	CHECK(fabs(res.solver_objective - res.objective) <=
		  OPDISC_OBJ_TOL * (1.0 + fabs(res.objective)),
		  "solver_objective %.17g vs objective %.17g on %s",
		  res.solver_objective, res.objective, in->desc);

#ifdef HAVE_OPDISC_MIP
	if (with_mip)
	{
		int			wm[16];
		OPDiscResult mres;
		OPDiscProblem mp = *p;

		/* the MIP's LP relaxation is weak: keep its instances small */
		mp.time_limit = 60;
		memset(&mres, 0, sizeof(mres));
		mres.w = wm;
		opdisc_solve_mip(&mp, &mres);
		CHECK(mres.status == OPDISC_OPTIMAL, "mip status %d (%s) on %s",
			  (int) mres.status, mres.message, in->desc);
		if (mres.status == OPDISC_OPTIMAL)
		{
			double		tol = OPDISC_OBJ_TOL * (1.0 + fabs(best));

			CHECK(opdisc_in_grid(p, wm), "mip w outside the grid on %s", in->desc);
			CHECK(fabs(mres.objective - best) <= tol,
				  "mip objective %.17g vs enumeration %.17g on %s",
				  mres.objective, best, in->desc);
			/* argmin must agree whenever it is separated from the runner-up */
			if (second - best > 1e-6 * (1.0 + fabs(best)))
				CHECK(same_w(wm, wref, d), "mip argmin differs on %s", in->desc);
		}
	}
#else
	(void) with_mip;
#endif
}

/* stop callback: says stop after 'left' calls */
static bool
stop_after(void *arg)
{
	int		   *left = arg;

	return (*left)-- <= 0;
}

static void
check_controls(void)
{
	Instance	in;
	int			w[16];
	OPDiscResult res;
	int			left;

	/* an instance big enough that the search takes many nodes */
	rng_state = 12345;
	make_instance(&in, 12, 3, 40, 3000, 0, 2.0, 0, false);

	memset(&res, 0, sizeof(res));
	res.w = w;
	left = 0;
	in.p.should_stop = stop_after;
	in.p.stop_arg = &left;
	opdisc_solve_search(&in.p, &res);
	CHECK(res.status == OPDISC_INTERRUPTED, "expected INTERRUPTED, got %d", (int) res.status);
	CHECK(opdisc_in_grid(&in.p, w), "interrupted result w not in grid");
	CHECK(res.objective == opdisc_objective(&in.p, w),
		  "interrupted objective not recomputed");
	CHECK(res.message[0] != '\0', "interrupted result has no message");

	in.p.should_stop = NULL;
	in.p.time_limit = 1e-6;
	memset(&res, 0, sizeof(res));
	res.w = w;
	opdisc_solve_search(&in.p, &res);
	CHECK(res.status == OPDISC_TIME_LIMIT, "expected TIME_LIMIT, got %d", (int) res.status);
	CHECK(opdisc_in_grid(&in.p, w), "time-limited result w not in grid");
	instance_free(&in);
}

/* Hand-made tie cases: zero noise, identical losses. */
static void
check_ties(void)
{
	Instance	in;
	int			kinds[] = {0, 1, 3};

	for (int t = 0; t < 40; t++)
	{
		int			d = rng_int(1, 4);
		int			B = rng_int(1, 2);
		int			D2 = rng_int(1, d * B * B + 1);

		make_instance(&in, d, B, D2, rng_int(0, 6), kinds[t % 3], 0.0, 0, t % 2 == 0);
		/* some with only eta_{d+1} non-zero: ties between equal norms */
		if (t % 4 == 1)
			in.eta[d] = (t % 8 == 1) ? 1.0 : -1.0;
		/* some with integer eta: exact ties of loss + noise */
		if (t % 4 == 2)
			for (int j = 0; j < d; j++)
				in.eta[j] = rng_int(-1, 1) * sqrt((double) D2);
		check_search(&in, true);
		instance_free(&in);
	}
}

int
main(void)
{
	Instance	in;
	double		noises[] = {1e-6, 0.3, 3.0, 30.0, 3000.0};
	int			ninst = 0;

	/* random instances: all (B, D2) regimes, both signs of eta_{d+1} */
	for (int t = 0; t < 600; t++)
	{
		int			d = rng_int(1, 6);
		int			B = rng_int(1, d <= 3 ? 3 : 2);
		int			full = d * B * B;
		int			D2;
		int			regime = t % 3;

		if (regime == 0)
			D2 = rng_int(1, full > 1 ? full - 1 : 1);	/* norm constraint binds */
		else if (regime == 1)
			D2 = full;			/* box only */
		else
			D2 = full + rng_int(1, 10);	/* slack in the normalisation */
		make_instance(&in, d, B, D2, rng_int(1, 40), t % 4,
					  noises[rng_int(0, 4)], (t % 5 == 0) ? 0 : ((t % 2) ? 1 : -1),
					  t % 7 == 0);
		check_search(&in, true);
		instance_free(&in);
		ninst++;
	}
	/*
	 * Larger instances with one-hot structure (more rows per group, so the
	 * search's grouped bounds and incremental per-child updates are
	 * exercised on many shapes).
	 */
	for (int t = 0; t < 80; t++)
	{
		int			d = rng_int(4, 6);
		int			B = rng_int(1, 2);
		int			full = d * B * B;
		int			D2 = (t % 2) ? full : rng_int(d, full);

		make_instance(&in, d, B, D2, rng_int(60, 250), (t % 2) ? 1 : 3,
					  noises[rng_int(1, 3)], (t % 3) - 1, t % 5 == 0);
		check_search(&in, false);
		instance_free(&in);
		ninst++;
	}
	/* separable costs instead of the eta terms (value_cost / norm_cost) */
	for (int t = 0; t < 120; t++)
	{
		int			d = rng_int(1, 5);
		int			B = rng_int(1, d <= 3 ? 3 : 2);
		int			full = d * B * B;
		int			D2 = (t % 3 == 0) ? rng_int(1, full) : full + (t % 3 == 2 ? 3 : 0);

		make_instance(&in, d, B, D2, rng_int(1, 30), t % 4, 1.0, 0, t % 6 == 0);
		add_costs(&in, noises[rng_int(0, 4)], t);
		check_search(&in, true);
		instance_free(&in);
		ninst++;
	}

	/* B = 0: the grid is {0} */
	for (int t = 0; t < 6; t++)
	{
		make_instance(&in, rng_int(1, 4), 0, 1 + 2 * (t % 2), rng_int(0, 10), t % 4,
					  noises[rng_int(0, 4)], (t % 3) - 1, false);
		check_search(&in, false);
		instance_free(&in);
		ninst++;
	}

	/* huge feature values (scores near 1e9 * B, squared norms near 1e18) */
	for (int t = 0; t < 40; t++)
	{
		int			d = rng_int(1, 5);
		int			B = rng_int(1, 2);

		make_instance(&in, d, B, rng_int(1, d * B * B), rng_int(1, 30), 4,
					  noises[rng_int(0, 4)], (t % 3) - 1, t % 4 == 0);
		check_search(&in, false);
		instance_free(&in);
		ninst++;
	}
	check_ties();
	check_controls();

	printf("%d random instances + ties + controls; %ld search bounds checked\n",
		   ninst, opdisc_search_bound_checks);
	CHECK(opdisc_search_bound_checks > 0, "no search bound was checked");
	printf("%d passed, %d failed\n", npass, nfail);
	return nfail == 0 ? 0 : 1;
}
