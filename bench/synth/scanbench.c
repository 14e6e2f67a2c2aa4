/*
 * scanbench.c -- the synthesizer's scan, per row, at tens of millions of rows (bench
 * only):
 *
 *   scanbench DOMAIN TRAIN.csv ROWS GEN [hash_slots=N] [cover=WORKLOAD] [paths=plain,direct,hash]
 *
 * generates ROWS coded rows in batches of 2^20 (GEN "model": drawn from a model fitted
 * to TRAIN's rows at epsilon 8, seed 1 -- rows as Adult's look, fresh in every batch;
 * "uniform": every code uniform, nearly every row distinct, the hash path's worst
 * case) and times, per row, in CPU seconds of this process outside the generation:
 *   plain   one pass over the batch's codes (a checksum: the cost of touching them)
 *   direct  synth_state_add: one increment per stored set
 *   hash    synth_rows_add, folded at the end (synthrows.c)
 *   batch   synth_scan_add, a batch at a time (synthscan.c; BATCH rows, env)
 * on the layout of every triple (and cover's sets; cap 2^26 cells), the counts of the
 * paths run compared; with "rounds" among the paths, runs the rounds (epsilon 1, delta
 * 1e-6, seed 1) on the batch path's state and on TRAIN's and prints both times: the
 * estimation reads the state, never the rows.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_rng.h>

#include "core/calibrate.h"
#include "core/synthaim.h"
#include "core/synthrows.h"
#include "core/synthsample.h"
#include "core/synthwork.h"
#include "core/synthscan.h"
#include "synthio.h"

#define BATCH (INT64_C(1) << 20)

static double
cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double
wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void
spec_default(SynthSpec *sp, int d, const int *levels, const SynthLayout *L,
			 const int64_t *counts, double eps)
{
	memset(sp, 0, sizeof(*sp));
	sp->d = d;
	memcpy(sp->levels, levels, sizeof(int) * d);
	sp->layout = L;
	sp->counts = counts;
	sp->rho = zcdp_rho(eps, 1e-6);
	sp->k = 1;
	sp->max_model_cells = INT64_C(1) << 16;
	sp->iters_round = 50;
	sp->iters_final = 500;
	sp->alpha = 0.9;
	sp->rounds_factor = 16;
	sp->first_share = 0.2;
	sp->label = -1;
}

/* the rounds on a state: their CPU seconds and count */
static double
rounds_time(int d, const int *levels, const SynthLayout *L, const int64_t *counts, int *nrounds)
{
	SynthSpec	sp;
	SynthResult res;
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double		t0 = cpu();

	spec_default(&sp, d, levels, L, counts, 1.0);
	gsl_rng_set(rng, 1);
	if (synth_aim_run(&sp, rng, &res) != SYNTH_OK)
		return -1.0;
	t0 = cpu() - t0;
	*nrounds = res.nrounds;
	synth_result_free(&res);
	gsl_rng_free(rng);
	return t0;
}

int
main(int argc, char **argv)
{
	char		names[SYNTH_MAX_COLUMNS][64];
	int			levels[SYNTH_MAX_COLUMNS];
	int		   *train,
			   *batch;
	int			d,
				ncand = 0,
				nr_train = 0,
				nr_big = 0;
	int64_t		ntrain,
				rows,
				hash_slots = INT64_C(1) << 20;
	SynthSet   *cand;
	SynthLayout L;
	int64_t    *c_train,
			   *c_direct,
			   *c_hash,
			   *c_batch;
	SynthScan	sc;
	SynthRows	h;
	SynthModel	gen;
	SynthResult genres;
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double		t_gen = 0,
				t_plain = 0,
				t_direct = 0,
				t_hash = 0,
				t_batch = 0,
				w0 = wall();
	uint64_t	checksum = 0;
	const char *paths = "plain,direct,hash";
	bool		uniform;
	const char *cover = NULL;

	if (argc < 5)
	{
		fprintf(stderr, "usage: scanbench DOMAIN TRAIN.csv ROWS model|uniform [hash_slots=N] [paths=...]\n");
		return 2;
	}
	d = synthio_domain(argv[1], names, levels);
	ntrain = d > 0 ? synthio_rows(argv[2], d, &train) : -1;
	rows = atoll(argv[3]);
	uniform = strcmp(argv[4], "uniform") == 0;
	for (int a = 5; a < argc; a++)
		if (!strncmp(argv[a], "hash_slots=", 11))
			hash_slots = atoll(argv[a] + 11);
		else if (!strncmp(argv[a], "cover=", 6))
			cover = argv[a] + 6;
		else if (!strncmp(argv[a], "paths=", 6))
			paths = argv[a] + 6;
	if (ntrain < 0)
		return 2;
	cand = malloc(sizeof(SynthSet) * (d * d * d + 100000));
	for (int a = 0; a < d; a++)
		for (int b = a + 1; b < d; b++)
			for (int c = b + 1; c < d; c++)
				cand[ncand++] = SYNTH_BIT(a) | SYNTH_BIT(b) | SYNTH_BIT(c);
	if (cover)
		ncand += synthio_workload(cover, cand + ncand, 100000);
	if (synth_layout_build(d, levels, cand, ncand, INT64_C(1) << 26, &L) != SYNTH_OK)
		return 1;
	c_train = calloc(L.cells, sizeof(int64_t));
	c_direct = calloc(L.cells, sizeof(int64_t));
	c_hash = calloc(L.cells, sizeof(int64_t));
	c_batch = calloc(L.cells, sizeof(int64_t));
	if (synth_scan_init(&sc, &L, c_batch, getenv("BATCH") ? atoi(getenv("BATCH")) : SYNTH_SCAN_BATCH) != SYNTH_OK)
		return 1;
	for (int64_t i = 0; i < ntrain; i++)
		synth_state_add(&L, c_train, train + i * d);
	if (!uniform)
	{
		SynthSpec	sp;

		spec_default(&sp, d, levels, &L, c_train, 8.0);
		gsl_rng_set(rng, 1);
		if (synth_aim_run(&sp, rng, &genres) != SYNTH_OK)
			return 1;
		gen = genres.model;
	}
	batch = malloc(sizeof(int) * BATCH * d);
	if (synth_rows_init(&h, &L, c_hash, hash_slots) != SYNTH_OK)
		return 1;
	for (int64_t done = 0; done < rows; done += BATCH)
	{
		int64_t		n = rows - done < BATCH ? rows - done : BATCH;
		double		t = cpu();

		if (uniform)
			for (int64_t i = 0; i < n; i++)
				for (int j = 0; j < d; j++)
					batch[i * d + j] = (int) gsl_rng_uniform_int(rng, levels[j]);
		else
			synth_sample(&gen, n, rng, batch);
		t_gen += cpu() - t;
		if (strstr(paths, "plain"))
		{
			t = cpu();
			for (int64_t i = 0; i < n * d; i++)
				checksum = checksum * 31 + (uint64_t) batch[i];
			t_plain += cpu() - t;
		}
		if (strstr(paths, "direct"))
		{
			t = cpu();
			for (int64_t i = 0; i < n; i++)
				synth_state_add(&L, c_direct, batch + i * d);
			t_direct += cpu() - t;
		}
		if (strstr(paths, "batch"))
		{
			t = cpu();
			for (int64_t i = 0; i < n; i++)
				synth_scan_add(&sc, batch + i * d);
			t_batch += cpu() - t;
		}
		if (strstr(paths, "hash"))
		{
			t = cpu();
			for (int64_t i = 0; i < n; i++)
				synth_rows_add(&h, batch + i * d);
			t_hash += cpu() - t;
		}
	}
	{
		double		t = cpu();

		synth_rows_fold(&h);
		t_hash += cpu() - t;
		t = cpu();
		synth_scan_flush(&sc);
		t_batch += cpu() - t;
	}
	if (strstr(paths, "direct") && strstr(paths, "batch") &&
		memcmp(c_direct, c_batch, sizeof(int64_t) * L.cells) != 0)
	{
		fprintf(stderr, "the batch path's counts differ\n");
		return 1;
	}
	if (strstr(paths, "direct") && strstr(paths, "hash") &&
		memcmp(c_direct, c_hash, sizeof(int64_t) * L.cells) != 0)
	{
		fprintf(stderr, "the paths' counts differ\n");
		return 1;
	}
	{
		double		r_train = strstr(paths, "rounds") ?
			rounds_time(d, levels, &L, c_train, &nr_train) : -1.0;
		double		r_big = strstr(paths, "rounds") ?
			rounds_time(d, levels, &L, c_batch, &nr_big) : -1.0;

		printf("rows=%lld gen=%s stored=%d state_cells=%lld hash_slots=%lld folds=%lld "
			   "gen_s=%.2f plain_ns=%.1f direct_ns=%.1f hash_ns=%.1f batch_ns=%.1f "
			   "rounds_train_s=%.2f rounds_train=%d rounds_big_s=%.2f rounds_big=%d wall_s=%.1f checksum=%llu\n",
			   (long long) rows, argv[4], L.nstored, (long long) L.cells, (long long) h.size,
			   (long long) h.folds, t_gen, t_plain * 1e9 / rows, t_direct * 1e9 / rows,
			   t_hash * 1e9 / rows, t_batch * 1e9 / rows, r_train, nr_train, r_big, nr_big, wall() - w0,
			   (unsigned long long) (checksum & 0xff));
	}
	return 0;
}
