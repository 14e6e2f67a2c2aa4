/*-------------------------------------------------------------------------
 *
 * aggci.c
 *	  dpobj.aggregate()'s 95 % intervals from the noise's public law
 *	  (aggci.h).
 *
 *	  A mean's interval inverts a test (Fieller): with S = m n + Z_S and
 *	  C = n + Z_C, S - m C = Z_S - m Z_C at the true lattice mean m, so
 *	  the m not rejected by "P(|Z_S - m Z_C| < |S - m C|) >= 95 %" hold
 *	  it w.p. >= 95 %.  Their hull is found by bisecting [lo, hi] (in
 *	  lattice units) from each end: a cell [m1, m2] is rejected only when
 *	  a lower bound of that probability, valid for every m in it (below),
 *	  reaches 95 %, so no m that passes is ever cut.  A variance takes its
 *	  two means (of the values, of their squares) from the same test at
 *	  97.5 % each.
 *
 *-------------------------------------------------------------------------
 */
#include "core/aggci.h"

#include <math.h>

#define AGGCI_SLACK		1e-9	/* far above the rounding of the sums below */
#define AGGCI_TAIL		1e-7	/* the count noise's mass left out (as if never < d) */
#define AGGCI_BLOCKS	512		/* the count noise's blocks per side */
#define AGGCI_DEPTH		40		/* bisection steps: cells of 2^-40 of the range */
#define AGGCI_TESTS		4000	/* cell tests per end, then the end is the cell's */

double
aggci_halfwidth(double r, double alpha)
{
	double		q = exp(-r);
	double		m = ceil(log(alpha * (1 + q) / 2) / (-r));

	return fmax(m - 1, 0);
}

/* P(a <= Y <= b) for Y discrete Laplace of rate r, a and b integers (or infinite) */
static double
aggci_mass(double r, double a, double b)
{
	double		q1 = 1 + exp(-r);

	if (a > b)
		return 0;
	if (a >= 1)
		return (exp(-r * a) - exp(-r * (b + 1))) / q1;
	if (b <= -1)
		return (exp(r * b) - exp(r * (a - 1))) / q1;
	return 1 - (exp(-r * (b + 1)) + exp(r * (a - 1))) / q1;
}

/* the count noise cut into blocks [z1, z2] (and their mirrors), and the test's inputs */
typedef struct AggciMean
{
	double		rs;				/* the sum noise's rate */
	double		level;			/* the test's: 0.95 for a mean */
	double		S;
	double		C;
	int			nb;				/* blocks z >= 1 */
	double		z1[AGGCI_BLOCKS];
	double		z2[AGGCI_BLOCKS];
	double		mass[AGGCI_BLOCKS]; /* P(Z_C in [z1, z2]), the same for [-z2, -z1] */
	double		mass0;			/* P(Z_C = 0) */
	int			tests;
} AggciMean;

static void
aggci_mean_init(AggciMean *w, double S, double C, double rs, double rc, double level)
{
	double		q1 = 1 + exp(-rc),
				k = fmin(ceil(log(2 / AGGCI_TAIL) / rc), 1e15),	/* P(|Z_C| > k) <= TAIL */
				b = ceil(k / AGGCI_BLOCKS);

	w->rs = rs;
	w->level = level;
	w->S = S;
	w->C = C;
	w->tests = 0;
	w->mass0 = -expm1(-rc) / q1;
	w->nb = 0;
	for (double z = 1; z <= k; z += b)
	{
		w->z1[w->nb] = z;
		w->z2[w->nb] = fmin(z + b - 1, k);
		w->mass[w->nb] = exp(-rc * z) * -expm1(-rc * (w->z2[w->nb] - z + 1)) / q1;
		w->nb++;
	}
}

/*
 * A lower bound of P(|Z_S - m z| < d) for every m in [m1, m2] and z in
 * [z1, z2]: P(Z_S in (max m z - d, min m z + d)) over the four corners,
 * that interval shrunk by the slack.
 */
static double
aggci_block(const AggciMean *w, double m1, double m2, double z1, double z2, double d)
{
	double		p[4] = {m1 * z1, m1 * z2, m2 * z1, m2 * z2},
				x = fmax(fmax(p[0], p[1]), fmax(p[2], p[3])),
				y = fmin(fmin(p[0], p[1]), fmin(p[2], p[3])),
				e = AGGCI_SLACK * (1 + fabs(x) + fabs(y) + d);

	return aggci_mass(w->rs, floor(x - d + e) + 1, ceil(y + d - e) - 1);
}

/*
 * Whether no m in [m1, m2] passes: with d at most min |S - m C| over the
 * cell, sum over the count noise's blocks (mass times aggci_block) is a
 * lower bound of P(|Z_S - m Z_C| < d) for each m there.
 */
static bool
aggci_rejects(AggciMean *w, double m1, double m2)
{
	double		f1 = w->S - m1 * w->C,
				f2 = w->S - m2 * w->C,
				d,
				p,
				left = 1 - w->mass0;

	w->tests++;
	if ((f1 <= 0) != (f2 <= 0))
		return false;
	d = fmin(fabs(f1), fabs(f2)) -
		AGGCI_SLACK * (1 + fabs(w->S) + fmax(fabs(m1), fabs(m2)) * fabs(w->C));
	if (d <= 0)
		return false;
	p = w->mass0 * aggci_block(w, m1, m2, 0, 0, d);
	for (int i = 0; i < w->nb && p < w->level + AGGCI_SLACK; i++)
	{
		if (p + left < w->level + AGGCI_SLACK)
			return false;
		p += w->mass[i] * (aggci_block(w, m1, m2, w->z1[i], w->z2[i], d) +
						   aggci_block(w, m1, m2, -w->z2[i], -w->z1[i], d));
		left -= 2 * w->mass[i];
	}
	return p >= w->level + AGGCI_SLACK;
}

/*
 * The lowest (first) or highest end of the cells of [m1, m2] not
 * rejected, depth bisections deep, or NaN when all are.  Out of tests, the
 * current cell's end: every cell beyond it was rejected.
 */
static double
aggci_end(AggciMean *w, double m1, double m2, int depth, bool first)
{
	double		mid = m1 + (m2 - m1) / 2,
				r;

	if (w->tests >= AGGCI_TESTS)
		return first ? m1 : m2;
	if (aggci_rejects(w, m1, m2))
		return NAN;
	if (depth == 0)
		return first ? m1 : m2;
	r = first ? aggci_end(w, m1, mid, depth - 1, first) : aggci_end(w, mid, m2, depth - 1, first);
	if (!isnan(r))
		return r;
	return first ? aggci_end(w, mid, m2, depth - 1, first) : aggci_end(w, m1, mid, depth - 1, first);
}

static double
aggci_clamp(const AggciColumn *c, double v)
{
	return fmin(c->hi, fmax(c->lo, v));
}

/* aggci_mean_lattice's hull at the test's level */
static bool
aggci_ratio_hull(double S, double C, double rs, double rc, double lo, double hi, double level,
				 double *ml, double *mh)
{
	AggciMean	w;

	aggci_mean_init(&w, S, C, rs, rc, level);
	*ml = aggci_end(&w, lo, hi, AGGCI_DEPTH, true);
	if (isnan(*ml))
		return false;
	w.tests = 0;
	*mh = aggci_end(&w, lo, hi, AGGCI_DEPTH, false);
	return true;
}

bool
aggci_mean_lattice(double S, double C, double rs, double rc, double lo, double hi,
				   double *ml, double *mh)
{
	return aggci_ratio_hull(S, C, rs, rc, lo, hi, 0.95, ml, mh);
}

bool
aggci_mean(const AggciColumn *c, double S, double C, double rs, double rc,
		   double *est, double *ci_lo, double *ci_hi)
{
	double		ml,
				mh;

	/* the lattice means: rint() of values in [lo, hi]; all rejected (w.p. <= 5 %): [lo, hi] */
	*ci_lo = c->lo;
	*ci_hi = c->hi;
	if (aggci_mean_lattice(S, C, rs, rc, c->lo / c->step - 0.5, c->hi / c->step + 0.5, &ml, &mh))
	{
		*ci_lo = aggci_clamp(c, ml * c->step - c->step / 2);
		*ci_hi = aggci_clamp(c, mh * c->step + c->step / 2);
	}
	if (!(C > 0))
		return false;
	*est = aggci_clamp(c, S * c->step / C);
	*ci_lo = fmin(*ci_lo, *est);
	*ci_hi = fmax(*ci_hi, *est);
	return true;
}

/*
 * The larger distance from m to its hull's ends with noise-free values (S
 * = m n, C = n) and no bound to clamp them, over m at lo and at hi: the
 * noise law of S - m C widens with |m|, so no m in [lo, hi] reaches
 * further.  Plus the search's resolution; at most hi - lo.
 */
static double
aggci_reach(double lo, double hi, double n, double rs, double rc, double level)
{
	double		d = 0,
				ml,
				mh;

	for (int i = 0; i < 2; i++)
	{
		double		m = i == 0 ? lo : hi;

		if (!aggci_ratio_hull(m * n, n, rs, rc, m - (hi - lo), m + (hi - lo), level, &ml, &mh))
			return hi - lo;
		d = fmax(d, fmax(m - ml, mh - m));
	}
	return fmin(hi - lo, d + ldexp(hi - lo, -AGGCI_DEPTH + 1));
}

double
aggci_mean_halfwidth(const AggciColumn *c, double n, double rs, double rc)
{
	return fmin(c->hi - c->lo,
				aggci_reach(c->lo / c->step, c->hi / c->step, n, rs, rc, 0.95) * c->step + c->step / 2);
}

/*
 * The lattice means of the values (S / n) and of their squares (Q / n),
 * each by the mean's test at 97.5 % (so both w.p. >= 95 %), as values
 * (rounding added, within their ranges); the variance between the extremes
 * of m2 - m1^2 over that box.
 */
bool
aggci_variance(const AggciColumn *c, double units, double Q, double S, double C,
			   double rq, double rs, double rc,
			   double *est, double *ci_lo, double *ci_hi)
{
	double		g2 = c->step * c->step * units,
				top = (c->hi - c->lo) * (c->hi - c->lo) / 4,
				sq = fmax(c->lo * c->lo, c->hi * c->hi),
				m1l,
				m1h,
				m2l,
				m2h;

	*ci_lo = 0;
	*ci_hi = top;
	if (aggci_ratio_hull(S, C, rs, rc, c->lo / c->step - 0.5, c->hi / c->step + 0.5, 0.975,
						 &m1l, &m1h) &&
		aggci_ratio_hull(Q, C, rq, rc, -0.5, sq / g2 + 0.5, 0.975, &m2l, &m2h))
	{
		double		ml = aggci_clamp(c, m1l * c->step - c->step / 2),
					mh = aggci_clamp(c, m1h * c->step + c->step / 2),
					m2lo = fmax(0, m2l * g2 - g2 / 2),
					m2hi = fmin(sq, m2h * g2 + g2 / 2),
					sqh = fmax(ml * ml, mh * mh),
					sql = ml <= 0 && mh >= 0 ? 0 : fmin(ml * ml, mh * mh);

		*ci_lo = fmin(top, fmax(0, m2lo - sqh));
		*ci_hi = fmin(top, fmax(0, m2hi - sql));
	}
	if (!(C > 0))
		return false;
	*est = fmin(top, fmax(0, Q * g2 / C - (S * c->step / C) * (S * c->step / C)));
	*ci_lo = fmin(*ci_lo, *est);
	*ci_hi = fmax(*ci_hi, *est);
	return true;
}

/*
 * At a true count n, with D1 and D2 the reaches of the means of the values
 * and of their squares (as values, rounding added): both ends of the
 * interval lie within D2 + 2 max(|lo|, |hi|) D1 + D1^2 of the variance.
 */
double
aggci_variance_halfwidth(const AggciColumn *c, double units, double n,
						 double rq, double rs, double rc)
{
	double		g2 = c->step * c->step * units,
				sq = fmax(c->lo * c->lo, c->hi * c->hi),
				d1 = aggci_reach(c->lo / c->step, c->hi / c->step, n, rs, rc, 0.975) * c->step +
		c->step / 2,
				d2 = aggci_reach(0, sq / g2, n, rq, rc, 0.975) * g2 + g2 / 2;

	return fmin((c->hi - c->lo) * (c->hi - c->lo) / 4, d2 + 2 * sqrt(sq) * d1 + d1 * d1);
}
