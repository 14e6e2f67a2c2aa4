/*-------------------------------------------------------------------------
 *
 * glmstate.c
 *	  Transition, combine, serialise and deserialise functions of the
 *	  continuous-weight mechanisms (dp_logistic, dp_noisysgd, dp_opsamp),
 *	  options parsing.  The losses they share are plain C (glmloss.c).
 *
 * Clipping (docs/ALGORITHMS.md, "L2-regularised GLMs": "rows clipped to ||x|| <= R"): each
 * row x is replaced by x * min(1, R/||x||) with the l2 norm (dp_logistic,
 * dp_noisysgd) or the l1 norm (dp_opsamp, whose Lipschitz constant is
 * w.r.t. l1, section 3) (rowclip.h).  Clipping is a fixed per-row map, so
 * the sensitivity analyses hold for any data.  With "R": "private"
 * (dp_logistic, dp_noisysgd) R is +inf here: the rows stay unclipped, and
 * the final function clips them to R-hat, a DP output (glmprivr.h).
 *
 * Bad rows follow dp_halfspace's rules (halfspacestate.c): on the direct path an
 * error naming the problem, never the value; on the protected path
 * (dpobj.train) the row is dropped silently.
 *
 * The state is dpobj.glm_state (aggstate.h): an expanded object updated in
 * place, shipped between processes and Citus nodes in its flat form,
 * combined by merging counts.  Final functions see the rows in canonical
 * order (glmstate_final_begin), so a mechanism's output under a fixed seed
 * does not depend on the order rows or partial states arrived in.
 *
 *-------------------------------------------------------------------------
 */
#include "families/glm/glmstate.h"

#include <math.h>

#include "state/aggsample.h"
#include "state/aggstate.h"
#include "state/glmclasses.h"
#include "mechanisms/classweights.h"
#include "context/protected.h"
#include "state/claim.h"
#include "model/model.h"
#include "core/opsamplp.h"
#include "core/rowclip.h"
#include "state/keptdesign.h"
#include "state/rowinput.h"

#include "utils/array.h"
#include "utils/json.h"

PG_FUNCTION_INFO_V1(dpobj_glm_logistic_transfn);
PG_FUNCTION_INFO_V1(dpobj_glm_noisysgd_transfn);
PG_FUNCTION_INFO_V1(dpobj_glm_opsamp_transfn);
PG_FUNCTION_INFO_V1(dpobj_glm_auto_transfn);
PG_FUNCTION_INFO_V1(dpobj_glm_logistic_mc_transfn);
PG_FUNCTION_INFO_V1(dpobj_glm_logistic_mc_int_transfn);
PG_FUNCTION_INFO_V1(dpobj_glm_noisysgd_mc_transfn);
PG_FUNCTION_INFO_V1(dpobj_glm_noisysgd_mc_int_transfn);
PG_FUNCTION_INFO_V1(dpobj_glm_state_combine);
PG_FUNCTION_INFO_V1(dpobj_glm_state_in);
PG_FUNCTION_INFO_V1(dpobj_glm_state_out);
PG_FUNCTION_INFO_V1(dpobj_glm_state_recv);
PG_FUNCTION_INFO_V1(dpobj_glm_state_send);

/* 0.1.0 entry points of the "internal" state (aggstate_obsolete) */
PG_FUNCTION_INFO_V1(dpobj_logistic_transfn);
PG_FUNCTION_INFO_V1(dpobj_noisysgd_transfn);
PG_FUNCTION_INFO_V1(dpobj_opsamp_transfn);
PG_FUNCTION_INFO_V1(dpobj_glm_combine);
PG_FUNCTION_INFO_V1(dpobj_glm_serial);
PG_FUNCTION_INFO_V1(dpobj_glm_deserial);

/* the loss and bounds every GLM model's params carry (public inputs) */
void
glm_params_model(StringInfo buf, const GLMParams *p, int d)
{
	model_params_text(buf, "loss", p->loss == GLM_LOSS_LOGISTIC ? "logistic" :
					  p->loss == GLM_LOSS_HUBER ? "huber" : "hinge");
	model_params_int(buf, "d", d);
	model_params_float(buf, "R", p->R);
	model_params_bool(buf, "intercept", p->intercept);
	if (p->loss == GLM_LOSS_HUBER)
		model_params_float(buf, "h", p->h);
	if (p->rows_per_unit > 1)
		model_params_int(buf, "rows_per_unit", p->rows_per_unit);
	if (p->sample_rows > 0)
		model_params_int(buf, "sample_rows", p->sample_rows);
	classweights_model_params(buf, p->weight_pos, p->weight_neg);
}

/* ---- the state ---- */

/* the expanded state */
typedef struct GLMExpanded
{
	DPAggState	base;
	GLMParams	params;			/* from kind, epsilon, delta, options */
	double	   *scratch;		/* the current row, clipped */
} GLMExpanded;

static void glm_init(DPAggState *base);
static void glm_check_row(const DPAggState *base, const uint64 *row);
static const char *glm_aggname(int kind);
static bool glm_spills(int kind);
static int64 glm_sample_rows(const DPAggState *base);
static int64 glm_ship_rows(const DPAggState *base);

static const DPStateType glm_type = {
	"dpobj.glm_state",
	0x44504732,					/* "DPG2" (0.3.0: "DPG1", no K) */
	DP_ROW_ORDER_FLOAT8,
	sizeof(GLMExpanded),
	glm_init,
	glm_check_row,
	glm_aggname,
	glm_spills,
	glm_sample_rows,
	glm_ship_rows
};

/*
 * dp_logistic and dp_noisysgd read their rows in blocks (glmblocks.c), so
 * their states keep at most dpobj.max_state_memory of rows in memory; the
 * other kinds still hold all their rows (docs/SCALING.md).
 */
static bool
glm_spills(int kind)
{
	return kind == GLM_KIND_LOGISTIC || kind == GLM_KIND_SGD;
}

/*
 * What the final function of a sampling kind holds per state row of w
 * words, at most two observations a row: the canonical order and copy
 * (8w + 20); the dense design (glm_design: 8 (w + 1) + 16 an observation,
 * 8 of row numbers) of OPSamp, 'auto' and noisy GD; 'auto''s sparse design
 * too (glm_minimise_design: 8 + 12 (w + 1) a row, 20 an observation) and
 * its parts' arrays (36 + 8 (candidates + 1) an observation, at most four
 * candidates); one-vs-rest's rows grouped by x (8 (w - 1) + 8 C, C
 * classes), then per class a view (16) and that class's design; OPSamp's
 * LP in GLPK, at most opsamp_lp_obs_bytes(w + 1) an observation
 * (opsamplp.h, measured) and opsamp_lp_fixed_bytes(w + 1) in all.
 */
static double
glm_final_row_bytes(int kind, int w, int nclasses)
{
	double		dense = 16.0 * (w + 1) + 40;
	double		sparse = 12.0 * (w + 1) + 48;
	double		bytes = aggsample_canonical_row_bytes(w);

	switch (kind)
	{
		case GLM_KIND_OPSAMP:
			return bytes + dense + 2 * opsamp_lp_obs_bytes(w + 1);
		case GLM_KIND_AUTO:
			return bytes + dense + sparse + 2 * (36.0 + 8 * 5);
		case GLM_KIND_LOGISTIC_MC:
			return bytes + 8.0 * (w - 1) + nclasses * (16.0 + 12.0 * w + 48);
		case GLM_KIND_SGD_MC:
			return bytes + 8.0 * (w - 1) + nclasses * (16.0 + 16.0 * w + 40);
		default:
			return bytes;
	}
}

/*
 * K of a state of a kind that samples (not dp_logistic or dp_noisysgd):
 * what dpobj.max_state_memory holds with the final function's work; a
 * public function of the cap, w and the classes (dp_opsamp calibrates with
 * it, opsamp.c).
 */
int64
glm_sampled_rows(int kind, int w, int nclasses)
{
	return aggsample_rows(w, 0, glm_final_row_bytes(kind, w, nclasses),
						  kind == GLM_KIND_OPSAMP ? opsamp_lp_fixed_bytes(w + 1) : 0);
}

/*
 * The kinds that still need every row in memory (OPSamp, 'auto', one-vs-rest)
 * keep a uniform sample of what dpobj.max_state_memory holds with their
 * final function's work (aggsample.h).  dp_logistic and dp_noisysgd keep
 * every row (spilling) unless "sample_rows" asks for a sample: train() on a
 * Citus table does, so that no shard state outgrows one value and the
 * coordinator holds at most the cap.
 */
static int64
glm_sample_rows(const DPAggState *base)
{
	const GLMExpanded *st = (const GLMExpanded *) base;

	if (glm_spills(base->kind))
		return keptrows_sample_rows(base->d, st->params.sample_rows);
	return glm_sampled_rows(base->kind, base->d, st->params.nclasses);
}

/*
 * What a dp_logistic or dp_noisysgd state that keeps every row ships at
 * most (a parallel worker's or a Citus shard's part): the K its node's cap
 * holds, as "sample_rows" would give it (train() on Citus uses the same K).
 */
static int64
glm_ship_rows(const DPAggState *base)
{
	return keptrows_sample_rows(base->d, PG_INT32_MAX);
}

static const char *
glm_aggname(int kind)
{
	return glm_kind_aggname((GLMKind) kind);
}

/* the first row's checks, in its order: privacy parameters, d, options */
static void
glm_init(DPAggState *base)
{
	GLMExpanded *st = (GLMExpanded *) base;
	GLMKind		kind = (GLMKind) base->kind;

	if ((kind != GLM_KIND_LOGISTIC && kind != GLM_KIND_SGD && kind != GLM_KIND_OPSAMP &&
		 kind != GLM_KIND_AUTO && !glm_kind_multiclass(kind)) ||
		base->d < 1 + glmstate_class_words(kind))
		aggstate_corrupt(&glm_type);
	dp_check_privacy_params(base->epsilon, base->delta);
	dp_check_dimension(glm_kind_aggname(kind), base->d - glmstate_class_words(kind));
	glmparams_init(kind, &st->params, base->epsilon, base->delta, base->options);
	st->scratch = palloc(sizeof(double) * base->d);
}

static void
glm_check_row(const DPAggState *base, const uint64 *row)
{
	const GLMExpanded *st = (const GLMExpanded *) base;
	int			nx = base->d - glmstate_class_words(base->kind);

	/* words are finite and never -0.0 (aggstate.c) */
	if (rowclip_plain_norm((const double *) row, nx, base->kind == GLM_KIND_OPSAMP) >
		st->params.R * (1.0 + 1e-12))
		aggstate_corrupt(&glm_type);
	/* multi-class: the last word is a class index */
	if (nx < base->d)
	{
		double		c = ((const double *) row)[nx];

		if (!(c >= 0 && c < st->params.nclasses && c == floor(c)))
			aggstate_corrupt(&glm_type);
	}
}

/*
 * The class index of a multi-class row (glmclasses.h), -1 for a binary
 * kind; -2 when the row is to be dropped (protected path: a label that is
 * not a declared class), an error on the direct path.
 */
static int
glm_row_class(FunctionCallInfo fcinfo, const GLMExpanded *st, DPRowInput *row,
			  bool int_label)
{
	int			k;

	if (!glm_kind_multiclass(st->base.kind))
		return -1;
	k = glmclasses_index(fcinfo, 2, int_label, st->params.nclasses, st->params.classes);
	if (k >= 0)
		return k;
	if (dp_row_drops_bad(row))
		return -2;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s: label is not one of the declared classes", glm_kind_aggname(st->base.kind)),
			 errhint("Filter out rows whose label is not in the option \"classes\", or declare it there.")));
	return -2;					/* keep compiler quiet */
}

/* the transition function of the aggregates (int_label: a bigint class label) */
static Datum
glm_accum(FunctionCallInfo fcinfo, GLMKind kind, bool int_label)
{
	const char *aggname = glm_kind_aggname(kind);
	int			cw = glmstate_class_words(kind);
	DPRowInput	row;
	GLMExpanded *st;
	Jsonb	   *options = PG_ARGISNULL(5) ? NULL : PG_GETARG_JSONB_P(5);
	const float8 *vals;
	int			cls;

	if (!dp_row_read(fcinfo, aggname, &row))
	{
		/* dropped on the protected path: state unchanged */
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	if (PG_ARGISNULL(0))
		st = (GLMExpanded *) aggstate_new(&glm_type, row.aggcontext, kind, row.d + cw,
										  row.epsilon, row.delta, options, 0);
	else
	{
		st = (GLMExpanded *) aggstate_writable(&glm_type, PG_GETARG_DATUM(0), row.aggcontext);
		if (st->base.kind != kind)
			aggstate_corrupt(&glm_type);
		dp_row_check_same(aggname, &row, options, st->base.epsilon, st->base.delta,
						  st->base.options, st->base.d - cw);
	}
	cls = glm_row_class(fcinfo, st, &row, int_label);
	if (cls == -2)
		PG_RETURN_DATUM(EOHPGetRWDatum(&st->base.hdr));

	vals = (const float8 *) ARR_DATA_PTR(row.features);
	for (int j = 0; j < row.d; j++)
	{
		if (!isfinite(vals[j]))
		{
			if (dp_row_drops_bad(&row))
				PG_RETURN_DATUM(EOHPGetRWDatum(&st->base.hdr));
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: features must be finite (no NaN or infinity)", aggname),
					 errhint("Filter out or impute rows with non-finite features before training.")));
		}
		st->scratch[j] = vals[j];
	}
	rowclip_apply(st->scratch, row.d, st->params.R, kind == GLM_KIND_OPSAMP);
	if (cw > 0)
		st->scratch[row.d] = (double) cls;
	/* a multi-class row counts as "positive": its class is in the row */
	aggstate_count(&st->base, (const uint64 *) st->scratch, cw > 0 || row.label);
	aggstate_changed(&st->base);
	PG_RETURN_DATUM(EOHPGetRWDatum(&st->base.hdr));
}

Datum
dpobj_glm_logistic_transfn(PG_FUNCTION_ARGS)
{
	return glm_accum(fcinfo, GLM_KIND_LOGISTIC, false);
}

Datum
dpobj_glm_noisysgd_transfn(PG_FUNCTION_ARGS)
{
	return glm_accum(fcinfo, GLM_KIND_SGD, false);
}

Datum
dpobj_glm_opsamp_transfn(PG_FUNCTION_ARGS)
{
	return glm_accum(fcinfo, GLM_KIND_OPSAMP, false);
}

Datum
dpobj_glm_auto_transfn(PG_FUNCTION_ARGS)
{
	return glm_accum(fcinfo, GLM_KIND_AUTO, false);
}

Datum
dpobj_glm_logistic_mc_transfn(PG_FUNCTION_ARGS)
{
	return glm_accum(fcinfo, GLM_KIND_LOGISTIC_MC, false);
}

Datum
dpobj_glm_logistic_mc_int_transfn(PG_FUNCTION_ARGS)
{
	return glm_accum(fcinfo, GLM_KIND_LOGISTIC_MC, true);
}

Datum
dpobj_glm_noisysgd_mc_transfn(PG_FUNCTION_ARGS)
{
	return glm_accum(fcinfo, GLM_KIND_SGD_MC, false);
}

Datum
dpobj_glm_noisysgd_mc_int_transfn(PG_FUNCTION_ARGS)
{
	return glm_accum(fcinfo, GLM_KIND_SGD_MC, true);
}

/* merges the second partial state into the first (either may be NULL) */
Datum
dpobj_glm_state_combine(PG_FUNCTION_ARGS)
{
	return aggstate_combine(fcinfo, &glm_type);
}

/* ---- type I/O ---- */

Datum
dpobj_glm_state_in(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(aggstate_in(&glm_type, PG_GETARG_CSTRING(0)));
}

Datum
dpobj_glm_state_out(PG_FUNCTION_ARGS)
{
	PG_RETURN_CSTRING(aggstate_out(&glm_type, PG_GETARG_DATUM(0)));
}

Datum
dpobj_glm_state_recv(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(aggstate_recv(&glm_type, (StringInfo) PG_GETARG_POINTER(0)));
}

Datum
dpobj_glm_state_send(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(aggstate_send(&glm_type, PG_GETARG_DATUM(0)));
}

/* ---- what final functions see ---- */

/* a GLMState over no rows yet (the caller fills s->rows) */
static GLMState *
glm_state_new(GLMKind kind, const GLMParams *params, Jsonb *options)
{
	GLMState   *s = palloc0(sizeof(GLMState));

	s->kind = kind;
	s->params = *params;
	s->options = options;
	return s;
}

/*
 * The rows of st in CurrentMemoryContext (keptrows.h): a spilled state's
 * replayed; else in canonical order, for a kind that samples, or
 * "sample_rows", those of the sample drawn from them; dp_logistic and
 * dp_noisysgd without it fit every row of a state shipped exact
 * (aggstate.c, aggstate_sample_at).
 */
static GLMState *
glm_final_rows(GLMExpanded *st)
{
	GLMState   *s = glm_state_new((GLMKind) st->base.kind, &st->params, st->base.options);

	keptrows_from_state(&s->rows, &st->base,
						!glm_spills(st->base.kind) || st->params.sample_rows > 0,
						PG_INT32_MAX);
	return s;
}

/*
 * A direct dp_logistic or dp_noisysgd call whose parts were shipped as
 * samples (aggstate.c, aggstate_get_flat_size) that dropped rows: the model
 * says it was fitted to a uniform sample of K rows, as with "sample_rows".
 * Whether rows were dropped follows the rows, so never on the protected
 * path (pctx), whose runs of these kinds never ship such a state anyway:
 * they are serial, and on Citus they ask for "sample_rows" themselves.  The
 * kinds that always sample (OPSamp, 'auto', one-vs-rest) never say it.
 */
static GLMState *
glm_shipped_sample(const GLMExpanded *st, GLMState *s, const DPProtectedContext *pctx)
{
	if (pctx == NULL && glm_spills(st->base.kind) && st->base.sample != NULL &&
		st->params.sample_rows == 0 && aggsample_keyed(st->base.sample))
		s->params.sample_rows = aggsample_k(st->base.sample);
	return s;
}

GLMState *
glmstate_create_empty(GLMKind kind, int d, double epsilon, double delta, Jsonb *options)
{
	GLMParams	p;
	GLMState   *s;

	glmparams_init(kind, &p, epsilon, delta, options);
	s = glm_state_new(kind, &p, options);
	keptrows_alloc(&s->rows, d, 0);
	return s;
}

GLMState *
glmstate_final_begin(FunctionCallInfo fcinfo, GLMKind kind, DPProtectedContext **pctx)
{
	GLMExpanded *st;

	aggstate_final_check(fcinfo);
	st = PG_ARGISNULL(0) ? NULL :
		(GLMExpanded *) aggstate_readable(&glm_type, PG_GETARG_DATUM(0));
	if (st != NULL && st->base.kind != kind)
		aggstate_corrupt(&glm_type);
	*pctx = st ? mechanism_claim(fcinfo, true, st->base.epsilon, st->base.delta,
								 st->base.d - glmstate_class_words(kind))
		: mechanism_claim(fcinfo, false, 0, 0, 0);
	/* protected path: run even on no rows, so emptiness is hidden */
	if (st == NULL)
		return *pctx ? glmstate_create_empty(kind, (*pctx)->d + glmstate_class_words(kind),
											 (*pctx)->epsilon_f,
											 (*pctx)->delta_f, (*pctx)->options) : NULL;
	if (st->base.spill != NULL)
		return glm_final_rows(st);
	return glm_shipped_sample(st, glm_final_rows(st), *pctx);
}

/* ---- 0.1.0 entry points ---- */

Datum
dpobj_logistic_transfn(PG_FUNCTION_ARGS)
{
	aggstate_obsolete("dp_logistic_transfn(internal, ...)", "0.1.0");
}

Datum
dpobj_noisysgd_transfn(PG_FUNCTION_ARGS)
{
	aggstate_obsolete("dp_noisysgd_transfn(internal, ...)", "0.1.0");
}

Datum
dpobj_opsamp_transfn(PG_FUNCTION_ARGS)
{
	aggstate_obsolete("dp_opsamp_transfn(internal, ...)", "0.1.0");
}

Datum
dpobj_glm_combine(PG_FUNCTION_ARGS)
{
	aggstate_obsolete("dp_glm_combine(internal, internal)", "0.1.0");
}

Datum
dpobj_glm_serial(PG_FUNCTION_ARGS)
{
	aggstate_obsolete("dp_glm_serial(internal)", "0.1.0");
}

Datum
dpobj_glm_deserial(PG_FUNCTION_ARGS)
{
	aggstate_obsolete("dp_glm_deserial(bytea, internal)", "0.1.0");
}

/*
 * The observations of the state at its class weights (keptdesign.h,
 * keptrows_observations).  The mechanisms' design matrix (glm_design) and
 * the Newton solver's sparse design (glmminimise.c) both list the
 * observations this way.
 */
int64
glmstate_observations(const GLMState *s, int **row, double **cnt, double **y)
{
	return keptrows_observations(&s->rows, OPERATING_CLASS_W(&s->params), row, cnt, y);
}

int64
glmstate_observations_into(const GLMState *s, int *row, double *cnt, double *y)
{
	return keptrows_observations_into(&s->rows, OPERATING_CLASS_W(&s->params), row, cnt, y);
}
