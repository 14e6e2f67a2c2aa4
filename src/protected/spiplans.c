/*-------------------------------------------------------------------------
 *
 * spiplans.c
 *	  Kept plans for dpobj's constant SQL statements (spiplans.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "protected/spiplans.h"

#include "executor/spi.h"
#include "utils/memutils.h"

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

/*
 * Generated statements (the sealed query: its text names the table, the
 * columns and the options) are kept by their text, SPIPLANS_TEXT_MAX of them,
 * the least recently used one freed first: a backend that trains on a few
 * tables plans each query once, and the memory stays bounded.
 */
#define SPIPLANS_TEXT_MAX	8

typedef struct SpiTextPlan
{
	char	   *sql;			/* in TopMemoryContext; NULL: unused */
	int			nargs;
	Oid			types[DP_SPI_TEXT_MAXARGS];
	int			cursor_options;
	SPIPlanPtr	plan;
	uint64		used;			/* the tick of its last use */
} SpiTextPlan;

static SpiTextPlan textplans[SPIPLANS_TEXT_MAX];
static uint64 textplans_tick = 0;

static bool
textplan_matches(const SpiTextPlan *e, const char *sql, int nargs, const Oid *types,
				 int cursor_options)
{
	return e->sql != NULL && e->nargs == nargs && e->cursor_options == cursor_options &&
		memcmp(e->types, types, sizeof(Oid) * nargs) == 0 && strcmp(e->sql, sql) == 0;
}

/* the entry to (re)use for a new statement: an empty one, else the oldest */
static SpiTextPlan *
textplan_victim(void)
{
	SpiTextPlan *victim = &textplans[0];

	for (int i = 0; i < SPIPLANS_TEXT_MAX; i++)
	{
		if (textplans[i].sql == NULL)
			return &textplans[i];
		if (textplans[i].used < victim->used)
			victim = &textplans[i];
	}
	SPI_freeplan(victim->plan);
	pfree(victim->sql);
	victim->sql = NULL;
	return victim;
}

SPIPlanPtr
dp_spi_prepare_text(const char *sql, int nargs, Oid *types, int cursor_options)
{
	SpiTextPlan *e;
	SPIPlanPtr	plan;

	if (nargs > DP_SPI_TEXT_MAXARGS)
		elog(ERROR, "dpobj: a generated statement has more than %d parameters",
			 DP_SPI_TEXT_MAXARGS);
	for (int i = 0; i < SPIPLANS_TEXT_MAX; i++)
		if (textplan_matches(&textplans[i], sql, nargs, types, cursor_options))
		{
			/*
			 * Invalidated (DDL since): prepared anew here, so that a
			 * statement that no longer parses fails at prepare time, as
			 * it would without the cache, not inside the execution.
			 */
			if (!SPI_plan_is_valid(textplans[i].plan))
			{
				SPI_freeplan(textplans[i].plan);
				pfree(textplans[i].sql);
				textplans[i].sql = NULL;
				break;
			}
			textplans[i].used = ++textplans_tick;
			return textplans[i].plan;
		}
	plan = SPI_prepare_cursor(sql, nargs, types, cursor_options);
	if (plan == NULL)
		elog(ERROR, "dpobj: could not prepare a statement: %s",
			 SPI_result_code_string(SPI_result));
	if (SPI_keepplan(plan) != 0)
		elog(ERROR, "dpobj: could not keep a statement's plan");
	e = textplan_victim();
	e->sql = MemoryContextStrdup(TopMemoryContext, sql);
	e->nargs = nargs;
	memcpy(e->types, types, sizeof(Oid) * nargs);
	e->cursor_options = cursor_options;
	e->plan = plan;
	e->used = ++textplans_tick;
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
