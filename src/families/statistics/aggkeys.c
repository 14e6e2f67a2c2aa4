/*-------------------------------------------------------------------------
 *
 * aggkeys.c
 *	  dpobj.aggregate() grouped by a column without declared levels
 *	  (docs/PRIVACY.md "Private key selection"):
 *
 *	  dpobj.dp_aggregate_keys(features, key text, epsilon, delta, options)
 *	      RETURNS jsonb; options {"layout": ...} as dp_aggregate's
 *	      (aggregate.h, no group_by) with "max_keys"
 *
 *	  The transition function puts each row's encoded features with its key
 *	  (its first AGGKEYS_KEY_BYTES bytes) into a sort that spills past
 *	  work_mem, so that memory follows neither rows nor keys.  After the
 *	  charge, the final function reads the rows in key order (bytes, C
 *	  collation), sums each key's slots (agg_row_add) and adds their noise
 *	  as a declared cell's; the key is released
 *	  iff its selection count (the first "count" of the layout) reaches the
 *	  threshold T of keysel.h, for k rows per unit touching at most k keys
 *	  and delta / (1 + e^(epsilon / 2)).  At most "max_keys" released keys
 *	  in key order (post-processing).
 *	  Charged once as "aggregate_keys" (approx).
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpobj.h"

#include <math.h>

#include "access/tupdesc.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "executor/tuptable.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/tuplesort.h"

#include "base/options.h"
#include "core/calibrate.h"
#include "core/dpnoise.h"
#include "core/keysel.h"
#include "families/statistics/aggregate.h"
#include "families/statistics/statisticsstate.h"
#include "mechanisms/mechanism.h"
#include "state/rowinput.h"

PG_FUNCTION_INFO_V1(dpobj_aggregate_keys_transfn);
PG_FUNCTION_INFO_V1(dpobj_aggregate_keys_finalfn);

/* the transition state: the layout, the run's parameters and the sort */
typedef struct AggKeys
{
	AggLayout  *l;
	double		eps;
	double		delta;
	int			k;
	int			d;
	int			max_keys;
	TupleDesc	desc;			/* (key text, features bytea) */
	TupleTableSlot *slot;
	Tuplesortstate *sort;		/* NULL: no row */
} AggKeys;

/* the selection count: the first "count" of the layout, -1 if none */
static int
aggkeys_selection(const AggLayout *l)
{
	for (int i = 0; i < l->nstats; i++)
		if (l->stats[i].kind == AGG_COUNT)
			return l->stats[i].slot;
	return -1;
}

/*
 * the layout's "max_keys" (public, set by protected/aggrun.c); by default
 * AGGKEYS_DEFAULT_MAX, or fewer so that keys x width <= AGG_MAX_VALUES
 */
static int
aggkeys_max(Jsonb *options, int width)
{
	JsonbValue *lv = getKeyJsonValueFromContainer(&options->root, "layout", 6, NULL);
	JsonbValue *v = lv && lv->type == jbvBinary ?
		getKeyJsonValueFromContainer(lv->val.binary.data, "max_keys", 8, NULL) : NULL;

	return v ? dp_option_int(v, "max_keys", 1, AGG_MAX_CELLS) :
		Max(1, Min(AGGKEYS_DEFAULT_MAX, AGG_MAX_VALUES / width));
}

/*
 * T for the selection count's noise num / den, or -1: at delta / (1 + e^(eps / 2))
 * (docs/PRIVACY.md, "Private key selection"), in logs
 */
static int64
aggkeys_threshold(uint64 num, uint64 den, int k, double eps, double delta)
{
	double		h = eps / 2;

	return keysel_threshold_log(num, den, k, k, log(delta) - (h + log1p(exp(-h))));
}

void
aggregate_keys_check_args(const char *aggname, double epsilon, double delta, int d,
						  Jsonb *options)
{
	AggLayout  *l;
	int			sel;
	double		share;
	uint64		num,
				den;
	int			k = agg_options_k(options);

	/* the selection's threshold needs delta > 0 (aggregate_check_args allows 0) */
	dp_check_privacy_params(epsilon, delta);
	aggregate_check_args(aggname, epsilon, delta, d, options);
	l = agg_layout_of_options(options);
	sel = aggkeys_selection(l);
	if (sel < 0 || l->ngroups != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the layout needs a \"count\" (the keys' selection) and no \"group_by\"", aggname),
				 errhint("dpobj.aggregate() builds it: a count is added to \"what\" if none, the key is the second argument.")));
	if ((int64) aggkeys_max(options, l->width) * l->width > AGG_MAX_VALUES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: more than %d released values", aggname, AGG_MAX_VALUES),
				 errdetail("\"max_keys\" %d times %d values per key.", aggkeys_max(options, l->width), l->width),
				 errhint("Lower \"max_keys\" or ask for fewer statistics.")));
	(void) agg_slot_kind(l, sel, &share);
	agg_slot_noise(false, dp_epsilon_per_row(epsilon, k) * share, &num, &den);
	if (aggkeys_threshold(num, den, k, epsilon, delta) < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: no key threshold meets this delta", aggname),
				 errhint("Raise delta or epsilon.")));
}

/* ends the sort when the aggregate is shut down (its memory goes with it) */
static void
aggkeys_shutdown(Datum arg)
{
	AggKeys    *st = (AggKeys *) DatumGetPointer(arg);

	if (st->sort != NULL)
		tuplesort_end(st->sort);
	st->sort = NULL;
}

/* a new state in cxt; with_sort: the sort too (rows will come) */
static AggKeys *
aggkeys_state_new(FunctionCallInfo fcinfo, MemoryContext cxt, Jsonb *options, double eps,
				  double delta, int d, bool with_sort)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	AggKeys    *st = palloc0(sizeof(AggKeys));
	AttrNumber	att = 1;
	Oid			op = TextLessOperator,
				coll = C_COLLATION_OID;
	bool		nf = false;

	st->l = agg_layout_of_options(options);
	/* a key's row carries its key, not the mark of a unit's first row */
	for (int i = 0; i < st->l->nstats; i++)
		if (st->l->stats[i].kind == AGG_UNITS)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("%s: \"units\" is not available by keys", AGGKEYS_AGGNAME),
					 errhint("Count distinct units by columns with declared levels.")));
	st->eps = eps;
	st->delta = delta;
	st->k = agg_options_k(options);
	st->d = d;
	st->max_keys = aggkeys_max(options, st->l->width);
	st->desc = CreateTemplateTupleDesc(2);
	TupleDescInitEntry(st->desc, 1, "key", TEXTOID, -1, 0);
	TupleDescInitEntry(st->desc, 2, "features", BYTEAOID, -1, 0);
	st->slot = MakeSingleTupleTableSlot(st->desc, &TTSOpsMinimalTuple);
	if (with_sort)
	{
		st->sort = tuplesort_begin_heap(st->desc, 1, &att, &op, &coll, &nf, work_mem, NULL,
										TUPLESORT_NONE);
		AggRegisterCallback(fcinfo, aggkeys_shutdown, PointerGetDatum(st));
	}
	MemoryContextSwitchTo(old);
	return st;
}

/*
 * a row's key: its first AGGKEYS_KEY_BYTES bytes (whole characters), so that
 * neither the sort's comparisons nor the release grow with a key's length
 */
static text *
aggkeys_key(text *key)
{
	int			len = VARSIZE_ANY_EXHDR(key);

	if (len <= AGGKEYS_KEY_BYTES)
		return key;
	return cstring_to_text_with_len(VARDATA_ANY(key),
									pg_mbcliplen(VARDATA_ANY(key), len, AGGKEYS_KEY_BYTES));
}

Datum
dpobj_aggregate_keys_transfn(PG_FUNCTION_ARGS)
{
	AggKeys    *st = PG_ARGISNULL(0) ? NULL : (AggKeys *) PG_GETARG_POINTER(0);
	Jsonb	   *options = PG_ARGISNULL(5) ? NULL : PG_GETARG_JSONB_P(5);
	DPRowInput	row;
	bytea	   *w;
	const double *x;

	if (!dp_row_read_key(fcinfo, AGGKEYS_AGGNAME, &row))
	{
		if (st == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(st);
	}
	if (st == NULL)
	{
		if (options == NULL)
			(void) agg_layout_of_options(NULL);	/* raises: no layout */
		aggregate_keys_check_args(AGGKEYS_AGGNAME, row.epsilon, row.delta, row.d, options);
		st = aggkeys_state_new(fcinfo, row.aggcontext, options, row.epsilon, row.delta, row.d,
							   true);
	}
	dp_run_check_same(AGGKEYS_AGGNAME, row.epsilon, row.delta, true, row.d,
					  st->eps, st->delta, st->d);
	x = row.values;
	if (!agg_row_no_nan(&row, st->l, x, AGGKEYS_AGGNAME))
		PG_RETURN_POINTER(st);
	/* the row's encoded features (d, not its slots: a quantile has many), per row */
	w = palloc(VARHDRSZ + sizeof(double) * row.d);
	SET_VARSIZE(w, VARHDRSZ + sizeof(double) * row.d);
	memcpy(VARDATA(w), x, sizeof(double) * row.d);
	ExecClearTuple(st->slot);
	/* only the key's head is read: a long (toasted) key costs no more than a short one */
	st->slot->tts_values[0] =
		PointerGetDatum(aggkeys_key(PG_GETARG_TEXT_P_SLICE(2, 0, AGGKEYS_KEY_BYTES + MAX_MULTIBYTE_CHAR_LEN)));
	st->slot->tts_values[1] = PointerGetDatum(w);
	st->slot->tts_isnull[0] = st->slot->tts_isnull[1] = false;
	ExecStoreVirtualTuple(st->slot);
	tuplesort_puttupleslot(st->sort, st->slot);
	PG_RETURN_POINTER(st);
}

/* ---- the release ---- */

typedef struct AggKeysRun
{
	AggKeys    *st;
	int			width;
	int			sel;			/* the selection count's slot */
	int			max_keys;
	int64		T;
	uint64	   *num;			/* per slot: the noise's scale num / den */
	uint64	   *den;
	int			nout;			/* released keys */
	int64	   *out;			/* their noisy values, nout x width */
	StringInfoData keys;		/* their keys, JSON strings */
} AggKeysRun;

static void *
aggkeys_admit(FunctionCallInfo fcinfo, int kind, DPProtectedContext **pctx)
{
	AggKeysRun *r = palloc0(sizeof(AggKeysRun));

	r->st = PG_ARGISNULL(0) ? NULL : (AggKeys *) PG_GETARG_POINTER(0);
	*pctx = r->st ? mechanism_claim(fcinfo, true, r->st->eps, r->st->delta, r->st->d)
		: mechanism_claim(fcinfo, false, 0, 0, 0);
	if (r->st == NULL && *pctx == NULL)
		return NULL;
	if (r->st == NULL)
		r->st = aggkeys_state_new(fcinfo, CurrentMemoryContext, (*pctx)->options,
								  (*pctx)->epsilon_f, (*pctx)->delta_f, 0, false);
	r->max_keys = r->st->max_keys;
	return r;
}

static void
aggkeys_calibrate(DPRun *run)
{
	AggKeysRun *r = run->state;
	AggLayout  *l = r->st->l;

	r->width = l->width;
	r->sel = aggkeys_selection(l);
	r->num = palloc(sizeof(uint64) * r->width);
	r->den = palloc(sizeof(uint64) * r->width);
	for (int i = 0; i < r->width; i++)
	{
		double		share;
		AggSlotKind kind = agg_slot_kind(l, i, &share);

		agg_slot_calibrate(AGGKEYS_AGGNAME, kind, share, r->st->eps, r->st->k, PG_INT32_MAX,
						   &r->num[i], &r->den[i]);
	}
	r->T = r->sel < 0 ? -1 :
		aggkeys_threshold(r->num[r->sel], r->den[r->sel], r->st->k, r->st->eps, r->st->delta);
	if (r->T < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: no key threshold meets this delta", AGGKEYS_AGGNAME),
				 errhint("Raise delta or epsilon.")));
	r->out = palloc(sizeof(int64) * r->max_keys * r->width);
	initStringInfo(&r->keys);
	mechanism_calibrated(run, NULL, "aggregate_keys", r->st->eps, r->st->delta);
}

/* one key's summed slots v: its selection draw, then (released) every slot's noise */
static void
aggkeys_flush(DPRun *run, const char *key, int keylen, const double *v)
{
	AggKeysRun *r = run->state;
	int64	   *o = r->out + (int64) r->nout * r->width;
	int64		noisy;

	if (!keysel_draw(run->rng, (int64) v[r->sel], r->num[r->sel], r->den[r->sel], r->T, &noisy))
		return;
	for (int i = 0; i < r->width; i++)
		o[i] = i == r->sel ? noisy :
			(int64) v[i] + dpnoise_discrete_laplace(run->rng, r->num[i], r->den[i]);
	if (r->nout > 0)
		appendStringInfoString(&r->keys, ", ");
	escape_json(&r->keys, pnstrdup(key, keylen));
	r->nout++;
}

/* after the charge: the keys in order, each one's slots summed, drawn, released up to max_keys */
static void
aggkeys_compute(DPRun *run)
{
	AggKeysRun *r = run->state;
	AggKeys    *st = r->st;
	double	   *v = palloc0(sizeof(double) * r->width),
			   *x = palloc(sizeof(double) * Max(st->d, 1));
	StringInfoData cur;
	bool		have = false;
	int64		nkeys = 0,
				nrows = 0;

	initStringInfo(&cur);
	run->detail = "aggregate_keys";
	if (st->sort == NULL)
		return;
	tuplesort_performsort(st->sort);
	while (r->nout < r->max_keys && tuplesort_gettupleslot(st->sort, true, false, st->slot, NULL))
	{
		bool		isnull;
		text	   *key = DatumGetTextPP(slot_getattr(st->slot, 1, &isnull));
		bytea	   *w = DatumGetByteaPP(slot_getattr(st->slot, 2, &isnull));

		if (!have || VARSIZE_ANY_EXHDR(key) != cur.len ||
			memcmp(VARDATA_ANY(key), cur.data, cur.len) != 0)
		{
			if (have)
				aggkeys_flush(run, cur.data, cur.len, v);
			if ((++nkeys & 1023) == 0)
				mechanism_poll(run->ledger_id);
			memset(v, 0, sizeof(double) * r->width);
			resetStringInfo(&cur);
			appendBinaryStringInfo(&cur, VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key));
			have = true;
		}
		/* the row's slots added to its key's (the same sums as a declared cell's) */
		memcpy(x, VARDATA_ANY(w), sizeof(double) * st->d);
		agg_row_add(st->l, x, NULL, false, v);
		/* also within one key of many rows: a cancel is seen every 4096 rows */
		if ((++nrows & 4095) == 0)
			mechanism_poll(run->ledger_id);
	}
	if (have && r->nout < r->max_keys)
		aggkeys_flush(run, cur.data, cur.len, v);
}

/*
 * {"keys": [released keys], "values": [keys x W noisy integers], "noise":
 * [[num, den] per slot], "threshold": T, "epsilon", "delta"}
 */
static Datum
aggkeys_release(DPRun *run)
{
	AggKeysRun *r = run->state;
	StringInfoData b;

	initStringInfo(&b);
	appendStringInfo(&b, "{\"keys\": [%s], \"values\": [", r->keys.data);
	agg_append_release(&b, r->out, (int64) r->nout * r->width, r->num, r->den, r->width);
	appendStringInfo(&b, ", \"threshold\": " INT64_FORMAT ", \"epsilon\": %s, \"delta\": %s}",
					 r->T, float8out_internal(r->st->eps), float8out_internal(r->st->delta));
	return DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data));
}

MECHANISM_FINAL_FUNCTION(dpobj_aggregate_keys_finalfn,
						 .admit = aggkeys_admit, .kind = 0,
						 .calibrate = aggkeys_calibrate, .compute = aggkeys_compute,
						 .release = aggkeys_release)
