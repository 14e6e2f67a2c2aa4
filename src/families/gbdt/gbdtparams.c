/*-------------------------------------------------------------------------
 *
 * gbdtparams.c
 *	  dp_gbdt's own options (gbdt.h) and the run's (keptoptions.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "families/gbdt/gbdt.h"

#include "base/dpobj.h"
#include "mechanisms/keptoptions.h"
#include "mechanisms/privedges.h"

/*
 * Chosen on Adult and bank at epsilon 1 with the balanced accuracy's
 * private weights; German credit held out (bench/gbdt/results.md)
 */
const DPOptionSpec gbdtparams_options[] = {
	DP_OPTION("additive_rounds", DP_OPTION_INT, GBDTParams, additive_rounds, 30),
	DP_OPTION("additive_rate", DP_OPTION_DOUBLE, GBDTParams, additive_rate, 0.7),
	DP_OPTION("trees", DP_OPTION_INT, GBDTParams, trees, 1),
	DP_OPTION("depth", DP_OPTION_INT, GBDTParams, depth, 4),
	DP_OPTION("split_passes", DP_OPTION_INT, GBDTParams, split_passes, 1),
	DP_OPTION("bins", DP_OPTION_INT, GBDTParams, bins, 16),
	DP_OPTION("learning_rate", DP_OPTION_DOUBLE, GBDTParams, learning_rate, 0.4),
	DP_OPTION("residual_clip", DP_OPTION_DOUBLE, GBDTParams, residual_clip, 0.25),
	DP_OPTION("split_share", DP_OPTION_DOUBLE, GBDTParams, split_share, 0.8),
	DP_OPTION("reg", DP_OPTION_DOUBLE, GBDTParams, reg, 12),
	DP_OPTION("tree_terms", DP_OPTION_INT, GBDTParams, tree_terms, 0),
	DP_OPTION("bin_share", DP_OPTION_DOUBLE, GBDTParams, bin_share, 0.05),
	DP_OPTION("lo", DP_OPTION_DOUBLE, GBDTParams, lo, -1),
	DP_OPTION("hi", DP_OPTION_DOUBLE, GBDTParams, hi, 1),
	{NULL}
};

static bool
gbdtparams_key(const char *key)
{
	if (strcmp(key, "groups") == 0 || strcmp(key, "y_min") == 0 || strcmp(key, "y_max") == 0 ||
		strcmp(key, "binning") == 0)
		return true;
	for (const DPOptionSpec *o = gbdtparams_options; o->name != NULL; o++)
		if (strcmp(o->name, key) == 0)
			return true;
	return false;
}

static void
gbdtparams_refuse(const char *msg, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("dp_gbdt: %s", msg),
			 errhint("%s", hint)));
}

static void
gbdtparams_option(const char *key, JsonbValue *v, void *arg)
{
	GBDTParams *p = (GBDTParams *) arg;

	if (strcmp(key, "trees") == 0)
		p->trees = dp_option_int(v, key, 1, GBDT_MAX_TREES);
	else if (strcmp(key, "additive_rounds") == 0)
		p->additive_rounds = dp_option_int(v, key, 0, GBDT_MAX_TREES);
	else if (strcmp(key, "additive_rate") == 0)
		p->additive_rate = dp_option_number(v, key, 0, 10, true);
	else if (strcmp(key, "depth") == 0)
		p->depth = dp_option_int(v, key, GBDT_MIN_DEPTH, GBDT_MAX_DEPTH);
	else if (strcmp(key, "split_passes") == 0)
		p->split_passes = dp_option_int(v, key, 0, GBDT_MAX_DEPTH);
	else if (strcmp(key, "bins") == 0)
		p->bins = dp_option_int(v, key, 2, EBM_MAX_BINS);
	else if (strcmp(key, "learning_rate") == 0)
		p->learning_rate = dp_option_number(v, key, 0, 10, true);
	else if (strcmp(key, "residual_clip") == 0)
		p->residual_clip = dp_option_number(v, key, 0, 1, true);
	else if (strcmp(key, "split_share") == 0)
	{
		p->split_share = dp_option_number(v, key, 0, 1, true);
		if (p->split_share >= 1)
			gbdtparams_refuse("option \"split_share\" must be below 1",
							  "It is the share of the budget the splits take; the leaves take the rest, e.g. 0.5.");
	}
	else if (strcmp(key, "reg") == 0)
		p->reg = dp_option_number(v, key, 0, 1e6, true);
	else if (strcmp(key, "tree_terms") == 0)
		p->tree_terms = dp_option_int(v, key, 0, GBDT_MODEL_MAX_TERMS);
	else if (strcmp(key, "binning") == 0)
		p->private_bins = privedges_binning_option(v, "dp_gbdt");
	else if (strcmp(key, "bin_share") == 0)
		p->bin_share = dp_option_number(v, key, 0, 1, true);
	else if (strcmp(key, "lo") == 0)
		p->lo = dp_option_number(v, key, -1e15, 1e15, false);
	else if (strcmp(key, "hi") == 0)
		p->hi = dp_option_number(v, key, -1e15, 1e15, false);
	else if (strcmp(key, "groups") == 0)
		keptoptions_groups(v, "dp_gbdt", &p->groups, &p->ngroups);
	else if (strcmp(key, "y_min") == 0)
	{
		p->y_min = dp_option_number(v, key, -1e15, 1e15, false);
		p->have_y = true;
	}
	else if (strcmp(key, "y_max") == 0)
	{
		p->y_max = dp_option_number(v, key, -1e15, 1e15, false);
		p->have_y = true;
	}
	/* the rest is gbdtparams_run's, which refuses unknown keys */
}

void
gbdtparams_init(Jsonb *options, int d, bool regression, GBDTParams *p, EBMTerm **terms,
				int *nterms, int *nscores)
{
	memset(p, 0, sizeof(*p));
	dp_options_defaults(gbdtparams_options, p);
	p->y_min = NAN;
	p->y_max = NAN;
	p->private_bins = true;
	if (options != NULL)
		dp_options_foreach(options, "'{\"trees\": 20}'", gbdtparams_option, p);
	if (regression && !(p->y_min < p->y_max))
		gbdtparams_refuse("a float8 label needs options \"y_min\" < \"y_max\"",
						  "Pass the label's public bounds, e.g. '{\"y_min\": 0, \"y_max\": 100}'; labels are clipped to them.");
	if (!regression && p->have_y)
		gbdtparams_refuse("options \"y_min\" and \"y_max\" are for a float8 label",
						  "Drop them for a boolean label.");
	if (p->split_passes == 0 || p->split_passes > p->depth)
		p->split_passes = p->depth;
	if (p->private_bins && !(p->bin_share > 0 && p->bin_share < 1))
		gbdtparams_refuse("option \"bin_share\" must be in (0, 1) with private bins",
						  "It is the share of the budget spent placing the edges, e.g. 0.05; \"binning\": \"uniform\" spends none.");
	if (!(p->lo < p->hi))
		gbdtparams_refuse("option \"lo\" must be below \"hi\"",
						  "Numeric coordinates are binned over [lo, hi]; encoded columns lie in [-1, 1].");
	*terms = palloc(sizeof(EBMTerm) * d);
	*nterms = ebm_layout(p->groups, p->ngroups, d, p->bins, p->lo, p->hi, *terms, nscores);
	if (*nterms < 1)
		gbdtparams_refuse("option \"groups\" does not cover the features",
						  "Its entries (0 for a numeric coordinate, m for a one-hot group of m) must add up to the number of features, counting 0 as 1.");
	/* no numeric term: no edges to place, nothing spent on them */
	p->private_bins = p->private_bins && privedges_any_numeric(*terms, *nterms);
}

static const KeptOptionsSpec gbdt_options_spec = {
	.aggname = "dp_gbdt", .example = "'{\"trees\": 20}'",
	.hint_reg = "Valid options are y_min and y_max (required with a float8 label), additive_rounds, additive_rate, trees, depth, split_passes, bins, learning_rate, residual_clip, split_share, reg, tree_terms, binning, bin_share, lo, hi, groups, rows_per_unit and sample_rows.",
	.hint_class = "Valid options are additive_rounds, additive_rate, trees, depth, split_passes, bins, learning_rate, residual_clip, split_share, reg, tree_terms, binning, bin_share, lo, hi, groups, class_weight, metric, rows_per_unit and sample_rows.",
	.foreign = gbdtparams_key,
};

void
gbdtparams_run(bool regression, OpParams *p, double epsilon, double delta, Jsonb *options)
{
	keptoptions_run(&gbdt_options_spec, regression, p, epsilon, delta, options);
}
