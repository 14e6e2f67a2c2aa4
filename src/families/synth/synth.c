/*-------------------------------------------------------------------------
 *
 * synth.c
 *	  dp_synthesize_cols' final function: mechanism_drive() (mechanism.h)
 *	  with the synthesizer's steps (docs/PRIVACY.md, "Synthetic data").
 *
 *	  calibrate  rho = zcdp_rho(epsilon, delta), the rho the ledger
 *	             charges (kind zcdp); every buffer's size is public and was
 *	             checked against dpobj.max_state_memory before the charge
 *	             (synthparams.c)
 *	  compute    the private quantile bins first (each such column's
 *	             sub-bin counts, then its bins', measured within its share
 *	             of the first step, and its sub-bins' offset sums at
 *	             SYNTH_SUM_SHARE of that share), then the rounds (core/synthaim.c) with
 *	             dpobj's generator, polling for a cancel and reporting
 *	             progress; last, which columns' NULL/"other" is closed
 *	  release    the model (synthmodel.c)
 *
 *-------------------------------------------------------------------------
 */
#include "families/synth/synth.h"
#include "mechanisms/family.h"

#include <math.h>

#include "base/dpobj.h"
#include "base/progress.h"
#include "core/synthaim.h"
#include "families/synth/synthagg.h"
#include "families/synth/synthmodel.h"
#include "mechanisms/mechanism.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(dpobj_synth_finalfn);

/*
 * A quantile column's bins by the label's levels stay a pair measurement
 * when its bins hold this many standard deviations of a cell on average
 * (synth_quantile_keep_pair)
 */
#define SYNTH_PAIR_SDS			10.0

typedef struct SynthWork
{
	SynthAggState *st;
	double		rho;
	SynthColumn col[SYNTH_MAX_COLUMNS];	/* quantile bins chosen in compute */
	double	   *noisy[SYNTH_MAX_COLUMNS];	/* quantile columns' sub-bin releases */
	double	   *sums[SYNTH_MAX_COLUMNS];	/* and their offset sums' (sub-bin widths),
											 * then their points' counts */
	double		sums_sigma2;	/* those sums' variance */
	double		points_sigma2;	/* the points' counts' */
	SynthMeasure pre[SYNTH_MAX_COLUMNS];	/* their bins' measurements (by the label's levels) */
	int			npre;
	double		rho_pre;
	SynthResult res;
} SynthWork;

/* the core's malloc'd memory, freed with the final function's context */
static void
synth_work_free(void *arg)
{
	SynthWork  *w = arg;

	synth_result_free(&w->res);
	for (int j = 0; j < SYNTH_MAX_COLUMNS; j++)
		synth_column_free(&w->col[j]);
}

static void *
synth_admit(FunctionCallInfo fcinfo, int kind, DPProtectedContext **pctx)
{
	(void) kind;
	return synthagg_final_begin(fcinfo, pctx);
}

static void
synth_calibrate(DPRun *run)
{
	SynthAggState *st = run->state;
	SynthWork  *w = palloc0(sizeof(SynthWork));
	MemoryContextCallback *cb = palloc0(sizeof(MemoryContextCallback));

	w->st = st;
	w->rho = synthparams_rho(st->epsilon, st->delta);
	memcpy(w->col, st->p->col, sizeof(SynthColumn) * st->p->d);
	cb->func = synth_work_free;
	cb->arg = w;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, cb);
	mechanism_calibrated(run, w, "synthesize", st->epsilon, st->delta);
}

/* the cancel and progress check of the rounds: never raises (synthpgm.h) */
static bool
synth_poll(void *arg)
{
	(void) arg;
	dpobj_progress_tick();
	return mechanism_stop_pending(NULL);
}

static pg_noreturn void
synth_failed(const DPRun *run, SynthStatus status)
{
	if (status == SYNTH_STOPPED)
		mechanism_poll(run->ledger_id);
	mechanism_fail(run, status == SYNTH_STOPPED ? LEDGER_OUTCOME_CANCELLED : LEDGER_OUTCOME_FAILED,
				   synth_status_name(status),
				   status == SYNTH_NOMEM ? ERRCODE_OUT_OF_MEMORY :
				   status == SYNTH_STOPPED ? ERRCODE_QUERY_CANCELED :
				   status == SYNTH_TOOBIG ? ERRCODE_PROGRAM_LIMIT_EXCEEDED :
				   ERRCODE_DPOBJ_PROTECTED_FAILURE,
				   psprintf("%s: the synthesizer stopped (%s)", SYNTH_AGGNAME, synth_status_name(status)),
				   "The privacy budget of this run was charged.", NULL);
}

/* a pair measurement's cell of column j's bin b (nb bins) and the label's level l (L levels) */
static int
synth_pair_cell(bool j_first, int nb, int L, int b, int l)
{
	return j_first ? b * L + l : l * nb + b;
}

/*
 * The bins' measurement m (cell variance m->sigma2; with a label, by its L
 * levels, synth_pair_cell's cells) combined with the sums of the sub-bin
 * release drawn over each bin (variance s2_sub a sub-bin): each bin's
 * L cells moved by g (sum - their total), g = sigma2 / (L sigma2 + v), their
 * variance sigma2 (1 - g) -- for L = 1 the inverse-variance mean.
 * Post-processing of both releases (m->var the combined cells')
 */
static void
synth_quantile_combine(const SynthColumn *c, const double *drawn, int n, double s2_sub,
					   int L, bool j_first, SynthMeasure *m)
{
	int			nb = synth_column_model_levels(c);
	double	   *sum = palloc0(sizeof(double) * nb);
	int		   *k = palloc0(sizeof(int) * nb);
	double	   *var = palloc(sizeof(double) * nb * L);

	for (int i = 0; i < n; i++)
	{
		sum[c->map[i]] += drawn[i];
		k[c->map[i]]++;
	}
	for (int b = 0; b < nb; b++)
	{
		double		g = m->sigma2 / (L * m->sigma2 + k[b] * s2_sub),
					tot = 0.0;

		for (int l = 0; l < L; l++)
			tot += m->y[synth_pair_cell(j_first, nb, L, b, l)];
		for (int l = 0; l < L; l++)
		{
			m->y[synth_pair_cell(j_first, nb, L, b, l)] += g * (sum[b] - tot);
			var[synth_pair_cell(j_first, nb, L, b, l)] = m->sigma2 * (1.0 - g);
		}
	}
	m->var = var;
}

/*
 * Whether a quantile column's bins are released by the label's levels (cell
 * variance sigma2): its sub-bin release's mean count a bin (n sub-bins, nb
 * bins) at least SYNTH_PAIR_SDS standard deviations of a cell, decided on
 * that release.  Else the label's split of a bin is mostly noise, and a fit
 * that keeps cells non-negative would add phantom rows to the bins holding
 * few: the bins are released alone
 */
static bool
synth_quantile_keep_pair(const double *drawn, int n, int nb, double sigma2)
{
	double		total = 0.0;

	for (int i = 0; i < n; i++)
		total += drawn[i];
	return total / nb >= SYNTH_PAIR_SDS * sqrt(sigma2);
}

/*
 * Column j's sub-bins' offset sums (synthdomain.h) released at
 * SYNTH_SUM_SHARE of its single-column share rho1: how its values lie
 * within each sub-bin, the draw's means (synth_column_set_means); then its
 * points' counts at SYNTH_POINT_SHARE (stored after the sums), the values
 * drawn exactly (synth_column_set_points)
 */
static void
synth_quantile_sums(DPRun *run, SynthWork *w, int j, double rho1)
{
	const SynthParams *p = w->st->p;
	int			nsub = w->col[j].nsub;
	int			np = synth_column_points(&w->col[j], NULL);
	double		s2 = synth_sigma2(SYNTH_SUM_SHARE * rho1, p->k);

	StaticAssertStmt(SYNTH_OFFSET_BITS == SYNTH_COUNT_BITS,
					 "offset sums are released on the counts' lattice");
	w->sums[j] = palloc(sizeof(double) * (nsub + np));
	synth_sum_draw(run->rng, w->st->sums + p->sum_at[j], nsub, (uint64) s2, w->sums[j]);
	w->sums_sigma2 = synth_count_variance(s2);
	w->rho_pre += synth_release_rho(s2, p->k);
	s2 = synth_sigma2(SYNTH_POINT_SHARE * rho1, p->k);
	synth_measure_draw(run->rng, w->st->sums + p->sum_at[j] + nsub, np, (uint64) s2,
					   w->sums[j] + nsub);
	w->points_sigma2 = synth_count_variance(s2);
	if (np > 0)
		w->rho_pre += synth_release_rho(s2, p->k);
}

/*
 * Column j's private quantile bins: its sub-bin counts released at
 * SYNTH_SUB_SHARE of its first-step share (SYNTH_QUANTILE_RHO1), the bins
 * chosen from their denoised weights (synth_quantile_denoise: what the model
 * keeps, post-processing), then the bins' counts released at the rest of
 * that share less its points' (SYNTH_POINT_SHARE, synth_quantile_sums) and
 * combined with the sub-bins' sums: the measurement the rounds start from
 */
static void
synth_quantile(DPRun *run, SynthWork *w, int j)
{
	const SynthParams *p = w->st->p;
	SynthColumn *c = &w->col[j];
	int			n = p->scan_levels[j];
	int			nb,
				L = 1;
	int64	   *cnt = palloc(sizeof(int64) * n);
	double	   *drawn = palloc(sizeof(double) * n);
	double		rho1 = SYNTH_QUANTILE_RHO1(p, w->rho);
	double		points = synth_column_points(c, NULL) > 0 ? SYNTH_POINT_SHARE : 0.0;
	double		s2 = synth_sigma2(SYNTH_SUB_SHARE * rho1, p->k),
				s2_bins = synth_sigma2((1.0 - SYNTH_SUB_SHARE - points) * rho1, p->k);
	SynthMeasure *m = &w->pre[w->npre++];
	const int  *map[SYNTH_MAX_COLUMNS] = {NULL};
	int			levels[SYNTH_MAX_COLUMNS] = {0};

	synth_state_marginal(&p->layout, w->st->counts, SYNTH_BIT(j), NULL, p->scan_levels, cnt);
	synth_measure_draw(run->rng, cnt, n, (uint64) s2, drawn);
	w->noisy[j] = palloc(sizeof(double) * n);
	synth_quantile_denoise(drawn, c->nsub, sqrt(synth_count_variance(s2)), w->noisy[j]);
	if (c->nullable)
		w->noisy[j][c->nsub] = drawn[c->nsub];
	if (!synth_quantile_bins(c, w->noisy[j]))
		synth_failed(run, SYNTH_NOMEM);
	/*
	 * the bins' counts: nb = the model's levels (NULL last), at most n; with
	 * a label, by its L levels (a row in one cell still: the same cost)
	 */
	nb = synth_column_model_levels(c);
	map[j] = c->map;
	levels[j] = nb;
	m->set = SYNTH_BIT(j);
	m->sigma2 = synth_count_variance(s2_bins);
	if (synth_label_paired(w->st->p, j) && synth_quantile_keep_pair(drawn, n, nb, m->sigma2))
	{
		L = levels[p->label] = synth_column_model_levels(&w->col[p->label]);
		m->set |= SYNTH_BIT(p->label);
	}
	cnt = repalloc(cnt, sizeof(int64) * Max(n, nb * L));
	synth_state_marginal(&p->layout, w->st->counts, m->set, map, levels, cnt);
	m->y = palloc0(sizeof(double) * nb * L);
	synth_measure_draw(run->rng, cnt, nb * L, (uint64) s2_bins, m->y);
	w->rho_pre += synth_release_rho(s2, p->k) + synth_release_rho(s2_bins, p->k);
	/* cells: the lower column's code first (synth_state_marginal) */
	synth_quantile_combine(c, drawn, n, synth_count_variance(s2), L, j < p->label, m);
	synth_quantile_sums(run, w, j, rho1);
}

/*
 * Column j's last level (NULL, "other") is closed -- never drawn -- when
 * "not_null" names the column, or when its first single-column
 * measurement's count there is below SYNTH_CLOSE_SDS standard deviations:
 * then it is most likely noise (post-processing of that measurement)
 */
static bool
synth_closed(const SynthWork *w, int j)
{
	const SynthColumn *c = &w->col[j];
	int			last = synth_column_model_levels(c) - 1;

	if (!c->nullable)
		return false;
	if (c->closed)
		return true;
	for (int i = 0; i < w->res.nmeas; i++)
	{
		const SynthMeasure *m = &w->res.meas[i];

		if (m->set == SYNTH_BIT(j))
			return m->y[last] < SYNTH_CLOSE_SDS * sqrt(m->var != NULL ? m->var[last] : m->sigma2);
	}
	/* a quantile column's bins by the label's levels (the first measurement of the pair) */
	for (int i = 0; synth_label_paired(w->st->p, j) && i < w->npre; i++)
	{
		const SynthMeasure *m = &w->pre[i];
		int			L = synth_column_model_levels(&w->col[w->st->p->label]);
		double		y = 0.0,
					v = 0.0;

		if (!(m->set & SYNTH_BIT(j)))
			continue;
		for (int l = 0; l < L; l++)
		{
			int			x = synth_pair_cell(j < w->st->p->label, last + 1, L, last, l);

			y += m->y[x];
			v += m->var[x];
		}
		return y < SYNTH_CLOSE_SDS * sqrt(v);
	}
	return false;
}

/* the rounds' specification (synthaim.h) */
static void
synth_spec(SynthWork *w, SynthSpec *sp, const int **map)
{
	const SynthParams *p = w->st->p;

	memset(sp, 0, sizeof(*sp));
	sp->d = p->d;
	for (int j = 0; j < p->d; j++)
	{
		sp->levels[j] = synth_column_model_levels(&w->col[j]);
		map[j] = w->col[j].kind == SYNTH_COL_QUANTILE ? w->col[j].map : NULL;
	}
	sp->map = map;
	sp->layout = &p->layout;
	sp->counts = w->st->counts;
	sp->rho = w->rho;
	sp->k = p->k;
	sp->workload = p->workload;
	sp->nworkload = p->nworkload;
	sp->label = p->label;
	sp->max_model_cells = p->max_model_cells;
	sp->iters_round = p->iters_round;
	sp->iters_final = p->iters_final;
	sp->alpha = SYNTH_ALPHA;
	sp->rounds_factor = SYNTH_ROUNDS_FACTOR;
	sp->first_share = SYNTH_FIRST_SHARE_OF(p);
	sp->premeasured = w->pre;
	sp->npremeasured = w->npre;
	sp->rho_premeasured = w->rho_pre;
	sp->poll = synth_poll;
}

/* after the charge: the quantile bins, then the rounds */
static void
synth_compute(DPRun *run)
{
	SynthWork  *w = run->work;
	const int  *map[SYNTH_MAX_COLUMNS];
	SynthSpec	sp;
	SynthStatus status;

	dpobj_progress_phase(DPOBJ_PHASE_SOLVING);
	for (int j = 0; j < w->st->p->d; j++)
		if (w->col[j].kind == SYNTH_COL_QUANTILE)
			synth_quantile(run, w, j);
	synth_spec(w, &sp, map);
	status = synth_aim_run(&sp, run->rng, &w->res);
	if (status != SYNTH_OK)
		synth_failed(run, status);
	for (int j = 0; j < w->st->p->d; j++)
		w->col[j].closed = synth_closed(w, j);
	dpobj_progress_phase(DPOBJ_PHASE_RELEASING);
	run->detail = "synthesize";
}

static Datum
synth_release(DPRun *run)
{
	SynthWork  *w = run->work;

	return synthmodel_build(run->fcinfo, w->st->p, w->col, w->noisy, w->sums, w->sums_sigma2,
							w->points_sigma2,
							&w->res, w->st->epsilon, w->st->delta, w->rho);
}

MECHANISM_FINAL_FUNCTION(dpobj_synth_finalfn,
						 .admit = synth_admit, .calibrate = synth_calibrate,
						 .compute = synth_compute, .release = synth_release)

/*
 * the family's descriptor (mechanisms/family.h); on Citus the
 * coordinator's layout; its models the synthesizer kind
 */
static const DPMechanism synth_mechanisms[] = {SYNTH_FAMILY_MECHANISMS};

const DPFamily synth_family = DP_FAMILY(synth, synth_mechanisms,
										.citus_options = synth_citus_options,
										.model_kind = &synth_model_kind);
