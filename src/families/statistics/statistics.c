/*-------------------------------------------------------------------------
 *
 * statistics.c
 *	  The statistics family's descriptor (mechanisms/family.h): private
 *	  statistics through dpobj.aggregate() and describe(), plain and by keys
 *	  (statistics.h gives the entries).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "families/statistics/statistics.h"
#include "mechanisms/family.h"

static const DPMechanism statistics_mechanisms[] = {STATISTICS_FAMILY_MECHANISMS};

const DPFamily statistics_family = DP_FAMILY(statistics, statistics_mechanisms);
