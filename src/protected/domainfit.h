/*-------------------------------------------------------------------------
 *
 * domainfit.h
 *	  Whether a declared domain fits its column's type (domainfit.c): the
 *	  kinds of column a domain may have, a level as a value of the type,
 *	  bounds within the range of the values the type can hold.
 *	  dpobj.declare_domain() refuses a domain that does not fit;
 *	  dpobj.synthesize(), which writes values of the domain into columns of
 *	  the column's type after its charge, refuses before the charge a
 *	  declaration the column's current type no longer fits.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_DOMAINFIT_H
#define DPOBJ_DOMAINFIT_H

#include "postgres.h"

#include "utils/jsonb.h"

/* base type may have a categorical (levels) or a numeric (bounds) domain */
extern bool domainfit_kind(Oid type, bool categorical);

/* type is smallint, integer or bigint, or a domain over one */
extern bool domainfit_integer(Oid type);

/*
 * A level as the text of a value of base type (column::text, which the
 * encoding matches byte for byte), or NULL if no value has it.
 */
extern char *domainfit_level_text(Oid type, const char *level);

/*
 * NULL when every float8 in [lo, hi] casts to base type (with typmod)
 * without an error, as a synthetic value is written; else why not
 */
extern const char *domainfit_bounds(Oid type, int32 typmod, double lo, double hi);

/*
 * Before a synthesize run's charge: every column of the encoding enc (its
 * declared domains, model/encode.h) on relid still fits its column's
 * type, and no column's type is a domain with constraints (a synthetic
 * value could fail them); a public refusal (22023) otherwise.
 */
extern void domainfit_check_run(Oid relid, Jsonb *enc, const char *fname);

#endif							/* DPOBJ_DOMAINFIT_H */
