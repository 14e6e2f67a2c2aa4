/*-------------------------------------------------------------------------
 *
 * evalrun.c
 *	  dpobj.evaluate(rel, model, features, label, epsilon, delta, options):
 *	  dp_evaluate (families/evaluate/evaluate.c) on a protected table, through
 *	  dpobj.train()'s sealed path, with the model and its encoding as options.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

#include "model/encodemodel.h"
#include "model/model.h"
#include "protected/train.h"

PG_FUNCTION_INFO_V1(dpobj_evaluate);

Datum
dpobj_evaluate(PG_FUNCTION_ARGS)
{
	LOCAL_FCINFO(tc, 7);
	Oid			typout;
	bool		isvarlena;
	char	   *model_text;
	Jsonb	   *options;
	StringInfoData js;
	Jsonb	   *encoding;

	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("dpobj.evaluate: the model must not be NULL"),
				 errhint("Pass a model, e.g. dpobj.get_model('name').")));
	getTypeOutputInfo(model_type_oid(), &typout, &isvarlena);
	model_text = OidOutputFunctionCall(typout, PG_GETARG_DATUM(1));
	/* options || {"model": model_text} */
	initStringInfo(&js);
	appendStringInfoString(&js, "{\"model\": ");
	escape_json(&js, model_text);
	/* a model trained on declared domains: its encoding, for train()'s query */
	encoding = encoding_of_model(PG_GETARG_DATUM(1));
	if (encoding != NULL)
		appendStringInfo(&js, ", \"encoding\": %s",
						 JsonbToCString(NULL, &encoding->root, VARSIZE(encoding)));
	appendStringInfoChar(&js, '}');
	options = PG_ARGISNULL(6) ? NULL : PG_GETARG_JSONB_P(6);
	if (options != NULL &&
		(getKeyJsonValueFromContainer(&options->root, "model", 5, NULL) != NULL ||
		 getKeyJsonValueFromContainer(&options->root, "encoding", 8, NULL) != NULL))
		/* the encoding is the model's own, like the model */
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dpobj.evaluate: pass the model as the second argument, not as an option"),
				 errhint("Options of dpobj.evaluate: \"filter\".")));

	/* train()'s arguments: rel, 'evaluate', features, label, epsilon, delta, options */
	InitFunctionCallInfoData(*tc, fcinfo->flinfo, 7, InvalidOid, NULL, NULL);
	tc->args[0] = fcinfo->args[0];
	tc->args[1].value = CStringGetTextDatum("evaluate");
	tc->args[1].isnull = false;
	tc->args[2] = fcinfo->args[2];
	tc->args[3] = fcinfo->args[3];
	tc->args[4] = fcinfo->args[4];
	tc->args[5] = fcinfo->args[5];
	tc->args[6].value = options == NULL ? (Datum) 0 :
		DirectFunctionCall2(jsonb_concat, JsonbPGetDatum(options),
							DirectFunctionCall1(jsonb_in, CStringGetDatum(js.data)));
	tc->args[6].isnull = options == NULL;
	return train_evaluate(tc);
}
