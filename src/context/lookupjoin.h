/*-------------------------------------------------------------------------
 *
 * lookupjoin.h
 *	  The current run's public lookup tables (lookupjoin.c; docs/PRIVACY.md
 *	  "Units through foreign keys"): tables the caller may read, joined to a
 *	  protected table's rows by equality on a unique key of theirs, so each
 *	  row matches at most one lookup row.  A run reads a lookup's column,
 *	  named "table.column" (the table's name without schema; a table joined
 *	  twice, its second name), as one of the row's own, as it reads a unit
 *	  path table's (linkcols.h).
 *
 *	  The joins are the request's: every run on a protected table checks
 *	  and sets them (protected/lookups.h) before it reads a column name,
 *	  for the table they were checked for, held until the next run or the
 *	  end of the transaction.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_LOOKUPJOIN_H
#define DPOBJ_LOOKUPJOIN_H

#include "postgres.h"

/* lookup tables one query joins; columns of one it aggregates */
#define DPOBJ_MAX_LOOKUPS	4
#define DPOBJ_MAX_LOOKUP_BOUNDED 16

typedef struct LookupJoin
{
	Oid			table;
	char	   *name;			/* its columns' "name.column": the table's name, or another ("as") */
	bool		left;			/* LEFT JOIN (else inner) */
	bool		unit;			/* a protected table joined on the unit (protected/unitjoin.h) */
	int			nkeys;
	char	   *own[INDEX_MAX_KEYS];	/* the protected row's column: its own or "table.column" */
	char	   *key[INDEX_MAX_KEYS];	/* the lookup's column, equal to it */
	int			nbounded;
	char	   *bounded[DPOBJ_MAX_LOOKUP_BOUNDED];	/* columns aggregated: bounds, not levels */
} LookupJoin;

/* relid's joins for the run about to be made (n = 0: none); copied */
extern void lookup_joins_set(Oid relid, const LookupJoin *joins, int n);

/* relid's current joins, their number */
extern int	lookup_joins_get(Oid relid, const LookupJoin **joins);

/*
 * name ("table.column") is a column of one of relid's current lookups:
 * *table, *column set, the lookup's index returned; else -1
 */
extern int	lookup_joins_column(Oid relid, const char *name, Oid *table, const char **column);

/* table is one of relid's current public lookups (not a protected table joined on the unit) */
extern bool lookup_joins_is(Oid relid, Oid table);

/* column of lookup table is aggregated: its domain bounds, not levels */
extern bool lookup_joins_bounded(Oid relid, Oid table, const char *column);

#endif							/* DPOBJ_LOOKUPJOIN_H */
