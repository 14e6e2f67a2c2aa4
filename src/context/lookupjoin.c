/*-------------------------------------------------------------------------
 *
 * lookupjoin.c
 *	  The current run's public lookup tables (lookupjoin.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "context/lookupjoin.h"

static MemoryContext joins_cxt = NULL;
static Oid	joins_relid = InvalidOid;
static int	joins_n = 0;
static LookupJoin joins[DPOBJ_MAX_LOOKUPS];
static bool joins_callback = false;

static void
lookup_joins_clear(void)
{
	joins_relid = InvalidOid;
	joins_n = 0;
	if (joins_cxt != NULL)
		MemoryContextReset(joins_cxt);
}

/* no request's joins outlive its transaction */
static void
lookup_joins_xact(XactEvent event, void *arg)
{
	if (joins_n > 0)
		lookup_joins_clear();
}

void
lookup_joins_set(Oid relid, const LookupJoin *j, int n)
{
	MemoryContext old;

	if (!joins_callback)
	{
		RegisterXactCallback(lookup_joins_xact, NULL);
		joins_callback = true;
	}
	if (joins_cxt == NULL)
		joins_cxt = AllocSetContextCreate(TopMemoryContext, "dpobj lookup joins",
										  ALLOCSET_SMALL_SIZES);
	lookup_joins_clear();
	if (n <= 0)
		return;
	n = Min(n, DPOBJ_MAX_LOOKUPS);
	old = MemoryContextSwitchTo(joins_cxt);
	for (int i = 0; i < n; i++)
	{
		joins[i] = j[i];
		joins[i].name = pstrdup(j[i].name);
		for (int k = 0; k < j[i].nkeys; k++)
		{
			joins[i].own[k] = pstrdup(j[i].own[k]);
			joins[i].key[k] = pstrdup(j[i].key[k]);
		}
		for (int k = 0; k < j[i].nbounded; k++)
			joins[i].bounded[k] = pstrdup(j[i].bounded[k]);
	}
	MemoryContextSwitchTo(old);
	joins_relid = relid;
	joins_n = n;
}

int
lookup_joins_get(Oid relid, const LookupJoin **j)
{
	*j = joins;
	return relid == joins_relid ? joins_n : 0;
}

int
lookup_joins_column(Oid relid, const char *name, Oid *table, const char **column)
{
	const LookupJoin *j;
	int			n = lookup_joins_get(relid, &j);

	for (int i = 0; i < n; i++)
	{
		size_t		len = strlen(j[i].name);
		AttrNumber	att = strncmp(name, j[i].name, len) == 0 && name[len] == '.' ?
			get_attnum(j[i].table, name + len + 1) : InvalidAttrNumber;

		/* a column of a built-in type only (protected/lookups.c offers no other) */
		if (att > 0 && getBaseType(get_atttype(j[i].table, att)) < FirstNormalObjectId)
		{
			*table = j[i].table;
			*column = name + len + 1;
			return i;
		}
	}
	return -1;
}

bool
lookup_joins_is(Oid relid, Oid table)
{
	const LookupJoin *j;
	int			n = lookup_joins_get(relid, &j);

	for (int i = 0; i < n; i++)
		if (j[i].table == table && !j[i].unit)
			return true;
	return false;
}

bool
lookup_joins_bounded(Oid relid, Oid table, const char *column)
{
	const LookupJoin *j;
	int			n = lookup_joins_get(relid, &j);

	for (int i = 0; i < n; i++)
		for (int k = 0; j[i].table == table && k < j[i].nbounded; k++)
			if (strcmp(j[i].bounded[k], column) == 0)
				return true;
	return false;
}
