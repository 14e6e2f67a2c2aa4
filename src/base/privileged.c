/*-------------------------------------------------------------------------
 *
 * privileged.c
 *	  Role switches and the check of dpobj's own schema (privileged.h).
 *
 * Why the schema check (leak 8): dpobj's privileged code -- the
 * entry points that switch to the bootstrap superuser, the ledger worker,
 * the job worker, the event triggers -- names its tables and functions as
 * "dpobj.x".  CREATE EXTENSION uses an existing schema called dpobj as it
 * is, so a role that created that schema before the extension owned every
 * object in it and could replace them: the superuser-run statements would
 * then run its code.  The upgrade script refuses to install into such a
 * schema (sql/dpobj--0.1.0--0.2.0.sql, section 4), and every privileged
 * entry point verifies again at run time, because ownership and grants can
 * change after installation.  Objects in the schema that are not the
 * extension's are refused by the install and update scripts only
 * (sql/dpobj--0.4.0--0.5.0.sql, section 0b): once the schema passes the
 * check below, only a superuser can add one.
 *
 * Why the temporary schema check: a protected scan runs as the table owner,
 * in the caller's session, and can run the owner's code: row-level security
 * policies the owner does not bypass (FORCE) and virtual generated columns
 * (18), with the functions they call.  (Defaults, stored generated columns
 * and triggers run on writes only; views are not trained on.)  PostgreSQL
 * looks a relation or type name up in the session's temporary schema
 * whatever search_path says -- first unless pg_temp is listed, and listed
 * last it still answers every name the rest misses -- so a name that code
 * leaves unqualified could resolve to the caller's temporary view, table
 * (with triggers), sequence or domain, which would run or receive the
 * caller's code and the owner's rights.  Such a run is refused while that
 * schema holds any relation or type: public grounds (the table's definition
 * and the caller's own session), before the charge.  Nothing can add one
 * during the run but code already running as the owner: the scan is a
 * security-restricted operation.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "base/privileged.h"
#include "base/dpobj.h"
#include "base/pg_compat.h"

#include "access/genam.h"
#include "access/relation.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#define DPOBJ_SCHEMA_NAME	"dpobj"

void
role_switch_begin(RoleSwitch *rs, Oid userid, bool restricted)
{
	GetUserIdAndSecContext(&rs->save_userid, &rs->save_sec_context);
	rs->save_nestlevel = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp",
							 PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	SetUserIdAndSecContext(userid,
						   rs->save_sec_context | SECURITY_LOCAL_USERID_CHANGE |
						   (restricted ? SECURITY_RESTRICTED_OPERATION : 0));
}

void
role_switch_end(RoleSwitch *rs)
{
	AtEOXact_GUC(true, rs->save_nestlevel);
	SetUserIdAndSecContext(rs->save_userid, rs->save_sec_context);
}

Oid
dpobj_extension_oid(Oid *owner, Oid *schema)
{
	return dpobj_extension_info(owner, schema, NULL);
}

Oid
dpobj_extension_info(Oid *owner, Oid *schema, char **version)
{
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			extoid = InvalidOid;

	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_extension_extname, BTEqualStrategyNumber,
				F_NAMEEQ, CStringGetDatum("dpobj"));
	scan = systable_beginscan(rel, ExtensionNameIndexId, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
	{
		Form_pg_extension ext = (Form_pg_extension) GETSTRUCT(tup);

		extoid = ext->oid;
		if (owner)
			*owner = ext->extowner;
		if (schema)
			*schema = ext->extnamespace;
		if (version)
		{
			bool		isnull;
			Datum		v = heap_getattr(tup, Anum_pg_extension_extversion,
										 RelationGetDescr(rel), &isnull);

			*version = isnull ? pstrdup("?") : text_to_cstring(DatumGetTextPP(v));
		}
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return extoid;
}

/* a role other than a superuser may create objects in the schema */
static bool
others_may_create(HeapTuple nsptup)
{
	bool		isnull;
	Datum		aclDatum;
	Acl		   *acl;
	AclItem    *items;

	aclDatum = SysCacheGetAttr(NAMESPACEOID, nsptup, Anum_pg_namespace_nspacl, &isnull);
	if (isnull)
		return false;			/* default ACL: the owner only */
	acl = DatumGetAclP(aclDatum);
	items = ACL_DAT(acl);
	for (int i = 0; i < ACL_NUM(acl); i++)
	{
		if ((ACLITEM_GET_PRIVS(items[i]) & ACL_CREATE) == 0)
			continue;
		if (items[i].ai_grantee == ACL_ID_PUBLIC || !superuser_arg(items[i].ai_grantee))
			return true;
	}
	return false;
}

/*
 * The SQL objects in the database must be the ones this library was built
 * for: between installing a new library and ALTER EXTENSION dpobj UPDATE,
 * the old objects call into the new library, and a run could be charged
 * and then fail on a missing or changed object.  Refused before anything
 * is charged, on public grounds (the catalog).
 */
static void
verify_sql_version(const char *version)
{
	if (strcmp(version, DPOBJ_SQL_VERSION) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("dpobj refuses to run: its library is version %s but its SQL objects in this database are version %s",
						DPOBJ_SQL_VERSION, version),
				 errdetail("Nothing was charged."),
				 errhint("A superuser must run ALTER EXTENSION dpobj UPDATE in this database.")));
}

void
dpobj_verify_schema(void)
{
	Oid			schema = InvalidOid;
	char	   *version = NULL;
	HeapTuple	tup;
	Form_pg_namespace nsp;
	bool		bad_name;
	bool		bad_owner;
	bool		bad_acl;

	if (!OidIsValid(dpobj_extension_info(NULL, &schema, &version)))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("extension \"dpobj\" is not installed in this database"),
				 errhint("A superuser can install it with CREATE EXTENSION dpobj.")));
	tup = SearchSysCache1(NAMESPACEOID, ObjectIdGetDatum(schema));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for schema %u", schema);
	nsp = (Form_pg_namespace) GETSTRUCT(tup);
	bad_name = strcmp(NameStr(nsp->nspname), DPOBJ_SCHEMA_NAME) != 0;
	bad_owner = !superuser_arg(nsp->nspowner);
	bad_acl = others_may_create(tup);
	ReleaseSysCache(tup);

	if (bad_name || bad_owner || bad_acl)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("dpobj refuses to run: its schema \"%s\" is not controlled by superusers only",
						DPOBJ_SCHEMA_NAME),
				 errdetail("%s",
						   bad_name ? "The extension's schema is not named dpobj." :
						   bad_owner ? "The schema is owned by a role that is not a superuser." :
						   "A role that is not a superuser may create objects in the schema."),
				 errhint("A superuser must own schema dpobj and keep CREATE on it to superusers (docs/SECURITY.md, \"Installation\").")));
	verify_sql_version(version);
}

/* catalog holds a row whose column attnum (a namespace) is nsp */
static bool
catalog_names_in(Oid catalog, AttrNumber attnum, Oid nsp)
{
	Relation	rel = table_open(catalog, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	bool		found;

	ScanKeyInit(&key, attnum, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(nsp));
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 1, &key);
	found = HeapTupleIsValid(systable_getnext(scan));
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return found;
}

/*
 * A scan of relid as its owner runs the owner's code (file header): forced
 * row-level security or a virtual generated column on relid or on a
 * relation read through it (inheritance children, partitions; locked here
 * until the end of the transaction).
 */
static bool
scan_runs_owner_code(Oid relid)
{
	List	   *rels = find_all_inheritors(relid, AccessShareLock, NULL);
	ListCell   *lc;

	foreach(lc, rels)
	{
		Relation	rel = relation_open(lfirst_oid(lc), NoLock);
		TupleDesc	desc = RelationGetDescr(rel);
		bool		runs = rel->rd_rel->relrowsecurity && rel->rd_rel->relforcerowsecurity;

		for (int i = 0; !runs && i < desc->natts; i++)
			runs = TupleDescAttr(desc, i)->attgenerated == ATTRIBUTE_GENERATED_VIRTUAL;
		relation_close(rel, NoLock);
		if (runs)
			return true;
	}
	return false;
}

void
dpobj_refuse_temp_objects(const char *fname, Oid relid, const char *relation)
{
	Oid			temp_nsp;
	Oid			temp_toast_nsp;

	GetTempNamespaceState(&temp_nsp, &temp_toast_nsp);
	if (!OidIsValid(temp_nsp))
		return;					/* no temporary object in this session yet */
	if (!scan_runs_owner_code(relid))
		return;
	if (catalog_names_in(RelationRelationId, Anum_pg_class_relnamespace, temp_nsp) ||
		catalog_names_in(TypeRelationId, Anum_pg_type_typnamespace, temp_nsp))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s refuses to run on %s while this session has temporary tables, views, sequences or types",
						fname, relation),
				 errdetail("The scan runs the table owner's code (forced row-level security, virtual generated columns) as the owner, and a name that code leaves unqualified could resolve to this session's temporary objects. Nothing was charged."),
				 errhint("Drop them (DISCARD TEMP), or call %s from a new session.", fname)));
}
