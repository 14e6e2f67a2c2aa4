/*-------------------------------------------------------------------------
 *
 * classweights.c
 *	  The option "class_weight" (classweights.h).  Options are public inputs:
 *	  their errors may quote them.
 *
 *-------------------------------------------------------------------------
 */
#include "mechanisms/classweights.h"

#include "model/model.h"
#include "base/options.h"

static void
weights_bad(const char *aggname)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s: option \"class_weight\" must be an object {\"true\": w, \"false\": w}",
					aggname),
			 errhint("Each weight is a number in (0, 1]; for example {\"true\": 1, \"false\": 0.2} gives a negative row a fifth of a positive row's weight.")));
}

void
classweights_parse(JsonbValue *v, const char *aggname, double *weight_pos, double *weight_neg)
{
	JsonbIterator *it;
	JsonbValue	e;
	JsonbIteratorToken tok;
	double	   *target = NULL;

	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		weights_bad(aggname);
	it = JsonbIteratorInit(v->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY)
		{
			if (e.val.string.len == 4 && strncmp(e.val.string.val, "true", 4) == 0)
				target = weight_pos;
			else if (e.val.string.len == 5 && strncmp(e.val.string.val, "false", 5) == 0)
				target = weight_neg;
			else
				weights_bad(aggname);
		}
		else if (tok == WJB_VALUE)
			*target = dp_option_number(&e, "class_weight", 0, 1, true);
	}
}

void
classweights_model_params(StringInfo buf, double weight_pos, double weight_neg)
{
	if (weight_pos == 1.0 && weight_neg == 1.0)
		return;
	model_params_float(buf, "class_weight_true", weight_pos);
	model_params_float(buf, "class_weight_false", weight_neg);
}
