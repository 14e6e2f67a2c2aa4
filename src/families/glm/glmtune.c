/*-------------------------------------------------------------------------
 *
 * glmtune.c
 *	  dp_noisysgd's tuning options (glmtune.h).
 *
 *-------------------------------------------------------------------------
 */
#include "families/glm/glmtune.h"

#include <math.h>

#include "base/options.h"

#define GLMTUNE_HINT "Pass a public grid, e.g. {\"tune\": {\"T\": [10, 30, 100], \"R\": [0.5, 1, 2]}}: keys T, R and radius, each an array of 1 to 8 numbers, at most 64 grid points in all."

static void
tune_bad(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("dp_noisysgd: option \"tune\" %s", what),
			 errhint(GLMTUNE_HINT)));
}

/* one key's array of values, each read by dp_option_number's rules */
static int
tune_values(JsonbValue *v, const char *key, double lo, double hi, double *out)
{
	JsonbContainer *jc;
	int			n;

	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		tune_bad("must map each key to an array of numbers");
	jc = v->val.binary.data;
	n = JsonContainerSize(jc);
	if (n < 1 || n > GLM_TUNE_MAX_VALUES)
		tune_bad("must give each key 1 to 8 values");
	for (int i = 0; i < n; i++)
		out[i] = dp_option_number(getIthJsonbValueFromContainer(jc, i), key, lo, hi, true);
	return n;
}

void
glmtune_parse(JsonbValue *v, GLMTune *t)
{
	JsonbIterator *it;
	JsonbValue	e;
	JsonbIteratorToken tok;
	char	   *key = NULL;
	double		vals[GLM_TUNE_MAX_VALUES];

	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		tune_bad("must be an object");
	it = JsonbIteratorInit(v->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY)
			key = pnstrdup(e.val.string.val, e.val.string.len);
		else if (tok == WJB_VALUE && strcmp(key, "T") == 0)
		{
			t->nT = tune_values(&e, "T", 0, 1e9, vals);
			for (int i = 0; i < t->nT; i++)
			{
				if (vals[i] != floor(vals[i]))
					tune_bad("needs integer values of \"T\"");
				t->T[i] = (int64) vals[i];
			}
		}
		else if (tok == WJB_VALUE && strcmp(key, "R") == 0)
			t->nR = tune_values(&e, "R", 0, 1e6, t->R);
		else if (tok == WJB_VALUE && strcmp(key, "radius") == 0)
			t->nradius = tune_values(&e, "radius", 0, 1e6, t->radius);
		else if (tok == WJB_VALUE)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("dp_noisysgd: unknown key \"%s\" in option \"tune\"", key),
					 errhint(GLMTUNE_HINT)));
	}
	t->npoints = Max(t->nT, 1) * Max(t->nR, 1) * Max(t->nradius, 1);
	if (t->nT + t->nR + t->nradius == 0)
		tune_bad("must name at least one of T, R and radius");
	if (t->npoints > GLM_TUNE_MAX_POINTS)
		tune_bad("has more than 64 grid points");
}

void
glmtune_point(const GLMTune *t, int i, int *iT, int *iR, int *iradius)
{
	*iT = t->nT > 0 ? i % t->nT : -1;
	i = t->nT > 0 ? i / t->nT : i;
	*iR = t->nR > 0 ? i % t->nR : -1;
	i = t->nR > 0 ? i / t->nR : i;
	*iradius = t->nradius > 0 ? i % t->nradius : -1;
}
