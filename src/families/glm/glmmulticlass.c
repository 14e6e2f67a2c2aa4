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

#include "core/calibrate.h"
#include "families/glm/glm.h"
#include "families/glm/glmstate.h"
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
	int			d = s->rows.d - 1;
	int			K = s->params.nclasses;

	m->d = d;
	m->K = K;
	m->nrows = 0;
	m->x = palloc_extended(sizeof(double) * d * Max(s->rows.nrows, 1), MCXT_ALLOC_HUGE);
	m->cnt = palloc_extended(sizeof(int64) * K * Max(s->rows.nrows, 1),
							 MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	for (int u = 0; u < s->rows.nrows; u++)
	{
		const double *row = s->rows.x + (Size) u * s->rows.d;
		int			k = (int) row[d];

		if (m->nrows == 0 ||
			memcmp(m->x + (Size) (m->nrows - 1) * d, row, sizeof(double) * d) != 0)
			memcpy(m->x + (Size) m->nrows++ * d, row, sizeof(double) * d);
		m->cnt[(Size) (m->nrows - 1) * K + k] += s->rows.pos[u] + s->rows.neg[u];
	}
}

/* class k against the rest, as a binary state of the base kind over m's rows */
static GLMState *
mc_view(const GLMState *s, const MCRows *m, int k)
{
	GLMState   *v = palloc0(sizeof(GLMState));

	v->kind = glm_kind_base(s->kind);
	v->rows.d = m->d;
	v->params = s->params;
	v->options = s->options;
	v->rows.nrows = m->nrows;
	v->rows.x = m->x;
	v->rows.pos = palloc_extended(sizeof(int64) * Max(m->nrows, 1), MCXT_ALLOC_HUGE);
	v->rows.neg = palloc_extended(sizeof(int64) * Max(m->nrows, 1), MCXT_ALLOC_HUGE);
	for (int u = 0; u < m->nrows; u++)
	{
		int64		tot = 0;

		for (int j = 0; j < m->K; j++)
			tot += m->cnt[(Size) u * m->K + j];
		v->rows.pos[u] = m->cnt[(Size) u * m->K + k];
		v->rows.neg[u] = tot - v->rows.pos[u];
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
		/* rounded down: K shares sum to at most (eps, delta) exactly */
		pk->epsilon = dp_budget_part(p->epsilon, p->nclasses);
		pk->delta = dp_budget_part(p->delta, p->nclasses);
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

/* the K designs of noisy GD, before the charge */
typedef struct MCDesign
{
	double	   *X;
	double	   *cnt;
	double	   *y;
	int64		nobs;
} MCDesign;

/* a one-vs-rest run's calibration, designs and output (DPRun.work) */
typedef struct MCRun
{
	GLMParams	pk;				/* a class's parameters */
	GLMCalibration c;
	struct GLMSolveDesign **X;	/* dp_logistic_multiclass: the K designs */
	MCDesign   *D;				/* noisy GD: the K designs */
	double	   *work,
			   *theta;
	int			pp;
	int64		T;				/* noisy GD's noise */
	double		Reff,
				s,
				denom,
				rho,
				lattice;
	uint64		sigma2;
} MCRun;

static void
mc_logistic_calibrate_run(DPRun *run)
{
	GLMState   *state = run->state;
	MCRun	   *r = palloc0(sizeof(MCRun));
	int			d = state->rows.d - 1;
	int			K = state->params.nclasses;
	GLMState  **views;

	mc_logistic_calibrate(&state->params, d, &r->pk, &r->c);
	r->pp = d + (r->pk.intercept ? 1 : 0);
	r->theta = palloc0(sizeof(double) * (Size) K * r->pp);
	/* the work memory (public size) and the K designs, all before the charge */
	r->work = glm_minimise_work(r->pp);
	views = mc_views(state);
	r->X = palloc(sizeof(struct GLMSolveDesign *) * K);
	for (int k = 0; k < K; k++)
		r->X[k] = glm_minimise_design(views[k], r->pk.intercept);
	/* one run of (eps, delta) */
	mechanism_calibrated(run, r, psprintf("%s_ovr", glm_mechanism_name(r->pk.method)),
						 state->params.epsilon, state->params.delta);
}

/* each class's noise and minimiser */
static void
mc_logistic_compute(DPRun *run)
{
	MCRun	   *r = run->work;

	for (int k = 0; k < ((GLMState *) run->state)->params.nclasses; k++)
		glm_release_point(run->rng, &r->pk, &r->c, r->X[k], r->work,
						  r->theta + (Size) k * r->pp, r->pp, run->ledger_id);
	run->detail = "one_vs_rest";
}

static Datum
mc_logistic_release(DPRun *run)
{
	GLMState   *state = run->state;
	MCRun	   *r = run->work;
	StringInfoData params;

	model_params_begin(&params);
	mc_params(&params, &r->pk, r->pp);
	glm_calibration_params(&params, &r->pk, &r->c, state->rows.d - 1);
	if (r->pk.method != GLM_METHOD_OUTPUT)
	{
		model_params_float(&params, "class_epsilon", r->pk.epsilon);
		if (r->pk.method == GLM_METHOD_OBJECTIVE)
			model_params_float(&params, "class_delta", r->pk.delta);
	}
	model_params_end(&params);
	return model_build(run->fcinfo, run->ledger_name, r->theta, state->params.nclasses * r->pp,
					   0.0, state->params.epsilon, state->params.delta, &params);
}

MECHANISM_FINAL_FUNCTION(dpobj_logistic_mc_finalfn,
						 .admit = glm_admit, .kind = GLM_KIND_LOGISTIC_MC,
						 .calibrate = mc_logistic_calibrate_run,
						 .compute = mc_logistic_compute,
						 .release = mc_logistic_release)

static void
mc_sgd_calibrate(DPRun *run)
{
	GLMState   *state = run->state;
	GLMParams  *p = &state->params;
	MCRun	   *r = palloc0(sizeof(MCRun));
	int			K = p->nclasses;
	GLMState  **views = mc_views(state);

	r->D = palloc(sizeof(MCDesign) * K);
	for (int k = 0; k < K; k++)
		glm_design(views[k], p->intercept, &r->D[k].X, &r->D[k].cnt, &r->D[k].y,
				   &r->D[k].nobs, &r->pp);
	r->pp = state->rows.d - 1 + (p->intercept ? 1 : 0);
	/* public inputs only: eps, delta, K, R, T, radius, the option "n" */
	noisysgd_noise(p, r->pp, &r->Reff, &r->T, &r->rho, &r->lattice, &r->sigma2);
	r->s = sqrt((double) r->sigma2) * r->lattice;
	r->denom = noisysgd_step_denom(p, r->pp, r->Reff, r->s);
	r->theta = palloc0(sizeof(double) * (Size) K * r->pp);
	/* one run of (eps, delta) */
	mechanism_calibrated(run, r, "noisysgd_ovr", p->epsilon, p->delta);
}

/* each class: T noisy projected gradient steps at rho / K */
static void
mc_sgd_compute(DPRun *run)
{
	GLMParams  *p = &((GLMState *) run->state)->params;
	MCRun	   *r = run->work;

	for (int k = 0; k < p->nclasses; k++)
		noisysgd_descend(p, r->D[k].X, r->D[k].cnt, r->D[k].y, r->D[k].nobs, r->pp, r->T,
						 r->lattice, r->sigma2, r->denom, run->rng, run->ledger_id,
						 r->theta + (Size) k * r->pp);
	run->detail = "gd_one_vs_rest";
}

static Datum
mc_sgd_release(DPRun *run)
{
	GLMState   *state = run->state;
	GLMParams  *p = &state->params;
	MCRun	   *r = run->work;
	StringInfoData params;

	model_params_begin(&params);
	mc_params(&params, p, r->pp);
	glm_params_model(&params, p, state->rows.d - 1);
	model_params_float(&params, "radius", p->radius);
	model_params_float(&params, "gradient_clip", p->grad_clip);
	model_params_float(&params, "adagrad_prior", p->adagrad_prior);
	model_params_int(&params, "T", r->T);
	model_params_float(&params, "sigma", r->s);
	model_params_float(&params, "class_rho", r->rho);
	model_params_float(&params, "lattice", r->lattice);
	model_params_text(&params, "noise", "discrete_gaussian");
	if (p->n_public > 0)
		model_params_float(&params, "n", p->n_public);
	model_params_end(&params);
	return model_build(run->fcinfo, "noisysgd_ovr", r->theta, p->nclasses * r->pp, 0.0,
					   p->epsilon, p->delta, &params);
}

MECHANISM_FINAL_FUNCTION(dpobj_noisysgd_mc_finalfn, .admit = glm_admit,
						 .kind = GLM_KIND_SGD_MC, .calibrate = mc_sgd_calibrate, .compute = mc_sgd_compute,
						 .release = mc_sgd_release)
