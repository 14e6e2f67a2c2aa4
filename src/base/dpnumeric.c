/*-------------------------------------------------------------------------
 *
 * dpnumeric.c
 *	  Numeric conversions and comparison (dpnumeric.h).
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpnumeric.h"

#include <math.h>

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

double
dp_numeric_to_float8_down(Numeric n, const char *what)
{
	double		f;

	/* 0 exactly: an epsilon-DP run's delta (refused before for the others) */
	if (dp_numeric_cmp(n, dp_numeric_of_text("0")) == 0)
		return 0.0;
	/* no float8 conversion error (it would quote the value, hintless) */
	if (dp_numeric_cmp(n, dp_numeric_of_text("1e-300")) <= 0 ||
		dp_numeric_cmp(n, dp_numeric_of_text("1e300")) >= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s is outside the range of double precision", what),
				 errhint("Use a value between 1e-300 and 1e300.")));
	f = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(n)));
	if (dp_numeric_cmp(dp_numeric_of_float8(f), n) > 0)
		f = nextafter(f, 0.0);
	return f;
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

__int128 *
dp_palloc0_int128(Size n, void **chunk)
{
	void	   *p = palloc0(sizeof(__int128) * (n + 1));

	if (chunk != NULL)
		*chunk = p;
	return (__int128 *) TYPEALIGN(16, p);
}
