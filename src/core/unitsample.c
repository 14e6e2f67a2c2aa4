/*-------------------------------------------------------------------------
 *
 * unitsample.c
 *	  Selection sampling's step for one row of a privacy unit
 *	  (unitsample.h).
 *
 *-------------------------------------------------------------------------
 */
#include "core/unitsample.h"

bool
unit_sample_keep(DPPrfStream *rng, uint64_t left, uint64_t need)
{
	if (need == 0)
		return false;
	if (left <= need)
		return true;
	return dp_prf_below(rng, left) < need;
}
