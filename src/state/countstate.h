/*-------------------------------------------------------------------------
 *
 * countstate.h
 *	  The counts state: a float8[] whose first entries are the run's
 *	  parameters and the rest counts or sums added by the combine function,
 *	  the state of private evaluation and of private statistics.  Its
 *	  messages name dp_evaluate, whose state it was first.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_COUNTSTATE_H
#define DPOBJ_COUNTSTATE_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/array.h"

/* the aggregate its messages name */
#define COUNTSTATE_AGGNAME	"dp_evaluate"

/*
 * the run's entries of a state: epsilon, delta, the number of features and
 * k, the rows a privacy unit may have (1 at row level; the noise is for
 * epsilon / k, docs/PRIVACY.md "Privacy units")
 */
enum
{
	CS_EPS, CS_DELTA, CS_D, CS_K
};

/* a new state of nstate entries in aggcontext, the counts 0 */
extern ArrayType *countstate_new(MemoryContext aggcontext, int nstate, double eps,
								 double delta, int d, int k);

/* the values of a state of nstate entries; invalid shapes raise */
extern double *countstate_values(ArrayType *a, int nstate);

/*
 * The combine function for states of nstate entries: the first nrun are
 * the run's parameters (equal in both states, else the error a row with
 * other parameters gets), the rest counts that are added.
 */
extern Datum countstate_combine(FunctionCallInfo fcinfo, int nstate, int nrun);

#endif							/* DPOBJ_COUNTSTATE_H */
