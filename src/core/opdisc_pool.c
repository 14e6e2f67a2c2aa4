/*-------------------------------------------------------------------------
 *
 * opdisc_pool.c
 *	  Task pool, common incumbent and stop flag of the multi-threaded exact
 *	  search (opdisc_pool.h).  Plain C and POSIX threads; no PostgreSQL.
 *
 * Fields documented as "read bare" are written under the lock with atomic
 * stores and read without it (GCC __atomic builtins): a stale read only
 * delays a hand-over or prunes with an older (higher) incumbent, which is
 * always safe.
 *
 *-------------------------------------------------------------------------
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/opdisc_pool.h"

int
pool_init(SearchPool *pl, int d)
{
	pthread_condattr_t ca;

	memset(pl, 0, sizeof(*pl));
	pl->d = d;
	pl->winc = calloc((size_t) (d > 0 ? d : 1), sizeof(int));
	if (pl->winc == NULL)
		return -1;
	pl->inc_value = INFINITY;
	pl->inc_exact = NAN;
	if (pthread_mutex_init(&pl->lock, NULL) != 0)
	{
		free(pl->winc);
		return -1;
	}
	if (pthread_condattr_init(&ca) != 0 ||
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) != 0 ||
		pthread_cond_init(&pl->wake, &ca) != 0)
	{
		pthread_mutex_destroy(&pl->lock);
		free(pl->winc);
		return -1;
	}
	pthread_condattr_destroy(&ca);
	return 0;
}

void
pool_destroy(SearchPool *pl)
{
	for (int i = 0; i < pl->ntasks; i++)
		free(pl->tasks[i].w);
	free(pl->tasks);
	free(pl->winc);
	pthread_cond_destroy(&pl->wake);
	pthread_mutex_destroy(&pl->lock);
}

bool
pool_push(SearchPool *pl, const SearchTask *t)
{
	int		   *w = malloc(sizeof(int) * (size_t) (pl->d > 0 ? pl->d : 1));

	if (w == NULL)
		return false;
	memcpy(w, t->w, sizeof(int) * (size_t) pl->d);
	pthread_mutex_lock(&pl->lock);
	if (pl->ntasks == pl->cap)
	{
		int			cap = pl->cap > 0 ? 2 * pl->cap : 64;
		SearchTask *nt = realloc(pl->tasks, sizeof(SearchTask) * (size_t) cap);

		if (nt == NULL)
		{
			pthread_mutex_unlock(&pl->lock);
			free(w);
			return false;
		}
		pl->tasks = nt;
		pl->cap = cap;
	}
	pl->tasks[pl->ntasks] = *t;
	pl->tasks[pl->ntasks].w = w;
	__atomic_store_n(&pl->ntasks, pl->ntasks + 1, __ATOMIC_RELEASE);
	pthread_cond_signal(&pl->wake);
	pthread_mutex_unlock(&pl->lock);
	return true;
}

/* absolute CLOCK_MONOTONIC time timeout seconds from now */
static struct timespec
deadline_after(double timeout)
{
	struct timespec ts;
	long		ns;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ns = ts.tv_nsec + (long) (timeout * 1e9);
	ts.tv_sec += ns / 1000000000L;
	ts.tv_nsec = ns % 1000000000L;
	return ts;
}

int
pool_next(SearchPool *pl, SearchTask *t, double timeout)
{
	int			rc = 0;

	pthread_mutex_lock(&pl->lock);
	for (;;)
	{
		if (pl->stopped || pl->done)
			break;
		if (pl->ntasks > 0)
		{
			*t = pl->tasks[pl->ntasks - 1];
			__atomic_store_n(&pl->ntasks, pl->ntasks - 1, __ATOMIC_RELEASE);
			pl->active++;
			rc = 1;
			break;
		}
		if (pl->active == 0)
		{
			pl->done = true;
			pthread_cond_broadcast(&pl->wake);
			break;
		}
		__atomic_store_n(&pl->nidle, pl->nidle + 1, __ATOMIC_RELEASE);
		if (timeout > 0)
		{
			struct timespec ts = deadline_after(timeout);
			int			w = pthread_cond_timedwait(&pl->wake, &pl->lock, &ts);

			__atomic_store_n(&pl->nidle, pl->nidle - 1, __ATOMIC_RELEASE);
			if (w != 0 && pl->ntasks == 0 && !pl->done && !pl->stopped)
			{
				rc = -1;
				break;
			}
		}
		else
		{
			pthread_cond_wait(&pl->wake, &pl->lock);
			__atomic_store_n(&pl->nidle, pl->nidle - 1, __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&pl->lock);
	return rc;
}

void
pool_task_done(SearchPool *pl)
{
	pthread_mutex_lock(&pl->lock);
	pl->active--;
	if (pl->active == 0 && pl->ntasks == 0)
	{
		pl->done = true;
		pthread_cond_broadcast(&pl->wake);
	}
	pthread_mutex_unlock(&pl->lock);
}

void
pool_stop(SearchPool *pl, int status)
{
	pthread_mutex_lock(&pl->lock);
	if (pl->stopped == 0)
		__atomic_store_n(&pl->stopped, status, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&pl->wake);
	pthread_mutex_unlock(&pl->lock);
}

int
pool_stopped(SearchPool *pl)
{
	return __atomic_load_n(&pl->stopped, __ATOMIC_ACQUIRE);
}

bool
pool_hungry(SearchPool *pl)
{
	return __atomic_load_n(&pl->nidle, __ATOMIC_RELAXED) > 0 &&
		__atomic_load_n(&pl->ntasks, __ATOMIC_RELAXED) == 0;
}

double
pool_incumbent(SearchPool *pl)
{
	double		v;

	__atomic_load(&pl->inc_value, &v, __ATOMIC_ACQUIRE);
	return v;
}

/* under pl->lock: the new incumbent's search value for bare readers */
void
pool_publish_incumbent(SearchPool *pl, double inc)
{
	__atomic_store(&pl->inc_value, &inc, __ATOMIC_RELEASE);
}
