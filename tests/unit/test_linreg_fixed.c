/*
 * test_linreg_fixed.c -- linreg_accumulate (src/core/linreg.c) adds exactly what the
 * library rounding llround(ldexp(u_i u_j, 60)) into 128-bit sums gives: bit for bit on
 * rounding ties, their neighbours, the grid's edges, tiny and subnormal products, +-1,
 * signed zeros, random rows and sparse rows (the path that adds only the nonzero products,
 * at and around its density threshold and past its width limit); the staged sums (int64
 * partial sums carried every LINREG_STAGE_ROWS rows) at every row count across the carry,
 * with rows whose every product is +-2^60, the largest there is; the packed (AVX-512) loop
 * and the portable one alike, where the CPU has the first.  With "bench [rows]" it
 * times both on random rows of p = 11 (d = 10 with an intercept) and on one-hot rows of
 * p = 51 (five categorical columns of ten levels) instead: the transition's per-row core.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_rng.h>

#include "core/linreg.h"
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

/* staged sums as the aggregate's state holds them (linreg.h, "Staging") */
typedef struct Acc
{
	LinRegSum  *s;
	int64_t    *stage;
	int32_t		staged;
} Acc;

static Acc
acc_new(int p)
{
	Acc			a = {calloc(linreg_nsums(p), sizeof(LinRegSum)),
	calloc(linreg_nsums(p), sizeof(int64_t)), 0};

	return a;
}

static void
acc_free(Acc *a)
{
	free(a->s);
	free(a->stage);
}

static void
acc_row(Acc *a, const double *u, int p, double v)
{
	linreg_accumulate(a->s, a->stage, &a->staged, u, p, v);
}

/* the staged values (sums + stage, nothing carried) equal the reference's */
static int
same(const Acc *a, const linreg_int128 *b, int n)
{
	for (int k = 0; k < n; k++)
		if (linreg_sum_staged(a->s[k], a->stage[k]) != b[k])
			return 0;
	return 1;
}

/* the same after the stage is carried into the 128-bit sums */
static int
same_flushed(Acc *a, const linreg_int128 *b, int p)
{
	int			n = linreg_nsums(p);

	linreg_flush(a->s, a->stage, &a->staged, p);
	for (int k = 0; k < n; k++)
		if (linreg_sum_get(a->s[k]) != b[k] || a->stage[k] != 0)
			return 0;
	return a->staged == 0;
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
			Acc			s = acc_new(p);
			linreg_int128 r[MAXP * MAXP] = {0};
			double		u[4] = {1.0, e[a], e[b], e[(a + b) % ne]};
			double		v = e[(a * 7 + b) % ne];

			if (fabs(u[1]) <= 1 && fabs(u[2]) <= 1 && fabs(u[3]) <= 1)
			{
				acc_row(&s, u, p, v);
				reference_accumulate(r, u, p, v);
				bad += !same(&s, r, n);
			}
			acc_free(&s);
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
		Acc			s = acc_new(p);
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
			acc_row(&s, u, p, v);
			reference_accumulate(r, u, p, v);
			if (row % 9973 == 0 || row < 3 * LINREG_STAGE_ROWS)
				bad += !same(&s, r, n);
		}
		CHECK(bad == 0 && same(&s, r, n) && same_flushed(&s, r, p),
			  "p = %d: random sums differ from the reference", p);
		acc_free(&s);
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
		Acc			s = acc_new(p);
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
			acc_row(&s, u, p, v);
			reference_accumulate(r, u, p, v);
			if (row % 97 == 0 || p > 200)
				bad += !same(&s, r, n);
		}
		CHECK(bad == 0 && same(&s, r, n) && same_flushed(&s, r, p),
			  "p = %d: sparse rows' sums differ from the reference", p);
		acc_free(&s);
		free(r);
		free(u);
	}
}

/*
 * The stage at its bound: rows whose every product is +-2^60 (u = +-e_0, v =
 * +-1; p = 4 and 7 take the dense, staged loop), the same row repeated so that
 * each partial sum grows by 2^60 a row, checked at every row count up to three
 * carries and one past: a stage carried one row later would reach 2^63 and
 * wrap.  Then the same rows interleaved with sparse rows (p = 12), which add
 * into the 128-bit sums directly, and carries of a part-filled stage.
 */
static void
test_stage(void)
{
	int			ps[] = {4, 7, 12};
	double		signs[][2] = {{1, 1}, {-1, 1}, {1, -1}, {-1, -1}};

	for (size_t w = 0; w < sizeof(ps) / sizeof(ps[0]); w++)
		for (size_t g = 0; g < sizeof(signs) / sizeof(signs[0]); g++)
		{
			int			p = ps[w],
						n = linreg_nsums(p),
						bad = 0,
						dense = 0;	/* rows that went into the stage */
			Acc			s = acc_new(p);
			linreg_int128 r[MAXP * MAXP] = {0};
			double		u[MAXP] = {0},
						half[MAXP] = {0};

			u[0] = signs[g][0];
			for (int j = 0; j < 4; j++)
				half[j] = 0.5;	/* 4 of 12 nonzero: dense at p = 12 too */
			for (int row = 1; row <= 3 * LINREG_STAGE_ROWS + 1; row++)
			{
				acc_row(&s, u, p, signs[g][1]);
				reference_accumulate(r, u, p, signs[g][1]);
				dense += p < 8;
				bad += !same(&s, r, n) || s.staged != dense % LINREG_STAGE_ROWS;
				if (row % 5 == 0)
				{
					acc_row(&s, half, p, -signs[g][1]);
					reference_accumulate(r, half, p, -signs[g][1]);
					dense++;
					bad += !same(&s, r, n) || s.staged != dense % LINREG_STAGE_ROWS;
				}
			}
			CHECK(bad == 0, "p = %d, signs %g %g: staged sums differ from the reference", p,
				  signs[g][0], signs[g][1]);
			/* a carry of a part-filled stage changes no value; a second one nothing */
			CHECK(same_flushed(&s, r, p) && same_flushed(&s, r, p),
				  "p = %d: carrying the stage changed a sum", p);
			acc_free(&s);
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
	Acc			s = acc_new(p);
	linreg_int128 *r = calloc(linreg_nsums(p), sizeof(linreg_int128));
	double		t0,
				t1,
				t2;

	t0 = seconds();
	for (long i = 0; i < rows; i++)
		acc_row(&s, u + (i % POOL) * p, p, v[i % POOL]);
	t1 = seconds();
	for (long i = 0; i < rows; i++)
		reference_accumulate(r, u + (i % POOL) * p, p, v[i % POOL]);
	t2 = seconds();
	printf("p = %d %s, %ld rows: linreg_accumulate %.1f ns/row, llround(ldexp) reference %.1f ns/row\n",
		   p, what, rows, (t1 - t0) / rows * 1e9, (t2 - t1) / rows * 1e9);
	CHECK(same(&s, r, linreg_nsums(p)), "p = %d %s: benchmark sums differ from the reference", p, what);
	acc_free(&s);
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
	for (int packed = 1; packed >= 0; packed--)
	{
		if (linreg_packed(packed) != packed)
			continue;
		printf("%s loop:\n", packed ? "packed (AVX-512)" : "portable");
		time_pool("dense", dense, v, 11, rows);
		time_pool("one-hot", onehot, v, 51, rows);
	}
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
		/* the packed loop where the CPU has it, then the portable one */
		for (int packed = 1; packed >= 0; packed--)
		{
			if (linreg_packed(packed) != packed)
				continue;
			printf("# %s loop\n", packed ? "packed (AVX-512)" : "portable");
			test_edges();
			test_random(rng);
			test_sparse(rng);
			test_stage();
		}
		rc = unitcheck_report();
	}
	gsl_rng_free(rng);
	return rc;
}
