/*-------------------------------------------------------------------------
 *
 * halfspacemodel.c
 *	  The halfspace family's model kind, the lattice (model/kinds.h; its
 *	  descriptor's model_kind, halfspace.c): its params carry the
 *	  feature quantum "Q", and it predicts exactly as the oracle decided
 *	  during training.  The features are rounded to (1/Q)Z with the same
 *	  rule as the transition function, the margin <w, a> is computed in
 *	  integers, and the prediction is +1 iff <w, x> > 0, i.e. sgn(0) = -1
 *	  (docs/ALGORITHMS.md, "The algorithms dpobj implements").  A vector
 *	  with |round(Q x)| > 2^31 is MODEL_ROW_OUT_OF_RANGE, never raised.
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpobj.h"

#include <math.h>

#include "common/int128.h"

#include "families/halfspace/halfspace.h"
#include "model/kindsint.h"

/* largest |weight| of a lattice model: |w a| <= 1e6 * 2^31 < 2^51 */
#define MODEL_MAX_LATTICE_WEIGHT	1e6

typedef struct Lattice
{
	int			Q;
	int64	   *wi;
} Lattice;

/* params->'Q': an integer in [1, DPOBJ_MAX_Q]; integer weights, bias 0 */
static void
halfspace_unpack(ModelPredictor *m, HeapTupleHeader th)
{
	Lattice    *l = palloc(sizeof(Lattice));
	double		q = 0;

	(void) model_param_number(m->params, "Q", &q);
	if (!(q >= 1 && q <= DPOBJ_MAX_Q && q == floor(q)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("model parameter \"Q\" must be an integer between 1 and %d", DPOBJ_MAX_Q),
				 errhint("Use a model returned by dpobj.dp_halfspace (its params carry the feature quantum Q).")));
	l->Q = (int) q;
	l->wi = palloc(sizeof(int64) * Max(m->nw, 1));
	for (int j = 0; j < m->nw; j++)
	{
		if (m->w[j] != floor(m->w[j]) || fabs(m->w[j]) > MODEL_MAX_LATTICE_WEIGHT)
			model_forged("halfspace model weights must be integers",
						 "Use a model returned by dpobj.dp_halfspace.");
		l->wi[j] = (int64) m->w[j];
	}
	if (m->bias != 0.0)
		model_forged("halfspace model must have bias 0",
					 "Use a model returned by dpobj.dp_halfspace.");
	m->kd = l;
}

/*
 * <w, round(Q x)> in 128-bit integers: each term is below 2^51 in
 * magnitude, so no array that fits in memory overflows the sum.  The
 * score (the sum / Q) is exact when the sum fits in int64.
 */
static ModelRowStatus
halfspace_margin(const ModelPredictor *m, const double *x, int *sign, long double *value,
				 bool *exact)
{
	const Lattice *l = m->kd;
	INT128		s = int64_to_int128(0);

	for (int j = 0; j < m->nw; j++)
	{
		double		q = x[j] * l->Q;

		if (!isfinite(q))
			return MODEL_ROW_NOT_FINITE;
		if (fabs(round(q)) > (double) DPOBJ_MAX_QUANTISED)
			return MODEL_ROW_OUT_OF_RANGE;
		int128_add_int64_mul_int64(&s, l->wi[j], (int64) round(q));
	}
	*sign = int128_compare(s, int64_to_int128(0));
	*exact = int128_compare(s, int64_to_int128(PG_INT64_MAX)) <= 0 &&
		int128_compare(s, int64_to_int128(PG_INT64_MIN)) >= 0;
	*value = *exact ? (double) int128_to_int64(s) / l->Q : 0;
	return MODEL_ROW_OK;
}

/* its integer weights, as a linear model's */
static void
halfspace_explain(const ModelPredictor *m, ExplainOut *out)
{
	explain_linear_weights(m, NULL, m->w, m->nw, 0, out);
}

/* marked by "Q"; a vector it cannot evaluate is out of its range either way */
const ModelKindOps halfspace_model_kind = {.name = "halfspace", .marker = "Q", .ranged = true,
.unpack = halfspace_unpack, .margin = halfspace_margin, .explain = halfspace_explain};
