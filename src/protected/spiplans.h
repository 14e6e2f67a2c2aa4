/*-------------------------------------------------------------------------
 *
 * spiplans.h
 *	  dpobj's own constant SQL statements, prepared once per backend and
 *	  kept: the lookups every protected run makes (budget pre-check, privacy
 *	  unit, declared domains) would otherwise be parsed and planned anew on
 *	  every run.  The plan cache replans them after DDL (an extension
 *	  update included), and after a change of user where row-level security
 *	  applies.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SPIPLANS_H
#define DPOBJ_SPIPLANS_H

#include "postgres.h"

#include "executor/spi.h"

/*
 * SPI_execute_with_args() of sql, a string constant of dpobj's (its
 * address is the cache key: never pass a built string), through a kept
 * plan.  Inside SPI_connect(); the same result codes.
 */
extern int	dp_spi_run(const char *sql, int nargs, Oid *types, Datum *values,
					   const char *nulls, bool read_only, long count);

/*
 * SPI_prepare_cursor() of a generated statement through a kept plan found by
 * its text, parameter types and cursor options (a few are kept, the least
 * recently used freed first).  The plan belongs to the cache: never free it.
 */
#define DP_SPI_TEXT_MAXARGS 64
extern SPIPlanPtr dp_spi_prepare_text(const char *sql, int nargs, Oid *types,
									  int cursor_options);

#endif							/* DPOBJ_SPIPLANS_H */
