/*-------------------------------------------------------------------------
 *
 * unitjoin.h
 *	  Protected tables joined on their privacy units in a private query
 *	  (unitjoin.c; docs/PRIVACY.md "Joins on the privacy unit"): another
 *	  protected table of the protected table's budget domain, each with a
 *	  unit column of its own, joined (JOIN or LEFT JOIN) by PostgreSQL's
 *	  "=" of exactly the two unit columns.  The run reads it as one of its
 *	  lookup tables (context/lookupjoin.h, "unit": true), its columns
 *	  "table.column" with their owner's declared domains, and bounds each
 *	  unit's joined rows by the protected table's k (units.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_UNITJOIN_H
#define DPOBJ_UNITJOIN_H

#include "postgres.h"

#include "access/attnum.h"

/* other protected tables one private query joins on the unit */
#define DPOBJ_MAX_UNIT_JOINS 3

/* whether dpobj protects table (a protected or linked table) */
extern bool unitjoin_protected(Oid table);

/* refused (0A000) if table has a column whose read runs code (18's virtual generated) */
extern void unitjoin_check_columns(Oid table, const char *name);

/*
 * table joined to relid's rows on nkeys equalities (own_att[k] of
 * own_table[k] = table's key_att[k]): refused (0A000 naming why) unless
 * both are protected with a unit column of their own (not linked), in one
 * budget domain, with one owner, the one equality relid's unit column =
 * table's, of one unit type and collation, table a plain table without
 * row-level security, inheritance or virtual generated columns, and on
 * Citus both hash-distributed by their unit columns in one colocation
 * group.  Catalog and dpobj's declarations only: public.  table's protection locked in
 * ShareLock to the transaction's end (protectlock.h).
 */
extern void unitjoin_check(Oid relid, Oid table, int nkeys, const Oid *own_table,
						   const AttrNumber *own_att, const AttrNumber *key_att);

#endif							/* DPOBJ_UNITJOIN_H */
