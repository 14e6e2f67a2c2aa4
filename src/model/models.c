/*-------------------------------------------------------------------------
 *
 * models.c
 *	  The model catalog (models.h):
 *
 *	  dpobj.save_model(name text, model dpobj.model, replace boolean DEFAULT false)
 *	  dpobj.drop_model(name text) RETURNS boolean
 *	  and dpobj.train(..., model_name) through models_store().
 *
 *	  The caller is GetUserId() (these are SECURITY INVOKER C functions: a
 *	  SECURITY DEFINER function cannot see its caller); the write runs as
 *	  the bootstrap superuser with a pinned search_path (privileged.h), so
 *	  dpobj.models needs no write privilege for anyone else.  Reading is
 *	  plain SQL under row-level security (sql/dpobj--0.1.0--0.2.0.sql,
 *	  section 5).
 *
 *-------------------------------------------------------------------------
 */
#include "model/models.h"

#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/lock.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"
#include "access/htup_details.h"

#include "model/model.h"
#include "model/encode.h"
#include "model/encodemodel.h"
#include "model/kindsint.h"
#include "base/privileged.h"

PG_FUNCTION_INFO_V1(dpobj_save_model);
PG_FUNCTION_INFO_V1(dpobj_drop_model);

#define MODELS_NAME_MAX 63

/* advisory tag class of a model name's lock (runlimit.c and units.c use 0x4450 to 0x4452) */
#define MODELS_NAME_LOCK_CLASS 0x4453

static const char models_exists_sql[] =
"SELECT 1 FROM dpobj.models WHERE ownerid OPERATOR(pg_catalog.=) $1 "
"AND name OPERATOR(pg_catalog.=) $2";

static const char models_delete_sql[] =
"DELETE FROM dpobj.models WHERE ownerid OPERATOR(pg_catalog.=) $1 "
"AND name OPERATOR(pg_catalog.=) $2";

/* kind: the model's (dpobj.model_kind), read once when it is stored */
static const char models_insert_sql[] =
"INSERT INTO dpobj.models (name, ownerid, mechanism, epsilon, delta, params, "
"relation, ledger_id, model, kind) "
"SELECT $2, $1, ($3::dpobj.model).mechanism, ($3::dpobj.model).epsilon, "
"($3::dpobj.model).delta, ($3::dpobj.model).params, $4, $5, $3, "
"dpobj.model_kind($3::dpobj.model)";

static void
models_check_format(const char *name)
{
	size_t		len = strlen(name);
	bool		ok = len >= 1 && len <= MODELS_NAME_MAX;

	for (size_t i = 0; ok && i < len; i++)
		ok = name[i] > ' ' && name[i] < 127 && name[i] != '\'' && name[i] != '"' &&
			name[i] != '\\';
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_NAME),
				 errmsg("invalid model name"),
				 errhint("A model name has 1 to %d printable ASCII characters without spaces, quotes or backslashes.",
						 MODELS_NAME_MAX)));
}

/*
 * Runs one fixed statement on dpobj.models as the bootstrap superuser; a
 * SELECT reads the latest snapshot (what a later INSERT's unique check
 * meets, whatever the transaction's isolation)
 */
static uint64
models_exec(const char *sql, int nargs, Oid *types, Datum *values, const char *nulls,
			int expect)
{
	RoleSwitch	rs;
	int			rc;
	uint64		n;
	bool		select = expect == SPI_OK_SELECT;

	dpobj_verify_schema();
	SPI_connect();
	if (select)
		PushActiveSnapshot(GetLatestSnapshot());
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	rc = SPI_execute_with_args(sql, nargs, types, values, nulls, select, 0);
	if (rc != expect)
		elog(ERROR, "dpobj.models: statement failed (%d)", rc);
	n = SPI_processed;
	role_switch_end(&rs);
	if (select)
		PopActiveSnapshot();
	SPI_finish();
	return n;
}

/*
 * The owner's name, held to the end of the transaction: two calls that
 * store a model under one name (a run after its charge, save_model) check
 * it one after the other, so the second refuses it before its charge
 * instead of failing at the INSERT after it.  A hash collision of two
 * names only makes one call wait.
 */
static void
models_lock_name(Oid owner, const char *name)
{
	LOCKTAG		tag;

	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, owner,
						 hash_bytes((const unsigned char *) name, (int) strlen(name)),
						 MODELS_NAME_LOCK_CLASS);
	(void) LockAcquire(&tag, ExclusiveLock, false, false);
}

static uint64
models_delete(Oid owner, const char *name)
{
	Oid			types[2] = {OIDOID, TEXTOID};
	Datum		values[2] = {ObjectIdGetDatum(owner), CStringGetTextDatum(name)};

	return models_exec(models_delete_sql, 2, types, values, NULL, SPI_OK_DELETE);
}

void
models_check_name(Oid owner, const char *name, bool replace)
{
	Oid			types[2] = {OIDOID, TEXTOID};
	Datum		values[2] = {ObjectIdGetDatum(owner), CStringGetTextDatum(name)};

	models_check_format(name);
	models_lock_name(owner, name);
	if (!replace &&
		models_exec(models_exists_sql, 2, types, values, NULL, SPI_OK_SELECT) > 0)
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_OBJECT),
				 errmsg("a model named \"%s\" already exists", name),
				 errhint("Choose another name, or remove it first with dpobj.drop_model('%s').", name)));
}

void
models_store(Oid owner, const char *name, Datum model, bool replace,
			 const char *relation, int64 ledger_id)
{
	/* a composite datum carries its type: dpobj.model */
	Oid			types[5] = {OIDOID, TEXTOID,
		HeapTupleHeaderGetTypeId(DatumGetHeapTupleHeader(model)), TEXTOID, INT8OID};
	Datum		values[5];
	char		nulls[5] = {' ', ' ', ' ', ' ', ' '};

	models_check_name(owner, name, replace);
	if (replace)
		(void) models_delete(owner, name);
	values[0] = ObjectIdGetDatum(owner);
	values[1] = CStringGetTextDatum(name);
	values[2] = model;
	values[3] = relation ? CStringGetTextDatum(relation) : (Datum) 0;
	values[4] = Int64GetDatum(ledger_id);
	if (relation == NULL)
		nulls[3] = 'n';
	if (ledger_id <= 0)
		nulls[4] = 'n';
	(void) models_exec(models_insert_sql, 5, types, values, nulls, SPI_OK_INSERT);
}

/*
 * The checks the model's first use runs (predict, score, predict_class,
 * explain, evaluate: its kind's; predict_raw: its encoding's), so that a
 * forged model is refused (22023, 22004) when saved, not when used.
 */
static void
models_validate(Datum model)
{
	Jsonb	   *spec;

	(void) model_unpack_any(DatumGetHeapTupleHeader(model), CurrentMemoryContext);
	spec = encoding_of_model(model);
	if (spec != NULL)
		(void) encoding_parse(spec);
}

/* dpobj.save_model(name, model, replace): a model from a direct aggregate */
Datum
dpobj_save_model(PG_FUNCTION_ARGS)
{
	char	   *name;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("dpobj.save_model: the name, the model and replace must not be NULL"),
				 errhint("Pass a model returned by one of dpobj's aggregates.")));
	name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	models_validate(PG_GETARG_DATUM(1));
	models_store(GetUserId(), name, PG_GETARG_DATUM(1), PG_GETARG_BOOL(2), NULL, 0);
	PG_RETURN_VOID();
}

/* dpobj.drop_model(name): removes one of the caller's models */
Datum
dpobj_drop_model(PG_FUNCTION_ARGS)
{
	char	   *name;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("dpobj.drop_model: the name must not be NULL"),
				 errhint("Pass the name of one of your models (SELECT name FROM dpobj.models).")));
	name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	models_check_format(name);
	PG_RETURN_BOOL(models_delete(GetUserId(), name) > 0);
}
