/*-------------------------------------------------------------------------
 *
 * evalrun.c
 *	  dpobj.evaluate(rel, model, features, label, epsilon, delta, options):
 *	  dp_evaluate (evaluate.c) on a protected table, through the sealed path
 *	  (context/sealedrun.h), with the model and its encoding: the family's
 *	  own entry point.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/instrument.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

#include "base/privileged.h"
#include "base/sqlargs.h"
#include "context/sealedrun.h"
#include "model/encodemodel.h"
#include "model/model.h"

PG_FUNCTION_INFO_V1(dpobj_evaluate);

Datum
dpobj_evaluate(PG_FUNCTION_ARGS)
{
	DPRunRequest req;
	Oid			typout;
	bool		isvarlena;
	Jsonb	   *options;
	BufferUsage bufusage;
	WalUsage	walusage;

	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("dpobj.evaluate: the model must not be NULL"),
				 errhint("Pass a model, e.g. dpobj.get_model('name').")));
	memset(&req, 0, sizeof(req));
	getTypeOutputInfo(model_type_oid(), &typout, &isvarlena);
	req.model = OidOutputFunctionCall(typout, PG_GETARG_DATUM(1));
	/* a model trained on declared domains: its encoding, for the run's query */
	req.encoding = encoding_of_model(PG_GETARG_DATUM(1));
	options = PG_ARGISNULL(6) ? NULL : PG_GETARG_JSONB_P(6);
	if (options != NULL &&
		(getKeyJsonValueFromContainer(&options->root, "model", 5, NULL) != NULL ||
		 getKeyJsonValueFromContainer(&options->root, "encoding", 8, NULL) != NULL))
		/* the encoding is the model's own, like the model */
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dpobj.evaluate: pass the model as the second argument, not as an option"),
				 errhint("Options of dpobj.evaluate: \"filter\".")));

	/*
	 * the arguments in train()'s order, checked as train() checks its own,
	 * unaccounted like the run (protected/train.c, train_call)
	 */
	bufusage = pgBufferUsage;
	walusage = pgWalUsage;
	dpobj_verify_schema();
	dp_check_not_null(fcinfo, 7, "dpobj.train");
	pgBufferUsage = bufusage;
	pgWalUsage = walusage;
	req.relid = PG_GETARG_OID(0);
	req.mechanism = "evaluate";
	req.own_entry = true;
	req.columns = PG_GETARG_ARRAYTYPE_P(2);
	req.label = text_to_cstring(PG_GETARG_TEXT_PP(3));
	req.epsilon = PG_GETARG_NUMERIC(4);
	req.delta = PG_GETARG_NUMERIC(5);
	req.options = options;
	return dp_sealed_run(&req);
}
