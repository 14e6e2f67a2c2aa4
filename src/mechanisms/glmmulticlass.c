/*-------------------------------------------------------------------------
 *
 * glmmulticlass.c
 *	  One-vs-rest (OvR) multi-class training on the binary solvers:
 *	  dpobj.dp_logistic_multiclass (Objective-Gauss, Output-Gauss, CMS) and
 *	  dpobj.dp_noisysgd_multiclass (noisy full-batch gradient descent).
 *
 * The state (dpobj.glm_state of a multi-class kind, glmstate.c) holds the
 * distinct rows (clipped features, class index).  The final function
 * groups them by features: one distinct feature vector with a count per
 * class.  Class k's binary problem is "class k against the rest": the same
 * distinct vectors, positive count that of class k, negative count the
 * others'.  Each of the K problems is solved by the binary mechanism's own
 * code (glm.c, noisysgd.c), with its share of the budget:
 *
 *	  replace-one neighbours change one row's features AND label, so every
 *	  one of the K binary data sets changes by one replaced row.  K
 *	  mechanisms on the same data compose:
 *	    Objective-Gauss: (eps/K, delta/K) each, basic composition;
 *	    CMS: eps/K each (pure DP);
 *	    Output-Gauss and noisy GD: rho/K-zCDP each, rho = zcdp_rho(eps,
 *	    delta) (calibrate.c), K releases compose to rho-zCDP, hence
 *	    (eps, delta)-DP by the same conversion as the binary mechanisms.
 *	  docs/PRIVACY.md "Multi-class one-vs-rest" has the derivation.
 *
 * One charge of (eps, delta) for the run, before any noise.  The model
 * (model.h) holds the K parameter vectors flattened class by class
 * (weights[k * p .. k * p + p - 1], p = d + 1 with an intercept, whose
 * value is the vector's last entry), bias 0, and params "classes" (the
 * declared labels, in order) and "dims" [K, p]; dpobj.predict_class()
 * (predictclass.c) takes the argmax of the K scores.
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpobj.h"

#include <math.h>

#include "mechanisms/glm.h"
#include "mechanisms/glmmulticlass.h"
#include "state/glmstate.h"
#include "mechanisms/mechanism.h"
#include "model/model.h"
#include "base/random.h"

#include "utils/json.h"

PG_FUNCTION_INFO_V1(dpobj_logistic_mc_finalfn);
PG_FUNCTION_INFO_V1(dpobj_noisysgd_mc_finalfn);

/* the state's rows grouped by features: nrows distinct x, K counts each */
typedef struct MCRows
{
	int			d;
	int			K;
	int			nrows;
	double	   *x;				/* nrows x d */
	int64	   *cnt;			/* nrows x K */
} MCRows;

/*
 * Groups the canonical rows (x, class) of a multi-class state by x: equal
 * feature vectors are adjacent in canonical order (x comes first), and
 * their words are equal exactly when their bits are (no -0.0, no NaN).
 */
static void
mc_group(const GLMState *s, MCRows *m)
{
	int			d = s->d - 1;
	int			K = s->params.nclasses;

	m->d = d;
	m->K = K;
	m->nrows = 0;
	m->x = palloc_extended(sizeof(double) * d * Max(s->nrows, 1), MCXT_ALLOC_HUGE);
	m->cnt = palloc_extended(sizeof(int64) * K * Max(s->nrows, 1),
							 MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	for (int u = 0; u < s->nrows; u++)
	{
		const double *row = s->x + (Size) u * s->d;
		int			k = (int) row[d];

		if (m->nrows == 0 ||
			memcmp(m->x + (Size) (m->nrows - 1) * d, row, sizeof(double) * d) != 0)
			memcpy(m->x + (Size) m->nrows++ * d, row, sizeof(double) * d);
		m->cnt[(Size) (m->nrows - 1) * K + k] += s->pos[u] + s->neg[u];
	}
}

/* class k against the rest, as a binary state of the base kind over m's rows */
static GLMState *
mc_view(const GLMState *s, const MCRows *m, int k)
{
	GLMState   *v = palloc0(sizeof(GLMState));

	v->kind = glm_kind_base(s->kind);
	v->d = m->d;
	v->params = s->params;
	v->options = s->options;
	v->nrows = m->nrows;
	v->x = m->x;
	v->pos = palloc_extended(sizeof(int64) * Max(m->nrows, 1), MCXT_ALLOC_HUGE);
	v->neg = palloc_extended(sizeof(int64) * Max(m->nrows, 1), MCXT_ALLOC_HUGE);
	for (int u = 0; u < m->nrows; u++)
	{
		int64		tot = 0;

		for (int j = 0; j < m->K; j++)
			tot += m->cnt[(Size) u * m->K + j];
		v->pos[u] = m->cnt[(Size) u * m->K + k];
		v->neg[u] = tot - v->pos[u];
	}
	return v;
}

/* the K binary views of a multi-class state, in CurrentMemoryContext */
static GLMState **
mc_views(const GLMState *s)
{
	MCRows		m;
	GLMState  **views = palloc(sizeof(GLMState *) * s->params.nclasses);

	mc_group(s, &m);
	for (int k = 0; k < s->params.nclasses; k++)
		views[k] = mc_view(s, &m, k);
	return views;
}

/*
 * Each class's share of the budget for dp_logistic's methods: (eps/K,
 * delta/K) for the objective methods; Output-Gauss keeps (eps, delta) and
 * glm_calibrate() divides its rho by K (params.nclasses).
 */
static void
mc_logistic_calibrate(const GLMParams *p, int d, GLMParams *pk, GLMCalibration *c)
{
	*pk = *p;
	if (p->method != GLM_METHOD_OUTPUT)
	{
		pk->epsilon = p->epsilon / p->nclasses;
		pk->delta = p->delta / p->nclasses;
	}
	glm_calibrate(pk, d, c);
}

/* "multiclass", "classes" and "dims" of a multi-class model's params */
static void
mc_params(StringInfo buf, const GLMParams *p, int pp)
{
	model_params_text(buf, "multiclass", "one_vs_rest");
	appendStringInfoString(buf, ", \"classes\": [");
	for (int k = 0; k < p->nclasses; k++)
	{
		if (k > 0)
			appendStringInfoString(buf, ", ");
		escape_json(buf, p->classes[k]);
	}
	appendStringInfo(buf, "], \"dims\": [%d, %d]", p->nclasses, pp);
}

void
logistic_mc_check_args(const char *aggname, double epsilon, double delta, int d,
					   Jsonb *options)
{
	GLMParams	p,
				pk;
	GLMCalibration c;

	glmparams_check_args(GLM_KIND_LOGISTIC_MC, aggname, epsilon, delta, d, options, &p);
	mc_logistic_calibrate(&p, d, &pk, &c);
}

void
noisysgd_mc_check_args(const char *aggname, double epsilon, double delta, int d,
					   Jsonb *options)
{
	noisysgd_check_kind(GLM_KIND_SGD_MC, aggname, epsilon, delta, d, options);
}

Datum
dpobj_logistic_mc_finalfn(PG_FUNCTION_ARGS)
{
	GLMState   *state;
	DPProtectedContext *pctx;
	GLMParams	pk;
	GLMCalibration c;
	GLMState  **views;
	struct GLMSolveDesign **X;
	double	   *work,
			   *theta;
	int			pp,
				d,
				K;
	int64		ledger_id;
	gsl_rng    *rng;
	StringInfoData params;
	char	   *mech;

	state = glmstate_final_begin(fcinfo, GLM_KIND_LOGISTIC_MC, &pctx);
	if (state == NULL)
		PG_RETURN_NULL();		/* no rows, direct path: nothing runs */

	d = state->d - 1;
	K = state->params.nclasses;
	mc_logistic_calibrate(&state->params, d, &pk, &c);
	pp = d + (pk.intercept ? 1 : 0);
	theta = palloc0(sizeof(double) * (Size) K * pp);
	/* the work memory (public size) and the K designs, all before the charge */
	work = glm_minimise_work(pp);
	views = mc_views(state);
	X = palloc(sizeof(struct GLMSolveDesign *) * K);
	for (int k = 0; k < K; k++)
		X[k] = glm_minimise_design(views[k], pk.intercept);
	mech = psprintf("%s_ovr", glm_mechanism_name(pk.method));

	/* 1. charge first: one run of (eps, delta) */
	ledger_id = mechanism_charge(fcinfo, pctx, mech, state->params.epsilon,
								 state->params.delta);

	/* 2.-3. each class's noise and minimiser */
	rng = dpobj_rng_new();
	PG_TRY();
	{
		for (int k = 0; k < K; k++)
			glm_release_point(rng, &pk, &c, X[k], work, theta + (Size) k * pp, pp, ledger_id);
	}
	PG_FINALLY();
	{
		dpobj_rng_free(rng);
	}
	PG_END_TRY();
	ledger_finish(ledger_id, LEDGER_OUTCOME_RELEASED, "one_vs_rest");

	model_params_begin(&params);
	mc_params(&params, &pk, pp);
	glm_calibration_params(&params, &pk, &c, d);
	if (pk.method != GLM_METHOD_OUTPUT)
	{
		model_params_float(&params, "class_epsilon", pk.epsilon);
		if (pk.method == GLM_METHOD_OBJECTIVE)
			model_params_float(&params, "class_delta", pk.delta);
	}
	model_params_end(&params);
	PG_RETURN_DATUM(model_build(fcinfo, mech, theta, K * pp, 0.0,
								state->params.epsilon, state->params.delta, &params));
}

/* the K designs of noisy GD, before the charge */
typedef struct MCDesign
{
	double	   *X;
	double	   *cnt;
	double	   *y;
	int64		nobs;
} MCDesign;

Datum
dpobj_noisysgd_mc_finalfn(PG_FUNCTION_ARGS)
{
	GLMState   *state;
	DPProtectedContext *pctx;
	GLMParams  *p;
	GLMState  **views;
	MCDesign   *D;
	double	   *theta;
	int			pp = 0,
				d,
				K;
	double		Reff,
				s,
				denom,
				rho,
				lattice;
	uint64		sigma2;
	int64		T,
				ledger_id;
	gsl_rng    *rng;
	StringInfoData params;

	state = glmstate_final_begin(fcinfo, GLM_KIND_SGD_MC, &pctx);
	if (state == NULL)
		PG_RETURN_NULL();		/* no rows, direct path: nothing runs */

	p = &state->params;
	d = state->d - 1;
	K = p->nclasses;
	views = mc_views(state);
	D = palloc(sizeof(MCDesign) * K);
	for (int k = 0; k < K; k++)
		glm_design(views[k], p->intercept, &D[k].X, &D[k].cnt, &D[k].y, &D[k].nobs, &pp);
	pp = d + (p->intercept ? 1 : 0);
	/* public inputs only: eps, delta, K, R, T, radius, the option "n" */
	noisysgd_noise(p, pp, &Reff, &T, &rho, &lattice, &sigma2);
	s = sqrt((double) sigma2) * lattice;
	denom = noisysgd_step_denom(p, pp, Reff, s);
	theta = palloc0(sizeof(double) * (Size) K * pp);

	/* 1. charge first: one run of (eps, delta) */
	ledger_id = mechanism_charge(fcinfo, pctx, "noisysgd_ovr", p->epsilon, p->delta);

	/* 2. each class: T noisy projected gradient steps at rho / K */
	rng = dpobj_rng_new();
	PG_TRY();
	{
		for (int k = 0; k < K; k++)
			noisysgd_descend(p, D[k].X, D[k].cnt, D[k].y, D[k].nobs, pp, T, lattice,
							 sigma2, denom, rng, ledger_id, theta + (Size) k * pp);
	}
	PG_FINALLY();
	{
		dpobj_rng_free(rng);
	}
	PG_END_TRY();
	ledger_finish(ledger_id, LEDGER_OUTCOME_RELEASED, "gd_one_vs_rest");

	model_params_begin(&params);
	mc_params(&params, p, pp);
	glm_params_model(&params, p, d);
	model_params_float(&params, "radius", p->radius);
	model_params_float(&params, "gradient_clip", p->grad_clip);
	model_params_float(&params, "adagrad_prior", p->adagrad_prior);
	model_params_int(&params, "T", T);
	model_params_float(&params, "sigma", s);
	model_params_float(&params, "class_rho", rho);
	model_params_float(&params, "lattice", lattice);
	model_params_text(&params, "noise", "discrete_gaussian");
	if (p->n_public > 0)
		model_params_float(&params, "n", p->n_public);
	model_params_end(&params);
	PG_RETURN_DATUM(model_build(fcinfo, "noisysgd_ovr", theta, K * pp, 0.0,
								p->epsilon, p->delta, &params));
}
