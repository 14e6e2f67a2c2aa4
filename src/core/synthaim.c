/*-------------------------------------------------------------------------
 *
 * synthaim.c
 *	  The synthesizer's rounds: select, measure, estimate (synthaim.h).
 *
 *-------------------------------------------------------------------------
 */
#include "core/synthaim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/dpnoise.h"
#include "core/expsample.h"
#include "core/synthwork.h"

#define SQRT_2_PI 0.79788456080286535588	/* sqrt(2 / pi) */

typedef struct Cand
{
	SynthSet	set;
	int64_t		weight;			/* w_r */
	int64_t		ncells;
	int64_t    *counts;			/* exact, model levels */
} Cand;

typedef struct Run
{
	const SynthSpec *spec;
	gsl_rng    *rng;
	SynthResult *res;
	Cand	   *cand;
	int			ncand;
	int			maxmeas;
	int			maxrounds;
	SynthSet   *sets;			/* scratch: the model's sets and one more */
} Run;

double
synth_aim_oneway_rho(double rho, int d, double share)
{
	return share * rho / d;
}

double
synth_aim_round_rho(double rho, int d, double alpha, double rounds_factor)
{
	return alpha * rho / (rounds_factor * d);
}

#define LATTICE ((double) (INT64_C(1) << SYNTH_COUNT_BITS))

double
synth_sigma2(double rho, int64_t k)
{
	double		s2 = ceil((double) k * (double) k * LATTICE * LATTICE / rho);

	return s2 >= 1.0 && s2 <= (double) (INT64_C(1) << 56) ? s2 : 0.0;
}

double
synth_count_variance(double s2)
{
	return s2 / (LATTICE * LATTICE);
}

double
synth_release_rho(double s2, int64_t k)
{
	return (double) k * (double) k * LATTICE * LATTICE / s2;
}

void
synth_measure_draw(gsl_rng *rng, const int64_t *counts, int64_t ncells, uint64_t s2,
				   double *y)
{
	for (int64_t x = 0; x < ncells; x++)
		y[x] = (double) ((counts[x] << SYNTH_COUNT_BITS) +
						 dpnoise_discrete_gaussian(rng, s2)) / LATTICE;
}

void
synth_sum_draw(gsl_rng *rng, const int64_t *sums, int64_t ncells, uint64_t s2, double *y)
{
	for (int64_t x = 0; x < ncells; x++)
		y[x] = (double) (sums[x] + dpnoise_discrete_gaussian(rng, s2)) / LATTICE;
}

/* the workload's downward closure that the state covers, with weights and counts */
static SynthStatus
build_candidates(Run *r)
{
	const SynthSpec *sp = r->spec;
	int			maxw = sp->max_workload > 0 ? sp->max_workload : SYNTH_DEFAULT_MAX_WORKLOAD;
	SynthSet   *w = NULL,
			   *sets;
	int64_t    *weight;
	int			nw = sp->nworkload,
				n;
	SynthStatus st;

	if (sp->workload == NULL)
	{
		w = malloc(sizeof(SynthSet) * (size_t) maxw);
		nw = w ? synth_workload_default(sp->d, sp->label, maxw, w) : -1;
		if (nw < 0)
		{
			free(w);
			return SYNTH_NOMEM;
		}
	}
	st = synth_candidates(sp->workload ? sp->workload : w, nw, sp->label, SYNTH_LABEL_WEIGHT,
						  &sets, &weight, &n);
	free(w);
	if (st != SYNTH_OK)
		return st;
	r->cand = calloc((size_t) n + 1, sizeof(Cand));
	for (int i = 0; r->cand && i < n; i++)
	{
		Cand	   *cd = &r->cand[r->ncand];

		if (synth_layout_covers(sp->layout, sets[i]) < 0)
			continue;
		cd->set = sets[i];
		cd->weight = weight[i];
		cd->ncells = synth_set_cells(cd->set, sp->levels, INT64_C(1) << 62);
		cd->counts = malloc(sizeof(int64_t) * (size_t) cd->ncells);
		r->ncand++;
		if (cd->counts == NULL)
			break;
		synth_state_marginal(sp->layout, sp->counts, cd->set, sp->map, sp->levels, cd->counts);
	}
	st = r->cand && (r->ncand == 0 || r->cand[r->ncand - 1].counts) ? SYNTH_OK : SYNTH_NOMEM;
	free(sets);
	free(weight);
	return st;
}

static Cand *
find_cand(Run *r, SynthSet s)
{
	for (int c = 0; c < r->ncand; c++)
		if (r->cand[c].set == s)
			return &r->cand[c];
	return NULL;
}

/*
 * A new measurement of s with lattice variance s2 (synth_sigma2; of a
 * candidate's cached counts, else summed from the state); s2 0: y left for
 * the caller.
 */
static SynthStatus
measure(Run *r, SynthSet s, double s2)
{
	SynthResult *res = r->res;
	Cand	   *cd = find_cand(r, s);
	SynthMeasure *m;
	int64_t		n = synth_set_cells(s, r->spec->levels, INT64_C(1) << 62);
	int64_t    *own = NULL;

	if (res->nmeas == r->maxmeas)
	{
		SynthMeasure *nm = realloc(res->meas, sizeof(SynthMeasure) * (r->maxmeas * 2 + 16));

		if (nm == NULL)
			return SYNTH_NOMEM;
		res->meas = nm;
		r->maxmeas = r->maxmeas * 2 + 16;
	}
	m = &res->meas[res->nmeas];
	memset(m, 0, sizeof(*m));
	m->set = s;
	m->sigma2 = synth_count_variance(s2);
	m->y = malloc(sizeof(double) * (size_t) n);
	if (m->y == NULL)
		return SYNTH_NOMEM;
	res->nmeas++;
	if (s2 == 0.0)
		return SYNTH_OK;
	if (cd == NULL)
	{
		own = malloc(sizeof(int64_t) * (size_t) n);
		if (own == NULL)
			return SYNTH_NOMEM;
		synth_state_marginal(r->spec->layout, r->spec->counts, s, r->spec->map,
							 r->spec->levels, own);
	}
	synth_measure_draw(r->rng, cd ? cd->counts : own, n, (uint64_t) s2, m->y);
	free(own);
	return SYNTH_OK;
}

/* the noisy count: the single columns' sums weighed by their inverse variances */
static double
noisy_total(const SynthMeasure *m, int n, const int *levels)
{
	double		num = 0.0,
				den = 0.0;

	for (int i = 0; i < n; i++)
	{
		double		s = 0.0,
					v = 0.0;
		int64_t		cells;

		cells = synth_set_cells(m[i].set, levels, INT64_C(1) << 62);
		for (int64_t x = 0; x < cells; x++)
		{
			s += m[i].y[x];
			v += m[i].var ? m[i].var[x] : m[i].sigma2;
		}
		num += s / v;
		den += 1.0 / v;
	}
	return den > 0.0 && num / den >= 1.0 ? num / den : 1.0;
}

/* the integer loss of candidate cd against the model's marginal mu */
static int64_t
cand_loss(const Cand *cd, const SynthFactor *mu, double sigma)
{
	int64_t		l1 = 0,
				pen;
	double		scale = (double) (INT64_C(1) << SYNTH_LOSS_BITS);

	for (int64_t x = 0; x < cd->ncells; x++)
	{
		double		v = mu->val[x] * scale;
		int64_t		m = llround(v > 0.0 ? (v < 4e15 ? v : 4e15) : 0.0);
		int64_t		c = cd->counts[x] << SYNTH_LOSS_BITS;

		l1 += c > m ? c - m : m - c;
	}
	pen = llround(SQRT_2_PI * sigma * (double) cd->ncells * scale);
	return -cd->weight * (l1 - pen);
}

/*
 * Whether the junction tree of the model's sets and s stays within limit
 * (the same construction as synth_model_add's: a set chosen here always
 * fits there, as limit <= the cap).
 */
static bool
fits(Run *r, SynthSet s, int64_t limit)
{
	const SynthModel *m = &r->res->model;
	SynthSet   *sets = r->sets;
	SynthTree	t;

	for (int i = 0; i < m->nsets; i++)
	{
		if (m->theta[i].set == s)
			return true;
		sets[i] = m->theta[i].set;
	}
	sets[m->nsets] = s;
	return synth_tree_build(m->d, m->sizes, sets, m->nsets + 1, limit, &t);
}

/* one round's selection: the chosen candidate, or SYNTH_TOOBIG when none fits */
/* the last round's record: its candidates, the sampler, the model they met */
static SynthStatus
record_last(Run *r, const SynthSet *sets, const int *idx, int n, double gamma, double sigma,
			SynthSet chosen)
{
	SynthLastRound *l = &r->res->last;
	Cand	   *cd = find_cand(r, chosen);

	l->cand = malloc(sizeof(SynthSet) * (size_t) (n + 1));
	l->weight = malloc(sizeof(int64_t) * (size_t) (n + 1));
	if (l->cand == NULL || l->weight == NULL)
		return SYNTH_NOMEM;
	for (int i = 0; i < n; i++)
	{
		l->cand[i] = sets[i];
		l->weight[i] = r->cand[idx[i]].weight;
	}
	l->ncand = n;
	l->gamma = gamma;
	l->pen_chosen = llround(SQRT_2_PI * sigma * (double) cd->ncells *
							(double) (INT64_C(1) << SYNTH_LOSS_BITS));
	return synth_model_copy(&l->before, &r->res->model);
}

static SynthStatus
select_cand(Run *r, double sigma, double eps, int64_t limit, bool last, SynthSet *chosen,
			double *eps_used, int *ncand)
{
	int64_t    *loss = malloc(sizeof(int64_t) * (size_t) (r->ncand + 1));
	int		   *idx = malloc(sizeof(int) * (size_t) (r->ncand + 1));
	SynthSet   *sets = malloc(sizeof(SynthSet) * (size_t) (r->ncand + 1));
	SynthFactor *mu = calloc((size_t) r->ncand + 1, sizeof(SynthFactor));
	int64_t		minloss = 0,
				wmax = 0,
				pick;
	int			n = 0;
	uint64_t	num,
				den;
	SynthStatus st = SYNTH_NOMEM;
	double		sens;

	if (loss == NULL || idx == NULL || sets == NULL || mu == NULL)
		goto done;
	for (int c = 0; c < r->ncand; c++)
		if (fits(r, r->cand[c].set, limit))
		{
			sets[n] = r->cand[c].set;
			idx[n++] = c;
		}
	st = n == 0 ? SYNTH_TOOBIG : synth_model_marginals(&r->res->model, sets, n, mu);
	if (st != SYNTH_OK)
		goto done;
	for (int i = 0; i < n; i++)
	{
		loss[i] = cand_loss(&r->cand[idx[i]], &mu[i], sigma);
		if (i == 0 || loss[i] < minloss)
			minloss = loss[i];
		if (r->cand[idx[i]].weight > wmax)
			wmax = r->cand[idx[i]].weight;
	}
	/* the loss moves by at most 2 k w_max 2^b on neighbours */
	sens = 2.0 * (double) r->spec->k * (double) wmax * (double) (INT64_C(1) << SYNTH_LOSS_BITS);
	expsample_gamma(eps / sens, &num, &den);
	*eps_used = 2.0 * ((double) num / (double) den) * sens;
	if (expsample_draw(r->rng, loss, n, minloss, num, den, r->spec->poll,
					   r->spec->poll_arg, &pick) != EXPSAMPLE_OK)
		st = SYNTH_STOPPED;
	else
	{
		*chosen = sets[pick];
		if (last)
			st = record_last(r, sets, idx, n, (double) num / (double) den, sigma, *chosen);
	}
	*ncand = n;
done:
	for (int i = 0; mu && i < n; i++)
		synth_factor_free(&mu[i]);
	free(mu);
	free(loss);
	free(idx);
	free(sets);
	return st;
}

static SynthStatus
add_round(Run *r, SynthSet chosen, double sigma2, double eps, int ncand, double rho)
{
	SynthResult *res = r->res;

	if (res->nrounds == r->maxrounds)
	{
		SynthRound *nr = realloc(res->rounds, sizeof(SynthRound) * (r->maxrounds * 2 + 16));

		if (nr == NULL)
			return SYNTH_NOMEM;
		res->rounds = nr;
		r->maxrounds = r->maxrounds * 2 + 16;
	}
	res->rounds[res->nrounds].chosen = chosen;
	res->rounds[res->nrounds].sigma2 = sigma2;
	res->rounds[res->nrounds].epsilon = eps;
	res->rounds[res->nrounds].ncand = ncand;
	res->rounds[res->nrounds].rho = rho;
	res->nrounds++;
	return SYNTH_OK;
}

/* whether column j was measured already (a quantile column's bins, alone or by the label) */
static bool
premeasured(const SynthSpec *sp, int j)
{
	for (int i = 0; i < sp->npremeasured; i++)
		if (sp->premeasured[i].set & SYNTH_BIT(j))
			return true;
	return false;
}

/* the label's pair with column j is measured in step 1: j not premeasured, the pair in the state */
static bool
label_pair(const SynthSpec *sp, int j)
{
	return sp->label >= 0 && j != sp->label && !premeasured(sp, j) &&
		synth_layout_covers(sp->layout, SYNTH_BIT(j) | SYNTH_BIT(sp->label)) >= 0;
}

/* step 1: the single columns (or their pairs with the label), the model's first fit */
static SynthStatus
first_step(Run *r, double rho1)
{
	const SynthSpec *sp = r->spec;
	SynthResult *res = r->res;
	double		s2 = synth_sigma2(rho1, sp->k);
	SynthStatus st = SYNTH_OK;

	if (s2 == 0.0)
		return SYNTH_BADARG;

	for (int i = 0; i < sp->npremeasured; i++)
	{
		SynthMeasure *m;
		int64_t		n = synth_set_cells(sp->premeasured[i].set, sp->levels, INT64_C(1) << 62);

		if ((st = measure(r, sp->premeasured[i].set, 0.0)) != SYNTH_OK)
			return st;
		m = &res->meas[res->nmeas - 1];
		memcpy(m->y, sp->premeasured[i].y, sizeof(double) * (size_t) n);
		m->sigma2 = sp->premeasured[i].sigma2;
		m->var = sp->premeasured[i].var;
	}
	res->rho_spent = sp->rho_premeasured;
	/*
	 * One measurement per column at most, so step 1 costs at most first_share
	 * rho: a premeasured column's stands; with a label, its pair with each
	 * other column (the column's counts too), the label's own only when no
	 * pair holds it.
	 */
	for (int j = 0; j < sp->d; j++)
	{
		SynthSet	s = SYNTH_BIT(j) | (label_pair(sp, j) ? SYNTH_BIT(sp->label) : 0);
		bool		paired = false;

		for (int i = 0; i < sp->d && j == sp->label; i++)
			paired |= label_pair(sp, i);
		if (premeasured(sp, j) || paired)
			continue;
		if ((st = measure(r, s, s2)) != SYNTH_OK)
			return st;
		res->rho_spent += synth_release_rho(s2, sp->k);
	}
	res->total = noisy_total(res->meas, res->nmeas, sp->levels);
	if ((st = synth_model_init(&res->model, sp->d, sp->levels, res->total)) != SYNTH_OK)
		return st;
	if ((st = synth_model_add(&res->model, res->meas, res->nmeas, sp->max_model_cells)) != SYNTH_OK)
		return st;
	return synth_model_fit(&res->model, res->meas, res->nmeas, sp->iters_round, sp->poll,
						   sp->poll_arg);
}

/* ||model marginal - before||_1 over s */
static double
moved(const SynthModel *m, SynthSet s, const SynthFactor *before)
{
	SynthFactor after;
	double		l1 = 0.0;

	if (synth_model_marginal(m, s, &after) != SYNTH_OK)
		return HUGE_VAL;
	for (int64_t x = 0; x < after.ncells; x++)
		l1 += fabs(after.val[x] - before->val[x]);
	synth_factor_free(&after);
	return l1;
}

/* steps 2 and 3 */
static SynthStatus
rounds(Run *r)
{
	const SynthSpec *sp = r->spec;
	SynthResult *res = r->res;
	double		T = sp->rounds_factor * sp->d;
	double		rho_g = synth_aim_round_rho(sp->rho, sp->d, sp->alpha, sp->rounds_factor);
	double		rho_s = (1.0 - sp->alpha) * sp->rho / T;
	SynthStatus st = SYNTH_OK;

	/*
	 * Every round but the last costs at least (rho_g + rho_s)(1 - 2^-16)-ish
	 * >= rho / T (1 - 10^-3), so at most T + 2 rounds happen; the public
	 * bound below caps the memory of the record and the model's sets.
	 */
	int			maxrounds = (int) fmin(SYNTH_MAX_ROUNDS, ceil(1.01 * T) + 2.0);

	for (int t = 0; t < maxrounds; t++)
	{
		double		left = sp->rho - res->rho_spent;
		bool		last = false;
		double		s2,
					eps_used = 0.0,
					rho_round,
					limit;
		SynthSet	chosen = 0;
		SynthFactor before;
		int			ncand = 0;

		if (left <= 0.0)
			break;
		if (left <= 2.0 * (rho_g + rho_s))
		{
			rho_g = sp->alpha * left;
			rho_s = (1.0 - sp->alpha) * left;
			last = true;
		}
		s2 = synth_sigma2(rho_g, sp->k);
		if (s2 == 0.0 && last)
			break;				/* what is left is below the sampler's least rho: unspent */
		if (s2 == 0.0)
			return SYNTH_BADARG;
		limit = (res->rho_spent + rho_g + rho_s) / sp->rho * (double) sp->max_model_cells;
		st = select_cand(r, sqrt(synth_count_variance(s2)), sqrt(8.0 * rho_s), (int64_t) limit,
						 last, &chosen, &eps_used, &ncand);
		if (st == SYNTH_TOOBIG)
			break;				/* no candidate fits (public): the rounds end early */
		if (st != SYNTH_OK)
			return st;
		rho_round = synth_release_rho(s2, sp->k) + eps_used * eps_used / 8.0;
		res->rho_spent += rho_round;
		if ((st = synth_model_marginal(&res->model, chosen, &before)) != SYNTH_OK)
			return st;
		if ((st = measure(r, chosen, s2)) == SYNTH_OK && last)
		{
			const SynthMeasure *mm = &res->meas[res->nmeas - 1];

			res->last.l1_measured = 0.0;
			for (int64_t x = 0; x < before.ncells; x++)
				res->last.l1_measured += fabs(mm->y[x] - before.val[x]);
		}
		if (st != SYNTH_OK ||
			(st = add_round(r, chosen, synth_count_variance(s2), eps_used, ncand, rho_round)) != SYNTH_OK ||
			(st = synth_model_add(&res->model, &res->meas[res->nmeas - 1], 1,
								  sp->max_model_cells)) != SYNTH_OK ||
			(st = synth_model_fit(&res->model, res->meas, res->nmeas, sp->iters_round,
								  sp->poll, sp->poll_arg)) != SYNTH_OK)
		{
			synth_factor_free(&before);
			return st;
		}
		if (moved(&res->model, chosen, &before) <=
			SQRT_2_PI * sqrt(synth_count_variance(s2)) * (double) synth_set_cells(chosen, sp->levels, INT64_C(1) << 62))
		{
			rho_g *= 4.0;
			rho_s *= 4.0;
		}
		synth_factor_free(&before);
		if (last)
			break;
	}
	return synth_model_fit(&res->model, res->meas, res->nmeas, sp->iters_final, sp->poll,
						   sp->poll_arg);
}

SynthStatus
synth_aim_run(const SynthSpec *spec, gsl_rng *rng, SynthResult *res)
{
	Run			r;
	SynthStatus st;
	double		rho1 = synth_aim_oneway_rho(spec->rho, spec->d, spec->first_share);

	memset(res, 0, sizeof(*res));
	memset(&r, 0, sizeof(r));
	if (spec->d < 1 || spec->d > SYNTH_MAX_COLUMNS || !(spec->rho > 0.0) || spec->k < 1 ||
		!(spec->alpha > 0.0 && spec->alpha < 1.0) || !(spec->rounds_factor >= 1.0) ||
		!(spec->first_share > 0.0 && spec->first_share < 1.0))
		return SYNTH_BADARG;
	r.spec = spec;
	r.rng = rng;
	r.res = res;
	st = build_candidates(&r);
	r.sets = malloc(sizeof(SynthSet) * (SYNTH_MAX_ROUNDS + SYNTH_MAX_COLUMNS + 1));
	if (st == SYNTH_OK && r.sets == NULL)
		st = SYNTH_NOMEM;
	if (st == SYNTH_OK)
		st = first_step(&r, rho1);
	if (st == SYNTH_OK)
		st = rounds(&r);
	for (int c = 0; c < r.ncand; c++)
		free(r.cand[c].counts);
	free(r.cand);
	free(r.sets);
	return st;
}

void
synth_result_free(SynthResult *res)
{
	synth_model_free(&res->model);
	synth_model_free(&res->last.before);
	free(res->last.cand);
	free(res->last.weight);
	for (int i = 0; i < res->nmeas; i++)
		free(res->meas[i].y);
	free(res->meas);
	free(res->rounds);
	memset(res, 0, sizeof(*res));
}
