/*-------------------------------------------------------------------------
 *
 * kindsint.h
 *	  What a model kind implements (kinds.h): the unpacked model every kind
 *	  shares and the operations kinds.c dispatches to.  Included only by
 *	  the model layer and the kind files (a family's <f>model.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_KINDSINT_H
#define DPOBJ_KINDSINT_H

#include "postgres.h"

#include "model/kinds.h"

typedef struct ModelKindOps ModelKindOps;

struct ModelPredictor
{
	ModelKind	kind;			/* its operations */
	int			d;				/* features a vector has */
	int			nw;				/* weights */
	double	   *w;
	double		bias;
	Jsonb	   *params;			/* an object, or NULL */
	bool		regression;		/* the margin is a value (a numeric target) */
	bool		range_ok;		/* params y_min < y_max, finite */
	double		y_min;
	double		y_max;
	bool		logistic;		/* the margin is a log-odds: probability() */
	bool		has_threshold;	/* params "threshold" (0.6.0 on) */
	double		threshold;		/* ... predict() is margin > it (0 without) */
	void	   *kd;				/* the kind's own */
};

/* dpobj.explain()'s rows, collected by the kinds (explain.c) */
typedef struct ExplainOut ExplainOut;

/* one row: class (NULL: a single-output model), feature, level or bin */
extern void explain_row(ExplainOut *out, const char *cls, const char *feature,
						const char *level, double contribution);

/* the last row's released noisy count (shown clamped at 0, rounded) */
extern void explain_row_count(ExplainOut *out, double count);

/*
 * Closes the feature begun since the last close: its importance is the
 * given value, or (importance < 0) from its rows (explain.c): weighted by
 * their counts when every row has one, else the spread max - min.
 */
extern void explain_feature_end(ExplainOut *out, double importance);

/*
 * The name of coordinate j (0-based) by the model's encoding: its column,
 * and a categorical's level or a numeric's declared range "[lo, hi]" (lo,
 * hi); without an encoding "x[j+1]" and a NULL level.
 */
extern void explain_coord_name(ExplainOut *out, int j, char **feature,
							   char **level, bool *numeric, double *lo, double *hi);

/* a linear model's rows: one per weight (kindlinear.c), then the intercept */
extern void explain_linear_weights(const ModelPredictor *m, const char *cls,
								   const double *w, int d, double intercept,
								   ExplainOut *out);

struct ModelKindOps
{
	const char *name;			/* dpobj.model_kind()'s */
	/* the params key that marks a stored model of the kind, or NULL (kinds.c) */
	const char *marker;
	/*
	 * a model of a mechanism registered with this kind is of it without its
	 * marker too (a regression; an additive model without "terms" is forged)
	 */
	bool		by_mechanism;
	bool		own_weights;	/* unpack reads the weights (multi-class: K vectors) */
	bool		threshold;		/* a classifier whose params may set "threshold" */
	bool		reads_features; /* its params say the features a vector has */
	/* a vector it cannot evaluate is "not finite or out of range" either way */
	bool		ranged;
	/* a kind that never predicts: every model function's error and hint, else NULL */
	const char *refuse;
	const char *refuse_hint;
	/* such a kind's complete check of a model (dpobj.model_kind()), or NULL */
	void		(*check) (HeapTupleHeader th);
	/* validates the kind's part of a model completely (public grounds) */
	void		(*unpack) (ModelPredictor *m, HeapTupleHeader th);
	/*
	 * The margin of x (m->d values): its exact sign, its value, and whether
	 * that value is exact enough to release as a score; never raises.
	 * NULL: the kind has no single margin (multi-class).
	 */
	ModelRowStatus (*margin) (const ModelPredictor *m, const double *x, int *sign,
							  long double *value, bool *exact);
	/* the model's rows for dpobj.explain() */
	void		(*explain) (const ModelPredictor *m, ExplainOut *out);
};

/* unpacks a model of any kind (kinds.c); model_predictor() adds the margin check */
extern ModelPredictor *model_unpack_any(HeapTupleHeader th, MemoryContext mcxt);

#endif							/* DPOBJ_KINDSINT_H */
