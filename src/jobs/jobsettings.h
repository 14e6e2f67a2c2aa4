/*-------------------------------------------------------------------------
 *
 * jobsettings.h
 *	  The settings a job worker pins after it connects (jobsettings.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_JOBSETTINGS_H
#define DPOBJ_JOBSETTINGS_H

#include "postgres.h"

/*
 * Overrides, for the rest of the worker's life (a job worker or the
 * scheduler), the role's and database's defaults (ALTER ROLE / DATABASE
 * ... SET) that would break the job's own writes or misreport its
 * outcome.  Outside a transaction.
 */
extern void jobs_pin_worker_settings(void);

#endif							/* DPOBJ_JOBSETTINGS_H */
