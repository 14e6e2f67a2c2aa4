/*-------------------------------------------------------------------------
 *
 * pg_compat.h
 *	  Every difference between the PostgreSQL major versions dpobj builds
 *	  against (15, 16, 17, 18), in one place: the rest of src/ uses the
 *	  names defined here and never tests PG_VERSION_NUM itself
 *	  (docs/VERSIONS.md lists them).  Include it after postgres.h.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_PG_COMPAT_H
#define DPOBJ_PG_COMPAT_H

#include "catalog/pg_attribute.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "utils/acl.h"

/* 16 moved VARDATA and friends out of postgres.h into varatt.h */
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

/* 16 replaced pg_class_ownercheck(relid, role) by object_ownercheck() */
#if PG_VERSION_NUM >= 160000
#define compat_class_ownercheck(relid, role) \
	object_ownercheck(RelationRelationId, (relid), (role))
#else
#define compat_class_ownercheck(relid, role) pg_class_ownercheck((relid), (role))
#endif

/* and pg_namespace_aclcheck(nsp, role, mode) by object_aclcheck() */
#if PG_VERSION_NUM >= 160000
#define compat_namespace_aclcheck(nsp, role, mode) \
	object_aclcheck(NamespaceRelationId, (nsp), (role), (mode))
#else
#define compat_namespace_aclcheck(nsp, role, mode) pg_namespace_aclcheck((nsp), (role), (mode))
#endif

/* and pg_type_aclcheck(type, role, mode) by object_aclcheck() */
#if PG_VERSION_NUM >= 160000
#define compat_type_aclcheck(type, role, mode) \
	object_aclcheck(TypeRelationId, (type), (role), (mode))
#else
#define compat_type_aclcheck(type, role, mode) pg_type_aclcheck((type), (role), (mode))
#endif

/* and pg_tablespace_aclcheck(ts, role, mode) by object_aclcheck() (needs catalog/pg_tablespace.h) */
#if PG_VERSION_NUM >= 160000
#define compat_tablespace_aclcheck(ts, role, mode) \
	object_aclcheck(TableSpaceRelationId, (ts), (role), (mode))
#else
#define compat_tablespace_aclcheck(ts, role, mode) pg_tablespace_aclcheck((ts), (role), (mode))
#endif

/*
 * This backend's slot in an array of MaxBackends entries (0-based), or -1.
 * 17 replaced BackendId MyBackendId (1-based, InvalidBackendId = -1) by
 * ProcNumber MyProcNumber (0-based, INVALID_PROC_NUMBER = -1); in both,
 * client backends and background workers number below MaxBackends.
 */
#if PG_VERSION_NUM >= 170000
#define compat_backend_slot() ((int) MyProcNumber)
#else
#define compat_backend_slot() (MyBackendId > 0 ? (int) MyBackendId - 1 : -1)
#endif

/*
 * ExecutorRun_hook's parameters and the call passing them on: 18 removed
 * the bool execute_once argument.
 */
#if PG_VERSION_NUM >= 180000
#define COMPAT_EXECUTORRUN_PARAMS \
	QueryDesc *queryDesc, ScanDirection direction, uint64 count
#define COMPAT_EXECUTORRUN_ARGS queryDesc, direction, count
#else
#define COMPAT_EXECUTORRUN_PARAMS \
	QueryDesc *queryDesc, ScanDirection direction, uint64 count, bool execute_once
#define COMPAT_EXECUTORRUN_ARGS queryDesc, direction, count, execute_once
#endif

/* the setting that forces parallel plans: 16 renamed force_parallel_mode */
#if PG_VERSION_NUM >= 160000
#define COMPAT_DEBUG_PARALLEL_GUC "debug_parallel_query"
#else
#define COMPAT_DEBUG_PARALLEL_GUC "force_parallel_mode"
#endif

/*
 * Base64 of binary data (common/base64.h): 18 types the binary side as
 * uint8 rather than char.
 */
#if PG_VERSION_NUM >= 180000
typedef uint8 compat_b64_byte;
#else
typedef char compat_b64_byte;
#endif
#define compat_b64_encode(src, len, dst, dstlen) \
	pg_b64_encode((const compat_b64_byte *) (src), (len), (dst), (dstlen))
#define compat_b64_decode(src, len, dst, dstlen) \
	pg_b64_decode((src), (len), (compat_b64_byte *) (dst), (dstlen))

/*
 * A function that never returns: 18's pg_noreturn (C11 _Noreturn, written
 * before the declaration) replaces pg_attribute_noreturn() (after it).
 */
#if PG_VERSION_NUM < 180000
#define pg_noreturn pg_attribute_noreturn()
#endif

/*
 * The permissions a range table entry requires: 16 moved them from the RTE
 * into the query's RTEPermissionInfo list (the caller includes
 * parser/parse_relation.h).
 */
#if PG_VERSION_NUM >= 160000
#define compat_rte_required_perms(query, rte) \
	((rte)->perminfoindex != 0 ? \
	 getRTEPermissionInfo((query)->rteperminfos, (rte))->requiredPerms : 0)
#else
#define compat_rte_required_perms(query, rte) ((rte)->requiredPerms)
#endif

/*
 * 18 added virtual generated columns (computed when read); before, no
 * column has this attgenerated value.
 */
#ifndef ATTRIBUTE_GENERATED_VIRTUAL
#define ATTRIBUTE_GENERATED_VIRTUAL 'v'
#endif

/*
 * A private query's rewrite (src/protected/sqlfront.c, sqlcompile.c).  18
 * added an RTE_GROUP entry for a grouped query (its Vars above the
 * grouping point at it, its groupexprs the grouped expressions); before,
 * there is none.  The range table's other entries; the group entry's index
 * (0: none) and expressions; dropping it (it is the last entry).
 */
#if PG_VERSION_NUM >= 180000
#define compat_query_group_rte(query) \
	((query)->hasGroupRTE ? (Index) list_length((query)->rtable) : (Index) 0)
#define compat_rte_group_exprs(rte) ((rte)->groupexprs)
#define compat_query_drop_group_rte(query) \
	do { if ((query)->hasGroupRTE) { \
		(query)->rtable = list_truncate((query)->rtable, list_length((query)->rtable) - 1); \
		(query)->hasGroupRTE = false; } } while (0)
#else
#define compat_query_group_rte(query) ((Index) 0)
#define compat_rte_group_exprs(rte) ((List *) NIL)
#define compat_query_drop_group_rte(query) ((void) 0)
#endif
#define compat_query_nrtes(query) \
	(list_length((query)->rtable) - (compat_query_group_rte(query) != 0 ? 1 : 0))

/* a Var's nulling relations cleared (16 marks a Var an outer join may null) */
#if PG_VERSION_NUM >= 160000
#define compat_var_clear_nulling(var) ((var)->varnullingrels = NULL)
#else
#define compat_var_clear_nulling(var) ((void) 0)
#endif

/*
 * The permission check of a query's only relation entry dropped (it
 * becomes a function scan): 16 keeps it in the query's rteperminfos.
 */
#if PG_VERSION_NUM >= 160000
#define compat_rte_drop_perms(query, rte) \
	do { (rte)->perminfoindex = 0; (query)->rteperminfos = NIL; } while (0)
#else
#define compat_rte_drop_perms(query, rte) \
	do { (rte)->requiredPerms = 0; (rte)->checkAsUser = InvalidOid; \
		(rte)->selectedCols = NULL; (rte)->insertedCols = NULL; \
		(rte)->updatedCols = NULL; (rte)->extraUpdatedCols = NULL; } while (0)
#endif

/*
 * A subquery's range table entries moved into query (sqlinline.c): 16 keeps
 * their permission checks in the subquery's rteperminfos, moved along (the
 * entries' indexes into it shifted); before, they are in the entries.
 */
#if PG_VERSION_NUM >= 160000
#define compat_query_take_perminfos(query, sub) \
	do { ListCell *compat_lc; int compat_off = list_length((query)->rteperminfos); \
		foreach(compat_lc, (sub)->rtable) \
			if (((RangeTblEntry *) lfirst(compat_lc))->perminfoindex != 0) \
				((RangeTblEntry *) lfirst(compat_lc))->perminfoindex += compat_off; \
		(query)->rteperminfos = list_concat((query)->rteperminfos, (sub)->rteperminfos); \
	} while (0)
#else
#define compat_query_take_perminfos(query, sub) ((void) 0)
#endif

/*
 * EXPLAIN's planning and output of one query, as ExplainOneQuery() without
 * a hook (for an ExplainOneQuery_hook that adds lines, sqlexplain.c, the
 * only includer that defines COMPAT_WANT_EXPLAIN): 17 exports it as
 * standard_ExplainOneQuery(); before, its body is written here.  18 moved
 * ExplainState's definition into commands/explain_state.h.
 */
#ifdef COMPAT_WANT_EXPLAIN
#include "commands/explain.h"
#if PG_VERSION_NUM >= 180000
#include "commands/explain_state.h"	/* 18 moved ExplainState here */
#endif
#include "executor/instrument.h"
#include "portability/instr_time.h"
#include "tcop/tcopprot.h"
#if PG_VERSION_NUM >= 170000
#define compat_explain_one_query standard_ExplainOneQuery
#else
static inline void
compat_explain_one_query(Query *query, int cursorOptions, IntoClause *into, ExplainState *es,
						 const char *queryString, ParamListInfo params,
						 QueryEnvironment *queryEnv)
{
	PlannedStmt *plan;
	instr_time	planstart,
				planduration;
	BufferUsage bufusage_start,
				bufusage;

	if (es->buffers)
		bufusage_start = pgBufferUsage;
	INSTR_TIME_SET_CURRENT(planstart);
	plan = pg_plan_query(query, queryString, cursorOptions, params);
	INSTR_TIME_SET_CURRENT(planduration);
	INSTR_TIME_SUBTRACT(planduration, planstart);
	if (es->buffers)
	{
		memset(&bufusage, 0, sizeof(BufferUsage));
		BufferUsageAccumDiff(&bufusage, &pgBufferUsage, &bufusage_start);
	}
	ExplainOnePlan(plan, into, es, queryString, params, queryEnv, &planduration,
				   es->buffers ? &bufusage : NULL);
}
#endif
#endif							/* COMPAT_WANT_EXPLAIN */

/*
 * A slot's index entries after table_multi_insert (executor/executor.h):
 * 16 added the bool onlySummarizing argument.
 */
#if PG_VERSION_NUM >= 160000
#define compat_insert_index_tuples(rri, slot, estate) \
	ExecInsertIndexTuples((rri), (slot), (estate), false, false, NULL, NIL, false)
#else
#define compat_insert_index_tuples(rri, slot, estate) \
	ExecInsertIndexTuples((rri), (slot), (estate), false, false, NULL, NIL)
#endif

/*
 * The "POSIX" collation (oid 951 on every version): 18 no longer names it
 * POSIX_COLLATION_OID.
 */
#include "catalog/pg_collation.h"
#ifndef POSIX_COLLATION_OID
#define POSIX_COLLATION_OID ((Oid) 951)
#endif

#endif							/* DPOBJ_PG_COMPAT_H */
