/*-------------------------------------------------------------------------
 *
 * synthpgm.c
 *	  The graphical model's estimation and its marginals (synthpgm.h).
 *
 * Belief propagation runs in linear space: a clique's potential is
 * exp(sum of its sets' theta - their maximum), messages are scaled to a
 * largest entry of 1, and every belief is scaled to the model's total.
 *
 *-------------------------------------------------------------------------
 */
#include "core/synthpgm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ARMIJO			0.5
#define STEP_GROW		1.5
#define MAX_BACKTRACK	40
/*
 * The most a step moves a log-potential: exp saturates far below it, and it
 * keeps theta finite however many steps run (without it a cell whose noisy
 * count is negative draws theta geometrically towards -1e308)
 */
#define MAX_MOVE		1000.0

const char *
synth_status_name(SynthStatus s)
{
	switch (s)
	{
		case SYNTH_OK:
			return "ok";
		case SYNTH_NOMEM:
			return "out of memory";
		case SYNTH_STOPPED:
			return "stopped";
		case SYNTH_TOOBIG:
			return "over the size cap";
		case SYNTH_BADARG:
			return "bad argument";
	}
	return "?";
}

static void
free_tree_tables(SynthModel *m)
{
	for (int c = 0; c < SYNTH_MAX_COLUMNS; c++)
	{
		synth_factor_free(&m->belief[c]);
		synth_factor_free(&m->up[c]);
	}
}

/* (re)allocates the beliefs and messages of m->tree and the sets' homes */
static SynthStatus
alloc_tree_tables(SynthModel *m)
{
	SynthTree  *t = &m->tree;

	free_tree_tables(m);
	for (int k = 0; k < t->ncliques; k++)
	{
		int			c = t->order[k];
		SynthSet	sep = k > 0 ? t->clique[c] & t->clique[t->parent[c]] : 0;

		if (!synth_factor_init(&m->belief[c], t->clique[c], m->sizes, 1.0) ||
			!synth_factor_init(&m->up[c], sep, m->sizes, 1.0))
			return SYNTH_NOMEM;
	}
	for (int i = 0; i < m->nsets; i++)
		m->home[i] = synth_tree_find(t, m->theta[i].set);
	return SYNTH_OK;
}

SynthStatus
synth_model_init(SynthModel *m, int d, const int *sizes, double total)
{
	SynthSet	singles[SYNTH_MAX_COLUMNS];

	if (d < 1 || d > SYNTH_MAX_COLUMNS || !(total > 0.0))
		return SYNTH_BADARG;
	memset(m, 0, sizeof(*m));
	m->d = d;
	memcpy(m->sizes, sizes, sizeof(int) * d);
	m->total = total;
	m->max_cells = INT64_C(1) << 62;
	for (int j = 0; j < d; j++)
		singles[j] = SYNTH_BIT(j);
	if (!synth_tree_build(d, sizes, singles, d, INT64_C(1) << 62, &m->tree))
		return SYNTH_TOOBIG;
	return alloc_tree_tables(m);
}

void
synth_model_free(SynthModel *m)
{
	free_tree_tables(m);
	for (int i = 0; i < m->nsets; i++)
		synth_factor_free(&m->theta[i]);
	free(m->theta);
	free(m->home);
	m->theta = NULL;
	m->home = NULL;
	m->nsets = 0;
}

SynthStatus
synth_model_copy(SynthModel *dst, const SynthModel *src)
{
	*dst = *src;
	dst->theta = calloc((size_t) src->maxsets + 1, sizeof(SynthFactor));
	dst->home = calloc((size_t) src->maxsets + 1, sizeof(int));
	memset(dst->belief, 0, sizeof(dst->belief));
	memset(dst->up, 0, sizeof(dst->up));
	dst->nsets = 0;
	if (dst->theta == NULL || dst->home == NULL)
	{
		synth_model_free(dst);
		return SYNTH_NOMEM;
	}
	for (int i = 0; i < src->nsets; i++, dst->nsets++)
		if (!synth_factor_copy(&dst->theta[i], &src->theta[i]))
		{
			synth_model_free(dst);
			return SYNTH_NOMEM;
		}
	memcpy(dst->home, src->home, sizeof(int) * (size_t) src->nsets);
	for (int c = 0; c < src->tree.ncliques; c++)
		if (!synth_factor_copy(&dst->belief[c], &src->belief[c]) ||
			!synth_factor_copy(&dst->up[c], &src->up[c]))
		{
			synth_model_free(dst);
			return SYNTH_NOMEM;
		}
	return SYNTH_OK;
}

static int
set_index(const SynthModel *m, SynthSet s)
{
	for (int i = 0; i < m->nsets; i++)
		if (m->theta[i].set == s)
			return i;
	return -1;
}

SynthStatus
synth_model_add(SynthModel *m, const SynthMeasure *meas, int nmeas, int64_t max_cells)
{
	SynthSet   *sets;
	SynthTree	t;
	int			n = m->nsets;
	bool		ok;

	sets = malloc(sizeof(SynthSet) * (size_t) (n + nmeas + 1));
	if (sets == NULL)
		return SYNTH_NOMEM;
	for (int i = 0; i < n; i++)
		sets[i] = m->theta[i].set;
	for (int i = 0; i < nmeas; i++)
		sets[n + i] = meas[i].set;
	ok = synth_tree_build(m->d, m->sizes, sets, n + nmeas, max_cells, &t);
	free(sets);
	if (!ok)
		return SYNTH_TOOBIG;
	if (m->nsets + nmeas > m->maxsets)
	{
		int			cap = (m->nsets + nmeas) * 2 + 8;
		SynthFactor *th = realloc(m->theta, sizeof(SynthFactor) * cap);
		int		   *home;

		if (th == NULL)
			return SYNTH_NOMEM;
		m->theta = th;
		home = realloc(m->home, sizeof(int) * cap);
		if (home == NULL)
			return SYNTH_NOMEM;
		m->home = home;
		m->maxsets = cap;
	}
	for (int i = 0; i < nmeas; i++)
	{
		if (set_index(m, meas[i].set) >= 0)
			continue;
		if (!synth_factor_init(&m->theta[m->nsets], meas[i].set, m->sizes, 0.0))
			return SYNTH_NOMEM;
		m->nsets++;
	}
	m->tree = t;
	m->max_cells = max_cells;
	return alloc_tree_tables(m);
}

/*
 * f over its largest entry (dividing: 1/mx overflows when mx is subnormal,
 * and 0 times that is NaN)
 */
static void
scale_max(SynthFactor *f)
{
	double		mx = 0.0;

	for (int64_t i = 0; i < f->ncells; i++)
		if (f->val[i] > mx)
			mx = f->val[i];
	if (mx > 0.0)
		for (int64_t i = 0; i < f->ncells; i++)
			f->val[i] /= mx;
}

/* the clique potentials exp(theta - max) of the sets `th` into the beliefs */
static void
potentials(SynthModel *m, const SynthFactor *th)
{
	SynthTree  *t = &m->tree;

	for (int c = 0; c < t->ncliques; c++)
	{
		SynthFactor *b = &m->belief[c];
		double		mx = -HUGE_VAL;

		memset(b->val, 0, sizeof(double) * (size_t) b->ncells);
		for (int i = 0; i < m->nsets; i++)
			if (m->home[i] == c)
				synth_factor_add(b, &th[i], 1.0);
		for (int64_t x = 0; x < b->ncells; x++)
			if (b->val[x] > mx)
				mx = b->val[x];
		for (int64_t x = 0; x < b->ncells; x++)
			b->val[x] = exp(b->val[x] - mx);
	}
}

/* belief propagation: every belief becomes its clique's marginal, scaled to total */
static SynthStatus
propagate(SynthModel *m, const SynthFactor *th)
{
	SynthTree  *t = &m->tree;

	potentials(m, th);
	for (int k = t->ncliques - 1; k > 0; k--)
	{
		int			c = t->order[k];

		synth_factor_sum_to(&m->belief[c], &m->up[c]);
		scale_max(&m->up[c]);
		synth_factor_mul(&m->belief[t->parent[c]], &m->up[c]);
		scale_max(&m->belief[t->parent[c]]);
	}
	for (int k = 1; k < t->ncliques; k++)
	{
		int			c = t->order[k];
		SynthFactor down;

		if (!synth_factor_init(&down, m->up[c].set, m->sizes, 0.0))
			return SYNTH_NOMEM;
		/*
		 * times the parent's separator marginal, then over c's own message:
		 * belief[c] is at most its message's sum, so the quotient is
		 * bounded, where the message's quotient alone can overflow when a
		 * message entry is subnormal
		 */
		synth_factor_sum_to(&m->belief[t->parent[c]], &down);
		synth_factor_mul(&m->belief[c], &down);
		synth_factor_div(&m->belief[c], &m->up[c]);
		synth_factor_free(&down);
		scale_max(&m->belief[c]);
	}
	for (int c = 0; c < t->ncliques; c++)
	{
		double		z = synth_factor_total(&m->belief[c]);

		if (z > 0.0)
			synth_factor_scale(&m->belief[c], m->total / z);
	}
	m->propagations++;
	return SYNTH_OK;
}

/* each set's marginal from its clique's belief */
static void
set_marginals(const SynthModel *m, SynthFactor *mu)
{
	for (int i = 0; i < m->nsets; i++)
		synth_factor_sum_to(&m->belief[m->home[i]], &mu[i]);
}

/* the loss of marginals mu, and its gradient into grad (when not NULL) */
static double
loss_grad(const SynthModel *m, const SynthMeasure *meas, int nmeas, const SynthFactor *mu,
		  SynthFactor *grad)
{
	double		loss = 0.0;

	if (grad)
		for (int i = 0; i < m->nsets; i++)
			memset(grad[i].val, 0, sizeof(double) * (size_t) grad[i].ncells);
	for (int k = 0; k < nmeas; k++)
	{
		int			i = set_index(m, meas[k].set);
		const SynthFactor *u = &mu[i];
		double		w = 1.0 / meas[k].sigma2;

		for (int64_t x = 0; x < u->ncells; x++)
		{
			double		r = u->val[x] - meas[k].y[x];

			if (meas[k].var)
				w = 1.0 / meas[k].var[x];

			loss += 0.5 * w * r * r;
			if (grad)
				grad[i].val[x] += w * r;
		}
	}
	return loss;
}

static void
free_tables(SynthFactor *f, int n)
{
	if (f == NULL)
		return;
	for (int i = 0; i < n; i++)
		synth_factor_free(&f[i]);
	free(f);
}

/* n tables shaped as the model's sets, zero */
static SynthFactor *
alloc_tables(const SynthModel *m)
{
	SynthFactor *f = calloc((size_t) m->nsets + 1, sizeof(SynthFactor));

	if (f == NULL)
		return NULL;
	for (int i = 0; i < m->nsets; i++)
		if (!synth_factor_init(&f[i], m->theta[i].set, m->sizes, 0.0))
		{
			free_tables(f, m->nsets);
			return NULL;
		}
	return f;
}

double
synth_model_loss(const SynthModel *m, const SynthMeasure *meas, int nmeas)
{
	SynthFactor *mu = alloc_tables(m);
	double		loss;

	if (mu == NULL)
		return NAN;
	set_marginals(m, mu);
	loss = loss_grad(m, meas, nmeas, mu, NULL);
	free_tables(mu, m->nsets);
	return loss;
}

/* one step: theta - eta grad, backtracked until the Armijo test passes */
static SynthStatus
md_step(SynthModel *m, const SynthMeasure *meas, int nmeas, SynthFactor *mu,
		SynthFactor *grad, SynthFactor *trial, SynthFactor *mu2, double *loss)
{
	double		eta = m->step * STEP_GROW,
				gmax = 0.0;

	for (int i = 0; i < m->nsets; i++)
		for (int64_t x = 0; x < grad[i].ncells; x++)
			gmax = fmax(gmax, fabs(grad[i].val[x]));
	if (eta * gmax > MAX_MOVE)
		eta = MAX_MOVE / gmax;

	for (int bt = 0; bt < MAX_BACKTRACK; bt++, eta *= 0.5)
	{
		double		l2,
					dec = 0.0;
		SynthStatus st;

		for (int i = 0; i < m->nsets; i++)
			for (int64_t x = 0; x < trial[i].ncells; x++)
				trial[i].val[x] = m->theta[i].val[x] - eta * grad[i].val[x];
		if ((st = propagate(m, trial)) != SYNTH_OK)
			return st;
		set_marginals(m, mu2);
		l2 = loss_grad(m, meas, nmeas, mu2, NULL);
		for (int i = 0; i < m->nsets; i++)
			for (int64_t x = 0; x < mu[i].ncells; x++)
				dec += grad[i].val[x] * (mu[i].val[x] - mu2[i].val[x]);
		if (l2 <= *loss - ARMIJO * dec)
		{
			for (int i = 0; i < m->nsets; i++)
			{
				double	   *v = m->theta[i].val;

				m->theta[i].val = trial[i].val;
				trial[i].val = v;
				v = mu[i].val;
				mu[i].val = mu2[i].val;
				mu2[i].val = v;
			}
			m->step = eta;
			*loss = loss_grad(m, meas, nmeas, mu, grad);
			return SYNTH_OK;
		}
	}
	/* no decrease at any step: the fit has converged as far as doubles show */
	m->step = eta;
	return propagate(m, m->theta);
}

SynthStatus
synth_model_fit(SynthModel *m, const SynthMeasure *meas, int nmeas, int iters,
				synth_poll_fn poll, void *poll_arg)
{
	SynthFactor *mu = alloc_tables(m),
			   *grad = alloc_tables(m),
			   *trial = alloc_tables(m),
			   *mu2 = alloc_tables(m);
	SynthStatus st = SYNTH_NOMEM;
	double		loss;

	if (mu == NULL || grad == NULL || trial == NULL || mu2 == NULL)
		goto done;
	if ((st = propagate(m, m->theta)) != SYNTH_OK)
		goto done;
	set_marginals(m, mu);
	loss = loss_grad(m, meas, nmeas, mu, grad);
	if (m->step <= 0.0)
	{
		double		w = 0.0;

		for (int k = 0; k < nmeas; k++)
			w += 1.0 / meas[k].sigma2;
		m->step = 1.0 / (m->total * w);
	}
	for (int it = 0; it < iters; it++)
	{
		if (poll && poll(poll_arg))
		{
			st = SYNTH_STOPPED;
			goto done;
		}
		if ((st = md_step(m, meas, nmeas, mu, grad, trial, mu2, &loss)) != SYNTH_OK)
			goto done;
		m->iterations++;
	}
	st = SYNTH_OK;
done:
	free_tables(mu, m->nsets);
	free_tables(grad, m->nsets);
	free_tables(trial, m->nsets);
	free_tables(mu2, m->nsets);
	return st;
}

/*
 * The marginal over a set no clique holds: the model's potentials propagated
 * over the junction tree of its sets and `set` (the model factorises over it
 * too, as every set lies in one of its cliques), read from the clique that
 * holds `set`.  The largest tables built are that tree's, within the cap.
 */
static SynthStatus
marginal_augmented(const SynthModel *m, SynthSet set, SynthFactor *out)
{
	SynthModel	t = *m;
	SynthSet   *sets = malloc(sizeof(SynthSet) * (size_t) (m->nsets + 1));
	SynthStatus st = SYNTH_NOMEM;

	memset(t.belief, 0, sizeof(t.belief));
	memset(t.up, 0, sizeof(t.up));
	t.home = malloc(sizeof(int) * (size_t) (m->nsets + 1));
	if (sets != NULL && t.home != NULL)
	{
		for (int i = 0; i < m->nsets; i++)
			sets[i] = m->theta[i].set;
		sets[m->nsets] = set;
		st = SYNTH_TOOBIG;
		if (synth_tree_build(m->d, m->sizes, sets, m->nsets + 1, m->max_cells, &t.tree) &&
			(st = alloc_tree_tables(&t)) == SYNTH_OK &&
			(st = propagate(&t, m->theta)) == SYNTH_OK)
			synth_factor_sum_to(&t.belief[synth_tree_find(&t.tree, set)], out);
	}
	free_tree_tables(&t);
	free(t.home);
	free(sets);
	return st;
}

SynthStatus
synth_model_marginal(const SynthModel *m, SynthSet set, SynthFactor *out)
{
	int			c = synth_tree_find(&m->tree, set);
	SynthStatus st;

	if (!synth_factor_init(out, set, m->sizes, 0.0))
		return SYNTH_NOMEM;
	if (c >= 0)
	{
		synth_factor_sum_to(&m->belief[c], out);
		return SYNTH_OK;
	}
	if ((st = marginal_augmented(m, set, out)) != SYNTH_OK)
		synth_factor_free(out);
	return st;
}

/* the tree re-rooted at r: a parent before its children in order[], up[] their parents */
static void
reroot(const SynthTree *t, int r, int *order, int *up)
{
	int			n = 1;

	order[0] = r;
	up[r] = -1;
	for (int h = 0; h < n; h++)
	{
		int			c = order[h];

		for (int x = 0; x < t->ncliques; x++)
			if (x != up[c] && (t->parent[x] == c || t->parent[c] == x))
			{
				up[x] = c;
				order[n++] = x;
			}
	}
}

/*
 * The cliques' beliefs times the indicator of column a = v, calibrated again
 * (cond[] allocated like the beliefs): one pass outward from a's clique.
 */
static bool
condition(const SynthModel *m, int a, int v, const int *order, const int *up,
		  const SynthFactor *sepm, SynthFactor *cond)
{
	const SynthTree *t = &m->tree;
	int			r = order[0];
	int64_t		stride = 1;
	SynthFactor *b = &cond[r];

	/* the root: zero every cell whose a is not v */
	memcpy(b->val, m->belief[r].val, sizeof(double) * (size_t) b->ncells);
	for (int i = b->nvars - 1; i >= 0 && b->var[i] != a; i--)
		stride *= b->dim[i];
	for (int64_t x = 0; x < b->ncells; x++)
		if ((x / stride) % m->sizes[a] != v)
			b->val[x] = 0.0;
	for (int k = 1; k < t->ncliques; k++)
	{
		int			c = order[k],
					p = up[c];
		int			e = t->parent[c] == p ? c : p;	/* the edge's child in m->tree */
		SynthFactor msg;

		memcpy(cond[c].val, m->belief[c].val, sizeof(double) * (size_t) cond[c].ncells);
		if (!synth_factor_init(&msg, sepm[e].set, m->sizes, 0.0))
			return false;
		synth_factor_sum_to(&cond[p], &msg);
		synth_factor_div(&msg, &sepm[e]);
		synth_factor_mul(&cond[c], &msg);
		synth_factor_free(&msg);
	}
	return true;
}

/* copy tmp (over s without a) into out's slice a = v */
static void
put_slice(const SynthFactor *tmp, SynthFactor *out, int a, int v)
{
	int			codes[SYNTH_MAX_COLUMNS] = {0};

	for (int64_t x = 0; x < tmp->ncells; x++)
	{
		synth_factor_cell(tmp, x, codes);
		codes[a] = v;
		out->val[synth_factor_index(out, codes)] = tmp->val[x];
	}
}

/* the sets anchored at column a: conditioned passes, one per level */
static SynthStatus
marginals_at(const SynthModel *m, int a, const SynthSet *sets, int n, bool *done,
			 SynthFactor *out, const SynthFactor *sepm, SynthFactor *cond)
{
	const SynthTree *t = &m->tree;
	int			order[SYNTH_MAX_COLUMNS],
				up[SYNTH_MAX_COLUMNS];
	int			todo = 0;

	for (int i = 0; i < n; i++)
		if (!done[i] && (sets[i] & SYNTH_BIT(a)) &&
			synth_tree_find(t, sets[i] & ~SYNTH_BIT(a)) >= 0)
			todo++;
	if (todo == 0)
		return SYNTH_OK;
	reroot(t, synth_tree_find(t, SYNTH_BIT(a)), order, up);
	for (int v = 0; v < m->sizes[a]; v++)
	{
		if (!condition(m, a, v, order, up, sepm, cond))
			return SYNTH_NOMEM;
		for (int i = 0; i < n; i++)
		{
			SynthSet	rest = sets[i] & ~SYNTH_BIT(a);
			int			c;
			SynthFactor tmp;

			if (done[i] || !(sets[i] & SYNTH_BIT(a)) || (c = synth_tree_find(t, rest)) < 0)
				continue;
			if (!synth_factor_init(&tmp, rest, m->sizes, 0.0))
				return SYNTH_NOMEM;
			synth_factor_sum_to(&cond[c], &tmp);
			put_slice(&tmp, &out[i], a, v);
			synth_factor_free(&tmp);
		}
	}
	for (int i = 0; i < n; i++)
		if (!done[i] && (sets[i] & SYNTH_BIT(a)) &&
			synth_tree_find(t, sets[i] & ~SYNTH_BIT(a)) >= 0)
			done[i] = true;
	return SYNTH_OK;
}

SynthStatus
synth_model_marginals(const SynthModel *m, const SynthSet *sets, int n, SynthFactor *out)
{
	const SynthTree *t = &m->tree;
	bool	   *done = calloc((size_t) n + 1, sizeof(bool));
	SynthFactor sepm[SYNTH_MAX_COLUMNS],
				cond[SYNTH_MAX_COLUMNS];
	SynthStatus st = SYNTH_OK;

	memset(sepm, 0, sizeof(sepm));
	memset(cond, 0, sizeof(cond));
	if (done == NULL)
		return SYNTH_NOMEM;
	for (int i = 0; i < n; i++)
		out[i].val = NULL;
	for (int i = 0; i < n && st == SYNTH_OK; i++)
	{
		int			c = synth_tree_find(t, sets[i]);

		if (!synth_factor_init(&out[i], sets[i], m->sizes, 0.0))
			st = SYNTH_NOMEM;
		else if (c >= 0)
		{
			synth_factor_sum_to(&m->belief[c], &out[i]);
			done[i] = true;
		}
	}
	/* the separators' marginals, and scratch beliefs */
	for (int c = 0; c < t->ncliques && st == SYNTH_OK; c++)
	{
		if (!synth_factor_init(&cond[c], t->clique[c], m->sizes, 0.0))
			st = SYNTH_NOMEM;
		else if (t->parent[c] >= 0)
		{
			if (!synth_factor_init(&sepm[c], t->clique[c] & t->clique[t->parent[c]], m->sizes, 0.0))
				st = SYNTH_NOMEM;
			else
				synth_factor_sum_to(&m->belief[c], &sepm[c]);
		}
	}
	for (int a = 0; a < m->d && st == SYNTH_OK; a++)
		st = marginals_at(m, a, sets, n, done, out, sepm, cond);
	for (int i = 0; i < n && st == SYNTH_OK; i++)
		if (!done[i])
		{
			synth_factor_free(&out[i]);
			st = synth_model_marginal(m, sets[i], &out[i]);
		}
	for (int c = 0; c < SYNTH_MAX_COLUMNS; c++)
	{
		synth_factor_free(&sepm[c]);
		synth_factor_free(&cond[c]);
	}
	free(done);
	return st;
}
