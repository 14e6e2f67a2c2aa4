/*-------------------------------------------------------------------------
 *
 * budgetrow.c
 *	  A dpobj.budgets row as the accountant's state (accountant.h) and back:
 *	  what the SQL functions over a row read and return, and the values the
 *	  ledger writer's debit writes.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "ledger/accountant.h"

#include "access/htup_details.h"
#include "executor/executor.h"
#include "funcapi.h"
#include "utils/typcache.h"

/*
 * The columns of a dpobj.budgets row the accountant reads and writes: the
 * grant, then the ACCOUNT_WRITTEN_COLS a debit writes (in their order),
 * then reserve_share, read only
 */
static const char *const budget_cols[] = {
	"granted_epsilon", "granted_delta", "spent_epsilon", "spent_delta", "spent_rho",
	"reserve_delta", "spent_rdp", "spent_reserve_delta", "filter_order", "gaussian_only",
	"gaussian_split", "reserve_share"
};

/*
 * budget_cols[0 .. BUDGET_NUMERIC_OUT - 1] are the numeric ones a row gets
 * back, then filter_order, gaussian_only and gaussian_split
 */
#define BUDGET_FIRST_WRITTEN	2
#define BUDGET_NUMERIC_OUT	8
#define BUDGET_ORDER		8
#define BUDGET_GAUSSIAN		9
#define BUDGET_SPLIT		10
#define BUDGET_WRITTEN		11

StaticAssertDecl(BUDGET_WRITTEN - BUDGET_FIRST_WRITTEN == ACCOUNT_WRITTEN_COLS,
				 "the debit writes ACCOUNT_WRITTEN_COLS columns");

static Numeric *
budget_col_ref(AccountBudget *b, int i)
{
	Numeric    *refs[12] = {&b->granted_e, &b->granted_d, &b->spent_e, &b->spent_d,
		&b->spent_rho, &b->reserve_d, &b->spent_rdp, &b->spent_reserve_d, NULL, NULL, NULL,
	&b->reserve_share};

	return refs[i];
}

bool
account_budget_of_row(HeapTupleHeader row, AccountBudget *b)
{
	bool		isnull;
	Datum		v;

	for (int i = 0; i < lengthof(budget_cols); i++)
	{
		v = GetAttributeByName(row, budget_cols[i], &isnull);
		if (i == BUDGET_ORDER)
			b->order = isnull ? 0.0 : DatumGetFloat8(v);
		else if (isnull)
			return false;
		else if (i == BUDGET_GAUSSIAN)
			b->gaussian_only = DatumGetBool(v);
		else if (i == BUDGET_SPLIT)
			b->split = DatumGetBool(v);
		else
			*budget_col_ref(b, i) = DatumGetNumeric(v);
	}
	return true;
}

/* column i's value in the state (i < BUDGET_WRITTEN); *isnull for no order */
static Datum
budget_col_value(const AccountBudget *b, int i, bool *isnull)
{
	*isnull = i == BUDGET_ORDER && !(b->order > 1.0);
	if (i < BUDGET_NUMERIC_OUT)
		return NumericGetDatum(*budget_col_ref((AccountBudget *) b, i));
	if (i == BUDGET_ORDER)
		return Float8GetDatum(b->order);
	return BoolGetDatum(i == BUDGET_GAUSSIAN ? b->gaussian_only : b->split);
}

void
account_budget_written(const AccountBudget *b, Datum *values, char *nulls)
{
	for (int i = BUDGET_FIRST_WRITTEN; i < BUDGET_WRITTEN; i++)
	{
		bool		isnull;

		values[i - BUDGET_FIRST_WRITTEN] = budget_col_value(b, i, &isnull);
		nulls[i - BUDGET_FIRST_WRITTEN] = isnull ? 'n' : ' ';
	}
}

Datum
account_budget_to_row(HeapTupleHeader row, const AccountBudget *b)
{
	TupleDesc	td = lookup_rowtype_tupdesc(HeapTupleHeaderGetTypeId(row),
											HeapTupleHeaderGetTypMod(row));
	HeapTupleData tup;
	int			cols[BUDGET_WRITTEN];
	Datum		values[BUDGET_WRITTEN];
	bool		nulls[BUDGET_WRITTEN] = {false};
	HeapTuple	out;

	for (int i = 0; i < BUDGET_WRITTEN; i++)
	{
		cols[i] = 0;
		for (int a = 0; a < td->natts && cols[i] == 0; a++)
			if (strcmp(NameStr(TupleDescAttr(td, a)->attname), budget_cols[i]) == 0)
				cols[i] = a + 1;
		if (cols[i] == 0)
			elog(ERROR, "dpobj.budgets has no column %s", budget_cols[i]);
		values[i] = budget_col_value(b, i, &nulls[i]);
	}
	tup.t_len = HeapTupleHeaderGetDatumLength(row);
	ItemPointerSetInvalid(&tup.t_self);
	tup.t_tableOid = InvalidOid;
	tup.t_data = row;
	out = heap_modify_tuple_by_cols(&tup, td, BUDGET_WRITTEN, cols, values, nulls);
	ReleaseTupleDesc(td);
	return HeapTupleGetDatum(out);
}
