/*-------------------------------------------------------------------------
 *
 * ebmstate.c
 *	  dp_ebm's transition, combine and type I/O functions (ebmstate.h): a
 *	  kept-row state (mechanisms/keptstate.c) of type dpobj.ebm_state.
 *
 *-------------------------------------------------------------------------
 */
#include "families/ebm/ebmstate.h"

#include "families/ebm/ebmparams.h"

PG_FUNCTION_INFO_V1(dpobj_ebm_transfn);
PG_FUNCTION_INFO_V1(dpobj_ebm_reg_transfn);
PG_FUNCTION_INFO_V1(dpobj_ebm_state_combine);
PG_FUNCTION_INFO_V1(dpobj_ebm_state_in);
PG_FUNCTION_INFO_V1(dpobj_ebm_state_out);
PG_FUNCTION_INFO_V1(dpobj_ebm_state_recv);
PG_FUNCTION_INFO_V1(dpobj_ebm_state_send);

/* 0.5.0's transition functions over dpobj.glm_state (aggstate_obsolete) */
PG_FUNCTION_INFO_V1(dpobj_glm_ebm_transfn);
PG_FUNCTION_INFO_V1(dpobj_glm_ebm_reg_transfn);

static const char *
ebm_aggname(int kind)
{
	return "dp_ebm";
}

static const DPKeptStateType ebm_type =
KEPT_STATE_TYPE("dpobj.ebm_state", 0x44504542 /* "DPEB" */ , ebm_aggname, "dp_ebm",
				ebmparams_run);

Datum
dpobj_ebm_transfn(PG_FUNCTION_ARGS)
{
	return keptstate_accum(fcinfo, &ebm_type, EBM_KIND_CLASS);
}

Datum
dpobj_ebm_reg_transfn(PG_FUNCTION_ARGS)
{
	return keptstate_accum(fcinfo, &ebm_type, EBM_KIND_REG);
}

/* merges the second partial state into the first (either may be NULL) */
Datum
dpobj_ebm_state_combine(PG_FUNCTION_ARGS)
{
	return aggstate_combine(fcinfo, &ebm_type.type);
}

Datum
dpobj_ebm_state_in(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(aggstate_in(&ebm_type.type, PG_GETARG_CSTRING(0)));
}

Datum
dpobj_ebm_state_out(PG_FUNCTION_ARGS)
{
	PG_RETURN_CSTRING(aggstate_out(&ebm_type.type, PG_GETARG_DATUM(0)));
}

Datum
dpobj_ebm_state_recv(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(aggstate_recv(&ebm_type.type, (StringInfo) PG_GETARG_POINTER(0)));
}

Datum
dpobj_ebm_state_send(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(aggstate_send(&ebm_type.type, PG_GETARG_DATUM(0)));
}

Datum
dpobj_glm_ebm_transfn(PG_FUNCTION_ARGS)
{
	aggstate_obsolete("dp_ebm_transfn(glm_state, ...)", "0.5.0");
}

Datum
dpobj_glm_ebm_reg_transfn(PG_FUNCTION_ARGS)
{
	aggstate_obsolete("dp_ebm_reg_transfn(glm_state, ...)", "0.5.0");
}

void *
ebm_admit(FunctionCallInfo fcinfo, int kind, struct DPProtectedContext **pctx)
{
	return keptstate_final_begin(fcinfo, &ebm_type, kind, pctx);
}
