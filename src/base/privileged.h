/*-------------------------------------------------------------------------
 *
 * privileged.h
 *	  What dpobj's privileged code needs before it acts with more rights
 *	  than its caller (docs/SECURITY.md, "Identity"):
 *	    - switching user for a bounded stretch, exactly as
 *	      fmgr_security_definer() does (a GUC nest level pins search_path);
 *	    - verifying that the schema its SQL text names ("dpobj.") is the
 *	      extension's own and owned by a superuser, so that no other role
 *	      can have placed or replaced an object that privileged code runs;
 *	    - refusing to run a table owner's code in a session whose temporary
 *	      schema holds a relation or a type (the caller's objects).
 *	  Implemented in privileged.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_PRIVILEGED_H
#define DPOBJ_PRIVILEGED_H

#include "postgres.h"

typedef struct RoleSwitch
{
	Oid			save_userid;
	int			save_sec_context;
	int			save_nestlevel;
} RoleSwitch;

/*
 * Acts as userid until role_switch_end(): a new GUC nest level with
 * search_path = pg_catalog, pg_temp; restricted adds
 * SECURITY_RESTRICTED_OPERATION (as ANALYZE does).  An error unwinds both
 * through the (sub)transaction abort.
 */
extern void role_switch_begin(RoleSwitch *rs, Oid userid, bool restricted);
extern void role_switch_end(RoleSwitch *rs);

/*
 * Raises an error unless extension dpobj is installed in this database in
 * a schema named dpobj that a superuser owns and in which no other role
 * may create objects, and its SQL objects are the version this library was
 * built for (DPOBJ_SQL_VERSION).  Every privileged and every charged entry
 * point calls it first.
 */
extern void dpobj_verify_schema(void);

/*
 * Raises an error (fname names the entry point) if a scan of relid as its
 * owner would run the owner's code while this session's temporary schema
 * holds a relation or a type.  Called before the charge of a protected run.
 */
extern void dpobj_refuse_temp_objects(const char *fname, Oid relid, const char *relation);

/* the OID of extension dpobj (InvalidOid when not installed), and its owner */
extern Oid	dpobj_extension_oid(Oid *owner, Oid *schema);
/* the same, and the installed version of its SQL objects (palloc'd) */
extern Oid	dpobj_extension_info(Oid *owner, Oid *schema, char **version);

#endif							/* DPOBJ_PRIVILEGED_H */
