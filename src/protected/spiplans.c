/*-------------------------------------------------------------------------
 *
 * spiplans.c
 *	  Kept plans for dpobj's constant SQL statements (spiplans.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "spiplans.h"

#include "executor/spi.h"

/* a handful of statements: a linear search is cheapest */
#define SPIPLANS_MAX	16

typedef struct SpiPlanEntry
{
	const char *sql;
	SPIPlanPtr	plan;
} SpiPlanEntry;

static SpiPlanEntry spiplans[SPIPLANS_MAX];
static int	spiplans_n = 0;

/* the kept plan of sql, NULL when the cache is full */
static SPIPlanPtr
spiplans_get(const char *sql, int nargs, Oid *types)
{
	SPIPlanPtr	plan;

	for (int i = 0; i < spiplans_n; i++)
		if (spiplans[i].sql == sql)
			return spiplans[i].plan;
	if (spiplans_n >= SPIPLANS_MAX)
		return NULL;
	plan = SPI_prepare(sql, nargs, types);
	if (plan == NULL)
		elog(ERROR, "dpobj: could not prepare a statement: %s",
			 SPI_result_code_string(SPI_result));
	if (SPI_keepplan(plan) != 0)
		elog(ERROR, "dpobj: could not keep a statement's plan");
	spiplans[spiplans_n].sql = sql;
	spiplans[spiplans_n++].plan = plan;
	return plan;
}

int
dp_spi_run(const char *sql, int nargs, Oid *types, Datum *values,
		   const char *nulls, bool read_only, long count)
{
	SPIPlanPtr	plan = spiplans_get(sql, nargs, types);

	if (plan == NULL)
		return SPI_execute_with_args(sql, nargs, types, values, nulls, read_only, count);
	return SPI_execute_plan(plan, values, nulls, read_only, count);
}
