/*-------------------------------------------------------------------------
 *
 * glmclasses.h
 *	  The public class set of the one-vs-rest multi-class mechanisms
 *	  (dp_logistic_multiclass, dp_noisysgd_multiclass): the option
 *	  "classes", a JSON array of 2..DPOBJ_MAX_CLASSES distinct labels, and
 *	  the lookup of a row's label in it.
 *
 *	  A label is compared by its text form: a text label as is, an integer
 *	  label as its decimal text (so "classes": [0, 1, 2] and ["0", "1", "2"]
 *	  are the same set).  The class index of a row is stored as the last
 *	  word of its row in dpobj.glm_state (glmstate.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_GLMCLASSES_H
#define DPOBJ_GLMCLASSES_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/jsonb.h"

/*
 * Largest number of classes K.  One-vs-rest splits the budget K ways
 * (docs/PRIVACY.md, "Multi-class one-vs-rest"), so beyond a few dozen classes every
 * binary problem drowns in noise; the model holds K weight vectors.
 */
#define DPOBJ_MAX_CLASSES		64

/* longest class label, in bytes */
#define DPOBJ_MAX_CLASS_LEN		256

/*
 * Parses the option "classes" (v) into *n labels (palloc'd text forms,
 * declared order); raises an error naming aggname on anything else than an
 * array of 2..DPOBJ_MAX_CLASSES distinct non-empty strings or integers.
 */
extern void glmclasses_parse(JsonbValue *v, const char *aggname, int *n, char ***classes);

/* the error of a missing option "classes" when n == 0 */
extern void glmclasses_require(int n, const char *aggname);

/*
 * The class index of the label argument argno (text, or bigint when
 * is_int) among the n classes, or -1 when the label is not one of them.
 * The caller has checked that the argument is not NULL.
 */
extern int	glmclasses_index(FunctionCallInfo fcinfo, int argno, bool is_int,
							 int n, char **classes);

#endif							/* DPOBJ_GLMCLASSES_H */
