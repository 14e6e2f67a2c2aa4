/*-------------------------------------------------------------------------
 *
 * ebmparams.c
 *	  dp_ebm's own options (ebmparams.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "families/ebm/ebmparams.h"

#include "base/dpobj.h"
#include "mechanisms/keptoptions.h"
#include "mechanisms/privedges.h"

#define EBM_MAX_ROUNDS	10000

/*
 * Chosen on Adult (12 columns, seeds 1-10) and bank marketing (seeds 1-30)
 * at epsilon 1 with public class weights; German credit held out
 * (bench/ebm/results.md)
 */
const DPOptionSpec ebmparams_options[] = {
	DP_OPTION("bins", DP_OPTION_INT, EBMParams, bins, 16),
	DP_OPTION("rounds", DP_OPTION_INT, EBMParams, rounds, 20),
	/* 0: by the link, 1 over its largest curvature (logit 1/4, identity 1) */
	DP_OPTION("learning_rate", DP_OPTION_DOUBLE, EBMParams, learning_rate, 0),
	DP_OPTION("count_share", DP_OPTION_DOUBLE, EBMParams, count_share, 0.1),
	/* -1: EBM_SHRINKAGE, more on a small table (ebm_shrinkage, ebm_line_share) */
	DP_OPTION("shrinkage", DP_OPTION_DOUBLE, EBMParams, shrinkage, -1),
	DP_OPTION("cyclic", DP_OPTION_BOOL, EBMParams, cyclic, false),
	/* -1: EBM_CLIP, EBM_CLIP_LARGE on a large table (ebm_clip_by_size) */
	DP_OPTION("residual_clip", DP_OPTION_DOUBLE, EBMParams, residual_clip, -1),
	DP_OPTION("bin_share", DP_OPTION_DOUBLE, EBMParams, bin_share, 0.05),
	DP_OPTION("bin_grid", DP_OPTION_INT, EBMParams, bin_grid, EBM_BIN_GRID),
	DP_OPTION("lo", DP_OPTION_DOUBLE, EBMParams, lo, -1),
	DP_OPTION("hi", DP_OPTION_DOUBLE, EBMParams, hi, 1),
	{NULL}
};

bool
ebmparams_key(const char *key)
{
	if (strcmp(key, "groups") == 0 || strcmp(key, "y_min") == 0 || strcmp(key, "y_max") == 0 ||
		strcmp(key, "binning") == 0)
		return true;
	for (const DPOptionSpec *o = ebmparams_options; o->name != NULL; o++)
		if (strcmp(o->name, key) == 0)
			return true;
	return false;
}

static void
ebmparams_refuse(const char *msg, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("dp_ebm: %s", msg),
			 errhint("%s", hint)));
}

static void
ebmparams_option(const char *key, JsonbValue *v, void *arg)
{
	EBMParams  *p = (EBMParams *) arg;

	if (strcmp(key, "bins") == 0)
		p->bins = dp_option_int(v, key, 2, EBM_MAX_BINS);
	else if (strcmp(key, "rounds") == 0)
		p->rounds = dp_option_int(v, key, 1, EBM_MAX_ROUNDS);
	else if (strcmp(key, "learning_rate") == 0)
		p->learning_rate = dp_option_number(v, key, 0, 100, true);
	else if (strcmp(key, "count_share") == 0)
	{
		p->count_share = dp_option_number(v, key, 0, 1, true);
		if (p->count_share >= 1)
			ebmparams_refuse("option \"count_share\" must be below 1",
							 "It is the share of the budget spent on the bin counts, e.g. 0.1.");
	}
	else if (strcmp(key, "residual_clip") == 0)
		p->residual_clip = dp_option_number(v, key, 0, 1, true);
	else if (strcmp(key, "shrinkage") == 0)
		p->shrinkage = dp_option_number(v, key, 0, 1e9, false);
	else if (strcmp(key, "cyclic") == 0)
		p->cyclic = dp_option_bool(v, key);
	else if (strcmp(key, "binning") == 0)
		p->private_bins = privedges_binning_option(v, "dp_ebm");
	else if (strcmp(key, "bin_share") == 0)
		p->bin_share = dp_option_number(v, key, 0, 1, true);
	else if (strcmp(key, "bin_grid") == 0)
	{
		p->bin_grid = dp_option_int(v, key, 2, EBM_BIN_MAX_GRID);
		if (!ebmbins_grid_ok(p->bin_grid))
			ebmparams_refuse("option \"bin_grid\" must be a power of 2",
							 "It is the number of equal-width cells whose counts place private edges, e.g. 4096.");
	}
	else if (strcmp(key, "lo") == 0)
		p->lo = dp_option_number(v, key, -1e15, 1e15, false);
	else if (strcmp(key, "hi") == 0)
		p->hi = dp_option_number(v, key, -1e15, 1e15, false);
	else if (strcmp(key, "groups") == 0)
		keptoptions_groups(v, "dp_ebm", &p->groups, &p->ngroups);
	else if (strcmp(key, "y_min") == 0 || strcmp(key, "y_max") == 0)
	{
		double		y = dp_option_number(v, key, -1e15, 1e15, false);

		if (strcmp(key, "y_min") == 0)
			p->y_min = y;
		else
			p->y_max = y;
		p->have_y = true;
	}
	/* the rest is ebmparams_run's, which refuses unknown keys */
}

void
ebmparams_init(Jsonb *options, int d, bool regression, EBMParams *p, EBMTerm **terms,
			   int *nterms, int *nscores)
{
	memset(p, 0, sizeof(*p));
	dp_options_defaults(ebmparams_options, p);
	p->y_min = NAN;
	p->y_max = NAN;
	p->private_bins = true;
	if (options != NULL)
		dp_options_foreach(options, "'{\"rounds\": 30}'", ebmparams_option, p);
	if (p->learning_rate == 0)
		p->learning_rate = regression ? 1 : 4;
	if (regression && !(p->y_min < p->y_max))
		ebmparams_refuse("a float8 label needs options \"y_min\" < \"y_max\"",
						 "Pass the label's public bounds, e.g. '{\"y_min\": 0, \"y_max\": 100}'; labels are clipped to them.");
	if (!regression && p->have_y)
		ebmparams_refuse("options \"y_min\" and \"y_max\" are for a float8 label",
						 "Drop them for a boolean label.");
	if (p->private_bins && !(p->bin_share > 0 && p->bin_share < 1))
		ebmparams_refuse("option \"bin_share\" must be in (0, 1) with private bins",
						 "It is the share of the budget spent placing the edges, e.g. 0.05; \"binning\": \"uniform\" spends none.");
	if (!(p->lo < p->hi))
		ebmparams_refuse("option \"lo\" must be below \"hi\"",
						 "Numeric coordinates are binned over [lo, hi]; encoded columns lie in [-1, 1].");
	*terms = palloc(sizeof(EBMTerm) * d);
	*nterms = ebm_layout(p->groups, p->ngroups, d, p->bins, p->lo, p->hi, *terms, nscores);
	if (*nterms < 1)
		ebmparams_refuse("option \"groups\" does not cover the features",
						 "Its entries (0 for a numeric coordinate, m for a one-hot group of m) must add up to the number of features, counting 0 as 1.");
	/* no numeric term: no edges to place, nothing spent on them */
	p->private_bins = p->private_bins && privedges_any_numeric(*terms, *nterms);
}

static const KeptOptionsSpec ebm_options_spec = {
	.aggname = "dp_ebm", .example = "'{\"bins\": 32}'",
	.hint_reg = "Valid options are y_min and y_max (required with a float8 label), bins, rounds, learning_rate, shrinkage, count_share, residual_clip, cyclic, lo, hi, groups, rows_per_unit and sample_rows.",
	.hint_class = "Valid options are bins, rounds, learning_rate, shrinkage, count_share, residual_clip, cyclic, lo, hi, groups, class_weight, metric, rows_per_unit and sample_rows.",
	.foreign = ebmparams_key,
};

void
ebmparams_run(bool regression, OpParams *p, double epsilon, double delta, Jsonb *options)
{
	keptoptions_run(&ebm_options_spec, regression, p, epsilon, delta, options);
}
