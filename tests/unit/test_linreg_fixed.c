/*
 * test_linreg_fixed.c -- linreg_accumulate (src/core/linreg.c) adds exactly what the
 * library rounding llround(ldexp(u_i u_j, 60)) into 128-bit sums gives: bit for bit on
 * rounding ties, their neighbours, the grid's edges, tiny and subnormal products, +-1,
 * signed zeros, random rows and sparse rows (the path that adds only the nonzero products,
 * at and around its density threshold and past its width limit).  With "bench [rows]" it
 * times both on random rows of p = 11 (d = 10 with an intercept) and on one-hot rows of
 * p = 51 (five categorical columns of ten levels) instead: the transition's per-row core.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_rng.h>

#include "linreg.h"
#include "unitcheck.h"

#define MAXP 16

/* the reference: the rounding of the library, summed in __int128 */
static void
reference_accumulate(linreg_int128 *sums, const double *u, int p, double v)
{
	int			k = 0;

	for (int i = 0; i < p; i++)
		for (int j = i; j < p; j++)
			sums[k++] += llround(ldexp(u[i] * u[j], LINREG_FRAC_BITS));
	for (int i = 0; i < p; i++)
		sums[k++] += llround(ldexp(u[i] * v, LINREG_FRAC_BITS));
	sums[k] += llround(ldexp(v * v, LINREG_FRAC_BITS));
}

static int
same(const LinRegSum *a, const linreg_int128 *b, int n)
{
	for (int k = 0; k < n; k++)
		if (linreg_sum_get(a[k]) != b[k])
			return 0;
	return 1;
}

/* values whose products with 1 hit the rounding's hard cases */
static int
edge_values(double *e)
{
	int			n = 0;
	double		base[] = {0.0, 1.0, 0.5, 0x1p-61, 3 * 0x1p-61, 0x1p-60, 0x1p-62,
		0x1p-100, 0x1p-1074, 0x1p-1022, 0x1p-8 + 0x1p-61, 0x1p-9 + 0x1p-61,
	0x1p-7 + 5 * 0x1p-61, 0.7, 1.0 / 3.0};

	for (size_t b = 0; b < sizeof(base) / sizeof(base[0]); b++)
	{
		double		x = base[b];

		e[n++] = x;
		e[n++] = -x;
		e[n++] = nextafter(x, 2.0);
		e[n++] = -nextafter(x, 2.0);
		if (x > 0)
		{
			e[n++] = nextafter(x, 0.0);
			e[n++] = -nextafter(x, 0.0);
		}
	}
	return n;
}

static void
test_edges(void)
{
	double		e[128];
	int			ne = edge_values(e);
	int			p = 4;
	int			n = linreg_nsums(p);
	int			bad = 0;

	/* u = (1, e_a, e_b, e_c): u_0 u_j and u_0 v are the edge values themselves */
	for (int a = 0; a < ne; a++)
		for (int b = 0; b < ne; b += 3)
		{
			LinRegSum	s[MAXP * MAXP] = {{0}};
			linreg_int128 r[MAXP * MAXP] = {0};
			double		u[4] = {1.0, e[a], e[b], e[(a + b) % ne]};
			double		v = e[(a * 7 + b) % ne];

			if (fabs(u[1]) > 1 || fabs(u[2]) > 1 || fabs(u[3]) > 1)
				continue;
			linreg_accumulate(s, u, p, v);
			reference_accumulate(r, u, p, v);
			bad += !same(s, r, n);
		}
	CHECK(bad == 0, "%d edge rows differ from llround(ldexp(x, 60))", bad);
}

/* random normalised rows of several widths, with carries through the low word */
static void
test_random(gsl_rng *rng)
{
	for (int p = 1; p <= MAXP; p += 5)
	{
		int			n = linreg_nsums(p);
		LinRegSum	s[MAXP * MAXP] = {{0}};
		linreg_int128 r[MAXP * MAXP] = {0};
		int			bad = 0;

		for (int row = 0; row < 200000; row++)
		{
			double		u[MAXP],
						v = 2 * gsl_rng_uniform(rng) - 1;

			for (int j = 0; j < p; j++)
				u[j] = (2 * gsl_rng_uniform(rng) - 1) / sqrt((double) p);
			if (row % 1000 == 0)
				u[row % p] = ldexp(1.0, -(int) (row % 1070));	/* tiny and subnormal */
			linreg_accumulate(s, u, p, v);
			reference_accumulate(r, u, p, v);
			if (row % 9973 == 0)
				bad += !same(s, r, n);
		}
		CHECK(bad == 0 && same(s, r, n), "p = %d: random sums differ from the reference", p);
	}
}

/*
 * sparse rows: m nonzero coordinates of p, the others +0.0 or -0.0; m around the
 * sparse path's threshold (4 m <= p) and widths on both sides of its limit (1024)
 */
static void
test_sparse(gsl_rng *rng)
{
	int			widths[] = {4, 12, 51, 200, 1024, 1025};

	for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++)
	{
		int			p = widths[w];
		int			n = linreg_nsums(p);
		LinRegSum  *s = calloc(n, sizeof(LinRegSum));
		linreg_int128 *r = calloc(n, sizeof(linreg_int128));
		double	   *u = malloc(sizeof(double) * p);
		int			ms[] = {0, 1, 2, p / 4, p / 4 + 1, p / 2};
		int			bad = 0;
		int			rows = p > 200 ? 60 : 3000;	/* the reference costs p^2 a row */

		for (int row = 0; row < rows; row++)
		{
			int			m = ms[row % 6];
			double		v = row % 7 == 0 ? -0.0 : 2 * gsl_rng_uniform(rng) - 1;

			for (int j = 0; j < p; j++)
				u[j] = gsl_rng_uniform(rng) < 0.5 ? 0.0 : -0.0;
			for (int k = 0; k < m; k++)
			{
				int			j = (int) gsl_rng_uniform_int(rng, p);

				/* one-hot levels (1/sqrt(m)) and arbitrary reals */
				u[j] = row % 2 ? 1.0 / sqrt((double) (m > 0 ? m : 1))
					: (2 * gsl_rng_uniform(rng) - 1) / sqrt((double) m);
			}
			linreg_accumulate(s, u, p, v);
			reference_accumulate(r, u, p, v);
			if (row % 97 == 0 || p > 200)
				bad += !same(s, r, n);
		}
		CHECK(bad == 0 && same(s, r, n), "p = %d: sparse rows' sums differ from the reference", p);
		free(s);
		free(r);
		free(u);
	}
}

static double
seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

enum {POOL = 1024};

/* ns per row of linreg_accumulate and of the reference over POOL rows u (p each), v, repeated */
static void
time_pool(const char *what, const double *u, const double *v, int p, long rows)
{
	LinRegSum  *s = calloc(linreg_nsums(p), sizeof(LinRegSum));
	linreg_int128 *r = calloc(linreg_nsums(p), sizeof(linreg_int128));
	double		t0,
				t1,
				t2;

	t0 = seconds();
	for (long i = 0; i < rows; i++)
		linreg_accumulate(s, u + (i % POOL) * p, p, v[i % POOL]);
	t1 = seconds();
	for (long i = 0; i < rows; i++)
		reference_accumulate(r, u + (i % POOL) * p, p, v[i % POOL]);
	t2 = seconds();
	printf("p = %d %s, %ld rows: linreg_accumulate %.1f ns/row, llround(ldexp) reference %.1f ns/row\n",
		   p, what, rows, (t1 - t0) / rows * 1e9, (t2 - t1) / rows * 1e9);
	CHECK(same(s, r, linreg_nsums(p)), "p = %d %s: benchmark sums differ from the reference", p, what);
	free(s);
	free(r);
}

/*
 * The benchmark: random dense rows of p = 11 (d = 10 with an intercept), then
 * one-hot rows of p = 51 (five categorical columns of ten levels, an intercept)
 */
static int
bench(gsl_rng *rng, long rows)
{
	static double dense[POOL * 11],
				onehot[POOL * 51],
				v[POOL];

	for (int i = 0; i < POOL; i++)
	{
		for (int j = 0; j < 11; j++)
			dense[i * 11 + j] = (2 * gsl_rng_uniform(rng) - 1) / sqrt(11.0);
		for (int c = 0; c < 5; c++)
			onehot[i * 51 + c * 10 + (int) gsl_rng_uniform_int(rng, 10)] = 1.0 / sqrt(6.0);
		onehot[i * 51 + 50] = 1.0 / sqrt(6.0);
		v[i] = 2 * gsl_rng_uniform(rng) - 1;
	}
	time_pool("dense", dense, v, 11, rows);
	time_pool("one-hot", onehot, v, 51, rows);
	return unitcheck_report();
}

int
main(int argc, char **argv)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int			rc;

	gsl_rng_set(rng, 20261123);
	if (argc > 1 && strcmp(argv[1], "bench") == 0)
		rc = bench(rng, argc > 2 ? atol(argv[2]) : 10000000L);
	else
	{
		test_edges();
		test_random(rng);
		test_sparse(rng);
		rc = unitcheck_report();
	}
	gsl_rng_free(rng);
	return rc;
}
