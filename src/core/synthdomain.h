/*-------------------------------------------------------------------------
 *
 * synthdomain.h
 *	  A synthesized column's public domain: its levels as the scan counts
 *	  them ("scan levels"), its levels in the model ("model levels") and the
 *	  way back from a model level to a value.  Plain C.
 *
 *	  - levels: the declared levels, codes 0..n-1; scan = model levels.
 *	  - declared bins: [lo, hi] cut into B equal-width bins, a value
 *	    outside clamped to the end bin (a public rule: it never depends on
 *	    the rows); scan = model levels.
 *	  - private quantile bins: the scan counts S equal-width sub-bins of
 *	    [lo, hi]; a release of them (part of the column's share of the
 *	    charge; from 0.7.0 denoised, synth_quantile_denoise, and the bins
 *	    then measured with the rest) gives the model's at most B bins, runs
 *	    of sub-bins cut where the noisy cumulative count crosses j/B of the
 *	    noisy total (post-processing; the edges are released).  With
 *	    merge_empty (models from 0.7.0), when the runs of sub-bins with and
 *	    without weight are at most B, each run without weight is a bin of
 *	    its own, never drawn unless measured (synth_column_set_shut), and
 *	    the runs with weight are cut at the
 *	    targets while bins are left; no weight at all: B equal-width bins
 *	    (whole sub-bins).
 *	  A nullable column has one more level, last: NULL.
 *
 *	  A synthetic value of a binned column is drawn within its model bin:
 *	  a sub-bin with probability proportional to its noisy count clamped at
 *	  0 (quantile bins; all 0: uniform), then within it: a continuous
 *	  column lo + (i + u) (hi - lo) / S, u on [0, 1]; an integer column
 *	  one of the sub-bin's integers first + j, j of 0..n-1 (none: the
 *	  sub-bin's nearest) -- uniformly, or for a quantile column whose model
 *	  holds its sub-bins' offset sums (synth_column_set_means) of density
 *	  (probability) proportional to e^(t u) (e^(t j)), t the sub-bin's
 *	  tilt: its mean the sub-bin's measured mean.  A quantile column's
 *	  point (synth_column_set_points) is drawn exactly at its chance first.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SYNTHDOMAIN_H
#define DPOBJ_SYNTHDOMAIN_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#define SYNTH_MAX_LEVELS 65536

typedef enum SynthColumnKind
{
	SYNTH_COL_LEVELS = 0,
	SYNTH_COL_BINS,
	SYNTH_COL_QUANTILE
} SynthColumnKind;

typedef struct SynthColumn
{
	SynthColumnKind kind;
	int			nlevels;		/* levels: the declared levels (NULL excluded) */
	double		lo,
				hi;				/* bins: the declared interval, lo < hi */
	int			nbins;			/* bins: B; quantile: at most B model bins */
	int			nsub;			/* quantile: S sub-bins, S >= B */
	bool		integer;		/* draws are integers */
	bool		nullable;		/* one more level: NULL */
	bool		closed;			/* that last level (NULL, "other") is never drawn */
	bool		merge_empty;	/* quantile: every bin holds weight (synth_quantile_bins) */

	/* quantile bins once chosen (synth_quantile_bins): */
	int		   *map;			/* sub-bin (and NULL) -> model bin, malloc'd */
	int			nmodel;			/* model bins chosen (NULL excluded) */
	double	   *edges;			/* nmodel + 1 edges, malloc'd */
	double	   *weight;			/* the sub-bins' noisy counts, clamped at 0 */
	bool	   *shut;			/* model levels never drawn, or NULL (synth_column_set_shut) */
	double	   *decay;			/* an open bin without weight at an end: its draw's decay
								 * ratio (> 0 from its lower edge up, < 0 down), or 0 */
	double	   *tilt;			/* quantile: each sub-bin's draw's tilt t (0: uniform), or
								 * NULL (synth_column_set_means) */
	double		point_p[3];		/* quantile: each point's (synth_column_points) chance
								 * within its bin, 0 if none (synth_column_set_points) */
	double		point_v[3];		/* and its value */
	int			point_level[3];	/* and its model level */
} SynthColumn;

/*
 * A row's offset within its sub-bin, in 1/2^SYNTH_OFFSET_BITS of the
 * sub-bin's width, 0 to 2^SYNTH_OFFSET_BITS: a quantile column's offset
 * sums are released on the counts' lattice (SYNTH_COUNT_BITS, synthaim.h)
 */
#define SYNTH_OFFSET_BITS 8

/* false when the declaration is out of range (a public refusal) */
extern bool synth_column_valid(const SynthColumn *c);

/*
 * Whether a binned column's width times its (sub-)bins is finite, so that
 * every bin edge lo + (hi - lo) i / n and draw within it is (part of
 * synth_column_valid)
 */
extern bool synth_column_fine(const SynthColumn *c);

/* the scan's levels: levels, bins or sub-bins, plus NULL */
extern int	synth_column_scan_levels(const SynthColumn *c);

/* the model's levels: as the scan's, or the chosen quantile bins plus NULL */
extern int	synth_column_model_levels(const SynthColumn *c);

/* a numeric value's scan level (NaN: NULL's when nullable, else the first) */
extern int	synth_column_code(const SynthColumn *c, double x, bool isnull);

/*
 * The sub-bin weights a quantile column keeps from its noisy sub-bin counts
 * drawn[0..S-1] (each of standard deviation sd) into out, finest first: at
 * group widths w = 1, 2, 4, ... sub-bins, a group whose sum less the weight
 * finer widths gave it is at least sqrt(2 ln G) sd of a group's sum (G
 * groups: about the largest of G pure-noise sums; at least 2) spreads that
 * rest evenly over its sub-bins still without weight.  Dense ranges keep the sub-bins'
 * resolution, sparse ones a coarser one, and an empty range (a column's
 * unused high end) no weight; none kept: all 0 (the column then gets B
 * equal-width bins, drawn uniformly: synth_quantile_bins).  Post-processing.
 */
extern void synth_quantile_denoise(const double *drawn, int S, double sd, double *out);

/*
 * Quantile bins from the noisy sub-bin counts noisy[0..S-1] (NULL's count,
 * if any, at S): fills c->map, c->nmodel, c->edges, c->weight.  false when
 * out of memory.
 */
extern bool synth_quantile_bins(SynthColumn *c, const double *noisy);
extern void synth_column_free(SynthColumn *c);

/*
 * a bin without weight whose measured count is below this many sd is shut;
 * at or above it, the bin is drawn: at an end of the range by a geometric
 * decay away from the kept sub-bin next to it (its weight w continued until
 * the bin's count M is used: ratio M / (M + w) a sub-bin), else uniformly
 */
#define SYNTH_SHUT_SDS 3.0

/*
 * c->shut: the model levels never drawn -- a closed column's last level
 * (NULL, "other"), a quantile bin without weight (merge_empty, some weight
 * in the column) unless its count in the column's first measurement y
 * (cell variances var, or sigma2 each; y NULL: none) is at least
 * SYNTH_SHUT_SDS sd (c->decay: how such a bin is drawn) -- or NULL when
 * none is.  false when out of memory.
 */
extern bool synth_column_set_shut(SynthColumn *c, const double *y, const double *var,
								  double sigma2);

/*
 * x's offset within scan level `code` (a quantile column's sub-bin, x not
 * NULL nor NaN), x clamped into [lo, hi] as the code is: round((x - a) /
 * width 2^SYNTH_OFFSET_BITS), 0 to 2^SYNTH_OFFSET_BITS
 */
extern int64_t synth_column_offset(const SynthColumn *c, int code, double x);

/*
 * A column's scan coding with its constants computed once (synth_coding_init),
 * for the scan's rows: synth_coding_code and synth_coding_offset are
 * synth_column_code's and synth_column_offset's values, the same
 * expressions of the same doubles.
 */
typedef struct SynthCoding
{
	bool		levels;			/* kind SYNTH_COL_LEVELS */
	int			n;				/* scan levels less NULL's */
	int			null_code;		/* NULL's and NaN's */
	double		lo,
				hi,
				span,			/* hi - lo */
				width;			/* span / n */
	int			npoints;		/* synth_column_points' */
	bool		zero;			/* lo < 0 < hi: 0 is one */
} SynthCoding;

extern void synth_coding_init(const SynthColumn *c, SynthCoding *s);

static inline int
synth_coding_code(const SynthCoding *s, double x, bool isnull)
{
	double		t;

	if (isnull || isnan(x))
		return s->null_code;
	if (s->levels)
		return x >= 0 && x < s->n ? (int) x : 0;
	/* the equal-width cell of x among n over [lo, hi], clamped */
	t = (x - s->lo) / s->span * s->n;
	if (!(t >= 0.0))
		return 0;
	return t >= s->n ? s->n - 1 : (int) t;
}

static inline int64_t
synth_coding_offset(const SynthCoding *s, int code, double x)
{
	double		t;

	x = x < s->lo ? s->lo : (x > s->hi ? s->hi : x);
	t = nearbyint((x - (s->lo + s->width * code)) / s->width * (double) (1 << SYNTH_OFFSET_BITS));
	return t < 0.0 ? 0 : (t > (1 << SYNTH_OFFSET_BITS) ? 1 << SYNTH_OFFSET_BITS : (int64_t) t);
}

/*
 * A quantile column's points, public values a column often holds exactly:
 * lo, 0 when lo < 0 < hi, hi (a value clamped to a bound is at it), in
 * order into out[0..2] (unless NULL); their number: none for an integer column whose
 * sub-bins are narrower than 1 (each then holds at most one integer: its
 * count is the point's).  The scan counts the rows at each
 * (synth_coding_point: x clamped as the code is, the point's index or -1).
 */
#define SYNTH_MAX_POINTS 3
extern int	synth_column_points(const SynthColumn *c, double *out);

static inline int
synth_coding_point(const SynthCoding *s, double x)
{
	if (s->npoints == 0)
		return -1;
	if (x <= s->lo)
		return 0;
	if (x >= s->hi)
		return s->zero ? 2 : 1;
	return s->zero && x == 0.0 ? 1 : -1;
}

/*
 * c->point_p from the points' noisy counts counts[0..] (each of standard
 * deviation sd): a point of count at least SYNTH_POINT_SDS sd is drawn
 * exactly with chance count / M in its bin, M the bin's weight (c->weight
 * summed; none: its count in the column's first measurement y, if any),
 * and that count leaves its sub-bin's weight (c->decay recomputed from the
 * net weight, y the bins' counts); the chances of a bin's points scaled to
 * sum at most 1.  Post-processing; after synth_column_set_shut.
 */
#define SYNTH_POINT_SDS 2.0
extern void synth_column_set_points(SynthColumn *c, const double *counts, double sd,
									const double *y);

/*
 * c->tilt from the sub-bins' noisy offset sums sums[0..S-1] (in sub-bin
 * widths, each of standard deviation sd): a sub-bin with weight w gets the
 * tilt whose mean offset is (sum + sd / 2) / (w + sd), clamped to [0, 1]
 * (its measured mean, shrunk toward the middle by sd rows: a sub-bin of
 * noise-level weight is drawn near uniformly); without weight, uniform.
 * Post-processing.  false when out of memory.
 */
extern bool synth_column_set_means(SynthColumn *c, const double *sums, double sd);

/*
 * A value within model level `level` (not NULL's) of a binned column; the
 * caller knows NULL's level (the last when nullable).
 */
extern double synth_column_draw(const SynthColumn *c, int level, gsl_rng *rng);

#endif							/* DPOBJ_SYNTHDOMAIN_H */
