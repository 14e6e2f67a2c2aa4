/*-------------------------------------------------------------------------
 *
 * linreg.c
 *	  Private linear regression by sufficient-statistics perturbation
 *	  (linreg.h; docs/PRIVACY.md "Linear regression").  Plain C + GSL.
 *
 * Every noise value is an exact discrete Gaussian (dpnoise.c) added to a
 * statistic rounded to a public lattice; the sums themselves are exact
 * 128-bit integers, so the only floating-point step before the noise is
 * lambda_min's eigenvalue computation, whose error is covered by a margin
 * on its sensitivity (LINREG_LMIN_MARGIN).  GSL's error handler is turned
 * off around every GSL call: a failure is a return value, never an abort.
 *
 *-------------------------------------------------------------------------
 */
#include "core/linreg.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>

#include "core/auditmutant.h"
#include "core/dpnoise.h"

/* the packed loop (AVX-512) where the compiler has it; chosen at run time */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 8
#define LINREG_PACKED 1
#include <immintrin.h>
#else
#define LINREG_PACKED 0
#endif

/* rows of up to this many coordinates are checked for sparsity (a stack index list) */
#define LINREG_SPARSE_MAX_P 1024

/*
 * llround(ldexp(x, LINREG_FRAC_BITS)) for |x| <= 1 (a product of normalised
 * values), without the library calls.  With y = x 2^60, the scaling of x by
 * 2^61 is exact (|x| 2^61 <= 2^61 fits), so the cast gives t = trunc(2y)
 * exactly; rounding half away from zero is floor((t + 1) / 2) for t >= 0
 * and floor(t / 2) for t < 0 (floor((2y + 1) / 2) = floor((floor(2y) + 1)
 * / 2), and symmetrically below zero): (t + 1 + (t >> 63)) >> 1 with
 * arithmetic shifts.  tests/unit/test_linreg_fixed.c checks it bit for bit.
 */
static inline int64_t
fixed(double x)
{
	int64_t		t = (int64_t) (x * 0x1p61);

	return (t + 1 + (t >> 63)) >> 1;
}

/* stage[k] += fixed(a * b[k]) for k < n (64-bit adds: linreg.h, "Staging") */
static inline void
accumulate_row(int64_t *restrict stage, double a, const double *restrict b, int n)
{
	for (int k = 0; k < n; k++)
		stage[k] += fixed(a * b[k]);
}

/*
 * The same sums for a row with m nonzero coordinates, at the indices nz
 * (ascending): only the m(m+1)/2 + m + 1 products that are not zero, added
 * straight into the 128-bit sums (a carry of the whole stage every few such
 * rows would cost more than their adds).  A skipped product is fixed(0) = 0
 * (also for -0.0), so the sums are bit for bit those of the dense loop.
 */
static void
accumulate_sparse(LinRegSum *restrict sums, const double *restrict u, int p,
				  const int *restrict nz, int m, double v)
{
	int			t = linreg_tri(p);

	for (int a = 0; a < m; a++)
	{
		int			i = nz[a];
		/* the upper triangle's row i starts at i p - i (i - 1) / 2 */
		LinRegSum  *row = sums + i * p - i * (i - 1) / 2 - i;

		for (int b = a; b < m; b++)
			linreg_sum_add(&row[nz[b]], fixed(u[i] * u[nz[b]]));
		linreg_sum_add(&sums[t + i], fixed(v * u[i]));
	}
	linreg_sum_add(&sums[t + p], fixed(v * v));
}

/* a function adding stage[k] += fixed(a * b[k]) for k < n */
typedef void (*LinRegRowFn) (int64_t *restrict stage, double a, const double *restrict b, int n);

/* the products of any row: the upper triangle of u u^T row by row (u_i u_j, j >= i), then u v, v^2 */
static inline __attribute__((always_inline)) void
accumulate_dense_with(int64_t *stage, const double *u, int p, double v, LinRegRowFn row)
{
	int			k = 0;

	for (int i = 0; i < p; i++)
	{
		row(stage + k, u[i], u + i, p - i);
		k += p - i;
	}
	row(stage + k, v, u, p);	/* v u_i: the same product as u_i v */
	row(stage + k + p, v, &v, 1);
}

static void
accumulate_dense(int64_t *stage, const double *u, int p, double v)
{
	accumulate_dense_with(stage, u, p, v, accumulate_row);
}

#if LINREG_PACKED
/*
 * accumulate_row four products at a time with AVX-512 (DQ, VL; 256-bit
 * vectors): the same IEEE products a b[k] and scaling by 2^61 (a product of
 * products, nothing to contract into a fused multiply-add), vcvttpd2qq
 * truncating exactly as the cast does, the same arithmetic shifts; the last
 * n mod 4 products one at a time (masked stores are slow on some CPUs).
 */
__attribute__((target("avx512f,avx512dq,avx512vl")))
static inline __m256i
fixed_packed(__m256d a, __m256d b)
{
	__m256i		t = _mm256_cvttpd_epi64(_mm256_mul_pd(_mm256_mul_pd(a, b), _mm256_set1_pd(0x1p61)));

	return _mm256_srai_epi64(_mm256_add_epi64(_mm256_add_epi64(t, _mm256_set1_epi64x(1)),
											  _mm256_srai_epi64(t, 63)), 1);
}

__attribute__((target("avx512f,avx512dq,avx512vl")))
static inline void
accumulate_row_packed(int64_t *restrict stage, double a, const double *restrict b, int n)
{
	const __m256d va = _mm256_set1_pd(a);
	int			k = 0;

	for (; k + 4 <= n; k += 4)
		_mm256_storeu_si256((__m256i *) (stage + k),
							_mm256_add_epi64(_mm256_loadu_si256((const __m256i *) (stage + k)),
											 fixed_packed(va, _mm256_loadu_pd(b + k))));
	for (; k < n; k++)
		stage[k] += fixed(a * b[k]);
}

__attribute__((target("avx512f,avx512dq,avx512vl")))
static void
accumulate_dense_packed(int64_t *stage, const double *u, int p, double v)
{
	accumulate_dense_with(stage, u, p, v, accumulate_row_packed);
}

/* 1 when the CPU (and the OS) run AVX-512 DQ and VL and the packed loop is allowed */
static int	packed_state = -1;
static bool packed_allowed = true;

bool
linreg_packed(bool allow)
{
	__builtin_cpu_init();
	packed_allowed = allow;
	packed_state = allow && __builtin_cpu_supports("avx512f") &&
		__builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
	return packed_state == 1;
}
#else
bool
linreg_packed(bool allow)
{
	(void) allow;
	return false;
}
#endif

/*
 * The indices of u's nonzero coordinates into nz, in order, and their number;
 * -1 as soon as more than a quarter of the p coordinates are nonzero.
 */
static int
sparse_indices(const double *u, int p, int *nz)
{
	int			m = 0;

	for (int i = 0; i < p; i++)
		if (u[i] != 0)
		{
			if (4 * (m + 1) > p)
				return -1;
			nz[m++] = i;
		}
	return m;
}

void
linreg_accumulate(LinRegSum *sums, int64_t *stage, int32_t *staged,
				  const double *u, int p, double v)
{
	int			nz[LINREG_SPARSE_MAX_P];
	int			m;

	/*
	 * One-hot and other sparse rows (at most a quarter of the coordinates
	 * nonzero) add only their nonzero products: a row with 6 of 51 costs
	 * 28 adds instead of 1 378.
	 */
	if (p >= 8 && p <= LINREG_SPARSE_MAX_P && (m = sparse_indices(u, p, nz)) >= 0)
		accumulate_sparse(sums, u, p, nz, m, v);
	else
	{
#if LINREG_PACKED
		if (packed_state < 0)
			linreg_packed(packed_allowed);
		if (packed_state == 1)
			accumulate_dense_packed(stage, u, p, v);
		else
#endif
			accumulate_dense(stage, u, p, v);
		if (++*staged >= LINREG_STAGE_ROWS)
			linreg_flush(sums, stage, staged, p);
	}
}

void
linreg_flush(LinRegSum *sums, int64_t *stage, int32_t *staged, int p)
{
	int			n = linreg_nsums(p);

	for (int k = 0; k < n; k++)
	{
		linreg_sum_add(&sums[k], stage[k]);
		stage[k] = 0;
	}
	*staged = 0;
}

double
linreg_sum_value(LinRegSum s)
{
	return ldexp((double) linreg_sum_get(s), -LINREG_FRAC_BITS);
}

/* one release's lattice and variance; false outside the sampler's range */
static bool
release_calibrate(LinRegRelease *r, double S, double rho, int count)
{
	r->rho = rho;
	r->sensitivity = S;
	dpnoise_gaussian_lattice_composed(S, rho, count, 1, &r->lattice, &r->sigma2);
	if (r->sigma2 == 0 || !isfinite(r->lattice) || r->lattice <= 0 ||
		ilogb(r->lattice) < -LINREG_FRAC_BITS || ilogb(r->lattice) > 60)
		return false;
	r->sigma = sqrt((double) r->sigma2) * r->lattice;
	return true;
}

bool
linreg_calibrate(LinRegMethod method, int p, int k, double rho, double fail_prob,
				 LinRegCalibration *c)
{
	int			tri = linreg_tri(p);
	double		share = rho / (method == LINREG_ADASSP ? 3.0 : 2.0);
	double		grid = ldexp(1.0, -LINREG_FRAC_BITS);
	bool		ok;

#if DPOBJ_MUTANT_IS(adassp)
	share *= DPOBJ_MUTANT_FACTOR * DPOBJ_MUTANT_FACTOR;	/* audit mutant */
#endif
	c->method = method;
	c->p = p;
	c->rho = rho;
	c->fail_prob = fail_prob;
	if (!(isfinite(rho) && rho > 0) || p < 1 || k < 1)
		return false;

	/*
	 * Replace-one: ||u u^T - u' u'^T||_F <= sqrt(2), ||u v - u' v'|| <= 2,
	 * |lambda_min change| <= 1 (Weyl); each per-row rounding to the grid
	 * adds at most grid/2 per coordinate on each side.  A privacy unit of
	 * k rows replaces at most k rows: k times each (triangle inequality
	 * over a chain of k one-row replacements; Weyl's inequality k times).
	 */
	ok = release_calibrate(&c->xx, k * (sqrt(2.0) + sqrt((double) tri) * grid), share, tri);
	ok = ok && release_calibrate(&c->xy, k * (2.0 + sqrt((double) p) * grid), share, p);
	if (method == LINREG_ADASSP)
		ok = ok && release_calibrate(&c->lmin, k * (1.0 + LINREG_LMIN_MARGIN), share, 1);
	else
		c->lmin = (LinRegRelease) {0};
	return ok;
}

/* s / 2^t rounded half away from zero, t >= 0 */
static linreg_int128
shift_round(linreg_int128 s, int t)
{
	linreg_int128 a = s < 0 ? -s : s;

	if (t == 0)
		return s;
	if (t >= 126)
		return 0;
	a = (a + ((linreg_int128) 1 << (t - 1))) >> t;
	return s < 0 ? -a : a;
}

void
linreg_release(gsl_rng *rng, const LinRegRelease *r, const LinRegSum *sums,
			   int count, double *out, void (*poll) (void *), void *arg)
{
	int			t = LINREG_FRAC_BITS + ilogb(r->lattice);

	for (int k = 0; k < count; k++)
	{
		linreg_int128 q = shift_round(linreg_sum_get(sums[k]), t);

		if (poll != NULL && (k & 4095) == 4095)
			poll(arg);
		q += dpnoise_discrete_gaussian(rng, r->sigma2);
		out[k] = (double) q * r->lattice;
	}
}

double
linreg_release_value(gsl_rng *rng, const LinRegRelease *r, double value)
{
	double		q = fmin(fmax(value / r->lattice, -ldexp(1.0, 62)), ldexp(1.0, 62));
	int64_t		a = (int64_t) llround(isfinite(q) ? q : 0.0);

	a += dpnoise_discrete_gaussian(rng, r->sigma2);
	return (double) a * r->lattice;
}

/* the symmetric matrix of an upper triangle, plus shift on the diagonal */
static gsl_matrix *
tri_matrix(const double *tri, int p, double shift)
{
	gsl_matrix *m = gsl_matrix_alloc(p, p);
	int			k = 0;

	if (m == NULL)
		return NULL;
	for (int i = 0; i < p; i++)
		for (int j = i; j < p; j++)
		{
			gsl_matrix_set(m, i, j, tri[k] + (i == j ? shift : 0.0));
			gsl_matrix_set(m, j, i, tri[k]  + (i == j ? shift : 0.0));
			k++;
		}
	return m;
}

double
linreg_min_eigen(const double *tri, int p)
{
	gsl_error_handler_t *old = gsl_set_error_handler_off();
	gsl_matrix *m = tri_matrix(tri, p, 0.0);
	gsl_vector *ev = gsl_vector_alloc(p);
	gsl_eigen_symm_workspace *w = gsl_eigen_symm_alloc(p);
	double		result = NAN;

	if (m != NULL && ev != NULL && w != NULL && gsl_eigen_symm(m, ev, w) == GSL_SUCCESS)
		result = gsl_vector_min(ev);
	if (w)
		gsl_eigen_symm_free(w);
	if (ev)
		gsl_vector_free(ev);
	if (m)
		gsl_matrix_free(m);
	gsl_set_error_handler(old);
	return result;
}

double
linreg_adassp_lambda(const LinRegCalibration *c, double lmin_noisy)
{
	double		p = (double) c->p;
	double		lmin = fmax(0.0, lmin_noisy -
							c->lmin.sigma * sqrt(2.0 * log(3.0 / c->fail_prob)));

	return fmax(0.0, c->xx.sigma * sqrt(p * log(2.0 * p * p / c->fail_prob)) - lmin);
}

bool
linreg_solve(const double *tri, const double *b, int p, double lambda, double floor,
			 double *theta)
{
	gsl_error_handler_t *old = gsl_set_error_handler_off();
	gsl_matrix *m = tri_matrix(tri, p, lambda);
	gsl_matrix *q = gsl_matrix_alloc(p, p);
	gsl_vector *ev = gsl_vector_alloc(p);
	gsl_eigen_symmv_workspace *w = gsl_eigen_symmv_alloc(p);
	bool		ok = false;

	if (m != NULL && q != NULL && ev != NULL && w != NULL &&
		gsl_eigen_symmv(m, ev, q, w) == GSL_SUCCESS)
	{
		for (int j = 0; j < p; j++)
			theta[j] = 0.0;
		for (int k = 0; k < p; k++)
		{
			double		qb = 0.0;

			for (int i = 0; i < p; i++)
				qb += gsl_matrix_get(q, i, k) * b[i];
			qb /= fmax(gsl_vector_get(ev, k), floor);
			for (int j = 0; j < p; j++)
				theta[j] += qb * gsl_matrix_get(q, j, k);
		}
		ok = true;
	}
	if (w)
		gsl_eigen_symmv_free(w);
	if (ev)
		gsl_vector_free(ev);
	if (q)
		gsl_matrix_free(q);
	if (m)
		gsl_matrix_free(m);
	gsl_set_error_handler(old);
	return ok;
}
