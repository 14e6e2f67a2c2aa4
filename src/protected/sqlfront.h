/*-------------------------------------------------------------------------
 *
 * sqlfront.h
 *	  A private query's rewrite into a scan of dpobj.query_run()
 *	  (sqlfront.c), from the parse-analysis hook (selecthint.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SQLFRONT_H
#define DPOBJ_SQLFRONT_H

#include "nodes/parsenodes.h"

/*
 * query (analyzed, range table entry 1 the protected relid) compiled and
 * rewritten in place, or a refusal (sqlcompile.h)
 */
extern void sqlfront_rewrite(Query *query, Oid relid);

/* installs EXPLAIN's lines on a private query (sqlexplain.c; from _PG_init) */
extern void sqlexplain_init(void);

#endif							/* DPOBJ_SQLFRONT_H */
