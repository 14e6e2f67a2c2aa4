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
 * then reserve_share and basic_share, read only.  The basic filter's
 * columns (from 0.5.0) read as "none" when NULL (a row built by hand).
 */
static const char *const budget_cols[] = {
	"granted_epsilon", "granted_delta", "spent_epsilon", "spent_delta", "spent_rho",
	"reserve_delta", "spent_rdp", "spent_reserve_delta", "filter_order", "gaussian_only",
	"gaussian_split", "basic_epsilon", "basic_delta", "basic_retired", "filter_refused",
	"reserve_share", "basic_share"
};

#define BUDGET_FIRST_WRITTEN	2
#define BUDGET_ORDER		8
#define BUDGET_FIRST_BASIC	11
#define BUDGET_WRITTEN		15
#define BUDGET_NCOLS		17

StaticAssertDecl(BUDGET_WRITTEN - BUDGET_FIRST_WRITTEN == ACCOUNT_WRITTEN_COLS,
				 "the debit writes ACCOUNT_WRITTEN_COLS columns");
StaticAssertDecl(lengthof(budget_cols) == BUDGET_NCOLS, "one entry per column");

/* column i's field: a numeric (*num) or a boolean (*flag); neither for the order */
static void
budget_col_ref(AccountBudget *b, int i, Numeric **num, bool **flag)
{
	Numeric    *nums[BUDGET_NCOLS] = {&b->granted_e, &b->granted_d, &b->spent_e, &b->spent_d,
		&b->spent_rho, &b->reserve_d, &b->spent_rdp, &b->spent_reserve_d, NULL, NULL, NULL,
		&b->basic_e, &b->basic_d, NULL, NULL, &b->reserve_share, &b->basic_share};
	bool	   *flags[BUDGET_NCOLS] = {[9] = &b->gaussian_only, [10] = &b->split,
	[13] = &b->basic_retired, [14] = &b->cur_refused};

	*num = nums[i];
	*flag = flags[i];
}

/* the basic filter's columns: NULL or absent (a row built by hand, an update under way) is none */
static bool
budget_col_basic(int i)
{
	return i >= BUDGET_FIRST_BASIC && i != BUDGET_WRITTEN;
}

/* column name's attribute number in td, 0 if it has none */
static int
budget_attnum(TupleDesc td, const char *name)
{
	for (int a = 0; a < td->natts; a++)
		if (!TupleDescAttr(td, a)->attisdropped &&
			strcmp(NameStr(TupleDescAttr(td, a)->attname), name) == 0)
			return a + 1;
	return 0;
}

bool
account_budget_of_row(HeapTupleHeader row, AccountBudget *b)
{
	TupleDesc	td = lookup_rowtype_tupdesc(HeapTupleHeaderGetTypeId(row),
											HeapTupleHeaderGetTypMod(row));
	bool		ok = true;

	b->full_d = NULL;
	for (int i = 0; i < BUDGET_NCOLS && ok; i++)
	{
		Numeric    *num;
		bool	   *flag;
		int			att = budget_attnum(td, budget_cols[i]);
		bool		isnull = true;
		Datum		v = (Datum) 0;

		budget_col_ref(b, i, &num, &flag);
		if (att == 0 && !budget_col_basic(i))
			elog(ERROR, "dpobj.budgets has no column %s", budget_cols[i]);
		if (att != 0)
			v = GetAttributeByNum(row, att, &isnull);
		if (i == BUDGET_ORDER)
			b->order = isnull ? 0.0 : DatumGetFloat8(v);
		else if (isnull && !budget_col_basic(i))
			ok = false;
		else if (flag != NULL)
			*flag = !isnull && DatumGetBool(v);
		else
			*num = isnull ? int64_to_numeric(0) : DatumGetNumeric(v);
	}
	ReleaseTupleDesc(td);
	return ok;
}

/* column i's value in the state (i < BUDGET_WRITTEN); *isnull for no order */
static Datum
budget_col_value(const AccountBudget *b, int i, bool *isnull)
{
	Numeric    *num;
	bool	   *flag;

	budget_col_ref((AccountBudget *) b, i, &num, &flag);
	*isnull = i == BUDGET_ORDER && !(b->order > 1.0);
	if (i == BUDGET_ORDER)
		return Float8GetDatum(b->order);
	return flag != NULL ? BoolGetDatum(*flag) : NumericGetDatum(*num);
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
	int			n = 0;

	for (int i = 0; i < BUDGET_WRITTEN; i++)
	{
		cols[n] = budget_attnum(td, budget_cols[i]);
		if (cols[n] == 0 && budget_col_basic(i))
			continue;
		if (cols[n] == 0)
			elog(ERROR, "dpobj.budgets has no column %s", budget_cols[i]);
		values[n] = budget_col_value(b, i, &nulls[n]);
		n++;
	}
	tup.t_len = HeapTupleHeaderGetDatumLength(row);
	ItemPointerSetInvalid(&tup.t_self);
	tup.t_tableOid = InvalidOid;
	tup.t_data = row;
	out = heap_modify_tuple_by_cols(&tup, td, n, cols, values, nulls);
	ReleaseTupleDesc(td);
	return HeapTupleGetDatum(out);
}
