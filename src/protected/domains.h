/*-------------------------------------------------------------------------
 *
 * domains.h
 *	  The catalog of public feature domains, dpobj.feature_domains
 *	  (domains.c): dpobj.declare_domain() and dpobj.drop_domain() for the
 *	  table's owner (or a member of dpobj_admin), and the encoding of a
 *	  run's feature columns built from it (encode.h).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_DOMAINS_H
#define DPOBJ_DOMAINS_H

#include "postgres.h"

#include "utils/jsonb.h"

/* train()'s option "encode": absent, true or false */
typedef enum DomainsMode
{
	DOMAINS_AUTO = 0,			/* encode when any feature column is declared */
	DOMAINS_REQUIRED,			/* every feature column must be declared */
	DOMAINS_OFF					/* raw numeric columns, as without declarations */
} DomainsMode;

/*
 * The encoding of features (column names, in order) on relid from the
 * declarations, or NULL for raw features.  Once one column is encoded,
 * every column must be declared (else a public error, before any charge).
 * Reads the catalog (its own SPI connection) as the bootstrap superuser.
 */
extern Jsonb *domains_encoding(Oid relid, const char *relation, char **features,
							   int nfeatures, DomainsMode mode);

/*
 * The columns (quoted, comma-separated) without a declared domain, booleans
 * included, or NULL: dpobj.synthesize()'s refusal names them all.
 */
extern char *domains_undeclared(Oid relid, char **columns, int ncolumns);

/*
 * Whether column's declared levels are complete (no NULL, no other value:
 * dpobj.declare_domain(rel, column, levels, true)); the catalog as the
 * bootstrap superuser
 */
extern bool domains_complete(Oid relid, const char *column);

#endif							/* DPOBJ_DOMAINS_H */
