/*-------------------------------------------------------------------------
 *
 * test_oracles.c
 *	  Standalone checks of the exact OPDisc oracles (no PostgreSQL).
 *
 * opdisc_solve_search() must return exactly what plain enumeration of the
 * grid W = { w in Z^d : |w_j| <= B, ||w||^2 <= D2 } returns (Neel et al.,
 * ICML 2020, Algorithm 1; docs/ALGORITHMS.md, "OPDisc"): the minimiser of
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
 * The "mip" oracle (opdisc_solve_mip_exact: GLPK certified by the search)
 * must give the enumeration answer too; raw GLPK (opdisc_solve_mip) is not
 * exact, and check_mip_mismatch() keeps instances where it is wrong.
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

#include "core/opdisc.h"
#include "test_instances.h"

/* counters of the OPDISC_SEARCH_CHECK_BOUNDS build of opdisc_search.c */
extern long opdisc_search_bound_checks;
extern long opdisc_search_bound_violations;
extern long opdisc_search_shared_tasks;

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

/*
 * The threaded search (opdisc_pool.h) must return the same answer: 2 and 3
 * threads, the enumeration's w and objective, certified.
 */
static void
check_threaded(const OPDiscProblem *p, const int *wref, double best, const char *desc)
{
	for (int nt = 2; nt <= 3; nt++)
	{
		OPDiscProblem tp = *p;
		OPDiscResult res;
		int			w[64];

		tp.threads = nt;
		memset(&res, 0, sizeof(res));
		res.w = w;
		opdisc_search_bound_violations = 0;
		opdisc_solve_search(&tp, &res);
		CHECK(res.status == OPDISC_OPTIMAL && same_w(w, wref, p->d) && res.objective == best,
			  "%d-thread search: status %d, argmin differs from the reference on %s",
			  nt, (int) res.status, desc);
		CHECK(opdisc_search_bound_violations == 0,
			  "%d-thread search: %ld bounds exceed their subtree minimum on %s",
			  nt, opdisc_search_bound_violations, desc);
	}
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
	check_threaded(p, wref, best, in->desc);
	CHECK(fabs(res.solver_objective - res.objective) <=
		  OPDISC_OBJ_TOL * (1.0 + fabs(res.objective)),
		  "solver_objective %.17g vs objective %.17g on %s",
		  res.solver_objective, res.objective, in->desc);

	if (with_mip)
	{
		int			wm[16];
		OPDiscResult mres;
		OPDiscProblem mp = *p;

		/*
		 * The "mip" oracle as the extension runs it: GLPK, then the exact
		 * search from GLPK's point.  Must be the enumeration answer exactly
		 * (raw GLPK need not be: check_mip_mismatch()).
		 */
		mp.time_limit = 60;
		memset(&mres, 0, sizeof(mres));
		mres.w = wm;
		opdisc_solve_mip_exact(&mp, &mres);
		CHECK(mres.status == OPDISC_OPTIMAL && same_w(wm, wref, d) && mres.objective == best,
			  "mip_exact status %d (%s), argmin differs from enumeration on %s",
			  (int) mres.status, mres.message, in->desc);
	}
}

/* stop callback: says stop after 'left' calls */
static bool
stop_after(void *arg)
{
	int		   *left = arg;

	return (*left)-- <= 0;
}

/*
 * Stops on an instance big enough that the search takes many nodes, with
 * nthreads threads: should_stop() says stop after 'polls' calls, then a
 * time limit of tlimit seconds; both return a grid point, not certified.
 */
static void
check_stops(int nthreads, int polls, double tlimit)
{
	Instance	in;
	int			w[16];
	OPDiscResult res;
	int			left;

	rng_state = 12345;
	make_instance(&in, 12, 3, 40, 3000, 0, 2.0, 0, false);
	in.p.threads = nthreads;

	memset(&res, 0, sizeof(res));
	res.w = w;
	left = polls;
	in.p.should_stop = stop_after;
	in.p.stop_arg = &left;
	opdisc_solve_search(&in.p, &res);
	CHECK(res.status == OPDISC_INTERRUPTED, "%d thread(s): expected INTERRUPTED, got %d",
		  nthreads, (int) res.status);
	CHECK(opdisc_in_grid(&in.p, w), "%d thread(s): interrupted result w not in grid", nthreads);
	CHECK(res.objective == opdisc_objective(&in.p, w),
		  "%d thread(s): interrupted objective not recomputed", nthreads);
	CHECK(res.message[0] != '\0', "%d thread(s): interrupted result has no message", nthreads);

	in.p.should_stop = NULL;
	in.p.time_limit = tlimit;
	memset(&res, 0, sizeof(res));
	res.w = w;
	opdisc_solve_search(&in.p, &res);
	CHECK(res.status == OPDISC_TIME_LIMIT, "%d thread(s): expected TIME_LIMIT, got %d",
		  nthreads, (int) res.status);
	CHECK(opdisc_in_grid(&in.p, w), "%d thread(s): time-limited result w not in grid", nthreads);
	instance_free(&in);
}

/*
 * Threads on instances large enough to hand subtrees over (grids too large
 * to enumerate): 2, 3 and 4 threads must return the single-threaded
 * answer; stops and time limits behave as without threads.
 */
static void
check_threads(void)
{
	long		shared0 = opdisc_search_shared_tasks;
	Instance	in;
	int			w1[64],
				wt[64];
	OPDiscResult r1,
				rt;

	rng_state = 777;
	for (int t = 0; t < 12; t++)
	{
		int			d = rng_int(8, 11);
		int			B = rng_int(2, 3);

		make_instance(&in, d, B, rng_int(d, d * B), rng_int(150, 500), (t % 2) ? 1 : 3,
					  (t % 3 == 0) ? 2.0 : 20.0, (t % 2) ? 1 : -1, false);
		memset(&r1, 0, sizeof(r1));
		r1.w = w1;
		opdisc_solve_search(&in.p, &r1);
		CHECK(r1.status == OPDISC_OPTIMAL, "threads: single-thread status %d on %s",
			  (int) r1.status, in.desc);
		for (int nt = 2; nt <= 4; nt++)
		{
			in.p.threads = nt;
			memset(&rt, 0, sizeof(rt));
			rt.w = wt;
			opdisc_solve_search(&in.p, &rt);
			CHECK(rt.status == OPDISC_OPTIMAL && same_w(wt, w1, d) &&
				  rt.objective == r1.objective,
				  "%d threads: status %d, answer differs from one thread on %s",
				  nt, (int) rt.status, in.desc);
		}
		instance_free(&in);
	}
	CHECK(opdisc_search_shared_tasks > shared0,
		  "threads: no subtree was ever handed to another thread");

	/* stops reach every thread: the caller's polls, the others follow */
	check_stops(3, 2, 0.05);
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

/*
 * Former MIP mismatches, found by mip_mismatch.c: raw GLPK
 * reports OPTIMAL for a point that is not the argmin, the certified "mip"
 * oracle returns the enumeration answer.  Rebuilt from the finder's
 * generator state and instance number.  If a GLPK upgrade makes the raw
 * check fail, find new instances with ./mip_mismatch and replace these.
 */
extern void mismatch_instance(Instance *in, int t);

static void
check_mip_mismatch(void)
{
	static const struct
	{
		uint64_t	state;
		int			t;
	}			cases[] = {
		/* two one-hot groups, d = 2, B = 4, D2 = 47, noise 1e-3: GLPK's
		 * tolerances miss a difference of 4.6e-6 in the objective */
		{0x33024960712e7fe0ULL, 743},
		/* huge feature values (big-M near 1e9): GLPK's point misclassifies
		 * 5 more rows than the argmin */
		{0x5b89fad58bb7dc61ULL, 164},
	};

	for (int i = 0; i < (int) (sizeof(cases) / sizeof(cases[0])); i++)
	{
		Instance	in;
		int			wref[16],
					wm[16],
					we[16];
		double		best,
					second;
		OPDiscResult mres,
					eres;

		rng_state = cases[i].state;
		mismatch_instance(&in, cases[i].t);
		brute_force(&in.p, wref, &best, &second);
		memset(&mres, 0, sizeof(mres));
		mres.w = wm;
		opdisc_solve_mip(&in.p, &mres);
		CHECK(mres.status == OPDISC_OPTIMAL && !same_w(wm, wref, in.p.d) &&
			  mres.objective > best,
			  "former GLPK mismatch %d no longer reproduces (status %d, objective "
			  "%.17g vs %.17g) on %s", i, (int) mres.status, mres.objective, best, in.desc);
		memset(&eres, 0, sizeof(eres));
		eres.w = we;
		opdisc_solve_mip_exact(&in.p, &eres);
		CHECK(eres.status == OPDISC_OPTIMAL && same_w(we, wref, in.p.d) &&
			  eres.objective == best,
			  "certified mip oracle wrong on former mismatch %d (%s)", i, in.desc);
		instance_free(&in);
	}
}

/*
 * GLPK within mip_memory: a MIP of 20 000 rows does not fit in 1 MB, so raw
 * GLPK fails, and the "mip" oracle still returns the search's certified
 * answer; the limit goes with the failed environment (a later MIP without
 * one solves), and with a limit it fits a small MIP solves as without.
 */
static void
check_mip_memory(void)
{
	Instance	big,
				small;
	int			ws[16],
				wm[16],
				we[16];
	OPDiscResult sres,
				mres,
				eres;

	rng_state = 4242;
	make_instance(&big, 6, 2, 12, 20000, 0, 2.0, 1, false);
	memset(&sres, 0, sizeof(sres));
	sres.w = ws;
	opdisc_solve_search(&big.p, &sres);
	big.p.mip_memory = 1;
	memset(&mres, 0, sizeof(mres));
	mres.w = wm;
	opdisc_solve_mip(&big.p, &mres);
	CHECK(mres.status == OPDISC_FAILED, "a 20 000-row MIP within 1 MB: status %d (%s)",
		  (int) mres.status, mres.message);
	memset(&eres, 0, sizeof(eres));
	eres.w = we;
	opdisc_solve_mip_exact(&big.p, &eres);
	CHECK(sres.status == OPDISC_OPTIMAL && eres.status == OPDISC_OPTIMAL &&
		  same_w(we, ws, 6) && eres.objective == sres.objective,
		  "mip oracle past its memory: status %d, not the search's answer", (int) eres.status);

	make_instance(&small, 3, 2, 6, 30, 0, 0.3, 1, false);
	for (int limit = 0; limit <= 1; limit++)
	{
		small.p.mip_memory = limit ? ((size_t) 64 << 20) : 0;
		memset(&mres, 0, sizeof(mres));
		mres.w = wm;
		opdisc_solve_mip(&small.p, &mres);
		CHECK(mres.status == OPDISC_OPTIMAL, "a small MIP %s a limit after a failed one: "
			  "status %d (%s)", limit ? "with" : "without", (int) mres.status, mres.message);
	}
	instance_free(&big);
	instance_free(&small);
}

/*
 * The default grid: D2 = min(d, 4), B = floor(sqrt(min(d, D2))); a caller's B or D2
 * is kept, and the default B follows a caller's D2.
 */
static void
check_default_grid(void)
{
	static const int cases[][5] = {
		/* d, b_option, d2_option, B, D2 */
		{1, 0, 0, 1, 1}, {2, 0, 0, 1, 2}, {3, 0, 0, 1, 3}, {4, 0, 0, 2, 4},
		{5, 0, 0, 2, 4}, {23, 0, 0, 2, 4}, {64, 0, 0, 2, 4}, {4096, 0, 0, 2, 4},
		{40, 0, 40, 6, 40}, {40, 0, 10, 3, 10}, {40, 1, 0, 1, 4}, {9, 3, 9, 3, 9},
		{4, 0, 16, 2, 16}, {40, 6, 0, 6, 4},
	};

	for (int i = 0; i < (int) (sizeof(cases) / sizeof(cases[0])); i++)
	{
		int			B,
					D2;

		opdisc_default_grid(cases[i][0], cases[i][1], cases[i][2], &B, &D2);
		CHECK(B == cases[i][3] && D2 == cases[i][4],
			  "default grid d=%d B=%d D2=%d: got B=%d D2=%d, expected B=%d D2=%d",
			  cases[i][0], cases[i][1], cases[i][2], B, D2, cases[i][3], cases[i][4]);
	}
}

/*
 * The grid enumeration visits exactly the box's points within the norm bound, in
 * the box's lexicographic order, and as many as opdisc_grid_size() counts.
 */
static void
check_grid_enumeration(void)
{
	for (int d = 1; d <= 5; d++)
		for (int B = 1; B <= 3; B++)
			for (int D2 = 1; D2 <= 3 * B * B + 1; D2 += 2)
			{
				int			w[5],
							box[5];
				long		n = 0,
							nbox = 0;
				bool		same = true,
							more;

				opdisc_grid_first(w, d, B, D2);
				more = true;
				for (int k = 0; k < d; k++)
					box[k] = -B;
				for (;;)
				{
					long		n2 = 0;
					int			j;

					for (int k = 0; k < d; k++)
						n2 += (long) box[k] * box[k];
					if (n2 <= D2)
					{
						nbox++;
						same = same && more && memcmp(w, box, sizeof(int) * d) == 0;
						more = more && opdisc_grid_next(w, d, B, D2);
						n++;
					}
					for (j = d - 1; j >= 0 && box[j] == B; j--)
						box[j] = -B;
					if (j < 0)
						break;
					box[j]++;
				}
				CHECK(same && !more && n == nbox && (double) nbox == opdisc_grid_size(d, B, D2),
					  "grid enumeration d=%d B=%d D2=%d: %ld points, box filter %ld", d, B, D2, n, nbox);
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
	check_default_grid();
	check_grid_enumeration();
	check_stops(1, 0, 1e-6);
	check_threads();
	check_mip_mismatch();
	check_mip_memory();

	printf("%d random instances + ties + controls; %ld search bounds checked\n",
		   ninst, opdisc_search_bound_checks);
	CHECK(opdisc_search_bound_checks > 0, "no search bound was checked");
	printf("%d passed, %d failed\n", npass, nfail);
	return nfail == 0 ? 0 : 1;
}
