/*-------------------------------------------------------------------------
 *
 * adult_bench.c
 *	  Standalone benchmark of the exact OPDisc oracles on the paper's Adult
 *	  instance (Neel et al., ICML 2020, Section 5 / Appendix D.2;
 *	  ALGORITHMS.md sections 1 and 7).  No PostgreSQL.
 *
 * Data: /work/shared/data/adult/adult.data (override with -f).  Balanced
 * subset: all 7841 rows with income ">50K" (label +1) plus 7841 rows with
 * "<=50K" drawn without replacement by a seeded Fisher-Yates shuffle
 * (splitmix64, seed -S, default 1), n = 15682.
 *
 * Feature sets (one-hot in the category order of adult.names, then
 * continuous features scaled to [0, 1]):
 *	 d4	 = sex(2) + capital-gain/99999 + hours-per-week/99
 *	 d9	 = race(5), sex(2) + capital-gain/99999, hours-per-week/99
 *	 d15 = relationship(6), race, sex + capital-gain, hours
 *	 d23 = marital-status(7), relationship, race, sex
 *		   + capital-gain/99999, capital-loss/4356, hours-per-week/99
 * quantised a = round(64 x) (Q = 64), rows deduplicated with counts.
 * Grid: B = floor(sqrt(d)), D2 = d.  Noise: delta = 1/n^2,
 * sigma = 7 D2 sqrt(ln(1/delta)) / epsilon (Algorithm 1 with G = tau = 1),
 * eta ~ N(0, sigma^2)^(d+1) drawn by Box-Muller from splitmix64 seeded with
 * the run seed.
 *
 * Usage: adult_bench [-f file] [-s d4|d9|d15|d23] [-e eps] [-r first_seed]
 *					  [-n runs] [-t time_limit] [-m (also run GLPK MIP)]
 *					  [-o order (comma-separated column list)] [-v]
 *					  [-b (verify by enumerating the grid; d4/d9 only)]
 *					  [-O order_mode (0 default, 1 |eta|, 2 greedy)] [-L (no local search)]
 *					  [-S sample_seed] [-R (RSPM: W = {-1,0,1}^d, separator noise
 *					   as value_cost, sigma = 7 sqrt(2d ln(1/delta)) / eps)]
 *					  [-C mps_dir (peer row: write the MIP of opdisc_solve_mip as
 *					   free MPS with opdisc_write_mip to mps_dir/<set>_e<eps>_s<seed>.mps
 *					   and solve it with "cbc FILE -sec T -threads 1 -solve -solu SOL
 *					   -quit", T = the -t limit; prints a "cbc" line per run, see
 *					   peer_cbc())]
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "opdisc.h"

static double wall(void);

/*
 * Peer row (issue 3): solve the MPS file with CBC's command line and compare
 * with the search's certified answer.  The MIP's objective has the constant
 * C = sum_u p_u (build_mip: glp_set_obj_coef(lp, 0, C)); glp_write_mps writes
 * it as the objective row's RHS entry +C, and CBC 2.10 reads an objective RHS
 * r as the constant -r (measured on d4: CBC's value = opdisc_objective - 2C).
 * So the comparable value is CBC's "Objective value" + 2C; "diff" below is
 * that minus the search's opdisc_objective (0 up to rounding when CBC agrees).
 * Prints: cbc STATUS wall_s nodes cbc_objective diff=... same_w=0/1/-1
 */
static void
peer_cbc(const char *mps, double tlimit, const OPDiscResult *ref, int d,
		 double constant)
{
	char		cmd[4096],
				sol[1100],
				line[4096];
	char		status[64] = "UNKNOWN";
	double		obj = NAN;
	long		nodes = -1;
	int			wc[64];
	int			same_w = -1;
	double		t0 = wall(),
				secs;
	FILE	   *f;

	snprintf(sol, sizeof(sol), "%s.sol", mps);
	remove(sol);
	snprintf(cmd, sizeof(cmd), "cbc '%s' -sec %g -threads 1 -solve -solu '%s' -quit 2>&1",
			 mps, tlimit, sol);
	f = popen(cmd, "r");
	if (f == NULL)
	{
		perror("popen cbc");
		return;
	}
	while (fgets(line, sizeof(line), f) != NULL)
	{
		if (strncmp(line, "Result - ", 9) == 0)
		{
			if (strstr(line, "Optimal solution found"))
				strcpy(status, "OPTIMAL");
			else if (strstr(line, "Stopped on time"))
				strcpy(status, "TIMELIMIT");
			else if (strstr(line, "infeasible"))
				strcpy(status, "INFEASIBLE");
			else
			{
				line[strcspn(line, "\n")] = '\0';
				snprintf(status, sizeof(status), "OTHER(%.40s)", line + 9);
				for (char *c = status; *c; c++)
					if (*c == ' ')
						*c = '_';
			}
		}
		else if (strncmp(line, "Objective value:", 16) == 0)
			obj = atof(line + 16);
		else if (strncmp(line, "Enumerated nodes:", 17) == 0)
			nodes = atol(line + 17);
	}
	pclose(f);
	secs = wall() - t0;

	/* w from the solution file: lines "index name value reduced_cost", w_j is C<j+1> */
	f = fopen(sol, "r");
	if (f != NULL && strcmp(status, "OPTIMAL") == 0)
	{
		memset(wc, 0, sizeof(wc));
		same_w = 1;
		while (fgets(line, sizeof(line), f) != NULL)
		{
			int			idx;
			char		name[256];
			double		v;

			if (sscanf(line, "%d %255s %lf", &idx, name, &v) == 3 &&
				name[0] == 'C' && atoi(name + 1) >= 1 && atoi(name + 1) <= d)
				wc[atoi(name + 1) - 1] = (int) lround(v);
		}
		for (int j = 0; j < d; j++)
			if (wc[j] != ref->w[j])
				same_w = 0;
	}
	if (f != NULL)
		fclose(f);
	printf("  cbc  %-9s %-10.3f %-12ld %-14.4f diff=%.3g same_w=%d\n", status, secs, nodes,
		   obj, obj + 2.0 * constant - ref->objective, same_w);
	fflush(stdout);
}

#ifdef OPDISC_SEARCH_TUNING
extern int *opdisc_search_forced_order;
extern int	opdisc_search_order_mode;
extern int	opdisc_search_no_local_search;
#endif

#define MAXROWS 40000
#define MAXD 32

static const char *marital[] = {"Married-civ-spouse", "Divorced", "Never-married",
	"Separated", "Widowed", "Married-spouse-absent", "Married-AF-spouse"};
static const char *relationship[] = {"Wife", "Own-child", "Husband",
	"Not-in-family", "Other-relative", "Unmarried"};
static const char *race[] = {"White", "Asian-Pac-Islander", "Amer-Indian-Eskimo",
	"Other", "Black"};
static const char *sex[] = {"Female", "Male"};

typedef struct Rec
{
	int			marital,
				rel,
				race,
				sex;
	double		cg,
				cl,
				hours;
	int			label;			/* +1 / -1 */
} Rec;

static uint64_t
splitmix(uint64_t *st)
{
	uint64_t	z = (*st += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static double
unif(uint64_t *st)
{
	return ((double) (splitmix(st) >> 11) + 0.5) / 9007199254740992.0;
}

static double
gauss(uint64_t *st)
{
	double		u1 = unif(st),
				u2 = unif(st);

	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static int
lookup(const char *s, const char **tab, int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(s, tab[i]) == 0)
			return i;
	return -1;
}

static int
read_adult(const char *path, Rec *recs)
{
	FILE	   *f = fopen(path, "r");
	char		line[4096];
	int			n = 0;

	if (f == NULL)
	{
		perror(path);
		exit(2);
	}
	while (fgets(line, sizeof(line), f) != NULL && n < MAXROWS)
	{
		char	   *fld[16];
		int			nf = 0;
		char	   *s = line;
		Rec			r;

		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '\0')
			continue;
		/* split on commas, strip the space after each comma */
		while (nf < 16)
		{
			char	   *e = strchr(s, ',');

			while (*s == ' ')
				s++;
			fld[nf++] = s;
			if (e == NULL)
				break;
			*e = '\0';
			s = e + 1;
		}
		if (nf != 15)
			continue;
		r.marital = lookup(fld[5], marital, 7);
		r.rel = lookup(fld[7], relationship, 6);
		r.race = lookup(fld[8], race, 5);
		r.sex = lookup(fld[9], sex, 2);
		r.cg = atof(fld[10]);
		r.cl = atof(fld[11]);
		r.hours = atof(fld[12]);
		r.label = strcmp(fld[14], ">50K") == 0 ? 1 : -1;
		if (r.marital < 0 || r.rel < 0 || r.race < 0 || r.sex < 0)
		{
			fprintf(stderr, "bad record: %s\n", line);
			exit(2);
		}
		recs[n++] = r;
	}
	fclose(f);
	return n;
}

static int	cmp_d;

static int
row_cmp(const void *a, const void *b)
{
	const int64_t *x = a,
			   *y = b;

	for (int j = 0; j < cmp_d; j++)
		if (x[j] != y[j])
			return x[j] < y[j] ? -1 : 1;
	return 0;
}

static int
encode(const Rec *r, const char *set, double *x)
{
	int			d = 0;

	if (strcmp(set, "d23") == 0)
	{
		for (int i = 0; i < 7; i++)
			x[d++] = (r->marital == i);
	}
	if (strcmp(set, "d23") == 0 || strcmp(set, "d15") == 0)
	{
		for (int i = 0; i < 6; i++)
			x[d++] = (r->rel == i);
	}
	if (strcmp(set, "d4") != 0)
	{
		for (int i = 0; i < 5; i++)
			x[d++] = (r->race == i);
	}
	for (int i = 0; i < 2; i++)
		x[d++] = (r->sex == i);
	x[d++] = r->cg / 99999.0;
	if (strcmp(set, "d23") == 0)
		x[d++] = r->cl / 4356.0;
	x[d++] = r->hours / 99.0;
	return d;
}

static double
wall(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}

int
main(int argc, char **argv)
{
	const char *path = "/work/shared/data/adult/adult.data";
	const char *set = "d23";
	double		eps = 1.0;
	int			seed0 = 0,
				runs = 1;
	double		tlimit = 600;
	int			use_mip = 0,
				verbose = 0,
				brute = 0,
				rspm = 0;
	const char *cbc_dir = NULL;
	uint64_t	sample_seed = 1;
	static Rec	recs[MAXROWS];
	static Rec	bal[MAXROWS];
	int			nrec,
				npos = 0,
				nbal = 0;
	int		   *negidx;
	int			nneg = 0;
	int64_t    *rows;			/* nbal x (d + 1): features then label */
	int64_t    *x,
			   *pos,
			   *neg;
	int			d = 0,
				nrows = 0;
	int			order[MAXD];
	int			have_order = 0;

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "-f") == 0 && i + 1 < argc)
			path = argv[++i];
		else if (strcmp(argv[i], "-s") == 0 && i + 1 < argc)
			set = argv[++i];
		else if (strcmp(argv[i], "-e") == 0 && i + 1 < argc)
			eps = atof(argv[++i]);
		else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
			seed0 = atoi(argv[++i]);
		else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
			tlimit = atof(argv[++i]);
		else if (strcmp(argv[i], "-S") == 0 && i + 1 < argc)
			sample_seed = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "-m") == 0)
			use_mip = 1;
		else if (strcmp(argv[i], "-v") == 0)
			verbose = 1;
		else if (strcmp(argv[i], "-O") == 0 && i + 1 < argc)
		{
#ifdef OPDISC_SEARCH_TUNING
			opdisc_search_order_mode = atoi(argv[i + 1]);
#endif
			i++;
		}
		else if (strcmp(argv[i], "-L") == 0)
		{
#ifdef OPDISC_SEARCH_TUNING
			opdisc_search_no_local_search = 1;
#endif
		}
		else if (strcmp(argv[i], "-b") == 0)
			brute = 1;
		else if (strcmp(argv[i], "-R") == 0)
			rspm = 1;
		else if (strcmp(argv[i], "-C") == 0 && i + 1 < argc)
			cbc_dir = argv[++i];
		else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
		{
			char	   *s = argv[++i];

			while (*s && have_order < MAXD)
			{
				order[have_order++] = (int) strtol(s, &s, 10);
				if (*s == ',')
					s++;
			}
		}
		else
		{
			fprintf(stderr, "usage: see the header of adult_bench.c\n");
			return 2;
		}
	}

	/* balanced subset */
	nrec = read_adult(path, recs);
	negidx = malloc(sizeof(int) * nrec);
	for (int i = 0; i < nrec; i++)
	{
		if (recs[i].label > 0)
		{
			bal[nbal++] = recs[i];
			npos++;
		}
		else
			negidx[nneg++] = i;
	}
	{
		uint64_t	st = sample_seed;

		for (int i = 0; i < npos && i < nneg; i++)
		{
			int			j = i + (int) (splitmix(&st) % (uint64_t) (nneg - i));
			int			t = negidx[i];

			negidx[i] = negidx[j];
			negidx[j] = t;
			bal[nbal++] = recs[negidx[i]];
		}
	}
	free(negidx);

	/* encode, quantise, deduplicate */
	if (nbal <= 0)
	{
		fprintf(stderr, "no rows read from %s\n", path);
		return 2;
	}
	{
		double		xv[MAXD];

		d = encode(&bal[0], set, xv);
	}
	rows = malloc(sizeof(int64_t) * (size_t) nbal * (size_t) (d + 1));
	for (int i = 0; i < nbal; i++)
	{
		double		xv[MAXD];

		encode(&bal[i], set, xv);
		for (int j = 0; j < d; j++)
			rows[(int64_t) i * (d + 1) + j] = (int64_t) llround(64.0 * xv[j]);
		rows[(int64_t) i * (d + 1) + d] = bal[i].label;
	}
	cmp_d = d;
	qsort(rows, nbal, sizeof(int64_t) * (d + 1), row_cmp);
	x = malloc(sizeof(int64_t) * (size_t) nbal * (size_t) d);
	pos = calloc((size_t) nbal, sizeof(int64_t));
	neg = calloc((size_t) nbal, sizeof(int64_t));
	if (rows == NULL || x == NULL || pos == NULL || neg == NULL)
	{
		fprintf(stderr, "out of memory\n");
		return 2;
	}
	for (int i = 0; i < nbal; i++)
	{
		int64_t    *r = rows + (int64_t) i * (d + 1);

		if (i == 0 || row_cmp(r, r - (d + 1)) != 0)
		{
			memcpy(x + (int64_t) nrows * d, r, sizeof(int64_t) * d);
			nrows++;
		}
		if (r[d] > 0)
			pos[nrows - 1]++;
		else
			neg[nrows - 1]++;
	}

	{
		int			B = rspm ? 1 : (int) floor(sqrt((double) d) + 1e-9);
		int			D2 = d;
		double		delta = 1.0 / ((double) nbal * nbal);
		double		sigma = rspm ?
			7.0 * sqrt(2.0 * d * log(1.0 / delta)) / eps :	/* RSPM, m = 2d */
			7.0 * D2 * sqrt(log(1.0 / delta)) / eps;
		double		eta[MAXD + 1];
		double		vcost[MAXD * 3];
		OPDiscProblem p;
		int64_t		sumpos = 0;

		for (int u = 0; u < nrows; u++)
			sumpos += pos[u];
		printf("# set=%s d=%d n=%d (pos %d) distinct=%d B=%d D2=%d limit=%g grid=%.3g eps=%g sigma=%.2f\n",
			   set, d, nbal, npos, nrows, B, D2, tlimit, opdisc_grid_size(d, B, D2), eps, sigma);
		printf("# %-4s %-9s %-10s %-12s %-14s %-14s %s\n", "seed", "status", "seconds",
			   "nodes", "objective", "obj-sum(pos)", "w");
		fflush(stdout);

		memset(&p, 0, sizeof(p));
		p.d = d;
		p.nrows = nrows;
		p.x = x;
		p.pos = pos;
		p.neg = neg;
		p.B = B;
		p.D2 = D2;
		p.eta = eta;
		p.time_limit = tlimit;
#ifdef OPDISC_SEARCH_TUNING
		if (have_order == d)
			opdisc_search_forced_order = order;
#endif
		for (int run = 0; run < runs; run++)
		{
			uint64_t	st = 0x5EED0000ULL + (uint64_t) (seed0 + run) * 1000003ULL
				+ (uint64_t) (eps * 1000);
			int			w[MAXD];
			OPDiscResult res;
			static const char *stname[] = {"OPTIMAL", "TIMELIMIT", "INTERRUPT", "FAILED"};

			for (int j = 0; j <= d; j++)
				eta[j] = sigma * gauss(&st);
			if (rspm)
			{
				/*
				 * RSPM (ALGORITHMS.md section 2): separator noise eta_{j+}
				 * on w_j = +1, eta_{j-} on w_j = -1, as value_cost.
				 */
				for (int j = 0; j < d; j++)
				{
					vcost[3 * j + 0] = sigma * gauss(&st);
					vcost[3 * j + 1] = 0.0;
					vcost[3 * j + 2] = sigma * gauss(&st);
				}
				p.value_cost = vcost;
				p.norm_cost = NULL;
			}
			memset(&res, 0, sizeof(res));
			res.w = w;
			opdisc_solve_search(&p, &res);
			printf("  %-4d %-9s %-10.3f %-12ld %-14.4f %-14.4f ", seed0 + run,
				   stname[res.status], res.seconds, res.nodes, res.objective,
				   res.objective - (double) sumpos);
			for (int j = 0; j < d; j++)
				printf("%s%d", j ? "," : "", w[j]);
			printf("\n");
			if (res.status != OPDISC_OPTIMAL && res.message[0])
				printf("#    %s\n", res.message);
			if (verbose)
				printf("#    loss=%lld solver_obj=%.6f\n", (long long) opdisc_loss(&p, w),
					   res.solver_objective);
			fflush(stdout);
			if (brute)
			{
				int			wb[MAXD],
							wc[MAXD];
				double		best = INFINITY;

				/* lexicographic enumeration, first strict minimum */
				for (int j = 0; j < d; j++)
					wc[j] = -B;
				for (;;)
				{
					int			j = d - 1;

					if (opdisc_in_grid(&p, wc))
					{
						double		v = opdisc_objective(&p, wc);

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
			if (cbc_dir != NULL)
			{
				char		mps[1024];

				snprintf(mps, sizeof(mps), "%s/%s_e%g_s%d.mps", cbc_dir, set, eps,
						 seed0 + run);
				if (opdisc_write_mip(&p, mps) != 0)
					printf("#    opdisc_write_mip(%s) failed\n", mps);
				else
					peer_cbc(mps, tlimit, &res, d, (double) sumpos);
			}
			if (use_mip)
			{
				int			wm[MAXD];
				OPDiscResult mres;
				double		t0 = wall();

				memset(&mres, 0, sizeof(mres));
				mres.w = wm;
				opdisc_solve_mip(&p, &mres);
				printf("  mip  %-9s %-10.3f %-12ld %-14.4f same_w=%d\n",
					   stname[mres.status], wall() - t0, mres.nodes, mres.objective,
					   memcmp(w, wm, sizeof(int) * d) == 0);
				fflush(stdout);
			}
		}
	}
	free(rows);
	free(x);
	free(pos);
	free(neg);
	return 0;
}
