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

/*
 * SPI_execute_with_args() of sql, a string constant of dpobj's (its
 * address is the cache key: never pass a built string), through a kept
 * plan.  Inside SPI_connect(); the same result codes.
 */
extern int	dp_spi_run(const char *sql, int nargs, Oid *types, Datum *values,
					   const char *nulls, bool read_only, long count);

#endif							/* DPOBJ_SPIPLANS_H */
