/*-------------------------------------------------------------------------
 *
 * train.c
 *	  dpobj.train(rel, mechanism, features, label, epsilon, delta, options)
 *	  and its validation for dpobj.submit, as the sealed run of a request
 *	  (context/sealedrun.h), which every other entry point makes too
 *	  (train.h; the security model is docs/SECURITY.md).
 *
 * Order of work:
 *	  1. the table protected and a budget on it (runaccess.h), before any
 *		 check a declaration decides; then every argument is checked -- all
 *		 on public grounds (catalog, arguments, options, declarations; with a
 *		 model name, a transaction that can write): errors here cost nothing;
 *	  2. the budget's run lock (one run per budget at a time), then the
 *		 budget pre-check, as the bootstrap superuser (fast refusal,
 *		 DP004/DP005; the ledger worker's guarded debit decides);
 *	  3. the one query runs sealed (seal.c), as the table owner in a
 *		 security-restricted operation, with the protected context set
 *		 (protected.c); the budget is charged once its plan is checked and
 *		 before it reads its first row (sealscan.c).
 *
 * Public refusals only before the charge (docs/ALGORITHMS.md, "Public
 * decisions only"): the mechanism's argument check validates every option
 * the final function reads, the epsilon floor makes every probe cost
 * budget, and the solver
 * time limit is the superuser's (the "time_limit" option is refused).
 *
 * Release deadline (deadline.h): the outcome comes no sooner than the start
 * of this call plus the larger of the owner's floor (read with the budget
 * pre-check) and the "deadline" option.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "base/random.h"
#include "protected/lookups.h"
#include "protected/spiplans.h"
#include "protected/train.h"
#include "protected/budgetdomains.h"
#include "context/deadline.h"
#include "protected/domains.h"
#include "model/encode.h"
#include "model/encodemodel.h"
#include "base/dpobj.h"
#include "protected/entryargs.h"
#include "ledger/accountant.h"
#include "ledger/ledger.h"
#include "mechanisms/mechanism.h"
#include "model/models.h"
#include "base/options.h"
#include "base/privileged.h"
#include "protected/protectable.h"
#include "protected/protecttree.h"
#include "protected/runaccess.h"
#include "context/protected.h"
#include "context/runlimit.h"
#include "context/sealedrun.h"
#include "protected/seal.h"
#include "context/trainquery.h"
#include "protected/unitbound.h"
#include "protected/units.h"
#include "context/workerpins.h"
#include "families/registry.h"

#include "catalog/pg_authid.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/instrument.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(dpobj_train);

/* an alias's method into the options; a different "method" there is an error */
static Jsonb *
train_alias_method(Jsonb *options, const char *alias, const char *method)
{
	JsonbValue *v = getKeyJsonValueFromContainer(&options->root, "method", 6, NULL);

	if (v != NULL && !(v->type == jbvString && v->val.string.len == strlen(method) &&
					   strncmp(v->val.string.val, method, v->val.string.len) == 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the mechanism \"%s\" conflicts with the option \"method\"", alias),
				 errhint("Use mechanism '%s' with {\"method\": ...}, or drop the option.",
						 mechanism_lookup(alias, &method)->name)));
	return dp_options_add(options, psprintf("{\"method\": \"%s\"}", method));
}

/*
 * The mechanism train() (or another entry point) would run for name, with
 * an alias's method added to *options: runs_left() prices exactly what
 * train() charges.
 */
const char *
train_resolve_mechanism(const char *name, Jsonb **options)
{
	const char *method;
	const DPMechanism *mech = mechanism_lookup_entry(name, &method);

	if (method != NULL)
		*options = train_alias_method(*options, name, method);
	return mech->name;
}

/*
 * epsilon and delta exactly as numeric: finite, in range, short, eps >=
 * floor; delta 0 only for a mechanism that is epsilon-DP (delta_zero)
 */
void
train_check_privacy_of(Numeric epsilon, Numeric delta, bool delta_zero, char **eps_text,
					   char **delta_text)
{
	dp_check_amount(epsilon, "epsilon", false, false);
	dp_check_amount(delta, "delta", delta_zero, true);
	if (dp_numeric_cmp(epsilon, dp_numeric_of_text(DPOBJ_MIN_EPSILON_TEXT)) < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon must be at least %s in dpobj.train()", DPOBJ_MIN_EPSILON_TEXT),
				 errhint("Every run on a protected table costs at least this much budget, so that probing it is never free.")));
	*eps_text = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(epsilon)));
	*delta_text = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(delta)));
	if (strlen(*eps_text) >= DPOBJ_NUMERIC_TEXT_LEN || strlen(*delta_text) >= DPOBJ_NUMERIC_TEXT_LEN)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon and delta must have fewer than %d characters as numeric text",
						DPOBJ_NUMERIC_TEXT_LEN),
				 errhint("Round them, e.g. delta = 1e-9 rather than 1/3^19 with all its digits.")));
}

void
train_check_privacy(Numeric epsilon, Numeric delta, char **eps_text, char **delta_text)
{
	train_check_privacy_of(epsilon, delta, false, eps_text, delta_text);
}

/* the feature column names: a one-dimensional text array, no NULLs */
static char **
train_features(ArrayType *farr, int *nfeatures)
{
	Datum	   *fnames;
	bool	   *fnulls;
	char	  **names;

	if (ARR_NDIM(farr) != 1 || ARR_ELEMTYPE(farr) != TEXTOID)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("features must be a one-dimensional text array of column names"),
				 errhint("For example ARRAY['age', 'hours_per_week'].")));
	deconstruct_array(farr, TEXTOID, -1, false, TYPALIGN_INT, &fnames, &fnulls, nfeatures);
	if (*nfeatures == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("features must name at least one column"),
				 errhint("For example ARRAY['age', 'hours_per_week'].")));
	names = palloc(sizeof(char *) * *nfeatures);
	for (int i = 0; i < *nfeatures; i++)
	{
		if (fnulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("feature column names must not be NULL"),
					 errhint("For example ARRAY['age', 'hours_per_week'].")));
		names[i] = TextDatumGetCString(fnames[i]);
	}
	return names;
}

/*
 * The paper's sigma (option "calibration": "paper") is for reproducing the
 * paper with the direct aggregates; its proof has gaps (docs/PRIVACY.md),
 * so the protected path uses the sound calibration only.
 */
static void
train_refuse_paper_calibration(Jsonb *options)
{
	JsonbValue *v = getKeyJsonValueFromContainer(&options->root, "calibration", 11, NULL);

	if (v != NULL && !(v->type == jbvString && v->val.string.len == 5 &&
					   strncmp(v->val.string.val, "sound", 5) == 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dpobj.train() and dpobj.submit() use the sound calibration only"),
				 errhint("Omit the option \"calibration\" (or set it to \"sound\"); the paper's sigma is available on the direct aggregates for reproducing the paper.")));
}

/*
 * options: train-level keys out ("filter", "where", "deadline", "lookups"), the rest goes to
 * the mechanism; "time_limit" is refused (the protected limit is the
 * superuser's dpobj.protected_time_limit).
 */
static Jsonb *
train_options(Jsonb *options, JsonbValue **filter, JsonbValue **where, double *deadline)
{
	Jsonb	   *rest;
	JsonbValue *rows_per_unit;

	if (!JB_ROOT_IS_OBJECT(options) || JB_ROOT_IS_SCALAR(options))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("options must be a JSON object"),
				 errhint("For example '{\"B\": 2, \"filter\": [...]}'.")));
	if (getKeyJsonValueFromContainer(&options->root, "time_limit", 10, NULL) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("option \"time_limit\" cannot be set in dpobj.train() or dpobj.submit()"),
				 errhint("On the protected path the solver's time limit is dpobj.protected_time_limit (now %g s; 0 = none, the default), which a superuser sets.",
						 dpobj_protected_time_limit)));
	train_refuse_paper_calibration(options);
	rows_per_unit = getKeyJsonValueFromContainer(&options->root, "rows_per_unit", 13, NULL);
	if (rows_per_unit != NULL && rows_per_unit->type == jbvString &&
		rows_per_unit->val.string.len == 7 && strncmp(rows_per_unit->val.string.val, "private", 7) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("option \"rows_per_unit\": \"private\" is available in dpobj.aggregate() only"),
				 errhint("dpobj.train(), dpobj.evaluate(), dpobj.submit() and dpobj.synthesize() keep the table's declared max_rows_per_unit rows per unit.")));
	if (rows_per_unit != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("option \"rows_per_unit\" cannot be set in dpobj.train(), dpobj.evaluate() or dpobj.submit()"),
				 errhint("The table's owner sets the privacy unit with dpobj.protect(rel, privacy_unit => ..., max_rows_per_unit => ...); runs use it.")));
	*filter = getKeyJsonValueFromContainer(&options->root, "filter", 6, NULL);
	*where = getKeyJsonValueFromContainer(&options->root, "where", 5, NULL);
	*deadline = deadline_option(options);
	rest = DatumGetJsonbP(DirectFunctionCall2(jsonb_delete, JsonbPGetDatum(options),
											  CStringGetTextDatum("filter")));
	rest = DatumGetJsonbP(DirectFunctionCall2(jsonb_delete, JsonbPGetDatum(rest),
											  CStringGetTextDatum("where")));
	rest = DatumGetJsonbP(DirectFunctionCall2(jsonb_delete, JsonbPGetDatum(rest),
											  CStringGetTextDatum("lookups")));
	return DatumGetJsonbP(DirectFunctionCall2(jsonb_delete, JsonbPGetDatum(rest),
											  CStringGetTextDatum("deadline")));
}

/*
 * Whether the sealed query may run in parallel workers (seal.c), decided on
 * public grounds only: where the state is sums or counts of a size fixed by
 * d and the options (linear regression, passglm, evaluation), which a worker
 * hands to the leader in a few kilobytes.  A state that keeps every distinct
 * row (dp_logistic and noisy GD) would ship all of them as one value, a
 * failure above 1 GB that depends on the rows; the sampled kinds' states
 * are bounded, but combining the workers' samples cost more than their scan
 * saved on the tables measured (docs/BENCHMARKS.md, "The protected path in
 * parallel workers"); a privacy unit's bounding counts per unit across the
 * whole table, in the leader (its functions are PARALLEL RESTRICTED) -- but
 * a linked table's path may be joined in workers whatever the state: the
 * leader stores the joined rows (a CTE scan, parallel restricted too) and
 * bounds and aggregates them itself (trainquery.c).  A table holding its
 * unit, alone or joined to others on it, stays serial: its leader's
 * counting, keeping and aggregating lead its profile, and on
 * bench/sql/speed.sh's tu (10M rows, 1M units) a gathered counting scan,
 * or its rows gathered and stored once as a linked run's, took 1.4-2x the
 * two serial scans; a unit join gathered was no faster than serial.  A
 * Citus table is parallel across its shards already (workerpins.c pins the
 * shard sessions serial).
 */
static bool
train_parallel_ok(const DPProtectedContext *ctx, const DPMechanism *mech)
{
	if (ctx->citus || ctx->nlookups > 0)
		return false;
	return ctx->rows_per_unit == 0 ? mech->parallel : ctx->unit_hops > 0;
}

/* options || {"rows_per_unit": k}: the mechanism calibrates for k rows */
static Jsonb *
train_unit_options(Jsonb *options, int k)
{
	return dp_options_add(options, psprintf("{\"rows_per_unit\": %d}", k));
}

/*
 * The budget check before the scan (fast refusal); the worker decides, by
 * the same rule (dpobj.budget_admits, accountant.c), on the same budget
 * row (dpobj.budget_for: the table's budget domain's, or its own).
 * budget_for is an uncorrelated subquery (an InitPlan): called once
 * whatever the plan.  As a join clause a nested loop would call it once and
 * a hash join twice (the hash key, then the clause on the matching entry);
 * the plan follows dpobj.budgets' planner statistics, which autovacuum sets
 * at its own moment, and the analyst's function statistics
 * (pg_stat_xact_user_functions) would show which.
 * Column 2, the epsilon left for the refusal's hint, only for a run the
 * rule refuses (the Gaussian path's spent epsilon is a search); column 3
 * is kept empty (the delta left is the accountant's, from column 8).
 * Column 5: an approximate-DP run the rule refuses after the zCDP part
 * began, whose delta is above what the reserve and the basic filter still
 * hold (budget_accounting.approx_delta_left; refused for its epsilon
 * otherwise, column 2); column 6: the owner's release deadline floor; column 7: the
 * budget domain; column 8: the budget row (for train_composition_notice); column 9:
 * the role has queued or running jobs charged to the same budget.
 */
static const char precheck_sql[] =
"SELECT b.granted_epsilon IS NOT NULL, "
"       CASE WHEN NOT a.admits THEN dpobj.budget_remaining_epsilon(b)::pg_catalog.text END, "
"       NULL::pg_catalog.text, "
"       a.admits, "
"       $5 OPERATOR(pg_catalog.=) 'approx' AND NOT a.admits "
"         AND (b.spent_rho OPERATOR(pg_catalog.>) 0 OR b.filter_refused) "
"         AND $4 OPERATOR(pg_catalog.>) (SELECT x.approx_delta_left FROM dpobj.budget_accounting x "
"                                         WHERE x.id OPERATOR(pg_catalog.=) b.id), "
"       p.release_deadline, p.budget_domain::pg_catalog.text, b, "
"       EXISTS (SELECT 1 FROM dpobj.job_queue j "
"                WHERE j.owner OPERATOR(pg_catalog.=) $2 "
"                  AND (j.state OPERATOR(pg_catalog.=) 'queued' "
"                       OR j.state OPERATOR(pg_catalog.=) 'running') "
"                  AND dpobj.budget_for(j.rel, j.owner) OPERATOR(pg_catalog.=) b.id) "
"  FROM dpobj.protected_tables p "
"  LEFT JOIN dpobj.budgets b "
"         ON b.id OPERATOR(pg_catalog.=) (SELECT dpobj.budget_for($1, $2)) "
"  CROSS JOIN LATERAL (SELECT dpobj.budget_admits(b, $5, $3, $4, $6) AS admits) a "
" WHERE p.relid OPERATOR(pg_catalog.=) $1";

/* the refused budget's remaining delta as my_budgets shows it (the pre-check's row, column 8) */
static const char *
train_remaining_delta(void)
{
	bool		isnull;
	Datum		row = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 8, &isnull);
	AccountBudget b;

	if (isnull || !account_budget_of_row(DatumGetHeapTupleHeader(row), &b))
		return "0";
	return DatumGetCString(DirectFunctionCall1(numeric_out,
											   NumericGetDatum(account_remaining_delta(&b))));
}

/* an approximate-DP run whose delta nothing holds: a public refusal (the ledger's charges) */
static double
train_refuse_closed(const DPProtectedContext *ctx)
{
	ereport(ERROR,
			(errcode(ERRCODE_DPOBJ_BUDGET_EXCEEDED),
			 errmsg("privacy budget of role \"%s\" on table %s no longer admits this approximate-DP run",
					ctx->rolname, ctx->relation),
			 errdetail("Mechanism %s is (epsilon, delta)-DP; after the budget's first zCDP run, "
					   "such runs take their delta from the reserve kept for them or the basic "
					   "filter's share, and neither holds this delta; nothing was charged and no noise was drawn.",
					   ctx->mechanism),
			 errhint("Use a smaller delta, or a zCDP or pure-epsilon mechanism (%s); "
					 "docs/PRIVACY.md, \"Composition: one filter for every mechanism\", "
					 "says why.", mechanism_zcdp_names())));
}

/*
 * The composition the admitted run moves the budget (the pre-check's row,
 * column 8) to, by the charge's own rule, or NULL when it stays: from the
 * ledger's public state and the run's public cost alone.
 */
static const char *
train_composition_change(const DPProtectedContext *ctx, Numeric epsilon, Numeric delta,
						 const char **from)
{
	bool		isnull;
	Datum		row = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 8, &isnull);
	AccountBudget b,
				after;
	const char *to;

	if (isnull || !account_budget_of_row(DatumGetHeapTupleHeader(row), &b) ||
		!account_debit(&b, ctx->cost.kind, epsilon, delta,
					   ctx->cost.kind == LEDGER_COST_APPROX ? NULL : dp_numeric_of_text(ctx->cost.rho),
					   1, &after))
		return NULL;
	*from = account_composition(&b);
	to = account_composition(&after);
	return strcmp(*from, to) == 0 ? NULL : to;
}

/*
 * The charge's one line (accountnext.c), from the pre-check's budget row
 * (column 8) and the run's cost: public grounds, before any row is read.
 * The charge sends it (protected.c).
 */
static void
train_charge_note(DPProtectedContext *ctx, Numeric epsilon, Numeric delta)
{
	bool		isnull;
	Datum		row = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 8, &isnull);
	AccountBudget b;
	char	   *note;

	ctx->charge_note[0] = '\0';
	if (isnull || !account_budget_of_row(DatumGetHeapTupleHeader(row), &b))
		return;
	note = account_charge_note(&b, ctx->cost.kind, epsilon, delta,
							   ctx->cost.kind == LEDGER_COST_APPROX ? NULL :
							   dp_numeric_of_text(ctx->cost.rho));
	if (note != NULL)
		strlcpy(ctx->charge_note, note, sizeof(ctx->charge_note));
}

/*
 * Says, before the charge, that this run changes how the budget composes
 * (public grounds: the ledger's state and the run's cost).
 */
static void
train_composition_notice(const DPProtectedContext *ctx, const char *from, const char *to)
{
	if (to == NULL)
		return;
	ereport(NOTICE,
			(errmsg("this run moves the privacy budget of role \"%s\" on table %s from %s to %s composition",
					ctx->rolname, ctx->relation, from, to),
			 errdetail(strcmp(to, "gaussian") == 0 ?
					   "Gaussian runs now compose in zCDP or Gaussian DP; the first run of another kind moves the budget to Renyi composition for good." :
					   "Every later run is converted at the budget's fixed Renyi order: a pure-epsilon or (epsilon, delta) run may add more than its epsilon to the spent epsilon."),
			 errhint("dpobj.cost() shows what a run would add before it runs; docs/PRIVACY.md, \"Composition: one filter for every mechanism\", says why.")));
}

/*
 * A session's run while the role's jobs on the same budget are queued or
 * running: the jobs are charged in submission order when the scheduler
 * starts them, and a run beside them would take its charge in between, in
 * an order nobody chose (the filter admits charges in order).  Refused
 * before the charge, on public grounds (the role's own dpobj.jobs).  A
 * job's own run (its worker) is not refused: it is one of them.
 */
static void
train_refuse_jobs_pending(const DPProtectedContext *ctx)
{
	if (MyBgworkerEntry != NULL &&
		strcmp(MyBgworkerEntry->bgw_function_name, "dpobj_job_worker_main") == 0)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_IN_USE),
			 errmsg("role \"%s\" has queued or running jobs charged to its privacy budget on table %s",
					ctx->rolname, ctx->relation),
			 errdetail("Jobs are charged in submission order as they start; a run beside them would be charged in between. Nothing was charged."),
			 errhint("Wait until dpobj.jobs shows them finished, cancel them (dpobj.cancel), or submit this run as a job too.")));
}

/*
 * One run on a budget at a time (runlimit.h), held to the end of the
 * transaction, so runs are charged in the order they start whatever their
 * scans take: a run waits while another run of its role on the budget (a
 * session's or a job's) holds it.  The wait ends when that run's
 * transaction does, which its role sees.  No budget: the pre-check refuses.
 */
void
train_lock_budget(Oid relid)
{
	RoleSwitch	rs;
	int64		budget;
	bool		found;
	Oid			analyst = GetUserId();	/* the caller's, before the switch */

	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	found = budget_for_id(relid, analyst, &budget);
	role_switch_end(&rs);
	if (found)
		dpobj_run_budget_lock(budget);
}

static double
train_precheck(DPProtectedContext *ctx, Numeric epsilon, Numeric delta,
			   const char **from, const char **to, bool validate_only)
{
	RoleSwitch	rs;
	Oid			types[6] = {REGCLASSOID, REGROLEOID, NUMERICOID, NUMERICOID, TEXTOID, NUMERICOID};
	Datum		values[6];
	char		nulls[6] = {' ', ' ', ' ', ' ', ' ', ' '};
	bool		isnull,
				pending;
	char	   *domain;

	values[0] = ObjectIdGetDatum(ctx->relid);
	values[1] = ObjectIdGetDatum(ctx->analyst);
	values[2] = NumericGetDatum(epsilon);
	values[3] = NumericGetDatum(delta);
	values[4] = CStringGetTextDatum(ledger_cost_kind_name(ctx->cost.kind));
	if (ctx->cost.kind == LEDGER_COST_APPROX)
		nulls[5] = 'n';
	else
		values[5] = NumericGetDatum(dp_numeric_of_text(ctx->cost.rho));
	/* a run reads the latest state: what the budget's earlier runs and jobs left */
	PushActiveSnapshot(GetLatestSnapshot());
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (dp_spi_run(precheck_sql, 6, types, values, nulls, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "dpobj.train: budget lookup failed");
	role_switch_end(&rs);
	PopActiveSnapshot();

	if (SPI_processed == 0)
		run_refuse_unprotected(ctx->relation);
	domain = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 7);
	strlcpy(ctx->budget_domain, domain != NULL ? domain : "", sizeof(ctx->budget_domain));
	if (!DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull)))
		dpobj_budget_refused(LEDGER_BUDGET_NONE, ctx, "0", "0");
	if (DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 5, &isnull)))
		train_refuse_closed(ctx);
	if (!DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 4, &isnull)))
		dpobj_budget_refused(LEDGER_BUDGET_REFUSED, ctx,
							 SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2),
							 train_remaining_delta());
	pending = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 9, &isnull));
	if (!validate_only && pending)
		train_refuse_jobs_pending(ctx);
	/* a job behind others on the budget is charged after them: no NOTICE at submit */
	*to = validate_only && pending ? NULL : train_composition_change(ctx, epsilon, delta, from);
	train_charge_note(ctx, epsilon, delta);
	return DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 6, &isnull));
}

static void
train_encoding_refused(const char *msg, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("%s", msg), errhint("%s", hint)));
}

/* evaluate: the features must be the columns of the model's encoding, in order */
static void
train_check_encoded_features(const Encoding *enc, char **features, int nfeatures)
{
	bool		same = (enc->ncols == nfeatures);

	for (int i = 0; same && i < nfeatures; i++)
		same = strcmp(enc->cols[i].column, features[i]) == 0;
	if (!same)
		train_encoding_refused("the features must be the raw columns of the model's encoding",
							   "List the columns of params->'encoding', in its order.");
}

/*
 * The run's encoding (encode.h), or NULL for raw features: train() reads the
 * table's declared domains ("encode": true requires them for every column,
 * false ignores them); another entry point passes its own (evaluate(): its
 * model's).  Both keys leave the options ("encoding" is refused there);
 * with an encoding and no "R", the mechanism's R is the derived bound.
 */
static Jsonb *
train_encoding(DPProtectedContext *ctx, const DPMechanism *mech, const DPRunRequest *req,
			   char **features, int nfeatures, int *d)
{
	Jsonb	   *opts = ctx->options;
	JsonbValue *v = getKeyJsonValueFromContainer(&opts->root, "encode", 6, NULL);
	JsonbValue *e = getKeyJsonValueFromContainer(&opts->root, "encoding", 8, NULL);
	bool		evaluating = mech->evaluate_only;
	Jsonb	   *spec;
	Encoding   *enc;
	int			norm = mech->r_norm;

	if (v != NULL && (v->type != jbvBool || evaluating))
		train_encoding_refused("option \"encode\" must be true or false, in dpobj.train() and dpobj.submit()",
							   "dpobj.evaluate() encodes as its model records; train() encodes declared domains unless {\"encode\": false}.");
	if (e != NULL)
		train_encoding_refused("option \"encoding\" cannot be set",
							   "The encoding comes from the table's declared domains (dpobj.declare_domain).");
	ctx->options = DatumGetJsonbP(DirectFunctionCall2(jsonb_delete, JsonbPGetDatum(opts),
													  CStringGetTextDatum("encode")));
	ctx->options = DatumGetJsonbP(DirectFunctionCall2(jsonb_delete, JsonbPGetDatum(ctx->options),
													  CStringGetTextDatum("encoding")));
	*d = nfeatures;
	if (evaluating)
		spec = req->encoding;
	else
		spec = domains_encoding(ctx->relid, ctx->relation, features, nfeatures,
								v == NULL ? DOMAINS_AUTO :
								v->val.boolean ? DOMAINS_REQUIRED : DOMAINS_OFF);
	if (spec == NULL)
		return NULL;
	enc = encoding_parse(spec);
	if (evaluating)
		train_check_encoded_features(enc, features, nfeatures);
	*d = enc->d;
	/* what the mechanism reads of the encoding (additive boosting: its one-hot groups) */
	if (mech->encoding_options != NULL)
		ctx->options = dp_options_add(ctx->options, mech->encoding_options(enc));
	/* a caller's "R" is honoured (the mechanism clips to it); else the derived bound */
	if (norm > 0 && getKeyJsonValueFromContainer(&ctx->options->root, "R", 1, NULL) == NULL)
		ctx->options = dp_options_add(ctx->options,
										 psprintf("{\"R\": %.17g}", encoding_row_bound(enc, norm == 1)));
	return spec;
}

/* the table's owner, who must be able to read it (else a public refusal) */
static Oid
train_owner(Oid relid, const char *relation)
{
	HeapTuple	reltup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Oid			owner;

	if (!HeapTupleIsValid(reltup))
		elog(ERROR, "cache lookup failed for relation %u", relid);
	owner = ((Form_pg_class) GETSTRUCT(reltup))->relowner;
	ReleaseSysCache(reltup);
	if (pg_class_aclcheck(relid, owner, ACL_SELECT) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("the owner of table %s cannot read it", relation),
				 errdetail("Nothing was charged."),
				 errhint("dpobj.train() reads the table with its owner's privileges; the owner must keep SELECT on it.")));
	return owner;
}

/* the mechanism the request names; 'evaluate' only through dpobj.evaluate() */
static const DPMechanism *
train_mechanism_arg(const DPRunRequest *req, const char **method)
{
	const DPMechanism *mech = mechanism_lookup(req->mechanism, method);
	bool		evaluating = req->own_entry;

	/* 'evaluate' and 'aggregate' release counts, not a model */
	if (mech->evaluate_only != evaluating)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the mechanism \"%s\" runs only through %s", mech->name,
						mech->evaluate_only ? mech->entry : "dpobj.train()"),
				 errhint("dpobj.evaluate() evaluates a model on a protected table, dpobj.aggregate() releases statistics of it.")));
	return mech;
}

/*
 * The options the mechanism reads: the caller's, and an entry point's own
 * for its mechanism (aggregate()'s "layout", evaluate()'s "model")
 */
static Jsonb *
train_request_options(const DPRunRequest *req)
{
	Jsonb	   *options = req->options;
	JsonbValue	v;

	if (req->layout != NULL)
	{
		JsonbToJsonbValue(req->layout, &v);
		options = dp_options_put(options, "layout", &v);
	}
	if (req->model != NULL)
	{
		v.type = jbvString;
		v.val.string.val = unconstify(char *, req->model);
		v.val.string.len = strlen(req->model);
		options = dp_options_put(options, "model", &v);
	}
	return options;
}

/*
 * The run's context and query from its request, every public check of it
 * included: everything the final function needs, fixed before the scan.
 * Returns the exact numeric epsilon and delta for the budget check.
 */
static void
train_prepare(const DPRunRequest *req, const DPMechanism *mech, const char *method,
			  DPProtectedContext *ctx, TrainQuery *query,
			  Numeric *epsilon, Numeric *delta, double *deadline, Jsonb **encoding)
{
	char		relkind;
	char	  **features;
	int			nfeatures;
	char	   *eps_text;
	char	   *delta_text;
	JsonbValue *filter = NULL;
	TableUnit	unit;

	memset(ctx, 0, sizeof(*ctx));
	/* the table: locked against DROP/ALTER until the end of the transaction */
	ctx->relid = req->relid;
	strlcpy(ctx->relation, dp_lock_relation(ctx->relid, &relkind), sizeof(ctx->relation));
	dpobj_check_protectable(ctx->relid, ctx->relation);
	/* protected?  a budget?  before anything that reads a declaration (runaccess.h) */
	run_check_access(ctx->relid, ctx->relation);

	/* the privacy parameters, exactly as numeric */
	*epsilon = req->epsilon;
	*delta = req->delta;
	train_check_privacy_of(*epsilon, *delta, mech->delta_zero, &eps_text, &delta_text);

	/* aggregate()'s public lookup tables, checked, before a column name is read (lookups.h) */
	lookups_prepare(ctx->relid, req->options, req->layout != NULL);
	/* the columns and options: catalog lookups, never SQL text from the caller */
	features = train_features(req->columns, &nfeatures);
	train_query_check_columns(ctx->relid, ctx->relation, features, nfeatures, req->label, NULL);
	ctx->options = train_options(train_request_options(req), &filter, &query->where, deadline);
	train_query_check_columns(ctx->relid, ctx->relation, NULL, 0, NULL, filter);
	if (method != NULL)
		ctx->options = train_alias_method(ctx->options, req->mechanism, method);
	/* the owner's privacy unit: bounded in the query, k in the options */
	units_for_run(ctx->relid, ctx->relation, &unit);
	ctx->rows_per_unit = unit.rows_per_unit;
	/* a linked table: the plan check also allows the tables on its path */
	ctx->unit_hops = unit.hops;
	memcpy(ctx->unit_path, unit.path, sizeof(unit.path));
	ctx->nlookups = unit.nlookups;
	memcpy(ctx->lookups, unit.lookups, sizeof(unit.lookups));
	if (unit.rows_per_unit > 0)
		ctx->options = train_unit_options(ctx->options, unit.rows_per_unit);
	/* a Citus distributed table: what is not sealed there is refused now */
	ctx->citus = dpobj_check_citus_run(ctx->relid, ctx->relation, &unit);
	query->unit_private = req->unit_bound;
	if (req->unit_bound)
	{
		unit_bound_check_table(&unit);
		ctx->unit_share = UNIT_BOUND_SHARE;
	}
	/* the protected mode travels with the query, to every node (options.h) */
	ctx->options = dp_options_add(ctx->options, "{\"" DPOBJ_SEALED_KEY "\": true}");

	ctx->analyst = GetUserId();
	strlcpy(ctx->rolname, GetUserNameFromId(ctx->analyst, false), NAMEDATALEN);
	/* the ledger names the entry point: an alias run as another ('describe') by its own name */
	strlcpy(ctx->mechanism, method == NULL ? req->mechanism : mech->name, NAMEDATALEN);
	strlcpy(ctx->epsilon, eps_text, DPOBJ_NUMERIC_TEXT_LEN);
	strlcpy(ctx->delta, delta_text, DPOBJ_NUMERIC_TEXT_LEN);
	ctx->epsilon_f = dp_numeric_to_float8_down(*epsilon, "epsilon");
	ctx->delta_f = dp_numeric_to_float8_down(*delta, "delta");
	*encoding = train_encoding(ctx, mech, req, features, nfeatures, &ctx->d);
	ctx->parallel = train_parallel_ok(ctx, mech);
	ctx->sorts_rows = mech->sorts_rows;
	mech->check_args(mech->aggname, ctx->epsilon_f, ctx->delta_f, ctx->d, ctx->options);
	if (ctx->citus && mech->citus_shard_options)
		ctx->options = mechanism_family(mech)->citus_options(ctx);
	/* what the run will cost, from public inputs (seal.c charges the same) */
	mechanism_run_cost(mech->name, ctx->options, ctx->epsilon_f, ctx->delta_f, &ctx->cost);

	train_query_build(query, mech->aggregate, mech->aggregate_args, mech->args_encoded,
					  mech->aggregate_arrays, ctx->relid, ctx->relation,
					  features, nfeatures, req->label,
					  mech->label_of ? mech->label_of(ctx->options) : mech->label_kind,
					  filter, ctx->epsilon_f, ctx->delta_f, ctx->options,
					  unit.column, unit.source, unit.rows_per_unit, *encoding, ctx->citus);
}

/*
 * The sealed run of a request (sealedrun.h).  validate_only (dpobj.submit):
 * every check up to and including the budget pre-check, then return
 * without scanning or charging -- so a job is refused exactly when the run
 * would refuse at once.
 */
static Datum
train_run(const DPRunRequest *req, bool validate_only)
{
	const DPMechanism *mech;
	Numeric		epsilon;
	Numeric		delta;
	DPProtectedContext ctx;
	TrainQuery	query;
	Oid			owner;
	Datum		result;
	bool		evaluating = req->own_entry;
	const char *method;
	int64		ledger_id = 0;
	double		deadline;
	double		owner_floor;
	Jsonb	   *encoding;
	const char *comp_from = NULL,
			   *comp_to = NULL;

	/* the public instant the release deadline counts from */
	TimestampTz start = GetCurrentTimestamp();

	dpobj_verify_schema();
	mech = train_mechanism_arg(req, &method);
	/* the model is stored after the charge: a transaction that cannot write is refused first */
	if (req->model_name != NULL && !validate_only)
		dp_refuse_read_only(evaluating && mech->entry ? mech->entry : "dpobj.train()", "the model");
	train_prepare(req, mech, method, &ctx, &query, &epsilon, &delta, &deadline, &encoding);

	/* protected?  a budget?  enough of it?  (the worker re-checks) */
	SPI_connect();
	if (!validate_only)
		train_lock_budget(ctx.relid);
	owner_floor = train_precheck(&ctx, epsilon, delta, &comp_from, &comp_to, validate_only);
	/* a protected ancestor or descendant: refused (protecttree.h); the tree scanned */
	protecttree_check(ctx.relid, ctx.relation, false);
	ctx.tree_hash = dp_inheritance_tree_hash(ctx.relid);
	owner = train_owner(ctx.relid, ctx.relation);
	/* a Citus table: every worker's cap at least this server's (public) */
	if (ctx.citus)
		worker_caps_check(ctx.relation, owner);
	/*
	 * train/submit(..., model_name): a public check, before the charge,
	 * under the name's lock (models.h): a concurrent call storing the same
	 * name is waited for
	 */
	if (req->model_name != NULL)
		models_check_name(ctx.analyst, req->model_name, false);
	/* seeded noise is predictable: a public refusal, before the charge */
	dpobj_refuse_seeded(evaluating ? psprintf("dpobj.%s", mech->name) :
						validate_only ? "dpobj.submit" : "dpobj.train");
	if (validate_only)
	{
		/* submit(): the job is charged next on this budget, from this state */
		train_composition_notice(&ctx, comp_from, comp_to);
		SPI_finish();
		return (Datum) 0;
	}

	/*
	 * The scan may run the owner's code in this session: none of its names
	 * may resolve to this session's temporary objects (public grounds; a job
	 * runs in a worker's session of its own, so submit() does not check).
	 */
	dpobj_refuse_temp_objects(evaluating ? psprintf("dpobj.%s", mech->name) : "dpobj.train",
							  ctx.relid, ctx.relation);
	/* before the charge: at most dpobj.max_runs_per_role (ends at SPI_finish) */
	dpobj_run_enter();
	train_composition_notice(&ctx, comp_from, comp_to);
	result = seal_run(&ctx, &query, owner, &ledger_id,
					  deadline_release_at(start, owner_floor, deadline));
	SPI_finish();
	/* a model records its encoding: public by declaration */
	if (encoding != NULL && !evaluating)
		result = encoding_attach(result, encoding);
	/* the model catalog: the released model and public parameters */
	if (req->model_name != NULL)
		models_store(ctx.analyst, req->model_name, result, false, ctx.relation, ledger_id);
	return result;
}

/*
 * train()'s and submit()'s arguments (rel, mechanism, features, label,
 * epsilon, delta, options[, model_name]) as a request: none NULL but the
 * model name.  In the caller's memory context: SPI_finish() frees what
 * SPI's holds.
 */
static void
train_request_of(FunctionCallInfo fcinfo, DPRunRequest *req)
{
	dpobj_verify_schema();
	dp_check_not_null(fcinfo, 7, "dpobj.train");
	memset(req, 0, sizeof(*req));
	req->relid = PG_GETARG_OID(0);
	req->mechanism = text_to_cstring(PG_GETARG_TEXT_PP(1));
	req->columns = PG_GETARG_ARRAYTYPE_P(2);
	req->label = text_to_cstring(PG_GETARG_TEXT_PP(3));
	req->epsilon = PG_GETARG_NUMERIC(4);
	req->delta = PG_GETARG_NUMERIC(5);
	req->options = PG_GETARG_JSONB_P(6);
	if (PG_NARGS() > 7 && !PG_ARGISNULL(7))
		req->model_name = text_to_cstring(PG_GETARG_TEXT_PP(7));
}

/*
 * A run of req (or, fcinfo not NULL, of train()'s arguments), a key's cast
 * check unlocked at the end.  A run (not validate_only) has its buffer and
 * WAL usage put back out of the backend's running totals, whatever the
 * outcome: EXPLAIN (ANALYZE, BUFFERS) of the calling statement and
 * pg_stat_statements read them.  The sealed query's temporary blocks count
 * the distinct rows or units of a spilled state or unit bounding; the rest
 * varies with the caches' state only, which autovacuum and the ledger's own
 * writes change.  The caller sees none.
 */
static Datum
train_call(FunctionCallInfo fcinfo, const DPRunRequest *req, bool validate_only)
{
	BufferUsage bufusage = pgBufferUsage;
	WalUsage	walusage = pgWalUsage;
	volatile Datum result = (Datum) 0;

	PG_TRY();
	{
		DPRunRequest args;

		if (fcinfo != NULL)
			train_request_of(fcinfo, &args);
		result = train_run(fcinfo != NULL ? &args : req, validate_only);
	}
	PG_FINALLY();
	{
		if (!validate_only)
		{
			pgBufferUsage = bufusage;
			pgWalUsage = walusage;
		}
		/* a key's cast check locked pg_cast until its query was planned, at most this call */
		train_query_unlock_casts();
	}
	PG_END_TRY();
	return result;
}

Datum
dpobj_train(PG_FUNCTION_ARGS)
{
	return train_call(fcinfo, NULL, false);
}

void
dpobj_train_validate(FunctionCallInfo fcinfo)
{
	(void) train_call(fcinfo, NULL, true);
}

/* dp_sealed_run() and dp_sealed_check() (sealedrun.h) */
static Datum
train_sealed(const DPRunRequest *req, bool validate_only)
{
	return train_call(NULL, req, validate_only);
}

void
train_init(void)
{
	dp_sealed_install(train_sealed);
}
