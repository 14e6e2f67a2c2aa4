/*-------------------------------------------------------------------------
 *
 * kindlinear.c
 *	  The linear model kind (kinds.h): the margin <w, x> + bias in long
 *	  double, whose exponent range holds any product and sum of finite
 *	  float8 values, so no intermediate overflows and the sign is right even
 *	  when the margin exceeds float8.  A regression (its mechanism
 *	  registered as one: the kind "regression", the same code) predicts the
 *	  value, and its params carry the public label range y_min < y_max that
 *	  evaluation needs.
 *
 *-------------------------------------------------------------------------
 */
#include "model/kindsint.h"

#include <math.h>

static void
linear_unpack(ModelPredictor *m, HeapTupleHeader th)
{
	JsonbValue *loss;

	if (m->params == NULL)
		return;
	m->range_ok = m->regression && model_param_number(m->params, "y_min", &m->y_min) &&
		model_param_number(m->params, "y_max", &m->y_max) && m->y_min < m->y_max;
	loss = getKeyJsonValueFromContainer(&m->params->root, "loss", 4, NULL);
	m->logistic = loss != NULL && loss->type == jbvString && loss->val.string.len == 8 &&
		memcmp(loss->val.string.val, "logistic", 8) == 0;
}

static ModelRowStatus
linear_margin(const ModelPredictor *m, const double *x, int *sign, long double *value,
			  bool *exact)
{
	long double s = m->bias;

	for (int j = 0; j < m->nw; j++)
	{
		if (!isfinite(x[j]))
			return MODEL_ROW_NOT_FINITE;
		s += (long double) m->w[j] * x[j];
	}
	*sign = (s > 0) ? 1 : (s == 0 ? 0 : -1);
	*value = s;
	*exact = true;
	return MODEL_ROW_OK;
}

/*
 * One row per weight, named by the encoding.  A categorical column's
 * importance is the spread of its levels' weights; a numeric one's the
 * spread of its term over the encoded range [-1, 1], 2 |w| (without an
 * encoding: |w|, per unit of the feature).
 */
void
explain_linear_weights(const ModelPredictor *m, const char *cls, const double *w,
					   int d, double intercept, ExplainOut *out)
{
	char	   *prev = NULL;

	for (int j = 0; j < d; j++)
	{
		char	   *feature,
				   *level;
		bool		numeric;
		double		lo,
					hi;

		explain_coord_name(out, j, &feature, &level, &numeric, &lo, &hi);
		if (prev != NULL && strcmp(prev, feature) != 0)
			explain_feature_end(out, -1);
		explain_row(out, cls, feature, level, w[j]);
		if (numeric)
		{
			explain_feature_end(out, (level != NULL ? 2.0 : 1.0) * fabs(w[j]));
			prev = NULL;
		}
		else
			prev = feature;
	}
	if (prev != NULL)
		explain_feature_end(out, -1);
	explain_row(out, cls, "(intercept)", NULL, intercept);
	explain_feature_end(out, 0);
}

static void
linear_explain(const ModelPredictor *m, ExplainOut *out)
{
	explain_linear_weights(m, NULL, m->w, m->nw, m->bias, out);
}

const ModelKindOps model_kind_linear = {.name = "linear", .threshold = true,
.unpack = linear_unpack, .margin = linear_margin, .explain = linear_explain};

/* a regression's mechanism: the same margin, its value the prediction */
const ModelKindOps model_kind_regression = {.name = "regression", .by_mechanism = true,
.unpack = linear_unpack, .margin = linear_margin, .explain = linear_explain};
