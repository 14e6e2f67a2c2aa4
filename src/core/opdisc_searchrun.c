/*-------------------------------------------------------------------------
 *
 * opdisc_searchrun.c
 *	  opdisc_solve_search(): set up (opdisc_searchsetup.c), first incumbents
 *	  (opdisc_searchls.c), then the exact depth-first search
 *	  (opdisc_search.c) in the caller's thread alone or with helper threads
 *	  that share open subtrees through the pool (opdisc_pool.h).  Plain C and
 *	  POSIX threads; no PostgreSQL.
 *
 * Threads never call back into the caller: only the caller's thread polls
 * should_stop() (it may look at server state); helper threads block every
 * signal and follow the pool's stop flag and the time limit.  The answer
 * is the same for any number of threads (opdisc_search.c, "Ties").
 *
 *-------------------------------------------------------------------------
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/opdisc_searchint.h"

/* Search one open subtree from the pool. */
static void
run_task(SearchCtx *c, const SearchTask *t)
{
	if (t->bound > pool_incumbent(c->pool) + c->margin)
		return;
	memcpy(c->wcur, t->w, sizeof(int) * c->d);
	memset(c->S, 0, sizeof(int64_t) * c->n);
	for (int i = 0; i < t->k; i++)
	{
		int			col = c->order[i];

		if (c->wcur[col] != 0)
			search_add_column(c, c->S, col, c->wcur[col]);
	}
	c->kroot = t->k;
	search_dfs(c, t->k, t->r, t->prefix);
	memset(c->wcur, 0, sizeof(int) * c->d);
}

/* Take subtrees until the search is finished or stopped. */
static void
worker_loop(SearchCtx *c)
{
	SearchTask	t;

	for (;;)
	{
		int			rc = pool_next(c->pool, &t, c->is_main ? SEARCH_POLL_INTERVAL : 0);

		if (rc == 0)
			break;
		if (rc < 0)
		{
			(void) search_check_stop(c);	/* idle caller thread: interrupts, time */
			continue;
		}
		run_task(c, &t);
		free(t.w);
		pool_task_done(c->pool);
	}
}

static void *
search_thread(void *arg)
{
	worker_loop((SearchCtx *) arg);
	return NULL;
}

/*
 * Start up to n - 1 helper threads on clones of c; returns how many run.
 * They block every signal: the server's handlers must run in the caller's
 * thread only.  A thread that cannot be set up is simply not started.
 */
static int
start_threads(SearchCtx *c, SearchCtx *tc, pthread_t *tid, int n)
{
	sigset_t	all,
				old;
	int			started = 0;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (int i = 0; i < n - 1; i++)
	{
		SearchCtx  *t = &tc[started];

		if (search_ctx_clone(t, c) != 0 || pthread_create(&tid[started], NULL, search_thread, t) != 0)
		{
			search_ctx_free(t);
			break;
		}
		started++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return started;
}

/*
 * The exact search with nthreads threads: the root is the pool's first
 * task, the caller's thread works too and polls should_stop() while idle.
 * Falls back to the single-threaded search when the pool cannot be set up.
 */
static void
search_parallel(SearchCtx *c, int nthreads)
{
	SearchPool	pool;
	SearchCtx  *tc = calloc((size_t) nthreads, sizeof(SearchCtx));
	pthread_t  *tid = calloc((size_t) nthreads, sizeof(pthread_t));
	SearchTask	root = {0, c->D2, 0.0, -INFINITY, c->wcur};
	bool		ready = tc != NULL && tid != NULL && pool_init(&pool, c->d) == 0;
	int			started;

	if (ready && !pool_push(&pool, &root))
	{
		pool_destroy(&pool);
		ready = false;
	}
	if (!ready)
	{
		free(tc);
		free(tid);
		search_dfs(c, 0, c->D2, 0.0);
		return;
	}
	search_sync_incumbent(c, &pool, true);
	c->pool = &pool;
	c->is_main = true;
	started = start_threads(c, tc, tid, nthreads);
	worker_loop(c);
	for (int i = 0; i < started; i++)
	{
		pthread_join(tid[i], NULL);
		c->nodes += tc[i].nodes;
		search_ctx_free(&tc[i]);
	}
	c->pool = NULL;
	search_sync_incumbent(c, &pool, false);
	if (pool.stopped && !c->stopped)
		c->stopped = pool.stopped;
	pool_destroy(&pool);
	free(tc);
	free(tid);
}


/* The result of a run that got through setup (rc = 0) or failed in it */
static void
search_report(SearchCtx *c, int rc, OPDiscResult *result)
{
	int			d = c->d;

	if (rc == 0 && !c->stopped)
	{
		memcpy(result->w, c->winc, sizeof(int) * d);
		result->status = OPDISC_OPTIMAL;
	}
	else if (c->stopped)
	{
		if (c->have_inc)
			memcpy(result->w, c->winc, sizeof(int) * d);
		else
			memset(result->w, 0, sizeof(int) * d);
		result->status = c->stopped;
		snprintf(result->message, sizeof(result->message),
				 c->stopped == OPDISC_TIME_LIMIT ?
				 "search stopped by the time limit after %ld nodes; incumbent not certified" :
				 "search interrupted after %ld nodes; incumbent not certified",
				 c->nodes);
	}
	else
	{
		/* out of memory (rc < 0) or non-finite values (rc > 0, message set) */
		if (rc < 0)
			snprintf(result->message, sizeof(result->message),
					 "out of memory in exact search (d = %d, nrows = %d)", d, c->n);
		result->status = OPDISC_FAILED;
		memset(result->w, 0, sizeof(int) * d);
		result->nodes = c->nodes;
		result->seconds = now_seconds(&c->t0);
		return;
	}
	result->nodes = c->nodes;
	result->objective = opdisc_objective(c->p, result->w);
	result->solver_objective = c->have_inc ? c->inc : result->objective;
	result->seconds = now_seconds(&c->t0);
}

void
opdisc_solve_search(const OPDiscProblem *p, OPDiscResult *result)
{
	SearchCtx	ctx;
	SearchCtx  *c = &ctx;
	int			d = p->d;
	int		   *w0 = NULL;
	int			rc;

	memset(c, 0, sizeof(*c));
	c->p = p;
	clock_gettime(CLOCK_MONOTONIC, &c->t0);
	result->status = OPDISC_FAILED;
	result->nodes = 0;
	result->seconds = 0.0;
	result->objective = NAN;
	result->solver_objective = NAN;
	result->message[0] = '\0';
	if (search_problem_invalid(p, result))
		return;
	if (d == 0)
	{
		result->objective = opdisc_objective(p, result->w);
		result->solver_objective = result->objective;
		result->status = OPDISC_OPTIMAL;
		result->seconds = now_seconds(&c->t0);
		return;
	}
	c->d = d;
	c->n = p->nrows;
	c->B = p->B;
	c->D2 = p->D2;

	w0 = calloc(d, sizeof(int));
	rc = w0 == NULL ? -1 : search_ctx_setup(c, result);
	if (rc == 0)
	{
		search_first_incumbents(c, w0);
		if (!c->stopped && p->threads > 1)
			search_parallel(c, p->threads < SEARCH_MAX_THREADS ? p->threads : SEARCH_MAX_THREADS);
		else if (!c->stopped)
			search_dfs(c, 0, p->D2, 0.0);	/* the exact search */
	}
	search_report(c, rc, result);
	free(w0);
	search_ctx_free(c);
}
