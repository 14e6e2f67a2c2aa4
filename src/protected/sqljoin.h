/*-------------------------------------------------------------------------
 *
 * sqljoin.h
 *	  A private query's joins (sqljoin.c): FROM a table linked to its
 *	  privacy unit by dpobj.link_unit(), joined to the tables of its path
 *	  by equality on each hop's foreign key columns, and any protected
 *	  table joined to public lookup tables by equality on their unique keys
 *	  (lookups.h), or to protected tables of its budget domain by equality
 *	  of the unit columns (unitjoin.h), compiles as a query on the protected table alone whose
 *	  path and lookup tables' columns are named "table.column"
 *	  (context/linkcols.h, context/lookupjoin.h).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SQLJOIN_H
#define DPOBJ_SQLJOIN_H

#include "postgres.h"

#include "access/htup.h"
#include "lib/stringinfo.h"
#include "nodes/parsenodes.h"

/*
 * query's FROM, range table entry 1 relid: false if relid alone (nothing
 * changed); else the joins checked (0A000 naming what is refused), their
 * foreign-key equalities dropped from WHERE, FROM relid alone, and every
 * Var of a path table a Var of entry 1 with an attribute number
 * sqljoin_attr() maps back; true.
 */
extern bool sqljoin_flatten(Query *query, Oid relid);

/*
 * query's range table entries 1 and rt swapped, every reference to them
 * renumbered: the same query, written with entry rt's table first in FROM
 */
extern void sqljoin_first(Query *query, int rt);

/* the int2 array column (conkey, confkey) of a pg_constraint row into out: its length */
extern int	sqljoin_keys(HeapTuple tup, AttrNumber column, AttrNumber *out);

/* attno of entry 1 as a table and its attribute (relid and attno unless a path table's) */
extern Oid	sqljoin_attr(Oid relid, AttrNumber attno, AttrNumber *att);

/* the name of entry 1's attno: relid's column, or "table.column" of a path table */
extern char *sqljoin_column(Oid relid, AttrNumber attno);

/*
 * options (aggregate()'s, a JSON object's text) with the compiled query's
 * public lookup tables as "lookups" (lookups.h), unless none; a lookup
 * column both grouped by (one of the ngroups gattnos) and aggregated is
 * refused
 */
extern void sqljoin_options(Oid relid, StringInfo options, const AttrNumber *gattnos, int ngroups);

/*
 * an aggregate's argument naming lookup tables' columns: each numeric (else
 * refused), its domain the lookup's least and greatest values (lookups.h)
 */
extern void sqljoin_aggregated(Oid relid, Node *arg);

/* entry 1's attno is a lookup table's column */
extern bool sqljoin_is_lookup(AttrNumber attno);

/*
 * entry 1's attno as a column (att) of a protected table joined on the
 * unit (left: by LEFT JOIN): that table, else InvalidOid
 */
extern Oid	sqljoin_unit_partner(AttrNumber attno, AttrNumber *att, bool *left);

#endif							/* DPOBJ_SQLJOIN_H */
