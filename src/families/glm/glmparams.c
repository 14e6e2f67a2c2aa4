/*-------------------------------------------------------------------------
 *
 * glmparams.c
 *	  Options and public parameters of the continuous-weight mechanisms
 *	  (glmparams.h; docs/ALGORITHMS.md, "OPSamp", "L2-regularised GLMs" and
 *	  "Noisy gradient descent").
 *
 *-------------------------------------------------------------------------
 */
#include "families/glm/glmparams.h"

#include <math.h>

#include "core/auditmutant.h"
#include "state/glmclasses.h"
#include "mechanisms/classweights.h"
#include "base/options.h"
#include "core/calibrate.h"
#include "core/privquant.h"
#include "state/rowinput.h"

#define GLM_MAX_T		 ((int64) 1000000000)

const char *
glm_kind_aggname(GLMKind kind)
{
	switch (kind)
	{
		case GLM_KIND_LOGISTIC:
			return "dp_logistic";
		case GLM_KIND_SGD:
			return "dp_noisysgd";
		case GLM_KIND_LOGISTIC_MC:
			return "dp_logistic_multiclass";
		case GLM_KIND_SGD_MC:
			return "dp_noisysgd_multiclass";
		case GLM_KIND_AUTO:
			return "dp_auto";
		default:
			return "dp_opsamp";
	}
}

/* what the options' readers share: the kind and the parameters */
typedef struct GLMOptionArg
{
	GLMKind		kind;
	GLMParams  *p;
	DPOptionParser parser;
	bool		have_R;			/* "R", or a bound from "tune" */
} GLMOptionArg;

#define given(a, key) dp_option_given(&(a)->parser, key)

static void
parse_loss(JsonbValue *v, const char *key, void *field, void *arg)
{
	char	   *s = dp_option_string(v, key, "Use \"logistic\" or \"huber\".");

	if (strcmp(s, "logistic") == 0)
		*(GLMLoss *) field = GLM_LOSS_LOGISTIC;
	else if (strcmp(s, "huber") == 0)
		*(GLMLoss *) field = GLM_LOSS_HUBER;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown loss \"%s\"", s),
				 errhint("Use \"logistic\" or \"huber\".")));
}

static void
parse_method(JsonbValue *v, const char *key, void *field, void *arg)
{
	char	   *s = dp_option_string(v, key, "Use \"objective\", \"output\" or \"cms\".");

	if (strcmp(s, "objective") == 0)
		*(GLMMethod *) field = GLM_METHOD_OBJECTIVE;
	else if (strcmp(s, "output") == 0)
		*(GLMMethod *) field = GLM_METHOD_OUTPUT;
	else if (strcmp(s, "cms") == 0)
		*(GLMMethod *) field = GLM_METHOD_CMS;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown method \"%s\"", s),
				 errhint("Use \"objective\", \"output\" or \"cms\".")));
}

const char *const glm_auto_names[6] = {"objective", "cms", "output", "noisysgd", "ebm", "gbdt"};

static void
glmparams_candidates_bad(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("option \"candidates\" must be an array of at least two distinct names among \"objective\", \"cms\", \"output\", \"noisysgd\", \"ebm\" and \"gbdt\""),
			 errhint("The default is [\"objective\", \"noisysgd\"], and \"ebm\" with \"groups\"; ties go to the earlier of objective, cms, output, noisysgd, ebm, gbdt.")));
}

/* dp_auto's "candidates": a set of GLM_AUTO_* bits, at least two */
static void
glmparams_candidates(JsonbValue *v, const char *key, void *field, void *arg)
{
	JsonbContainer *jc;
	int			mask = 0,
				n;

	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		glmparams_candidates_bad();
	jc = v->val.binary.data;
	n = JsonContainerSize(jc);
	for (int i = 0; i < n; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(jc, i);
		int			bit = 0;

		for (int j = 0; e->type == jbvString && j < lengthof(glm_auto_names); j++)
			if (e->val.string.len == strlen(glm_auto_names[j]) &&
				strncmp(e->val.string.val, glm_auto_names[j], e->val.string.len) == 0)
				bit = 1 << j;
		if (bit == 0 || (mask & bit) != 0)
			glmparams_candidates_bad();
		mask |= bit;
	}
	if (n < 2)
		glmparams_candidates_bad();
	*(int *) field = mask;
}

/*
 * "metric" (dp_auto's score and a binary kind's operating point) and
 * dp_noisysgd's "tune_metric" (key): OP_METRIC_*
 */
static void
glmparams_metric(JsonbValue *v, const char *key, void *field, void *arg)
{
	GLMKind		kind = ((GLMOptionArg *) arg)->kind;

	if (kind != GLM_KIND_AUTO && strcmp(key, "metric") == 0)
		*(int *) field = operating_metric_option(v, glm_kind_aggname(kind));
	else
		*(int *) field = operating_metric_parse(v, key, glm_kind_aggname(kind),
												strcmp(key, "metric") == 0 ? "metric" : "tuning metric",
												kind == GLM_KIND_AUTO ?
												"Use \"accuracy\" (validation rows classified right), \"weighted_accuracy\" (their \"class_weight\" weights summed; the default when \"class_weight\" is given) or \"balanced_accuracy\" (weights from a private estimate of the label balance; the default)." :
												"Use \"accuracy\" (rows classified right), \"weighted_accuracy\" (their \"class_weight\" weights summed; the default when \"class_weight\" is given) or \"balanced_accuracy\" (weights from a private estimate of the label balance, made once before the runs; the default).");
}

/* "R": a public bound, or "private" (dp_logistic only: R-hat drawn by the final function) */
static void
glmparams_parse_R(JsonbValue *v, const char *key, void *field, void *arg)
{
	GLMKind		kind = ((GLMOptionArg *) arg)->kind;
	GLMParams  *p = ((GLMOptionArg *) arg)->p;
	bool		is_private = v->type == jbvString && v->val.string.len == 7 &&
		strncmp(v->val.string.val, "private", 7) == 0;

	if (is_private && kind != GLM_KIND_LOGISTIC && kind != GLM_KIND_SGD)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s: \"R\": \"private\" is not supported", glm_kind_aggname(kind)),
				 errhint("Only dp_logistic and dp_noisysgd estimate R privately; declare a public bound, e.g. '{\"R\": 1}'.")));
	if (is_private)
	{
		p->R_private = true;
		p->R = INFINITY;		/* rows stay unclipped until R-hat is drawn */
		return;
	}
	if ((kind == GLM_KIND_LOGISTIC || kind == GLM_KIND_SGD) && v->type == jbvString)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"R\" must be a number or \"private\""),
				 errhint("Pass the public bound rows are clipped to, e.g. '{\"R\": 1}', or '{\"R\": \"private\"}' to estimate it privately.")));
	p->R = dp_option_number(v, "R", 0, 1e6, true);
}

/* the multi-class kinds' "classes" (glmclasses.h) */
static void
glmparams_classes(JsonbValue *v, const char *key, void *field, void *arg)
{
	GLMOptionArg *a = (GLMOptionArg *) arg;

	glmclasses_parse(v, glm_kind_aggname(a->kind), &a->p->nclasses, &a->p->classes);
}

/* "class_weight": a positive's and a negative's weight (classweights.h) */
static void
glmparams_weights(JsonbValue *v, const char *key, void *field, void *arg)
{
	GLMOptionArg *a = (GLMOptionArg *) arg;

	classweights_parse(v, glm_kind_aggname(a->kind), &a->p->weight_pos, &a->p->weight_neg);
}

/* dp_noisysgd's "tune" grid (glmtune.h) */
static void
glmparams_tune(JsonbValue *v, const char *key, void *field, void *arg)
{
	glmtune_parse(v, (GLMTune *) field);
}

void
glm_budget_split(double total, double share, double *part, double *rest)
{
	*part = share * total;
	*rest = dp_budget_rest(total, *part);
}

void
glm_budget_split_rho(double rho, double share, double *rho_R, double *rho_m, double *eps_R)
{
	glm_budget_split(rho, share, rho_R, rho_m);
	*eps_R = sqrt(8.0 * *rho_R);
	/* rounded down until eps_R^2 <= 8 rho_R exactly (fma: the exact sign) */
	while (*eps_R > 0 && fma(*eps_R, *eps_R, -8.0 * *rho_R) > 0)
		*eps_R = nextafter(*eps_R, 0.0);
}

/* a * b and a + b (finite, non-negative) rounded up: never below the exact value */
static double
mul_up(double a, double b)
{
	double		x = a * b;

	return (isfinite(x) && fma(a, b, -x) > 0.0) ? nextafter(x, INFINITY) : x;
}

static double
add_up(double a, double b)
{
	double		x = a + b;

	/* the rounding error (x - a) - b is exact for |a| >= |b| (Fast2Sum) */
	if (a < b)
		return add_up(b, a);
	return (isfinite(x) && (x - a) - b < 0.0) ? nextafter(x, INFINITY) : x;
}

/*
 * Objective-Gauss's minimum lambda = 2 k beta R_eff^2 / epsilon (KST12 Thm 2;
 * k-fold for units of k rows: eps_J <= eps / 2), every step rounded up, so a
 * declared or default lambda at least this is never below the exact bound.
 */
static double
objective_lambda_min(const GLMParams *p, double epsilon)
{
	double		beta = p->loss == GLM_LOSS_LOGISTIC ? 0.25 : dp_scale_up(1.0, 2.0 * p->h);
	double		Reff2 = add_up(mul_up(p->R, p->R), p->intercept ? 1.0 : 0.0);

	return dp_scale_up(mul_up(mul_up(2.0 * p->rows_per_unit, beta), Reff2), epsilon);
}

/* the epsilon the objective runs at: eps less the balance estimate's share (glm.c) */
static double
glmparams_objective_eps(const GLMParams *p, double eps)
{
	double		eps_b,
				rest;

	if (p->balance_share <= 0)
		return eps;
	glm_budget_split(eps, p->balance_share, &eps_b, &rest);
	return rest;
}

/* Objective-Gauss needs lambda >= 2 beta R^2 / epsilon (KST12 Thm 2) */
static void
check_objective_lambda(const GLMParams *p, double epsilon)
{
	double		lmin = objective_lambda_min(p, epsilon);

	if (p->lambda < lmin && p->rows_per_unit > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dp_logistic: option \"lambda\" must be at least 2 k beta R^2 / epsilon = %g for the objective method with \"rows_per_unit\" k = %d",
						lmin, p->rows_per_unit),
				 errhint("Omit \"lambda\" to use that minimum.")));
	if (p->lambda < lmin)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dp_logistic: option \"lambda\" must be at least 2 beta R^2 / epsilon = %g for the objective method",
						lmin),
				 errhint("Omit \"lambda\" to use that minimum%s%s.",
						 p->R_private ? " (with \"R\": \"private\" the largest candidate R, 2^20, and the mechanism's epsilon count; the default scales with R-hat)" : "",
						 p->balance_share > 0 ? "; epsilon is the objective's, less the balance estimate's share (\"metric\": \"balanced_accuracy\")" : "")));
}

static void
tune_refused(int code, const char *msg, const char *hint)
{
	ereport(ERROR, (errcode(code), errmsg("dp_noisysgd: %s", msg), errhint("%s", hint)));
}

/*
 * "tune" against the other options, on public grounds: a grid key is not
 * also a plain option (R excepted: the rows are clipped to it, and the
 * grid's R must not exceed it; without it, to the grid's largest R).
 */
static void
glmparams_check_tune(GLMParams *p, GLMOptionArg *a)
{
	const GLMTune *t = &p->tune;

	if (t->npoints == 0)
		tune_refused(ERRCODE_INVALID_PARAMETER_VALUE,
					 "options \"tune_gamma\", \"tune_score_share\" and \"tune_metric\" need \"tune\"",
					 "Drop them, or pass a grid, e.g. {\"tune\": {\"T\": [10, 30, 100]}}.");
	if ((t->nT > 0 && given(a, "T")) || (t->nradius > 0 && given(a, "radius")))
		tune_refused(ERRCODE_INVALID_PARAMETER_VALUE,
					 "a key of \"tune\" is also given as an option",
					 "Give \"T\" and \"radius\" either as one value or in the grid of \"tune\".");
	if (p->R_private)
		tune_refused(ERRCODE_FEATURE_NOT_SUPPORTED,
					 "\"tune\" does not combine with \"R\": \"private\"",
					 "Put candidate bounds in the grid instead, e.g. {\"tune\": {\"R\": [0.5, 1, 2]}}.");
	/* the score recovers row counts from weighted ones, as the balance estimate does */
	if (Min(p->weight_pos, p->weight_neg) < OP_MIN_CLASS_WEIGHT)
		tune_refused(ERRCODE_FEATURE_NOT_SUPPORTED,
					 "\"tune\" needs class weights of at least 2^-10",
					 "Raise the smaller weight of \"class_weight\" to at least 0.0009765625, or train without \"tune\".");
	/* the score counts what "metric" asks for unless told otherwise */
	if (given(a, "metric") && t->metric != 0 && t->metric != p->metric)
		tune_refused(ERRCODE_INVALID_PARAMETER_VALUE,
					 "options \"metric\" and \"tune_metric\" differ",
					 "The tuned model's cut-off is for the metric its runs are scored by: give one of them.");
	if (t->metric == 0)
		p->tune.metric = p->metric;
	/* balanced accuracy without class weights trains with its estimated weights */
	p->tune.balance_train = !given(a, "class_weight") && t->metric == OP_METRIC_BALANCED;
	for (int i = 0; i < t->nR; i++)
	{
		if (a->have_R && t->R[i] > p->R)
			tune_refused(ERRCODE_INVALID_PARAMETER_VALUE,
						 "a value of \"R\" in \"tune\" exceeds the option \"R\"",
						 "The rows are clipped to \"R\" first: give grid values at most \"R\", or leave \"R\" out (the grid's largest value is used).");
		if (!a->have_R && (i == 0 || t->R[i] > p->R))
			p->R = t->R[i];
	}
	if (t->nR > 0)
		a->have_R = true;
}

/* dp_auto's defaults that follow from its other options (all public) */
static void
glmparams_auto_defaults(GLMParams *p, const GLMOptionArg *a)
{
	/* the score is "metric": balanced accuracy, or what the weights ask for */
	p->auto_metric = p->metric;
	/* balanced accuracy without class weights trains with its estimated weights */
	p->auto_balance_train = !given(a, "class_weight") && p->auto_metric == OP_METRIC_BALANCED;

	/*
	 * ebm is a default candidate only with "groups" (train() passes the
	 * declared domains): without them each coordinate is a numeric term
	 * binned over [-1, 1], which on one-hot columns trails the linear
	 * candidates yet wins the selection's low-budget scores
	 */
	if (!given(a, "candidates") && !given(a, "groups"))
		p->auto_candidates &= ~GLM_AUTO_EBM;

	/*
	 * With "groups" and neither "candidates" nor "select_share" given, the
	 * selection, which at its share cannot tell ebm from noisy GD, is
	 * skipped: the table's noisy size picks one of the two
	 * (GLM_AUTO_SIZE_MIN; bench/auto/gap.md), which trains at the budget
	 * less the estimate's
	 */
	if (!given(a, "candidates") && given(a, "groups") && !given(a, "select_share"))
	{
		p->auto_candidates = GLM_AUTO_NOISYSGD | GLM_AUTO_EBM;
		p->auto_by_size = true;
		p->select_share = 0;
		return;
	}
	/* with noisy GD a candidate, its head start needs less of the budget */
	if ((p->auto_candidates & GLM_AUTO_NOISYSGD) && !given(a, "select_share"))
		p->select_share = GLM_AUTO_DEFAULT_SHARE_NOISYSGD;
}

/*
 * A binary kind's metric where not given: what the class weights ask for
 * when they are given, else balanced accuracy.  Balanced accuracy outside
 * 'auto' and "tune" (whose selection estimates the balance) has the run
 * estimate it at GLM_BALANCE_SHARE of its budget; noisy GD and ebm train with
 * the estimated weights unless "class_weight" gives them, the logistic
 * methods without (docs/BENCHMARKS.md, "Operating point": they fit a
 * calibrated log-odds, which the estimate's cut-off suits as it is).
 */
static void
glmparams_metric_defaults(GLMKind kind, GLMParams *p, const GLMOptionArg *a)
{
	if (kind != GLM_KIND_AUTO && kind != GLM_KIND_LOGISTIC && kind != GLM_KIND_SGD)
		return;
	if (!given(a, "metric"))
		p->metric = given(a, "class_weight") ? OP_METRIC_WEIGHTED : OP_METRIC_BALANCED;
	if (kind == GLM_KIND_AUTO || p->tune.npoints > 0 || p->metric != OP_METRIC_BALANCED)
		return;
	/* the label counts are recovered from weighted ones: exact for w >= 2^-10 (tunecalib.h) */
	operating_check_balance_weights(p->weight_pos, p->weight_neg, glm_kind_aggname(kind));
	p->balance_share = GLM_BALANCE_SHARE;
	p->balance_train = !given(a, "class_weight") && kind != GLM_KIND_LOGISTIC;
}

/*
 * Noisy GD's clip and AdaGrad prior where not given: GLM_SGD_DEFAULT_*_WEIGHTED
 * where the rows train with class weights (given, or estimated for a
 * balanced metric), else none.  The prior is AdaGrad's: refused with "n".
 */
static void
glmparams_sgd_defaults(GLMParams *p, const GLMOptionArg *a)
{
	bool		weighted = given(a, "class_weight") || p->auto_balance_train || p->tune.balance_train ||
		p->balance_train;

	if (!given(a, "gradient_clip"))
		p->grad_clip = weighted ? GLM_SGD_DEFAULT_CLIP_WEIGHTED : GLM_SGD_DEFAULT_CLIP;
	if (given(a, "adagrad_prior") && p->n_public > 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: option \"adagrad_prior\" needs the AdaGrad step, which \"n\" replaces",
						glm_kind_aggname(a->kind)),
				 errhint("Drop \"n\" (the step then needs no row count), or drop \"adagrad_prior\".")));
	if (!given(a, "adagrad_prior"))
		p->adagrad_prior = weighted && p->n_public <= 0 ? GLM_SGD_DEFAULT_PRIOR_WEIGHTED : 0.0;
}

/* the enums are stored as ints (DP_OPTION_INT) */
StaticAssertDecl(sizeof(GLMMethod) == sizeof(int) && sizeof(GLMLoss) == sizeof(int),
				 "GLMMethod and GLMLoss must be of int size");

/* the kinds that accept an option (.accepts) */
#define L	(1U << GLM_KIND_LOGISTIC)
#define S	(1U << GLM_KIND_SGD)
#define O	(1U << GLM_KIND_OPSAMP)
#define LM	(1U << GLM_KIND_LOGISTIC_MC)
#define SM	(1U << GLM_KIND_SGD_MC)
#define A	(1U << GLM_KIND_AUTO)
#define GLM_ALL (L | S | O | LM | SM | A)

#define GLM_OPTION(key, type, field, dflt, ...) \
	DP_OPTION(key, type, GLMParams, field, dflt, __VA_ARGS__)
#define GLM_SHARE(key, field, dflt, ...) \
	GLM_OPTION(key, DP_OPTION_DOUBLE, field, dflt, .lo = 0, .hi = 1, .lo_open = true, \
			   .hi_open = true, __VA_ARGS__)

/*
 * In the order of each kind's hint; "n" and "sample_rows" repeat for the
 * kinds that list them elsewhere or not at all.  R (required; the defaults
 * of gradient_clip, adagrad_prior, metric and with noisysgd select_share
 * follow from the other options: glmparams_init) has no default.
 */
const DPOptionSpec glmparams_options[] = {
	DP_OPTION_FN("classes", glmparams_classes, .accepts = LM | SM, .label = "classes (required)"),
	DP_OPTION_FN("R", glmparams_parse_R, .accepts = L | S,
				 .label = "R (required: a number, or \"private\")"),
	DP_OPTION_FN("R", glmparams_parse_R, .accepts = O | LM | SM | A, .label = "R (required)"),
	GLM_SHARE("R_quantile", R_quantile, GLM_PRIVR_DEFAULT_QUANTILE, .accepts = L | S,
			  .hint = "It is the quantile of the rows' norms R-hat estimates, e.g. 0.9."),
	GLM_SHARE("R_share", R_share, GLM_PRIVR_DEFAULT_SHARE, .accepts = L | S,
			  .hint = "It is the share of the run's budget spent on R-hat, e.g. 0.1."),
	GLM_OPTION("method", DP_OPTION_INT, method, GLM_METHOD_OBJECTIVE, .parse = parse_method,
			   .accepts = L | LM),
	GLM_OPTION("loss", DP_OPTION_INT, loss, GLM_LOSS_LOGISTIC, .parse = parse_loss,
			   .accepts = GLM_ALL & ~O),
	GLM_OPTION("lambda", DP_OPTION_DOUBLE, lambda, -1, .lo = 0, .hi = 1e12, .lo_open = true,
			   .accepts = L | LM),
	GLM_OPTION("intercept", DP_OPTION_BOOL, intercept, true, .accepts = GLM_ALL),
	GLM_OPTION("h", DP_OPTION_DOUBLE, h, 0.5, .lo = 0, .hi = 1e3, .lo_open = true,
			   .accepts = GLM_ALL & ~O),
	GLM_OPTION("T", DP_OPTION_INT64, T, 0, .lo = 1, .hi = (double) GLM_MAX_T, .whole = true,
			   .hint = "T is the number of SGD steps.", .accepts = S | SM),
	GLM_OPTION("radius", DP_OPTION_DOUBLE, radius, 10.0, .lo = 0, .hi = 1e6, .lo_open = true,
			   .accepts = S | SM),
	GLM_OPTION("beta", DP_OPTION_DOUBLE, beta, 0.05, .lo = 0, .hi = 1, .lo_open = true,
			   .accepts = O),
	GLM_OPTION("n", DP_OPTION_DOUBLE, n_public, -1, .lo = 1, .hi = 1e12, .accepts = S | O),
	GLM_OPTION("class_weight", DP_OPTION_DOUBLE, weight_pos, 1.0, .parse = glmparams_weights,
			   .accepts = L | S | A),
	GLM_OPTION("class_weight", DP_OPTION_DOUBLE, weight_neg, 1.0, .accepts = DP_NO_KIND),
	DP_OPTION_FN("metric", glmparams_metric, .offset = offsetof(GLMParams, metric),
				 .accepts = L | S | A),
	GLM_OPTION("n", DP_OPTION_DOUBLE, n_public, -1, .lo = 1, .hi = 1e12, .accepts = A),
	GLM_OPTION("gradient_clip", DP_OPTION_DOUBLE, grad_clip, 0, .lo = 0, .hi = 1,
			   .lo_open = true, .no_default = true, .accepts = S | SM),
	GLM_OPTION("adagrad_prior", DP_OPTION_DOUBLE, adagrad_prior, 0, .lo = 0,
			   .hi = GLM_SGD_MAX_PRIOR, .no_default = true, .accepts = S | SM),
	GLM_OPTION("n", DP_OPTION_DOUBLE, n_public, -1, .lo = 1, .hi = 1e12, .accepts = SM),
	DP_OPTION_FN("tune", glmparams_tune, .offset = offsetof(GLMParams, tune), .accepts = S),
	GLM_OPTION("tune_gamma", DP_OPTION_DOUBLE, tune.gamma, 0, .lo = 1.0 / 1024, .hi = 1,
			   .no_default = true, .accepts = S),
	GLM_SHARE("tune_score_share", tune.score_share, GLM_TUNE_DEFAULT_SHARE, .accepts = S,
			  .hint = "It is the share of each tuning run's rho spent on its score, e.g. 0.1."),
	DP_OPTION_FN("tune_metric", glmparams_metric, .offset = offsetof(GLMParams, tune.metric),
				 .accepts = S),
	GLM_OPTION("candidates", DP_OPTION_INT, auto_candidates, GLM_AUTO_DEFAULT,
			   .parse = glmparams_candidates, .accepts = A),
	GLM_SHARE("select_share", select_share, GLM_AUTO_DEFAULT_SHARE, .accepts = A,
			  .hint = "It is the share of epsilon and delta spent on choosing the mechanism; the rest trains the chosen one, e.g. 0.1."),
	GLM_OPTION("noisysgd_head_start", DP_OPTION_DOUBLE, auto_head_start,
			   GLM_AUTO_DEFAULT_HEAD_START, .lo = 0, .hi = GLM_AUTO_MAX_HEAD_START, .accepts = A),
	GLM_OPTION("ebm_head_start", DP_OPTION_DOUBLE, auto_ebm_head_start,
			   GLM_AUTO_DEFAULT_EBM_HEAD_START, .lo = 0, .hi = GLM_AUTO_MAX_HEAD_START,
			   .accepts = A),
	/* the ebm candidate's terms (ebmparams.c), from train() */
	{.name = "groups", .accepts = A, .label = DP_HIDDEN},
	GLM_OPTION("rows_per_unit", DP_OPTION_INT, rows_per_unit, 1, .lo = 1,
			   .hi = DPOBJ_MAX_ROWS_PER_UNIT, .accepts = GLM_ALL),
	GLM_OPTION("sample_rows", DP_OPTION_INT64, sample_rows, 0, .lo = 1, .hi = PG_INT32_MAX,
			   .accepts = L | S),
	GLM_OPTION("sample_rows", DP_OPTION_INT64, sample_rows, 0, .lo = 1, .hi = PG_INT32_MAX,
			   .accepts = LM | SM, .label = DP_HIDDEN),
	{NULL}
};

const DPOptionSpec glmparams_opsamp_options[] = {
	GLM_OPTION("intercept", DP_OPTION_BOOL, intercept, false),
	{.base = glmparams_options}
};

#undef L
#undef S
#undef O
#undef LM
#undef SM
#undef A

/* the options of kind into a->p (dp_options_parse) */
static void
glmparams_parse(GLMKind kind, GLMOptionArg *a, Jsonb *options)
{
	a->kind = kind;
	a->parser = (DPOptionParser) {
		.spec = glmparams_options, .kind = 1U << kind, .example = "'{\"R\": 1}'",
			.aggname = glm_kind_aggname(kind), .params = a->p, .arg = a,
			.tail = kind == GLM_KIND_AUTO ? "; the candidates run with their own defaults, so their specific options (method, lambda, T, radius, gradient_clip, adagrad_prior) are not accepted" : NULL,
	};
	dp_options_parse(&a->parser, options);
#if DPOBJ_MUTANT_IS(units)
	a->p->rows_per_unit = DPOBJ_MUTANT_COUNT(a->p->rows_per_unit);	/* audit mutant */
#endif
	a->have_R = given(a, "R");
	a->p->tune.have_options = given(a, "tune_gamma") || given(a, "tune_score_share") ||
		given(a, "tune_metric");
}

void
glmparams_init(GLMKind kind, GLMParams *p, double epsilon, double delta, Jsonb *options)
{
	GLMOptionArg arg;

	memset(p, 0, sizeof(*p));
	p->epsilon = epsilon;
	p->delta = delta;
	dp_options_defaults(kind == GLM_KIND_OPSAMP ? glmparams_opsamp_options : glmparams_options,
						p);
	/* fixed, not an option: OPSamp's loss is the hinge */
	if (kind == GLM_KIND_OPSAMP)
		p->loss = GLM_LOSS_HINGE;

	dp_options_require(options, glm_kind_aggname(kind),
					   "Pass at least the norm bound, e.g. '{\"R\": 1}'.");
	arg.p = p;
	glmparams_parse(kind, &arg, options);
	glmparams_metric_defaults(kind, p, &arg);
	if (p->tune.npoints > 0 || p->tune.have_options)
		glmparams_check_tune(p, &arg);
	if (!arg.have_R)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: option \"R\" (the norm bound rows are clipped to) is required",
						glm_kind_aggname(kind)),
				 errhint("Pass a public bound, e.g. '{\"R\": 1}'%s.",
						 kind == GLM_KIND_LOGISTIC || kind == GLM_KIND_SGD ?
						 ", or '{\"R\": \"private\"}' to estimate it privately" :
						 "; it is never estimated from the data")));
	if ((given(&arg, "R_quantile") || given(&arg, "R_share")) && !p->R_private)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: options \"R_quantile\" and \"R_share\" need \"R\": \"private\"",
						glm_kind_aggname(kind)),
				 errhint("Drop them, or estimate R privately with '{\"R\": \"private\"}'.")));
	if (kind == GLM_KIND_AUTO)
		glmparams_auto_defaults(p, &arg);
	glmparams_sgd_defaults(p, &arg);
	if (glm_kind_multiclass(kind))
		glmclasses_require(p->nclasses, glm_kind_aggname(kind));
	/* one-vs-rest: each class's problem gets epsilon / K (glmclasses.h) */
	if (glm_kind_base(kind) == GLM_KIND_LOGISTIC && p->method == GLM_METHOD_OBJECTIVE &&
		p->lambda > 0 && p->R_private)
	{
		/* R-hat may be the largest candidate: lambda must do for it, at eps_m */
		GLMParams	q = *p;
		double		eps_R,
					eps_m;

		glm_budget_split(epsilon, p->R_share, &eps_R, &eps_m);
		q.R = privquant_candidate(PRIVQUANT_N - 1);
		check_objective_lambda(&q, glmparams_objective_eps(p, eps_m));
	}
	else if (glm_kind_base(kind) == GLM_KIND_LOGISTIC && p->method == GLM_METHOD_OBJECTIVE &&
			 p->lambda > 0)
		check_objective_lambda(p, glm_kind_multiclass(kind) ? dp_budget_part(epsilon, p->nclasses) :
							   glmparams_objective_eps(p, epsilon));
	/* m, gamma, eta from the row count: with units it changes, so public "n" */
	if (kind == GLM_KIND_OPSAMP && p->rows_per_unit > 1 && p->n_public <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dp_opsamp: option \"rows_per_unit\" needs the public option \"n\""),
				 errhint("Neighbouring tables of privacy units differ in their row count; pass a public estimate, e.g. '{\"R\": 1, \"n\": 10000, \"rows_per_unit\": 5}'.")));
	/* with units, CMS is no candidate (the default set does not hold it) */
	if (kind == GLM_KIND_AUTO && p->rows_per_unit > 1 && (p->auto_candidates & GLM_AUTO_CMS))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dp_auto: the candidate \"cms\" is not calibrated for privacy units"),
				 errhint("Leave \"candidates\" out (the default is objective, noisysgd and ebm), or list objective, output, noisysgd or ebm.")));
	/* CMS's density argument is for one changed row (docs/PRIVACY.md) */
	if (glm_kind_base(kind) == GLM_KIND_LOGISTIC && p->method == GLM_METHOD_CMS &&
		p->rows_per_unit > 1)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dp_logistic: the method \"cms\" is not calibrated for privacy units"),
				 errhint("Use \"method\": \"objective\" or \"output\" on a table protected with a privacy unit (docs/PRIVACY.md, \"Privacy units\").")));
}

void
glmparams_check_args(GLMKind kind, const char *aggname, double epsilon, double delta,
					 int d, Jsonb *options, GLMParams *p)
{
	dp_check_privacy_params(epsilon, delta);
	dp_check_dimension(aggname, d);
	glmparams_init(kind, p, epsilon, delta, options);
}

double
glmparams_reff(const GLMParams *p)
{
	return sqrt(p->R * p->R + (p->intercept ? 1.0 : 0.0));
}

double
glm_default_lambda(const GLMParams *p)
{
	if (p->lambda > 0)
		return p->lambda;
	/* the minimum is also the default of the other methods */
	return objective_lambda_min(p, p->epsilon);
}

/* logistic's "method": objective (0, the default), output (1) or cms (2) */
int
logistic_ledger_pick(Jsonb *options)
{
	const char *method = dp_options_string(options, "method");

	if (method == NULL || strcmp(method, "objective") == 0)
		return 0;
	if (strcmp(method, "output") == 0)
		return 1;
	if (strcmp(method, "cms") == 0)
		return 2;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("dp_logistic: option \"method\" must be \"objective\", \"output\" or \"cms\""),
			 errhint("The default is \"objective\".")));
	return 0;					/* keep compiler quiet */
}

/* noisy GD with "tune": noisysgd_tune (1) */
int
noisysgd_ledger_pick(Jsonb *options)
{
	return getKeyJsonValueFromContainer(&options->root, "tune", 4, NULL) != NULL ? 1 : 0;
}
