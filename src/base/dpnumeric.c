/*-------------------------------------------------------------------------
 *
 * dpnumeric.c
 *	  Numeric conversions and comparison (dpnumeric.h).
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpnumeric.h"

#include "fmgr.h"
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
