/*-------------------------------------------------------------------------
 *
 * evalmc.c
 *	  Private evaluation of a one-vs-rest multi-class model (docs/PRIVACY.md
 *	  "Private evaluation of a multi-class model"):
 *
 *	  dpobj.dp_evaluate(features, label text, epsilon, delta, options)
 *	      the text-label overload of the aggregate; options {"model": ...}
 *	  dpobj.evaluate(rel, model, ...) with a multi-class model (params
 *	      "classes" and "dims") runs it on the protected table (train.c
 *	      takes the label as a class, text or integer, from the model)
 *
 *	  The release: the K x K confusion counts (true class x predicted
 *	  class, dpobj.predict_class) in the model's declared class order,
 *	  each plus independent discrete Laplace noise of scale 2/eps
 *	  (dpnoise.c).  Replacing one row moves one unit between two cells
 *	  (adding or removing one changes one cell by one): l1 sensitivity 2,
 *	  so the release is eps-DP (delta charged, not needed); a privacy unit
 *	  of up to k rows gets the noise of eps / k.  Accuracy, the majority
 *	  baseline, macro-averaged recall and each class's recall and
 *	  precision follow from the noisy counts only, with approximate 95 %
 *	  intervals that include the noise (evaluate.h).
 *
 *	  The model is validated before the charge (evaluate_check_args, at
 *	  most DPOBJ_MAX_CLASSES classes); a row whose label is not a declared
 *	  class or whose features are not finite is an error on the direct
 *	  path and dropped on the protected path (a NULL label too: rowinput.c).
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpobj.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/jsonb.h"

#include "core/dpnoise.h"
#include "families/evaluate/evaluate.h"
#include "state/glmclasses.h"
#include "mechanisms/mechanism.h"
#include "model/modelargs.h"
#include "model/predictclass.h"
#include "base/random.h"
#include "state/rowinput.h"

PG_FUNCTION_INFO_V1(dpobj_evalmc_transfn);
PG_FUNCTION_INFO_V1(dpobj_evalmc_combinefn);
PG_FUNCTION_INFO_V1(dpobj_evalmc_finalfn);

/* the state: the run's entries, K, then the K x K counts (true class major) */
#define EVM_K		(CS_K + 1)
#define EVM_CELLS	(CS_K + 2)
#define EVM_NSTATE(K)	(EVM_CELLS + (K) * (K))

/* a multi-class model (predictclass.h) from the options; anything else is refused */
static ClassPredictor *
evm_model_of(Jsonb *options, MemoryContext mcxt)
{
	Datum		model = evaluate_model_datum(options);

	if (!model_is_multiclass(model))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s: a text label evaluates a multi-class model only", EVAL_AGGNAME),
				 errhint("Pass a boolean label for a classifier and a float8 label for a linear regression model.")));
	return class_predictor(model, mcxt);
}

static void *
evm_build(Jsonb *options, MemoryContext cxt)
{
	(void) evaluate_options_k(options);
	return evm_model_of(options, cxt);
}

/* the model of the options (argument 5), per aggregate call */
static ClassPredictor *
evm_model(FunctionCallInfo fcinfo, Jsonb *options)
{
	return jsonb_arg_cached(fcinfo, options, 5, evm_build);
}

/*
 * The row's cell (true class * K + predicted class), or -1 when it cannot
 * be evaluated: a label that is not a declared class or a non-finite
 * feature, dropped on the protected path, an error on the direct path.
 */
static int
evm_row_cell(FunctionCallInfo fcinfo, const ClassPredictor *m, DPRowInput *row)
{
	int			t = glmclasses_index(fcinfo, 2, false, m->K, m->classes);
	int			p = class_predict_row(m, (const double *) ARR_DATA_PTR(row->features));

	if ((t >= 0 && p >= 0) || dp_row_drops_bad(row))
		return (t >= 0 && p >= 0) ? t * m->K + p : -1;
	if (t < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: label is not one of the model's classes", EVAL_AGGNAME),
				 errhint("Filter out rows whose label is not in the model's params->'classes'.")));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s: features must be finite (no NaN or infinity)", EVAL_AGGNAME),
			 errhint("Filter out or impute rows with non-finite features.")));
	return -1;					/* keep compiler quiet */
}

Datum
dpobj_evalmc_transfn(PG_FUNCTION_ARGS)
{
	ArrayType  *state = PG_ARGISNULL(0) ? NULL : PG_GETARG_ARRAYTYPE_P(0);
	DPRowInput	row;
	Jsonb	   *options = PG_ARGISNULL(5) ? NULL : PG_GETARG_JSONB_P(5);
	ClassPredictor *m;
	double	   *s;
	int			cell;
	bool		created;

	if (!dp_row_read(fcinfo, EVAL_AGGNAME, &row))
	{
		if (state == NULL)
			PG_RETURN_NULL();
		PG_RETURN_ARRAYTYPE_P(state);
	}
	m = evm_model(fcinfo, options);
	s = evaluate_row_state(&state, &row, options, EVM_NSTATE(m->K), &created);
	if (created)
		s[EVM_K] = m->K;
	cell = evm_row_cell(fcinfo, m, &row);
	/* the state is this aggregate's own array: updated in place */
	if (cell >= 0)
		s[EVM_CELLS + cell] += 1;
	PG_RETURN_ARRAYTYPE_P(state);
}

/* the number of entries of a state array (0 for a malformed one: refused) */
static int
evm_state_len(ArrayType *a)
{
	return ARR_NDIM(a) == 1 ? ARR_DIMS(a)[0] : 0;
}

Datum
dpobj_evalmc_combinefn(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(1))
		return countstate_combine(fcinfo, 0, EVM_CELLS);
	return countstate_combine(fcinfo, evm_state_len(PG_GETARG_ARRAYTYPE_P(1)), EVM_CELLS);
}

/* ---- the release ---- */

/* per class: support, predicted count, recall and precision; the macro recall */
static void
evm_per_class(StringInfo b, const double *c, int K, double nv)
{
	double		sum = 0,
				sumvar = 0;
	int			nvalid = 0;

	appendStringInfoString(b, ", \"per_class\": [");
	for (int i = 0; i < K; i++)
	{
		double		row = 0,
					col = 0,
					tp = c[i * K + i],
					r,
					var;

		for (int j = 0; j < K; j++)
		{
			row += c[i * K + j];
			col += c[j * K + i];
		}
		appendStringInfo(b, "%s{\"support\": %.0f, \"predicted\": %.0f", i ? ", " : "", row, col);
		evaluate_ratio(b, "recall", tp, row - tp, nv, (K - 1) * nv);
		evaluate_ratio(b, "precision", tp, col - tp, nv, (K - 1) * nv);
		appendStringInfoChar(b, '}');
		if (evaluate_ratio_value(tp, row - tp, nv, (K - 1) * nv, &r, &var))
		{
			sum += r;
			sumvar += var;
			nvalid++;
		}
	}
	appendStringInfoChar(b, ']');
	/* the classes' recalls have independent noise: the variance of their mean */
	if (nvalid > 0)
		evaluate_estimate(b, "macro_recall", sum / nvalid, sumvar / ((double) nvalid * nvalid));
	else
		appendStringInfoString(b, ", \"macro_recall\": null");
}

/* the released jsonb: the noisy counts and what follows from them */
static Datum
evm_release(const int64 *cnt, int K, double eps, double delta, double eps_used,
			double scale, double nv)
{
	StringInfoData b;
	double	   *c = palloc(sizeof(double) * K * K);
	double		n = 0,
				diag = 0,
				maxrow = 0;

	initStringInfo(&b);
	appendStringInfoString(&b, "{\"confusion\": [");
	for (int i = 0; i < K; i++)
	{
		double		row = 0;

		appendStringInfoString(&b, i ? ", [" : "[");
		for (int j = 0; j < K; j++)
		{
			appendStringInfo(&b, "%s" INT64_FORMAT, j ? ", " : "", cnt[i * K + j]);
			c[i * K + j] = Max(cnt[i * K + j], 0);
			row += c[i * K + j];
		}
		appendStringInfoChar(&b, ']');
		n += row;
		diag += c[i * K + i];
		maxrow = Max(maxrow, row);
	}
	appendStringInfo(&b, "], \"n\": %.0f", n);
	evaluate_ratio(&b, "accuracy", diag, n - diag, K * nv, (double) (K * K - K) * nv);
	evaluate_ratio(&b, "majority_baseline", maxrow, n - maxrow, K * nv, (double) (K * K - K) * nv);
	evm_per_class(&b, c, K, nv);
	appendStringInfo(&b, ", \"epsilon\": %s, \"delta\": %s, \"noise\": "
					 "{\"mechanism\": \"discrete_laplace\", \"scale\": %s, \"epsilon_used\": %s}}",
					 float8out_internal(eps), float8out_internal(delta),
					 float8out_internal(scale), float8out_internal(eps_used));
	return DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data));
}

/* K of the state, or of the protected run's model when no row came; checked */
static int
evm_final_K(const double *s, int nstate,
			const DPProtectedContext *pctx)
{
	int			K = s ? (int) s[EVM_K] :
		evm_model_of(pctx->options, CurrentMemoryContext)->K;

	if (!(K >= 2 && K <= DPOBJ_MAX_CLASSES && (s == NULL || nstate == EVM_NSTATE(K))))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("invalid dp_evaluate state"),
				 errhint("The state comes only from dpobj.dp_evaluate itself.")));
	return K;
}

/* the state's length is the classes' count's: read from the state */
static void *
evm_admit(FunctionCallInfo fcinfo, int kind, DPProtectedContext **pctx)
{
	(void) kind;
	return evaluate_admit(fcinfo, PG_ARGISNULL(0) ? 0 : evm_state_len(PG_GETARG_ARRAYTYPE_P(0)),
						  pctx);
}

static void
evm_calibrate(DPRun *run)
{
	EvalRun    *e = run->state;
	int		   *K = palloc(sizeof(int));

	*K = evm_final_K(e->s, e->nstate, run->pctx);
	e->ncounts = *K * *K;
	evaluate_count_calibrate(run, K);
}

/* the K^2 counts of the confusion matrix */
static void
evm_compute(DPRun *run)
{
	evaluate_count_compute(run, EVM_CELLS);
}

static Datum
evm_release_run(DPRun *run)
{
	EvalRun    *e = run->state;

	return evm_release(e->out, *(int *) run->work, e->eps, e->delta, e->p / EVAL_EPS_UNIT,
					   2 * EVAL_EPS_UNIT / e->p, evaluate_count_variance(e->p));
}

MECHANISM_FINAL_FUNCTION(dpobj_evalmc_finalfn,
						 .admit = evm_admit, .calibrate = evm_calibrate,
						 .compute = evm_compute, .release = evm_release_run)
