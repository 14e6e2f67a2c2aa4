/*-------------------------------------------------------------------------
 *
 * unitlinks.h
 *	  Privacy units through foreign keys (unitlinks.c; docs/PRIVACY.md
 *	  "Units through foreign keys"): the path a run on a linked table joins
 *	  along, and its checks, shared with dpobj.link_unit() (linkunit.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_UNITLINKS_H
#define DPOBJ_UNITLINKS_H

#include "postgres.h"

#include "base/pg_compat.h"
#include "context/protected.h"
#include "fmgr.h"

/* A linked table's path as a run uses it. */
typedef struct UnitLinkPath
{
	int			nhops;
	Oid			tables[DPOBJ_MAX_UNIT_HOPS + 1];	/* [0] the linked table, [nhops] the unit's */
	char	   *via[DPOBJ_MAX_UNIT_HOPS];	/* the foreign key of hop i, on tables[i] */
	StringInfoData joins;		/* "JOIN t1 AS ... ON ... JOIN ..." */
} UnitLinkPath;

/*
 * Inside SPI: relid's recorded path, or false if it is not linked.  Every
 * table of the path is locked (AccessShareLock, to the end of the
 * transaction) and every hop checked again against pg_constraint, by name:
 * a dropped or altered foreign key, a referenced key no longer unique or a
 * table with another owner than relid's is a public refusal (nothing
 * charged).  The joins are built from the catalog (quote_identifier,
 * OPERATOR(pg_catalog.=) of one built-in type each side).
 */
extern bool unit_links_for_run(Oid relid, const char *relation, UnitLinkPath *path);

/*
 * The path's checks: every table after the first locked (AccessShareLock),
 * one owner, no table twice, each hop a fit foreign key (by p->via's names
 * at a run; at the declaration the one between the two tables, its name
 * recorded); the joins built.  A refusal names relation.
 */
extern void unit_links_resolve(UnitLinkPath *p, const char *relation, bool run);

/* a refusal of the link: at the declaration, or at a run (public: nothing charged) */
extern pg_noreturn void unit_links_refuse(bool run, const char *relation, const char *what);

/* a type a privacy unit (and a foreign key linking one) may have */
extern bool unit_type_ok(Oid basetype);

/* the alias of the path's table i in the joins */
extern char *unit_links_alias(int i);

/*
 * dpobj.protect(rel, privacy_unit, k) on a linked table: refused (the
 * owner unprotects it first).  Inside SPI.
 */
extern void unit_links_refuse_protect(Oid relid, const char *relation);

#endif							/* DPOBJ_UNITLINKS_H */
