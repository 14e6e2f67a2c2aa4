/*
 * test_expreval.c -- dpobj.aggregate()'s expression evaluator (src/core/expreval.c):
 * totality (division by zero, overflow, NaN give NULL), SQL's three-valued logic,
 * LIKE/ILIKE, extract against known dates, the civil calendar round trip, date - date, and the
 * soundness of the interval bounds: random expressions over random values within the
 * columns' bounds never leave their derived bounds.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/expreval.h"
#include "unitcheck.h"

static ExprProgram prog;

static int
leaf_col(int col, ExprType t)
{
	ExprNode	n = {0};

	n.kind = EK_COL;
	n.type = t;
	n.col = col;
	return expr_add(&prog, &n, NULL, 0);
}

static int
leaf_num(double x, bool null)
{
	ExprNode	n = {0};

	n.kind = EK_CONST;
	n.type = null ? EXPR_NULLTYPE : EXPR_NUM;
	n.k.x = x;
	n.k.null = null;
	return expr_add(&prog, &n, NULL, 0);
}

static int
node(ExprKind kind, ExprType t, int op, const int *kids, int nkids)
{
	ExprNode	n = {0};
	int			i,
				bad;

	n.kind = kind;
	n.type = t;
	n.op = op;
	i = expr_add(&prog, &n, kids, nkids);
	CHECK(i >= 0 && expr_check(&prog, i, &bad) == NULL, "node %d well typed", kind);
	return i;
}

static ExprVal
eval(int i, const ExprVal *row)
{
	return expr_eval(&prog, i, row);
}

static void
check_totality(void)
{
	ExprVal		row[2] = {{1e200, NULL, 0, false}, {0, NULL, 0, false}};
	int			a,
				b,
				k[2];

	memset(&prog, 0, sizeof(prog));
	a = leaf_col(0, EXPR_NUM);
	b = leaf_col(1, EXPR_NUM);
	k[0] = a;
	k[1] = b;
	CHECK(eval(node(EK_DIV, EXPR_NUM, 0, k, 2), row).null, "x / 0 is NULL");
	k[1] = a;
	CHECK(eval(node(EK_MUL, EXPR_NUM, 0, k, 2), row).null, "1e200 * 1e200 is NULL");
	CHECK(!eval(node(EK_ADD, EXPR_NUM, 0, k, 2), row).null, "1e200 + 1e200 is a number");
	row[0].x = NAN;
	CHECK(eval(node(EK_NEG, EXPR_NUM, 0, k, 1), row).null, "-NaN is NULL");
	row[0].null = true;
	CHECK(eval(node(EK_ABS, EXPR_NUM, 0, k, 1), row).null, "abs(NULL) is NULL");
	k[1] = leaf_num(7, false);
	CHECK(eval(node(EK_COALESCE, EXPR_NUM, 0, k, 2), row).x == 7, "coalesce(NULL, 7) = 7");
}

/* AND, OR, NOT over {true, false, NULL}, against SQL's tables */
static void
check_logic(void)
{
	ExprVal		row[2];
	int			t[3] = {1, 0, -1};
	int			a,
				b,
				k[2],
				and_,
				or_,
				not_;

	memset(&prog, 0, sizeof(prog));
	a = leaf_col(0, EXPR_BOOL);
	b = leaf_col(1, EXPR_BOOL);
	prog.nodes[a].kind = EK_BOOLCOL;
	prog.nodes[b].kind = EK_BOOLCOL;
	k[0] = a;
	k[1] = b;
	and_ = node(EK_AND, EXPR_BOOL, 0, k, 2);
	or_ = node(EK_OR, EXPR_BOOL, 0, k, 2);
	not_ = node(EK_NOT, EXPR_BOOL, 0, k, 1);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
		{
			int			x = t[i],
						y = t[j];
			int			want_and = (x == 0 || y == 0) ? 0 : (x < 0 || y < 0) ? -1 : 1;
			int			want_or = (x == 1 || y == 1) ? 1 : (x < 0 || y < 0) ? -1 : 0;
			ExprVal		r;

			row[0] = (ExprVal) {x == 1, NULL, 0, x < 0};
			row[1] = (ExprVal) {y == 1, NULL, 0, y < 0};
			r = eval(and_, row);
			CHECK((r.null ? -1 : r.x != 0) == want_and, "AND(%d, %d)", x, y);
			r = eval(or_, row);
			CHECK((r.null ? -1 : r.x != 0) == want_or, "OR(%d, %d)", x, y);
			r = eval(not_, row);
			CHECK((r.null ? -1 : r.x != 0) == (x < 0 ? -1 : !x), "NOT(%d)", x);
		}
}

static void
check_like(void)
{
	CHECK(expr_like("hello", 5, "h%o", 3, false, false), "h%%o");
	CHECK(expr_like("hello", 5, "_ell_", 5, false, false), "_ell_");
	CHECK(!expr_like("hello", 5, "_ell", 4, false, false), "_ell is not a prefix match");
	CHECK(expr_like("a%b", 3, "a\\%b", 4, false, false), "an escaped %%");
	CHECK(!expr_like("axb", 3, "a\\%b", 4, false, false), "an escaped %% is literal");
	CHECK(expr_like("HeLLo", 5, "hel%", 4, true, false), "ILIKE folds ASCII");
	CHECK(!expr_like("HeLLo", 5, "hel%", 4, false, false), "LIKE does not");
	CHECK(expr_like("", 0, "%", 1, false, false), "%% matches empty");
	CHECK(expr_like("aaaaaaaaab", 10, "%a%a%b", 6, false, false), "backtracking");
	CHECK(!expr_like("aaaaaaaaaa", 10, "%a%a%b", 6, false, false), "no b");
	/* in UTF-8, _ is one character: \xc3\xa9 (e acute) and an emoji of 4 bytes */
	CHECK(expr_like("\xc3\xa9", 2, "_", 1, false, true), "_ matches a 2-byte character");
	CHECK(!expr_like("\xc3\xa9", 2, "_", 1, false, false), "byte-wise, _ is one byte");
	CHECK(expr_like("a\xf0\x9f\x98\x80" "b", 6, "a_b", 3, false, true), "_ matches a 4-byte character");
	CHECK(!expr_like("\xc3\xa9", 2, "__", 2, false, true), "one character is not two");
	CHECK(expr_like("x\xc3\xa9", 3, "%_", 2, false, true), "%_ ends on the last character");
	CHECK(expr_like("\xc3\xa9\xc3\xa9" "a", 5, "%\xc3\xa9" "a", 4, false, true), "%% backtracks by characters");
	CHECK(!expr_like("\xc3\xa9", 2, "%\xa9", 2, false, true), "no match inside a character");
}

static void
check_calendar(void)
{
	int			y,
				m,
				d;
	ExprVal		row[1];
	int			c,
				k[1];
	struct
	{
		int			field;
		double		want;
	}			cases[] = {{EF_YEAR, 2024}, {EF_QUARTER, 1}, {EF_MONTH, 2}, {EF_DAY, 29},
		{EF_DOW, 4}, {EF_DOY, 60}, {EF_HOUR, 13}, {EF_MINUTE, 45}};

	int			bad = 0;

	for (long long days = -800000; days <= 800000; days += 37)
	{
		expr_civil(days, &y, &m, &d);
		bad += expr_days(y, m, d) != days || m < 1 || m > 12 || d < 1 || d > 31;
	}
	CHECK(bad == 0, "civil round trip (%d wrong)", bad);
	CHECK(expr_days(1970, 1, 1) == 0 && expr_days(2000, 1, 1) == 10957, "known days");
	/* 2024-02-29 13:45:30 (a Thursday) as a timestamp */
	memset(&prog, 0, sizeof(prog));
	c = leaf_col(0, EXPR_TS);
	k[0] = c;
	row[0] = (ExprVal) {expr_days(2024, 2, 29) * 86400.0 + 13 * 3600 + 45 * 60 + 30, NULL, 0, false};
	for (int i = 0; i < 8; i++)
	{
		ExprVal		r = eval(node(EK_EXTRACT, EXPR_NUM, cases[i].field, k, 1), row);

		CHECK(!r.null && r.x == cases[i].want, "extract field %d: %g", cases[i].field, r.x);
	}
	/* 1 BC is year -1, as PostgreSQL's extract says; infinity is NULL */
	row[0].x = expr_days(0, 6, 1) * 86400.0;
	CHECK(eval(node(EK_EXTRACT, EXPR_NUM, EF_YEAR, k, 1), row).x == -1, "1 BC");
	row[0].x = INFINITY;
	CHECK(eval(node(EK_EXTRACT, EXPR_NUM, EF_YEAR, k, 1), row).null, "infinity");
}

/* date - date: the days between, NULL from a NULL (an infinite date reads as NULL); bounded by the type */
static void
check_date_diff(void)
{
	ExprVal		row[2];
	int			k[2],
				sub,
				bad;
	ExprBounds	b;

	memset(&prog, 0, sizeof(prog));
	k[0] = leaf_col(0, EXPR_DATE);
	k[1] = leaf_col(1, EXPR_DATE);
	sub = node(EK_SUB, EXPR_NUM, 0, k, 2);
	row[0] = (ExprVal) {expr_days(2024, 3, 1), NULL, 0, false};
	row[1] = (ExprVal) {expr_days(2024, 2, 1), NULL, 0, false};
	CHECK(eval(sub, row).x == 29, "2024-03-01 - 2024-02-01 = 29");
	row[1] = (ExprVal) {EXPR_DATE_HI, NULL, 0, false};
	row[0] = (ExprVal) {EXPR_DATE_LO, NULL, 0, false};
	CHECK(!eval(sub, row).null && eval(sub, row).x == EXPR_DATE_LO - EXPR_DATE_HI, "the range's extremes");
	row[1].null = true;
	CHECK(eval(sub, row).null, "NULL propagates");
	b = expr_bounds(&prog, sub, NULL, NULL);
	CHECK(b.unknown < 0 && b.lo == EXPR_DATE_LO - EXPR_DATE_HI && b.hi == EXPR_DATE_HI - EXPR_DATE_LO,
		  "bounded by the type's range");
	k[1] = leaf_num(0, true);
	CHECK(eval(node(EK_SUB, EXPR_NUM, 0, k, 2), row).null, "date - NULL");
	/* a date with a number, or date + date: refused */
	k[1] = leaf_num(1, false);
	CHECK(expr_check(&prog, expr_add(&prog, &prog.nodes[sub], k, 2), &bad) != NULL, "date - number refused");
	k[1] = k[0];
	{
		ExprNode	n = {0};

		n.kind = EK_ADD;
		n.type = EXPR_NUM;
		CHECK(expr_check(&prog, expr_add(&prog, &n, k, 2), &bad) != NULL, "date + date refused");
	}
}

/* ---- bounds: random trees over two columns of random bounds ---- */

static double col_lo[2],
			col_hi[2];

static bool
cb(int col, double *lo, double *hi, void *arg)
{
	(void) arg;
	*lo = col_lo[col];
	*hi = col_hi[col];
	return true;
}

static double
uniform(double lo, double hi)
{
	return lo + (hi - lo) * ((double) (unitcheck_next64() >> 11) * 0x1p-53);
}

static int
random_tree(int depth)
{
	int			r = (int) (unitcheck_next64() % (depth > 3 ? 3 : 9));
	int			k[3];

	switch (r)
	{
		case 0:
		case 1:
			return leaf_col(r, EXPR_NUM);
		case 2:
			return leaf_num(round(uniform(-5, 5)), false);
		case 3:
		case 4:
		case 5:
		case 6:
			k[0] = random_tree(depth + 1);
			k[1] = random_tree(depth + 1);
			return node(r == 3 ? EK_ADD : r == 4 ? EK_SUB : r == 5 ? EK_MUL : EK_DIV,
						EXPR_NUM, 0, k, 2);
		case 7:
			k[0] = random_tree(depth + 1);
			return node(unitcheck_next64() % 2 ? EK_NEG : EK_ABS, EXPR_NUM, 0, k, 1);
		default:
			k[0] = random_tree(depth + 1);
			k[1] = random_tree(depth + 1);
			return node(EK_COALESCE, EXPR_NUM, 0, k, 2);
	}
}

static void
check_bounds(void)
{
	int			trees = 0,
				outside = 0,
				zero_div = 0;

	for (int t = 0; t < 3000; t++)
	{
		int			root;
		ExprBounds	b;

		memset(&prog, 0, sizeof(prog));
		for (int c = 0; c < 2; c++)
		{
			col_lo[c] = round(uniform(-10, 10));
			col_hi[c] = col_lo[c] + round(uniform(0, 10));
		}
		root = random_tree(0);
		b = expr_bounds(&prog, root, cb, NULL);
		if (b.unknown >= 0)
		{
			zero_div += b.zero_div;
			continue;
		}
		trees++;
		for (int s = 0; s < 200; s++)
		{
			ExprVal		row[2];
			ExprVal		v;

			for (int c = 0; c < 2; c++)
				row[c] = (ExprVal) {s < 4 ? (s & (1 << c) ? col_hi[c] : col_lo[c]) :
				uniform(col_lo[c], col_hi[c]), NULL, 0, false};
			v = eval(root, row);
			if (!v.null && !(b.lo <= v.x && v.x <= b.hi))
				outside++;
		}
	}
	CHECK(outside == 0, "values within their derived bounds (%d outside, %d trees)", outside, trees);
	CHECK(trees > 1000 && zero_div > 0, "trees with bounds %d, refused divisions %d", trees, zero_div);
}

int
main(void)
{
	check_totality();
	check_logic();
	check_like();
	check_calendar();
	check_date_diff();
	check_bounds();
	return unitcheck_report();
}
