/*-------------------------------------------------------------------------
 *
 * dropguard.c
 *	  The event trigger dpobj_drop_guard (ddl_command_start, ENABLE
 *	  ALWAYS; sql/dpobj--0.1.0--0.2.0.sql section 4).
 *
 * DROP EXTENSION dpobj silently erased the ledger and the budgets -- a
 * superuser reset all accounting in two statements (drop, create) -- and
 * CASCADE dropped users' model columns too.  The guard refuses, before
 * anything is dropped,
 *	  DROP EXTENSION dpobj,
 *	  DROP SCHEMA <dpobj's schema>,
 *	  DROP OWNED BY <the extension's owner>,
 *	  ALTER EXTENSION dpobj DROP <member>  (the first step of dropping a
 *	                                        ledger table by hand)
 * while dpobj.ledger, dpobj.budgets, dpobj.budget_domains or
 * dpobj.protected_tables holds a row,
 * or with CASCADE (which also drops objects outside the extension, such as
 * model columns), unless a superuser confirmed it in the session with
 *	  SET dpobj.drop_confirm = '<name of the current database>';
 * It reads the tables directly (by name inside the extension's own schema,
 * checked to be members of the extension), so it runs no SQL and works
 * even when the schema is no longer trustworthy.
 *
 * A superuser can still disable the trigger (ALTER EVENT TRIGGER ...
 * DISABLE; event triggers do not fire for event-trigger commands) or use
 * single-user mode: the guard makes erasing the accounting deliberate and
 * visible, it cannot make it impossible (docs/SECURITY.md).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "base/dpobj.h"
#include "base/privileged.h"

#include "access/table.h"
#include "access/tableam.h"
#include "catalog/dependency.h"
#include "access/htup_details.h"
#include "catalog/pg_class.h"
#include "catalog/pg_namespace.h"
#include "commands/dbcommands.h"
#include "commands/event_trigger.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

PG_FUNCTION_INFO_V1(dpobj_drop_guard);

static Oid
namespace_owner(Oid nsp)
{
	HeapTuple	tup = SearchSysCache1(NAMESPACEOID, ObjectIdGetDatum(nsp));
	Oid			owner = InvalidOid;

	if (HeapTupleIsValid(tup))
	{
		owner = ((Form_pg_namespace) GETSTRUCT(tup))->nspowner;
		ReleaseSysCache(tup);
	}
	return owner;
}

/* the statement names extension dpobj or its schema in a list of names */
static bool
names_match(List *objects, const char *name)
{
	ListCell   *lc;

	foreach(lc, objects)
	{
		Node	   *obj = (Node *) lfirst(lc);

		if (IsA(obj, String) && strcmp(strVal(obj), name) == 0)
			return true;
	}
	return false;
}

/*
 * Does the statement drop dpobj or a part of it?  *cascade is set when it
 * would also drop objects outside the extension.
 */
static bool
drops_dpobj(Node *parsetree, Oid extowner, Oid extschema, bool *cascade)
{
	*cascade = false;
	if (IsA(parsetree, DropStmt))
	{
		DropStmt   *stmt = (DropStmt *) parsetree;

		*cascade = stmt->behavior == DROP_CASCADE;
		if (stmt->removeType == OBJECT_EXTENSION)
			return names_match(stmt->objects, "dpobj");
		if (stmt->removeType == OBJECT_SCHEMA)
			return names_match(stmt->objects, get_namespace_name(extschema));
		return false;
	}
	if (IsA(parsetree, DropOwnedStmt))
	{
		DropOwnedStmt *stmt = (DropOwnedStmt *) parsetree;
		ListCell   *lc;

		*cascade = stmt->behavior == DROP_CASCADE;
		foreach(lc, stmt->roles)
		{
			Oid			role = get_rolespec_oid((RoleSpec *) lfirst(lc), true);

			if (role == extowner || role == namespace_owner(extschema))
				return true;
		}
		return false;
	}
	if (IsA(parsetree, AlterExtensionContentsStmt))
	{
		AlterExtensionContentsStmt *stmt = (AlterExtensionContentsStmt *) parsetree;

		return stmt->action < 0 && strcmp(stmt->extname, "dpobj") == 0;
	}
	return false;
}

/* the extension's own table schema.name has a row (false if it is missing) */
static bool
member_has_rows(Oid extoid, Oid schema, const char *name)
{
	Oid			relid = get_relname_relid(name, schema);
	Relation	rel;
	Snapshot	snap;
	TableScanDesc scan;
	TupleTableSlot *slot;
	bool		found;

	if (!OidIsValid(relid) || getExtensionOfObject(RelationRelationId, relid) != extoid)
		return false;
	rel = table_open(relid, AccessShareLock);
	snap = RegisterSnapshot(GetLatestSnapshot());
	scan = table_beginscan(rel, snap, 0, NULL);
	slot = table_slot_create(rel, NULL);
	found = table_scan_getnextslot(scan, ForwardScanDirection, slot);
	ExecDropSingleTupleTableSlot(slot);
	table_endscan(scan);
	UnregisterSnapshot(snap);
	table_close(rel, AccessShareLock);
	return found;
}

static bool
has_accounting(Oid extoid, Oid schema)
{
	return member_has_rows(extoid, schema, "ledger") ||
		member_has_rows(extoid, schema, "budgets") ||
		member_has_rows(extoid, schema, "budget_domains") ||
		member_has_rows(extoid, schema, "protected_tables");
}

static bool
drop_confirmed(void)
{
	char	   *db = get_database_name(MyDatabaseId);

	return superuser() && dpobj_drop_confirm != NULL && db != NULL &&
		strcmp(dpobj_drop_confirm, db) == 0;
}

Datum
dpobj_drop_guard(PG_FUNCTION_ARGS)
{
	EventTriggerData *trigdata;
	Oid			extoid;
	Oid			extowner = InvalidOid;
	Oid			extschema = InvalidOid;
	bool		cascade;
	bool		accounting;

	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_EVENT_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("dpobj.drop_guard() must be called as an event trigger"),
				 errhint("It is fired by dpobj's event trigger dpobj_drop_guard.")));
	trigdata = (EventTriggerData *) fcinfo->context;
	extoid = dpobj_extension_oid(&extowner, &extschema);
	if (!OidIsValid(extoid) ||
		!drops_dpobj(trigdata->parsetree, extowner, extschema, &cascade))
		PG_RETURN_VOID();

	accounting = has_accounting(extoid, extschema);
	if (!accounting && !cascade)
		PG_RETURN_VOID();
	if (drop_confirmed())
	{
		ereport(WARNING,
				(errmsg("dropping dpobj%s as confirmed by dpobj.drop_confirm",
						accounting ? " with its privacy ledger and budgets" : ""),
				 errhint("A later CREATE EXTENSION dpobj starts with an empty ledger and no budgets.")));
		PG_RETURN_VOID();
	}
	ereport(ERROR,
			(errcode(ERRCODE_DEPENDENT_OBJECTS_STILL_EXIST),
			 errmsg("dropping dpobj would erase %s",
					accounting ? "its privacy ledger and budgets" :
					"objects outside the extension (CASCADE), such as model columns"),
			 errdetail("dpobj.ledger records every privacy charge made in this database; a new installation would start with unspent budgets."),
			 errhint("To drop it anyway, keep a copy (pg_dump --table='dpobj.*'), then as a superuser SET dpobj.drop_confirm = '%s' in the same session.",
					 get_database_name(MyDatabaseId))));
	PG_RETURN_VOID();
}
