/*-------------------------------------------------------------------------
 *
 * gbdtstate.c
 *	  dp_gbdt's transition, combine and type I/O functions: a kept-row
 *	  state (mechanisms/keptstate.c) of type dpobj.gbdt_state, a yes/no
 *	  label or a float8 one.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "families/gbdt/gbdt.h"
#include "mechanisms/keptstate.h"

PG_FUNCTION_INFO_V1(dpobj_gbdt_transfn);
PG_FUNCTION_INFO_V1(dpobj_gbdt_reg_transfn);
PG_FUNCTION_INFO_V1(dpobj_gbdt_state_combine);
PG_FUNCTION_INFO_V1(dpobj_gbdt_state_in);
PG_FUNCTION_INFO_V1(dpobj_gbdt_state_out);
PG_FUNCTION_INFO_V1(dpobj_gbdt_state_recv);
PG_FUNCTION_INFO_V1(dpobj_gbdt_state_send);

static const char *
gbdt_aggname(int kind)
{
	return "dp_gbdt";
}

static const DPKeptStateType gbdt_type =
KEPT_STATE_TYPE("dpobj.gbdt_state", 0x44504742 /* "DPGB" */ , gbdt_aggname, "dp_gbdt",
				gbdtparams_run);

Datum
dpobj_gbdt_transfn(PG_FUNCTION_ARGS)
{
	return keptstate_accum(fcinfo, &gbdt_type, KEPT_KIND_CLASS);
}

Datum
dpobj_gbdt_reg_transfn(PG_FUNCTION_ARGS)
{
	return keptstate_accum(fcinfo, &gbdt_type, KEPT_KIND_REG);
}

/* merges the second partial state into the first (either may be NULL) */
Datum
dpobj_gbdt_state_combine(PG_FUNCTION_ARGS)
{
	return aggstate_combine(fcinfo, &gbdt_type.type);
}

Datum
dpobj_gbdt_state_in(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(aggstate_in(&gbdt_type.type, PG_GETARG_CSTRING(0)));
}

Datum
dpobj_gbdt_state_out(PG_FUNCTION_ARGS)
{
	PG_RETURN_CSTRING(aggstate_out(&gbdt_type.type, PG_GETARG_DATUM(0)));
}

Datum
dpobj_gbdt_state_recv(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(aggstate_recv(&gbdt_type.type, (StringInfo) PG_GETARG_POINTER(0)));
}

Datum
dpobj_gbdt_state_send(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(aggstate_send(&gbdt_type.type, PG_GETARG_DATUM(0)));
}

void *
gbdt_admit(FunctionCallInfo fcinfo, int kind, struct DPProtectedContext **pctx)
{
	return keptstate_final_begin(fcinfo, &gbdt_type, kind, pctx);
}
