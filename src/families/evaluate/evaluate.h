/*-------------------------------------------------------------------------
 *
 * evaluate.h
 *	  What the two halves of the private evaluation share: the
 *	  classification release (evaluate.c, dp_evaluate with a boolean label)
 *	  the regression release (evalreg.c, dp_evaluate with a float8
 *	  label) and the multi-class release (evalmc.c, dp_evaluate with a text
 *	  label).  Both keep a float8[] state whose first three entries are the
 *	  run's epsilon, delta and number of features, read the model from the
 *	  options {"model": <dpobj.model as text>} and charge as "evaluate".
 *	  Its entry: evaluate_check_args, evaluate_label_kind and
 *	  EVALUATE_FAMILY_MECHANISMS, of evaluate_family (evaluate.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_EVALUATE_H
#define DPOBJ_EVALUATE_H

#include "postgres.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/jsonb.h"

#include "model/predict.h"
#include "context/protected.h"
#include "state/countstate.h"
#include "state/rowinput.h"
#include "mechanisms/mechanism.h"

#define EVAL_AGGNAME	"dp_evaluate"

/* epsilon is used as at most this much (and at least 2^-20) */
#define EVAL_EPS_UNIT	1048576.0
#define EVAL_EPS_MAX	2048.0

/* the dpobj.model of the options {"model": text}; errors on public grounds */
extern Datum evaluate_model_datum(Jsonb *options);

/*
 * the model of the options, validated once per aggregate call (fn_extra);
 * argno: options is that argument of fcinfo, or -1 (from elsewhere)
 */
extern ModelPredictor *evaluate_model(FunctionCallInfo fcinfo, Jsonb *options, int argno);

/* refuses a model whose kind does not fit the label's type (public grounds) */
extern void evaluate_check_kind(const ModelPredictor *m, bool real_label);

/* k of the options' "rows_per_unit" (1 when absent); refuses unknown options */
extern int	evaluate_options_k(Jsonb *options);

/*
 * A transition function's state for this row: on the first row (*state
 * NULL) the run's arguments are checked (evaluate_check_args) and a state of
 * nstate entries is made, *created telling the caller to fill in its own
 * first entries; on every row the run's parameters are compared with the
 * first row's.  Returns the state's values.
 */
extern double *evaluate_row_state(ArrayType **state, const DPRowInput *row, Jsonb *options,
								  int nstate, bool *created);

/* an evaluation run's state, as the driver's admit gives it (DPRun.state) */
typedef struct EvalRun
{
	double	   *s;				/* the state's values, NULL without a row */
	int			nstate;			/* their number */
	double		eps;			/* the run's epsilon and delta */
	double		delta;
	double		eps_noise;		/* epsilon / k for units of up to k rows */
	int64		p;				/* the counts' noise: eps_used = p / 2^20 */
	int64		p_auc;			/* a classifier's score histograms' (evaluate.c) */
	int			ncounts;		/* the released counts or sums */
	int64	   *out;			/* and their noisy values */
} EvalRun;

/*
 * The driver's admit (mechanism.h) for states of nstate entries: the
 * state's values, the claimed protected context (mechanism_claim), the
 * run's epsilon and delta, and the epsilon the noise may use.  NULL on the
 * direct path with no row: nothing runs.
 */
extern void *evaluate_admit(FunctionCallInfo fcinfo, int nstate, DPProtectedContext **pctx);

/*
 * The count kinds' calibrate: eps_used = p / 2^20 <= eps / k (a public
 * refusal below 2^-20), out for ncounts counts, the charge (work: the
 * kind's own).
 */
extern void evaluate_count_calibrate(DPRun *run, void *work);

/*
 * After the charge: discrete Laplace of scale 2 / eps_used = 2^21 / p on
 * each of the ncounts counts from s[first] (0 without a row).
 */
extern void evaluate_count_compute(DPRun *run, int first);

/* the variance of the counts' noise (q = exp(-1/scale): 2q / (1 - q)^2) */
extern double evaluate_count_variance(int64 p);

/*
 * The ratio x / (x + y) of noisy counts (clamped to [0, 1]) and its
 * variance: binomial sampling plus the noise's variances var_x on x and
 * var_y on y (delta method).  false when x + y <= 0.
 */
extern bool evaluate_ratio_value(double x, double y, double var_x, double var_y,
								 double *r, double *var);

/* appends ", key: {estimate r, ci95 r -+ 1.96 sqrt(var) within [0, 1]}" */
extern void evaluate_estimate(StringInfo buf, const char *key, double r, double var);

/* evaluate_ratio_value appended as evaluate_estimate, or ", key: null" */
extern void evaluate_ratio(StringInfo buf, const char *key, double x, double y,
						   double var_x, double var_y);

/* dp_evaluate's argument check (its registry entry), before any row is read */
extern void evaluate_check_args(const char *aggname, double epsilon, double delta,
								int d, Jsonb *options);
/*
 * The label evaluate's model is evaluated on (public: from the model in the
 * options): a classifier's boolean, a regression's float8 or a multi-class
 * model's class (text).
 */
extern TrainLabel evaluate_label_kind(Jsonb *options);

/*
 * The family's entry (DPMechanism, mechanisms/family.h; in evaluate_family,
 * evaluate.c): run through dpobj.evaluate() only
 */
#define EVALUATE_FAMILY_MECHANISMS \
	{.name = "evaluate", .aggregate = "dpobj.dp_evaluate", .aggname = "dp_evaluate", \
		.check_args = evaluate_check_args, .label_of = evaluate_label_kind, .parallel = true, \
		.evaluate_only = true, .entry = "dpobj.evaluate()", .delta_zero = true, \
	.ledger = DP_LEDGER({"evaluate", LEDGER_COST_PURE})}

#endif							/* DPOBJ_EVALUATE_H */
