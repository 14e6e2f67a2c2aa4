/*
 * synthrun.c -- the synthesizer's core on a discretized CSV (bench only):
 *
 *   synthrun DOMAIN TRAIN.csv OUT.csv SEED EPSILON DELTA [key=value ...]
 *
 * reads the columns' levels (DOMAIN: "name levels [kind]" lines) and the rows (codes),
 * accumulates the one-scan state, runs the rounds at rho = zcdp_rho(epsilon, delta)
 * with a seeded Mersenne Twister in place of the server's strong random source, samples
 * as many rows as the noisy count and writes them.  Prints one line of key=value
 * statistics (times in seconds: scan, rounds, sample).
 * Options: k (rows per unit, 1), max_model_cells (2^16), max_state_cells (2^26),
 * iters_round (50), iters_final (500), alpha (0.9), rounds_factor (16), first_share
 * (synthesize()'s: 0.2, with a label 0.6), hash_slots (2^20:
 * the distinct-row hash of synthrows.c; 0: every row into the marginals), rows (the
 * noisy count), workload (a file of column-index lists, one set a line), label (a
 * column name: synthesize()'s "label"), max_workload (the default's cap, 1024).
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
#include "synthio.h"

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int
main(int argc, char **argv)
{
	char		names[SYNTH_MAX_COLUMNS][64];
	int			levels[SYNTH_MAX_COLUMNS];
	int		   *rows,
			   *out;
	int			d;
	int64_t		n;
	SynthLayout L;
	int64_t    *counts;
	SynthSet   *cand,
			   *workload = NULL;
	int			ncand = 0,
				nwork = 0;
	SynthSpec	sp;
	SynthResult res;
	SynthStatus st;
	gsl_rng    *rng;
	double		t0, t1, t2, t3;
	double		eps, delta, rho;
	int64_t		max_state = INT64_C(1) << 26, nout = -1, hash_slots = INT64_C(1) << 20;
	FILE	   *fo;

	if (argc < 7)
	{
		fprintf(stderr, "usage: synthrun DOMAIN TRAIN.csv OUT.csv SEED EPSILON DELTA [key=value ...]\n");
		return 2;
	}
	d = synthio_domain(argv[1], names, levels);
	n = d > 0 ? synthio_rows(argv[2], d, &rows) : -1;
	if (n < 0)
	{
		fprintf(stderr, "cannot read %s or %s\n", argv[1], argv[2]);
		return 2;
	}
	eps = atof(argv[5]);
	delta = atof(argv[6]);
	rho = zcdp_rho(eps, delta);
	memset(&sp, 0, sizeof(sp));
	sp.d = d;
	memcpy(sp.levels, levels, sizeof(int) * d);
	sp.rho = rho;
	sp.k = 1;
	sp.max_model_cells = INT64_C(1) << 16;
	sp.iters_round = 50;
	sp.iters_final = 500;
	sp.alpha = 0.9;
	sp.rounds_factor = 16;
	sp.first_share = 0.0;		/* below: synthesize()'s */
	sp.label = -1;
	for (int a = 7; a < argc; a++)
	{
		char	   *v = strchr(argv[a], '=');

		if (!v)
			continue;
		*v++ = '\0';
		if (!strcmp(argv[a], "k"))
			sp.k = atoll(v);
		else if (!strcmp(argv[a], "max_model_cells"))
			sp.max_model_cells = atoll(v);
		else if (!strcmp(argv[a], "max_state_cells"))
			max_state = atoll(v);
		else if (!strcmp(argv[a], "iters_round"))
			sp.iters_round = atoi(v);
		else if (!strcmp(argv[a], "iters_final"))
			sp.iters_final = atoi(v);
		else if (!strcmp(argv[a], "alpha"))
			sp.alpha = atof(v);
		else if (!strcmp(argv[a], "rounds_factor"))
			sp.rounds_factor = atof(v);
		else if (!strcmp(argv[a], "label"))
		{
			for (int j = 0; j < d; j++)
				if (!strcmp(names[j], v))
					sp.label = j;
		}
		else if (!strcmp(argv[a], "max_workload"))
			sp.max_workload = atoi(v);
		else if (!strcmp(argv[a], "first_share"))
			sp.first_share = atof(v);
		else if (!strcmp(argv[a], "hash_slots"))
			hash_slots = atoll(v);
		else if (!strcmp(argv[a], "rows"))
			nout = atoll(v);
		else if (!strcmp(argv[a], "workload"))
		{
			workload = malloc(sizeof(SynthSet) * 100000);
			nwork = synthio_workload(v, workload, 100000);
			sp.workload = workload;
			sp.nworkload = nwork;
		}
	}
	if (sp.first_share == 0.0)
		sp.first_share = sp.label >= 0 ? 0.6 : 0.2;
	/* the layout's sets: the workload's, or the default workload */
	cand = malloc(sizeof(SynthSet) * (SYNTH_DEFAULT_MAX_WORKLOAD + nwork + 1));
	if (workload)
		for (int i = 0; i < nwork; i++)
			cand[ncand++] = workload[i];
	else
		ncand = synth_workload_default(d, sp.label, sp.max_workload > 0 ? sp.max_workload :
									   SYNTH_DEFAULT_MAX_WORKLOAD, cand);

	t0 = now();
	st = synth_layout_build(d, levels, cand, ncand, max_state, &L);
	if (st != SYNTH_OK)
	{
		fprintf(stderr, "layout: %s\n", synth_status_name(st));
		return 1;
	}
	counts = calloc(L.cells, sizeof(int64_t));
	if (hash_slots > 0 && synth_rows_usable(&L))
	{
		SynthRows	h;

		if (synth_rows_init(&h, &L, counts, hash_slots) != SYNTH_OK)
			return 1;
		for (int64_t i = 0; i < n; i++)
			synth_rows_add(&h, rows + i * d);
		synth_rows_fold(&h);
		synth_rows_free(&h);
	}
	else
		for (int64_t i = 0; i < n; i++)
			synth_state_add(&L, counts, rows + i * d);
	t1 = now();

	sp.layout = &L;
	sp.counts = counts;
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, strtoul(argv[4], NULL, 10));
	st = synth_aim_run(&sp, rng, &res);
	t2 = now();
	if (st != SYNTH_OK)
	{
		fprintf(stderr, "run: %s\n", synth_status_name(st));
		return 1;
	}
	if (nout < 0)
		nout = llround(res.total);
	out = malloc(sizeof(int) * (nout + 1) * d);
	st = synth_sample(&res.model, nout, rng, out);
	t3 = now();
	if (st != SYNTH_OK)
	{
		fprintf(stderr, "sample: %s\n", synth_status_name(st));
		return 1;
	}
	fo = fopen(argv[3], "w");
	for (int j = 0; j < d; j++)
		fprintf(fo, "%s%c", names[j], j + 1 < d ? ',' : '\n');
	for (int64_t i = 0; i < nout; i++)
		for (int j = 0; j < d; j++)
			fprintf(fo, "%d%c", out[i * d + j], j + 1 < d ? ',' : '\n');
	fclose(fo);
	printf("rows=%lld state_cells=%lld stored=%d rho=%.6g rho_spent=%.6g rounds=%d measurements=%d "
		   "model_cells=%lld cliques=%d iterations=%lld propagations=%lld total=%.1f "
		   "scan_s=%.3f rounds_s=%.3f sample_s=%.3f\n",
		   (long long) n, (long long) L.cells, L.nstored, rho, res.rho_spent, res.nrounds,
		   res.nmeas, (long long) res.model.tree.cells, res.model.tree.ncliques,
		   (long long) res.model.iterations, (long long) res.model.propagations, res.total,
		   t1 - t0, t2 - t1, t3 - t2);
	if (getenv("SYNTH_VERBOSE"))
		for (int t = 0; t < res.nrounds; t++)
		{
			printf("round %d:", t);
			for (int j = 0; j < d; j++)
				if (res.rounds[t].chosen & SYNTH_BIT(j))
					printf(" %s", names[j]);
			printf(" sigma=%.1f eps=%.4f ncand=%d\n", sqrt(res.rounds[t].sigma2),
				   res.rounds[t].epsilon, res.rounds[t].ncand);
		}
	synth_result_free(&res);
	synth_layout_free(&L);
	gsl_rng_free(rng);
	free(counts);
	free(rows);
	free(out);
	free(cand);
	free(workload);
	return 0;
}
