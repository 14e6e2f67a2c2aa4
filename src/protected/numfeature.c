/*-------------------------------------------------------------------------
 *
 * numfeature.c
 *	  dpobj.numeric_feature(numeric): the sealed query's float8 of a numeric
 *	  feature (trainquery.c), the same value as
 *		CASE WHEN abs(x) >= 1e300 THEN NULL WHEN abs(x) < 1e-300 THEN 0
 *			 ELSE x::float8 END
 *	  (NULL also for NaN and +-Infinity) and, like it, never an error.  It
 *	  reads the numeric's digits where they lie (no copy, no abs(), no text)
 *	  and converts them in decdouble.c; only a value the exact fast path
 *	  cannot take goes through PostgreSQL's numeric_float8 (the text and
 *	  strtod, correctly rounded), which its range cannot make fail.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "core/decdouble.h"
#include "base/pg_compat.h"
#include "protected/numfeature.h"

#include "fmgr.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"

/*
 * numeric's on-disk format, from PostgreSQL's src/backend/utils/adt/numeric.c,
 * whose macros are private to that file (hence repeated here).  It is how
 * numeric values lie in tables, so it cannot change within a major version
 * and has stayed the same since 9.1 (the short header) and 14 (infinities).
 * After the varlena header, a uint16 word whose two high bits are:
 *	  00 or 01: the long header: sign (01 negative), then an int16 weight;
 *	  10: the short header: sign 0x2000, dscale 0x1F80, and a 7-bit two's
 *		  complement weight 0x007F (sign bit 0x0040);
 *	  11: NaN (0xC000), +Infinity (0xD000), -Infinity (0xF000).
 * Then the digits, int16 in base 10000, the first of weight `weight`:
 * x = sum_i d_i * 10000^(weight - i); zero has none.  A value of a short
 * varlena header lies at any address, so everything is read with memcpy.
 */
#define NUMFMT_FLAG_MASK			0xC000
#define NUMFMT_NEG					0x4000
#define NUMFMT_SHORT				0x8000
#define NUMFMT_SPECIAL				0xC000
#define NUMFMT_SHORT_SIGN			0x2000
#define NUMFMT_SHORT_WEIGHT_SIGN	0x0040
#define NUMFMT_SHORT_WEIGHT_MASK	0x003F

/* PostgreSQL's cast: text, then strtod (only for 1e-300 <= |x| < 1e300, where it cannot fail) */
static Datum
numeric_feature_slow(struct varlena *num)
{
	return DirectFunctionCall1(numeric_float8, PointerGetDatum(num));
}

bool
numeric_feature_value(Datum d, double *out)
{
	struct varlena *num = PG_DETOAST_DATUM_PACKED(d);
	const char *p = VARDATA_ANY(num);
	Size		len = VARSIZE_ANY_EXHDR(num);
	uint16		header = 0;
	int16		weight;
	bool		negative;
	Size		hdrsize = sizeof(uint16);
	double		v;

	/* a header cut short: never made by PostgreSQL, and never read here */
	if (len >= sizeof(uint16))
		memcpy(&header, p, sizeof(header));
	if (len < sizeof(uint16) ||
		(len < sizeof(uint16) + sizeof(int16) && (header & NUMFMT_FLAG_MASK) < NUMFMT_SHORT))
		return (*out = DatumGetFloat8(numeric_feature_slow(num)), true);
	if ((header & NUMFMT_FLAG_MASK) == NUMFMT_SPECIAL)
		return false;
	if ((header & NUMFMT_FLAG_MASK) == NUMFMT_SHORT)
	{
		negative = (header & NUMFMT_SHORT_SIGN) != 0;
		weight = (int16) ((header & NUMFMT_SHORT_WEIGHT_MASK) |
						  ((header & NUMFMT_SHORT_WEIGHT_SIGN) ? ~NUMFMT_SHORT_WEIGHT_MASK : 0));
	}
	else
	{
		negative = (header & NUMFMT_FLAG_MASK) == NUMFMT_NEG;
		memcpy(&weight, p + hdrsize, sizeof(weight));
		hdrsize += sizeof(int16);
	}
	switch (decdouble_feature(p + hdrsize, (int) ((len - hdrsize) / sizeof(int16)),
							  weight, negative, &v))
	{
		case DECDOUBLE_VALUE:
			return (*out = v, true);
		case DECDOUBLE_DROP:
			return false;
		default:
			return (*out = DatumGetFloat8(numeric_feature_slow(num)), true);
	}
}

PG_FUNCTION_INFO_V1(dpobj_numeric_feature);

Datum
dpobj_numeric_feature(PG_FUNCTION_ARGS)
{
	double		v;

	if (!numeric_feature_value(PG_GETARG_DATUM(0), &v))
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(v);
}
