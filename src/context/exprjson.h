/*-------------------------------------------------------------------------
 *
 * exprjson.h
 *	  The JSON form of dpobj.aggregate()'s expressions and conditions
 *	  (exprjson.c) read into a checked program (core/expreval.h), and
 *	  their SQL in the sealed query: dpobj.expr_value(program, VARIADIC
 *	  "any") and dpobj.expr_test(program, VARIADIC "any") (protected/
 *	  exprfn.c), program {"args": [column, ...], "e": E}.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_EXPRJSON_H
#define DPOBJ_EXPRJSON_H

#include "postgres.h"

#include "utils/jsonb.h"

#include "core/expreval.h"
#include "model/encode.h"

#define EXPR_MAX_COLS	64

typedef struct ExprParsed
{
	ExprProgram *prog;
	char	   *paths[EXPR_MAX_NODES];	/* each node's path, for errors */
	int			ncols;
	char	   *cols[EXPR_MAX_COLS];	/* the columns, in order of first use */
	ExprType	types[EXPR_MAX_COLS];
	Oid			relid;			/* InvalidOid: only cols' names (a program's "args") */
	const char *relation;
} ExprParsed;

/*
 * Reads v (a condition if cond, else a value) at path into x, whose
 * relid/relation (columns looked up in the catalog) or cols/types/ncols
 * (the only columns) are set; a bad node errs 22023 naming its path.
 */
extern void exprjson_parse(ExprParsed *x, JsonbValue *v, bool cond, const char *path);

/* the ExprType of a base type, or -1 */
extern int	exprjson_type(Oid basetype);

/* {"args": [...], "e": e}: the program of a parsed expression */
extern Jsonb *exprjson_program(const ExprParsed *x, JsonbValue *e);

/*
 * A statistic's bounds from enc, the numeric columns' declared domains
 * (NULL: none needed so far): refuses (22023) an expression without them,
 * naming the node; *need lists the columns whose bounds it needs.
 */
extern bool exprjson_bounds(const ExprParsed *x, const Encoding *enc, double *lo, double *hi,
							char ***need, int *nneed);

#endif							/* DPOBJ_EXPRJSON_H */
