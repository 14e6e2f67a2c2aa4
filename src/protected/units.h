/*-------------------------------------------------------------------------
 *
 * units.h
 *	  Privacy units of protected tables (units.c; docs/PRIVACY.md "Privacy
 *	  units"): the unit column dpobj.protect() records, and what a run of
 *	  dpobj.train() reads of it before the charge.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_UNITS_H
#define DPOBJ_UNITS_H

#include "postgres.h"

#include "context/lookupjoin.h"
#include "context/protected.h"
#include "protected/protectlock.h"
#include "fmgr.h"
#include "storage/lockdefs.h"

/* The privacy unit of a protected table, as a run uses it. */
typedef struct TableUnit
{
	int			rows_per_unit;	/* k; 0: row level (no unit) */
	char	   *column;			/* the unit column, quoted; NULL at row level */
	int16		attnum;			/* the table's own unit column; 0: linked or none */
	char	   *source;			/* a linked table (unitlinks.h): the FROM item
								 * joining it to its unit's column; NULL: the
								 * table itself */
	int			hops;			/* a linked table: the tables joined */
	Oid			path[DPOBJ_MAX_UNIT_HOPS];
	int			nlookups;		/* the run's public lookup tables (lookups.h), joined in source */
	Oid			lookups[DPOBJ_MAX_LOOKUPS];
} TableUnit;


/*
 * Checks that name is a user column of relid fit to be a privacy unit
 * (public: the catalog and the argument only) and returns its number and
 * base type; raises an error naming the argument otherwise.
 */
extern void units_check_column(Oid relid, const char *relation, const char *name,
							   int16 *attnum, Oid *typid);

/* units_lock_protection(): protectlock.h */

/*
 * The table's privacy unit for a run, read under the protection's lock
 * (protect() cannot change it until this transaction ends), and the
 * column checked against the catalog: dropped, renamed, retyped or
 * renumbered since protect() is a public refusal (nothing charged).  A
 * linked table's path is checked and locked (unitlinks.h), and its unit
 * is its unit table's, checked the same way, in the same budget domain.
 */
extern void units_for_run(Oid relid, const char *relation, TableUnit *unit);

/*
 * unitchange.c: dpobj.protect(rel, privacy_unit, k) on a protected table
 * refuses a new level (row level to a unit, another unit column, or
 * another equality of its values: collation, type) while a budget its runs are charged to has spend; a new k
 * for the same column passes.  Catalog, budgets and ledger only.
 */
extern void unitchange_check_protect(Oid relid, const char *relation, const char *column,
									 int16 attnum, Oid typid);

/*
 * Refuses a join of budget domain domain while the ledger holds charges to
 * it by runs on the table at another unit column than its present one.
 */
extern void unitchange_check_join(Oid relid, const char *relation, const char *domain);

/* refuses a max_rows_per_unit outside 1..DPOBJ_MAX_ROWS_PER_UNIT (22023; protect, link_unit) */
extern void units_check_rows_per_unit(int k);

/*
 * The end of an INSERT INTO dpobj.protected_tables AS p of a table's unit
 * (protect's and link_unit's): the row replaced only where it changes
 */
#define UNITS_PROTECTION_UPSERT \
"ON CONFLICT (relid) DO UPDATE SET privacy_unit = excluded.privacy_unit, " \
"       unit_attnum = excluded.unit_attnum, unit_type = excluded.unit_type, " \
"       max_rows_per_unit = excluded.max_rows_per_unit, unit_typmod = excluded.unit_typmod, " \
"       unit_collation = excluded.unit_collation, unit_collversion = excluded.unit_collversion " \
" WHERE (p.privacy_unit, p.unit_attnum, p.unit_type, p.max_rows_per_unit, " \
"        p.unit_typmod, p.unit_collation, p.unit_collversion) " \
"       IS DISTINCT FROM (excluded.privacy_unit, excluded.unit_attnum, " \
"                         excluded.unit_type, excluded.max_rows_per_unit, " \
"                         excluded.unit_typmod, excluded.unit_collation, excluded.unit_collversion) " \
"RETURNING relid"

#endif							/* DPOBJ_UNITS_H */
