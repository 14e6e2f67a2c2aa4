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

#endif							/* DPOBJ_PG_COMPAT_H */
