/*-------------------------------------------------------------------------
 *
 * glmclasses.c
 *	  The option "classes" of the multi-class mechanisms and the lookup of
 *	  a row's label in it (glmclasses.h).  The class set is public: it is
 *	  declared by the caller, never collected from the rows.
 *
 *-------------------------------------------------------------------------
 */
#include "state/glmclasses.h"

#include "utils/builtins.h"
#include "utils/numeric.h"

static void
classes_bad(const char *aggname)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s: option \"classes\" must be an array of %d to %d distinct labels (strings or integers)",
					aggname, 2, DPOBJ_MAX_CLASSES),
			 errhint("Declare the public set of classes, e.g. '{\"classes\": [\"a\", \"b\", \"c\"], \"R\": 1}'.")));
}

/* the text form of one element: a non-empty string or an integer */
static char *
class_text(JsonbValue *e, const char *aggname)
{
	char	   *s = NULL;

	if (e->type == jbvString && e->val.string.len > 0)
		s = pnstrdup(e->val.string.val, e->val.string.len);
	else if (e->type == jbvNumeric)
	{
		Datum		n = NumericGetDatum(e->val.numeric);
		Datum		f = DirectFunctionCall1(numeric_floor, n);

		if (DatumGetBool(DirectFunctionCall2(numeric_eq, n, f)) &&
			DatumGetBool(DirectFunctionCall2(numeric_le,
											 DirectFunctionCall1(numeric_abs, n),
											 DirectFunctionCall1(int8_numeric, Int64GetDatum(PG_INT64_MAX)))))
			s = psprintf(INT64_FORMAT,
						 DatumGetInt64(DirectFunctionCall1(numeric_int8, n)));
	}
	if (s == NULL)
		classes_bad(aggname);
	if (strlen(s) > DPOBJ_MAX_CLASS_LEN)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: a class label is longer than %d bytes", aggname, DPOBJ_MAX_CLASS_LEN),
				 errhint("Use short class labels.")));
	return s;
}

void
glmclasses_parse(JsonbValue *v, const char *aggname, int *n, char ***classes)
{
	JsonbContainer *jc;
	int			k;

	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		classes_bad(aggname);
	jc = v->val.binary.data;
	k = JsonContainerSize(jc);
	if (k < 2)
		classes_bad(aggname);
	if (k > DPOBJ_MAX_CLASSES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s supports at most %d classes, got %d", aggname, DPOBJ_MAX_CLASSES, k),
				 errhint("Merge rare classes: one-vs-rest splits the privacy budget over the classes.")));
	*classes = palloc(sizeof(char *) * k);
	for (int i = 0; i < k; i++)
	{
		(*classes)[i] = class_text(getIthJsonbValueFromContainer(jc, i), aggname);
		for (int j = 0; j < i; j++)
			if (strcmp((*classes)[j], (*classes)[i]) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s: option \"classes\" lists the class \"%s\" twice", aggname, (*classes)[i]),
						 errhint("Declare each class once.")));
	}
	*n = k;
}

void
glmclasses_require(int n, const char *aggname)
{
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: option \"classes\" (the public set of labels) is required", aggname),
				 errhint("Declare the classes, e.g. '{\"classes\": [\"a\", \"b\", \"c\"], \"R\": 1}'; they are never collected from the data.")));
}

int
glmclasses_index(FunctionCallInfo fcinfo, int argno, bool is_int, int n, char **classes)
{
	char		buf[32];
	const char *s;
	int			len;
	text	   *t = NULL;

	if (is_int)
	{
		len = snprintf(buf, sizeof(buf), INT64_FORMAT, PG_GETARG_INT64(argno));
		s = buf;
	}
	else
	{
		t = PG_GETARG_TEXT_PP(argno);
		s = VARDATA_ANY(t);
		len = VARSIZE_ANY_EXHDR(t);
	}
	for (int k = 0; k < n; k++)
		if (strlen(classes[k]) == len && memcmp(classes[k], s, len) == 0)
			return k;
	return -1;
}
