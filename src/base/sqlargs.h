/*-------------------------------------------------------------------------
 *
 * sqlargs.h
 *	  The NULL check of an SQL entry point's arguments, for every layer
 *	  that defines one (a family's entry too).  Implemented in sqlargs.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SQLARGS_H
#define DPOBJ_SQLARGS_H

#include "postgres.h"

#include "fmgr.h"

/* the first nargs arguments are not NULL, else 22004 naming fname's first NULL one */
extern void dp_check_not_null(FunctionCallInfo fcinfo, int nargs, const char *fname);

#endif							/* DPOBJ_SQLARGS_H */
