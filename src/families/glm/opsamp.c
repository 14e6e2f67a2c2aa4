/*-------------------------------------------------------------------------
 *
 * opsamp.c
 *	  OPSamp, objective perturbation for Lipschitz losses over a continuous
 *	  convex W: dpobj.dp_opsamp(features, label, epsilon, delta, options).
 *
 * Source: Neel, Roth, Vietri, Wu (ICML 2020), Algorithm 2, Theorems 7 and
 * 11, Lemmas 8-10; docs/ALGORITHMS.md, "OPSamp".
 *
 * The loss: the hinge loss scaled into [0, 1].  Rows are clipped to
 * ||x||_1 <= R (option "R"; R_1 = R + 1 with an intercept, which adds a
 * constant feature 1).  On W = [-1, 1]^p,
 *     |<w, x>| <= ||w||_inf ||x||_1 <= R_1,
 * so max(0, 1 - y<w, x>) lies in [0, 1 + R_1], and
 *     l(w; x, y) = max(0, 1 - y <w, x>) / (1 + R_1)   in [0, 1],
 * convex, with gradient ||y x / (1 + R_1)||_inf <= R_1/(1 + R_1): it is
 * G-Lipschitz w.r.t. l1 with G = R_1 / (1 + R_1) < 1.
 *
 * W = [-1, 1]^p: l_inf diameter D_inf = 2, l2 diameter D_2 = 2 sqrt(p).
 *   gamma = min(1, sqrt(eps/n) p^(5/4) sqrt(D_2))        (Lemma 9 clamp)
 *   m     = ceil(ln(2p/delta) / (2 gamma^2))
 *   eta   = sqrt(D_2 sqrt(2p) eps / (250 G^2 p^2 D_inf^2 (1 + ln(2/beta)) n))
 *   sigma^k ~ Exp(rate eta)^p  (mean 1/eta),  k = 1..m
 *   w_k   = argmin_{w in W} L(D, w) - <sigma^k, w>          (an LP)
 *   lambda = 2 p D_inf gamma + 250 eta G p^2 D_inf^2 + alpha/(10 G), alpha = 0
 *   output (1/m) sum_k w_k + Lap(lambda/eps_L)^p,  eps_L = eps + ln(1 - delta),
 *   released snapped: round((1/m) sum_k w_k / g) + DLap(t), times g, with the
 *   public lattice g = dpnoise_lattice(lambda/eps_L), t = ceil((lambda/g + p)
 *   / eps_L) (CKS20 discrete Laplace, exact integers; no floating-point
 *   leak, Mironov 2012)
 * The paper's lambda has 4 D_inf gamma: Lemma 9 bounds each coordinate of
 * the average (Hoeffding, union over p coordinates), so the l1 deviation of
 * one run's average from its mean is p D_inf gamma, twice that between two
 * runs (docs/PRIVACY.md, "OPSamp": the correction, its derivation and the
 * eps_L term).
 * n: gamma, m and eta depend on the number of rows, which the privacy
 * proof does not need (they tune utility; lambda covers any choice), but
 * which is private on the protected path.  dpobj uses the public option
 * "n" when given -- dpobj.train() requires it, so the number of LP solves
 * and every refusal depend on public inputs only (leak 3) -- lowered to
 * the state's K (public) when larger, as the LPs see at most K rows, and
 * the direct aggregate's own row count otherwise (its neighbours replace a
 * row, so the count is the same for both; at most K, the sample's).
 * alpha = 0: each LP is solved to optimality by the simplex method
 * (floating-point tolerances aside); the argmin is unique with probability
 * 1 because sigma^k has a density.
 *
 * The LP (one per call, only sigma changes between calls):
 *   min  sum_k c_k xi_k - <sigma, w>
 *   s.t. xi_k + y_k <x_k, w> / (1 + R_1) >= 1 / (1 + R_1),  xi_k >= 0,
 *        -1 <= w_j <= 1
 * over the distinct (x, y) rows with counts c_k, solved in its dual form
 * (src/core/opsamplp.h: p rows, one column per observation; w is the
 * rows' dual values, kept in [-1, 1]).  Its observations are the state's
 * uniform sample of at most K rows, K sized with GLPK's memory for the LP
 * (glmstate.c).  GLPK rules
 * (docs/ARCHITECTURE.md): terminal output goes through glp_term_hook into
 * a fixed buffer and to the server log at DEBUG1 after the solves; GLPK's
 * fatal-error hook longjmps only to this file's jmp_buf; no elog inside
 * GLPK; interrupts are checked between LP solves; the LP is freed on every
 * path.
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpobj.h"

#include <math.h>
#include <setjmp.h>

#include <glpk.h>
#include <gsl/gsl_randist.h>

#include "base/calibsql.h"
#include "core/dpnoise.h"
#include "families/glm/glm.h"
#include "families/glm/glmstate.h"
#include "mechanisms/mechanism.h"
#include "model/model.h"
#include "core/opsamplp.h"
#include "base/random.h"

#include "utils/builtins.h"
#include "utils/jsonb.h"

PG_FUNCTION_INFO_V1(dpobj_opsamp_finalfn);
PG_FUNCTION_INFO_V1(dpobj_opsamp_calibration);

/* the number of LP solves a run may need; more is refused before charging */
#define DPOBJ_OPSAMP_MAX_M	100000

/* GLPK runs at most this long between two checks for cancel / timeouts */
#define OPSAMP_LP_SLICE_MS	250

typedef struct OPSampCalibration
{
	double		R1;				/* l1 bound incl. intercept */
	double		G;
	double		Dinf;
	double		D2;
	double		gamma;
	int64		m;
	double		eta;
	double		lambda;
	double		eps_L;			/* eps + ln(1 - delta) */
	double		lattice;		/* dpnoise_lattice(lambda / eps_L) */
	double		dlap_t;			/* discrete Laplace scale, lattice units */
	double		laplace_scale;	/* dlap_t * lattice >= lambda / eps_L */
} OPSampCalibration;

static void
opsamp_calibrate(double eps, double delta, double n, int p, double R, bool intercept,
				 double beta, int k, OPSampCalibration *c)
{
	double		pp = (double) p;
	double		mm;

	n = Max(n, 1.0);
	c->R1 = R + (intercept ? 1.0 : 0.0);
	c->G = c->R1 / (1.0 + c->R1);
	c->Dinf = 2.0;
	c->D2 = 2.0 * sqrt(pp);
	c->gamma = Min(1.0, sqrt(eps / n) * pow(pp, 1.25) * sqrt(c->D2));
	mm = ceil(log(2.0 * pp / delta) / (2.0 * c->gamma * c->gamma));
	c->m = mm > 1e15 ? (int64) 1e15 : (int64) mm;
	c->eta = sqrt(c->D2 * sqrt(2.0 * pp) * eps /
				  (250.0 * c->G * c->G * pp * pp * c->Dinf * c->Dinf *
				   (1.0 + log(2.0 / beta)) * n));
	/*
	 * sound lambda (see the header): 2 p D_inf gamma, not 4 D_inf gamma;
	 * the expectation term k-fold for units of k rows (a chain of k
	 * one-row neighbours, docs/PRIVACY.md "Privacy units")
	 */
	c->lambda = 2.0 * pp * c->Dinf * c->gamma +
		(double) k * 250.0 * c->eta * c->G * pp * pp * c->Dinf * c->Dinf + 0.0;
	/* Laplace scale: the concentration event fails with probability delta */
	c->eps_L = eps + log1p(-delta);
	/*
	 * Snapped release (docs/PRIVACY.md "OPSamp"): the average is
	 * rounded to the public lattice g and discrete Laplace noise of t
	 * lattice units is added, with integers only (dpnoise.c).  Rounding
	 * moves each coordinate by at most g/2, so the l1 distance of two
	 * neighbours' rounded averages is at most lambda + p g: t =
	 * (lambda/g + p) / eps_L, rounded up.
	 */
	c->lattice = c->eps_L > 0 ? dpnoise_lattice(c->lambda / c->eps_L) : 0;
	c->dlap_t = c->eps_L > 0 ? ceil((c->lambda / c->lattice + pp) / c->eps_L) : 0;
	c->laplace_scale = c->dlap_t * c->lattice;
}

/*
 * Refused before the charge, on public grounds: no positive eps_L, a
 * discrete Laplace scale the exact sampler cannot take, a lattice too fine
 * for the int64 arithmetic, more LP solves than DPOBJ_OPSAMP_MAX_M.
 */
/*
 * Every constant of the calibration is a finite number, and the noise's
 * scales are normal positive doubles (extreme epsilon, n or R overflow or
 * underflow the closed forms): public grounds, before any charge.
 */
static void
opsamp_check_numbers(const OPSampCalibration *c)
{
	if (!(isfinite(c->G) && isfinite(c->gamma) && c->gamma > 0 && isfinite(c->eta) &&
		  c->eta > 0 && dpobj_noise_scale_ok(c->lambda) && dpobj_noise_scale_ok(c->lattice) &&
		  dpobj_noise_scale_ok(c->laplace_scale)))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("dp_opsamp: the calibration cannot be computed in double precision for these parameters"),
				 errhint("Use an epsilon between 1e-6 and 1e6, a delta of ordinary magnitude and R, n below 1e12.")));
}

static void
opsamp_check_m(const OPSampCalibration *c)
{
	if (!(c->eps_L > 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dp_opsamp: epsilon must exceed -ln(1 - delta)"),
				 errhint("OPSamp's output noise has scale lambda / (epsilon + ln(1 - delta)); use a larger epsilon or a smaller delta.")));
	if (c->dlap_t > (double) ((uint64) 1 << 31) || c->lattice < ldexp(1.0, -60))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("dp_opsamp: the output noise scale is outside the exact sampler's range"),
				 errhint("Use an epsilon between 1e-6 and 1e6 and fewer features.")));
	if (c->m > DPOBJ_OPSAMP_MAX_M)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("dp_opsamp: this run would need more than %d LP solves", DPOBJ_OPSAMP_MAX_M),
				 errhint("Use a larger epsilon, delta or \"n\", or fewer features (m = ln(2p/delta) / (2 gamma^2)).")));
	opsamp_check_numbers(c);
}

/*
 * The n of the calibration given the public "n": at most K, the rows the
 * state keeps (a uniform sample past K, glmstate.c), since the LPs never
 * see more; a larger n would only raise m.  Public: K is a function of
 * dpobj.max_state_memory and d.
 */
static double
opsamp_n_used(double n_public, int d)
{
	return Min(n_public, (double) glm_sampled_rows(GLM_KIND_OPSAMP, d, 0));
}

/*
 * dpobj.train()'s argument check (train.c, mechanism.h): the public "n" is
 * required, and the number of LP solves it implies is checked here, before
 * any row is read (leak 3).
 */
void
opsamp_check_args(const char *aggname, double epsilon, double delta, int d,
				  Jsonb *options)
{
	GLMParams	p;
	OPSampCalibration c;

	glmparams_check_args(GLM_KIND_OPSAMP, aggname, epsilon, delta, d, options, &p);
	if (p.n_public <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dp_opsamp through dpobj.train() or dpobj.submit() needs the public option \"n\""),
				 errhint("Pass a public estimate of the number of rows, e.g. '{\"R\": 1, \"n\": 10000}': OPSamp's number of LP solves depends on it, and the selected row count itself is private.")));
	opsamp_calibrate(epsilon, delta, opsamp_n_used(p.n_public, d), d + (p.intercept ? 1 : 0),
					 p.R, p.intercept, p.beta, p.rows_per_unit, &c);
	opsamp_check_m(&c);
}

/* dpobj.opsamp_calibration(eps, delta, n, d, R, beta, intercept) -> jsonb */
Datum
dpobj_opsamp_calibration(PG_FUNCTION_ARGS)
{
	double		eps = PG_GETARG_FLOAT8(0);
	double		delta = PG_GETARG_FLOAT8(1);
	int64		n = PG_GETARG_INT64(2);
	int32		d = PG_GETARG_INT32(3);
	double		R = PG_GETARG_FLOAT8(4);
	double		beta = PG_GETARG_FLOAT8(5);
	bool		intercept = PG_GETARG_BOOL(6);
	double		n_used;
	OPSampCalibration c;
	StringInfoData buf;

	if (!isfinite(eps) || eps <= 0 || !(delta > 0 && delta < 1) || n < 1 || d < 1 ||
		d > DPOBJ_GLM_MAX_DIM || !isfinite(R) || R <= 0 || !(beta > 0 && beta <= 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid OPSamp parameters"),
				 errhint("Need epsilon > 0, 0 < delta < 1, n >= 1, 1 <= d <= %d, R > 0, 0 < beta <= 1.",
						 DPOBJ_GLM_MAX_DIM)));
	/* as train() calibrates: n lowered to the sample size K this session's cap gives */
	n_used = opsamp_n_used((double) n, d);
	opsamp_calibrate(eps, delta, n_used, d + (intercept ? 1 : 0), R, intercept, beta, 1, &c);
	if (!(c.eps_L > 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("OPSamp: epsilon must exceed -ln(1 - delta)"),
				 errhint("OPSamp's output noise has scale lambda / (epsilon + ln(1 - delta)); use a larger epsilon or a smaller delta.")));
	opsamp_check_numbers(&c);
	model_params_begin(&buf);
	model_params_float(&buf, "n_used", n_used);
	model_params_float(&buf, "G", c.G);
	model_params_float(&buf, "gamma", c.gamma);
	model_params_int(&buf, "m", c.m);
	model_params_float(&buf, "eta", c.eta);
	model_params_float(&buf, "lambda", c.lambda);
	model_params_float(&buf, "lattice", c.lattice);
	model_params_float(&buf, "laplace_scale", c.laplace_scale);
	model_params_end(&buf);
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data)));
}

/* ---- GLPK plumbing ---- */

#define OPSAMP_LOG_BYTES 8192
static char opsamp_log_buf[OPSAMP_LOG_BYTES];
static size_t opsamp_log_len;
static jmp_buf opsamp_error_jmp;

static int
opsamp_term_hook(void *info, const char *s)
{
	size_t		n = strlen(s);

	(void) info;
	if (opsamp_log_len + n >= OPSAMP_LOG_BYTES)
		opsamp_log_len = 0;		/* keep the most recent output */
	if (n < OPSAMP_LOG_BYTES)
	{
		memcpy(opsamp_log_buf + opsamp_log_len, s, n);
		opsamp_log_len += n;
		opsamp_log_buf[opsamp_log_len] = '\0';
	}
	return 1;
}

static void
opsamp_error_hook(void *info)
{
	(void) info;
	longjmp(opsamp_error_jmp, 1);
}

static void
opsamp_flush_log(void)
{
	if (opsamp_log_len > 0)
		dpobj_log_solver("dpobj opsamp GLPK: %s", opsamp_log_buf);
	opsamp_log_len = 0;
	opsamp_log_buf[0] = '\0';
}

/*
 * One LP solve in time slices of OPSAMP_LP_SLICE_MS: between slices (never
 * inside GLPK, whose hooks are off then) cancel and statement_timeout are
 * honoured; the simplex resumes from the basis it reached.  True when the
 * LP was solved to optimality.
 */
static bool
opsamp_simplex(glp_prob *lp, const glp_smcp *smcp, int64 ledger_id)
{
	for (;;)
	{
		int			rc;

		glp_error_hook(opsamp_error_hook, NULL);
		glp_term_hook(opsamp_term_hook, NULL);
		rc = glp_simplex(lp, smcp);
		glp_error_hook(NULL, NULL);
		glp_term_hook(NULL, NULL);
		if (rc != GLP_ETMLIM)
			return rc == 0 && glp_get_status(lp) == GLP_OPT;
		mechanism_poll(ledger_id);
	}
}

/*
 * Step 2 of Algorithm OPSamp (docs/ALGORITHMS.md, "OPSamp"): m LPs with linear
 * perturbation sigma_k ~ Exp(eta)^p, summing the solutions into avg.  GLPK
 * errors longjmp to opsamp_error_jmp (never through PostgreSQL); interrupts
 * are polled between the solves and in opsamp_simplex's time slices.
 * Returns false on a solver failure (after the charge: the caller fails).
 */
static bool
opsamp_run_lps(const double *X, const double *cnt, const double *y, int64 nobs,
			   int pp, const OPSampCalibration *c, gsl_rng *rng, int64 ledger_id,
			   double *avg)
{
	double	   *sig = palloc(sizeof(double) * pp);
	glp_prob   *volatile lp = NULL;
	volatile int failed = 0;	/* 1 GLPK internal error, 2 not optimal */

	opsamp_log_len = 0;
	PG_TRY();
	{
		if (setjmp(opsamp_error_jmp) != 0)
		{
			/* GLPK internal error: it frees everything it allocated */
			glp_error_hook(NULL, NULL);
			glp_term_hook(NULL, NULL);
			glp_free_env();
			lp = NULL;
			failed = 1;
		}
		else
		{
			glp_smcp	smcp;

			glp_error_hook(opsamp_error_hook, NULL);
			glp_term_hook(opsamp_term_hook, NULL);
			lp = opsamp_lp_build(X, cnt, y, nobs, pp, c->R1);
			if (lp == NULL)
				failed = 1;
			opsamp_lp_smcp(&smcp, OPSAMP_LP_SLICE_MS);
			for (int64 k = 0; k < c->m && !failed; k++)
			{
				/* between LP solves: never inside GLPK */
				glp_error_hook(NULL, NULL);
				glp_term_hook(NULL, NULL);
				mechanism_poll(ledger_id);
				for (int j = 0; j < pp; j++)
					sig[j] = gsl_ran_exponential(rng, 1.0 / c->eta);
				opsamp_lp_set_sigma(lp, pp, sig);
				if (!opsamp_simplex(lp, &smcp, ledger_id))
				{
					/* warm start failed: retry from the build's dual feasible basis */
					opsamp_lp_start_basis(lp, pp);
					if (!opsamp_simplex(lp, &smcp, ledger_id))
					{
						failed = 2;
						break;
					}
				}
				for (int j = 0; j < pp; j++)
					avg[j] += opsamp_lp_w(lp, j);
			}
		}
	}
	PG_FINALLY();
	{
		if (lp != NULL)
			glp_delete_prob(lp);
		glp_error_hook(NULL, NULL);
		glp_term_hook(NULL, NULL);
		memset(sig, 0, sizeof(double) * pp);
	}
	PG_END_TRY();
	opsamp_flush_log();
	pfree(sig);
	return failed == 0;
}

/*
 * Step 3 of the release (docs/PRIVACY.md, "OPSamp"): the average of the m LP
 * solutions rounded to the public lattice g, plus discrete Laplace noise of
 * scale t lattice units; the released value is g times an integer.
 */
static void
opsamp_snap_release(double *avg, int pp, const OPSampCalibration *c, gsl_rng *rng)
{
	for (int j = 0; j < pp; j++)
	{
		/* |average| <= 1 (W = [-1, 1]^p) and g >= 2^-60: fits in int64 */
		int64		a = (int64) llround(avg[j] / (double) c->m / c->lattice);

		a += dpnoise_discrete_laplace(rng, (uint64) c->dlap_t, 1);
		avg[j] = (double) a * c->lattice;
	}
}

/*
 * The released model's params: public inputs only; gamma, m, eta, lambda
 * only from a public n, with n_used = min(n, K) they were computed from
 */
static void
opsamp_model_params(StringInfo params, const GLMParams *p, int d, double n_used,
					const OPSampCalibration *c)
{
	model_params_begin(params);
	model_params_text(params, "loss", "scaled_hinge");
	model_params_int(params, "d", d);
	model_params_float(params, "R", p->R);
	model_params_text(params, "norm", "l1");
	model_params_bool(params, "intercept", p->intercept);
	if (p->rows_per_unit > 1)
		model_params_int(params, "rows_per_unit", p->rows_per_unit);
	model_params_float(params, "G", c->G);
	model_params_float(params, "beta", p->beta);
	if (p->n_public > 0)
	{
		/* computed from the public "n" and K only */
		model_params_float(params, "n", p->n_public);
		model_params_float(params, "n_used", n_used);
		model_params_float(params, "gamma", c->gamma);
		model_params_int(params, "m", c->m);
		model_params_float(params, "eta", c->eta);
		model_params_float(params, "lambda", c->lambda);
		model_params_float(params, "lattice", c->lattice);
		model_params_float(params, "laplace_scale", c->laplace_scale);
	}
	model_params_text(params, "noise", "discrete_laplace");
	model_params_end(params);
}

/* a run's design, calibration and output (DPRun.work) */
typedef struct OPSampRun
{
	OPSampCalibration c;
	double	   *X,
			   *cnt,
			   *y;
	int64		nobs;
	int			pp;
	double		n;
	double	   *avg;
} OPSampRun;

static void
opsamp_calibrate_run(DPRun *run)
{
	GLMState   *state = run->state;
	GLMParams  *p = &state->params;
	OPSampRun  *r = palloc0(sizeof(OPSampRun));

	glm_design(state, p->intercept, &r->X, &r->cnt, &r->y, &r->nobs, &r->pp);
	r->n = p->n_public > 0 ? opsamp_n_used(p->n_public, state->rows.d) : 0;
	if (r->n <= 0)
	{
		/* direct path only: dpobj.train() required a public "n" */
		if (run->pctx != NULL)
			elog(ERROR, "dp_opsamp: no public \"n\" on the protected path");
		r->n = 0;
		for (int64 k = 0; k < r->nobs; k++)
			r->n += r->cnt[k];
	}
	opsamp_calibrate(p->epsilon, p->delta, r->n, r->pp, p->R, p->intercept, p->beta,
					 p->rows_per_unit, &r->c);
	opsamp_check_m(&r->c);
	mechanism_calibrated(run, r, "opsamp", p->epsilon, p->delta);
}

static void
opsamp_compute(DPRun *run)
{
	OPSampRun  *r = run->work;

	/* 2. m perturbed LPs */
	r->avg = palloc0(sizeof(double) * r->pp);
	if (!opsamp_run_lps(r->X, r->cnt, r->y, r->nobs, r->pp, &r->c, run->rng, run->ledger_id,
						r->avg))
		mechanism_fail(run, LEDGER_OUTCOME_FAILED, "LP solver failure",
					   ERRCODE_DPOBJ_ORACLE_FAILURE, "dp_opsamp: the LP solver failed",
					   "No model was released; the privacy budget of this run is spent.",
					   "Rescale the features, and report the problem.");

	/* 3. the average snapped to the lattice, plus discrete Laplace noise */
	opsamp_snap_release(r->avg, r->pp, &r->c, run->rng);
	run->detail = "lp";
}

static Datum
opsamp_release(DPRun *run)
{
	GLMState   *state = run->state;
	GLMParams  *p = &state->params;
	OPSampRun  *r = run->work;
	StringInfoData params;

	opsamp_model_params(&params, p, state->rows.d, r->n, &r->c);
	return glm_model(run, "opsamp", r->avg, &params);
}

MECHANISM_FINAL_FUNCTION(dpobj_opsamp_finalfn,
						 .admit = glm_admit, .kind = GLM_KIND_OPSAMP,
						 .calibrate = opsamp_calibrate_run, .compute = opsamp_compute,
						 .release = opsamp_release)
