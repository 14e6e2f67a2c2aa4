/*-------------------------------------------------------------------------
 *
 * linkcols.h
 *	  Columns of the tables on a linked table's unit path (linkcols.c;
 *	  docs/PRIVACY.md "Units through foreign keys"): a run on a table
 *	  linked to its privacy unit by dpobj.link_unit() reads a column of a
 *	  table on its path, named "table.column" (the table's name without
 *	  schema, the column's catalog spelling), as if it were its own.  The
 *	  linked table's FROM item (units.c) selects each such column under
 *	  that name.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_LINKCOLS_H
#define DPOBJ_LINKCOLS_H

#include "postgres.h"

#include "access/attnum.h"
#include "access/htup.h"

/*
 * Where name is read from: relid's own column of that name if it has one
 * (*table = relid, *column = name), else the column of the first table on
 * relid's recorded unit path whose name and a live user column's spell
 * "table.column", else a column of one of the run's public lookup
 * tables (lookupjoin.h) (true); false, *table = relid, when none.
 * Catalog, dpobj.unit_links and the run's checked lookups only (public).
 */
extern bool linked_column(Oid relid, const char *name, Oid *table, const char **column);

/* SearchSysCacheAttName() of the column linked_column() finds (or of relid's) */
extern HeapTuple linked_column_tuple(Oid relid, const char *name);

/* its attribute number in *table (InvalidAttrNumber: none) */
extern AttrNumber linked_column_attnum(Oid relid, const char *name, Oid *table);

/*
 * The recorded path's tables after relid (n of them, at most
 * DPOBJ_MAX_UNIT_HOPS; 0 if not linked) and, unless via is NULL, the name
 * of each hop's foreign key (on the table before it)
 */
extern int	linked_path(Oid relid, Oid *tables, char **via);

#endif							/* DPOBJ_LINKCOLS_H */
