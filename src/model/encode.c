/*-------------------------------------------------------------------------
 *
 * encode.c
 *	  Feature encodings from declared public domains (encode.h): parsing
 *	  and checking an encoding, encoding one row, and the SQL function
 *	  dpobj.encode_features(encoding, categorical text[], numeric float8[])
 *	  that train()'s sealed query calls per row.
 *
 * Per row nothing here raises: a level is matched byte for byte against
 * the declared levels (no SQL is built from it), a numeric value is clipped
 * and scaled in C doubles (PostgreSQL's float8 operators raise on
 * underflow, which would depend on the value).  The array shapes are fixed
 * by the query's construction, so the only errors are public ones.
 *
 *-------------------------------------------------------------------------
 */
#include "model/encode.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"

#include "model/modelargs.h"

PG_FUNCTION_INFO_V1(dpobj_encode_features);
PG_FUNCTION_INFO_V1(dpobj_encode_features_missing);

static void
encoding_bad(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("malformed feature encoding: %s", what),
			 errhint("An encoding is a JSON array of {\"column\": name, \"levels\": [text, ...]} "
					 "or {\"column\": name, \"lo\": number, \"hi\": number}, as dpobj.train() records it.")));
}

static double
encoding_number(JsonbContainer *obj, const char *key)
{
	JsonbValue *v = getKeyJsonValueFromContainer(obj, key, strlen(key), NULL);
	char	   *s;
	double		x;

	if (v == NULL || v->type != jbvNumeric)
		encoding_bad("a numeric column needs numbers \"lo\" and \"hi\"");
	s = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(v->val.numeric)));
	x = strtod(s, NULL);
	if (!isfinite(x))
		encoding_bad("\"lo\" and \"hi\" must be finite");
	return x;
}

static inline uint64
encoding_load64(const char *p)
{
	uint64		w;

	memcpy(&w, p, sizeof(w));
	return w;
}

static inline uint64
encoding_load32(const char *p)
{
	uint32		w;

	memcpy(&w, p, sizeof(w));
	return w;
}

/*
 * A level's key (EncLevelSlot): its first and last 8 bytes, overlapping
 * from 8 to 16 bytes; 4 to 7 bytes as their first and last 4, fewer as
 * bytes 0, len / 2 and len - 1.  Given the length, equal keys are equal
 * bytes up to 16; a longer level's middle bytes are compared apart.  No
 * byte outside the value is read.
 */
static inline void
encoding_key(const char *s, int len, uint64 *head, uint64 *tail)
{
	*tail = 0;
	if (len >= 8)
	{
		*head = encoding_load64(s);
		*tail = encoding_load64(s + len - 8);
	}
	else if (len >= 4)
		*head = encoding_load32(s) | encoding_load32(s + len - 4) << 32;
	else if (len > 0)
		*head = (uint64) (unsigned char) s[0] | (uint64) (unsigned char) s[len / 2] << 8 |
			(uint64) (unsigned char) s[len - 1] << 16;
	else
		*head = 0;
}

/* a level's slot in the levels' hash: its key mixed, a long level's middle words too */
static inline uint32
encoding_hash(const char *s, int len, uint64 head, uint64 tail)
{
	uint64		h = (head ^ (uint64) len) * UINT64CONST(0x9E3779B97F4A7C15);

	h = (h ^ (h >> 29) ^ tail) * UINT64CONST(0xBF58476D1CE4E5B9);
	for (int i = 8; i < len - 8; i += 8)
		h = (h ^ (h >> 29) ^ encoding_load64(s + i)) * UINT64CONST(0x94D049BB133111EB);
	return (uint32) (h ^ (h >> 32));
}

/* slot s holds the level (s, len, head, tail): the same bytes */
static inline bool
encoding_slot_is(const EncColumn *c, const EncLevelSlot *s, const char *v, int len,
				 uint64 head, uint64 tail)
{
	return s->head == head && s->tail == tail && s->len == len &&
		(len <= 16 || memcmp(c->levels[s->level] + 8, v + 8, len - 16) == 0);
}

/*
 * The levels' hash (encoding_level): a row's level is found in about one
 * probe, whatever their number; a repeated level keeps its first index.
 */
static void
encoding_level_hash(EncColumn *c)
{
	uint32		size = 8;

	while (size < 2 * (uint32) c->nlevels)
		size *= 2;
	c->level_mask = size - 1;
	c->level_slot = palloc(sizeof(EncLevelSlot) * size);
	for (uint32 i = 0; i < size; i++)
		c->level_slot[i].level = -1;
	for (int l = 0; l < c->nlevels; l++)
	{
		const char *v = c->levels[l];
		int			len = c->level_len[l];
		uint64		head,
					tail;
		uint32		h;

		encoding_key(v, len, &head, &tail);
		h = encoding_hash(v, len, head, tail) & c->level_mask;
		while (c->level_slot[h].level >= 0 &&
			   !encoding_slot_is(c, &c->level_slot[h], v, len, head, tail))
			h = (h + 1) & c->level_mask;
		if (c->level_slot[h].level >= 0)
			continue;
		c->level_slot[h].head = head;
		c->level_slot[h].tail = tail;
		c->level_slot[h].len = len;
		c->level_slot[h].level = l;
	}
}

/* "levels": distinct non-empty-list of strings */
static void
encoding_levels(EncColumn *c, JsonbValue *lv)
{
	JsonbContainer *jc;

	if (lv->type != jbvBinary || !JsonContainerIsArray(lv->val.binary.data))
		encoding_bad("\"levels\" must be an array of strings");
	jc = lv->val.binary.data;
	c->nlevels = JsonContainerSize(jc);
	if (c->nlevels < 1 || c->nlevels > DPOBJ_MAX_LEVELS)
		encoding_bad("a categorical column has 1 to 1024 levels");
	c->levels = palloc(sizeof(char *) * c->nlevels);
	c->level_len = palloc(sizeof(int) * c->nlevels);
	for (int i = 0; i < c->nlevels; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(jc, i);

		if (e == NULL || e->type != jbvString)
			encoding_bad("\"levels\" must be an array of strings");
		c->levels[i] = pnstrdup(e->val.string.val, e->val.string.len);
		c->level_len[i] = e->val.string.len;
	}
	encoding_level_hash(c);
}

static void
encoding_column(EncColumn *c, JsonbValue *e)
{
	JsonbContainer *obj;
	JsonbValue *v;

	if (e == NULL || e->type != jbvBinary || !JsonContainerIsObject(e->val.binary.data))
		encoding_bad("each element must be an object");
	obj = e->val.binary.data;
	v = getKeyJsonValueFromContainer(obj, "column", 6, NULL);
	if (v == NULL || v->type != jbvString || v->val.string.len == 0)
		encoding_bad("each element needs a \"column\" name");
	c->column = pnstrdup(v->val.string.val, v->val.string.len);
	v = getKeyJsonValueFromContainer(obj, "levels", 6, NULL);
	if (v != NULL)
	{
		if (JsonContainerSize(obj) != 2)
			encoding_bad("a categorical column has exactly the keys \"column\" and \"levels\"");
		encoding_levels(c, v);
		return;
	}
	if (JsonContainerSize(obj) != 3)
		encoding_bad("a numeric column has exactly the keys \"column\", \"lo\" and \"hi\"");
	c->lo = encoding_number(obj, "lo");
	c->hi = encoding_number(obj, "hi");
	if (!(c->lo < c->hi) || !isfinite(c->hi - c->lo))
		encoding_bad("\"lo\" must be below \"hi\", and hi - lo finite");
}

Encoding *
encoding_parse(Jsonb *spec)
{
	Encoding   *enc = palloc0(sizeof(Encoding));

	if (!JB_ROOT_IS_ARRAY(spec) || JB_ROOT_IS_SCALAR(spec))
		encoding_bad("it must be an array");
	enc->ncols = JB_ROOT_COUNT(spec);
	if (enc->ncols < 1)
		encoding_bad("it must name at least one column");
	enc->cols = palloc0(sizeof(EncColumn) * enc->ncols);
	for (int i = 0; i < enc->ncols; i++)
	{
		EncColumn  *c = &enc->cols[i];

		encoding_column(c, getIthJsonbValueFromContainer(&spec->root, i));
		if (c->nlevels > 0)
			enc->ncat++;
		else
			enc->nnum++;
		enc->d += c->nlevels > 0 ? c->nlevels + 1 : 1;
	}
	if (enc->d > DPOBJ_MAX_ENCODED_D)
		encoding_bad("more than 4096 encoded features");
	return enc;
}

double
encoding_row_bound(const Encoding *enc, bool l1)
{
	/* each column's block has norm at most 1; round up, never down */
	return l1 ? (double) enc->ncols : nextafter(sqrt((double) enc->ncols), INFINITY);
}

/*
 * {"groups": [...]}: per column, 0 for a numeric one, k + 1 for k levels,
 * as they are encoded (the option additive boosting reads its terms from)
 */
char *
encoding_groups_option(const Encoding *enc)
{
	StringInfoData b;

	initStringInfo(&b);
	appendStringInfoString(&b, "{\"groups\": [");
	for (int i = 0; i < enc->ncols; i++)
		appendStringInfo(&b, "%s%d", i == 0 ? "" : ", ",
						 enc->cols[i].nlevels > 0 ? enc->cols[i].nlevels + 1 : 0);
	appendStringInfoString(&b, "]}");
	return b.data;
}

int
encoding_level(const EncColumn *c, const char *cat, int len)
{
	uint64		head,
				tail;
	const EncLevelSlot *s;

	if (cat == NULL)
		return c->nlevels;		/* "other" */
	encoding_key(cat, len, &head, &tail);
	for (uint32 h = encoding_hash(cat, len, head, tail) & c->level_mask;
		 (s = &c->level_slot[h])->level >= 0; h = (h + 1) & c->level_mask)
		if (encoding_slot_is(c, s, cat, len, head, tail))
			return s->level;
	return c->nlevels;			/* "other" */
}

bool
encoding_row(const Encoding *enc, char *const *cats, const int *cat_len,
			 const double *nums, const bool *numnull, bool missing, double *out)
{
	int			ic = 0,
				in = 0,
				j = 0;

	for (int i = 0; i < enc->ncols; i++)
	{
		const EncColumn *c = &enc->cols[i];

		if (c->nlevels > 0)
		{
			int			hit = encoding_level(c, cats[ic], cat_len[ic]);

			/* zeros, then the hit's 1 (none for a missing NULL): no branch on where the hit is */
			for (int l = 0; l <= c->nlevels; l++)
				out[j + l] = 0.0;
			out[j + hit] = missing && cats[ic] == NULL ? 0.0 : 1.0;
			j += c->nlevels + 1;
			ic++;
		}
		else
		{
			if ((numnull[in] || isnan(nums[in])) && !missing)
				return false;
			out[j++] = numnull[in] || isnan(nums[in]) ? NAN : encoding_scale(nums[in], c->lo, c->hi);
			in++;
		}
	}
	return true;
}

/* a new one-dimensional float8[] of d elements, as construct_array() lays it out */
static ArrayType *
encoding_new_array(int d)
{
	Size		nbytes = ARR_OVERHEAD_NONULLS(1) + sizeof(double) * d;
	ArrayType  *a = palloc0(nbytes);

	SET_VARSIZE(a, nbytes);
	a->ndim = 1;
	a->dataoffset = 0;
	a->elemtype = FLOAT8OID;
	ARR_DIMS(a)[0] = d;
	ARR_LBOUND(a)[0] = 1;
	return a;
}

ArrayType *
encoding_row_array(const Encoding *enc, char *const *cats, const int *cat_len,
				   const double *nums, const bool *numnull, bool missing)
{
	ArrayType  *a = encoding_new_array(enc->d);

	/* encoded in place: no Datum array, no element copy */
	if (!encoding_row(enc, cats, cat_len, nums, numnull, missing, (double *) ARR_DATA_PTR(a)))
	{
		pfree(a);
		return NULL;
	}
	return a;
}

/* the parsed encoding of a call site, and a false per numeric column (rows with no NULL) */
typedef struct EncCache
{
	Encoding   *enc;
	bool	   *nonull;
} EncCache;

static void *
encoding_build(Jsonb *spec, MemoryContext cxt)
{
	EncCache   *c = MemoryContextAlloc(cxt, sizeof(EncCache));

	c->enc = encoding_parse(spec);
	c->nonull = MemoryContextAllocZero(cxt, sizeof(bool) * (c->enc->nnum + 1));
	return c;
}

static void
encode_shape_error(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
			 errmsg("dpobj.encode_features: one value per categorical and per numeric column of the encoding is needed"),
			 errhint("dpobj.train() builds this call itself; use dpobj.predict_raw() to encode raw values.")));
}

/* one encoded row of the arguments (encoding, categorical, numeric); missing: encoding_row's */
static Datum
encode_features(FunctionCallInfo fcinfo, bool missing)
{
	EncCache   *cache;
	Encoding   *enc;
	ArrayType  *ca;
	ArrayType  *na;
	Datum	   *cd;
	bool	   *cn;
	Datum	   *nd;
	bool	   *nn;
	int			nc,
				nnum;
	char	  **cats;
	int		   *cat_len;
	const double *nums;
	ArrayType  *out;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		encode_shape_error();
	cache = jsonb_arg_cached(fcinfo, PG_GETARG_JSONB_P(0), 0, encoding_build);
	enc = cache->enc;
	ca = PG_GETARG_ARRAYTYPE_P(1);
	na = PG_GETARG_ARRAYTYPE_P(2);
	if (ARR_ELEMTYPE(ca) != TEXTOID || ARR_ELEMTYPE(na) != FLOAT8OID ||
		ARR_NDIM(ca) > 1 || ARR_NDIM(na) > 1)
		encode_shape_error();
	deconstruct_array(ca, TEXTOID, -1, false, TYPALIGN_INT, &cd, &cn, &nc);
	nnum = ArrayGetNItems(ARR_NDIM(na), ARR_DIMS(na));
	if (nc != enc->ncat || nnum != enc->nnum)
		encode_shape_error();
	cats = palloc(sizeof(char *) * (nc + 1));
	cat_len = palloc(sizeof(int) * (nc + 1));
	for (int i = 0; i < nc; i++)
	{
		cats[i] = cn[i] ? NULL : VARDATA_ANY(DatumGetPointer(cd[i]));
		cat_len[i] = cn[i] ? 0 : VARSIZE_ANY_EXHDR(DatumGetPointer(cd[i]));
	}
	if (!ARR_HASNULL(na))
	{
		/* no NULL: the array's own doubles, read in place */
		nums = (const double *) ARR_DATA_PTR(na);
		nn = cache->nonull;
	}
	else
	{
		double	   *v = palloc(sizeof(double) * (nnum + 1));

		deconstruct_array(na, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &nd, &nn, &nnum);
		for (int i = 0; i < nnum; i++)
			v[i] = nn[i] ? 0.0 : DatumGetFloat8(nd[i]);
		nums = v;
	}
	out = encoding_row_array(enc, cats, cat_len, nums, nn, missing);
	if (out == NULL)
		PG_RETURN_NULL();
	PG_RETURN_ARRAYTYPE_P(out);
}

/*
 * dpobj.encode_features(encoding jsonb, categorical text[], numeric float8[])
 * RETURNS float8[]: one encoded row, or NULL (a numeric NULL or NaN).
 */
Datum
dpobj_encode_features(PG_FUNCTION_ARGS)
{
	return encode_features(fcinfo, false);
}

/*
 * dpobj.encode_features_missing(encoding, categorical, numeric): the same
 * row, a NULL kept (statistics skip it): a numeric NULL or NaN as NaN, a
 * categorical NULL as no level set
 */
Datum
dpobj_encode_features_missing(PG_FUNCTION_ARGS)
{
	return encode_features(fcinfo, true);
}
