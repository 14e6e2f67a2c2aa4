/*-------------------------------------------------------------------------
 *
 * linearparams.h
 *	  Public parameters of dp_linear_regression: the privacy parameters
 *	  and the jsonb options R (required), y_min and y_max (required),
 *	  intercept, method, rows_per_unit.  Fixed by the first row (or by dpobj.train()
 *	  before any row); never computed from the data.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_LINEARPARAMS_H
#define DPOBJ_LINEARPARAMS_H

#include "postgres.h"

#include "base/options.h"
#include "core/linreg.h"

#include "utils/jsonb.h"

#define LINREG_AGGNAME "dp_linear_regression"
#define PASSGLM_AGGNAME "dp_passglm"

/* AdaSSP's failure probability (Wang 2018's rho), fixed */
#define LINREG_FAIL_PROB 0.05

typedef struct LinParams
{
	double		epsilon;
	double		delta;
	LinRegMethod method;
	double		R;				/* l2 clip bound of the features */
	double		y_min;			/* label clip range */
	double		y_max;
	bool		intercept;
	int			rows_per_unit;	/* k of a privacy unit ("rows_per_unit"); 1: row level */
	bool		passglm;		/* dp_passglm's run (passglmparams.c): labels +-1, SSP */
	double		ridge;			/* dp_passglm's "ridge" (normalised units); < 0: the default */
	int			metric;			/* dp_passglm's "metric", OP_METRIC_* (0: a regression) */
	/* derived */
	int			p;				/* d, plus 1 with an intercept */
	double		Reff;			/* sqrt(R^2 + 1) with an intercept, else R */
	double		center;			/* (y_min + y_max) / 2 with an intercept, else 0 */
	double		By;				/* max |y - center| over [y_min, y_max] */
} LinParams;

/*
 * The options of dp_linear_regression (LIN_KIND_LINEAR: R, y_min and y_max
 * required) and dp_passglm (LIN_KIND_PASSGLM; ridge -1: the default ridge)
 */
#define LIN_KIND_LINEAR		0x1
#define LIN_KIND_PASSGLM	0x2
extern const DPOptionSpec linparams_options[];

/*
 * The privacy parameters, d and options of parser's kind and aggname, as a
 * first row would check them, into *p (defaults first; null_hint: the
 * hint when options is NULL)
 */
extern void linparams_read(LinParams *p, double epsilon, double delta, int d,
						   Jsonb *options, DPOptionParser *parser, const char *null_hint);

/* Checks privacy parameters, d and options as a first row would; fills *p. */
extern void linparams_init(LinParams *p, double epsilon, double delta, int d,
						   Jsonb *options);

/* the normalised row (u, v) of a finite row x (d values), y (linreg.h) */
extern void linparams_normalise(const LinParams *p, const double *x, int d, double y,
								double *u, double *v);

extern const char *linparams_method_name(LinRegMethod m);

#endif							/* DPOBJ_LINEARPARAMS_H */
