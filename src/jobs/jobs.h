/*-------------------------------------------------------------------------
 *
 * jobs.h
 *	  In-database training jobs: dpobj.submit(), dpobj.cancel(),
 *	  the dpobj.jobs view, and the background workers that run them.
 *
 * Requires shared_preload_libraries = 'dpobj' (the launcher is a static
 * background worker and the running jobs live in shared memory);
 * docs/USAGE.md, "Jobs".
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_JOBS_H
#define DPOBJ_JOBS_H

#include "postgres.h"


/* hard upper bound of dpobj.max_jobs (shared-memory slots) */
#define DPOBJ_MAX_JOB_SLOTS		64

extern int	dpobj_max_jobs;			/* GUC dpobj.max_jobs */
extern int	dpobj_max_jobs_per_role;	/* GUC dpobj.max_jobs_per_role, 0 = none */
extern void dpobj_jobs_define_gucs(void);

/* _PG_init, only while shared_preload_libraries is being processed */
extern void dpobj_jobs_preload_init(void);


/* background worker entry points */
extern PGDLLEXPORT void dpobj_jobs_launcher_main(Datum arg);
extern PGDLLEXPORT void dpobj_jobs_scheduler_main(Datum arg);
extern PGDLLEXPORT void dpobj_job_worker_main(Datum arg);

#endif							/* DPOBJ_JOBS_H */
