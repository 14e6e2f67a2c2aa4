/*-------------------------------------------------------------------------
 *
 * registry.c
 *	  The mechanism registry (registry.h) and what is read from it: the
 *	  name a run charges under and its privacy cost (mechanism.h), and
 *	  dpobj.mechanisms(), the names train() accepts.
 *
 * Adding a mechanism: its family's files (src/families/<f>/: state with its
 * option table, DPOptionSpec; final function running mechanism_drive(); its
 * check_args declared in the family's header), its aggregate in the SQL
 * script, its tests (a line in the neighbour harness and in the audit,
 * which tests/docs checks) and docs, and its entries in dp_mechanisms[]
 * below (a new family: its header's entries, at the two marked places):
 * train()'s hints list it, its model_kind tells the model layer how its
 * models predict, and with auto_pick 'auto' may choose it (a GLM_AUTO_* bit
 * and name in glmparams.h, its training in glmauto.c) (docs/ARCHITECTURE.md,
 * "Families").
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "mechanisms/registry.h"
#include "ledger/accountant.h"
#include "base/calibsql.h"
#include "base/options.h"
#include "mechanisms/mechanism.h"
/* the moved families' faces (a new family: its header here) */
#include "families/evaluate/evaluate.h"
#include "families/glm/glm.h"
#include "families/halfspace/halfspace.h"
#include "families/linear/linear.h"
#include "families/statistics/statistics.h"
#include "families/synth/synth.h"

PG_FUNCTION_INFO_V1(dpobj_mechanisms);

static const DPMechanism dp_mechanisms[] = {
	/* OPDisc, RSPM, the exponential mechanism (families/halfspace/) */
	HALFSPACE_FAMILY_MECHANISMS,
	/* dp_logistic, dp_noisysgd, dp_ebm, 'auto' and OPSamp (families/glm/) */
	GLM_FAMILY_MECHANISMS,
	/* linear regression and passglm on the moments' state (families/linear/) */
	LINEAR_FAMILY_MECHANISMS,
	/* their one-vs-rest multi-class forms (families/glm/) */
	GLM_FAMILY_MULTICLASS_MECHANISMS,
	/* Private evaluation, through dpobj.evaluate() only (families/evaluate/) */
	EVALUATE_FAMILY_MECHANISMS,
	/* private statistics, plain and by keys (families/statistics/) */
	STATISTICS_FAMILY_MECHANISMS,
	/* a private synthetic copy, through dpobj.synthesize() only (families/synth/) */
	SYNTH_FAMILY_MECHANISMS,
	/* a new family: its entries here */
};

/* names as "a, b and c" (sep ", " and last " and ") or "a, b, c" (both ", ") */
static void
mechanism_append_list(StringInfo buf, const char *const *names, int n, const char *last)
{
	for (int i = 0; i < n; i++)
		appendStringInfo(buf, "%s%s", i == 0 ? "" : i == n - 1 ? last : ", ", names[i]);
}

/* one descriptor in the hint: its name, its methods, or what it chooses among */
static void
mechanism_hint_entry(StringInfo buf, const DPMechanism *mech)
{
	const char *names[lengthof(dp_mechanisms)];
	int			n = 0;

	appendStringInfoString(buf, mech->name);
	if (mech->methods != NULL)
	{
		while (mech->methods[n] != NULL)
			n++;
		appendStringInfoString(buf, " (or its methods ");
		mechanism_append_list(buf, mech->methods, n, ", ");
		appendStringInfoChar(buf, ')');
	}
	if (!mech->chooses)
		return;
	n = 0;
	for (int i = 0; i < lengthof(dp_mechanisms); i++)
		if (dp_mechanisms[i].auto_pick != NULL)
			names[n++] = dp_mechanisms[i].name;
	appendStringInfoString(buf, " (private choice among ");
	mechanism_append_list(buf, names, n, " and ");
	appendStringInfoChar(buf, ')');
}

/* "Available mechanisms: ...": every name train() accepts, in registry order */
static char *
mechanism_hint(void)
{
	StringInfoData buf;
	bool		first = true;

	initStringInfo(&buf);
	appendStringInfoString(&buf, "Available mechanisms: ");
	for (int i = 0; i < lengthof(dp_mechanisms); i++)
	{
		if (dp_mechanisms[i].evaluate_only)
			continue;
		if (!first)
			appendStringInfoString(&buf, ", ");
		mechanism_hint_entry(&buf, &dp_mechanisms[i]);
		first = false;
	}
	appendStringInfoChar(&buf, '.');
	return buf.data;
}

/* the other entry points: "evaluate (dpobj.evaluate()), aggregate and describe (...), ..." */
static void
mechanism_append_others(StringInfo buf)
{
	bool		first = true;

	for (int i = 0; i < lengthof(dp_mechanisms); i++)
	{
		const DPMechanism *mech = &dp_mechanisms[i];
		int			n = 0;

		if (!mech->evaluate_only)
			continue;
		appendStringInfo(buf, "%s%s", first ? "" : ", ", mech->name);
		while (mech->also != NULL && mech->also[n] != NULL)
			n++;
		for (int j = 0; j < n; j++)
			appendStringInfo(buf, "%s%s", j == n - 1 ? " and " : ", ", mech->also[j]);
		appendStringInfo(buf, " (%s)", mech->entry);
		first = false;
	}
}

/* cost()'s and runs_left()'s hint: train()'s names, then the other entry points' */
static char *
mechanism_entry_hint(void)
{
	StringInfoData buf;
	char	   *train = mechanism_hint();

	initStringInfo(&buf);
	/* "Available mechanisms: a, b." without its period */
	appendBinaryStringInfo(&buf, train, strlen(train) - 1);
	appendStringInfoString(&buf, "; and through their own functions: ");
	mechanism_append_others(&buf);
	appendStringInfoChar(&buf, '.');
	return buf.data;
}

/* the descriptor of name, train()'s or another entry point's (describe); NULL if none */
static const DPMechanism *
mechanism_find(const char *name, const char **method)
{
	*method = NULL;
	for (int i = 0; i < lengthof(dp_mechanisms); i++)
		for (const char *const *m = dp_mechanisms[i].methods; m != NULL && *m != NULL; m++)
			if (strcmp(*m, name) == 0)
			{
				*method = *m;
				return &dp_mechanisms[i];
			}
	for (int i = 0; i < lengthof(dp_mechanisms); i++)
		if (strcmp(dp_mechanisms[i].name, name) == 0)
			return &dp_mechanisms[i];
	for (int i = 0; i < lengthof(dp_mechanisms); i++)
		for (const char *const *a = dp_mechanisms[i].also; a != NULL && *a != NULL; a++)
			if (strcmp(*a, name) == 0)
				return &dp_mechanisms[i];
	return NULL;
}

const DPMechanism *
mechanism_lookup_entry(const char *name, const char **method)
{
	const DPMechanism *mech = mechanism_find(name, method);

	if (mech == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown mechanism \"%s\"", name),
				 errhint("%s", mechanism_entry_hint())));
	return mech;
}

/* one entry point charged as ledger name i of mech: "noisysgd with "tune"", "output", ... */
static void
mechanism_append_entry(StringInfo buf, const DPMechanism *mech, int i, bool *first)
{
	appendStringInfoString(buf, *first ? "" : ", ");
	*first = false;
	if (i > 0 && mech->methods != NULL && mech->methods[i] != NULL)
		appendStringInfoString(buf, mech->methods[i]);
	else if (mech->ledger[i].option != NULL)
		appendStringInfo(buf, "%s with %s", mech->name, mech->ledger[i].option);
	else
		appendStringInfoString(buf, mech->name);
	for (const char *const *a = mech->also; i == 0 && a != NULL && *a != NULL; a++)
		appendStringInfo(buf, ", %s", *a);
}

char *
mechanism_kind_entries(LedgerCostKind kind)
{
	StringInfoData buf;
	bool		first = true;

	initStringInfo(&buf);
	for (int i = 0; i < lengthof(dp_mechanisms); i++)
		for (int j = 0; dp_mechanisms[i].ledger[j].name != NULL; j++)
			if (dp_mechanisms[i].ledger[j].cost == kind)
				mechanism_append_entry(&buf, &dp_mechanisms[i], j, &first);
	return buf.data;
}

/*
 * One entry in the list of runs that need no delta: its name when its
 * default ledger name is not approx, else the methods that are not (an
 * entry with methods charges its i-th method under its i-th ledger name).
 */
static void
mechanism_zcdp_entry(StringInfo buf, const DPMechanism *mech, bool *first)
{
	const char *names[8];
	int			n = 0;

	if (mech->ledger[0].cost != LEDGER_COST_APPROX)
	{
		appendStringInfo(buf, "%s%s", *first ? "" : ", ", mech->name);
		*first = false;
		return;
	}
	for (int i = 0; mech->methods != NULL && mech->methods[i] != NULL && n < lengthof(names); i++)
		if (mech->ledger[i].name != NULL && mech->ledger[i].cost != LEDGER_COST_APPROX)
			names[n++] = psprintf("\"%s\"", mech->methods[i]);
	if (n == 0)
		return;
	appendStringInfo(buf, "%s%s with \"method\": ", *first ? "" : ", ", mech->name);
	mechanism_append_list(buf, names, n, " or ");
	*first = false;
}

char *
mechanism_zcdp_names(void)
{
	StringInfoData buf;
	bool		first = true;

	initStringInfo(&buf);
	for (int i = 0; i < lengthof(dp_mechanisms); i++)
		mechanism_zcdp_entry(&buf, &dp_mechanisms[i], &first);
	return buf.data;
}

const DPMechanism *
mechanism_lookup(const char *name, const char **method)
{
	const DPMechanism *mech = mechanism_find(name, method);

	if (mech == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown mechanism \"%s\"", name),
				 errhint("%s", mechanism_hint())));
	return mech;
}

void
mechanism_register_model_kinds(void)
{
	for (int i = 0; i < lengthof(dp_mechanisms); i++)
		for (const DPLedgerKind *k = dp_mechanisms[i].ledger; k->name != NULL; k++)
			model_kind_register(k->name, dp_mechanisms[i].model_kind);
}

const DPAutoPick *
mechanism_auto_pick(int bit)
{
	for (int i = 0; i < lengthof(dp_mechanisms); i++)
		for (const DPAutoPick *a = dp_mechanisms[i].auto_pick; a != NULL && a->bit != 0; a++)
			if (a->bit == bit)
				return a;
	elog(ERROR, "no mechanism in the registry is the auto candidate %d", bit);
	return NULL;				/* keep compiler quiet */
}

/* the cost form of a ledger name; a name no descriptor lists is approx */
static LedgerCostKind
mechanism_cost_kind(const char *mechanism)
{
	for (int i = 0; i < lengthof(dp_mechanisms); i++)
		for (const DPLedgerKind *k = dp_mechanisms[i].ledger; k->name != NULL; k++)
			if (strcmp(k->name, mechanism) == 0)
				return k->cost;
	return LEDGER_COST_APPROX;
}

void
mechanism_cost(const char *mechanism, double epsilon, double delta, LedgerCost *cost)
{
	memset(cost, 0, sizeof(*cost));
	cost->kind = mechanism_cost_kind(mechanism);
	/* delta 0 reaches here only for an epsilon-DP mechanism (delta_zero): never charged as other */
	if (delta == 0.0 && cost->kind != LEDGER_COST_PURE)
		elog(ERROR, "dpobj: mechanism %s is not epsilon-DP but was given delta 0", mechanism);
	/*
	 * gauss: the very rho the mechanism calibrates to (one-vs-rest: rho / K
	 * per class); every release of these is a snapped discrete Gaussian
	 */
	if (!account_run_rho(cost->kind, epsilon, delta, cost->rho, sizeof(cost->rho)))
		account_decimal_up(dpobj_zcdp_rho_checked(mechanism, epsilon, delta),
						   cost->rho, sizeof(cost->rho));	/* its error */
}

void
mechanism_cost_private_r(LedgerCost *cost)
{
	/* the norm bound's exponential mechanism is bounded range, not Gaussian */
	if (cost->kind == LEDGER_COST_GAUSS)
		cost->kind = LEDGER_COST_ZCDP;
}

bool
mechanism_options_private_r(Jsonb *options)
{
	const char *R = dp_options_string(options, "R");

	return R != NULL && strcmp(R, "private") == 0;
}

void
mechanism_run_cost(const char *train_mechanism, Jsonb *options, double epsilon,
				   double delta, LedgerCost *cost)
{
	mechanism_cost(mechanism_ledger_name(train_mechanism, options), epsilon, delta, cost);
	if (mechanism_options_private_r(options))
		mechanism_cost_private_r(cost);
}

const char *
mechanism_ledger_name(const char *train_mechanism, Jsonb *options)
{
	const char *method;
	const DPMechanism *mech = mechanism_lookup(train_mechanism, &method);

	return mech->ledger[mech->ledger_pick ? mech->ledger_pick(options) : 0].name;
}

/* a NULL-ended list of names as text[] */
static ArrayType *
mechanism_names_array(const char *const *names)
{
	int			n = 0;
	Datum	   *elems;

	while (names[n] != NULL)
		n++;
	elems = palloc(sizeof(Datum) * n);
	for (int i = 0; i < n; i++)
		elems[i] = CStringGetTextDatum(names[i]);
	return construct_array(elems, n, TEXTOID, -1, false, TYPALIGN_INT);
}

/*
 * dpobj.mechanisms(): every mechanism train() accepts, in registry order
 * (the order of its hint), with the methods it also accepts by name
 */
Datum
dpobj_mechanisms(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsi = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < lengthof(dp_mechanisms); i++)
	{
		const DPMechanism *mech = &dp_mechanisms[i];
		Datum		v[2] = {CStringGetTextDatum(mech->name), (Datum) 0};
		bool		isnull[2] = {false, mech->methods == NULL};

		if (mech->evaluate_only)
			continue;
		if (mech->methods != NULL)
			v[1] = PointerGetDatum(mechanism_names_array(mech->methods));
		tuplestore_putvalues(rsi->setResult, rsi->setDesc, v, isnull);
	}
	return (Datum) 0;
}
