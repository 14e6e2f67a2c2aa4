/*-------------------------------------------------------------------------
 *
 * roleact.c
 *	  Which roles can act as which (roleact.h).
 *
 * A grant's self-grant cap must hold for every role that could act as the
 * granter and benefit as the grantee: an analyst that can SET ROLE to a
 * group granting to itself, a group granting to one of its members, two
 * roles with a common member.  Superusers are left out: they can act as
 * every role, and a superuser's grants are not capped.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "protected/roleact.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/pg_authid.h"
#include "utils/acl.h"
#include "utils/rel.h"

bool
roles_share_actor(Oid a, Oid b)
{
	Relation	rel;
	SysScanDesc scan;
	HeapTuple	tup;
	bool		shared = false;

	if (a == b || is_member_of_role_nosuper(a, b) || is_member_of_role_nosuper(b, a))
		return true;
	rel = table_open(AuthIdRelationId, AccessShareLock);
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 0, NULL);
	while (!shared && HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_authid r = (Form_pg_authid) GETSTRUCT(tup);

		shared = !r->rolsuper && is_member_of_role_nosuper(r->oid, a) &&
			is_member_of_role_nosuper(r->oid, b);
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return shared;
}
