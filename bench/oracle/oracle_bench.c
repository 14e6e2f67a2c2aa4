/*-------------------------------------------------------------------------
 *
 * oracle_bench.c
 *	  Standalone benchmark of the exact OPDisc / RSPM oracles (no PostgreSQL)
 *	  on the Adult feature ladder and synthetic dense tables (bench_data.c):
 *	  Neel, Roth, Vietri, Wu, ICML 2020, Algorithms 1 and 3;
 *	  docs/ALGORITHMS.md, "OPDisc", "RSPM" and "Accounting".
 *
 * One process solves draws first_seed .. first_seed + runs - 1 of one cell
 * (set, subset, mechanism, calibration, epsilon) and prints one line per
 * draw.  delta = 1/n^2 (n = rows of the table).
 *	 OPDisc: grid tau = 1, the default grid of opdisc_default_grid()
 *			 (D2 = min(d, 4), B = floor(sqrt min(d, D2)); options -B, -D),
 *			 eta ~ N(0, sigma^2)^(d+1), sigma = opdisc_sigma(eps, delta, d, D2, cal);
 *	 RSPM:	 W = {-1, 0, 1}^d (B = 1, D2 = d), separator noise eta_{j+} on
 *			 w_j = +1 and eta_{j-} on w_j = -1 as value_cost,
 *			 sigma = rspm_sigma(eps, delta, d, cal);
 * cal = sound (the default calibration of calibrate.c) or paper (the
 * paper's closed forms, for comparison).  The noise of draw s is
 * Box-Muller from splitmix64 seeded with 0x5EED0000 + s * 1000003 +
 * (int)(eps * 1000) (the same draws as the earlier adult_bench).
 *
 * Usage: oracle_bench [-f adult.data] [-s set] [-p subset] [-S sample_seed]
 *			[-M opdisc|rspm] [-c sound|paper] [-e eps] [-r first_seed]
 *			[-n runs] [-t time_limit] [-B B] [-D D2] [-j threads] [-v]
 *			[-b (verify by enumerating the grid, small sets only)]
 *			[-m (also run the GLPK MIP oracle; bench only)]
 *			[-C mps_dir (peer row: CBC on the MIP as free MPS, bench_peer.c)]
 *			[-w (warm start: give the search the previous draw's answer)]
 *			[-O order_mode] [-L (no local search)] [-o order] (tuning)
 * Output line per draw:
 *	 seed status seconds nodes objective objective-sum(pos) w
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_data.h"
#include "bench_peer.h"
#include "core/calibrate.h"
#include "core/opdisc.h"

#ifdef OPDISC_SEARCH_TUNING
extern int *opdisc_search_forced_order;
extern int	opdisc_search_order_mode;
extern int	opdisc_search_no_local_search;
#endif

static const char *stname[] = {"OPTIMAL", "TIMELIMIT", "INTERRUPT", "FAILED"};

static double
wall(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}

typedef struct BenchOpts
{
	const char *path;
	const char *set;
	const char *subset;
	uint64_t	sample_seed;
	int			rspm;
	DPCalibration cal;
	double		eps;
	int			seed0;
	int			runs;
	double		tlimit;
	int			B;				/* -1: default */
	int			D2;				/* -1: default */
	int			threads;		/* exact search threads (-j) */
	int			use_mip;
	int			verbose;
	int			brute;
	int			warm;
	const char *cbc_dir;
	int			order[BENCH_MAXD];
	int			have_order;
} BenchOpts;

static int
parse_args(int argc, char **argv, BenchOpts *o)
{
	memset(o, 0, sizeof(*o));
	o->path = "../../data/adult/adult.data";	/* run from bench/oracle */
	o->set = "d23";
	o->subset = NULL;
	o->sample_seed = 1;
	o->cal = DP_CALIBRATION_SOUND;
	o->eps = 1.0;
	o->runs = 1;
	o->tlimit = 600;
	o->B = -1;
	o->D2 = -1;
	for (int i = 1; i < argc; i++)
	{
		const char *a = argv[i];
		const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;

		if (strcmp(a, "-m") == 0)
			o->use_mip = 1;
		else if (strcmp(a, "-v") == 0)
			o->verbose = 1;
		else if (strcmp(a, "-b") == 0)
			o->brute = 1;
		else if (strcmp(a, "-w") == 0)
			o->warm = 1;
		else if (strcmp(a, "-L") == 0)
		{
#ifdef OPDISC_SEARCH_TUNING
			opdisc_search_no_local_search = 1;
#endif
		}
		else if (v == NULL)
			return -1;
		else
		{
			i++;
			if (strcmp(a, "-f") == 0)
				o->path = v;
			else if (strcmp(a, "-s") == 0)
				o->set = v;
			else if (strcmp(a, "-p") == 0)
				o->subset = v;
			else if (strcmp(a, "-S") == 0)
				o->sample_seed = strtoull(v, NULL, 10);
			else if (strcmp(a, "-M") == 0)
				o->rspm = strcmp(v, "rspm") == 0;
			else if (strcmp(a, "-c") == 0)
				o->cal = strcmp(v, "paper") == 0 ? DP_CALIBRATION_PAPER : DP_CALIBRATION_SOUND;
			else if (strcmp(a, "-e") == 0)
				o->eps = atof(v);
			else if (strcmp(a, "-r") == 0)
				o->seed0 = atoi(v);
			else if (strcmp(a, "-n") == 0)
				o->runs = atoi(v);
			else if (strcmp(a, "-t") == 0)
				o->tlimit = atof(v);
			else if (strcmp(a, "-B") == 0)
				o->B = atoi(v);
			else if (strcmp(a, "-j") == 0)
				o->threads = atoi(v);
			else if (strcmp(a, "-D") == 0)
				o->D2 = atoi(v);
			else if (strcmp(a, "-C") == 0)
				o->cbc_dir = v;
			else if (strcmp(a, "-O") == 0)
			{
#ifdef OPDISC_SEARCH_TUNING
				opdisc_search_order_mode = atoi(v);
#endif
			}
			else if (strcmp(a, "-o") == 0)
			{
				char	   *s = (char *) v;

				while (*s && o->have_order < BENCH_MAXD)
				{
					o->order[o->have_order++] = (int) strtol(s, &s, 10);
					if (*s == ',')
						s++;
				}
			}
			else
				return -1;
		}
	}
	if (o->subset == NULL)
		o->subset = (o->set[0] == 'c') ? "2000" : "bal";
	return 0;
}

/* lexicographic enumeration of the grid, first strict minimum */
static void
verify_enum(const OPDiscProblem *p, const int *w)
{
	int			d = p->d,
				B = p->B;
	int			wb[BENCH_MAXD],
				wc[BENCH_MAXD];
	double		best = INFINITY;

	for (int j = 0; j < d; j++)
		wc[j] = -B;
	for (;;)
	{
		int			j = d - 1;

		if (opdisc_in_grid(p, wc))
		{
			double		v = opdisc_objective(p, wc);

			if (v < best)
			{
				best = v;
				memcpy(wb, wc, sizeof(int) * d);
			}
		}
		while (j >= 0 && wc[j] == B)
			wc[j--] = -B;
		if (j < 0)
			break;
		wc[j]++;
	}
	printf("  enum %-9s %-10s %-12s %-14.4f same_w=%d\n", "", "", "", best,
		   memcmp(w, wb, sizeof(int) * d) == 0);
}

static void
run_mip(const OPDiscProblem *p, const int *w)
{
	int			wm[BENCH_MAXD];
	OPDiscResult mres;
	double		t0 = wall();

	memset(&mres, 0, sizeof(mres));
	mres.w = wm;
	opdisc_solve_mip(p, &mres);
	printf("  mip  %-9s %-10.3f %-12ld %-14.4f same_w=%d\n",
		   stname[mres.status], wall() - t0, mres.nodes, mres.objective,
		   memcmp(w, wm, sizeof(int) * p->d) == 0);
}

/* draw the noise of one run into eta (OPDisc) or vcost (RSPM) */
static void
draw_noise(const BenchOpts *o, int seed, int d, double sigma, double *eta,
		   double *vcost)
{
	uint64_t	st = 0x5EED0000ULL + (uint64_t) seed * 1000003ULL
		+ (uint64_t) (o->eps * 1000);

	for (int j = 0; j <= d; j++)
		eta[j] = sigma * bench_gauss(&st);
	if (o->rspm)
	{
		/* RSPM (docs/ALGORITHMS.md, "RSPM"): separator noise as value_cost */
		for (int j = 0; j < d; j++)
		{
			vcost[3 * j + 0] = sigma * bench_gauss(&st);
			vcost[3 * j + 1] = 0.0;
			vcost[3 * j + 2] = sigma * bench_gauss(&st);
		}
	}
}

int
main(int argc, char **argv)
{
	BenchOpts	o;
	BenchData	bd;
	OPDiscProblem p;
	double		eta[BENCH_MAXD + 1];
	double		vcost[3 * BENCH_MAXD];
	int			prev[BENCH_MAXD];
	int			have_prev = 0;
	int64_t		sumpos = 0;
	int			d,
				B,
				D2;
	double		delta,
				sigma;

	if (parse_args(argc, argv, &o) != 0)
	{
		fprintf(stderr, "usage: see the header of oracle_bench.c\n");
		return 2;
	}
	if (bench_load(o.path, o.set, o.subset, o.sample_seed, &bd) != 0)
		return 2;
	d = bd.d;
	if (o.rspm)
		B = 1, D2 = d;
	else
		opdisc_default_grid(d, o.B, o.D2, &B, &D2);
	delta = 1.0 / ((double) bd.n * bd.n);
	sigma = o.rspm ? rspm_sigma(o.eps, delta, d, o.cal) :
		opdisc_sigma(o.eps, delta, d, D2, o.cal);
	for (int u = 0; u < bd.nrows; u++)
		sumpos += bd.pos[u];
	printf("# set=%s subset=%s mech=%s cal=%s d=%d n=%d (pos %d) distinct=%d B=%d D2=%d "
		   "limit=%g grid=%.3g eps=%g sigma=%.2f\n",
		   o.set, o.subset, o.rspm ? "rspm" : "opdisc", dp_calibration_name(o.cal),
		   d, bd.n, bd.npos, bd.nrows, B, D2, o.tlimit, opdisc_grid_size(d, B, D2),
		   o.eps, sigma);
	printf("# %-4s %-9s %-10s %-12s %-14s %-14s %s\n", "seed", "status", "seconds",
		   "nodes", "objective", "obj-sum(pos)", "w");
	fflush(stdout);
	if (isnan(sigma))
	{
		fprintf(stderr, "no calibration for eps=%g delta=%g\n", o.eps, delta);
		return 2;
	}

	memset(&p, 0, sizeof(p));
	p.d = d;
	p.nrows = bd.nrows;
	p.x = bd.x;
	p.pos = bd.pos;
	p.neg = bd.neg;
	p.B = B;
	p.D2 = D2;
	p.eta = eta;
	p.time_limit = o.tlimit;
	p.threads = o.threads;
	if (o.rspm)
		p.value_cost = vcost;
#ifdef OPDISC_SEARCH_TUNING
	if (o.have_order == d)
		opdisc_search_forced_order = o.order;
#endif
	for (int run = 0; run < o.runs; run++)
	{
		int			seed = o.seed0 + run;
		int			w[BENCH_MAXD];
		OPDiscResult res;

		draw_noise(&o, seed, d, sigma, eta, vcost);
		p.initial_w = (o.warm && have_prev) ? prev : NULL;
		memset(&res, 0, sizeof(res));
		res.w = w;
		opdisc_solve_search(&p, &res);
		printf("  %-4d %-9s %-10.3f %-12ld %-14.4f %-14.4f ", seed,
			   stname[res.status], res.seconds, res.nodes, res.objective,
			   res.objective - (double) sumpos);
		for (int j = 0; j < d; j++)
			printf("%s%d", j ? "," : "", w[j]);
		printf("\n");
		if (res.status != OPDISC_OPTIMAL && res.message[0])
			printf("#    %s\n", res.message);
		if (o.verbose)
			printf("#    loss=%lld solver_obj=%.6f\n", (long long) opdisc_loss(&p, w),
				   res.solver_objective);
		fflush(stdout);
		memcpy(prev, w, sizeof(int) * d);
		have_prev = 1;
		if (o.brute)
			verify_enum(&p, w);
		if (o.cbc_dir != NULL)
		{
			char		mps[1024];

			snprintf(mps, sizeof(mps), "%s/%s_e%g_s%d.mps", o.cbc_dir, o.set, o.eps, seed);
			if (opdisc_write_mip(&p, mps) != 0)
				printf("#    opdisc_write_mip(%s) failed\n", mps);
			else
				bench_peer_cbc(mps, o.tlimit, &res, d, (double) sumpos);
		}
		if (o.use_mip)
			run_mip(&p, w);
		fflush(stdout);
	}
	bench_free(&bd);
	return 0;
}
