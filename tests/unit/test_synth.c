/*
 * test_synth.c -- the synthesizer's core (src/core/synth*.c): tables against naive
 * loops, junction trees' running intersection, the state's counts and merge, the
 * estimation recovering noise-free marginals, marginals across the tree against the
 * full joint, exact row totals of the sampler, and the rounds' accounting.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_rng.h>

#include "unitcheck.h"
#include "core/dpnoise.h"
#include "core/synthaim.h"
#include "core/synthci.h"
#include "core/synthdomain.h"
#include "core/synthfactor.h"
#include "core/synthjt.h"
#include "core/synthpgm.h"
#include "core/synthrows.h"
#include "core/synthscan.h"
#include "core/synthsample.h"
#include "core/synthstate.h"
#include "core/synthwork.h"

static double
urand(void)
{
	return (double) (unitcheck_next64() >> 11) / 9007199254740992.0;
}

static SynthSet
rand_set(int d, int maxsize)
{
	SynthSet	s = 0;
	int			n = 1 + (int) (unitcheck_next64() % maxsize);

	while (synth_set_size(s) < n)
		s |= SYNTH_BIT(unitcheck_next64() % d);
	return s;
}

/* the value of f at the full assignment codes */
static double
at(const SynthFactor *f, const int *codes)
{
	return f->val[synth_factor_index(f, codes)];
}

/* iterate every assignment of d columns */
static bool
next_codes(int d, const int *sizes, int *codes)
{
	for (int j = d - 1; j >= 0; j--)
	{
		if (++codes[j] < sizes[j])
			return true;
		codes[j] = 0;
	}
	return false;
}

static void
test_factors(void)
{
	int			sizes[6] = {2, 3, 4, 2, 3, 5};

	for (int trial = 0; trial < 200; trial++)
	{
		SynthSet	big = rand_set(6, 4),
					small = big & rand_set(6, 6),
					other = rand_set(6, 3);
		SynthFactor B, S, S2, P, O;
		int			codes[6] = {0};
		double		err = 0.0;

		synth_factor_init(&B, big, sizes, 0.0);
		synth_factor_init(&S, small, sizes, 0.0);
		synth_factor_init(&O, other, sizes, 0.0);
		for (int64_t i = 0; i < B.ncells; i++)
			B.val[i] = urand();
		for (int64_t i = 0; i < O.ncells; i++)
			O.val[i] = urand() + 0.5;
		synth_factor_sum_to(&B, &S);
		synth_factor_copy(&S2, &S);
		memset(S2.val, 0, sizeof(double) * S2.ncells);
		memset(codes, 0, sizeof(codes));
		do
		{
			bool		first = true;

			/* each cell of B once: only at codes zero outside big */
			for (int j = 0; j < 6; j++)
				if (!(big & SYNTH_BIT(j)) && codes[j])
					first = false;
			if (first)
				S2.val[synth_factor_index(&S2, codes)] += at(&B, codes);
		} while (next_codes(6, sizes, codes));
		for (int64_t i = 0; i < S.ncells; i++)
			err = fmax(err, fabs(S.val[i] - S2.val[i]));
		CHECK(err < 1e-12, "sum_to %llx -> %llx: %g", (unsigned long long) big,
			  (unsigned long long) small, err);

		/* product over the union, then mul / div / add by a subset */
		synth_factor_product(&B, &O, sizes, &P);
		memset(codes, 0, sizeof(codes));
		err = 0.0;
		do
			err = fmax(err, fabs(at(&P, codes) - at(&B, codes) * at(&O, codes)));
		while (next_codes(6, sizes, codes));
		CHECK(err < 1e-12, "product: %g", err);
		synth_factor_free(&P);
		synth_factor_copy(&P, &B);
		synth_factor_mul(&P, &S);
		synth_factor_div(&P, &S);
		synth_factor_add(&P, &S, 2.0);
		memset(codes, 0, sizeof(codes));
		err = 0.0;
		do
			err = fmax(err, fabs(at(&P, codes) - (at(&B, codes) + 2.0 * at(&S, codes))));
		while (next_codes(6, sizes, codes));
		CHECK(err < 1e-9, "mul, div, add: %g", err);
		synth_factor_free(&P);
		synth_factor_free(&B);
		synth_factor_free(&S);
		synth_factor_free(&S2);
		synth_factor_free(&O);
	}
}

/* every set covered; every column's cliques form a connected subtree */
static bool
tree_valid(const SynthTree *t, int d, const SynthSet *sets, int n)
{
	for (int i = 0; i < n; i++)
		if (synth_tree_find(t, sets[i]) < 0)
			return false;
	for (int v = 0; v < d; v++)
	{
		int			roots = 0;

		/* cliques holding v whose parent does not: exactly one */
		for (int c = 0; c < t->ncliques; c++)
			if ((t->clique[c] & SYNTH_BIT(v)) &&
				(t->parent[c] < 0 || !(t->clique[t->parent[c]] & SYNTH_BIT(v))))
				roots++;
		if (roots != 1)
			return false;
	}
	for (int k = 1; k < t->ncliques; k++)
	{
		bool		seen = false;

		for (int q = 0; q < k; q++)
			seen |= t->order[q] == t->parent[t->order[k]];
		if (!seen)
			return false;
	}
	return true;
}

static void
test_tree(void)
{
	int			sizes[12];

	for (int j = 0; j < 12; j++)
		sizes[j] = 2 + j % 4;
	for (int trial = 0; trial < 300; trial++)
	{
		SynthSet	sets[20];
		int			n = 1 + (int) (unitcheck_next64() % 20);
		SynthTree	t;
		int64_t		cells = 0;

		for (int i = 0; i < n; i++)
			sets[i] = rand_set(12, 3);
		CHECK(synth_tree_build(12, sizes, sets, n, INT64_C(1) << 40, &t), "tree built");
		CHECK(tree_valid(&t, 12, sets, n), "running intersection, trial %d", trial);
		for (int c = 0; c < t.ncliques; c++)
			cells += synth_set_cells(t.clique[c], sizes, INT64_C(1) << 40);
		CHECK(cells == t.cells, "cells %lld", (long long) t.cells);
		CHECK(!synth_tree_build(12, sizes, sets, n, t.cells - 1, &t), "the cap refuses");
	}
}

static void
test_state(void)
{
	int			levels[5] = {3, 2, 4, 5, 2};
	SynthSet	cand[10];
	int			nc = 0;
	SynthLayout L,
				small;
	int64_t    *all,
			   *a,
			   *b;
	int			rows[400][5];

	for (int x = 0; x < 5; x++)
		for (int y = x + 1; y < 5; y++)
			for (int z = y + 1; z < 5; z++)
				cand[nc++] = SYNTH_BIT(x) | SYNTH_BIT(y) | SYNTH_BIT(z);
	CHECK(synth_layout_build(5, levels, cand, nc, 1 << 20, &L) == SYNTH_OK, "layout");
	CHECK(L.nstored == 10, "all triples stored: %d", L.nstored);
	all = calloc(L.cells, sizeof(int64_t));
	a = calloc(L.cells, sizeof(int64_t));
	b = calloc(L.cells, sizeof(int64_t));
	for (int i = 0; i < 400; i++)
	{
		for (int j = 0; j < 5; j++)
			rows[i][j] = (int) (unitcheck_next64() % levels[j]);
		synth_state_add(&L, all, rows[i]);
		synth_state_add(&L, i % 3 ? a : b, rows[i]);
	}
	synth_state_merge(&L, a, b);
	CHECK(memcmp(a, all, sizeof(int64_t) * L.cells) == 0, "merged halves = one scan");
	/* the hash path, folding often (16 slots) or once, gives the same counts */
	for (int slots = 16; slots <= 4096; slots *= 256)
	{
		SynthRows	h;
		int64_t    *viah = calloc(L.cells, sizeof(int64_t));

		CHECK(synth_rows_usable(&L) && synth_rows_init(&h, &L, viah, slots) == SYNTH_OK,
			  "hash");
		for (int i = 0; i < 400; i++)
			synth_rows_add(&h, rows[i]);
		synth_rows_fold(&h);
		CHECK(memcmp(viah, all, sizeof(int64_t) * L.cells) == 0,
			  "distinct rows folded = one scan (%d slots, %lld folds)", slots,
			  (long long) h.folds);
		synth_rows_free(&h);
		free(viah);
	}
	/* batches of 1, 7 or 1000 rows, flushed mid-way or not, give the same counts */
	for (int batch = 1; batch <= 1000; batch = batch == 1 ? 7 : batch == 7 ? 1000 : 1001)
	{
		SynthScan	sc;
		int64_t    *viab = calloc(L.cells, sizeof(int64_t)),
				   *ref = calloc(L.cells, sizeof(int64_t));

		CHECK(synth_scan_init(&sc, &L, viab, batch) == SYNTH_OK, "scan");
		for (int i = 0; i < 400; i++)
		{
			synth_scan_add(&sc, rows[i]);
			if (i == 200)
				synth_scan_flush(&sc);
		}
		synth_scan_flush(&sc);
		CHECK(memcmp(viab, all, sizeof(int64_t) * L.cells) == 0,
			  "batches of %d rows = one scan", batch);
		/* rows with counts, mixed with single rows */
		for (int i = 0; i < 400; i++)
		{
			synth_scan_add_n(&sc, rows[i], i % 3);
			synth_state_add_n(&L, ref, rows[i], i % 3);
		}
		synth_scan_flush(&sc);
		synth_state_merge(&L, ref, all);
		CHECK(memcmp(viab, ref, sizeof(int64_t) * L.cells) == 0,
			  "counted rows in batches of %d = one scan", batch);
		synth_scan_free(&sc);
		free(viab);
		free(ref);
	}
	for (int trial = 0; trial < 30; trial++)
	{
		SynthSet	s = rand_set(5, 3);
		int64_t		out[64],
					ref[64] = {0};
		int			map1[2] = {0, 0};	/* column 1 merged into one level */
		const int  *maps[5] = {NULL, map1, NULL, NULL, NULL};
		int			ml[5] = {3, 1, 4, 5, 2};
		SynthFactor f;

		synth_state_marginal(&L, all, s, maps, ml, out);
		synth_factor_init(&f, s, ml, 0.0);
		for (int i = 0; i < 400; i++)
		{
			int			c[5];

			memcpy(c, rows[i], sizeof(c));
			c[1] = 0;
			ref[synth_factor_index(&f, c)]++;
		}
		CHECK(memcmp(out, ref, sizeof(int64_t) * f.ncells) == 0, "marginal of %llx",
			  (unsigned long long) s);
		synth_factor_free(&f);
	}
	/* a cap that fits the singles and some pairs only */
	CHECK(synth_layout_build(5, levels, cand, nc, 16 + 30, &small) == SYNTH_OK, "small layout");
	CHECK(small.cells <= 46, "within the cap: %lld", (long long) small.cells);
	for (int j = 0; j < 5; j++)
		CHECK(synth_layout_covers(&small, SYNTH_BIT(j)) >= 0, "single %d covered", j);
	synth_layout_free(&small);
	CHECK(synth_layout_build(5, levels, cand, nc, 15, &small) == SYNTH_TOOBIG,
		  "singles over the cap: refused");
	synth_layout_free(&L);
	free(all);
	free(a);
	free(b);
}

/* a random tree-structured distribution over d columns: its exact joint */
static double *
random_joint(int d, const int *sizes, int64_t *ncells)
{
	int64_t		n = 1;
	double	   *p,
				z = 0.0;
	int			codes[8] = {0};
	double		pair[8][8][8];

	for (int j = 0; j < d; j++)
		n *= sizes[j];
	for (int j = 0; j < d; j++)
		for (int a = 0; a < 8; a++)
			for (int b = 0; b < 8; b++)
				pair[j][a][b] = exp(2.0 * urand());
	p = malloc(sizeof(double) * n);
	for (int64_t x = 0; x < n; x++)
	{
		double		v = 1.0;

		for (int j = 1; j < d; j++)
			v *= pair[j][codes[j - 1]][codes[j]];	/* a chain */
		v *= pair[0][codes[0]][codes[d - 1]];	/* and a cycle: not a tree */
		p[x] = v;
		z += v;
		next_codes(d, sizes, codes);
	}
	for (int64_t x = 0; x < n; x++)
		p[x] /= z;
	*ncells = n;
	return p;
}

/*
 * Rows whose levels' product passes 2^62 (Adult with sub-bins: 15 columns,
 * 5.7e18) take the hash in two keys, with the counts of one scan; past two
 * keys the hash is not usable
 */
static void
test_state_two_keys(void)
{
	int			levels[15] = {60, 9, 80, 17, 16, 8, 15, 7, 6, 3, 80, 80, 40, 42, 3},
				wide[24];
	SynthSet	cand[14];
	SynthLayout L,
				W;
	int64_t    *all;
	int			rows[2000][15];

	for (int j = 0; j < 14; j++)
		cand[j] = SYNTH_BIT(j) | SYNTH_BIT(j + 1);
	CHECK(synth_layout_build(15, levels, cand, 14, 1 << 20, &L) == SYNTH_OK, "layout");
	all = calloc(L.cells, sizeof(int64_t));
	for (int i = 0; i < 2000; i++)
	{
		for (int j = 0; j < 15; j++)
			rows[i][j] = (int) (unitcheck_next64() % (i % 2 ? 2 : levels[j]));
		synth_state_add(&L, all, rows[i]);
	}
	CHECK(synth_rows_usable(&L), "two keys usable");
	for (int slots = 16; slots <= 4096; slots *= 256)
	{
		SynthRows	h;
		int64_t    *viah = calloc(L.cells, sizeof(int64_t));

		CHECK(synth_rows_init(&h, &L, viah, slots) == SYNTH_OK && h.words == 2, "two keys");
		for (int i = 0; i < 2000; i++)
			synth_rows_add(&h, rows[i]);
		synth_rows_fold(&h);
		CHECK(memcmp(viah, all, sizeof(int64_t) * L.cells) == 0,
			  "two keys folded = one scan (%d slots, %lld folds)", slots, (long long) h.folds);
		synth_rows_free(&h);
		free(viah);
	}
	CHECK(synth_rows_bytes(&L, 4096) > 4096 * 24, "two keys' bytes");
	free(all);
	synth_layout_free(&L);
	for (int j = 0; j < 24; j++)
		wide[j] = 100;
	CHECK(synth_layout_build(24, wide, NULL, 0, 1 << 20, &W) == SYNTH_OK, "wide layout");
	CHECK(!synth_rows_usable(&W), "100^24 does not fit two keys");
	synth_layout_free(&W);
}

static void
exact_marginal(const double *p, int d, const int *sizes, SynthFactor *f, double total)
{
	int			codes[8] = {0};
	int64_t		x = 0;

	memset(f->val, 0, sizeof(double) * f->ncells);
	do
		f->val[synth_factor_index(f, codes)] += total * p[x++];
	while (next_codes(d, sizes, codes));
}

static void
test_estimation(void)
{
	int			sizes[5] = {3, 2, 4, 3, 2};
	int64_t		n;
	double	   *p = random_joint(5, sizes, &n);
	SynthMeasure meas[6];
	SynthSet	sets[6] = {0x3, 0x6, 0xC, 0x18, 0x11, 0x1F & ~0x1F};
	SynthModel	m;
	SynthFactor f;
	double		err = 0.0;
	int			codes[5] = {0};

	/* noise-free pair marginals of the cycle 0-1-2-3-4-0 (plus nothing) */
	for (int i = 0; i < 5; i++)
	{
		synth_factor_init(&f, sets[i], sizes, 0.0);
		exact_marginal(p, 5, sizes, &f, 1000.0);
		meas[i].set = sets[i];
		meas[i].sigma2 = 1.0;
		meas[i].var = NULL;
		meas[i].y = f.val;
	}
	CHECK(synth_model_init(&m, 5, sizes, 1000.0) == SYNTH_OK, "model");
	CHECK(synth_model_add(&m, meas, 5, 1 << 20) == SYNTH_OK, "measurements added");
	CHECK(synth_model_fit(&m, meas, 5, 3000, NULL, NULL) == SYNTH_OK, "fit");
	CHECK(synth_model_loss(&m, meas, 5) < 1e-3, "consistent marginals are matched: loss %g",
		  synth_model_loss(&m, meas, 5));
	/* every marginal against the model's full joint, across the tree too */
	{
		SynthFactor joint;
		SynthStatus st = synth_model_marginal(&m, 0x1F, &joint);

		CHECK(st == SYNTH_OK && fabs(synth_factor_total(&joint) - 1000.0) < 1e-6,
			  "the joint sums to the total");
		for (int trial = 0; trial < 40; trial++)
		{
			SynthSet	s = rand_set(5, 3);
			SynthFactor a,
						b;

			synth_model_marginal(&m, s, &a);
			synth_factor_init(&b, s, sizes, 0.0);
			synth_factor_sum_to(&joint, &b);
			err = 0.0;
			for (int64_t x = 0; x < a.ncells; x++)
				err = fmax(err, fabs(a.val[x] - b.val[x]));
			CHECK(err < 1e-8, "marginal of %llx: %g", (unsigned long long) s, err);
			synth_factor_free(&a);
			synth_factor_free(&b);
		}
		/* all at once (conditioned passes) */
		{
			SynthSet	many[40];
			SynthFactor out[40];
			bool		same = true;

			for (int i = 0; i < 40; i++)
				many[i] = rand_set(5, 3);
			CHECK(synth_model_marginals(&m, many, 40, out) == SYNTH_OK, "marginals at once");
			for (int i = 0; i < 40; i++)
			{
				SynthFactor b;

				synth_factor_init(&b, many[i], sizes, 0.0);
				synth_factor_sum_to(&joint, &b);
				for (int64_t x = 0; x < b.ncells; x++)
					same &= fabs(out[i].val[x] - b.val[x]) < 1e-8;
				synth_factor_free(&b);
				synth_factor_free(&out[i]);
			}
			CHECK(same, "marginals at once = the joint's");
		}
		/* the sampler: its rows' root-clique counts within one of the model's */
		{
			int		   *rows = malloc(sizeof(int) * 5 * 1000);
			gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
			int			root = m.tree.order[0];
			SynthFactor cnt;

			gsl_rng_set(rng, 7);
			CHECK(synth_sample(&m, 1000, rng, rows) == SYNTH_OK, "sampled");
			synth_factor_init(&cnt, m.tree.clique[root], sizes, 0.0);
			for (int i = 0; i < 1000; i++)
				cnt.val[synth_factor_index(&cnt, rows + 5 * i)] += 1.0;
			err = 0.0;
			for (int64_t x = 0; x < cnt.ncells; x++)
				err = fmax(err, fabs(cnt.val[x] - m.belief[root].val[x]));
			CHECK(err < 1.0 + 1e-9, "root clique rows within one of the model: %g", err);
			synth_factor_free(&cnt);
			free(rows);
			gsl_rng_free(rng);
		}
		synth_factor_free(&joint);
	}
	(void) codes;
	synth_model_free(&m);
	for (int i = 0; i < 5; i++)
		free(meas[i].y);
	free(p);
}

static void
test_round_counts(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double		p[7] = {0.3, 0.0, 1.7, 2.2, 0.05, 0.0, 1.0};
	double		mean[7] = {0};
	int64_t		cnt[7];
	bool		exact = true,
				near = true;

	for (int t = 0; t < 20000; t++)
	{
		int64_t		g = 1 + t % 13,
					sum = 0;

		synth_round_counts(p, 7, g, rng, cnt);
		for (int i = 0; i < 7; i++)
		{
			sum += cnt[i];
			near &= fabs(cnt[i] - g * p[i] / 5.25) < 1.0;
			if (g == 13)
				mean[i] += cnt[i];
		}
		exact &= sum == g;
	}
	CHECK(exact, "the counts add up to g");
	CHECK(near, "each count within one row of its expectation");
	for (int i = 0; i < 7; i++)
		CHECK(fabs(mean[i] / (20000 / 13) - 13 * p[i] / 5.25) < 0.05, "unbiased, cell %d: %g", i,
			  mean[i] / (20000 / 13));
	gsl_rng_free(rng);
}

/*
 * Cells a forged model can hold: infinite, NaN, negative, and finite ones
 * whose sum overflows.  The counts still add up to g, the finite positive
 * cells share them in proportion, the rest get none (the old loop never
 * ended: NaN expectations, then no cell eligible for the rows left over);
 * SIGALRM ends a run that hangs.
 */
static void
test_round_counts_extreme(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double		p[6] = {INFINITY, NAN, -1.0, 1e308, 1e308, 5e307};
	double		all_bad[3] = {NAN, -INFINITY, 0.0};
	int64_t		cnt[6];
	bool		exact = true,
				share = true;

	alarm(20);
	for (int t = 0; t < 2000; t++)
	{
		int64_t		g = 1 + t % 50,
					sum = 0;

		synth_round_counts(p, 6, g, rng, cnt);
		for (int i = 0; i < 6; i++)
			sum += cnt[i];
		exact &= sum == g;
		share &= cnt[0] == 0 && cnt[1] == 0 && cnt[2] == 0 &&
			fabs(cnt[3] - g * 0.4) < 1.0 && fabs(cnt[5] - g * 0.2) < 1.0;
		synth_round_counts(all_bad, 3, g, rng, cnt);
		exact &= cnt[0] + cnt[1] + cnt[2] == g;
		share &= llabs(cnt[0] - cnt[2]) <= 1;
	}
	alarm(0);
	CHECK(exact, "the counts add up to g with non-finite and overflowing cells");
	CHECK(share, "finite positive cells share the rows in proportion, the others none");
	gsl_rng_free(rng);
}

/* a table with structure: column j copies column j-1 with probability 0.7 */
static void
test_calibration(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int64_t		c[3] = {5, 0, 1000};
	double		y[3],
				sum = 0.0,
				sq = 0.0;

	for (int k = 1; k <= 50; k += 7)
		for (double rho = 1e-4; rho < 10; rho *= 3.7)
		{
			double		s2 = synth_sigma2(rho, k);

			CHECK(s2 == ceil(s2) && s2 >= 1, "integer variance");
			CHECK(synth_release_rho(s2, k) <= rho && synth_release_rho(s2, k) > rho * 0.999,
				  "k %d rho %g: cost %g", k, rho, synth_release_rho(s2, k));
			CHECK(fabs(synth_count_variance(s2) - (double) k * k / synth_release_rho(s2, k)) < 1e-9 * s2,
				  "variance and cost agree");
		}
	CHECK(synth_sigma2(1e-30, 1) == 0.0, "outside the sampler's range: 0");
	gsl_rng_set(rng, 3);
	for (int t = 0; t < 20000; t++)
	{
		synth_measure_draw(rng, c, 3, (uint64_t) synth_sigma2(0.01, 1), y);
		CHECK(y[0] * 256.0 == floor(y[0] * 256.0), "on the lattice");
		sum += y[2] - 1000.0;
		sq += (y[2] - 1000.0) * (y[2] - 1000.0);
	}
	CHECK(fabs(sum / 20000) < 0.05 * 10 && fabs(sq / 20000 / 100.0 - 1.0) < 0.05,
		  "mean %g, variance %g (100)", sum / 20000, sq / 20000);
	gsl_rng_free(rng);
}

/* the rounds' specification of the tests: AIM's alpha, the model cap 2^16, no label */
static void
spec_init(SynthSpec *sp, int d, const int *levels, const SynthLayout *L, const int64_t *counts,
		  double rho, int64_t k, int iters_round, int iters_final)
{
	memset(sp, 0, sizeof(*sp));
	sp->d = d;
	memcpy(sp->levels, levels, sizeof(int) * d);
	sp->layout = L;
	sp->counts = counts;
	sp->rho = rho;
	sp->k = k;
	sp->max_model_cells = 1 << 16;
	sp->iters_round = iters_round;
	sp->iters_final = iters_final;
	sp->alpha = 0.9;
	sp->label = -1;
}

static void
test_rounds(void)
{
	int			levels[6] = {3, 3, 4, 2, 3, 5};
	SynthSet	cand[20];
	int			nc = 0;
	SynthLayout L;
	int64_t    *counts;
	SynthSpec	sp;
	SynthResult r1,
				r2;
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);

	for (int x = 0; x < 6; x++)
		for (int y = x + 1; y < 6; y++)
			for (int z = y + 1; z < 6; z++)
				cand[nc++] = SYNTH_BIT(x) | SYNTH_BIT(y) | SYNTH_BIT(z);
	synth_layout_build(6, levels, cand, nc, 1 << 20, &L);
	counts = calloc(L.cells, sizeof(int64_t));
	for (int i = 0; i < 20000; i++)
	{
		int			c[6];

		c[0] = (int) (unitcheck_next64() % 3);
		for (int j = 1; j < 6; j++)
			c[j] = urand() < 0.7 ? c[j - 1] % levels[j] : (int) (unitcheck_next64() % levels[j]);
		synth_state_add(&L, counts, c);
	}
	spec_init(&sp, 6, levels, &L, counts, 0.05, 3, 20, 100);
	sp.rounds_factor = 16;
	sp.first_share = 0.9 / 16;
	gsl_rng_set(rng, 11);
	CHECK(synth_aim_run(&sp, rng, &r1) == SYNTH_OK, "rounds ran");
	{
		double		rho = 0.0;

		for (int j = 0; j < 6; j++)
			rho += 9.0 / r1.meas[j].sigma2;	/* the variance in counts */
		for (int t = 0; t < r1.nrounds; t++)
		{
			double		s2 = r1.rounds[t].sigma2 * 65536.0;

			CHECK(s2 == ceil(s2) && 9.0 / r1.rounds[t].sigma2 <= 0.9 * 0.05,
				  "integer lattice variance, k^2 / sigma2 within a round's share");
			rho += 9.0 / r1.rounds[t].sigma2 + r1.rounds[t].epsilon * r1.rounds[t].epsilon / 8;
		}
		CHECK(fabs(rho - r1.rho_spent) < 1e-12, "the record adds up: %g %g", rho, r1.rho_spent);
		CHECK(r1.rho_spent <= 0.05 && r1.rho_spent > 0.04999, "spent %g of 0.05", r1.rho_spent);
		CHECK(r1.nrounds >= 2 && r1.nmeas == 6 + r1.nrounds, "%d rounds", r1.nrounds);
		CHECK(fabs(r1.total - 20000) < 200, "the noisy count %g", r1.total);
	}
	/* the same seed, the same release */
	gsl_rng_set(rng, 11);
	synth_aim_run(&sp, rng, &r2);
	CHECK(r1.nmeas == r2.nmeas && r1.meas[r1.nmeas - 1].y[0] == r2.meas[r2.nmeas - 1].y[0],
		  "seeded runs repeat");
	/* intervals: a measured marginal's cells, another's bound; coverage over seeds */
	{
		int			cover = 0,
					cells = 0,
					sel = 0,
					covsel = 0;

		for (int seed = 100; seed < 130; seed++)
		{
			SynthResult r3;
			double		est[64],
						lo[64],
						hi[64];
			int64_t		truth[64];
			SynthIntervalKind kind;
			SynthSet	q[2] = {SYNTH_BIT(2), SYNTH_BIT(1) | SYNTH_BIT(4)};

			gsl_rng_set(rng, seed);
			if (synth_aim_run(&sp, rng, &r3) != SYNTH_OK)
				continue;
			for (int k = 0; k < 2; k++)
			{
				int64_t		n = synth_set_cells(q[k], levels, 1 << 20);

				synth_ci_marginal(&r3, q[k], est, lo, hi, &kind);
				synth_state_marginal(&L, counts, q[k], NULL, levels, truth);
				for (int64_t x = 0; x < n; x++)
				{
					bool		in = lo[x] <= truth[x] && truth[x] <= hi[x] && lo[x] <= est[x] &&
						est[x] <= hi[x];

					if (kind == SYNTH_CI_MEASURED)
					{
						cells++;
						cover += in;
					}
					else if (kind == SYNTH_CI_SELECTION)
					{
						sel++;
						covsel += in && isfinite(hi[x]);
					}
				}
			}
			synth_result_free(&r3);
		}
		CHECK(cells > 100 && cover >= 0.95 * cells, "measured cells covered: %d of %d", cover,
			  cells);
		CHECK(covsel == sel, "selection bounds cover: %d of %d", covsel, sel);
	}
	/* the chain's pairs carry the signal: a pair of neighbours is selected */
	{
		bool		pair = false;

		for (int t = 0; t < r1.nrounds; t++)
			for (int j = 1; j < 6; j++)
				pair |= (r1.rounds[t].chosen & (SYNTH_BIT(j) | SYNTH_BIT(j - 1))) ==
					(SYNTH_BIT(j) | SYNTH_BIT(j - 1));
		CHECK(pair, "a correlated pair selected");
	}
	synth_result_free(&r1);
	synth_result_free(&r2);
	synth_layout_free(&L);
	free(counts);
	gsl_rng_free(rng);
}

/*
 * Potentials far apart (a chain {0,1} - {1,2} whose cliques favour opposite
 * levels of column 1 by up to 1e300 in theta): propagation's messages reach
 * the subnormals, and every marginal must still be finite, non-negative and
 * add up to the total (a NaN here reached a released model's JSON); at most
 * the total where both sides are past exp's range (linear space: 0).
 */
static void
test_extreme_potentials(void)
{
	static const double mags[] = {0, 300, 700, 708, 710, 715, 745, 800, 1e6, 1e300};
	int			sizes[3] = {2, 2, 2},
				bad = 0,
				runs = 0;
	double		y[4] = {1, 1, 1, 1};
	SynthMeasure me[2] = {{.set = 0x3, .sigma2 = 1, .y = y}, {.set = 0x6, .sigma2 = 1, .y = y}};

	for (int i = 0; i < 10; i++)
		for (int j = 0; j < 10; j++)
			for (int sg = 0; sg < 4; sg++)
			{
				double		a = (sg & 1 ? -1 : 1) * mags[i],
							b = (sg & 2 ? -1 : 1) * mags[j];
				SynthModel	m;

				synth_model_init(&m, 3, sizes, 100);
				synth_model_add(&m, me, 2, 1 << 20);
				for (int k = 0; k < m.nsets; k++)
				{
					double	   *v = m.theta[k].val;
					bool		first = m.theta[k].set == 0x3;

					/* theta_01(x0, x1) favours x1 = 1, theta_12(x1, x2) x1 = 0 */
					v[0] = first ? -a : 0;
					v[1] = 0;
					v[2] = first ? -a : -b;
					v[3] = first ? 0 : -b;
				}
				synth_model_fit(&m, me, 0, 0, NULL, NULL);
				for (SynthSet s = 1; s < 8; s++)
				{
					SynthFactor out;
					double		sum = 0.0;

					runs++;
					if (synth_model_marginal(&m, s, &out) != SYNTH_OK)
					{
						bad++;
						continue;
					}
					for (int64_t x = 0; x < out.ncells; x++)
						sum += isfinite(out.val[x]) && out.val[x] >= 0 ? out.val[x] : NAN;
					/* both sides past exp's range: every product underflows, all 0 */
					bad += !(sum <= 100 * (1 + 1e-9) &&
							 (fmin(mags[i], mags[j]) > 710 || sum >= 100 * (1 - 1e-9)));
					synth_factor_free(&out);
				}
				synth_model_free(&m);
			}
	CHECK(bad == 0, "extreme potentials: %d of %d marginals not finite or not the total", bad, runs);
}

/*
 * Noisy counts below 0 draw their cells' log-potentials towards -infinity;
 * each step moves theta by at most MAX_MOVE (1000), so theta stays within
 * 1000 times the steps taken (an unbounded step grew 1.5 times a step: on
 * this 12-row table theta passed 1e134 in 500 steps, 1e307 in 10 000).
 */
static void
test_bounded_steps(void)
{
	int			levels[5] = {5, 4, 3, 17, 17};
	SynthLayout L;
	int64_t    *counts;
	SynthSpec	sp;
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double		worst = 0.0;
	SynthSet	w[64];
	int			nw = synth_workload_default(5, -1, 64, w);

	synth_layout_build(5, levels, w, nw, 1 << 22, &L);
	counts = calloc(L.cells, sizeof(int64_t));
	for (int g = 1, n = 0; n < 12; g++)
	{
		int			c[5] = {g % 4, g % 3, (g * 3) % 5 > 1, (g * 7) % 9 * 15 / 8, (g * 5) % 7 * 15 / 6};

		if (g % 4 < 3 && ++n)
			synth_state_add(&L, counts, c);
	}
	spec_init(&sp, 5, levels, &L, counts, 0.0053, 1, 50, 500);
	sp.rounds_factor = 16;
	sp.first_share = 0.2;
	for (int seed = 1; seed <= 3; seed++)
	{
		SynthResult res;
		double		mx = 0.0;

		gsl_rng_set(rng, seed);
		CHECK(synth_aim_run(&sp, rng, &res) == SYNTH_OK, "bounded steps: seed %d ran", seed);
		for (int i = 0; i < res.model.nsets; i++)
			for (int64_t x = 0; x < res.model.theta[i].ncells; x++)
				mx = fmax(mx, isfinite(res.model.theta[i].val[x]) ? fabs(res.model.theta[i].val[x]) : HUGE_VAL);
		worst = fmax(worst, mx / (1000.0 * (double) (res.model.iterations + 1)));
		synth_result_free(&res);
	}
	CHECK(worst <= 1.0, "bounded steps: |theta| within 1000 a step (worst %g of it)", worst);
	synth_layout_free(&L);
	free(counts);
	gsl_rng_free(rng);
}

/* the scan's codes and offsets as computed before synth_coding_init: the reference */
static int
ref_code(const SynthColumn *c, double x, bool isnull)
{
	int			n = synth_column_scan_levels(c) - (c->nullable ? 1 : 0);
	double		t;

	if (isnull || isnan(x))
		return c->nullable ? n : 0;
	if (c->kind == SYNTH_COL_LEVELS)
		return x >= 0 && x < n ? (int) x : 0;
	t = (x - c->lo) / (c->hi - c->lo) * n;
	if (!(t >= 0.0))
		return 0;
	return t >= n ? n - 1 : (int) t;
}

static int64_t
ref_offset(const SynthColumn *c, int code, double x)
{
	int			n = synth_column_scan_levels(c) - (c->nullable ? 1 : 0);
	double		w = (c->hi - c->lo) / n,
				t;

	x = x < c->lo ? c->lo : (x > c->hi ? c->hi : x);
	t = nearbyint((x - (c->lo + w * code)) / w * (double) (1 << SYNTH_OFFSET_BITS));
	return t < 0.0 ? 0 : (t > (1 << SYNTH_OFFSET_BITS) ? 1 << SYNTH_OFFSET_BITS : (int64_t) t);
}

/*
 * synth_coding_code and synth_coding_offset (the scan's, constants computed
 * once) give the reference's values bit for bit: at every bin edge and the
 * doubles beside it, the ends, outside, NaN, NULL, random values
 */
static void
test_coding_reference(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	SynthColumn cols[] = {
		{.kind = SYNTH_COL_BINS, .lo = 0, .hi = 100, .nbins = 10, .nullable = true},
		{.kind = SYNTH_COL_BINS, .lo = -3.7, .hi = 1e5 + 0.1, .nbins = 7},
		{.kind = SYNTH_COL_QUANTILE, .lo = 17, .hi = 90, .nbins = 15, .nsub = 60, .nullable = true},
		{.kind = SYNTH_COL_QUANTILE, .lo = 0, .hi = 1500000, .nbins = 20, .nsub = 80},
		{.kind = SYNTH_COL_QUANTILE, .lo = 1e-3, .hi = 0.3, .nbins = 3, .nsub = 999},
		{.kind = SYNTH_COL_LEVELS, .nlevels = 5, .nullable = true},
	};
	long		bad = 0,
				n = 0;

	for (size_t k = 0; k < sizeof(cols) / sizeof(cols[0]); k++)
	{
		const SynthColumn *c = &cols[k];
		SynthCoding s;
		int			bins = synth_column_scan_levels(c) - (c->nullable ? 1 : 0);

		synth_coding_init(c, &s);
		for (int i = -2; i < 4 * bins + 40000; i++)
		{
			double		x;

			if (i < 0)
				x = i == -2 ? NAN : -INFINITY;
			else if (i < 3 * (bins + 1))
			{
				/* an edge, and the doubles just below and above it */
				double		e = c->kind == SYNTH_COL_LEVELS ? i / 3 :
					c->lo + (c->hi - c->lo) * (i / 3) / bins;

				x = i % 3 == 0 ? e : nextafter(e, i % 3 == 1 ? -INFINITY : INFINITY);
			}
			else if (i < 4 * bins + 3)
				x = c->lo + (c->hi - c->lo) * (i - 3 * bins) / bins - 1e-9;
			else
				x = c->lo - 1 + (c->hi - c->lo + 2) * gsl_rng_uniform(rng);
			for (int isnull = 0; isnull < 2; isnull++)
			{
				int			code = synth_coding_code(&s, x, isnull);

				n++;
				bad += code != ref_code(c, x, isnull) || code != synth_column_code(c, x, isnull);
				if (!isnull && !isnan(x) && c->kind == SYNTH_COL_QUANTILE)
					bad += synth_coding_offset(&s, code, x) != ref_offset(c, code, x) ||
						synth_column_offset(c, code, x) != ref_offset(c, code, x);
			}
		}
	}
	CHECK(bad == 0, "scan codes and offsets as the reference's: %ld of %ld differ", bad, n);
	gsl_rng_free(rng);
}

static void
test_domains(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	SynthColumn b = {.kind = SYNTH_COL_BINS, .lo = 0, .hi = 100, .nbins = 10, .integer = true,
	.nullable = true};
	SynthColumn q = {.kind = SYNTH_COL_QUANTILE, .lo = 0, .hi = 1000, .nbins = 8, .nsub = 64};
	double		noisy[64];
	bool		inside = true,
				ints = true,
				mono = true;

	CHECK(synth_column_valid(&b) && synth_column_valid(&q), "valid declarations");
	CHECK(synth_column_scan_levels(&b) == 11, "bins plus NULL");
	CHECK(synth_column_code(&b, -5, false) == 0 && synth_column_code(&b, 100, false) == 9 &&
		  synth_column_code(&b, 55, false) == 5 && synth_column_code(&b, 0, true) == 10 &&
		  synth_column_code(&b, NAN, false) == 10, "codes, clamps, NULL");
	for (int t = 0; t < 2000; t++)
	{
		int			lv = t % 10;
		double		x = synth_column_draw(&b, lv, rng);

		inside &= synth_column_code(&b, x, false) == lv;
		ints &= x == floor(x);
	}
	CHECK(inside && ints, "integer draws fall in their bin");
	/* a skewed column: most mass in the first sub-bin */
	for (int i = 0; i < 64; i++)
		noisy[i] = i == 0 ? 5000 : (i < 20 ? 100 - i : (i == 40 ? -30 : 3));
	CHECK(synth_quantile_bins(&q, noisy), "quantile bins");
	CHECK(q.nmodel >= 1 && q.nmodel <= 8, "at most B bins: %d", q.nmodel);
	for (int i = 1; i < 64; i++)
		mono &= q.map[i] >= q.map[i - 1] && q.map[i] <= q.map[i - 1] + 1;
	CHECK(mono && q.map[0] == 0 && q.map[63] == q.nmodel - 1, "runs of sub-bins");
	for (int k = 0; k < q.nmodel; k++)
		CHECK(q.edges[k] < q.edges[k + 1], "edges increase");
	CHECK(q.edges[0] == 0 && q.edges[q.nmodel] == 1000, "edges span [lo, hi]");
	inside = true;
	for (int t = 0; t < 4000; t++)
	{
		int			lv = t % q.nmodel;
		double		x = synth_column_draw(&q, lv, rng);

		inside &= x >= q.edges[lv] && x <= q.edges[lv + 1] &&
			q.map[synth_column_code(&q, x, false)] == lv && !(x > 15.625 * 40 && x < 15.625 * 41);
	}
	CHECK(inside, "draws within their bin, never in a sub-bin of noisy count <= 0");
	synth_column_free(&q);
	gsl_rng_free(rng);
}

/*
 * 0.7.0's quantile columns: the denoised sub-bin weights keep a dense range
 * at the sub-bins' width, a sparse one coarser, a noise-level range none;
 * every run of sub-bins without weight is a bin of its own, shut (never
 * drawn); no weight at all gives B equal-width bins
 */
static void
test_domains_denoise(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double		drawn[64],
				w[64];
	bool		dense = true,
				empty = true,
				inside = true;
	SynthColumn q = {.kind = SYNTH_COL_QUANTILE, .lo = 0, .hi = 1000, .nbins = 8, .nsub = 64,
	.merge_empty = true};
	SynthColumn e = q;

	/* 300 rows a sub-bin below 21, noise of at most 60 above (sd 50) */
	for (int i = 0; i < 64; i++)
		drawn[i] = i < 21 ? 300 : (i % 2 ? 60 : -40);
	synth_quantile_denoise(drawn, 64, 50, w);
	for (int i = 0; i < 64; i++)
	{
		dense &= i >= 21 || w[i] == 300;
		empty &= i < 21 || w[i] == 0;
	}
	CHECK(dense && empty, "denoise: the dense range kept as drawn, the noise-level range 0");
	CHECK(synth_quantile_bins(&q, w) && synth_column_set_shut(&q, NULL, NULL, 0),
		  "quantile bins of the kept weights");
	CHECK(q.nmodel <= 8 && q.shut != NULL && q.shut[q.nmodel - 1] &&
		  q.edges[q.nmodel - 1] == 21 * 15.625, "the empty run is the last bin, shut: %d bins", q.nmodel);
	for (int t = 0; t < 4000; t++)
	{
		int			lv = t % (q.nmodel - 1);
		double		x = synth_column_draw(&q, lv, rng);

		inside &= !q.shut[lv] && x >= q.edges[lv] && x <= q.edges[lv + 1] && x <= 21 * 15.625;
	}
	CHECK(inside, "draws of the open bins within the kept range");
	{
		double		y[8] = {0};

		/* measured at 3 sd or more, the bin without weight opens (drawn uniformly) */
		int			near = 0,
					below = 0;

		y[q.nmodel - 1] = 30;
		CHECK(synth_column_set_shut(&q, y, NULL, 100.0) && q.shut == NULL, "a measured bin opens");
		/* at the top end: a decay up from its lower edge, ratio 30 / (30 + 300) */
		for (int t = 0; t < 4000; t++)
		{
			double		x = synth_column_draw(&q, q.nmodel - 1, rng);

			near += x < 23 * 15.625;
			below += x < 21 * 15.625;
		}
		CHECK(q.decay[q.nmodel - 1] > 0 && below == 0 && near > 3800,
			  "the open end bin drawn near the kept range: %d of 4000 within two sub-bins", near);
		y[q.nmodel - 1] = 29;
		CHECK(synth_column_set_shut(&q, y, NULL, 100.0) && q.shut != NULL && q.shut[q.nmodel - 1],
			  "below 3 sd it stays shut");
	}
	/* 40 rows a sub-bin below 32: kept at a coarser width, the rest 0 */
	for (int i = 0; i < 64; i++)
		drawn[i] = i < 32 ? 40 : 0;
	synth_quantile_denoise(drawn, 64, 50, w);
	dense = empty = true;
	for (int i = 0; i < 64; i++)
	{
		dense &= i >= 32 || w[i] == 40;
		empty &= i < 32 || w[i] == 0;
	}
	CHECK(dense && empty, "denoise: a sparse range kept at a coarser width");
	/* nothing kept: B equal-width bins, none shut */
	for (int i = 0; i < 64; i++)
		w[i] = 0;
	CHECK(synth_quantile_bins(&e, w) && synth_column_set_shut(&e, NULL, NULL, 0), "bins without weight");
	CHECK(e.nmodel == 8 && e.shut == NULL && e.edges[1] == 125 && e.edges[8] == 1000 &&
		  e.map[7] == 0 && e.map[8] == 1 && e.map[63] == 7, "equal-width bins of whole sub-bins");
	synth_column_free(&q);
	synth_column_free(&e);
	gsl_rng_free(rng);
}

/*
 * A quantile column's offset sums: a kept sub-bin's draws have its measured
 * mean (continuous: a tilt over the sub-bin; integer: over its integers,
 * exactly), within the sub-bin
 */
static void
test_domains_means(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);

	for (int integer = 0; integer < 2; integer++)
	{
		SynthColumn q = {.kind = SYNTH_COL_QUANTILE, .lo = 0, .hi = integer ? 128 : 1000,
		.nbins = 8, .nsub = 64, .merge_empty = true, .integer = integer};
		double		w[64] = {0},
					sums[64] = {0},
					width = q.hi / 64,
					want,
					mean = 0;
		bool		inside = true;
		int			n = 20000;

		/* sub-bin 0 is bin 0 (1000 of 3000 rows); its mean offset 0.15 of its width */
		w[0] = 1000;
		for (int i = 1; i <= 20; i++)
			w[i] = 100;
		sums[0] = 150;
		CHECK(synth_quantile_bins(&q, w) && synth_column_set_shut(&q, NULL, NULL, 0) &&
			  q.map[0] == 0 && q.map[1] == 1, "sub-bin 0 is a bin of its own");
		CHECK(synth_column_set_means(&q, sums, 1.0), "means set");
		/* shrunk by sd 1 toward the middle: (150 + 1/2) / (1000 + 1) */
		want = 150.5 / 1001.0 * width;
		for (int t = 0; t < n; t++)
		{
			double		x = synth_column_draw(&q, 0, rng);

			inside &= x >= 0 && x <= width && (!integer || x == floor(x));
			mean += x / n;
		}
		CHECK(inside && fabs(mean - want) < 0.02 * width,
			  "%s sub-bin's draws at its measured mean: %g (want %g)",
			  integer ? "an integer" : "a continuous", mean, want);
		synth_column_free(&q);
	}
	gsl_rng_free(rng);
}

/*
 * A quantile column's points (lo, 0, hi): the scan's point of a value is its
 * clamped value's; a point of count >= 2 sd is drawn exactly at count / its
 * bin's weight, the rest of the bin as before; one below 2 sd never is
 */
static void
test_domains_points(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	SynthColumn q = {.kind = SYNTH_COL_QUANTILE, .lo = -100, .hi = 100, .nbins = 4, .nsub = 16,
	.merge_empty = true};
	SynthCoding s;
	double		v[SYNTH_MAX_POINTS],
				w[16] = {0},
				counts[3] = {300, 400, 15};
	int			zeros = 0,
				lows = 0,
				highs = 0,
				n = 20000,
				np = synth_column_points(&q, v);
	bool		inside = true;

	SynthColumn day = {.kind = SYNTH_COL_QUANTILE, .lo = 1, .hi = 31, .nbins = 16, .nsub = 31,
	.integer = true};

	synth_coding_init(&day, &s);
	CHECK(synth_column_points(&day, v) == 0 && synth_coding_point(&s, 1) == -1,
		  "none for an integer column of a sub-bin per integer");
	synth_coding_init(&q, &s);
	CHECK(np == 3 && v[0] == -100 && v[1] == 0 && v[2] == 100, "points lo, 0, hi");
	CHECK(synth_coding_point(&s, -1e300) == 0 && synth_coding_point(&s, -100) == 0 &&
		  synth_coding_point(&s, 0) == 1 && synth_coding_point(&s, 1e-300) == -1 &&
		  synth_coding_point(&s, 100) == 2 && synth_coding_point(&s, HUGE_VAL) == 2 &&
		  synth_coding_point(&s, 99.5) == -1, "a value's point is its clamped value's");
	/* 1000 rows in each sub-bin of [-25, 25) and sub-bin 0, 100 in the top one */
	w[0] = w[6] = w[7] = w[8] = w[9] = 1000;
	w[15] = 100;
	CHECK(synth_quantile_bins(&q, w) && synth_column_set_shut(&q, NULL, NULL, 0),
		  "quantile bins with points");
	synth_column_set_points(&q, counts, 10.0, NULL);
	CHECK(q.point_p[2] == 0.0 && q.point_p[0] > 0.0 && q.point_p[1] > 0.0,
		  "the top point (15 rows, below 2 sd) is not drawn");
	for (int t = 0; t < n; t++)
	{
		int			lv = q.map[synth_column_code(&q, 0.0, false)];
		double		x = synth_column_draw(&q, lv, rng),
					y = synth_column_draw(&q, q.map[0], rng),
					z = synth_column_draw(&q, q.map[15], rng);

		inside &= x >= q.edges[lv] && x <= q.edges[lv + 1] && y >= -100 && z <= 100;
		zeros += x == 0.0;
		lows += y == -100.0;
		highs += z == 100.0;
	}
	/* a point's share of its bin's weight (binomial sd <= 0.004) */
	{
		double		held[2] = {0};

		for (int i = 0; i < 16; i++)
		{
			held[0] += q.map[i] == q.map[0] ? w[i] : 0.0;
			held[1] += q.map[i] == q.map[8] ? w[i] : 0.0;
		}
		CHECK(inside && highs == 0 && fabs((double) lows / n - 300.0 / held[0]) < 0.02 &&
			  fabs((double) zeros / n - 400.0 / held[1]) < 0.02,
			  "exact lows %d, zeros %d, highs %d of %d (their bins' weights %g, %g)",
			  lows, zeros, highs, n, held[0], held[1]);
	}
	synth_column_free(&q);
	gsl_rng_free(rng);
}

/*
 * An open end bin next to a point's sub-bin (a column mostly at lo, the rest
 * spread thin above it): its decay continues that sub-bin's weight net of
 * the point drawn apart, not the point's mass squeezing the bin to its edge
 */
static void
test_domains_points_decay(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	SynthColumn q = {.kind = SYNTH_COL_QUANTILE, .lo = -1, .hi = 999, .nbins = 16, .nsub = 64,
	.merge_empty = true};
	double		w[64] = {3705},
				y[2] = {3705, 816},
				counts[2] = {3650, 0};
	int			far = 0;

	CHECK(synth_quantile_bins(&q, w) && q.nmodel == 2 && synth_column_set_shut(&q, y, NULL, 100.0) &&
		  q.shut == NULL && fabs(q.decay[1] - 816.0 / (816 + 3705)) < 1e-12,
		  "the open end bin decays from the point's sub-bin: %g", q.decay[1]);
	synth_column_set_points(&q, counts, 10.0, y);
	CHECK(q.point_p[0] > 0.9 && fabs(q.decay[1] - 816.0 / (816 + 55)) < 1e-12,
		  "after the point, its ratio is 816 / (816 + 55): %g", q.decay[1]);
	for (int t = 0; t < 4000; t++)
		far += synth_column_draw(&q, 1, rng) >= 500.0;
	/* geometric of ratio 0.937 a sub-bin: about 13 % at or past sub-bin 32 */
	CHECK(far > 300 && far < 800, "the bin drawn over its range: %d of 4000 at or above 500", far);
	synth_column_free(&q);
	gsl_rng_free(rng);
}

/*
 * A shut bin's weight goes to the nearest open bin (the column's mean kept),
 * another shut level's (a level column's) to the open levels in proportion
 */
static void
test_shut_nearest(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	bool		shut[4] = {false, false, false, true};

	gsl_rng_set(rng, 11);
	for (int ordered = 0; ordered <= 4; ordered += 4)
	{
		SynthModel	m;
		int			sizes[1] = {4},
					rows[400],
					cnt[4] = {0};

		CHECK(synth_model_init(&m, 1, sizes, 400.0) == SYNTH_OK, "a uniform model");
		m.shut[0] = shut;
		m.ordered[0] = ordered;
		CHECK(synth_sample(&m, 400, rng, rows) == SYNTH_OK, "sampled");
		for (int i = 0; i < 400; i++)
			cnt[rows[i]]++;
		if (ordered)
			CHECK(cnt[3] == 0 && abs(cnt[2] - 200) <= 1 && abs(cnt[0] - 100) <= 1,
				  "bins: the shut bin's rows in the one below it: %d %d %d %d",
				  cnt[0], cnt[1], cnt[2], cnt[3]);
		else
			CHECK(cnt[3] == 0 && abs(cnt[2] - 133) <= 1 && abs(cnt[0] - 133) <= 1,
				  "levels: the shut level's rows spread in proportion: %d %d %d %d",
				  cnt[0], cnt[1], cnt[2], cnt[3]);
		synth_model_free(&m);
	}
	/* a shut run between open bins: each to the nearer, half to each when as near */
	{
		SynthModel	m;
		bool		run[5] = {false, true, false, true, true};
		int			sizes[1] = {5},
					rows[500],
					cnt[5] = {0};

		CHECK(synth_model_init(&m, 1, sizes, 500.0) == SYNTH_OK, "a uniform model");
		m.shut[0] = run;
		m.ordered[0] = 5;
		CHECK(synth_sample(&m, 500, rng, rows) == SYNTH_OK, "sampled");
		for (int i = 0; i < 500; i++)
			cnt[rows[i]]++;
		CHECK(cnt[1] == 0 && cnt[3] == 0 && cnt[4] == 0 && abs(cnt[0] - 150) <= 1 &&
			  abs(cnt[2] - 350) <= 1, "runs to their nearest open bins: %d %d %d %d %d",
			  cnt[0], cnt[1], cnt[2], cnt[3], cnt[4]);
		synth_model_free(&m);
	}
	gsl_rng_free(rng);
}

/* the intervals' tail bounds against simulation */
static void
test_interval_bounds(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int			out = 0,
				out1 = 0;
	double		s2 = 50.0;
	double		h = synth_ci_halfwidth(s2, 4),
				l1 = synth_ci_l1_bound(s2, 6, 0.025);

	gsl_rng_set(rng, 5);
	for (int t = 0; t < 20000; t++)
	{
		double		sum = 0.0,
					abs1 = 0.0;

		for (int i = 0; i < 6; i++)
		{
			double		z = (double) dpnoise_discrete_gaussian(rng, 50);

			if (i < 4)
				sum += z;
			abs1 += fabs(z);
		}
		out += fabs(sum) > h;
		out1 += abs1 > l1;
	}
	CHECK(out < 20000 * 0.05, "the 95 %% half-width holds: %d of 20000 out", out);
	CHECK(out1 < 20000 * 0.025, "the l1 bound holds: %d of 20000 out", out1);
	CHECK(h < 2.8 * sqrt(4 * s2), "and is not vacuous: %g", h);
	gsl_rng_free(rng);
}

/*
 * A marginal across the tree builds no table larger than the junction tree of
 * the model's sets and the queried set, and is refused over the model's cap.
 * The tree {1,2} - {0,1,4} - {3,4}, column 0 wide: eliminating along the path
 * to answer {2,3} would carry 3 through the wide clique ({0,1,3,4}: 2 560
 * cells); the tree with {2,3} added has 768.
 */
static void
test_marginal_bound(void)
{
	int			sizes[5] = {40, 4, 4, 4, 4};
	SynthSet	sets[3] = {0x6, 0x13, 0x18};
	SynthMeasure meas[3];
	SynthModel	m;
	SynthTree	t;
	SynthSet	all[4] = {0x6, 0x13, 0x18, 0xC};
	SynthFactor got,
				want;
	int			codes[5] = {0};
	double		z = 0.0,
				err = 0.0;

	for (int i = 0; i < 3; i++)
	{
		int64_t		n = synth_set_cells(sets[i], sizes, 1 << 20);

		meas[i].set = sets[i];
		meas[i].sigma2 = 1.0;
		meas[i].var = NULL;
		meas[i].y = malloc(sizeof(double) * n);
		for (int64_t x = 0; x < n; x++)
			meas[i].y[x] = 1000.0 * urand() / n;
	}
	synth_model_init(&m, 5, sizes, 1000.0);
	CHECK(synth_model_add(&m, meas, 3, 4096) == SYNTH_OK && m.tree.ncliques == 3,
		  "a path of three cliques");
	synth_model_fit(&m, meas, 3, 30, NULL, NULL);
	/* the model's joint by brute force: exp(sum of theta), scaled to the total */
	synth_factor_init(&want, 0xC, sizes, 0.0);
	{
		double	   *p = malloc(sizeof(double) * 10240);
		int64_t		x = 0;

		do
		{
			double		v = 0.0;

			for (int i = 0; i < m.nsets; i++)
				v += at(&m.theta[i], codes);
			p[x] = exp(v);
			z += p[x];
			want.val[synth_factor_index(&want, codes)] += p[x++];
		} while (next_codes(5, sizes, codes));
		free(p);
	}
	synth_factor_scale(&want, 1000.0 / z);
	synth_tree_build(5, sizes, all, 4, INT64_C(1) << 62, &t);
	synth_factor_largest_reset();
	CHECK(synth_model_marginal(&m, 0xC, &got) == SYNTH_OK, "a marginal across three cliques");
	CHECK(synth_factor_largest() <= t.cells && t.cells < 2560,
		  "its largest table %lld cells, the tree with it %lld (not 2 560)",
		  (long long) synth_factor_largest(), (long long) t.cells);
	for (int64_t x = 0; x < want.ncells; x++)
		err = fmax(err, fabs(got.val[x] - want.val[x]));
	CHECK(err < 1e-8, "and exact: %g", err);
	synth_factor_free(&got);
	/* the selection's path too */
	synth_factor_largest_reset();
	CHECK(synth_model_marginals(&m, &all[3], 1, &got) == SYNTH_OK &&
		  synth_factor_largest() <= t.cells, "at once: largest %lld",
		  (long long) synth_factor_largest());
	synth_factor_free(&got);
	/* over the cap: refused, not built */
	m.max_cells = t.cells - 1;
	synth_factor_largest_reset();
	CHECK(synth_model_marginal(&m, 0xC, &got) == SYNTH_TOOBIG &&
		  synth_factor_largest() < t.cells, "over the cap: refused");
	synth_factor_free(&want);
	synth_model_free(&m);
	for (int i = 0; i < 3; i++)
		free(meas[i].y);
}

/*
 * The default workload of a narrow table is every triple in order; the
 * candidates are their nonempty subsets, each weighed by AIM's
 * sum of |r & s|, the label's sets label_weight times; bad sets refused.
 */
static void
test_workload(void)
{
	SynthSet	w[8],
			   *cand;
	int64_t    *weight;
	int			n,
				ncand;

	n = synth_workload_default(4, -1, 8, w);
	CHECK(n == 4 && w[0] == 0x7 && w[1] == 0xb && w[2] == 0xd && w[3] == 0xe,
		  "4 columns: the 4 triples in order (%d)", n);
	n = synth_workload_default(2, -1, 8, w);
	CHECK(n == 1 && w[0] == 0x3, "2 columns: the pair");
	n = synth_workload_default(4, -1, 8, w);
	CHECK(synth_candidates(w, n, 0, 4, &cand, &weight, &ncand) == SYNTH_OK && ncand == 14,
		  "14 candidates (%d)", ncand);
	for (int i = 0; i < ncand; i++)
	{
		int64_t		expect = 0;

		for (int t = 0; t < n; t++)
			expect += ((w[t] & 1) ? 4 : 1) * synth_set_size(cand[i] & w[t]);
		CHECK(weight[i] == expect && (i == 0 || cand[i - 1] < cand[i]),
			  "candidate %d: weight %lld", i, (long long) weight[i]);
	}
	CHECK(weight[0] == 12 && weight[1] == 9, "{0} weighs 12, {1} 9");
	free(cand);
	free(weight);
	w[0] = 0;
	CHECK(synth_candidates(w, 1, -1, 1, &cand, &weight, &ncand) == SYNTH_BADARG,
		  "an empty set refused");
	w[0] = 0x1ff;
	CHECK(synth_candidates(w, 1, -1, 1, &cand, &weight, &ncand) == SYNTH_BADARG,
		  "a set of 9 columns refused");
}

/*
 * Step 1 with a label: the label's pair with each other column that is not
 * premeasured, and at most one measurement per column, so its cost stays
 * within first_share rho even when every column was premeasured (a pair per
 * premeasured column on top cost up to (2d - 1) / d of the share: more than
 * rho at 0.6).
 */
static void
test_label_step(void)
{
	int			levels[4] = {3, 2, 4, 2};
	SynthSet	w[4];
	int			nw = synth_workload_default(4, 3, 4, w);
	SynthLayout L;
	int64_t    *counts;
	SynthMeasure pre[4];
	SynthSpec	sp;
	SynthResult res;
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double		rho = 0.1,
				s2 = synth_sigma2(synth_aim_oneway_rho(rho, 4, 0.6), 1);

	CHECK(synth_layout_build(4, levels, w, nw, 1 << 16, &L) == SYNTH_OK, "label: layout");
	counts = calloc(L.cells, sizeof(int64_t));
	for (int i = 0; i < 500; i++)
	{
		int			c[4];

		for (int j = 0; j < 4; j++)
			c[j] = (int) (unitcheck_next64() % levels[j]);
		synth_state_add(&L, counts, c);
	}
	for (int npre = 0; npre <= 4; npre += 4)
	{
		spec_init(&sp, 4, levels, &L, counts, rho, 1, 10, 20);
		sp.rounds_factor = 4;
		sp.first_share = 0.6;
		sp.label = 3;
		for (int j = 0; j < npre; j++)
		{
			int64_t		cnt[4];

			pre[j].set = SYNTH_BIT(j);
			pre[j].sigma2 = synth_count_variance(s2);
			pre[j].y = malloc(sizeof(double) * levels[j]);
			pre[j].var = NULL;
			synth_state_marginal(&L, counts, SYNTH_BIT(j), NULL, levels, cnt);
			for (int x = 0; x < levels[j]; x++)
				pre[j].y[x] = (double) cnt[x];
			sp.rho_premeasured += synth_release_rho(s2, 1);
		}
		sp.premeasured = npre ? pre : NULL;
		sp.npremeasured = npre;
		gsl_rng_set(rng, 5);
		CHECK(synth_aim_run(&sp, rng, &res) == SYNTH_OK && res.rho_spent <= rho * (1 + 1e-12),
			  "label, %d premeasured: rho spent %g <= %g", npre, res.rho_spent, rho);
		if (npre == 0)
			CHECK(res.meas[0].set == 0x9 && res.meas[1].set == 0xa && res.meas[2].set == 0xc &&
				  res.meas[3].set != 0x8, "label: step 1 measures its three pairs, not it");
		else
			CHECK(res.meas[0].set == 0x1 && res.meas[3].set == 0x8 &&
				  (res.nrounds == 0 || res.meas[4].set == res.rounds[0].chosen),
				  "label, all premeasured: no pair in step 1");
		synth_result_free(&res);
		for (int j = 0; j < npre; j++)
			free(pre[j].y);
	}
	synth_layout_free(&L);
	free(counts);
	gsl_rng_free(rng);
}

/*
 * A wide table (64 columns: 41 664 triples): the default workload keeps its
 * cap, covers every pair, and the rounds run on it in well under a second.
 */
static void
test_wide(void)
{
	int			d = 64,
				levels[64],
				nw;
	SynthSet   *w = malloc(sizeof(SynthSet) * SYNTH_DEFAULT_MAX_WORKLOAD);
	SynthSet	covered[64] = {0};
	bool		pairs = true;
	SynthLayout L;
	int64_t    *counts;
	SynthSpec	sp;
	SynthResult res;
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	clock_t		t0;

	for (int j = 0; j < d; j++)
		levels[j] = 2 + j % 3;
	nw = synth_workload_default(d, 5, SYNTH_DEFAULT_MAX_WORKLOAD, w);
	for (int i = 0; i < nw; i++)
		for (int j = 0; j < d; j++)
			if (w[i] & SYNTH_BIT(j))
				covered[j] |= w[i];
	for (int j = 0; j < d; j++)
		pairs &= covered[j] == ~(SynthSet) 0;
	CHECK(nw == SYNTH_DEFAULT_MAX_WORKLOAD && pairs, "wide: %d sets, every pair in one", nw);
	CHECK(synth_layout_build(d, levels, w, nw, 1 << 22, &L) == SYNTH_OK, "wide layout");
	counts = calloc(L.cells, sizeof(int64_t));
	for (int i = 0; i < 2000; i++)
	{
		int			c[64];

		c[0] = (int) (unitcheck_next64() % levels[0]);
		for (int j = 1; j < d; j++)
			c[j] = urand() < 0.6 ? c[j - 1] % levels[j] : (int) (unitcheck_next64() % levels[j]);
		synth_state_add(&L, counts, c);
	}
	spec_init(&sp, d, levels, &L, counts, 0.5, 1, 10, 50);
	sp.rounds_factor = 1;
	sp.first_share = 0.2;
	sp.label = 5;
	gsl_rng_set(rng, 3);
	t0 = clock();
	CHECK(synth_aim_run(&sp, rng, &res) == SYNTH_OK, "wide: rounds ran");
	CHECK(res.rho_spent <= 0.5 && res.nrounds >= 1, "wide: %d rounds in %.2f s", res.nrounds,
		  (double) (clock() - t0) / CLOCKS_PER_SEC);
	printf("wide: %d rounds, %.2f s\n", res.nrounds, (double) (clock() - t0) / CLOCKS_PER_SEC);
	synth_result_free(&res);
	synth_layout_free(&L);
	free(counts);
	free(w);
	gsl_rng_free(rng);
}

int
main(void)
{
	test_factors();
	test_tree();
	test_state();
	test_state_two_keys();
	test_estimation();
	test_marginal_bound();
	test_round_counts();
	test_round_counts_extreme();
	test_calibration();
	test_extreme_potentials();
	test_bounded_steps();
	test_domains();
	test_coding_reference();
	test_domains_denoise();
	test_domains_means();
	test_domains_points();
	test_domains_points_decay();
	test_shut_nearest();
	test_interval_bounds();
	test_rounds();
	test_workload();
	test_label_step();
	test_wide();
	return unitcheck_report();
}
