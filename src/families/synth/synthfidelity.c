/*-------------------------------------------------------------------------
 *
 * synthfidelity.c
 *	  dpobj.synth_fidelity(model): how far the fitted model is from each
 *	  noisy measurement it was fitted to, against the distance the noise
 *	  alone gives (post-processing of the released model, no row read, no
 *	  charge).
 *
 *	  Per measurement, in release order: its columns by name, its cells,
 *	  distance = sum over cells |mu(x) - y(x)| (the model's marginal mu,
 *	  the measurement y), expected_noise = sum over cells sqrt(2 / pi)
 *	  sqrt(var(x)) (E|Z| of a Gaussian of the cell's public variance: what
 *	  the distance would be if the model equalled the true counts), and
 *	  ratio = distance / expected_noise.  A ratio near 1 or below: the model
 *	  agrees with the measurement up to its noise; well above 1: the model
 *	  could not fit it (a set the junction tree's cap or the other
 *	  measurements pulled away).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "families/synth/synthmodel.h"

PG_FUNCTION_INFO_V1(dpobj_synth_fidelity);

#define SQRT_2_PI 0.79788456080286535588	/* sqrt(2 / pi) */

/* the measurement's columns by name */
static Datum
fidelity_columns(const SynthFitted *f, SynthSet s)
{
	Datum		names[SYNTH_MAX_COLUMNS];
	int			n = 0;

	for (int j = 0; j < f->d; j++)
		if (s & SYNTH_BIT(j))
			names[n++] = CStringGetTextDatum(f->enc->cols[j].column);
	return PointerGetDatum(construct_array(names, n, TEXTOID, -1, false, TYPALIGN_INT));
}

Datum
dpobj_synth_fidelity(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	SynthFitted *f;

	InitMaterializedSRF(fcinfo, 0);
	f = synthmodel_unpack(PG_GETARG_HEAPTUPLEHEADER(0), CurrentMemoryContext);
	for (int i = 0; i < f->res.nmeas; i++)
	{
		const SynthMeasure *m = &f->res.meas[i];
		SynthFactor mu;
		double		dist = 0.0,
					expected = 0.0;
		Datum		values[5];
		bool		nulls[5] = {false, false, false, false, false};

		if (synth_model_marginal(&f->res.model, m->set, &mu) != SYNTH_OK)
			ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
		for (int64 x = 0; x < mu.ncells; x++)
		{
			dist += fabs(mu.val[x] - m->y[x]);
			expected += SQRT_2_PI * sqrt(m->var != NULL ? m->var[x] : m->sigma2);
		}
		values[0] = fidelity_columns(f, m->set);
		values[1] = Int32GetDatum((int32) Min(mu.ncells, PG_INT32_MAX));
		values[2] = Float8GetDatum(dist);
		values[3] = Float8GetDatum(expected);
		values[4] = Float8GetDatum(expected > 0.0 ? dist / expected : 0.0);
		nulls[4] = !(expected > 0.0);
		synth_factor_free(&mu);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
