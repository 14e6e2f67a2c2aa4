/*-------------------------------------------------------------------------
 *
 * expreval.c
 *	  Expressions of dpobj.aggregate(): types, bounds and a total
 *	  evaluation (expreval.h).  No allocation: a program is a fixed array.
 *
 *-------------------------------------------------------------------------
 */
#include "core/expreval.h"

#include <math.h>
#include <string.h>

/* a type's class for comparisons and COALESCE/CASE: numbers, text, times; -1 NULL fits all */
static int
type_class(ExprType t)
{
	switch (t)
	{
		case EXPR_NUM:
		case EXPR_BOOL:
			return 0;
		case EXPR_TEXT:
			return 1;
		case EXPR_DATE:
		case EXPR_TS:
			return 2;
		default:
			return -1;
	}
}

static bool
date_or_null(ExprType t)
{
	return t == EXPR_DATE || t == EXPR_NULLTYPE;
}

static bool
is_cond(const ExprNode *n)
{
	return n->kind >= EK_AND;
}

int
expr_add(ExprProgram *p, const ExprNode *n, const int *kids, int nkids)
{
	if (p->nnodes >= EXPR_MAX_NODES || p->nkids + nkids > EXPR_MAX_NODES)
		return -1;
	p->nodes[p->nnodes] = *n;
	p->nodes[p->nnodes].nkids = nkids;
	p->nodes[p->nnodes].kid0 = p->nkids;
	if (nkids > 0)
		memcpy(p->kids + p->nkids, kids, sizeof(int) * nkids);
	p->nkids += nkids;
	return p->nnodes++;
}

#define KID(p, n, j)	(&(p)->nodes[(p)->kids[(n)->kid0 + (j)]])

/* kids from..n-1 (step) share one class; the class, -1 all NULL, -2 a mix */
static int
common_class(const ExprProgram *p, const ExprNode *n, int from, int step, ExprType *type)
{
	int			cls = -1;

	*type = EXPR_NULLTYPE;
	for (int j = from; j < n->nkids; j += step)
	{
		const ExprNode *k = KID(p, n, j);
		int			c = type_class(k->type);

		if (is_cond(k))
			c = 0;
		if (c < 0)
			continue;
		if (cls >= 0 && c != cls)
			return -2;
		if (cls < 0)
			*type = k->type == EXPR_BOOL ? EXPR_NUM : k->type;
		cls = c;
	}
	return cls;
}

const char *
expr_check(const ExprProgram *p, int i, int *bad)
{
	const ExprNode *n = &p->nodes[i];
	ExprType	t;

	*bad = i;
	switch (n->kind)
	{
		case EK_ADD:
		case EK_SUB:
		case EK_MUL:
		case EK_DIV:
		case EK_NEG:
		case EK_ABS:
			/* date - date (or a NULL): the days between (a number) */
			if (n->kind == EK_SUB && n->nkids == 2 &&
				(KID(p, n, 0)->type == EXPR_DATE || KID(p, n, 1)->type == EXPR_DATE) &&
				date_or_null(KID(p, n, 0)->type) && date_or_null(KID(p, n, 1)->type))
				return NULL;
			for (int j = 0; j < n->nkids; j++)
				if (type_class(KID(p, n, j)->type) > 0)
				{
					*bad = p->kids[n->kid0 + j];
					return "arithmetic needs numbers";
				}
			return NULL;
		case EK_COALESCE:
			return common_class(p, n, 0, 1, &t) == -2 ? "its arguments must have one type" : NULL;
		case EK_CASE:
			if (common_class(p, n, 1, 2, &t) == -2 ||
				(n->has_else && type_class(KID(p, n, n->nkids - 1)->type) >= 0 &&
				 common_class(p, n, 1, 2, &t) >= 0 &&
				 type_class(KID(p, n, n->nkids - 1)->type) != common_class(p, n, 1, 2, &t)))
				return "its branches must have one type";
			return NULL;
		case EK_EXTRACT:
			t = KID(p, n, 0)->type;
			return t == EXPR_DATE || t == EXPR_TS || t == EXPR_NULLTYPE ? NULL :
				"extract needs a date or a timestamp";
		case EK_CMP:
		case EK_IN:
		case EK_BETWEEN:
			return common_class(p, n, 0, 1, &t) == -2 ? "it compares values of different types" : NULL;
		case EK_LIKE:
			return KID(p, n, 0)->type == EXPR_TEXT && KID(p, n, 1)->type == EXPR_TEXT ? NULL :
				"like needs a text column and a text pattern";
		case EK_BOOLCOL:
			return n->type == EXPR_BOOL ? NULL : "a column as a condition must be boolean";
		default:
			return NULL;
	}
}

/* ---- bounds ---- */

static ExprBounds
bounds_of(double lo, double hi)
{
	ExprBounds	b = {lo, hi, false, -1, false};

	/* a result outside +-EXPR_LIMIT is NULL: the values lie within */
	b.lo = fmax(fmin(b.lo, EXPR_LIMIT), -EXPR_LIMIT);
	b.hi = fmax(fmin(b.hi, EXPR_LIMIT), -EXPR_LIMIT);
	return b;
}

static ExprBounds
bounds_empty(void)
{
	ExprBounds	b = {0, 0, true, -1, false};

	return b;
}

static ExprBounds
bounds_hull(ExprBounds a, ExprBounds b)
{
	if (a.unknown >= 0)
		return a;
	if (b.unknown >= 0)
		return b;
	if (a.empty)
		return b;
	if (b.empty)
		return a;
	return bounds_of(fmin(a.lo, b.lo), fmax(a.hi, b.hi));
}

/* the extent of an extract field (dates from 4713 BC to 5874897 AD) */
static ExprBounds
field_bounds(int f)
{
	static const double lo[] = {-4713, 1, 1, 1, 0, 1, 0, 0, -2.2e11};
	static const double hi[] = {5874897, 4, 12, 31, 6, 366, 23, 59, 1.9e14};

	return bounds_of(lo[f], hi[f]);
}

/* the bounds of an arithmetic node i: +, -, *, / (refused: a divisor's bounds holding 0) */
static ExprBounds
bounds_arith(const ExprProgram *p, int i, ExprColBounds cb, void *arg)
{
	const ExprNode *n = &p->nodes[i];
	ExprBounds	a,
				b,
				r;
	double		lo,
				hi;

	a = expr_bounds(p, p->kids[n->kid0], cb, arg);
	b = expr_bounds(p, p->kids[n->kid0 + 1], cb, arg);
	if (a.unknown >= 0)
		return a;
	if (b.unknown >= 0)
		return b;
	if (a.empty || b.empty)
		return bounds_empty();
	if (n->kind == EK_ADD)
		return bounds_of(a.lo + b.lo, a.hi + b.hi);
	if (n->kind == EK_SUB)
		return bounds_of(a.lo - b.hi, a.hi - b.lo);
	if (n->kind == EK_DIV)
	{
		if (b.lo <= 0 && b.hi >= 0)
		{
			r = bounds_empty();
			r.empty = false;
			r.unknown = i;
			r.zero_div = true;
			return r;
		}
		/* 1 / [b.lo, b.hi] = [1 / b.hi, 1 / b.lo], then a product */
		lo = 1 / b.hi;
		hi = 1 / b.lo;
		b.lo = lo;
		b.hi = hi;
	}
	lo = fmin(fmin(a.lo * b.lo, a.lo * b.hi), fmin(a.hi * b.lo, a.hi * b.hi));
	hi = fmax(fmax(a.lo * b.lo, a.lo * b.hi), fmax(a.hi * b.lo, a.hi * b.hi));
	/* the quotient's rounding: widen by a relative 1e-12 */
	if (n->kind == EK_DIV)
	{
		lo -= fabs(lo) * 1e-12;
		hi += fabs(hi) * 1e-12;
	}
	return bounds_of(lo, hi);
}

ExprBounds
expr_bounds(const ExprProgram *p, int i, ExprColBounds cb, void *arg)
{
	const ExprNode *n = &p->nodes[i];
	ExprBounds	a,
				r;
	double		lo,
				hi;

	if (is_cond(n) || n->kind == EK_BOOLVAL)
		return bounds_of(0, 1);
	switch (n->kind)
	{
		case EK_COL:
			if (n->type == EXPR_BOOL)
				return bounds_of(0, 1);
			/* a date (only ever subtracted from one): the type's days (expreval.h) */
			if (n->type == EXPR_DATE)
				return bounds_of(EXPR_DATE_LO, EXPR_DATE_HI);
			if (n->type != EXPR_NUM || !cb(n->col, &lo, &hi, arg))
			{
				r = bounds_empty();
				r.empty = false;
				r.unknown = i;
				return r;
			}
			return bounds_of(lo, hi);
		case EK_CONST:
			return n->k.null ? bounds_empty() : bounds_of(n->k.x, n->k.x);
		case EK_NEG:
		case EK_ABS:
			a = expr_bounds(p, p->kids[n->kid0], cb, arg);
			if (a.unknown >= 0 || a.empty)
				return a;
			if (n->kind == EK_NEG)
				return bounds_of(-a.hi, -a.lo);
			if (a.lo >= 0)
				return a;
			if (a.hi <= 0)
				return bounds_of(-a.hi, -a.lo);
			return bounds_of(0, fmax(-a.lo, a.hi));
		case EK_ADD:
		case EK_SUB:
		case EK_MUL:
		case EK_DIV:
			return bounds_arith(p, i, cb, arg);
		case EK_COALESCE:
		case EK_CASE:
			r = bounds_empty();
			for (int j = n->kind == EK_CASE ? 1 : 0; j < n->nkids; j += n->kind == EK_CASE ? 2 : 1)
				r = bounds_hull(r, expr_bounds(p, p->kids[n->kid0 + j], cb, arg));
			if (n->kind == EK_CASE && n->has_else)
				r = bounds_hull(r, expr_bounds(p, p->kids[n->kid0 + n->nkids - 1], cb, arg));
			return r;
		case EK_EXTRACT:
			return field_bounds(n->op);
		default:
			break;
	}
	r = bounds_empty();
	r.empty = false;
	r.unknown = i;
	return r;
}

/* ---- evaluation ---- */

static ExprVal
val_null(void)
{
	ExprVal		v = {0, NULL, 0, true};

	return v;
}

static ExprVal
val_num(double x)
{
	ExprVal		v = {x, NULL, 0, false};

	if (!(fabs(x) <= EXPR_LIMIT))	/* NaN too */
		return val_null();
	return v;
}

static ExprVal
val_bool(bool b)
{
	return val_num(b ? 1 : 0);
}

void
expr_civil(long long days, int *y, int *m, int *d)
{
	/* H. Hinnant's civil_from_days: proleptic Gregorian, year 0 = 1 BC */
	long long	z = days + 719468;
	long long	era = (z >= 0 ? z : z - 146096) / 146097;
	long long	doe = z - era * 146097;
	long long	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	long long	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	long long	mp = (5 * doy + 2) / 153;

	*d = (int) (doy - (153 * mp + 2) / 5 + 1);
	*m = (int) (mp < 10 ? mp + 3 : mp - 9);
	*y = (int) (yoe + era * 400 + (*m <= 2));
}

long long
expr_days(long long y, int m, int d)
{
	long long	era,
				yoe,
				doy,
				doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* extract(field from v), v a date (days) or a timestamp (seconds) */
static ExprVal
extract_field(int field, ExprType t, double v)
{
	double		secs = t == EXPR_TS ? v : v * 86400.0;
	double		dd = floor(secs / 86400.0);
	double		sod = secs - dd * 86400.0;
	long long	days;
	int			y,
				m,
				d;

	/* beyond the types' ranges (infinity included): NULL */
	if (!(fabs(dd) < 3e9))
		return val_null();
	days = (long long) dd;
	expr_civil(days, &y, &m, &d);
	switch (field)
	{
		case EF_YEAR:
			return val_num(y <= 0 ? y - 1 : y);
		case EF_QUARTER:
			return val_num((m - 1) / 3 + 1);
		case EF_MONTH:
			return val_num(m);
		case EF_DAY:
			return val_num(d);
		case EF_DOW:
			return val_num((double) (((days + 4) % 7 + 7) % 7));
		case EF_DOY:
			return val_num((double) (days - expr_days(y, 1, 1) + 1));
		case EF_HOUR:
			return val_num(floor(sod / 3600.0));
		case EF_MINUTE:
			return val_num(floor(fmod(sod, 3600.0) / 60.0));
		default:
			return val_num(secs);
	}
}

/* a comparison's order of two non-NULL values of one class (dates against timestamps in seconds) */
static int
val_order(const ExprNode *na, ExprVal a, const ExprNode *nb, ExprVal b)
{
	if (na->type == EXPR_TEXT || nb->type == EXPR_TEXT)
	{
		int			c = memcmp(a.s, b.s, a.len < b.len ? a.len : b.len);

		return c != 0 ? (c < 0 ? -1 : 1) : (a.len > b.len) - (a.len < b.len);
	}
	if (na->type == EXPR_DATE && nb->type == EXPR_TS)
		a.x *= 86400.0;
	if (na->type == EXPR_TS && nb->type == EXPR_DATE)
		b.x *= 86400.0;
	return (a.x > b.x) - (a.x < b.x);
}

static bool
cmp_holds(int op, int c)
{
	switch (op)
	{
		case EC_EQ:
			return c == 0;
		case EC_NE:
			return c != 0;
		case EC_LT:
			return c < 0;
		case EC_LE:
			return c <= 0;
		case EC_GT:
			return c > 0;
		default:
			return c >= 0;
	}
}

static unsigned char
fold(unsigned char c, bool icase)
{
	return icase && c >= 'A' && c <= 'Z' ? (unsigned char) (c + 'a' - 'A') : c;
}

/* the bytes of the character at s[i]: one, or in UTF-8 its lead byte and continuation bytes */
static int
like_charlen(const char *s, int slen, int i, bool utf8)
{
	int			n = 1;

	while (utf8 && i + n < slen && ((unsigned char) s[i + n] & 0xC0) == 0x80)
		n++;
	return n;
}

bool
expr_like(const char *s, int slen, const char *pat, int plen, bool icase, bool utf8)
{
	int			si = 0,
				pi = 0,
				star_p = -1,
				star_s = 0;

	/* greedy matching with one backtrack point: linear in practice, never fails */
	while (si < slen)
	{
		if (pi < plen && pat[pi] == '%')
		{
			star_p = ++pi;
			star_s = si;
			continue;
		}
		if (pi < plen)
		{
			int			q = pi;
			bool		lit = pat[q] == '\\' && q + 1 < plen;

			if (lit)
				q++;
			if (!lit && pat[q] == '_')
			{
				pi = q + 1;
				si += like_charlen(s, slen, si, utf8);
				continue;
			}
			if (fold((unsigned char) pat[q], icase) == fold((unsigned char) s[si], icase))
			{
				pi = q + 1;
				si++;
				continue;
			}
		}
		if (star_p < 0)
			return false;
		/* the % takes one character more (si stays on character boundaries) */
		pi = star_p;
		star_s += like_charlen(s, slen, star_s, utf8);
		si = star_s;
	}
	while (pi < plen && pat[pi] == '%')
		pi++;
	return pi == plen;
}

/* a condition's truth: 1 true, 0 false, -1 NULL */
static int
truth(ExprVal v)
{
	return v.null ? -1 : v.x != 0;
}

static ExprVal
val_truth(int t)
{
	return t < 0 ? val_null() : val_bool(t == 1);
}

/* a condition's node n: 1, 0 or NULL (three-valued logic) */
static ExprVal
eval_cond(const ExprProgram *p, const ExprNode *n, const ExprVal *row)
{
	ExprVal		v[3];
	int			t,
				c,
				hit;
	bool		any_null;

	switch (n->kind)
	{
		case EK_AND:
		case EK_OR:
			/* every argument evaluated, then three-valued AND / OR */
			t = n->kind == EK_AND ? 1 : 0;
			for (int j = 0; j < n->nkids; j++)
			{
				int			u = truth(expr_eval(p, p->kids[n->kid0 + j], row));

				if (n->kind == EK_AND)
					t = (t == 0 || u == 0) ? 0 : (t < 0 || u < 0) ? -1 : 1;
				else
					t = (t == 1 || u == 1) ? 1 : (t < 0 || u < 0) ? -1 : 0;
			}
			return val_truth(t);
		case EK_NOT:
			t = truth(expr_eval(p, p->kids[n->kid0], row));
			return val_truth(t < 0 ? -1 : !t);
		case EK_CMP:
			v[0] = expr_eval(p, p->kids[n->kid0], row);
			v[1] = expr_eval(p, p->kids[n->kid0 + 1], row);
			if (v[0].null || v[1].null)
				return val_null();
			return val_bool(cmp_holds(n->op, val_order(KID(p, n, 0), v[0], KID(p, n, 1), v[1])));
		case EK_IN:
			v[0] = expr_eval(p, p->kids[n->kid0], row);
			hit = 0;
			any_null = false;
			for (int j = 1; j < n->nkids; j++)
			{
				v[1] = expr_eval(p, p->kids[n->kid0 + j], row);
				if (v[1].null || v[0].null)
					any_null = true;
				else if (val_order(KID(p, n, 0), v[0], KID(p, n, j), v[1]) == 0)
					hit = 1;
			}
			return val_truth(hit ? 1 : any_null ? -1 : 0);
		case EK_BETWEEN:
			v[0] = expr_eval(p, p->kids[n->kid0], row);
			v[1] = expr_eval(p, p->kids[n->kid0 + 1], row);
			v[2] = expr_eval(p, p->kids[n->kid0 + 2], row);
			{
				int			lo = v[0].null || v[1].null ? -1 :
					val_order(KID(p, n, 0), v[0], KID(p, n, 1), v[1]) >= 0;
				int			hi = v[0].null || v[2].null ? -1 :
					val_order(KID(p, n, 0), v[0], KID(p, n, 2), v[2]) <= 0;

				return val_truth((lo == 0 || hi == 0) ? 0 : (lo < 0 || hi < 0) ? -1 : 1);
			}
		case EK_ISNULL:
			return val_bool(expr_eval(p, p->kids[n->kid0], row).null);
		case EK_LIKE:
			v[0] = expr_eval(p, p->kids[n->kid0], row);
			v[1] = expr_eval(p, p->kids[n->kid0 + 1], row);
			if (v[0].null || v[1].null)
				return val_null();
			c = expr_like(v[0].s, v[0].len, v[1].s, v[1].len, n->op == 1, p->utf8);
			return val_bool(c);
		default:
			break;
	}
	return val_null();
}

ExprVal
expr_eval(const ExprProgram *p, int i, const ExprVal *row)
{
	const ExprNode *n = &p->nodes[i];
	ExprVal		v[3];
	ExprVal		r;
	int			hit;

	switch (n->kind)
	{
		case EK_COL:
		case EK_BOOLCOL:
			return row[n->col];
		case EK_CONST:
			return n->k;
		case EK_NEG:
		case EK_ABS:
			v[0] = expr_eval(p, p->kids[n->kid0], row);
			if (v[0].null)
				return v[0];
			return val_num(n->kind == EK_NEG ? -v[0].x : fabs(v[0].x));
		case EK_ADD:
		case EK_SUB:
		case EK_MUL:
		case EK_DIV:
			v[0] = expr_eval(p, p->kids[n->kid0], row);
			v[1] = expr_eval(p, p->kids[n->kid0 + 1], row);
			if (v[0].null || v[1].null)
				return val_null();
			switch (n->kind)
			{
				case EK_ADD:
					return val_num(v[0].x + v[1].x);
				case EK_SUB:
					return val_num(v[0].x - v[1].x);
				case EK_MUL:
					return val_num(v[0].x * v[1].x);
				default:
					return v[1].x == 0 ? val_null() : val_num(v[0].x / v[1].x);
			}
		case EK_COALESCE:
			r = val_null();
			for (int j = 0; j < n->nkids; j++)
			{
				v[0] = expr_eval(p, p->kids[n->kid0 + j], row);
				if (r.null && !v[0].null)
					r = v[0];
			}
			return r;
		case EK_CASE:
			r = val_null();
			hit = 0;
			for (int j = 0; j + 1 < n->nkids || (j + 1 == n->nkids && n->has_else); j += 2)
			{
				if (j + 1 == n->nkids)
				{
					v[1] = expr_eval(p, p->kids[n->kid0 + j], row);
					if (!hit)
						r = v[1];
					break;
				}
				v[0] = expr_eval(p, p->kids[n->kid0 + j], row);
				v[1] = expr_eval(p, p->kids[n->kid0 + j + 1], row);
				if (!hit && truth(v[0]) == 1)
				{
					r = v[1];
					hit = 1;
				}
			}
			return r;
		case EK_EXTRACT:
			v[0] = expr_eval(p, p->kids[n->kid0], row);
			if (v[0].null)
				return v[0];
			return extract_field(n->op, KID(p, n, 0)->type, v[0].x);
		case EK_BOOLVAL:
			return val_truth(truth(expr_eval(p, p->kids[n->kid0], row)));
		default:
			return eval_cond(p, n, row);
	}
	return val_null();
}
