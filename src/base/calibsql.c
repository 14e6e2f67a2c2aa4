/*-------------------------------------------------------------------------
 *
 * calibsql.c
 *	  SQL access to the noise calibrations of calibrate.c, for users and
 *	  tests (docs/PRIVACY.md):
 *
 *	  dpobj.opdisc_sigma(epsilon, delta, d2)              0.1.0: the paper's sigma
 *	  dpobj.rspm_sigma(epsilon, delta, d)                 0.1.0: the paper's sigma
 *	  dpobj.opdisc_sigma(epsilon, delta, d, d2, calibration)
 *	  dpobj.rspm_sigma(epsilon, delta, d, calibration)
 *
 *	  The mechanisms use the sound calibration unless a direct aggregate
 *	  asks for {"calibration": "paper"}.
 *
 *	  And the server's side of calibrate.c (calibsql.h): the interrupt
 *	  hook of its searches and the refusal of a zCDP level it cannot find.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <float.h>
#include <math.h>

#include "core/calibrate.h"
#include "base/calibsql.h"
#include "base/dpobj.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(dpobj_opdisc_sigma);
PG_FUNCTION_INFO_V1(dpobj_rspm_sigma);
PG_FUNCTION_INFO_V1(dpobj_opdisc_sigma_cal);
PG_FUNCTION_INFO_V1(dpobj_rspm_sigma_cal);

/*
 * calibrate.c calls this between two quadratures, holding nothing: a
 * cancel, statement_timeout or terminate leaves by longjmp from here.
 */
static bool
calibsql_interrupt(void *arg)
{
	(void) arg;
	CHECK_FOR_INTERRUPTS();
	return false;
}

void
dpobj_calib_init(void)
{
	dp_calib_set_interrupt(calibsql_interrupt, NULL);
}

bool
dpobj_noise_scale_ok(double sigma)
{
	return isfinite(sigma) && sigma >= DBL_MIN;
}

/*
 * The last rho computed: a run asks for the same (eps, delta) up to three
 * times (train()'s argument check, its cost for the ledger, the final
 * function), and zcdp_rho's bisection costs about a hundred conversions.
 * A pure function of its arguments, so remembering it changes nothing.
 */
static double zcdp_cache_eps = NAN;
static double zcdp_cache_delta = NAN;
static double zcdp_cache_rho = NAN;

/* the status of the last search, for dpobj_zcdp_rho_checked's error */
static DPCalibStatus zcdp_last_status = DP_CALIB_OK;

bool
dpobj_zcdp_rho_try(double eps, double delta, double *rho)
{
	if (eps == zcdp_cache_eps && delta == zcdp_cache_delta)
	{
		*rho = zcdp_cache_rho;
		return true;
	}
	*rho = zcdp_rho(eps, delta);
	zcdp_last_status = dp_calib_last_status();
	if (zcdp_last_status != DP_CALIB_OK || !(isfinite(*rho) && *rho > 0))
		return false;
	zcdp_cache_eps = eps;
	zcdp_cache_delta = delta;
	zcdp_cache_rho = *rho;
	return true;
}

double
dpobj_zcdp_rho_checked(const char *aggname, double eps, double delta)
{
	double		rho;

	if (dpobj_zcdp_rho_try(eps, delta, &rho))
		return rho;
	if (zcdp_last_status == DP_CALIB_INFEASIBLE)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: epsilon %g is too small for delta %g: no zCDP level converts to it",
						aggname, eps, delta),
				 errhint("The Renyi conversion reaches epsilon above %g at this delta; use a larger epsilon or a larger delta.",
						 zcdp_eps(0.0, delta))));
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("%s: no zCDP level can be computed for epsilon %g and delta %g (%s)",
					aggname, eps, delta, dp_calib_status_name(zcdp_last_status)),
			 errhint("Use an epsilon and a delta of ordinary magnitude; docs/PRIVACY.md explains the conversion.")));
	return 0.0;					/* keep compiler quiet */
}

static void
calibsql_check(double epsilon, double delta, int d, int D2)
{
	if (!isfinite(epsilon) || epsilon <= 0 || !isfinite(delta) || delta <= 0 ||
		delta >= 1 || d < 1 || d > DPOBJ_HALFSPACE_MAX_DIM || D2 < 1 || D2 > DPOBJ_MAX_D2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid calibration parameters"),
				 errhint("Need epsilon > 0, 0 < delta < 1, 1 <= d <= %d and 1 <= D2 <= %d.",
						 DPOBJ_HALFSPACE_MAX_DIM, DPOBJ_MAX_D2)));
}

static DPCalibration
calibsql_calibration(text *t)
{
	char	   *s = text_to_cstring(t);
	DPCalibration cal;

	if (!dp_calibration_parse(s, &cal))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown calibration \"%s\"", s),
				 errhint("Use \"sound\" or \"paper\".")));
	return cal;
}

static Datum
calibsql_result(double sigma)
{
	if (!dpobj_noise_scale_ok(sigma))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no noise scale can be calibrated for these parameters"),
				 errhint("Use a larger delta or a smaller epsilon; docs/PRIVACY.md explains the calibration.")));
	return Float8GetDatum(sigma);
}

/* 0.1.0: the paper's OPDisc sigma = 7 D2 sqrt(ln(1/delta)) / epsilon (d unused) */
Datum
dpobj_opdisc_sigma(PG_FUNCTION_ARGS)
{
	double		epsilon = PG_GETARG_FLOAT8(0);
	double		delta = PG_GETARG_FLOAT8(1);
	int32		D2 = PG_GETARG_INT32(2);

	calibsql_check(epsilon, delta, 1, D2);
	return calibsql_result(opdisc_sigma(epsilon, delta, 1, D2, DP_CALIBRATION_PAPER));
}

/* 0.1.0: the paper's RSPM sigma = 7 sqrt(m ln(1/delta)) / epsilon, m = 2d */
Datum
dpobj_rspm_sigma(PG_FUNCTION_ARGS)
{
	double		epsilon = PG_GETARG_FLOAT8(0);
	double		delta = PG_GETARG_FLOAT8(1);
	int32		d = PG_GETARG_INT32(2);

	calibsql_check(epsilon, delta, d, 1);
	return calibsql_result(rspm_sigma(epsilon, delta, d, DP_CALIBRATION_PAPER));
}

Datum
dpobj_opdisc_sigma_cal(PG_FUNCTION_ARGS)
{
	double		epsilon = PG_GETARG_FLOAT8(0);
	double		delta = PG_GETARG_FLOAT8(1);
	int32		d = PG_GETARG_INT32(2);
	int32		D2 = PG_GETARG_INT32(3);

	calibsql_check(epsilon, delta, d, D2);
	return calibsql_result(opdisc_sigma(epsilon, delta, d, D2,
										calibsql_calibration(PG_GETARG_TEXT_PP(4))));
}

Datum
dpobj_rspm_sigma_cal(PG_FUNCTION_ARGS)
{
	double		epsilon = PG_GETARG_FLOAT8(0);
	double		delta = PG_GETARG_FLOAT8(1);
	int32		d = PG_GETARG_INT32(2);

	calibsql_check(epsilon, delta, d, 1);
	return calibsql_result(rspm_sigma(epsilon, delta, d,
									  calibsql_calibration(PG_GETARG_TEXT_PP(3))));
}
