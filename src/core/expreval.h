/*-------------------------------------------------------------------------
 *
 * expreval.h
 *	  Expressions and conditions of dpobj.aggregate() (expreval.c): a
 *	  checked program of nodes, its bounds by interval arithmetic, and its
 *	  total evaluation over one row (date - date: the days between, a
 *	  number).  Plain C (no PostgreSQL), unit-tested
 *	  in tests/unit/test_expreval.c; the JSON form is read into a program
 *	  by context/exprjson.c.
 *
 *	  Total: no value makes an evaluation fail.  SQL's three-valued logic;
 *	  NULL propagates through arithmetic and comparisons; x / 0, a result
 *	  outside +-1e300 (or not finite) and an extract of an infinite date
 *	  are NULL; text compares byte-wise (the C collation), LIKE / ILIKE
 *	  match % and _ with \ escaping, ILIKE folding ASCII letters only.
 *	  Every node is evaluated on every row (no short circuit: AND, OR,
 *	  CASE and COALESCE evaluate all their arguments, then combine).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_EXPREVAL_H
#define DPOBJ_EXPREVAL_H

#include <stdbool.h>

#define EXPR_MAX_NODES	256
#define EXPR_MAX_DEPTH	32
#define EXPR_LIMIT		1e300
/* a date's days since 1970-01-01: PostgreSQL's range (4714-11-24 BC to 5874897-12-31) */
#define EXPR_DATE_LO	(-2440588.0)
#define EXPR_DATE_HI	2145042905.0

/* value types: numbers (booleans as 1/0 in arithmetic), text, dates (days since 1970-01-01), timestamps (seconds) */
typedef enum ExprType
{
	EXPR_NUM = 0, EXPR_BOOL, EXPR_TEXT, EXPR_DATE, EXPR_TS, EXPR_NULLTYPE
} ExprType;

typedef enum ExprKind
{
	/* values */
	EK_COL = 0, EK_CONST, EK_ADD, EK_SUB, EK_MUL, EK_DIV, EK_NEG, EK_ABS, EK_COALESCE,
	EK_CASE,					/* kids: if1, then1, if2, then2, ..., [else] */
	EK_EXTRACT, EK_BOOLVAL,
	/* conditions */
	EK_AND, EK_OR, EK_NOT, EK_CMP, EK_IN, EK_BETWEEN, EK_ISNULL, EK_LIKE, EK_BOOLCOL
} ExprKind;

typedef enum ExprCmp
{
	EC_EQ = 0, EC_NE, EC_LT, EC_LE, EC_GT, EC_GE
} ExprCmp;

typedef enum ExprField
{
	EF_YEAR = 0, EF_QUARTER, EF_MONTH, EF_DAY, EF_DOW, EF_DOY, EF_HOUR, EF_MINUTE, EF_EPOCH
} ExprField;

typedef struct ExprVal
{
	double		x;				/* numbers, booleans (1/0), dates, timestamps */
	const char *s;				/* text */
	int			len;
	bool		null;
} ExprVal;

typedef struct ExprNode
{
	ExprKind	kind;
	ExprType	type;			/* its value's type (conditions: EXPR_BOOL) */
	int			op;				/* EK_CMP: ExprCmp; EK_EXTRACT: ExprField; EK_LIKE: 1 = ilike */
	int			col;			/* EK_COL, EK_BOOLCOL: the row's column */
	bool		has_else;		/* EK_CASE */
	ExprVal		k;				/* EK_CONST */
	int			nkids;
	int			kid0;			/* its children: prog->kids[kid0 .. kid0 + nkids) */
} ExprNode;

typedef struct ExprProgram
{
	int			nnodes;
	ExprNode	nodes[EXPR_MAX_NODES];
	int			nkids;
	int			kids[EXPR_MAX_NODES];
	int			root;
	bool		utf8;			/* text is UTF-8: LIKE's _ is one character */
} ExprProgram;

/* an interval of a numeric node: known bounds, or why not (the node at fault) */
typedef struct ExprBounds
{
	double		lo;
	double		hi;
	bool		empty;			/* always NULL */
	int			unknown;		/* -1: known; else the node that has none */
	bool		zero_div;		/* unknown because a divisor's interval holds 0 */
} ExprBounds;

/* a numeric column's declared bounds (false: none) */
typedef bool (*ExprColBounds) (int col, double *lo, double *hi, void *arg);

/*
 * Appends a node; its children must be appended first (their indices
 * listed in kids).  -1 when the program is full.
 */
extern int	expr_add(ExprProgram *p, const ExprNode *n, const int *kids, int nkids);

/*
 * Checks node i's argument types; NULL if they fit, else a message (and
 * the node at fault into *bad).
 */
extern const char *expr_check(const ExprProgram *p, int i, int *bad);

/* the bounds of numeric node i from the columns' declared ones */
extern ExprBounds expr_bounds(const ExprProgram *p, int i, ExprColBounds cb, void *arg);

/* node i on one row (row[col] the columns' values) */
extern ExprVal expr_eval(const ExprProgram *p, int i, const ExprVal *row);

/* LIKE (icase: ILIKE) of s against pattern pat; utf8: _ matches one UTF-8 character */
extern bool expr_like(const char *s, int slen, const char *pat, int plen, bool icase, bool utf8);

/* the civil date of days since 1970-01-01 */
extern void expr_civil(long long days, int *y, int *m, int *d);

/* days since 1970-01-01 of a proleptic Gregorian date (year 0 = 1 BC) */
extern long long expr_days(long long y, int m, int d);

#endif							/* DPOBJ_EXPREVAL_H */
