/*-------------------------------------------------------------------------
 *
 * lookups.h
 *	  Public lookup tables in a private query and its run (lookups.c;
 *	  docs/PRIVACY.md "Units through foreign keys"): a plain table the caller may
 *	  read, without row-level security, not protected by dpobj, joined to
 *	  the protected table's rows (or its unit path's, or an earlier lookup's
 *	  columns: region on nation's) by PostgreSQL's own equality on exactly
 *	  the columns of a unique key of its own, so each row matches at most
 *	  one lookup row.  Its columns are read as
 *	  "table.column" (context/lookupjoin.h); grouped by, its column's
 *	  levels are its distinct values, read before the charge; aggregated
 *	  (a numeric column), its bounds are its least and greatest values.
 *
 *	  The run's request carries them as aggregate()'s option
 *	    "lookups": [{"table": oid, "left": bool,
 *	                 "on": [[protected row's column, lookup column], ...],
 *	                 "bounded": [lookup column an aggregate reads, ...],
 *	                 "as": name}]
 *	  which the SQL front end writes (sqljoin.c) and every run checks again;
 *	  "as" (a table joined again: its alias) names its columns "name.column";
 *	  "unit": true (no "bounded") marks a protected table joined on the
 *	  privacy unit instead (unitjoin.h), its columns' domains declared.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_LOOKUPS_H
#define DPOBJ_LOOKUPS_H

#include "postgres.h"

#include "access/attnum.h"
#include "lib/stringinfo.h"
#include "utils/jsonb.h"

#include "context/lookupjoin.h"

/*
 * table as a lookup of relid's rows joined on nkeys equalities, the
 * protected side column own_att[k] of own_table[k] (relid or a path
 * table), the lookup's key_att[k]: refused (42501 without SELECT, else
 * 0A000 naming why) unless fit.  Catalog and privileges only: public.
 */
extern void lookups_check(Oid relid, Oid table, int nkeys, const Oid *own_table,
						  const AttrNumber *own_att, const AttrNumber *key_att);

/*
 * options' "lookups" for a run on relid: each checked (its table locked,
 * AccessShareLock to the end of the transaction, then lookups_check) and
 * set as the run's joins (lookupjoin.h); none: the run's joins cleared.
 * allowed false (not aggregate()'s run): "lookups" is refused.
 */
extern void lookups_prepare(Oid relid, Jsonb *options, bool allowed);

/*
 * true if att is a key column of a unique index of table (locked
 * AccessShareLock): WHERE's equality of another column is a filter, not a join
 */
extern bool lookups_key_column(Oid table, AttrNumber att);

/*
 * The run's lookups in its FROM item, the protected table aliased
 * unit_links_alias(0) and path table i unit_links_alias(i): into cols
 * ", alias.column AS \"table.column\"" per lookup column, into joins
 * " [LEFT] JOIN ONLY table AS alias ON ..." per lookup.  Their tables
 * into tables (the number returned).
 */
extern int	lookups_sql(Oid relid, StringInfo cols, StringInfo joins, Oid *tables);

/*
 * The levels of a lookup column (its distinct non-NULL values as text,
 * read before the charge: public to the caller) as the encoding's
 * {"column": name, "levels": [...]} into js.  Inside SPI.
 */
extern void lookups_levels(StringInfo js, Oid table, const char *column, const char *name);

/* column att of lookup table an aggregate reads: numeric, else refused (0A000) */
extern void lookups_check_bounded(Oid table, AttrNumber att);

/*
 * The bounds of a lookup column an aggregate reads (lookupjoin.h's
 * "bounded"): its least and greatest values, read before the charge
 * (public to the caller), as {"column": name, "lo": l, "hi": h} into js
 * (one value v: [v, v + 1]); none finite: refused.  Inside SPI.
 */
extern void lookups_bounds(StringInfo js, Oid table, const char *column, const char *name);

#endif							/* DPOBJ_LOOKUPS_H */
