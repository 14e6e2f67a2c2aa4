/*-------------------------------------------------------------------------
 *
 * countstate.c
 *	  The counts state (countstate.h).
 *
 *-------------------------------------------------------------------------
 */
#include "state/countstate.h"

#include "catalog/pg_type.h"

#include "state/rowinput.h"

ArrayType *
countstate_new(MemoryContext aggcontext, int nstate, double eps, double delta, int d,
			   int k)
{
	Datum	   *v = palloc0(sizeof(Datum) * nstate);
	MemoryContext old = MemoryContextSwitchTo(aggcontext);
	ArrayType  *a;

	v[CS_EPS] = Float8GetDatum(eps);
	v[CS_DELTA] = Float8GetDatum(delta);
	v[CS_D] = Float8GetDatum((double) d);
	v[CS_K] = Float8GetDatum((double) k);
	for (int i = CS_K + 1; i < nstate; i++)
		v[i] = Float8GetDatum(0.0);
	a = construct_array(v, nstate, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE);
	MemoryContextSwitchTo(old);
	return a;
}

double *
countstate_values(ArrayType *a, int nstate)
{
	if (ARR_NDIM(a) != 1 || ARR_DIMS(a)[0] != nstate || ARR_HASNULL(a) ||
		ARR_ELEMTYPE(a) != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("invalid dpobj counts state"),
				 errhint("The state comes only from the dpobj aggregate that made it.")));
	return (double *) ARR_DATA_PTR(a);
}

Datum
countstate_combine(FunctionCallInfo fcinfo, int nstate, int nrun)
{
	MemoryContext aggcontext;
	ArrayType  *a;
	double	   *sa,
			   *sb;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a dpobj combine function called in non-aggregate context"),
				 errhint("Combine functions run only inside dpobj's aggregates.")));
	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	sb = countstate_values(PG_GETARG_ARRAYTYPE_P(1), nstate);
	if (!PG_ARGISNULL(0))
		a = PG_GETARG_ARRAYTYPE_P(0);
	else
	{
		/* a fresh state of the same run: its run entries are the partial's */
		a = countstate_new(aggcontext, nstate, sb[CS_EPS], sb[CS_DELTA], (int) sb[CS_D],
						   (int) sb[CS_K]);
		memcpy(countstate_values(a, nstate), sb, sizeof(double) * nrun);
	}
	sa = countstate_values(a, nstate);
	dp_run_check_same(COUNTSTATE_AGGNAME, sb[CS_EPS], sb[CS_DELTA],
					  memcmp(sa + CS_D + 1, sb + CS_D + 1, sizeof(double) * (nrun - CS_D - 1)) == 0,
					  (int) sb[CS_D], sa[CS_EPS], sa[CS_DELTA], (int) sa[CS_D]);
	for (int i = nrun; i < nstate; i++)
		sa[i] += sb[i];
	PG_RETURN_ARRAYTYPE_P(a);
}
