/*-------------------------------------------------------------------------
 *
 * registry.c
 *	  The registry above the families (registry.h): the list of their
 *	  descriptors (DPFamily, mechanisms/family.h) and what is read from it:
 *	  train()'s names and hints, the name a run charges under, and
 *	  dpobj.mechanisms().  It includes no family's header.
 *
 * Adding a family: its folder (src/families/<f>/: state with its option
 * table, final function running mechanism_drive(), its entries and
 * const DPFamily <f>_family in <f>.c), its SQL objects in
 * sql/families/<f>.sql, its tests (its harness lines in
 * tests/families/<f>.txt, which tests/docs checks) and docs, and X(<f>) in DP_FAMILIES below.  An entry's
 * model_kind tells the model layer how its models predict; with auto_pick
 * 'auto' may choose it (docs/ARCHITECTURE.md, "Families").
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "families/registry.h"

PG_FUNCTION_INFO_V1(dpobj_mechanisms);

/*
 * The families, in the registry's order: each defines const DPFamily
 * <f>_family in its <f>.c (a new family: X(<f>) at the marked place)
 */
#define DP_FAMILIES(X) X(halfspace) X(glm) X(ebm) X(linear) X(evaluate) X(statistics) X(synth) X(gbdt) /* a new family: X(<f>) */

#define DP_FAMILY_EXTERN(f) extern const DPFamily f##_family;
#define DP_FAMILY_ENTRY(f) &f##_family,
DP_FAMILIES(DP_FAMILY_EXTERN)
static const DPFamily *const dp_families[] = {DP_FAMILIES(DP_FAMILY_ENTRY)};

/*
 * Every entry, as registry_init() orders them: train()'s two-class and
 * regression mechanisms, then those for a class label, then the other
 * entry points', each in family order; the family of each
 */
static const DPMechanism **dp_mechanisms;
static const DPFamily **dp_family_of;
static int	dp_nmechanisms;

static int
registry_rank(const DPMechanism *mech)
{
	return mech->evaluate_only ? 2 : mech->label_kind == TRAIN_LABEL_CLASS ? 1 : 0;
}

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
	const char **names = palloc(sizeof(char *) * dp_nmechanisms);
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
	for (int i = 0; i < dp_nmechanisms; i++)
		if (dp_mechanisms[i]->auto_pick != NULL)
			names[n++] = dp_mechanisms[i]->name;
	appendStringInfoString(buf, " (a private choice; \"candidates\" among ");
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
	for (int i = 0; i < dp_nmechanisms; i++)
	{
		if (dp_mechanisms[i]->evaluate_only)
			continue;
		if (!first)
			appendStringInfoString(&buf, ", ");
		mechanism_hint_entry(&buf, dp_mechanisms[i]);
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

	for (int i = 0; i < dp_nmechanisms; i++)
	{
		const DPMechanism *mech = dp_mechanisms[i];
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
	for (int i = 0; i < dp_nmechanisms; i++)
		for (const char *const *m = dp_mechanisms[i]->methods; m != NULL && *m != NULL; m++)
			if (strcmp(*m, name) == 0)
			{
				*method = *m;
				return dp_mechanisms[i];
			}
	for (int i = 0; i < dp_nmechanisms; i++)
		if (strcmp(dp_mechanisms[i]->name, name) == 0)
			return dp_mechanisms[i];
	for (int i = 0; i < dp_nmechanisms; i++)
		for (const char *const *a = dp_mechanisms[i]->also; a != NULL && *a != NULL; a++)
			if (strcmp(*a, name) == 0)
				return dp_mechanisms[i];
	return NULL;
}

/* the descriptor of name; unknown: an error whose hint lists hint()'s names */
static const DPMechanism *
mechanism_find_or_raise(const char *name, const char **method, char *(*hint) (void))
{
	const DPMechanism *mech = mechanism_find(name, method);

	if (mech == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown mechanism \"%s\"", name),
				 errhint("%s", hint())));
	return mech;
}

const DPMechanism *
mechanism_lookup_entry(const char *name, const char **method)
{
	return mechanism_find_or_raise(name, method, mechanism_entry_hint);
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
	for (int i = 0; i < dp_nmechanisms; i++)
		for (int j = 0; dp_mechanisms[i]->ledger[j].name != NULL; j++)
		{
			const DPMechanism *mech = dp_mechanisms[i];

			if (mech->ledger[j].cost == kind)
				mechanism_append_entry(&buf, mech, j, &first);
			/* a gauss run made zcdp by an option ("R": "private") */
			else if (kind == LEDGER_COST_ZCDP && mech->ledger[j].cost == LEDGER_COST_GAUSS &&
					 mech->zcdp_option != NULL)
			{
				mechanism_append_entry(&buf, mech, j, &first);
				appendStringInfo(&buf, " with %s", mech->zcdp_option);
			}
		}
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
	for (int i = 0; i < dp_nmechanisms; i++)
		mechanism_zcdp_entry(&buf, dp_mechanisms[i], &first);
	return buf.data;
}

/*
 * An entry listed after a mechanism of an earlier family moves to just
 * after it (ebm after noisysgd: the order hints and mechanisms() show)
 */
static void
registry_place_after(void)
{
	for (int i = 0; i < dp_nmechanisms; i++)
	{
		const DPMechanism *mech = dp_mechanisms[i];
		const DPFamily *fam = dp_family_of[i];
		int			at = -1;

		for (int j = 0; mech->listed_after != NULL && j < i; j++)
			if (strcmp(dp_mechanisms[j]->name, mech->listed_after) == 0)
				at = j;
		if (mech->listed_after == NULL)
			continue;
		if (at < 0)
			elog(ERROR, "mechanism %s is listed after %s, no earlier mechanism",
				 mech->name, mech->listed_after);
		memmove(&dp_mechanisms[at + 2], &dp_mechanisms[at + 1],
				sizeof(DPMechanism *) * (i - at - 1));
		memmove(&dp_family_of[at + 2], &dp_family_of[at + 1], sizeof(DPFamily *) * (i - at - 1));
		dp_mechanisms[at + 1] = mech;
		dp_family_of[at + 1] = fam;
	}
}

/*
 * _PG_init: the list in its order, the families' model kinds and those of
 * their ledger names copied down to the model layer (kinds.h), the list to
 * the floors (family.h: the cost of a ledger name, auto's candidates)
 */
void
registry_init(void)
{
	int			cap = 0;

	for (int f = 0; f < lengthof(dp_families); f++)
		cap += dp_families[f]->n_mechanisms;
	dp_mechanisms = MemoryContextAlloc(TopMemoryContext, sizeof(DPMechanism *) * cap);
	dp_family_of = MemoryContextAlloc(TopMemoryContext, sizeof(DPFamily *) * cap);
	for (int f = 0; f < lengthof(dp_families); f++)
		model_kind_add(dp_families[f]->model_kind);
	for (int rank = 0; rank < 3; rank++)
		for (int f = 0; f < lengthof(dp_families); f++)
			for (int i = 0; i < dp_families[f]->n_mechanisms; i++)
				if (registry_rank(&dp_families[f]->mechanisms[i]) == rank)
				{
					dp_family_of[dp_nmechanisms] = dp_families[f];
					dp_mechanisms[dp_nmechanisms++] = &dp_families[f]->mechanisms[i];
				}
	registry_place_after();
	for (int i = 0; i < dp_nmechanisms; i++)
		for (const DPLedgerKind *k = dp_mechanisms[i]->ledger; k->name != NULL; k++)
			model_kind_register(k->name, dp_mechanisms[i]->model_kind);
	family_register_mechanisms(dp_mechanisms, dp_nmechanisms);
}

const DPFamily *
mechanism_family(const DPMechanism *mech)
{
	for (int i = 0; i < dp_nmechanisms; i++)
		if (dp_mechanisms[i] == mech)
			return dp_family_of[i];
	elog(ERROR, "mechanism %s is in no family of the registry", mech->name);
	return NULL;				/* keep compiler quiet */
}

const DPMechanism *
mechanism_lookup(const char *name, const char **method)
{
	return mechanism_find_or_raise(name, method, mechanism_hint);
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
	for (int i = 0; i < dp_nmechanisms; i++)
	{
		const DPMechanism *mech = dp_mechanisms[i];
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
