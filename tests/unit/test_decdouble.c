/*
 * test_decdouble.c -- a base-10000 decimal as a feature value (src/core/decdouble.c)
 * against the C library: every value the fast path gives is strtod()'s, bit for bit, on
 * the decimal text of the same digits; the range test (dropped at |x| >= 1e300, 0 below
 * 1e-300) agrees with one computed from that text's length; every M * 10^e with M < 2^53
 * and |e| <= 22 takes the fast path; digits outside 0..9999 and misaligned digit arrays.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/decdouble.h"
#include "unitcheck.h"

#define MAXG 64

static int
uniform(int lo, int hi)
{
	return lo + (int) (unitcheck_next64() % (uint64_t) (hi - lo + 1));
}

/* the decimal digit string dec (no sign) times 10^e as base-10000 digits; their count */
static int
groups_of(const char *dec, int e, int16_t *g, int *weight)
{
	char		buf[4 * MAXG + 8];
	int			r = ((e % 4) + 4) % 4,
				len = (int) strlen(dec),
				pad,
				n;

	pad = (4 - (len + r) % 4) % 4;
	memset(buf, '0', pad);
	memcpy(buf + pad, dec, len);
	memset(buf + pad + len, '0', r);
	n = (pad + len + r) / 4;
	for (int i = 0; i < n; i++)
		g[i] = (int16_t) ((buf[4 * i] - '0') * 1000 + (buf[4 * i + 1] - '0') * 100 +
						  (buf[4 * i + 2] - '0') * 10 + (buf[4 * i + 3] - '0'));
	*weight = (e - r) / 4 + n - 1;
	return n;
}

/*
 * The reference: the digits as text, the range from the text's length (the exponent
 * of its first nonzero character), the value from strtod
 */
static DecDouble
reference(const int16_t *g, int n, int weight, bool negative, double *out)
{
	char		text[4 * MAXG + 32];
	char	   *p = text;
	const char *nz;
	long		lead;

	*p++ = negative ? '-' : '+';
	for (int i = 0; i < n; i++)
		p += sprintf(p, "%04d", g[i]);
	*p = '\0';
	nz = text + 1 + strspn(text + 1, "0");
	if (*nz == '\0')
	{
		*out = 0;
		return DECDOUBLE_VALUE;
	}
	lead = (long) strlen(nz) - 1 + 4L * (weight - n + 1);
	if (lead >= 300)
		return DECDOUBLE_DROP;
	if (lead <= -301)
	{
		*out = 0;
		return DECDOUBLE_VALUE;
	}
	sprintf(p, "e%d", 4 * (weight - n + 1));
	*out = strtod(text, NULL);
	return DECDOUBLE_VALUE;
}

/* one case: same class as the reference, the same bits when a value is given */
static int
agrees(const int16_t *g, int n, int weight, bool negative, long *nslow)
{
	double		got = -1,
				want = -2;
	DecDouble	a = decdouble_feature(g, n, weight, negative, &got);
	DecDouble	b = reference(g, n, weight, negative, &want);

	if (a == DECDOUBLE_SLOW)
	{
		(*nslow)++;
		return b == DECDOUBLE_VALUE && want != 0;
	}
	if (a != b)
		return 0;
	return a == DECDOUBLE_DROP || memcmp(&got, &want, sizeof(double)) == 0;
}

static int
random_digit(void)
{
	switch (uniform(0, 3))
	{
		case 0:
			return 0;
		case 1:
			return uniform(0, 9);
		case 2:
			return uniform(0, 99) * (uniform(0, 1) ? 100 : 1000) % 10000;
		default:
			return uniform(0, 9999);
	}
}

/* random digits of every shape, weights around the range's edges as well */
static void
check_random(long cases)
{
	int16_t		g[8];
	long		bad = 0,
				slow = 0;

	for (long c = 0; c < cases; c++)
	{
		int			n = uniform(0, 7),
					weight = uniform(0, 1) ? uniform(-8, 8) : uniform(-80, 80);

		for (int i = 0; i < n; i++)
			g[i] = (int16_t) random_digit();
		if (!agrees(g, n, weight, uniform(0, 1), &slow))
		{
			if (bad++ < 5)
				printf("# random case %ld differs (n %d, weight %d)\n", c, n, weight);
		}
	}
	CHECK(bad == 0, "%ld of %ld random decimals differ from strtod or the range", bad, cases);
	printf("# random decimals: %ld of %ld took the slow path\n", slow, cases);
}

/* every M * 10^e, M < 2^53, |e| <= 22 (and M * 10^e with M * 10^(e-22) < 2^53): fast, exact */
static void
check_clinger(long cases)
{
	int16_t		g[MAXG];
	char		dec[32];
	long		bad = 0,
				slow = 0;

	for (long c = 0; c < cases; c++)
	{
		uint64_t	m = unitcheck_next64() >> uniform(11, 63);
		int			e = uniform(-22, 22),
					weight,
					n;
		double		got;

		if (m == 0)
			m = 1;
		sprintf(dec, "%llu", (unsigned long long) m);
		n = groups_of(dec, e, g, &weight);
		if (decdouble_feature(g, n, weight, false, &got) == DECDOUBLE_SLOW)
			slow++;
		else if (!agrees(g, n, weight, uniform(0, 1), &slow))
			bad++;
	}
	CHECK(slow == 0, "%ld of %ld values M * 10^e (M < 2^53, |e| <= 22) took the slow path", slow, cases);
	CHECK(bad == 0, "%ld of %ld values M * 10^e differ from strtod", bad, cases);
}

/* dec * 10^e: the expected class (0 for the value 0, -1 for "not the slow path") */
static void
check_one(const char *dec, int e, bool negative, DecDouble want, const char *what)
{
	int16_t		g[MAXG];
	int			weight,
				n = groups_of(dec, e, g, &weight);
	double		got = -1;
	long		slow = 0;
	DecDouble	a = decdouble_feature(g, n, weight, negative, &got);

	CHECK(a == want, "%s: class %d, expected %d", what, (int) a, (int) want);
	CHECK(agrees(g, n, weight, negative, &slow), "%s: differs from the reference", what);
	if (a == DECDOUBLE_VALUE && got == 0)
		CHECK(!signbit(got), "%s: -0 instead of +0", what);
}

static void
check_cases(void)
{
	int16_t		g[3] = {1, 10000, 5};
	char		raw[16];
	double		got = -1;

	check_one("1", -1, false, DECDOUBLE_VALUE, "0.1");
	check_one("1", 22, false, DECDOUBLE_VALUE, "1e22");
	check_one("1", 23, false, DECDOUBLE_VALUE, "1e23 (10 * 1e22)");
	check_one("12345678", 30, true, DECDOUBLE_VALUE, "-1.2345678e37");
	check_one("9007199254740991", 0, false, DECDOUBLE_VALUE, "2^53 - 1");
	check_one("9007199254740993", 0, false, DECDOUBLE_SLOW, "2^53 + 1");
	check_one("1", -23, false, DECDOUBLE_SLOW, "1e-23");
	check_one("1", 300, false, DECDOUBLE_DROP, "1e300");
	check_one("1", 300, true, DECDOUBLE_DROP, "-1e300");
	check_one("99999999999999999999", 280, false, DECDOUBLE_SLOW, "9.99..e299");
	check_one("1", -300, false, DECDOUBLE_SLOW, "1e-300");
	check_one("99999", -305, true, DECDOUBLE_VALUE, "-9.9999e-301");
	check_one("0", 0, true, DECDOUBLE_VALUE, "-0");
	check_one("00000000", 8, false, DECDOUBLE_VALUE, "zero digits");
	check_one("", 0, false, DECDOUBLE_VALUE, "no digits");
	check_one("25", -2, true, DECDOUBLE_VALUE, "-0.25");
	CHECK(decdouble_feature(g, 3, 0, false, &got) == DECDOUBLE_SLOW, "digit 10000 not refused");
	g[1] = -1;
	CHECK(decdouble_feature(g, 3, 0, false, &got) == DECDOUBLE_SLOW, "digit -1 not refused");
	/* digits at an odd address: 1.2345 */
	g[0] = 1;
	g[1] = 2345;
	memcpy(raw + 1, g, 2 * sizeof(int16_t));
	CHECK(decdouble_feature(raw + 1, 2, 0, false, &got) == DECDOUBLE_VALUE && got == 1.2345,
		  "misaligned digits read wrongly (%.17g)", got);
}

int
main(void)
{
	check_cases();
	check_clinger(1000000);
	check_random(2000000);
	return unitcheck_report();
}
