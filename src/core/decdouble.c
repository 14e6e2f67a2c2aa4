/*-------------------------------------------------------------------------
 *
 * decdouble.c
 *	  A base-10000 decimal as a feature value (decdouble.h).
 *
 * The range test is exact: x's leading decimal digit has exponent
 * p = 4 (weight - first) + (its digit's decimal length) - 1, so
 * 10^p <= |x| < 10^(p+1), and |x| >= 1e300 iff p >= 300, |x| < 1e-300 iff
 * p < -300.
 *
 * The fast path (Clinger 1990, "How to read floating point numbers
 * accurately"): x = M * 10^e with an integer M < 2^53 and |e| <= 22.  M
 * and 10^|e| (5^22 < 2^53) are doubles exactly, so M * 10^e or M / 10^-e is
 * one IEEE operation on exact operands, rounded once to nearest: the
 * correctly rounded value, the one strtod returns.  For e > 22, M * 10^(e-22)
 * is used while it stays below 2^53.  Trailing decimal zeros are moved
 * from M into e first.  It needs every double operation rounded once to
 * double (FLT_EVAL_METHOD 0, SSE2 and every 64-bit target): where the
 * compiler keeps wider intermediates (x87) the fast path is off.
 *
 *-------------------------------------------------------------------------
 */
#include "core/decdouble.h"

#include <float.h>
#include <stdint.h>
#include <string.h>

#define DEC_BASE	10000
#define MANT_MAX	((UINT64_C(1) << 53) - 1)	/* every integer up to it is a double */

/* 10^0 .. 10^22, each exactly a double */
static const double pow10_exact[23] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};
static const int pow10_int[5] = {1, 10, 100, 1000, 10000};

/* digit i, read as a native int16 at any alignment */
static int
digit_at(const void *digits, int i)
{
	int16_t		d;

	memcpy(&d, (const char *) digits + (size_t) i * sizeof(int16_t), sizeof(d));
	return d;
}

/* decimal length of d, 1 <= d <= 9999 */
static int
dec_length(int d)
{
	return d >= 1000 ? 4 : d >= 100 ? 3 : d >= 10 ? 2 : 1;
}

/* trailing decimal zeros of d, 1 <= d <= 9999 */
static int
dec_trailing_zeros(int d)
{
	int			k = 0;

	while (d % 10 == 0)
	{
		d /= 10;
		k++;
	}
	return k;
}

/* m * 10^e (1 <= m <= MANT_MAX) by one exact operation, or false */
static bool
scale_exact(uint64_t m, int e, double *out)
{
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
	while (e > 22 && m <= MANT_MAX / 10)
	{
		m *= 10;
		e--;
	}
	if (e > 22 || e < -22)
		return false;
	*out = e >= 0 ? (double) m * pow10_exact[e] : (double) m / pow10_exact[-e];
	return true;
#else
	(void) m;
	(void) e;
	(void) out;
	return false;
#endif
}

/*
 * M and e of x = M * 10^e from the nonzero digits first..last (both
 * nonzero, all checked), M without trailing decimal zeros; false when
 * M > MANT_MAX
 */
static bool
mantissa(const void *digits, int first, int last, int weight, uint64_t *m, int *e)
{
	int			d,
				tz;
	uint64_t	acc = 0;

	for (int i = first; i < last; i++)
	{
		d = digit_at(digits, i);
		if (acc > (MANT_MAX - d) / DEC_BASE)
			return false;
		acc = acc * DEC_BASE + d;
	}
	d = digit_at(digits, last);
	tz = dec_trailing_zeros(d);
	d /= pow10_int[tz];
	if (acc > (MANT_MAX - d) / pow10_int[4 - tz])
		return false;
	*m = acc * pow10_int[4 - tz] + d;
	*e = 4 * (weight - last) + tz;
	return true;
}

DecDouble
decdouble_feature(const void *digits, int ndigits, int weight, bool negative,
				  double *out)
{
	int			first = 0,
				last = ndigits - 1;
	int64_t		lead;
	uint64_t	m;
	int			e;
	double		v;

	while (first < ndigits && digit_at(digits, first) == 0)
		first++;
	if (first == ndigits)
	{
		*out = 0;
		return DECDOUBLE_VALUE;
	}
	while (digit_at(digits, last) == 0)
		last--;
	for (int i = first; i <= last; i++)
		if (digit_at(digits, i) < 0 || digit_at(digits, i) >= DEC_BASE)
			return DECDOUBLE_SLOW;

	lead = 4 * ((int64_t) weight - first) + dec_length(digit_at(digits, first)) - 1;
	if (lead >= 300)
		return DECDOUBLE_DROP;
	if (lead < -300)
	{
		*out = 0;
		return DECDOUBLE_VALUE;
	}
	if (!mantissa(digits, first, last, weight, &m, &e) || !scale_exact(m, e, &v))
		return DECDOUBLE_SLOW;
	*out = negative ? -v : v;
	return DECDOUBLE_VALUE;
}
