/*-------------------------------------------------------------------------
 *
 * glmproblem.c
 *	  dp_logistic's objective over the distinct rows (glmsolveint.h): its
 *	  value (a compensated sum), gradient (compensated sums) and generalised
 *	  Hessian, shared by Newton (glmsolve.c) and the accelerated descent
 *	  (glmdescent.c).  Plain C.
 *
 *-------------------------------------------------------------------------
 */
#include "core/glmsolveint.h"
#include "core/glmloss.h"

#include <math.h>
#include <string.h>

/*
 * Two entries at a time, one vector instruction per step where the
 * compiler has vectors: each lane rounds every product, sum and
 * difference as the scalar code does, so the results are the same bits.
 */
#if defined(__GNUC__) || defined(__clang__)
typedef double glm_pair __attribute__((vector_size(16)));

/* h[0..1] += a * v[0..1] */
static inline void
hessian_pair(double *restrict h, double a, const double *restrict v)
{
	glm_pair	hv,
				vv,
				av = {a, a};

	memcpy(&hv, h, sizeof(hv));
	memcpy(&vv, v, sizeof(vv));
	hv += av * vv;
	memcpy(h, &hv, sizeof(hv));
}

/* add_gradient's compensated step for g[0..1], comp[0..1] */
static inline void
gradient_pair(double *restrict g, double *restrict comp, double gk, const double *restrict v)
{
	glm_pair	gv,
				cv,
				vv,
				kv = {gk, gk},
				t,
				s;

	memcpy(&gv, g, sizeof(gv));
	memcpy(&cv, comp, sizeof(cv));
	memcpy(&vv, v, sizeof(vv));
	t = kv * vv - cv;
	s = gv + t;
	cv = (s - gv) - t;
	memcpy(comp, &cv, sizeof(cv));
	memcpy(g, &s, sizeof(s));
}
#else
static inline void
hessian_pair(double *restrict h, double a, const double *restrict v)
{
	h[0] += a * v[0];
	h[1] += a * v[1];
}

static inline void
gradient_pair(double *restrict g, double *restrict comp, double gk, const double *restrict v)
{
	for (int j = 0; j < 2; j++)
	{
		double		t = gk * v[j] - comp[j];
		double		s = g[j] + t;

		comp[j] = (s - g[j]) - t;
		g[j] = s;
	}
}
#endif

/* add_gradient (below) over any row's entries, through their columns */
static void
add_gradient_sparse(const GLMProblem *o, const GLMSolveDesign *X, int64_t e0, int64_t e1,
					double gk, double *g)
{
	for (int64_t e = e0; e < e1; e++)
	{
		int			j = X->col[e];
		double		t = gk * X->val[e] - o->comp[j];
		double		s = g[j] + t;

		o->comp[j] = (s - g[j]) - t;
		g[j] = s;
	}
}

/*
 * g[col] += gk * val over one row's entries, compensated (Kahan): comp
 * carries each sum's lost low-order part, so the rounding error of a
 * coordinate is about 2u times the sum of its terms' magnitudes.
 */
static void
add_gradient(const GLMProblem *o, const GLMSolveDesign *X, int64_t e0, int64_t e1,
			 double gk, double *g)
{
	/* a dense row (columns 0 .. p - 1): the same steps, two columns at a time */
	if (e1 - e0 == o->p)
	{
		int			j = 0;

		for (; j + 1 < o->p; j += 2)
			gradient_pair(g + j, o->comp + j, gk, X->val + e0 + j);
		if (j < o->p)
			add_gradient_sparse(o, X, e0 + j, e1, gk, g);
		return;
	}
	add_gradient_sparse(o, X, e0, e1, gk, g);
}

/*
 * H (lower triangle) += hk x x^T over one row's entries.  Most of a pass
 * with the Hessian is this loop: the restrict pointers tell the compiler
 * that the stores into H change no entry of the row, and a dense row
 * (p entries: its columns are 0 .. p - 1, ascending) is added without the
 * column indirection -- the same operations in the same order.
 */
static void
add_hessian(const GLMProblem *o, const GLMSolveDesign *X, int64_t e0, int64_t e1,
			double hk, double *H)
{
	size_t		p = (size_t) o->p;
	int			m = (int) (e1 - e0);
	const int  *restrict col = X->col + e0;
	const double *restrict val = X->val + e0;

	if (m == (int) p)
	{
		for (int e = 0; e < m; e++)
		{
			double		a = hk * val[e];
			double	   *restrict Hrow = H + e * p;
			int			e2 = 0;

			/* two entries at a time: the same multiply and add for each */
			for (; e2 < e; e2 += 2)
				hessian_pair(Hrow + e2, a, val + e2);
			if (e2 == e)
				Hrow[e2] += a * val[e2];
		}
		return;
	}
	for (int e = 0; e < m; e++)
	{
		double		a = hk * val[e];
		double	   *restrict Hrow = H + col[e] * p;

		for (int e2 = 0; e2 <= e; e2++)
			Hrow[col[e2]] += a * val[e2];
	}
}

/*
 * The regulariser and the linear term added to the loss sum f; g and H
 * scaled by 1/n, H symmetric.  With mag, also the sum of the magnitudes of
 * F's terms (the losses are nonnegative): its rounding level's scale.
 */
static double
problem_finish(const GLMProblem *o, const double *th, double f, double *g, double *H,
			   double *mag)
{
	int			p = o->p;
	double		bth = 0;

	for (int j = 0; j < p; j++)
	{
		f += 0.5 * o->reg * th[j] * th[j];
		bth += o->b ? o->b[j] * th[j] : 0;
		if (g)
			g[j] = ((g[j] - o->comp[j]) + o->reg * th[j] + (o->b ? o->b[j] : 0)) * o->scale;
	}
	if (H)
	{
		/* columns are ascending within a row: the lower triangle was filled */
		for (int i = 0; i < p; i++)
		{
			H[i * p + i] = (H[i * p + i] + o->reg) * o->scale;
			for (int j = 0; j < i; j++)
			{
				H[i * p + j] *= o->scale;
				H[j * p + i] = H[i * p + j];
			}
		}
	}
	if (mag)
		*mag = (f + fabs(bth)) * o->scale;
	return (f + bth) * o->scale;
}

/*
 * The terms of one block's observations, added to g and H and to the loss
 * sum f[0], compensated (Kahan, f[1] its lost low-order part): F's rounding
 * error stays at a few u times its value instead of growing with the rows.
 */
static void
eval_block(const GLMProblem *o, const GLMSolveDesign *X, const double *th, double f[2],
		   double *g, double *H, int64_t *seen)
{
	/* thinned: the observations whose index in the whole design is a multiple of stride */
	int64_t		k0 = (o->stride - *seen % o->stride) % o->stride;

	*seen += X->nobs;
	for (int64_t k = k0; k < X->nobs; k += o->stride)
	{
		double		z = 0,
					lf,
					ld,
					l2,
					t,
					s,
					cnt;
		int64_t		e0 = X->start[X->row[k]],
					e1 = X->start[X->row[k] + 1];

		for (int64_t e = e0; e < e1; e++)
			z += th[X->col[e]] * X->val[e];
		glm_loss(o->loss, o->h, X->y[k] * z, &lf, &ld, &l2);
		cnt = X->cnt[k] * (double) o->stride;
		t = cnt * lf - f[1];
		s = f[0] + t;
		f[1] = (s - f[0]) - t;
		f[0] = s;
		if (g)
			add_gradient(o, X, e0, e1, cnt * ld * X->y[k], g);
		if (H && l2 != 0.0)
			add_hessian(o, X, e0, e1, cnt * l2, H);	/* y_k^2 = 1 */
	}
}

double
glmproblem_eval(const GLMProblem *o, const double *th, double *g, double *H, double *mag)
{
	double		f[2] = {0, 0};
	int64_t		seen = 0;

	if (g)
	{
		memset(g, 0, sizeof(double) * o->p);
		memset(o->comp, 0, sizeof(double) * o->p);
	}
	if (H)
		memset(H, 0, sizeof(double) * o->p * o->p);
	for (const GLMSolveDesign *X = glmproblem_block(o, true); X; X = glmproblem_block(o, false))
		eval_block(o, X, th, f, g, H, &seen);
	return problem_finish(o, th, f[0] - f[1], g, H, mag);
}

double
glmproblem_norm2(const double *v, int p)
{
	double		s = 0;

	for (int j = 0; j < p; j++)
		s += v[j] * v[j];
	return sqrt(s);
}
