/*-------------------------------------------------------------------------
 *
 * dpnumeric.c
 *	  Numeric conversions and comparison (dpnumeric.h).
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpnumeric.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/fmgrprotos.h"

int
dp_numeric_cmp(Numeric a, Numeric b)
{
	return DatumGetInt32(DirectFunctionCall2(numeric_cmp, NumericGetDatum(a),
											 NumericGetDatum(b)));
}

Numeric
dp_numeric_of_float8(double f)
{
	return DatumGetNumeric(DirectFunctionCall1(float8_numeric, Float8GetDatum(f)));
}

Numeric
dp_numeric_of_text(const char *text)
{
	return DatumGetNumeric(DirectFunctionCall3(numeric_in, CStringGetDatum(text),
											   ObjectIdGetDatum(InvalidOid),
											   Int32GetDatum(-1)));
}

char *
dp_budget_text(const char *num)
{
	StringInfoData buf;
	int			sig = 0;
	bool		frac = false;
	bool		cut = false;

	/* only plain non-negative decimals are cut (toward zero is down) */
	if (num[strspn(num, "0123456789.")] != '\0' || num[0] == '\0')
		return pstrdup(num);
	initStringInfo(&buf);
	for (const char *p = num; *p; p++)
	{
		if (*p == '.')
			frac = true;
		else if (!frac || sig < DP_BUDGET_DIGITS)
			sig += (sig > 0 || *p != '0');
		else
		{
			cut |= (*p != '0');
			continue;
		}
		appendStringInfoChar(&buf, *p);
	}
	while (frac && buf.len > 0 && buf.data[buf.len - 1] == '0')
		buf.data[--buf.len] = '\0';
	if (buf.len > 0 && buf.data[buf.len - 1] == '.')
		buf.data[--buf.len] = '\0';
	return cut ? psprintf("at least %s", buf.data) : buf.data;
}
