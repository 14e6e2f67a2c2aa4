/*-------------------------------------------------------------------------
 *
 * halfspaceparams.c
 *	  Options and public parameters of the halfspace mechanisms
 *	  (halfspaceparams.h): the table of B, D2, Q (a power of two: Q x is then
 *	  exact in binary floating point, halfspacestate.c), oracle, time_limit,
 *	  calibration, rows_per_unit and sample_rows.
 *
 *-------------------------------------------------------------------------
 */
#include "families/halfspace/halfspaceparams.h"

#include <math.h>

#include "base/calibsql.h"
#include "core/dpnoise.h"
#include "core/opdisc.h"
#include "base/options.h"
#include "state/rowinput.h"


static void
parse_oracle(JsonbValue *v, const char *key, void *field, void *arg)
{
	char	   *s = dp_option_string(v, key, "Use \"auto\", \"mip\" or \"search\".");

	if (strcmp(s, "auto") == 0)
		*(DPObjOracle *) field = DPOBJ_ORACLE_AUTO;
	else if (strcmp(s, "mip") == 0)
		*(DPObjOracle *) field = DPOBJ_ORACLE_MIP;
	else if (strcmp(s, "search") == 0)
		*(DPObjOracle *) field = DPOBJ_ORACLE_SEARCH;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown oracle \"%s\"", s),
				 errhint("Use \"auto\", \"mip\" or \"search\".")));
}

static void
parse_time_limit(JsonbValue *v, const char *key, void *field, void *arg)
{
	double		f = dp_option_float8(v);

	if (!(f >= 0 && f <= 86400.0 * 7))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"time_limit\" must be a number of seconds between 0 and 604800"),
				 errhint("0 means no limit; omit the option to use dpobj.solver_time_limit.")));
	*(double *) field = f;
}

/* "sound" (default: calibrate.c's numeric bound) or "paper" (the boxed sigma) */
static void
parse_calibration(JsonbValue *v, const char *key, void *field, void *arg)
{
	char	   *s = dp_option_string(v, key, "Use \"sound\" or \"paper\".");

	if (!dp_calibration_parse(s, (DPCalibration *) field))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown calibration \"%s\"", s),
				 errhint("Use \"sound\" (the default) or \"paper\" (the paper's sigma, direct aggregates only; docs/PRIVACY.md).")));
}

/* a power of two makes the quantisation Q x exact */
static void
parse_Q(JsonbValue *v, const char *key, void *field, void *arg)
{
	int			q = dp_option_int(v, key, 1, DPOBJ_MAX_Q);

	if ((q & (q - 1)) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"Q\" must be a power of two"),
				 errhint("A power of two makes the quantisation Q*x exact; the default is %d.",
						 DPOBJ_DEFAULT_Q)));
	*(int *) field = q;
}

/* the enums are stored as ints (DP_OPTION_INT) */
StaticAssertDecl(sizeof(DPObjOracle) == sizeof(int) && sizeof(DPCalibration) == sizeof(int),
				 "DPObjOracle and DPCalibration must be of int size");

#define HS_OPTION(key, type, field, dflt, ...) DP_OPTION(key, type, HSParams, field, dflt, __VA_ARGS__)

const DPOptionSpec hsparams_options[] = {
	HS_OPTION("B", DP_OPTION_INT, B, -1, .lo = 1, .hi = DPOBJ_MAX_B),
	HS_OPTION("D2", DP_OPTION_INT, D2, -1, .lo = 1, .hi = DPOBJ_MAX_D2),
	HS_OPTION("Q", DP_OPTION_INT, Q, DPOBJ_DEFAULT_Q, .parse = parse_Q),
	HS_OPTION("oracle", DP_OPTION_INT, oracle, 0, .setting = &dpobj_oracle, .parse = parse_oracle),
	HS_OPTION("time_limit", DP_OPTION_DOUBLE, time_limit, -1, .parse = parse_time_limit),
	HS_OPTION("calibration", DP_OPTION_INT, calibration, DP_CALIBRATION_SOUND,
			  .parse = parse_calibration),
	HS_OPTION("rows_per_unit", DP_OPTION_INT, rows_per_unit, 1, .lo = 1,
			  .hi = DPOBJ_MAX_ROWS_PER_UNIT),
	HS_OPTION("sample_rows", DP_OPTION_INT, sample_rows, 0, .lo = 1, .hi = PG_INT32_MAX),
	{NULL}
};

void
hsparams_init(HSParams *params, double epsilon, double delta, Jsonb *options)
{
	DPOptionParser parser = {.spec = hsparams_options, .params = params,
	.example = "'{\"B\": 2, \"D2\": 4}'"};

	params->epsilon = epsilon;
	params->delta = delta;
	dp_options_defaults(hsparams_options, params);
	if (options != NULL)
		dp_options_parse(&parser, options);
	/* the paper's sigma is for one row; units have the sound bound only */
	if (params->rows_per_unit > 1 && params->calibration == DP_CALIBRATION_PAPER)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"rows_per_unit\" needs the sound calibration"),
				 errhint("The paper's sigma covers one changed row; omit \"calibration\" for privacy units (docs/PRIVACY.md, \"Privacy units\").")));
}

double
hsparams_unit_epsilon(const HSParams *params)
{
	return dp_epsilon_per_row(params->epsilon, params->rows_per_unit);
}

void
hsparams_check_dimension(const char *aggname, int d)
{
	if (d > DPOBJ_HALFSPACE_MAX_DIM)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s supports at most %d features, got %d",
						aggname, DPOBJ_HALFSPACE_MAX_DIM, d),
				 errhint("The exact oracle searches a grid exponential in the dimension; reduce the feature set.")));
}

void
hsparams_check_args(const char *aggname, double epsilon, double delta, int d,
					Jsonb *options)
{
	HSParams	params;

	dp_check_privacy_params(epsilon, delta);
	hsparams_check_dimension(aggname, d);
	hsparams_init(&params, epsilon, delta, options);
}

/*
 * The default grid is opdisc_default_grid()'s, except under the MIP oracle:
 * GLPK's formulation certifies small norm bounds slowly (d = 7: D2 = 4 not
 * within 20 s where the paper's D2 = 7 took 1.8 s; docs/ORACLE.md), so "mip"
 * keeps the paper's grid B = floor(sqrt d), D2 = d.  Both are public.
 */
void
hsparams_resolve(const HSParams *params, int d, int *B, int *D2)
{
	if (params->oracle == DPOBJ_ORACLE_MIP)
	{
		*D2 = params->D2 > 0 ? params->D2 : d;
		*B = params->B > 0 ? params->B : (int) floor(sqrt((double) d) + 1e-9);
		return;
	}
	opdisc_default_grid(d, params->B, params->D2, B, D2);
}

/*
 * sigma's lattice g must be a normal double, and at most 1 so that RSPM's
 * shift of 2 is a lattice vector (docs/PRIVACY.md "Lattice noise in an
 * objective"); both hold for sigma in [2^-994, 2^27).
 */
static double
hsparams_sigma_checked(double sigma, const char *mechanism)
{
	double		g;
	uint64_t	s2;

	dpnoise_objective_lattice(sigma, &g, &s2);
	if (!dpobj_noise_scale_ok(sigma) || !(g > 0 && g <= 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: no noise scale can be calibrated for these epsilon, delta and grid", mechanism),
				 errhint("Use a larger delta or a smaller epsilon; docs/PRIVACY.md explains the calibration.")));
	return sigma;
}

/* OPDisc, Algorithm 1 (docs/ALGORITHMS.md, "OPDisc"; calibrate.h) */
double
hsparams_opdisc_sigma(const HSParams *params, int d)
{
	int			B,
				D2;

	hsparams_resolve(params, d, &B, &D2);
	if (params->rows_per_unit > 1)
		return hsparams_sigma_checked(opdisc_sigma_rows(params->epsilon, params->delta, d, D2,
														params->rows_per_unit), "dp_halfspace");
	return hsparams_sigma_checked(opdisc_sigma(params->epsilon, params->delta, d, D2,
											   params->calibration), "dp_halfspace");
}

/* RSPM, Algorithm 3 with m = 2d separators (docs/ALGORITHMS.md, "RSPM") */
double
hsparams_rspm_sigma(const HSParams *params, int d)
{
	if (params->rows_per_unit > 1)
		return hsparams_sigma_checked(rspm_sigma_rows(params->epsilon, params->delta, d,
													  params->rows_per_unit), "dp_halfspace_rspm");
	return hsparams_sigma_checked(rspm_sigma(params->epsilon, params->delta, d,
											 params->calibration), "dp_halfspace_rspm");
}

/* Gaussian noise of scale sigma on its lattice, exact (dpnoise.h) */
void
hsparams_draw_noise(gsl_rng *rng, double sigma, int n, double *out)
{
	double		g;
	uint64_t	s2;

	dpnoise_objective_lattice(sigma, &g, &s2);
	dpnoise_objective_draw(rng, g, s2, n, out);
}
