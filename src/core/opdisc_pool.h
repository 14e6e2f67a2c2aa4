/*-------------------------------------------------------------------------
 *
 * opdisc_pool.h
 *	  Shared state of a multi-threaded exact search (opdisc_search.c): the
 *	  pool of open subtrees, the common incumbent and the stop flag.
 *
 * Plain C and POSIX threads, like every oracle file (opdisc.h): no
 * PostgreSQL header, no PostgreSQL call.  The search threads run the same
 * depth-first search on their own scratch; a thread that finds others idle
 * hands them the unvisited children of its shallowest open node (work
 * sharing), so the set of explored subtrees is the single-threaded one
 * minus what a better incumbent prunes earlier.  The answer does not depend
 * on the schedule (opdisc_search.c, "Ties"); only timing and node counts do.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_OPDISC_POOL_H
#define DPOBJ_OPDISC_POOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* An open subtree: columns order[0..k-1] assigned as in w (length d). */
typedef struct SearchTask
{
	int			k;				/* depth: next column is order[k] */
	int			r;				/* remaining norm budget */
	double		prefix;			/* costs of the assigned coordinates */
	double		bound;			/* lower bound of the subtree */
	int		   *w;				/* assignment by column (others 0), owned */
} SearchTask;

typedef struct SearchPool
{
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int			d;

	/* open subtrees (a stack), guarded by lock; ntasks is also read bare */
	SearchTask *tasks;
	int			ntasks;
	int			cap;
	int			nidle;			/* threads waiting for a task (read bare) */
	int			active;			/* threads running a task */
	bool		done;			/* no task left and nobody running */
	int			stopped;		/* 0 or an OPDiscStatus stop (read bare) */

	/* the common incumbent, guarded by lock; inc_value is also read bare */
	int		   *winc;
	double		inc;			/* search-arithmetic value */
	double		inc_exact;		/* opdisc_objective(winc) or NAN */
	bool		have_inc;
	double		inc_value;		/* inc, or +INFINITY without an incumbent */
} SearchPool;

extern int	pool_init(SearchPool *pl, int d);
extern void pool_destroy(SearchPool *pl);

/* Queue a copy of t (t->w is copied); false when out of memory. */
extern bool pool_push(SearchPool *pl, const SearchTask *t);

/*
 * Take the next task into *t (the caller frees t->w): 1 = got one, 0 = the
 * search is finished or stopped, -1 = nothing arrived within timeout
 * seconds (timeout > 0 only; the caller polls its interrupts and retries).
 */
extern int	pool_next(SearchPool *pl, SearchTask *t, double timeout);
extern void pool_task_done(SearchPool *pl);

extern void pool_stop(SearchPool *pl, int status);
extern int	pool_stopped(SearchPool *pl);

/* Somebody waits for work and nothing is queued (a hint, read bare). */
extern bool pool_hungry(SearchPool *pl);

/* The incumbent's search value for pruning (+INFINITY if none), bare. */
extern double pool_incumbent(SearchPool *pl);
extern void pool_publish_incumbent(SearchPool *pl, double inc);

#endif							/* DPOBJ_OPDISC_POOL_H */
