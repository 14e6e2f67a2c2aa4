/*-------------------------------------------------------------------------
 *
 * options.h
 *	  Reading a mechanism's jsonb options: one iterator over the keys of a
 *	  JSON object and typed readers whose errors name the key and the
 *	  accepted range, never a row value, and a table of the options'
 *	  defaults.  Used by the params parsers in state/ (each owns its keys).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_OPTIONS_H
#define DPOBJ_OPTIONS_H

#include "postgres.h"

#include "utils/jsonb.h"

/* called once per key of the options object, in jsonb key order */
typedef void (*dp_option_fn) (const char *key, JsonbValue *value, void *arg);

/*
 * Calls fn for every key of options (a JSON object).  Raises an error with
 * the hint "For example <example>." when options is not an object.
 */
extern void dp_options_foreach(Jsonb *options, const char *example,
							   dp_option_fn fn, void *arg);

/* an integer JSON number in [lo, hi] */
extern int	dp_option_int(JsonbValue *v, const char *key, int lo, int hi);

/* a finite JSON number in (lo, hi] (lo_open) or [lo, hi] */
extern double dp_option_number(JsonbValue *v, const char *key, double lo,
							   double hi, bool lo_open);

/* a JSON string; hint lists the accepted values */
extern char *dp_option_string(JsonbValue *v, const char *key, const char *hint);

/* a JSON boolean */
extern bool dp_option_bool(JsonbValue *v, const char *key);

/* key of options as a C string, or NULL when absent (not a string: "") */
extern const char *dp_options_string(Jsonb *options, const char *key);

/*
 * An option with a default, in the table a params parser reads and a
 * mechanism's registry entry points to (halfspaceparams.h, glmparams.h,
 * linearparams.h, passglmparams.h): the one place its default is written.
 * Required options have none and are not listed.
 */
typedef enum DPOptionType
{
	DP_OPTION_INT,				/* an int, or an enum of int size */
	DP_OPTION_INT64,
	DP_OPTION_DOUBLE,
	DP_OPTION_BOOL
} DPOptionType;

typedef struct DPOptionSpec
{
	const char *name;			/* the jsonb key; NULL ends a table */
	DPOptionType type;
	size_t		offset;			/* its field in the parser's params struct */
	double		dflt;			/* its default ... */
	const int  *setting;		/* ... or, not NULL, this setting's value (a GUC) */
	/* in the end entry: a table whose defaults hold where this one has none */
	const struct DPOptionSpec *base;
} DPOptionSpec;

#define DP_OPTION(key, type, st, field, dflt) {key, type, offsetof(st, field), dflt}

/* every option of the table spec (and its base's) at its default, into params */
extern void dp_options_defaults(const DPOptionSpec *spec, void *params);

/*
 * The protected mode, carried by a mechanism's own options so that it
 * travels with the query to every node that runs the transition function
 * (a Citus worker included): dpobj.train()'s query builder always adds
 * {"sealed": true}, and then every row with a NULL or non-finite value is
 * dropped silently instead of raising a row-dependent error.  On the
 * direct path the key only drops such rows instead of reporting them: it
 * never relaxes a check.  Every mechanism's option reader accepts it.
 */
#define DPOBJ_SEALED_KEY		"sealed"
#define DPOBJ_SEALED_KEY_LEN	6

/* options (may be NULL) has "sealed": true */
extern bool dp_options_sealed(Jsonb *options);

/* key is "sealed": checks that its value is a boolean and returns true */
extern bool dp_option_sealed_key(const char *key, JsonbValue *v);

/*
 * options (a JSON object) of a counts aggregate: only the keys own,
 * "rows_per_unit" and "sealed" (a boolean); another key is refused (22023,
 * "unknown option for aggname", hint).  Returns rows_per_unit (1 without it).
 */
extern int	dp_options_rows_per_unit(Jsonb *options, const char *own, const char *aggname,
									 const char *hint);

/* options || json (a JSON object of dpobj's own making): its keys win */
extern Jsonb *dp_options_add(Jsonb *options, const char *json);
/* options || {"sample_rows": k} (a run's shard sample on Citus, family.h citus_options) */
extern Jsonb *dp_options_sample_rows(Jsonb *options, int64 k);

#endif							/* DPOBJ_OPTIONS_H */
