/*
 * test_ebm.c -- private additive boosting's arithmetic (src/core/additive.c): the
 * term layout of an encoding, bin lookup, the margin, the clipped residual,
 * one round's update, centring, and the calibration (every round's residual
 * sums at sensitivity 2k, the counts at sqrt 2 k, composing to rho).
 */
#include <math.h>
#include <stdlib.h>

#include "core/dpnoise.h"
#include "core/additive.h"
#include "unitcheck.h"

static void
test_layout(void)
{
	EBMTerm		t[8];
	int			groups[] = {3, 0, 2, 0};
	int			n,
				ns;

	/* one-hot 3, numeric, one-hot 2, numeric: 7 coordinates, 4 terms */
	n = ebm_layout(groups, 4, 7, 16, -1, 1, t, &ns);
	CHECK(n == 4 && ns == 3 + 16 + 2 + 16, "layout: %d terms, %d scores", n, ns);
	CHECK(t[0].type == EBM_TERM_CATEGORICAL && t[0].index == 0 && t[0].size == 3 && t[0].offset == 0,
		  "layout: categorical term 0");
	CHECK(t[1].type == EBM_TERM_NUMERIC && t[1].index == 3 && t[1].size == 16 && t[1].offset == 3,
		  "layout: numeric term 1");
	CHECK(t[2].index == 4 && t[2].offset == 19 && t[3].index == 6 && t[3].offset == 21,
		  "layout: offsets");
	/* no groups: every coordinate numeric */
	n = ebm_layout(NULL, 0, 5, 8, 0, 10, t, &ns);
	CHECK(n == 5 && ns == 40 && t[4].index == 4 && t[4].lo == 0 && t[4].hi == 10, "layout: numeric only");
	/* groups that do not cover d, a group of 1, too few bins, lo >= hi */
	CHECK(ebm_layout(groups, 4, 8, 16, -1, 1, t, &ns) == -1, "layout: short groups refused");
	CHECK(ebm_layout(groups, 4, 6, 16, -1, 1, t, &ns) == -1, "layout: long groups refused");
	groups[0] = 1;
	CHECK(ebm_layout(groups, 4, 5, 16, -1, 1, t, &ns) == -1, "layout: a group of one refused");
	CHECK(ebm_layout(NULL, 0, 5, 1, -1, 1, t, &ns) == -1, "layout: one bin refused");
	CHECK(ebm_layout(NULL, 0, 5, 4, 1, 1, t, &ns) == -1, "layout: empty interval refused");
}

static void
test_bins(void)
{
	EBMTerm		t[2];
	int			groups[] = {0, 3};
	int			ns;
	double		x[4] = {-1, 0, 1, 0};

	ebm_layout(groups, 2, 4, 4, -1, 1, t, &ns);
	/* [-1, -0.5) 0, [-0.5, 0) 1, [0, 0.5) 2, [0.5, 1] 3; outside clamped */
	CHECK(ebm_bin(&t[0], x) == 0, "bin of lo");
	x[0] = -0.5;
	CHECK(ebm_bin(&t[0], x) == 1, "bin of -0.5");
	x[0] = 0.49;
	CHECK(ebm_bin(&t[0], x) == 2, "bin of 0.49");
	x[0] = 1;
	CHECK(ebm_bin(&t[0], x) == 3, "bin of hi");
	x[0] = 7;
	CHECK(ebm_bin(&t[0], x) == 3, "bin above hi");
	x[0] = -7;
	CHECK(ebm_bin(&t[0], x) == 0, "bin below lo");
	x[0] = NAN;
	CHECK(ebm_bin(&t[0], x) == 0, "bin of NaN");
	/* one-hot: the coordinate equal to 1, else the largest */
	CHECK(ebm_bin(&t[1], x) == 1, "one-hot level 1");
	x[1] = 0.2;
	x[2] = 0.1;
	x[3] = 0.7;
	CHECK(ebm_bin(&t[1], x) == 2, "no 1: the largest");
}

static void
test_margin_update(void)
{
	EBMTerm		t[2];
	int			groups[] = {0, 2};
	int			ns;
	double		scores[6] = {0};
	double		steps[6];
	double		sums[6] = {3, -10, 0, 0, 5, -5};
	double		counts[6] = {6, 2, -3, 0, 10, 5};
	double		x[3] = {0.9, 0, 1};
	double		bias = 0.5;

	ebm_layout(groups, 2, 3, 4, -1, 1, t, &ns);
	CHECK(ns == 6, "update: 6 scores");
	ebm_term_step(steps, ns, sums, counts, 1.0, 0.0, 1.0);
	/* 3/6 = 0.5; -10/2 clipped to -1; 0/max(-3, 1); 5/10; -5/5 */
	CHECK(steps[0] == 0.5 && steps[1] == -1 && steps[2] == 0 && steps[4] == 0.5 &&
		  steps[5] == -1, "step: mean residuals, clipped, min count");
	for (int j = 0; j < ns; j++)
		scores[j] = 0.5 * steps[j];
	ebm_term_step(steps, ns, sums, counts, 1.0, 4.0, 1.0);
	/* shrunk: 3/(6+4); -10/(2+4) clipped; 0/(0+4); 5/(10+4); a negative count as 0: 2/(0+4) */
	CHECK(steps[0] == 0.3 && steps[1] == -1 && steps[3] == 0 && fabs(steps[4] - 5.0 / 14) < 1e-15,
		  "step: shrunk by 4 pseudo-rows");
	sums[2] = 2;
	ebm_term_step(steps, ns, sums, counts, 1.0, 4.0, 1.0);
	CHECK(steps[2] == 0.5, "step: a negative noisy count counts 0");
	sums[2] = 0;
	/* x in numeric bin 3 (0), level 1 (-0.5) */
	CHECK(fabs(ebm_margin(t, 2, scores, bias, x) - 0.0) < 1e-15, "margin");
	{
		int			idx[2];

		ebm_index(t, 2, x, idx);
		CHECK(idx[0] == 3 && idx[1] == 4 + 1, "score indexes: numeric bin 3, level 1 at offset 4");
	}
	CHECK(ebm_residual(true, 1, 0, 1) == 0.5, "logit residual");
	CHECK(ebm_residual(true, 1, 0, 0.25) == 0.25, "logit residual clipped to c");
	CHECK(ebm_residual(false, 1, -5, 1) == 1, "identity residual clipped");
	CHECK(ebm_residual(false, -1, 5, 1) == -1, "identity residual clipped below");
	{
		double		b0 = bias;
		double		m0 = ebm_margin(t, 2, scores, bias, x);

		ebm_center(t, 2, scores, counts, &bias);
		CHECK(fabs(ebm_margin(t, 2, scores, bias, x) - m0) < 1e-12 && bias != b0,
			  "centring keeps the margin");
		CHECK(fabs(6 * scores[0] + 2 * scores[1]) < 1e-12, "centred on the positive counts");
	}
}

static void
test_noise(void)
{
	EBMNoise	nz,
				nz2,
				nz4;
	double		rho = 0.05;
	double		s,
				sc;

	CHECK(ebm_noise(rho, 0.1, 12, 32, 30, 1, 1.0, &nz), "noise in range");
	CHECK(nz.rho_counts + nz.rho_sums <= rho, "shares within rho");
	/*
	 * each residual sum release: zCDP (2 / g + sqrt p (1 + 2^-5))^2 / (2 sigma2),
	 * 360 of them; each count release likewise with sqrt 2: total at most rho
	 */
	s = 2.0 / nz.sum_lattice + sqrt(32.0) * (1 + ldexp(1, -5));
	sc = sqrt(2.0) / nz.count_lattice + sqrt(32.0) * (1 + ldexp(1, -5));
	CHECK(360 * s * s / (2.0 * nz.sum_sigma2) + 12 * sc * sc / (2.0 * nz.count_sigma2) <= rho,
		  "composed cost %g <= rho", 360 * s * s / (2.0 * nz.sum_sigma2) + 12 * sc * sc / (2.0 * nz.count_sigma2));
	/* the noise sd in value units: 2 sqrt(360 / (2 rho_sums)) within 1 % */
	CHECK(fabs(sqrt((double) nz.sum_sigma2) * nz.sum_lattice / (2 * sqrt(360 / (2 * nz.rho_sums))) - 1) < 0.01,
		  "sum noise sd");
	/* units of k rows: k times the noise; more rounds more noise */
	ebm_noise(rho, 0.1, 12, 32, 30, 4, 1.0, &nz4);
	CHECK(fabs(sqrt((double) nz4.sum_sigma2) * nz4.sum_lattice /
			   (sqrt((double) nz.sum_sigma2) * nz.sum_lattice) - 4) < 0.01, "k = 4: 4 times the sd");
	ebm_noise(rho, 0.1, 12, 32, 120, 1, 1.0, &nz2);
	CHECK(fabs(sqrt((double) nz2.sum_sigma2) * nz2.sum_lattice /
			   (sqrt((double) nz.sum_sigma2) * nz.sum_lattice) - 2) < 0.01, "4 times the rounds: twice the sd");
	CHECK(!ebm_noise(1e-30, 0.1, 12, 32, 30, 1, 1.0, &nz2), "tiny rho outside the sampler's range");
	/* residuals clipped to c: the sums' noise c times */
	ebm_noise(rho, 0.1, 12, 32, 30, 1, 0.25, &nz2);
	CHECK(fabs(sqrt((double) nz2.sum_sigma2) * nz2.sum_lattice /
			   (sqrt((double) nz.sum_sigma2) * nz.sum_lattice) - 0.25) < 0.01, "clip 1/4: a quarter of the sd");
	CHECK(nz2.count_sigma2 == nz.count_sigma2, "the counts' noise does not depend on the clip");
}

/* private edges: 5 terms' trees over 4096 cells (3 levels, 4368 nodes) at rho */
static void
test_bin_noise(void)
{
	double		g,
				g4,
				s;
	uint64_t	s2,
				s24;

	CHECK(ebm_bin_noise(0.01, 5, 4096, 1, &g, &s2), "edges' noise in range");
	/* each tree: sensitivity sqrt(2 L) = sqrt 6, rounding sqrt(4368) (1 + 2^-5) */
	s = sqrt(6.0) / g + sqrt(4368.0) * (1 + ldexp(1, -5));
	CHECK(5 * s * s / (2.0 * s2) <= 0.01, "5 trees cost %g <= rho", 5 * s * s / (2.0 * s2));
	CHECK(fabs(sqrt((double) s2) * g / sqrt(5 * 6.0 / (2 * 0.01)) - 1) < 0.01, "node noise sd");
	ebm_bin_noise(0.01, 5, 4096, 4, &g4, &s24);
	CHECK(fabs(sqrt((double) s24) * g4 / (sqrt((double) s2) * g) - 4) < 0.01, "k = 4: 4 times the sd");
	ebm_bin_noise(0.01, 5, 2, 1, &g4, &s24);
	CHECK(fabs(sqrt((double) s24) * g4 / sqrt(5 * 2.0 / (2 * 0.01)) - 1) < 0.01,
		  "2 cells: one level, sensitivity sqrt 2");
	CHECK(!ebm_bin_noise(1e-30, 5, 4096, 1, &g, &s2), "tiny rho outside the sampler's range");
}

/* the default shrinkage's inputs: the counts' total and the small-table rule */
static void
test_small_shrinkage(void)
{
	EBMTerm		t[2];
	int			groups[] = {0, 2};
	int			ns;
	/* a numeric term of 4 bins totals 20, a group of 2 totals 12 */
	double		counts[6] = {6, 2, -3, 15, 10, 2};

	ebm_layout(groups, 2, 3, 4, -1, 1, t, &ns);
	/* (20 / 4 + 12 / 2) / (1 / 4 + 1 / 2): each total weighed by 1 / its bins */
	CHECK(fabs(ebm_total_count(t, 2, counts) - 11.0 / 0.75) < 1e-12, "count total %g",
		  ebm_total_count(t, 2, counts));
	CHECK(ebm_shrinkage(8, 100, 1000) == 8, "a large table: the base");
	CHECK(ebm_shrinkage(8, 150, 100) == 12, "pseudo-rows over rows: 1.5 times");
	CHECK(ebm_shrinkage(8, 1000, 100) == 16, "at most twice");
	CHECK(ebm_shrinkage(8, 100, -5) == 16 && ebm_shrinkage(8, 100, NAN) == 16,
		  "a count total <= 0 or NaN: twice");
}

/* a numeric term's line: its share by the shrinkage, and the pooled step */
static void
test_line_step(void)
{
	/* 4 bins, centres -0.75 .. 0.75; equal counts: xbar 0 */
	double		counts[4] = {10, 10, 10, 10};
	double		sums[4] = {-3, -1, 1, 3};
	double		v[4] = {0.1, 0.1, 0.1, 0.1};
	double		flat[4] = {0, 0, 0, 0};

	CHECK(ebm_clip_by_size(100, 400) == EBM_CLIP_LARGE && ebm_clip_by_size(100, 399) == EBM_CLIP,
		  "clip: the larger from EBM_CLIP_ROWS times the pseudo-rows");
	CHECK(ebm_clip_by_size(100, -5) == EBM_CLIP && ebm_clip_by_size(100, NAN) == EBM_CLIP,
		  "clip: a noisy total at or below 0, or NaN, keeps the base");
	CHECK(ebm_line_share(8, 8) == 0 && ebm_line_share(8, 6) == 0, "the base: no line");
	CHECK(ebm_line_share(8, 12) == 0.25 && ebm_line_share(8, 16) == EBM_LINE_SHARE &&
		  ebm_line_share(8, 40) == EBM_LINE_SHARE && ebm_line_share(8, NAN) == 0,
		  "1.5 times: half the most; twice and more: the most");
	/* no shrinkage: the least-squares line, slope sxy 5 over sxx 10 (2 0.5625 + 2 0.0625) */
	ebm_line_step(v, 4, sums, counts, 0, 1, 1);
	CHECK(fabs(v[0] + 0.3) < 1e-12 && fabs(v[3] - 0.3) < 1e-12 && fabs(v[1] + 0.1) < 1e-12,
		  "the line %g %g", v[0], v[3]);
	/* share 0.5 of it, the rest the bins' own steps; clamped to c */
	for (int b = 0; b < 4; b++)
		v[b] = 0.1;
	ebm_line_step(v, 4, sums, counts, 0, 0.125, 0.5);
	CHECK(fabs(v[0] - 0.5 * (0.1 - 0.125)) < 1e-12 && fabs(v[3] - 0.5 * (0.1 + 0.125)) < 1e-12,
		  "half the clamped line %g %g", v[0], v[3]);
	/* shrinkage: the slope's pseudo-rows are shrink times sqrt(sum x^2) = sqrt 1.25 */
	for (int b = 0; b < 4; b++)
		v[b] = 0;
	ebm_line_step(v, 4, sums, counts, 10, 1, 1);
	CHECK(fabs(v[3] - 0.75 * 5 / (12.5 + 10 * sqrt(1.25))) < 1e-12, "shrunk slope %g", v[3]);
	/* all-zero sums and counts: a zero step */
	ebm_line_step(flat, 4, flat, flat, 0, 1, 1);
	CHECK(flat[0] == 0 && flat[3] == 0, "nothing released: no step");
}

int
main(void)
{
	test_layout();
	test_bins();
	test_margin_update();
	test_noise();
	test_bin_noise();
	test_small_shrinkage();
	test_line_step();
	return unitcheck_report();
}
