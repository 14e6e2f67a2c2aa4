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
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "calibrate.h"
#include "dpobj.h"

#include "fmgr.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(dpobj_opdisc_sigma);
PG_FUNCTION_INFO_V1(dpobj_rspm_sigma);
PG_FUNCTION_INFO_V1(dpobj_opdisc_sigma_cal);
PG_FUNCTION_INFO_V1(dpobj_rspm_sigma_cal);

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
	if (!(isfinite(sigma) && sigma > 0))
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
