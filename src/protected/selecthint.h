/*-------------------------------------------------------------------------
 *
 * selecthint.h
 *	  The hint on a plain SELECT of a protected table (selecthint.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SELECTHINT_H
#define DPOBJ_SELECTHINT_H

/* installs the parse-analysis hook (from _PG_init) */
extern void dpobj_select_hint_init(void);

/*
 * The protected table a statement reads that the role may not read and
 * has a budget on, or InvalidOid: when it is the statement's only relation
 * (a private query); hint: PostgreSQL's error with the hint instead;
 * elsewhere (a join, a subquery...): a refusal (0A000)
 */
#include "nodes/parsenodes.h"
extern Oid	selecthint_private_relid(Query *query, bool hint);

/* turns the hook's checks off (dpobj.query() compiles its own analysis) */
extern void selecthint_suspend(bool on);

#endif							/* DPOBJ_SELECTHINT_H */
