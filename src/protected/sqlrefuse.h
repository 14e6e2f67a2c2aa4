/*-------------------------------------------------------------------------
 *
 * sqlrefuse.h
 *	  A private query's refusal and its test of PostgreSQL's own objects
 *	  (sqlrefuse.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SQLREFUSE_H
#define DPOBJ_SQLREFUSE_H

#include "postgres.h"

#include "base/pg_compat.h"

/* the refusal of a construct a private query may not use (0A000) */
extern pg_noreturn void sqlexpr_refuse(const char *construct);

/* true if a function OID is PostgreSQL's own (below FirstNormalObjectId) */
extern bool sqlexpr_builtin(Oid oid);

/* a built-in operator's name (pg_catalog, OID < FirstNormalObjectId), or NULL */
extern char *sqlexpr_builtin_op(Oid op);

#endif							/* DPOBJ_SQLREFUSE_H */
