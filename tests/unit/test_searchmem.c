/*
 * test_searchmem.c -- the exact search's memory against its public bound
 * (opdisc_search_memory(), opdisc.h): the search files are compiled with
 * their malloc / calloc / realloc / free renamed to the counting ones
 * below (Makefile), and on instances of distinct rows (the worst case:
 * one group per row at almost every level), OPDisc's grid and RSPM's, one
 * and two threads, the peak of the bytes held must stay within
 * per_row * n + fixed.  A table added to the search without being counted
 * there fails this test.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/opdisc.h"
#include "unitcheck.h"

static pthread_mutex_t tm_lock = PTHREAD_MUTEX_INITIALIZER;
static size_t tm_cur,
			tm_peak;

/* each block carries its size in a 16-byte header */
static void
tm_count(ptrdiff_t delta)
{
	pthread_mutex_lock(&tm_lock);
	tm_cur += delta;
	if (tm_cur > tm_peak)
		tm_peak = tm_cur;
	pthread_mutex_unlock(&tm_lock);
}

void	   *tm_malloc(size_t n);
void	   *tm_calloc(size_t n, size_t size);
void	   *tm_realloc(void *p, size_t n);
void		tm_free(void *p);

void *
tm_malloc(size_t n)
{
	size_t	   *h = malloc(n + 16);

	if (h == NULL)
		return NULL;
	h[0] = n;
	tm_count((ptrdiff_t) n);
	return (char *) h + 16;
}

void *
tm_calloc(size_t n, size_t size)
{
	void	   *p = tm_malloc(n * size);

	if (p != NULL)
		memset(p, 0, n * size);
	return p;
}

void
tm_free(void *p)
{
	size_t	   *h;

	if (p == NULL)
		return;
	h = (size_t *) ((char *) p - 16);
	tm_count(-(ptrdiff_t) h[0]);
	free(h);
}

void *
tm_realloc(void *p, size_t n)
{
	void	   *q = tm_malloc(n);
	size_t		old = p ? ((size_t *) ((char *) p - 16))[0] : 0;

	if (q == NULL)
		return NULL;
	if (p != NULL)
		memcpy(q, p, old < n ? old : n);
	tm_free(p);
	return q;
}

static uint64_t rng = 0x5EED;

static int64_t
next_value(int64_t range)
{
	rng += 0x9E3779B97F4A7C15ULL;
	uint64_t	z = rng;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z ^= z >> 31;
	return (int64_t) (z % (uint64_t) (2 * range + 1)) - range;
}

/* n distinct rows of d quantised continuous values, one search, its peak */
static void
check_instance(int n, int d, bool rspm, int threads)
{
	int64_t    *x = malloc(sizeof(int64_t) * (size_t) n * d);
	int64_t    *pos = malloc(sizeof(int64_t) * (size_t) n);
	int64_t    *neg = malloc(sizeof(int64_t) * (size_t) n);
	double	   *eta = malloc(sizeof(double) * (d + 1));
	double	   *cost = malloc(sizeof(double) * 3 * d);
	int		   *w = malloc(sizeof(int) * d);
	OPDiscProblem p;
	OPDiscResult res;
	double		per_row,
				fixed;
	int			B,
				D2;

	for (int64_t i = 0; i < (int64_t) n * d; i++)
		x[i] = next_value(1000);
	for (int u = 0; u < n; u++)
	{
		pos[u] = next_value(1) > 0;
		neg[u] = !pos[u];
	}
	for (int j = 0; j <= d; j++)
		eta[j] = 3.0 * (double) next_value(1000) / 1000.0;
	for (int j = 0; j < 3 * d; j++)
		cost[j] = (double) next_value(1000) / 100.0;
	if (rspm)
	{
		B = 1;
		D2 = d;
	}
	else
		opdisc_default_grid(d, 0, 0, &B, &D2);
	memset(&p, 0, sizeof(p));
	p.d = d;
	p.nrows = n;
	p.x = x;
	p.pos = pos;
	p.neg = neg;
	p.B = B;
	p.D2 = D2;
	p.eta = eta;
	p.value_cost = rspm ? cost : NULL;
	p.time_limit = 2.0;	/* the peak comes with the setup and the threads' start */
	p.threads = threads;
	memset(&res, 0, sizeof(res));
	res.w = w;
	tm_cur = tm_peak = 0;
	opdisc_solve_search(&p, &res);
	opdisc_search_memory(d, B, D2, threads, &per_row, &fixed);
	CHECK(res.status == OPDISC_OPTIMAL || res.status == OPDISC_TIME_LIMIT,
		  "%s search, n = %d, d = %d, %d threads: status %d", rspm ? "RSPM" : "OPDisc",
		  n, d, threads, (int) res.status);
	CHECK((double) tm_peak <= per_row * n + fixed,
		  "%s search, n = %d, d = %d, %d threads: peak %zu bytes above the bound %.0f",
		  rspm ? "RSPM" : "OPDisc", n, d, threads, tm_peak, per_row * n + fixed);
	CHECK(tm_cur == 0, "search left %zu bytes allocated", tm_cur);
	printf("# %s n = %d d = %d threads %d: peak %zu bytes, bound %.0f (%.2f)\n",
		   rspm ? "RSPM" : "OPDisc", n, d, threads, tm_peak, per_row * n + fixed,
		   (double) tm_peak / (per_row * n + fixed));
	free(x);
	free(pos);
	free(neg);
	free(eta);
	free(cost);
	free(w);
}

int
main(void)
{
	for (int threads = 1; threads <= 2; threads++)
	{
		check_instance(3000, 4, false, threads);
		check_instance(3000, 4, true, threads);
		check_instance(10000, 10, false, threads);
		check_instance(10000, 10, true, threads);
		check_instance(2000, 23, false, threads);
	}
	return unitcheck_report();
}
