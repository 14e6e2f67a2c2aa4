/*-------------------------------------------------------------------------
 *
 * statisticsparams.c
 *	  The options of private statistics (statisticsparams.h): "layout"
 *	  (state/agglayout.c) and "rows_per_unit", and the argument check of
 *	  mechanism 'aggregate', all before any row is read.
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpobj.h"

#include <math.h>

#include "utils/jsonb.h"

#include "base/options.h"
#include "core/calibrate.h"
#include "state/agglayout.h"
#include "families/statistics/statisticsparams.h"
#include "state/agglayout.h"
#include "state/rowinput.h"

/* options: "layout", and "rows_per_unit" and "sealed" from dpobj.train() */
int
agg_options_k(Jsonb *options)
{
	if (options == NULL || !JB_ROOT_IS_OBJECT(options))
		(void) agg_layout_of_options(NULL);
	return dp_options_rows_per_unit(options, "layout", "dp_aggregate",
									"dp_aggregate takes \"layout\" and \"rows_per_unit\"; dpobj.aggregate() takes \"filter\" and \"deadline\".");
}

void
aggregate_check_args(const char *aggname, double epsilon, double delta, int d, Jsonb *options)
{
	int			k;
	AggLayout  *l;

	/* epsilon-DP: delta plays no part, 0 too */
	dp_check_pure_privacy_params(epsilon, delta);
	k = agg_options_k(options);
	l = agg_layout_of_options(options);
	if (l->enc->d != d)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the layout's encoding has %d coordinates but rows have %d", aggname, l->enc->d, d),
				 errhint("Pass dpobj.encode_features() of the layout's encoding.")));
	for (int i = 0; i < l->width; i++)
	{
		double		share;
		AggSlotKind kind = agg_slot_kind(l, i, &share);
		uint64		num = 1,
					den = 1;

		agg_slot_noise(kind == AGG_SLOT_SUM, agg_slot_eps(kind, epsilon, k, l->ncells) * share,
					   &num, &den);
		if (den < 1 || num < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: epsilon is too small for %d statistics", aggname, l->nstats),
					 errhint("Each count needs at least 2^-20 of epsilon and each sum 2^-16 (a mean both; with a privacy unit of k rows, k times that).")));
	}
}
