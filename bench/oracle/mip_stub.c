/* Used only when src/opdisc_mip.c does not exist: the -m flag then fails. */
#include <stdio.h>
#include "opdisc.h"

void
opdisc_solve_mip(const OPDiscProblem *p, OPDiscResult *result)
{
	(void) p;
	result->status = OPDISC_FAILED;
	snprintf(result->message, sizeof(result->message), "GLPK oracle not built");
}

int
opdisc_write_mip(const OPDiscProblem *p, const char *path)
{
	(void) p;
	(void) path;
	return -1;
}
