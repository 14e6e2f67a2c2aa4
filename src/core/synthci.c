/*-------------------------------------------------------------------------
 *
 * synthci.c
 *	  95 % intervals for a marginal of the synthesizer's model (synthci.h).
 *
 *-------------------------------------------------------------------------
 */
#include "core/synthci.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LAMBDA 0.025
#define SQRT_2_PI 0.79788456080286535588

/* a candidate's penalty sqrt(2/pi) sigma n as the loss rounds it, in counts */
static double
penalty(double sigma2, int64_t ncells)
{
	double		scale = (double) (INT64_C(1) << SYNTH_LOSS_BITS);

	return (double) llround(SQRT_2_PI * sqrt(sigma2) * (double) ncells * scale) / scale;
}

double
synth_ci_halfwidth(double s2, double n)
{
	return sqrt(2.0 * n * s2 * log(2.0 / 0.05));
}

double
synth_ci_l1_bound(double s2, double n, double lambda)
{
	/* P(sum |Z_i| >= t) <= 2^n exp(-t^2 / (2 n s2)) (E e^{u|Z|} <= 2 e^{u^2 s2 / 2}) */
	return sqrt(2.0 * n * s2 * (n * log(2.0) + log(1.0 / lambda)));
}

/* the first measurement whose set holds r: cells of r get y summed, n summed cells */
static SynthStatus
from_measurement(const SynthResult *res, const SynthMeasure *m, SynthSet r, double *y,
				 double *n)
{
	const int  *sizes = res->model.sizes;
	SynthFactor f,
				g,
				cnt;

	if (!synth_factor_init(&f, m->set, sizes, 0.0))
		return SYNTH_NOMEM;
	memcpy(f.val, m->y, sizeof(double) * (size_t) f.ncells);
	if (!synth_factor_init(&g, r, sizes, 0.0) || !synth_factor_init(&cnt, r, sizes, 0.0))
	{
		synth_factor_free(&f);
		synth_factor_free(&g);
		return SYNTH_NOMEM;
	}
	synth_factor_sum_to(&f, &g);
	memcpy(y, g.val, sizeof(double) * (size_t) g.ncells);
	/* the summed cells' variances: var[x] / sigma2 each (1 when homoscedastic) */
	for (int64_t x = 0; x < f.ncells; x++)
		f.val[x] = m->var ? m->var[x] / m->sigma2 : 1.0;
	synth_factor_sum_to(&f, &cnt);
	memcpy(n, cnt.val, sizeof(double) * (size_t) cnt.ncells);
	synth_factor_free(&f);
	synth_factor_free(&g);
	synth_factor_free(&cnt);
	return SYNTH_OK;
}

static SynthStatus
measured(const SynthResult *res, const SynthMeasure *m, SynthSet r, int64_t ncells,
		 const double *est, double *lo, double *hi)
{
	double	   *y = malloc(sizeof(double) * (size_t) ncells),
			   *n = malloc(sizeof(double) * (size_t) ncells);
	SynthStatus st = SYNTH_NOMEM;

	if (y && n && (st = from_measurement(res, m, r, y, n)) == SYNTH_OK)
		for (int64_t x = 0; x < ncells; x++)
		{
			double		h = synth_ci_halfwidth(m->sigma2, n[x]);

			lo[x] = fmax(0.0, fmin(y[x] - h, est[x]));
			hi[x] = fmax(0.0, fmax(y[x] + h, est[x]));
		}
	free(y);
	free(n);
	return st;
}

/* the l1 bound on ||c_r - mu_r(final)|| from the last round's selection, or -1 */
static double
selection_bound(const SynthResult *res, SynthSet r, const double *est, int64_t ncells)
{
	const SynthLastRound *l = &res->last;
	const SynthRound *t;
	double		scale = (double) (INT64_C(1) << SYNTH_LOSS_BITS);
	int64_t		nt;
	int64_t		wt = 0,
				wr = 0;
	double		b,
				chosen,
				moved = 0.0;
	SynthFactor before;

	/* no round (the rounds may end before the first): no record to read */
	if (res->nrounds == 0 || l->cand == NULL || l->gamma <= 0.0)
		return -1.0;
	t = &res->rounds[res->nrounds - 1];
	nt = synth_set_cells(t->chosen, res->model.sizes, INT64_C(1) << 62);
	for (int i = 0; i < l->ncand; i++)
	{
		if (l->cand[i] == r)
			wr = l->weight[i];
		if (l->cand[i] == t->chosen)
			wt = l->weight[i];
	}
	if (wr <= 0)
		return -1.0;
	b = (log((double) l->ncand) + log(1.0 / LAMBDA)) / l->gamma;
	/* the chosen set's loss: measured l1 plus its noise's, the roundings */
	chosen = (double) wt * (scale * (l->l1_measured +
									 synth_ci_l1_bound(t->sigma2, (double) nt, LAMBDA)) +
							(double) nt / 2.0 - (double) l->pen_chosen);
	if (synth_model_marginal(&l->before, r, &before) != SYNTH_OK)
		return -1.0;
	for (int64_t x = 0; x < ncells; x++)
		moved += fabs(before.val[x] - est[x]);
	synth_factor_free(&before);
	return (chosen + b) / ((double) wr * scale) +
		penalty(t->sigma2, ncells) +
		(double) ncells / (2.0 * scale) + moved;
}

SynthStatus
synth_ci_marginal(const SynthResult *res, SynthSet r, double *est, double *lo, double *hi,
				  SynthIntervalKind *kind)
{
	SynthFactor mu;
	SynthStatus st = synth_model_marginal(&res->model, r, &mu);
	double		b;

	*kind = SYNTH_CI_NONE;
	if (st != SYNTH_OK)
		return st;
	memcpy(est, mu.val, sizeof(double) * (size_t) mu.ncells);
	for (int i = 0; i < res->nmeas; i++)
		if ((res->meas[i].set & r) == r)
		{
			*kind = SYNTH_CI_MEASURED;
			st = measured(res, &res->meas[i], r, mu.ncells, est, lo, hi);
			synth_factor_free(&mu);
			return st;
		}
	b = selection_bound(res, r, est, mu.ncells);
	for (int64_t x = 0; x < mu.ncells; x++)
	{
		lo[x] = b >= 0.0 ? fmax(0.0, est[x] - b) : 0.0;
		hi[x] = b >= 0.0 ? est[x] + b : HUGE_VAL;
	}
	if (b >= 0.0)
		*kind = SYNTH_CI_SELECTION;
	synth_factor_free(&mu);
	return SYNTH_OK;
}
