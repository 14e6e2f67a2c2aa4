/*-------------------------------------------------------------------------
 *
 * options.h
 *	  Reading a mechanism's jsonb options: one iterator over the keys of a
 *	  JSON object and typed readers whose errors name the key and the
 *	  accepted range, never a row value, and the generic reader of a
 *	  family's options table (each params file owns its table).
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

/* a JSON number as float8 (beyond its range +-Infinity, or 0), else NAN */
extern double dp_option_float8(JsonbValue *v);

/* key of options as a C string, or NULL when absent (not a string: "") */
extern const char *dp_options_string(Jsonb *options, const char *key);

/*
 * A mechanism family's options table (build_reloptions style): per option
 * its key, its field and default, its bounds, which of the family's kinds
 * accept it and its words in the hint that lists the valid options.  One
 * parser (dp_options_parse) reads a run's options against it, refuses an
 * unknown key and derives that hint; a params file adds only its
 * cross-option rules.  A key may repeat with disjoint .accepts: the first
 * entry that accepts the kind reads it, and each places the key in its
 * kinds' hint.
 */
typedef enum DPOptionType
{
	DP_OPTION_NONE,				/* no field of its own (its parse function's) */
	DP_OPTION_INT,				/* an int, or an enum of int size */
	DP_OPTION_INT64,
	DP_OPTION_DOUBLE,
	DP_OPTION_BOOL
} DPOptionType;

/* an option's own reader: field is the params struct's field (offset) */
typedef void (*dp_option_parse_fn) (JsonbValue *v, const char *key, void *field, void *arg);

typedef struct DPOptionSpec
{
	const char *name;			/* the jsonb key; NULL ends a table */
	DPOptionType type;
	size_t		offset;			/* its field in the parser's params struct */
	double		dflt;			/* its default ... */
	const int  *setting;		/* ... or, not NULL, this setting's value (a GUC) */
	bool		no_default;		/* required, or defaulted from other options */
	/*
	 * read by parse, else by type: an integer in [lo, hi] (an int64 with
	 * whole: a number in [lo, hi], then "must be an integer", hint), a finite
	 * number in [lo, hi] ((lo, hi] lo_open; [lo, hi) hi_open: "must be below
	 * hi", hint), a boolean
	 */
	dp_option_parse_fn parse;
	double		lo,
				hi;
	bool		lo_open,
				hi_open,
				whole;
	const char *hint;
	uint32		accepts;		/* the kinds' bits (dp_options_parse) that take it; 0: all */
	const char *label;			/* in the valid options' hint (NULL: the key; DP_HIDDEN: none) */
	/* in the end entry: a table whose defaults hold where this one has none */
	const struct DPOptionSpec *base;
} DPOptionSpec;

#define DP_HIDDEN		""		/* a label: accepted, never listed */
#define DP_NO_KIND		0x80000000U /* accepts: a default only, never parsed */

/* an option of struct st's field: DP_OPTION(key, DP_OPTION_INT, st, field, dflt, .lo = 1, ...) */
#define DP_OPTION(key, type_, st, field, dflt_, ...) \
	{.name = key, .type = type_, .offset = offsetof(st, field), .dflt = dflt_, __VA_ARGS__}
/* an option without a default, read by fn */
#define DP_OPTION_FN(key, fn, ...) {.name = key, .parse = fn, .no_default = true, __VA_ARGS__}

/* every option of the table spec (and its base's) at its default, into params */
extern void dp_options_defaults(const DPOptionSpec *spec, void *params);
extern void dp_options_require(Jsonb *options, const char *aggname, const char *hint);

/* one run's reading of its options against a table */
typedef struct DPOptionParser
{
	const DPOptionSpec *spec;
	uint32		kind;			/* the reading kind's bit in .accepts (0: every entry's) */
	const char *example;		/* "options must be a JSON object"'s hint: For example ... */
	const char *prefix;			/* before the parser's own messages ("dp_x: "), or "" */
	const char *aggname;		/* unknown option "k" for aggname (NULL: no "for") */
	/* the unknown option's hint: "Valid options are " the labels tail "." */
	const char *tail;
	const char *hint;			/* not NULL: that hint instead */
	bool		quoted;			/* the labels quoted, all joined by ", " ("Options: ") */
	bool		(*foreign) (const char *key);	/* not NULL: keys another table reads */
	void	   *params;
	void	   *arg;			/* the parse functions' */
	uint64		given;			/* out: bit i, spec[i] was read */
} DPOptionParser;

/* reads options (a JSON object) into p->params; raises on an unknown or bad option */
extern void dp_options_parse(DPOptionParser *p, Jsonb *options);

/* the option key was given (dp_options_parse) */
extern bool dp_option_given(const DPOptionParser *p, const char *key);

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
/* options || {key: value}, value as it is (a container or a scalar): it wins */
extern Jsonb *dp_options_put(Jsonb *options, const char *key, JsonbValue *value);
/* options || {"sample_rows": k} (a run's shard sample on Citus, family.h citus_options) */
extern Jsonb *dp_options_sample_rows(Jsonb *options, int64 k);

#endif							/* DPOBJ_OPTIONS_H */
