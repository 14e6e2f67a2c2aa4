/*-------------------------------------------------------------------------
 *
 * budget.c
 *	  Privacy budgets per (table, role) and the protected training path
 *	  (issue 4; the security model is docs/SECURITY.md).
 *
 *	  dpobj.protect(rel)                          owner / dpobj_admin
 *	  dpobj.grant_budget(rel, role, eps, delta)   owner / dpobj_admin
 *	  dpobj.revoke_budget(rel, role)              owner / dpobj_admin
 *	  dpobj.train(rel, mechanism, features, label, eps, delta, options)
 *	                                              an analyst with a budget
 *
 * Identity.  These functions must know who calls them: the role that is
 * charged, or whose ownership is checked.  A SECURITY DEFINER function
 * cannot know that -- PostgreSQL has already switched to the definer when
 * C code runs (GetOuterUserId() would ignore enclosing SECURITY DEFINER
 * functions and so let an analyst's definer function use an admin's power).
 * So the functions are declared SECURITY INVOKER with
 * "SET search_path = pg_catalog, pg_temp", take the caller from
 * GetUserId(), and then switch user themselves, exactly the way
 * fmgr_security_definer() does (SetUserIdAndSecContext with
 * SECURITY_LOCAL_USERID_CHANGE and a GUC nest level pinning search_path),
 * for a bounded stretch of code:
 *	  - reads and writes of dpobj.protected_tables / dpobj.budgets run as
 *		the bootstrap superuser (fixed, parameterised statements);
 *	  - the training scan runs as the protected table's OWNER inside a
 *		security-restricted operation, like ANALYZE or REFRESH MATERIALIZED
 *		VIEW: it reads exactly what the owner could, and nothing in the
 *		table's definition can run code with more than the owner's rights.
 * An error anywhere unwinds the user and the GUC level through the
 * (sub)transaction abort, as for SECURITY DEFINER.
 *
 * SQL text.  The analyst supplies column names, never SQL: every name is
 * looked up in pg_attribute (not dropped, not a system column, an allowed
 * type) and the statement is built from the catalog's spelling with
 * quote_identifier(); filter constants and privacy parameters are bound
 * parameters; operators come from a fixed list and are written
 * OPERATOR(pg_catalog.op).
 *
 * The protected context (budget.h) is set only around train()'s one SPI
 * query, reset in PG_FINALLY and at transaction end, and consumed by
 * exactly one final function, which must have scanned the protected table.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "budget.h"
#include "dpobj.h"
#include "hsstate.h"
#include "glmstate.h"
#include "mechanism.h"
#include "ledger.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/fmgrprotos.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/syscache.h"

PG_FUNCTION_INFO_V1(dpobj_protect);
PG_FUNCTION_INFO_V1(dpobj_grant_budget);
PG_FUNCTION_INFO_V1(dpobj_revoke_budget);
PG_FUNCTION_INFO_V1(dpobj_train);

/* the role whose members administer every protected table */
#define DPOBJ_ADMIN_ROLE		"dpobj_admin"

/* limits of a structured filter */
#define DPOBJ_MAX_FILTERS		16

/* ---------------------------------------------------------------------
 * The protected context
 * ---------------------------------------------------------------------
 */

static DPProtectedContext protected_ctx;
static Oid	protected_exec_user = InvalidOid;	/* user the query runs as */
static bool xact_callback_registered = false;

static void
protected_reset(void)
{
	memset(&protected_ctx, 0, sizeof(protected_ctx));
	protected_exec_user = InvalidOid;
}

/* belt and braces: no context survives its transaction, whatever happens */
static void
protected_xact_callback(XactEvent event, void *arg)
{
	if (protected_ctx.active)
		protected_reset();
}

const DPProtectedContext *
dpobj_protected_peek(void)
{
	return protected_ctx.active ? &protected_ctx : NULL;
}

DPProtectedContext *
dpobj_protected_take(List *scanned, bool has_state, double epsilon,
					 double delta, int d)
{
	DPProtectedContext *copy;
	List	   *allowed;
	ListCell   *lc;

	if (!protected_ctx.active)
		elog(ERROR, "dpobj: no protected training context");

	/*
	 * Exactly once: a second final function inside the same train() call
	 * (there is none in the statement train() builds) gets nothing.
	 */
	if (protected_ctx.consumed)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("the protected training context of dpobj.train() was already used"),
				 errhint("dpobj.train() runs exactly one mechanism per call.")));
	protected_ctx.consumed = true;

	/* it must be train()'s own query, running as the table owner */
	if (GetUserId() != protected_exec_user)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("a mechanism on the protected path ran under an unexpected role"),
				 errhint("Call dpobj.train() directly, not from functions that change the current role.")));

	/* ... and it may have scanned only the protected table (or children) */
	allowed = find_all_inheritors(protected_ctx.relid, NoLock, NULL);
	foreach(lc, scanned)
	{
		if (!list_member_oid(allowed, lfirst_oid(lc)))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("a mechanism on the protected path scanned a relation other than %s",
							protected_ctx.relation),
					 errhint("dpobj.train() scans only the protected table.")));
	}

	/* ... with the privacy parameters that will be charged */
	if (has_state &&
		(epsilon != protected_ctx.epsilon_f || delta != protected_ctx.delta_f ||
		 d != protected_ctx.d))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("a mechanism on the protected path received parameters other than the ones charged"),
				 errhint("Call dpobj.train() directly.")));

	copy = palloc(sizeof(DPProtectedContext));
	memcpy(copy, &protected_ctx, sizeof(DPProtectedContext));
	return copy;
}

/* ---------------------------------------------------------------------
 * Errors and the charge
 * ---------------------------------------------------------------------
 */

static void
budget_refused(LedgerBudgetStatus status, const char *relation,
			   const char *rolname, const char *epsilon, const char *delta,
			   const char *remaining_epsilon, const char *remaining_delta)
{
	if (status == LEDGER_BUDGET_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_DPOBJ_BUDGET_EXCEEDED),
				 errmsg("role \"%s\" has no privacy budget on table %s", rolname, relation),
				 errdetail("Nothing was charged and no noise was drawn."),
				 errhint("The table's owner or a member of %s can grant one with dpobj.grant_budget().",
						 DPOBJ_ADMIN_ROLE)));
	ereport(ERROR,
			(errcode(ERRCODE_DPOBJ_BUDGET_EXCEEDED),
			 errmsg("privacy budget exceeded on table %s for role \"%s\"", relation, rolname),
			 errdetail("The request (epsilon %s, delta %s) exceeds the remaining budget. "
					   "Nothing was charged and no noise was drawn.", epsilon, delta),
			 errhint("Remaining budget: epsilon %s, delta %s.", remaining_epsilon, remaining_delta)));
}

int64
dpobj_budget_charge(const DPProtectedContext *ctx, const char *mechanism)
{
	LedgerBudgetStatus status;
	int64		ledger_id = 0;
	char		rem_e[LEDGER_AMOUNT_LEN];
	char		rem_d[LEDGER_AMOUNT_LEN];

	status = ledger_charge_budget(ctx->relid, ctx->analyst, ctx->rolname,
								  mechanism, ctx->epsilon, ctx->delta,
								  ctx->relation, &ledger_id, rem_e, rem_d);
	if (status != LEDGER_BUDGET_CHARGED)
		budget_refused(status, ctx->relation, ctx->rolname, ctx->epsilon,
					   ctx->delta, rem_e, rem_d);
	return ledger_id;
}

/* ---------------------------------------------------------------------
 * Running code as another role (see the file header)
 * ---------------------------------------------------------------------
 */

typedef struct RoleSwitch
{
	Oid			save_userid;
	int			save_sec_context;
	int			save_nestlevel;
} RoleSwitch;

static void
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

static void
role_switch_end(RoleSwitch *rs)
{
	AtEOXact_GUC(true, rs->save_nestlevel);
	SetUserIdAndSecContext(rs->save_userid, rs->save_sec_context);
}

/* ---------------------------------------------------------------------
 * Argument checks shared by the entry points
 * ---------------------------------------------------------------------
 */

static void
check_not_null(FunctionCallInfo fcinfo, int nargs, const char *fname)
{
	for (int i = 0; i < nargs; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s: argument %d must not be NULL", fname, i + 1),
					 errhint("See docs/USAGE.md, \"Privacy budgets\".")));
}

/*
 * Locks the relation (AccessShareLock, until the end of the transaction,
 * so it cannot be dropped under us) and returns its qualified name.
 */
static char *
lock_relation(Oid relid, char *relkind)
{
	char	   *nsp;
	char	   *name;

	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid),
				 errhint("Pass the table as 'schema.table'::regclass.")));
	LockRelationOid(relid, AccessShareLock);
	nsp = get_namespace_name(get_rel_namespace(relid));
	name = get_rel_name(relid);
	if (nsp == NULL || name == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid),
				 errhint("Pass the table as 'schema.table'::regclass.")));
	*relkind = get_rel_relkind(relid);
	return quote_qualified_identifier(nsp, name);
}

/* The caller owns the table (or has its owner's privileges) or is an admin. */
static void
check_can_administer(Oid caller, Oid relid, const char *relation, const char *action)
{
	Oid			admin = get_role_oid(DPOBJ_ADMIN_ROLE, true);

	if (pg_class_ownercheck(relid, caller))
		return;
	if (OidIsValid(admin) && has_privs_of_role(caller, admin))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("must be the owner of table %s or a member of %s to %s",
					relation, DPOBJ_ADMIN_ROLE, action),
			 errhint("Only the table's owner or a member of %s can do this.", DPOBJ_ADMIN_ROLE)));
}

static void
check_role(Oid roleid)
{
	if (!OidIsValid(roleid) ||
		!SearchSysCacheExists1(AUTHOID, ObjectIdGetDatum(roleid)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("role with OID %u does not exist", roleid),
				 errhint("Pass an existing role, e.g. 'analyst'::regrole.")));
}

/*
 * A budget amount or a request: finite numeric, and >= 0 (allow_zero) or
 * > 0; delta also < 1.
 */
static void
check_amount(Numeric n, const char *what, bool allow_zero, bool is_delta)
{
	Datum		zero = DirectFunctionCall1(int4_numeric, Int32GetDatum(0));
	Datum		one = DirectFunctionCall1(int4_numeric, Int32GetDatum(1));
	int			c0;

	if (numeric_is_nan(n) || numeric_is_inf(n))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a finite number", what),
				 errhint("NaN and infinity are not privacy parameters.")));
	c0 = DatumGetInt32(DirectFunctionCall2(numeric_cmp, NumericGetDatum(n), zero));
	if (c0 < 0 || (c0 == 0 && !allow_zero))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be %s zero", what, allow_zero ? "at least" : "greater than"),
				 errhint(is_delta ? "A common choice is delta = 1/n^2 for n rows." :
						 "Typical values of epsilon are between 0.01 and 10.")));
	if (is_delta &&
		DatumGetInt32(DirectFunctionCall2(numeric_cmp, NumericGetDatum(n), one)) >= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be less than 1", what),
				 errhint("A common choice is delta = 1/n^2 for n rows.")));
}

/*
 * The float8 handed to the mechanism for a charged numeric: the largest
 * float8 not above it, so that the noise is calibrated for at most what is
 * charged (for epsilon and delta alike, smaller means more noise).
 */
static double
numeric_to_float8_down(Numeric n, const char *what)
{
	double		f = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(n)));
	Datum		back;

	if (!isfinite(f) || f <= 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s is outside the range of double precision", what),
				 errhint("Use a value between 1e-300 and 1e300.")));
	back = DirectFunctionCall1(float8_numeric, Float8GetDatum(f));
	if (DatumGetInt32(DirectFunctionCall2(numeric_cmp, back, NumericGetDatum(n))) > 0)
		f = nextafter(f, 0.0);
	return f;
}

/* ---------------------------------------------------------------------
 * dpobj.protect(rel regclass) RETURNS boolean
 * ---------------------------------------------------------------------
 */

static const char protect_sql[] =
"INSERT INTO dpobj.protected_tables (relid, protected_by) "
"VALUES ($1, $2::pg_catalog.name) ON CONFLICT (relid) DO NOTHING RETURNING relid";

Datum
dpobj_protect(PG_FUNCTION_ARGS)
{
	Oid			caller = GetUserId();
	Oid			relid;
	char		relkind;
	char	   *relation;
	RoleSwitch	rs;
	Oid			types[2] = {REGCLASSOID, TEXTOID};
	Datum		values[2];
	bool		inserted;

	check_not_null(fcinfo, 1, "dpobj.protect");
	relid = PG_GETARG_OID(0);
	relation = lock_relation(relid, &relkind);
	if (relkind != RELKIND_RELATION && relkind != RELKIND_PARTITIONED_TABLE &&
		relkind != RELKIND_MATVIEW)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("%s is not a table", relation),
				 errhint("Only tables, partitioned tables and materialized views can be protected; a view's rows come from its query.")));
	check_can_administer(caller, relid, relation, "protect it");

	values[0] = ObjectIdGetDatum(relid);
	values[1] = CStringGetTextDatum(GetUserNameFromId(caller, false));
	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (SPI_execute_with_args(protect_sql, 2, types, values, NULL, false, 0) != SPI_OK_INSERT_RETURNING)
		elog(ERROR, "dpobj.protect: insert failed");
	inserted = (SPI_processed == 1);
	role_switch_end(&rs);
	SPI_finish();

	/* protection is pointless while analysts can read the table anyway */
	if (pg_class_aclcheck(relid, ACL_ID_PUBLIC, ACL_SELECT) == ACLCHECK_OK)
		ereport(WARNING,
				(errcode(ERRCODE_WARNING),
				 errmsg("PUBLIC can SELECT from %s", relation),
				 errhint("REVOKE SELECT ON %s FROM PUBLIC, so that analysts reach it only through dpobj.train().",
						 relation)));
	PG_RETURN_BOOL(inserted);
}

/* ---------------------------------------------------------------------
 * dpobj.grant_budget(rel, analyst, epsilon, delta) RETURNS dpobj.budgets
 * dpobj.revoke_budget(rel, analyst) RETURNS dpobj.budgets
 * ---------------------------------------------------------------------
 */

static const char is_protected_sql[] =
"SELECT 1 FROM dpobj.protected_tables WHERE relid OPERATOR(pg_catalog.=) $1";

/* grant adds to the granted totals; concurrent charges wait on the row lock */
static const char grant_sql[] =
"INSERT INTO dpobj.budgets AS b (relid, rolid, granted_epsilon, granted_delta) "
"VALUES ($1, $2, $3, $4) "
"ON CONFLICT (relid, rolid) DO UPDATE "
"   SET granted_epsilon = b.granted_epsilon OPERATOR(pg_catalog.+) EXCLUDED.granted_epsilon, "
"       granted_delta = b.granted_delta OPERATOR(pg_catalog.+) EXCLUDED.granted_delta "
"RETURNING *";

/* revoke leaves nothing to spend; spend and the ledger stay as they are */
static const char revoke_sql[] =
"UPDATE dpobj.budgets SET granted_epsilon = spent_epsilon, granted_delta = spent_delta "
" WHERE relid OPERATOR(pg_catalog.=) $1 AND rolid OPERATOR(pg_catalog.=) $2 "
"RETURNING *";

static Datum
budget_update(FunctionCallInfo fcinfo, bool grant)
{
	const char *fname = grant ? "dpobj.grant_budget" : "dpobj.revoke_budget";
	Oid			caller = GetUserId();
	Oid			relid;
	Oid			analyst;
	char		relkind;
	char	   *relation;
	RoleSwitch	rs;
	Oid			types[4] = {REGCLASSOID, REGROLEOID, NUMERICOID, NUMERICOID};
	Datum		values[4];
	int			ret;
	HeapTupleHeader result = NULL;

	check_not_null(fcinfo, grant ? 4 : 2, fname);
	relid = PG_GETARG_OID(0);
	analyst = PG_GETARG_OID(1);
	relation = lock_relation(relid, &relkind);
	check_role(analyst);
	check_can_administer(caller, relid, relation,
						 grant ? "grant privacy budgets on it" : "revoke privacy budgets on it");
	values[0] = ObjectIdGetDatum(relid);
	values[1] = ObjectIdGetDatum(analyst);
	if (grant)
	{
		check_amount(PG_GETARG_NUMERIC(2), "epsilon", true, false);
		check_amount(PG_GETARG_NUMERIC(3), "delta", true, true);
		values[2] = NumericGetDatum(PG_GETARG_NUMERIC(2));
		values[3] = NumericGetDatum(PG_GETARG_NUMERIC(3));
	}

	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	ret = SPI_execute_with_args(is_protected_sql, 1, types, values, NULL, true, 1);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "%s: lookup failed", fname);
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DPOBJ_NOT_PROTECTED),
				 errmsg("table %s is not protected by dpobj", relation),
				 errhint("Call dpobj.protect('%s') first.", relation)));
	if (grant)
		ret = SPI_execute_with_args(grant_sql, 4, types, values, NULL, false, 1);
	else
		ret = SPI_execute_with_args(revoke_sql, 2, types, values, NULL, false, 1);
	if (ret != (grant ? SPI_OK_INSERT_RETURNING : SPI_OK_UPDATE_RETURNING))
		elog(ERROR, "%s: update failed: SPI result %d", fname, ret);
	role_switch_end(&rs);
	if (SPI_processed == 1)
		result = SPI_returntuple(SPI_tuptable->vals[0], SPI_tuptable->tupdesc);
	SPI_finish();

	if (result == NULL)
	{
		ereport(NOTICE,
				(errmsg("role has no privacy budget on table %s; nothing to revoke", relation)));
		PG_RETURN_NULL();
	}
	PG_RETURN_DATUM(PointerGetDatum(result));
}

Datum
dpobj_grant_budget(PG_FUNCTION_ARGS)
{
	return budget_update(fcinfo, true);
}

Datum
dpobj_revoke_budget(PG_FUNCTION_ARGS)
{
	return budget_update(fcinfo, false);
}

/* ---------------------------------------------------------------------
 * dpobj.train(rel, mechanism, features, label, epsilon, delta, options)
 * ---------------------------------------------------------------------
 */

/*
 * A mechanism that train() can run.  Each is an aggregate with the
 * signature (features float8[], label boolean, epsilon float8, delta
 * float8, options jsonb) whose final function honours the protected
 * context (dpobj_protected_take + dpobj_budget_charge) and whose
 * transition function drops bad rows on the protected path.  A new
 * mechanism adds one line here.
 */
typedef struct TrainMechanism
{
	const char *name;			/* the mechanism argument of train() */
	const char *aggregate;		/* schema-qualified aggregate */
	const char *aggname;		/* for argument errors */
	void		(*check_args) (const char *aggname, double epsilon, double delta,
							   int d, Jsonb *options);
} TrainMechanism;

static const TrainMechanism train_mechanisms[] = {
	{"opdisc", "dpobj.dp_halfspace", "dp_halfspace", hsparams_check_args},
	/* issue 5: the mechanism family */
	{"rspm", "dpobj.dp_halfspace_rspm", "dp_halfspace_rspm", rspm_check_args},
	{"expmech", "dpobj.dp_expmech", "dp_expmech", expmech_check_args},
	{"logistic", "dpobj.dp_logistic", "dp_logistic", glm_check_args_logistic},
	{"noisysgd", "dpobj.dp_noisysgd", "dp_noisysgd", glm_check_args_sgd},
	{"opsamp", "dpobj.dp_opsamp", "dp_opsamp", glm_check_args_opsamp},
};

/* What a column may be used as (types by base type, domains allowed). */
typedef enum ColumnUse
{
	COLUMN_FEATURE,				/* numeric or boolean */
	COLUMN_LABEL,				/* boolean or integer (> 0 is positive) */
	COLUMN_FILTER				/* the above, text types, dates and times */
} ColumnUse;

static bool
column_type_ok(Oid basetype, ColumnUse use)
{
	switch (basetype)
	{
		case BOOLOID:
		case INT2OID:
		case INT4OID:
		case INT8OID:
			return true;
		case FLOAT4OID:
		case FLOAT8OID:
		case NUMERICOID:
			return use != COLUMN_LABEL;
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
		case DATEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return use == COLUMN_FILTER;
		default:
			return false;
	}
}

/*
 * Looks a column name up in the catalog (exact spelling, no quoting or
 * case folding) and returns its quoted catalog name and base type.  Names
 * that are not user columns of rel, or of a type unfit for use, are
 * refused -- the message quotes the analyst's own argument, no data.
 */
static char *
lookup_column(Oid relid, const char *relation, const char *name, ColumnUse use,
			  Oid *basetype)
{
	HeapTuple	tup;
	Form_pg_attribute att;
	char	   *quoted;

	tup = SearchSysCacheAttName(relid, name);
	if (!HeapTupleIsValid(tup))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of table %s does not exist", name, relation),
				 errhint("Pass column names exactly as they are spelled in the catalog, without quotes.")));
	att = (Form_pg_attribute) GETSTRUCT(tup);
	if (att->attisdropped || att->attnum <= 0)
	{
		ReleaseSysCache(tup);
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of table %s does not exist", name, relation),
				 errhint("System columns cannot be used for training.")));
	}
	*basetype = getBaseType(att->atttypid);
	if (!column_type_ok(*basetype, use))
	{
		ReleaseSysCache(tup);
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" of table %s has a type that cannot be used as %s",
						name, relation,
						use == COLUMN_FEATURE ? "a feature" :
						use == COLUMN_LABEL ? "a label" : "a filter"),
				 errhint(use == COLUMN_FEATURE ? "Features must be numeric (integer, float, numeric) or boolean columns." :
						 use == COLUMN_LABEL ? "Labels must be boolean or integer columns (positive means > 0)." :
						 "Filters work on numeric, boolean, text, date and timestamp columns.")));
	}
	quoted = pstrdup(quote_identifier(NameStr(att->attname)));
	ReleaseSysCache(tup);
	return quoted;
}

/*
 * The float8 expression of a feature column.  Numeric values beyond the
 * float8 range (and numeric NaN/Infinity) become NULL instead of raising
 * an overflow error, so the row is dropped like any other bad row.
 */
static void
append_feature(StringInfo buf, const char *col, Oid basetype)
{
	switch (basetype)
	{
		case NUMERICOID:
			appendStringInfo(buf,
							 "CASE WHEN pg_catalog.abs(%s) OPERATOR(pg_catalog.<) 1e300 "
							 "THEN %s::pg_catalog.float8 END", col, col);
			break;
		case BOOLOID:
			appendStringInfo(buf, "%s::pg_catalog.int4::pg_catalog.float8", col);
			break;
		default:
			appendStringInfo(buf, "%s::pg_catalog.float8", col);
			break;
	}
}

static char *
jsonb_scalar_text(JsonbValue *v)
{
	switch (v->type)
	{
		case jbvString:
			return pnstrdup(v->val.string.val, v->val.string.len);
		case jbvNumeric:
			return DatumGetCString(DirectFunctionCall1(numeric_out,
													   NumericGetDatum(v->val.numeric)));
		case jbvBool:
			return pstrdup(v->val.boolean ? "true" : "false");
		default:
			return NULL;
	}
}

/*
 * The structured filter: an array of {"column": name, "op": one of = <> !=
 * < <= > >=, "value": constant}, ANDed.  Each column is looked up like a
 * feature; each value becomes a parameter of the column's type (parsed by
 * the type's input function); the operator is spelled from the fixed list.
 */
static void
append_filter(StringInfo sql, JsonbValue *filter, Oid relid, const char *relation,
			  int *nparams, Oid *types, Datum *values)
{
	static const char *const ops[] = {"=", "<>", "!=", "<", "<=", ">", ">="};
	JsonbContainer *jc;
	int			n;

	if (filter->type != jbvBinary || !JsonContainerIsArray(filter->val.binary.data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"filter\" must be an array of conditions"),
				 errhint("For example '{\"filter\": [{\"column\": \"age\", \"op\": \">=\", \"value\": 18}]}'.")));
	jc = filter->val.binary.data;
	n = JsonContainerSize(jc);
	if (n > DPOBJ_MAX_FILTERS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("at most %d filter conditions are allowed", DPOBJ_MAX_FILTERS),
				 errhint("Combine conditions or protect a narrower table.")));

	for (int i = 0; i < n; i++)
	{
		JsonbValue *cond = getIthJsonbValueFromContainer(jc, i);
		JsonbValue *vcol;
		JsonbValue *vop;
		JsonbValue *vval;
		char	   *col;
		char	   *op = NULL;
		char	   *text;
		Oid			basetype;
		Oid			infunc;
		Oid			ioparam;

		if (cond == NULL || cond->type != jbvBinary ||
			!JsonContainerIsObject(cond->val.binary.data) ||
			JsonContainerSize(cond->val.binary.data) != 3 ||
			(vcol = getKeyJsonValueFromContainer(cond->val.binary.data, "column", 6, NULL)) == NULL ||
			(vop = getKeyJsonValueFromContainer(cond->val.binary.data, "op", 2, NULL)) == NULL ||
			(vval = getKeyJsonValueFromContainer(cond->val.binary.data, "value", 5, NULL)) == NULL ||
			vcol->type != jbvString || vop->type != jbvString)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("filter condition %d must be an object with exactly the keys \"column\", \"op\" and \"value\"", i + 1),
					 errhint("For example {\"column\": \"age\", \"op\": \">=\", \"value\": 18}.")));

		col = pnstrdup(vcol->val.string.val, vcol->val.string.len);
		for (int k = 0; k < lengthof(ops); k++)
		{
			if (vop->val.string.len == strlen(ops[k]) &&
				strncmp(vop->val.string.val, ops[k], vop->val.string.len) == 0)
				op = (strcmp(ops[k], "!=") == 0) ? "<>" : (char *) ops[k];
		}
		if (op == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("filter condition %d has an unknown operator", i + 1),
					 errhint("Use one of =, <>, !=, <, <=, >, >=.")));
		text = jsonb_scalar_text(vval);
		if (text == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("filter condition %d needs a string, number or boolean value", i + 1),
					 errhint("NULL, arrays and objects cannot be compared.")));

		col = lookup_column(relid, relation, col, COLUMN_FILTER, &basetype);
		getTypeInputInfo(basetype, &infunc, &ioparam);
		types[*nparams] = basetype;
		values[*nparams] = OidInputFunctionCall(infunc, text, ioparam, -1);
		(*nparams)++;
		appendStringInfo(sql, " %s %s OPERATOR(pg_catalog.%s) $%d",
						 i == 0 ? "WHERE" : "AND", col, op, *nparams);
	}
}

/* the budget check before the scan (fast refusal); the worker decides */
static const char precheck_sql[] =
"SELECT b.granted_epsilon IS NOT NULL, "
"       (b.granted_epsilon OPERATOR(pg_catalog.-) b.spent_epsilon)::pg_catalog.text, "
"       (b.granted_delta OPERATOR(pg_catalog.-) b.spent_delta)::pg_catalog.text, "
"       b.spent_epsilon OPERATOR(pg_catalog.+) $3 OPERATOR(pg_catalog.<=) b.granted_epsilon "
"   AND b.spent_delta OPERATOR(pg_catalog.+) $4 OPERATOR(pg_catalog.<=) b.granted_delta "
"  FROM dpobj.protected_tables p "
"  LEFT JOIN dpobj.budgets b ON b.relid OPERATOR(pg_catalog.=) p.relid "
"                           AND b.rolid OPERATOR(pg_catalog.=) $2 "
" WHERE p.relid OPERATOR(pg_catalog.=) $1";

static void
train_precheck(Oid relid, Oid analyst, const DPProtectedContext *ctx,
			   Numeric epsilon, Numeric delta)
{
	RoleSwitch	rs;
	Oid			types[4] = {REGCLASSOID, REGROLEOID, NUMERICOID, NUMERICOID};
	Datum		values[4];
	bool		isnull;
	bool		has_budget;
	bool		enough;
	char	   *rem_e;
	char	   *rem_d;

	values[0] = ObjectIdGetDatum(relid);
	values[1] = ObjectIdGetDatum(analyst);
	values[2] = NumericGetDatum(epsilon);
	values[3] = NumericGetDatum(delta);
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (SPI_execute_with_args(precheck_sql, 4, types, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "dpobj.train: budget lookup failed");
	role_switch_end(&rs);

	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DPOBJ_NOT_PROTECTED),
				 errmsg("table %s is not protected by dpobj", ctx->relation),
				 errhint("Its owner must call dpobj.protect() and grant you a budget; if you can read the table, use the aggregates directly.")));
	has_budget = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	if (!has_budget)
		budget_refused(LEDGER_BUDGET_NONE, ctx->relation, ctx->rolname,
					   ctx->epsilon, ctx->delta, "0", "0");
	enough = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 4, &isnull));
	if (!enough)
	{
		rem_e = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);
		rem_d = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3);
		budget_refused(LEDGER_BUDGET_REFUSED, ctx->relation, ctx->rolname,
					   ctx->epsilon, ctx->delta, rem_e, rem_d);
	}
}

/*
 * train()'s code.  validate_only (dpobj.submit, issue 6): every check up to
 * and including the budget pre-check, then return without scanning or
 * charging -- so a job is refused exactly when train() would refuse at once.
 */
static Datum
train_impl(FunctionCallInfo fcinfo, bool validate_only)
{
	Oid			caller = GetUserId();
	Oid			relid;
	Oid			owner;
	char		relkind;
	char	   *relation;
	char	   *mechname;
	const TrainMechanism *mech = NULL;
	ArrayType  *farr;
	Datum	   *fnames;
	bool	   *fnulls;
	int			nfeatures;
	char	   *label_name;
	char	   *label_col;
	Oid			basetype;
	Numeric		epsilon;
	Numeric		delta;
	char	   *eps_text;
	char	   *delta_text;
	Jsonb	   *options;
	Jsonb	   *mech_options;
	JsonbValue *filter = NULL;
	StringInfoData sql;
	Oid			types[3 + DPOBJ_MAX_FILTERS];
	Datum		values[3 + DPOBJ_MAX_FILTERS];
	int			nparams = 3;
	DPProtectedContext ctx;
	Datum		result = (Datum) 0;
	bool		result_null = true;
	bool		consumed = false;
	HeapTuple	reltup;

	check_not_null(fcinfo, 7, "dpobj.train");
	relid = PG_GETARG_OID(0);
	mechname = text_to_cstring(PG_GETARG_TEXT_PP(1));
	farr = PG_GETARG_ARRAYTYPE_P(2);
	label_name = text_to_cstring(PG_GETARG_TEXT_PP(3));
	epsilon = PG_GETARG_NUMERIC(4);
	delta = PG_GETARG_NUMERIC(5);
	options = PG_GETARG_JSONB_P(6);

	memset(&ctx, 0, sizeof(ctx));

	/* the mechanism */
	for (int i = 0; i < lengthof(train_mechanisms); i++)
		if (strcmp(train_mechanisms[i].name, mechname) == 0)
			mech = &train_mechanisms[i];
	if (mech == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown mechanism \"%s\"", mechname),
				 errhint("Available mechanisms: opdisc, rspm, expmech, logistic, noisysgd, opsamp.")));

	/* the table: locked against DROP/ALTER until the end of the transaction */
	relation = lock_relation(relid, &relkind);
	reltup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(reltup))
		elog(ERROR, "cache lookup failed for relation %u", relid);
	owner = ((Form_pg_class) GETSTRUCT(reltup))->relowner;
	ReleaseSysCache(reltup);

	/* the privacy parameters, exactly as numeric */
	check_amount(epsilon, "epsilon", false, false);
	check_amount(delta, "delta", false, true);
	eps_text = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(epsilon)));
	delta_text = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(delta)));
	if (strlen(eps_text) >= DPOBJ_NUMERIC_TEXT_LEN || strlen(delta_text) >= DPOBJ_NUMERIC_TEXT_LEN)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon and delta must have fewer than %d characters as numeric text",
						DPOBJ_NUMERIC_TEXT_LEN),
				 errhint("Round them, e.g. delta = 1e-9 rather than 1/3^19 with all its digits.")));

	/* the columns: catalog lookups, never SQL text from the caller */
	if (ARR_NDIM(farr) != 1 || ARR_ELEMTYPE(farr) != TEXTOID)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("features must be a one-dimensional text array of column names"),
				 errhint("For example ARRAY['age', 'hours_per_week'].")));
	deconstruct_array(farr, TEXTOID, -1, false, TYPALIGN_INT, &fnames, &fnulls, &nfeatures);
	if (nfeatures == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("features must name at least one column"),
				 errhint("For example ARRAY['age', 'hours_per_week'].")));

	/* options: train-level keys out, the rest goes to the mechanism */
	if (!JB_ROOT_IS_OBJECT(options) || JB_ROOT_IS_SCALAR(options))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("options must be a JSON object"),
				 errhint("For example '{\"B\": 2, \"filter\": [...]}'.")));
	filter = getKeyJsonValueFromContainer(&options->root, "filter", 6, NULL);
	mech_options = DatumGetJsonbP(DirectFunctionCall2(jsonb_delete, JsonbPGetDatum(options),
													  CStringGetTextDatum("filter")));

	/* ctx: everything the final function needs, fixed before the scan */
	ctx.relid = relid;
	ctx.analyst = caller;
	strlcpy(ctx.rolname, GetUserNameFromId(caller, false), NAMEDATALEN);
	strlcpy(ctx.relation, relation, sizeof(ctx.relation));
	strlcpy(ctx.epsilon, eps_text, DPOBJ_NUMERIC_TEXT_LEN);
	strlcpy(ctx.delta, delta_text, DPOBJ_NUMERIC_TEXT_LEN);
	ctx.epsilon_f = numeric_to_float8_down(epsilon, "epsilon");
	ctx.delta_f = numeric_to_float8_down(delta, "delta");
	ctx.d = nfeatures;
	ctx.options = mech_options;
	mech->check_args(mech->aggname, ctx.epsilon_f, ctx.delta_f, nfeatures, mech_options);

	/* SELECT agg(ARRAY[f1, ...]::float8[], label, $1, $2, $3) FROM rel [WHERE ...] */
	initStringInfo(&sql);
	appendStringInfo(&sql, "SELECT %s(ARRAY[", mech->aggregate);
	for (int i = 0; i < nfeatures; i++)
	{
		char	   *col;

		if (fnulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("feature column names must not be NULL"),
					 errhint("For example ARRAY['age', 'hours_per_week'].")));
		col = lookup_column(relid, relation, TextDatumGetCString(fnames[i]),
							COLUMN_FEATURE, &basetype);
		if (i > 0)
			appendStringInfoString(&sql, ", ");
		append_feature(&sql, col, basetype);
	}
	appendStringInfoString(&sql, "]::pg_catalog.float8[], ");
	label_col = lookup_column(relid, relation, label_name, COLUMN_LABEL, &basetype);
	if (basetype == BOOLOID)
		appendStringInfoString(&sql, label_col);
	else
		appendStringInfo(&sql, "(%s OPERATOR(pg_catalog.>) 0)", label_col);
	appendStringInfo(&sql, ", $1, $2, $3) FROM %s", relation);
	types[0] = FLOAT8OID;
	values[0] = Float8GetDatum(ctx.epsilon_f);
	types[1] = FLOAT8OID;
	values[1] = Float8GetDatum(ctx.delta_f);
	types[2] = JSONBOID;
	values[2] = JsonbPGetDatum(mech_options);
	if (filter != NULL)
		append_filter(&sql, filter, relid, relation, &nparams, types, values);

	SPI_connect();

	/* protected?  a budget?  enough of it?  (the worker re-checks) */
	train_precheck(relid, caller, &ctx, epsilon, delta);
	if (validate_only)
	{
		SPI_finish();
		PG_RETURN_VOID();
	}

	/* the one query that runs on the protected path */
	if (!xact_callback_registered)
	{
		RegisterXactCallback(protected_xact_callback, NULL);
		xact_callback_registered = true;
	}
	PG_TRY();
	{
		RoleSwitch	rs;
		int			ret;

		memcpy(&protected_ctx, &ctx, sizeof(ctx));
		protected_ctx.active = true;
		protected_ctx.consumed = false;
		protected_exec_user = owner;

		role_switch_begin(&rs, owner, true);
		/*
		 * Never a parallel plan (issue 6): the transition function learns
		 * that it is on the protected path from this backend's context,
		 * which parallel workers do not have.  Without
		 * CURSOR_OPT_PARALLEL_OK the planner makes no parallel plan, even
		 * under force_parallel_mode.
		 */
		{
			SPIPlanPtr	plan = SPI_prepare_cursor(sql.data, nparams, types, 0);

			if (plan == NULL)
				elog(ERROR, "dpobj.train: could not prepare the mechanism query: %s",
					 SPI_result_code_string(SPI_result));
			ret = SPI_execute_plan(plan, values, NULL, true, 1);
		}
		role_switch_end(&rs);
		if (ret != SPI_OK_SELECT || SPI_processed != 1)
			elog(ERROR, "dpobj.train: mechanism query failed: SPI result %d", ret);
		consumed = protected_ctx.consumed;
		result = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &result_null);
		if (!result_null)
			result = SPI_datumTransfer(result, false, -1);
	}
	PG_FINALLY();
	{
		protected_reset();
	}
	PG_END_TRY();

	SPI_finish();

	/* the final function ran exactly once and charged the budget */
	if (!consumed || result_null)
		elog(ERROR, "dpobj.train: the mechanism did not run on the protected path");
	PG_RETURN_DATUM(result);
}

Datum
dpobj_train(PG_FUNCTION_ARGS)
{
	return train_impl(fcinfo, false);
}

void
dpobj_train_validate(FunctionCallInfo fcinfo)
{
	(void) train_impl(fcinfo, true);
}
