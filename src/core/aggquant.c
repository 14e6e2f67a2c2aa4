/*-------------------------------------------------------------------------
 *
 * aggquant.c
 *	  dpobj.aggregate()'s quantiles and their intervals from two noisy
 *	  histograms (aggquant.h).
 *
 *	  The test at edge k rejects "x_(t) is below edge k" when P(W_k <= T_k)
 *	  <= alpha (and "x_(t) is at or above it" when P(W_k >= T_k) <= alpha):
 *	  under that hypothesis T_k is at least (at most) W_k, so a wrong
 *	  rejection has probability <= alpha.  The lower end is the first edge
 *	  not rejected from below, less a leaf: it lies above x_(t) only if
 *	  the test at the edge just above x_(t)'s leaf rejected wrongly; the
 *	  upper end likewise, so that one edge per end decides an error and
 *	  the interval holds x_(t) w.p. >= 1 - 2 alpha however the rows lie.
 *
 *	  Each tail is bounded by Chernoff's bound (the noises' moment
 *	  generating functions, closed form) and, when that does not decide,
 *	  computed from the law of U and V: the law of a sum of discrete
 *	  Laplace noises (floored to blocks of s units when their spread needs
 *	  more than AQ_MAX_N lattice points, bounding W from the right side),
 *	  by FFT (GSL) of one noise's law raised to the sum's size.
 *
 *-------------------------------------------------------------------------
 */
#include "core/aggquant.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_fft_halfcomplex.h>
#include <gsl/gsl_fft_real.h>

#define AQ_MAX_N	(1 << 15)	/* lattice points of a sum's law */
#define AQ_SLACK	1e-9		/* added to an exact tail: the FFT's rounding and aliasing, the skipped points */
#define AQ_TINY		1e-16		/* a law's points below this are skipped (<= 2^15 of them) */
#define AQ_CACHE	64			/* sums' laws kept per shape */

/* the law of a sum of mc coarse and mf leaf noises, floored to blocks: P(Y <= y) */
typedef struct AqSum
{
	int			mc;
	int			mf;
	double	   *cdf;			/* cdf[y + N / 2], y = -N / 2 .. N / 2 - 1 */
	int			first;			/* the points with P(Y = y) > AQ_TINY */
	int			last;
} AqSum;

struct AggquantLaw
{
	AggquantShape s;
	int			ncoarse;
	double		var_leaf;		/* one noise's variance */
	double		var_coarse;
	int			N;				/* lattice points (a power of 2), or 0: Chernoff only */
	int			step;			/* block s */
	double	   *spec_leaf;		/* halfcomplex spectra of one floored noise */
	double	   *spec_coarse;
	int			nsums;
	int			next;			/* the cache's next victim */
	AqSum		sums[AQ_CACHE];
};

/* the noises and sums of one edge: T = (1 - q) U - q V */
typedef struct AqEdge
{
	int			mcU;
	int			mfU;
	int			mcV;
	int			mfV;
	double		U;
	double		V;
} AqEdge;

int
aggquant_ncoarse(const AggquantShape *s)
{
	return s->group >= s->nleaves ? 0 : (s->nleaves + s->group - 1) / s->group;
}

/* Var Y = 2 e^-r / (1 - e^-r)^2 */
static double
aq_var(double r)
{
	double		a = -expm1(-r);

	return 2 * exp(-r) / (a * a);
}

/* P(floor(Y / s) = j), Y discrete Laplace of rate r */
static double
aq_block_pmf(double r, int s, long j)
{
	double		c = -expm1(-r * s) / (1 + exp(-r));

	return j >= 0 ? exp(-r * (double) j * s) * c : exp(-r * ((double) -j * s - s + 1)) * c;
}

/* the halfcomplex spectrum of floor(Y / s) on N points */
static double *
aq_spectrum(double r, int s, int N)
{
	double	   *d = malloc(sizeof(double) * N);

	if (d == NULL)
		return NULL;
	for (long j = -N / 2; j < N / 2; j++)
		d[(j + N) % N] = aq_block_pmf(r, s, j);
	gsl_fft_real_radix2_transform(d, 1, N);
	return d;
}

AggquantLaw *
aggquant_law_new(const AggquantShape *s)
{
	AggquantLaw *law = calloc(1, sizeof(AggquantLaw));
	double		rmin,
				sd,
				half;

	if (law == NULL)
		return NULL;
	law->s = *s;
	law->ncoarse = aggquant_ncoarse(s);
	law->var_leaf = aq_var(s->rate_leaf);
	law->var_coarse = law->ncoarse > 0 ? aq_var(s->rate_coarse) : 0;
	rmin = law->ncoarse > 0 ? fmin(s->rate_leaf, s->rate_coarse) : s->rate_leaf;
	/* the widest sum's law: past 9 sd + 30 / r its mass is far below AQ_SLACK */
	sd = sqrt(law->ncoarse * law->var_coarse + s->group * law->var_leaf);
	half = 9 * sd + 30 / rmin + 2;
	if (!(half < 1e15))
		return law;				/* Chernoff only */
	law->step = (int) fmax(1, ceil(2 * half / (AQ_MAX_N - 2)));
	for (law->N = 16; law->N < 2 * ceil(half / law->step) + 2; law->N *= 2)
		;
	gsl_set_error_handler_off();
	law->spec_leaf = aq_spectrum(s->rate_leaf, law->step, law->N);
	law->spec_coarse = law->ncoarse > 0 ? aq_spectrum(s->rate_coarse, law->step, law->N) : NULL;
	if (law->spec_leaf == NULL || (law->ncoarse > 0 && law->spec_coarse == NULL))
		law->N = 0;
	return law;
}

void
aggquant_law_free(AggquantLaw *law)
{
	if (law == NULL)
		return;
	for (int i = 0; i < law->nsums; i++)
		free(law->sums[i].cdf);
	free(law->spec_leaf);
	free(law->spec_coarse);
	free(law);
}

/* z^m for the complex z = (re, im) */
static void
aq_cpow(double re, double im, int m, double *ore, double *oim)
{
	double		mag = pow(hypot(re, im), m),
				ph = atan2(im, re) * m;

	*ore = mag * cos(ph);
	*oim = mag * sin(ph);
}

/* the law of mc coarse and mf leaf floored noises summed: its cdf, or false */
static bool
aq_sum_compute(const AggquantLaw *law, AqSum *e)
{
	int			N = law->N;
	double	   *d = malloc(sizeof(double) * N);
	double		acc = 0;

	if (d == NULL)
		return false;
	for (int i = 0; i <= N / 2; i++)
	{
		double		re = 1,
					im = 0,
					a,
					b,
					t;

		for (int w = 0; w < 2; w++)
		{
			const double *sp = w == 0 ? law->spec_leaf : law->spec_coarse;
			int			m = w == 0 ? e->mf : e->mc;

			if (m == 0)
				continue;
			aq_cpow(sp[i], i == 0 || i == N / 2 ? 0 : sp[N - i], m, &a, &b);
			t = re * a - im * b;
			im = re * b + im * a;
			re = t;
		}
		d[i] = re;
		if (i > 0 && i < N / 2)
			d[N - i] = im;
	}
	gsl_fft_halfcomplex_radix2_inverse(d, 1, N);
	e->cdf = malloc(sizeof(double) * N);
	if (e->cdf == NULL)
	{
		free(d);
		return false;
	}
	e->first = N;
	e->last = -1;
	for (int y = -N / 2; y < N / 2; y++)
	{
		double		p = fmax(0, d[(y + N) % N]);

		acc += p;
		e->cdf[y + N / 2] = fmin(1, acc);
		if (p > AQ_TINY)
		{
			e->first = e->first < N ? e->first : y + N / 2;
			e->last = y + N / 2;
		}
	}
	free(d);
	return e->last >= 0;
}

/* the law of (mc, mf) from the cache, computed if new (never evicting keep); NULL: none */
static const AqSum *
aq_sum(AggquantLaw *law, int mc, int mf, const AqSum *keep)
{
	AqSum	   *e;

	if (law->N == 0)
		return NULL;
	/* equal rates: one law per number of noises */
	if (law->ncoarse > 0 && law->s.rate_coarse == law->s.rate_leaf)
	{
		mf += mc;
		mc = 0;
	}
	for (int i = 0; i < law->nsums; i++)
		if (law->sums[i].mc == mc && law->sums[i].mf == mf)
			return &law->sums[i];
	if (law->nsums < AQ_CACHE)
		e = &law->sums[law->nsums++];
	else
	{
		if (&law->sums[law->next] == keep)
			law->next = (law->next + 1) % AQ_CACHE;
		e = &law->sums[law->next];
		law->next = (law->next + 1) % AQ_CACHE;
		free(e->cdf);
	}
	e->mc = mc;
	e->mf = mf;
	e->cdf = NULL;
	if (!aq_sum_compute(law, e))
	{
		free(e->cdf);
		e->cdf = NULL;
		e->mc = -1;				/* never found again */
		return NULL;
	}
	return e;
}

/* P(Y <= y) */
static double
aq_cdf(const AggquantLaw *law, const AqSum *e, double y)
{
	if (y < -law->N / 2)
		return 0;
	if (y >= law->N / 2 - 1)
		return 1;
	return e->cdf[(int) y + law->N / 2];
}

/* the edge's noise sizes, and its noisy sums from the prefix sums (pl: leaves, pc: coarse) */
static void
aq_edge(const AggquantLaw *law, const double *pl, const double *pc, int k, AqEdge *e)
{
	int			B = law->s.nleaves,
				g = law->s.group,
				nc = law->ncoarse,
				c = nc > 0 ? k / g : 0,
				d = nc > 0 ? k % g : k,
				end = nc > 0 ? (c * g + g < B ? c * g + g : B) : B;

	memset(e, 0, sizeof(AqEdge));
	if (nc > 0 && d == 0)
	{
		/* on a coarse edge: the coarse bins below and above it */
		e->mcU = c;
		e->mcV = nc - c;
		if (pc != NULL)
		{
			e->U = pc[c];
			e->V = pc[nc] - pc[c];
		}
		return;
	}
	/* in coarse bin c: the coarse bins below, its leaves below; its leaves above, the coarse above */
	e->mcU = c;
	e->mfU = d;
	e->mfV = end - k;
	e->mcV = nc > 0 ? nc - 1 - c : 0;
	if (pl != NULL)
	{
		e->U = (nc > 0 ? pc[c] : 0) + pl[k] - pl[k - d];
		e->V = pl[end] - pl[k] + (nc > 0 ? pc[nc] - pc[c + 1] : 0);
	}
}

static double
aq_edge_var(const AggquantLaw *law, const AqEdge *e, double q)
{
	return (1 - q) * (1 - q) * (e->mcU * law->var_coarse + e->mfU * law->var_leaf) +
		q * q * (e->mcV * law->var_coarse + e->mfV * law->var_leaf);
}

/* log E e^(t Y), Y discrete Laplace of rate r, |t| < r */
static double
aq_logmgf(double r, double t)
{
	t = fabs(t);
	return 2 * log(-expm1(-r)) - log(-expm1(t - r)) - log(-expm1(-t - r));
}

/*
 * Chernoff's bound of P(W <= x), x < 0: e^(lambda x) E e^(-lambda W), at
 * the lambda a normal law of W's variance would take (any lambda in range
 * gives a bound), kept inside the noises' moment generating functions
 */
static double
aq_chernoff(const AggquantLaw *law, const AqEdge *e, double q, double x)
{
	double		rmax = fmin(law->s.rate_leaf, law->ncoarse > 0 ? law->s.rate_coarse : INFINITY),
				l = fmin(-x / aq_edge_var(law, e, q), 0.5 * rmax / fmax(q, 1 - q));

	return exp(l * x +
			   (e->mcU ? e->mcU * aq_logmgf(law->s.rate_coarse, l * (1 - q)) : 0) +
			   e->mfU * aq_logmgf(law->s.rate_leaf, l * (1 - q)) +
			   (e->mcV ? e->mcV * aq_logmgf(law->s.rate_coarse, l * q) : 0) +
			   e->mfV * aq_logmgf(law->s.rate_leaf, l * q));
}

/*
 * P(W <= x) (lower) or P(W >= x), bounded above with the floored laws
 * (W between its floored values and them plus (s - 1) per noise); NaN
 * when no law is available
 */
static double
aq_exact(AggquantLaw *law, const AqEdge *e, double q, double x, bool lower)
{
	const AqSum *u = aq_sum(law, e->mcU, e->mfU, NULL);
	const AqSum *v;
	double		s = law->step,
				a = (1 - q) * s,
				shift = lower ? q * (s - 1) * (e->mcV + e->mfV) : -(1 - q) * (s - 1) * (e->mcU + e->mfU),
				acc = 0;

	if (u == NULL)
		return NAN;
	v = aq_sum(law, e->mcV, e->mfV, u);
	if (v == NULL)
		return NAN;
	for (int i = v->first; i <= v->last; i++)
	{
		double		pv = v->cdf[i] - (i > 0 ? v->cdf[i - 1] : 0),
					z = (x + q * s * (i - law->N / 2) + shift) / a;

		if (pv <= 0)
			continue;
		if (lower)
			acc += pv * aq_cdf(law, u, floor(z + 1e-9 * (1 + fabs(z))));
		else
			acc += pv * (1 - aq_cdf(law, u, ceil(z - 1e-9 * (1 + fabs(z))) - 1));
	}
	return acc + AQ_SLACK;
}

/*
 * Whether the test at the edge rejects at alpha: lower, "x_(t) below the
 * edge" (P(W <= T) <= alpha), else "x_(t) at or above it" (P(W >= T) <=
 * alpha).  W is symmetric: never when T is on the hypothesis' side of 0.
 */
static bool
aq_rejects(AggquantLaw *law, const AqEdge *e, double q, double alpha, bool lower)
{
	double		t = (1 - q) * e->U - q * e->V,
				x = lower ? t : -t,
				p;

	/*
	 * within 1.5 sd of 0 kept without its tail: about 6 % there for a sum of
	 * Laplace noises (a normal law's 6.7 %, one noise's 6.0 %), and keeping
	 * is the conservative side
	 */
	if (x >= 0 || (alpha < 0.05 && x * x <= 2.25 * aq_edge_var(law, e, q)))
		return false;
	/* Chernoff's bound, then the law */
	if (aq_chernoff(law, e, q, x) <= alpha)
		return true;
	p = aq_exact(law, e, q, t, lower);
	return !isnan(p) && p <= alpha;
}

/* prefix sums of n counts: p[0] = 0, p[i] = counts 0 .. i - 1 */
static double *
aq_prefix(const double *v, int n)
{
	double	   *p = malloc(sizeof(double) * (n + 1));

	if (p == NULL)
		return NULL;
	p[0] = 0;
	for (int i = 0; i < n; i++)
		p[i + 1] = p[i] + v[i];
	return p;
}

void
aggquant_interval(AggquantLaw *law, const double *leaf, const double *coarse, double q,
				  double alpha, int *lo, int *hi, int *est_lo, int *est_hi)
{
	int			B = law->s.nleaves;
	double	   *pl = aq_prefix(leaf, B),
			   *pc = law->ncoarse > 0 ? aq_prefix(coarse, law->ncoarse) : NULL;
	AqEdge		e;

	*lo = *est_lo = 0;
	*hi = *est_hi = B;
	if (pl == NULL || (law->ncoarse > 0 && pc == NULL))
	{
		free(pl);
		free(pc);
		return;					/* out of memory: the declared bounds */
	}
	/* the estimate: the first edge whose T >= 0 less a leaf, the last whose T <= 0 plus one */
	*est_lo = B - 1;
	for (int k = 1; k < B; k++)
	{
		aq_edge(law, pl, pc, k, &e);
		if ((1 - q) * e.U - q * e.V >= 0)
		{
			*est_lo = k - 1;
			break;
		}
	}
	*est_hi = 1;
	for (int k = B - 1; k >= 1; k--)
	{
		aq_edge(law, pl, pc, k, &e);
		if ((1 - q) * e.U - q * e.V <= 0)
		{
			*est_hi = k + 1;
			break;
		}
	}
	/* the interval: the first edge not rejected from below, the last from above */
	*lo = B - 1;
	for (int k = 1; k < B; k++)
	{
		aq_edge(law, pl, pc, k, &e);
		if (!aq_rejects(law, &e, q, alpha, true))
		{
			*lo = k - 1;
			break;
		}
	}
	*hi = 1;
	for (int k = B - 1; k >= 1; k--)
	{
		aq_edge(law, pl, pc, k, &e);
		if (!aq_rejects(law, &e, q, alpha, false))
		{
			*hi = k + 1;
			break;
		}
	}
	/* a rejection at alpha < 1/2 implies the estimate's: already inside; kept so */
	*lo = *lo < *est_lo ? *lo : *est_lo;
	*hi = *hi > *est_hi ? *hi : *est_hi;
	free(pl);
	free(pc);
}

/* the least h >= 0 with P(W <= -h) <= alpha at the edge (by its bounds) */
static double
aq_edge_reach(AggquantLaw *law, const AqEdge *e, double q, double alpha)
{
	double		var = aq_edge_var(law, e, q),
				lo = 0,
				hi = sqrt(var * (1 - alpha) / alpha) + 1;	/* Cantelli's */

	while (hi - lo > 0.5)
	{
		double		h = (lo + hi) / 2,
					p = aq_chernoff(law, e, q, -h);

		if (p > alpha)
		{
			p = aq_exact(law, e, q, -h, true);
			if (isnan(p))
				p = 1;
		}
		if (p <= alpha)
			hi = h;
		else
			lo = h;
	}
	return ceil(hi);
}

double
aggquant_reach(AggquantLaw *law, double q, double alpha)
{
	int			B = law->s.nleaves,
				top[3] = {1, 1, 1};
	double		vtop[3] = {-1, -1, -1},
				reach = 0;
	AqEdge		e;

	/* the three edges whose noise has the largest variance */
	for (int k = 1; k < B; k++)
	{
		double		v;

		aq_edge(law, NULL, NULL, k, &e);
		v = aq_edge_var(law, &e, q);
		for (int i = 0; i < 3; i++)
			if (v > vtop[i])
			{
				for (int j = 2; j > i; j--)
				{
					vtop[j] = vtop[j - 1];
					top[j] = top[j - 1];
				}
				vtop[i] = v;
				top[i] = k;
				break;
			}
	}
	for (int i = 0; i < 3 && vtop[i] >= 0; i++)
	{
		aq_edge(law, NULL, NULL, top[i], &e);
		reach = fmax(reach, aq_edge_reach(law, &e, q, alpha));
	}
	return reach;
}
