/*-------------------------------------------------------------------------
 *
 * explain.c
 *	  dpobj.explain(model): the released model as rows (feature, level or
 *	  bin, contribution, importance, class, rows), each kind's own
 *	  (kinds.h), and dpobj.model_kind(model).  Post-processing of the model
 *	  value alone: no row is read and nothing is charged.
 *
 * rows: a level's or bin's released noisy count, clamped at 0 and rounded
 * (an additive model's; NULL elsewhere).  A feature's importance: with rows,
 * the rows-weighted mean |contribution - m|, m the rows-weighted mean (all
 * rows 0: plain means), as ebm_center centres; else the spread of its term
 * over its domain: max - min of its contributions; a numeric linear
 * weight's over the encoded range [-1, 1], 2 |w| (without an encoding, |w|
 * per unit).  The intercept's is 0.  A binary classifier's operating point
 * (params "threshold", 0.6.0 on) is the last row, "(threshold)", its level
 * the metric it was chosen for, its importance 0.
 *
 *-------------------------------------------------------------------------
 */
#include "model/kindsint.h"
#include "model/encode.h"
#include "model/encodemodel.h"

#include <math.h>

#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/tuplestore.h"

PG_FUNCTION_INFO_V1(dpobj_explain);
PG_FUNCTION_INFO_V1(dpobj_model_kind);

typedef struct ExplainRow
{
	const char *cls;
	const char *feature;
	const char *level;
	double		contribution;
	double		importance;
	double		nrows;			/* the column rows; NaN: NULL */
} ExplainRow;

struct ExplainOut
{
	ExplainRow *rows;
	int			n;
	int			cap;
	int			start;			/* the open feature's first row */
	Encoding   *enc;			/* the model's encoding, or NULL */
};

void
explain_row(ExplainOut *out, const char *cls, const char *feature, const char *level,
			double contribution)
{
	if (out->n == out->cap)
	{
		out->cap = Max(64, out->cap * 2);
		out->rows = out->rows ? repalloc(out->rows, sizeof(ExplainRow) * out->cap)
			: palloc(sizeof(ExplainRow) * out->cap);
	}
	out->rows[out->n].cls = cls;
	out->rows[out->n].feature = feature;
	out->rows[out->n].level = level;
	out->rows[out->n].nrows = get_float8_nan();
	out->rows[out->n++].contribution = contribution;
}

void
explain_row_count(ExplainOut *out, double count)
{
	Assert(out->n > out->start);
	out->rows[out->n - 1].nrows = count > 0 ? rint(count) : 0;
}

/* row i's weight in its feature's importance: its rows over the largest (top), all 1 if none */
static inline double
explain_weight(const ExplainOut *out, int i, double top)
{
	return top > 0 ? out->rows[i].nrows / top : 1;
}

/*
 * The open feature's rows-weighted mean |contribution - mean| (all rows 0:
 * plain means); the weights are rows over their largest, so that a forged
 * model's huge counts do not overflow the sums
 */
static double
explain_weighted_importance(const ExplainOut *out)
{
	double		top = 0,
				w = 0,
				mean = 0,
				dev = 0;

	for (int i = out->start; i < out->n; i++)
		top = Max(top, out->rows[i].nrows);
	for (int i = out->start; i < out->n; i++)
	{
		w += explain_weight(out, i, top);
		mean += explain_weight(out, i, top) * out->rows[i].contribution;
	}
	mean /= w;
	for (int i = out->start; i < out->n; i++)
		dev += explain_weight(out, i, top) * fabs(out->rows[i].contribution - mean);
	return dev / w;
}

void
explain_feature_end(ExplainOut *out, double importance)
{
	bool		counted = out->n > out->start;

	for (int i = out->start; i < out->n; i++)
		counted = counted && !isnan(out->rows[i].nrows);
	if (importance < 0 && counted)
		importance = explain_weighted_importance(out);
	else if (importance < 0 && out->n > out->start)
	{
		double		lo = out->rows[out->start].contribution;
		double		hi = lo;

		for (int i = out->start; i < out->n; i++)
		{
			lo = Min(lo, out->rows[i].contribution);
			hi = Max(hi, out->rows[i].contribution);
		}
		importance = hi - lo;
	}
	for (int i = out->start; i < out->n; i++)
		out->rows[i].importance = importance;
	out->start = out->n;
}

void
explain_coord_name(ExplainOut *out, int j, char **feature, char **level, bool *numeric,
				   double *lo, double *hi)
{
	int			c0 = 0;

	*feature = psprintf("x[%d]", j + 1);
	*level = NULL;
	*numeric = true;
	for (int i = 0; out->enc != NULL && i < out->enc->ncols; i++)
	{
		const EncColumn *c = &out->enc->cols[i];
		int			width = c->nlevels > 0 ? c->nlevels + 1 : 1;

		if (j < c0 + width)
		{
			*feature = c->column;
			*numeric = c->nlevels == 0;
			*lo = c->lo;
			*hi = c->hi;
			*level = *numeric ? psprintf("[%.6g, %.6g]", c->lo, c->hi)
				: j - c0 < c->nlevels ? pnstrdup(c->levels[j - c0], c->level_len[j - c0])
				: "other";
			return;
		}
		c0 += width;
	}
}

static void
explain_emit(FunctionCallInfo fcinfo, const ExplainOut *out)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	for (int i = 0; i < out->n; i++)
	{
		const ExplainRow *r = &out->rows[i];
		Datum		values[6];
		bool		nulls[6] = {false, r->level == NULL, false, false, r->cls == NULL, false};

		values[0] = CStringGetTextDatum(r->feature);
		values[1] = r->level ? CStringGetTextDatum(r->level) : (Datum) 0;
		values[2] = Float8GetDatum(r->contribution);
		values[3] = Float8GetDatum(r->importance);
		values[4] = r->cls ? CStringGetTextDatum(r->cls) : (Datum) 0;
		values[5] = Float8GetDatum(r->nrows);
		nulls[5] = isnan(r->nrows);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

/* dpobj.explain(model) -> SETOF (feature, level, contribution, importance, class, rows) */
Datum
dpobj_explain(PG_FUNCTION_ARGS)
{
	Datum		model = PG_GETARG_DATUM(0);
	ModelPredictor *m;
	ExplainOut	out = {0};
	Jsonb	   *spec;

	InitMaterializedSRF(fcinfo, 0);
	m = model_unpack_any(DatumGetHeapTupleHeader(model), CurrentMemoryContext);
	spec = encoding_of_model(model);
	if (spec != NULL)
		out.enc = encoding_parse(spec);
	m->kind->explain(m, &out);
	if (m->has_threshold)
	{
		JsonbValue *metric = getKeyJsonValueFromContainer(&m->params->root, "metric", 6, NULL);

		explain_row(&out, NULL, "(threshold)",
					metric != NULL && metric->type == jbvString ?
					pnstrdup(metric->val.string.val, metric->val.string.len) : NULL,
					m->threshold);
		explain_feature_end(&out, 0);
	}
	explain_emit(fcinfo, &out);
	return (Datum) 0;
}

/* dpobj.model_kind(model) -> text, the model validated as that kind */
Datum
dpobj_model_kind(PG_FUNCTION_ARGS)
{
	ModelPredictor *m;
	ModelKind	kind = model_kind_of(PG_GETARG_DATUM(0));

	/*
	 * a kind that never predicts (a synthesizer's model): checked as its
	 * readers (sample, marginal) check it
	 */
	if (kind->refuse != NULL)
	{
		if (kind->check != NULL)
			kind->check(PG_GETARG_HEAPTUPLEHEADER(0));
		PG_RETURN_TEXT_P(cstring_to_text(model_kind_name(kind)));
	}
	m = model_unpack_any(PG_GETARG_HEAPTUPLEHEADER(0), CurrentMemoryContext);
	PG_RETURN_TEXT_P(cstring_to_text(model_kind_name(m->kind)));
}
